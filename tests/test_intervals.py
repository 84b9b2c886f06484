"""The gate reads raw rounds: a claim's row selection selects its samples, its interval is the median's
order-statistic interval, a run without raw rounds still checks; formulas carry intervals; review and
refresh judge moves with the same statistics. Real runs (the run writer), the real command line."""

import json
from datetime import timedelta

import pytest
from helpers import MEASURED, RUN_TIME, a_run, git, run_ledger, write_tree
from helpers_rounds import claim, noisy, rewrite_rounds, rounds_run

from generator.inputs import load
from generator.inputs.load import NOT_PARSED
from generator.lang import stats

SPREAD = [1.1, 1.2, 1.25, 1.3, 1.31, 1.35, 1.4, 1.45, 1.5]  # median 1.31
FLAT = [1.0] * 9


def check_json(root):
    result = run_ledger("check", "--format", "json", cwd=root)
    return result, json.loads(result.output)


def test_a_claim_selects_its_rounds_from_samples_csv_and_shows_the_median_interval(tmp_path):
    run = rounds_run(tmp_path, {1: FLAT, 16: SPREAD})
    write_tree(tmp_path, {"claims/a.yaml": "claims:" + claim("s16", run, "1.31")})
    result, data = check_json(tmp_path)
    assert result.exit_code == 0, result.output
    # 9 rounds: min–max is the narrowest interval with at least 99% coverage (1 - 2/2**9 = 99.6%).
    assert data["intervals"]["s16"] == {
        "low": 1.1,
        "high": 1.5,
        "level": 1 - 2 / 512,
        "basis": "rounds",
        "rounds": 9,
        "runs": 1,
    }
    shown = run_ledger("show", "s16", cwd=tmp_path).output.splitlines()
    assert shown[:2] == ["s16 = 1.31× (measured, fresh)", "99.6% interval 1.1–1.5× (9 rounds)"]


def test_more_rounds_give_a_narrower_interval_than_min_max(tmp_path):
    values = [float(v) for v in range(1, 16)]  # 15 rounds: [x_(3), x_(13)] covers the median with 99.3%
    run = rounds_run(tmp_path, {16: values})
    write_tree(tmp_path, {"claims/a.yaml": "claims:" + claim("s16", run, "8")})
    _, data = check_json(tmp_path)
    found = data["intervals"]["s16"]
    assert (found["low"], found["high"], round(found["level"], 4)) == (3.0, 13.0, 0.9926)


def test_a_run_without_raw_rounds_gets_its_min_max_and_says_so(tmp_path):
    rows = [{"batch": 16, "rounds": 7, "speedup": 1.301, "speedup_min": 0.74, "speedup_max": 1.51}]
    run = a_run(tmp_path, rows, columns={})  # runs that declare no kinds: timed by inference
    # timed (its row has rounds), but no min/max: no interval at all (a row without rounds is exact)
    bare = a_run(tmp_path, [{"batch": 16, "rounds": 7, "speedup": 3.6}], when=RUN_TIME + timedelta(hours=1), columns={})
    write_tree(
        tmp_path,
        {"claims/a.yaml": "claims:" + claim("cpu-moe", run, "1.301") + claim("bare", bare, "3.6")},
    )
    result, data = check_json(tmp_path)
    assert result.exit_code == 0, result.output
    assert data["intervals"]["cpu-moe"] == {
        "low": 0.74,
        "high": 1.51,
        "level": 1 - 2 / 2**7,
        "basis": "min-max",
        "rounds": 7,
        "runs": 1,
    }
    assert "bare" not in data["intervals"]
    assert data["no_raw_rounds"] == {"cpu-moe": "the run has no samples.csv", "bare": "the run has no samples.csv"}
    assert run_ledger("show", "cpu-moe", cwd=tmp_path).output.splitlines()[1] == (
        "98.4% interval 0.74–1.51× (min–max of 7 rounds; no raw rounds)"
    )
    assert run_ledger("show", "bare", cwd=tmp_path).output.splitlines()[1] == "no raw rounds"


def test_a_named_table_keeps_its_rounds_in_name_samples_csv(tmp_path):
    run = rounds_run(tmp_path, {16: SPREAD}, file="sweep.csv")
    text = claim("s16", run, "1.31").replace("file: results.csv", "file: sweep.csv")
    write_tree(tmp_path, {"claims/a.yaml": "claims:" + text})
    _, data = check_json(tmp_path)
    assert data["intervals"]["s16"]["basis"] == "rounds"
    assert (tmp_path / run / "sweep.samples.csv").exists()


@pytest.mark.parametrize(
    "broken, problem",
    [
        ({"samples": "1,3_7"}, "samples.csv line 10, column speedup: '3_7' is not a number"),
        ({"samples": "x,1.0"}, "samples.csv line 10: round 'x' is not a whole number"),
        ({"samples": "0,1.0"}, "samples.csv: round 0 appears twice where batch=16"),
    ],
)
def test_raw_rounds_that_contradict_the_run_are_invalid_with_the_line(tmp_path, broken, problem):
    run = rounds_run(tmp_path, {16: SPREAD}, summary=broken.get("summary"))
    if "samples" in broken:  # the last round's cells rewritten, as a probe might have written them
        round_cell, value = broken["samples"].split(",")
        rewrite_rounds(tmp_path, run, lambda lines: [*lines[:-1], f"16,{round_cell},1,{value}"])
    write_tree(tmp_path, {"claims/a.yaml": "claims:" + claim("s16", run, "1.31")})
    result = run_ledger("check", cwd=tmp_path)
    assert result.exit_code == 1
    assert f"claims/a.yaml:7: s16: invalid: {problem}" in result.output
    assert "Traceback" not in result.output + result.errors


def test_a_summary_that_is_not_the_median_of_its_raw_rounds_is_tampered(tmp_path):
    """Laundering: a results.csv edited (and its manifest rehashed) to state another median than its rounds."""
    run = rounds_run(tmp_path, {16: SPREAD}, summary={16: 1.4})  # results.csv says 1.4, its rounds' median is 1.31
    write_tree(tmp_path, {"claims/a.yaml": "claims:" + claim("s16", run, "1.4")})
    result = run_ledger("check", cwd=tmp_path)
    assert result.exit_code == 1
    assert (
        f"claims/a.yaml:7: s16: tampered: {run}/results.csv, batch=16, column speedup is 1.4, but the median of its "
        "9 rounds in samples.csv is 1.31: the row's summary does not follow from its raw rounds"
    ) in result.output
    assert "fix: restore the run's files from git, or rerun the probe" in result.output


def test_more_raw_rounds_than_the_gate_reads_are_invalid_not_slow(tmp_path):
    run = rounds_run(tmp_path, {16: [1.0] * (stats.MAX_ROUNDS + 1)})
    write_tree(tmp_path, {"claims/a.yaml": "claims:" + claim("s16", run, "1")})
    result = run_ledger("check", cwd=tmp_path)
    assert result.exit_code == 1
    assert (
        "claims/a.yaml:7: s16: invalid: samples.csv, batch=16: 251 rounds; the gate reads at most 250" in result.output
    )
    assert "fix: rerun the probe with at most 250 rounds a setting" in result.output


def test_samples_of_runs_no_claim_cites_are_hashed_but_not_parsed(tmp_path):
    cited = rounds_run(tmp_path, {16: SPREAD})
    uncited = rounds_run(tmp_path, {16: SPREAD}, when=RUN_TIME + timedelta(hours=1))
    runs, _ = load.runs(tmp_path, "measurements", cited={cited})
    assert runs[cited].tables["samples.csv"].rows
    assert runs[uncited].tables["samples.csv"].problem == NOT_PARSED
    assert runs[uncited].actual_files["samples.csv"] == runs[uncited].declared_files["samples.csv"]


# -- formulas carry intervals ----------------------------------------------------------------------

RATIO = """
  - id: ratio
    kind: extrapolated
    formula: a / b
    inputs: {a: s16, b: s1}
    value: 1.31
"""


def test_a_ratio_of_two_claims_of_one_run_is_paired_by_round(tmp_path):
    drift = [1.0, 1.5, 1.0, 1.5, 1.0, 1.5, 1.0, 1.5, 1.0]  # the machine slows down every other round
    run = rounds_run(tmp_path, {1: drift, 16: [1.31 * d for d in drift]})
    write_tree(tmp_path, {"claims/a.yaml": "claims:" + claim("s16", run, "1.31") + claim("s1", run, "1.0", 1) + RATIO})
    _, data = check_json(tmp_path)
    # The drift cancels round by round: every per-round ratio is 1.31.
    assert data["intervals"]["ratio"]["basis"] == "paired"
    assert data["intervals"]["ratio"]["low"] == pytest.approx(1.31)
    assert data["intervals"]["ratio"]["high"] == pytest.approx(1.31)
    assert data["intervals"]["s16"]["high"] / data["intervals"]["s16"]["low"] == pytest.approx(1.5)


def test_a_ratio_of_two_runs_carries_both_intervals_by_interval_arithmetic(tmp_path):
    one = rounds_run(tmp_path, {16: SPREAD})
    other = rounds_run(tmp_path, {1: [0.9, 0.95, 1.0, 1.0, 1.0, 1.0, 1.05, 1.08, 1.1]}, when=RUN_TIME + timedelta(1))
    write_tree(
        tmp_path, {"claims/a.yaml": "claims:" + claim("s16", one, "1.31") + claim("s1", other, "1.0", 1) + RATIO}
    )
    _, data = check_json(tmp_path)
    found = data["intervals"]["ratio"]
    assert found["basis"] == "formula"
    assert (found["low"], found["high"]) == pytest.approx((1.1 / 1.1, 1.5 / 0.9))
    assert found["level"] == pytest.approx(1 - 2 * (2 / 512))  # both cover their medians: Bonferroni
    shown = run_ledger("show", "ratio", cwd=tmp_path).output.splitlines()[1]
    assert shown == "≥ 99.2% interval 1–1.667 (carried through the formula)"


def test_a_formula_dividing_by_an_interval_around_zero_has_no_interval_and_no_traceback(tmp_path):
    run = rounds_run(tmp_path, {1: [-1.0, -0.5, 0.0, 0.5, 1.0, 1.0, 1.0, 1.0, 1.0], 16: SPREAD})
    other = a_run(tmp_path, [{"batch": 1, "speedup": 1.0, "speedup_min": -1, "speedup_max": 1}], probe="other")
    text = claim("s16", run, "1.31") + claim("s1", other, "1.0", 1) + RATIO
    write_tree(tmp_path, {"claims/a.yaml": "claims:" + text})
    result, data = check_json(tmp_path)
    assert "ratio" not in data["intervals"] and result.exit_code == 0
    assert "Traceback" not in result.errors


# -- review and refresh speak the same statistics ---------------------------------------------------


def remeasured(tmp_path, shift: float, extra: str = ""):
    """A committed ledger citing 9 noisy rounds, then a re-measure shifted by `shift`, refreshed."""
    first = rounds_run(tmp_path, {1: FLAT, 16: noisy(1.3, seed=1)})
    value = f"{sorted(noisy(1.3, seed=1))[4]:.4g}"
    write_tree(tmp_path, {"claims/a.yaml": "claims:" + claim("s16", first, value) + extra})
    git(tmp_path, "init", "-q")
    git(tmp_path, "add", ".")
    git(tmp_path, "commit", "-qm", "base")
    rounds_run(tmp_path, {1: FLAT, 16: noisy(1.3 * (1 + shift), seed=2)}, when=RUN_TIME + timedelta(hours=1))
    refreshed = run_ledger("refresh", "--write", cwd=tmp_path)
    assert refreshed.exit_code == 0, refreshed.output + refreshed.errors
    return refreshed.output, run_ledger("diff", "HEAD", cwd=tmp_path).output


DOUBLE = """
  - id: doubled
    kind: extrapolated
    formula: 2 * s
    inputs: {s: s16}
    value: 2.6
    tolerance: 5%
"""


def test_a_30_percent_re_measure_in_9_rounds_is_beyond_noise_by_the_rank_test(tmp_path):
    refreshed, diff = remeasured(tmp_path, 0.30, DOUBLE)
    beyond = "beyond noise: +24.3% [+7.0, +60.9] (99.8%, within-run) (Mann–Whitney p = 0.00016; 9 → 9 rounds)"
    assert beyond in refreshed
    assert "| doubled | (formula) |" in refreshed and "| beyond noise (follows s16) |" in refreshed
    escaped = beyond.replace("[", "\\[").replace("]", "\\]")
    assert (
        f"| value moved | `s16` | 1.304× → 1.622× (+24.4%; 5% allowed; {escaped}); re-measured (same probe, testbed "
        "and defining parameters): "
    ) in diff
    # the new point the claim now cites reads as its move does: one verdict, one interval
    assert "new point 1.622× in 2026-11-29T11-00-00Z-linux-cpu: **step**, +24.3% \\[+7.0, +60.9\\]" in diff
    assert "| value moved | `doubled` |" in diff  # it inherits its input's verdict
    assert "evidence swapped" not in diff


def test_a_7_percent_move_of_the_median_of_noisy_rounds_is_insufficient_data_never_within_noise(tmp_path):
    """The medians move 7.1% (p = 0.04): the rounds could not have shown a change of the 5% tolerance, so it is
    insufficient data with what they could see, never within noise, in refresh and in the pull-request comment."""
    refreshed, diff = remeasured(tmp_path, 0.12, DOUBLE)
    assert (
        "| 1.304× | 1.397× | 1.304 → 1.397 | insufficient data: +7.1% [−7.8, +38.6] (99.8%, within-run); only a "
        "change over 33.4% could be seen, 5.0% allowed: one run a side, judged on its rounds alone" in refreshed
    )
    assert "| doubled | (formula) | 2.608 | 2.794 | 2.6 → 2.79 | insufficient data (follows s16) |" in refreshed
    assert "| value moved |" not in diff and "within noise" not in diff
    assert (
        "| `s16` | 1.304× → 1.397× | +7.1% \\[−7.8, +38.6\\] (99.8%, within-run) | 33.4% | 5.0% | one run a side"
        in (diff)
    )
    assert "| `doubled` | 2.6 → 2.79 | — | — | — | follows its inputs |" in diff  # inherited
    assert "new point 1.397× in 2026-11-29T11-00-00Z-linux-cpu: insufficient data, +7.1%" in diff


def test_a_round_without_a_value_is_not_a_round_of_that_column(tmp_path):
    # A ratio whose other setting had stopped has a blank cell in that round (generator.timing.summarise).
    run = rounds_run(tmp_path, {16: SPREAD})
    rewrite_rounds(tmp_path, run, lambda lines: [*lines, "16,9,1,"])  # a tenth round with no speedup
    write_tree(tmp_path, {"claims/a.yaml": "claims:" + claim("s16", run, "1.31")})
    result, data_json = check_json(tmp_path)
    assert result.exit_code == 0, result.output
    assert data_json["intervals"]["s16"]["rounds"] == 9


def test_an_interval_over_one_round_says_one_round(tmp_path):
    """'(min–max of 1 rounds)': the count takes its noun in the number it is."""
    a_run(tmp_path, [{"batch": 16, "speedup": 3.6, "speedup_min": 3.5, "speedup_max": 3.7, "rounds": 1}])
    write_tree(tmp_path, {"claims/moe.yaml": MEASURED})
    shown = run_ledger("show", "moe-speedup-b16", cwd=tmp_path).output
    assert "interval 3.5–3.7× (min–max of 1 round; no raw rounds)" in shown, shown
