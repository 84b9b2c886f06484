"""Replicate runs: runs of one probe, testbed, parameters, code and environment are one set wherever they
were made; a claim citing a set gets the pooled value and a between-run interval, every claim a
prediction of where the next run lands (what refresh, diff and the history judge against); a claim on
one run says its interval leaves run-to-run variation out; what a project can require of replicates."""

import json
import math
from datetime import timedelta

import pytest
from helpers import RUN_TIME, run_ledger, write_tree
from helpers_rounds import claim, noisy, rewrite_rounds, rounds_run

from generator.gate import check_project
from generator.inputs import load
from generator.judging import replicates
from generator.lang import between
from generator.records import Run, Source

LEVELS_A = (1.00, 1.012, 0.99)  # three runs' levels: run-to-run variation of about 1%
LEVELS_B = (1.006, 0.994, 1.003)  # an A/A re-run of them


def a_set(root, levels, start: int = 0, scale: float = 1.0, environment: dict | None = None) -> list[str]:
    """Replicate runs an hour apart, each with 9 rounds at 2% CV around its own level (times scale)."""
    return [
        rounds_run(
            root,
            {16: noisy(scale * level * 3.6, cv=0.02, seed=start + i), 1: noisy(1.0, cv=0.02, seed=50 + start + i)},
            when=RUN_TIME + timedelta(hours=start + i),
            environment=environment,
        )
        for i, level in enumerate(levels)
    ]


def set_claim(run: str, value: str, replicates: str = "3", extra: str = "") -> str:
    text = claim("s16", run, value, extra=extra)
    return text.replace("column: speedup}", f"column: speedup, replicates: {replicates}}}")


def check_json(root) -> dict:
    return json.loads(run_ledger("check", "--format", "json", "--no-cache", cwd=root).output)


# -- the statistics ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "p, df, expected",  # Student's t, from published tables
    [
        (0.975, 1, 12.7062),
        (0.975, 2, 4.3027),
        (0.995, 2, 9.9248),
        (0.995, 4, 4.6041),
        (0.975, 30, 2.0423),
        (0.95, 10, 1.8125),
    ],
)
def test_t_quantiles_match_the_tables(p, df, expected):
    assert between.t_quantile(p, df) == pytest.approx(expected, abs=5e-4)


@pytest.mark.parametrize(
    "values, centre, half",
    [
        # three runs agreeing to 1%, each with no interval: Student's t over their own spread
        ((1.0, 1.01, 0.99), 0.0, between.t_quantile(0.995, 2) * 0.01 / math.sqrt(3)),
        # the same runs, each with a wide interval of its own: never narrower than one run's noise allows
        ((1.0, 1.0, 1.0), 0.0, between.t_quantile(0.995, 2) * 0.05 / math.sqrt(3)),
    ],
)
def test_the_pooled_interval_is_t_over_the_larger_of_the_runs_spread_and_their_own(values, centre, half):
    z = between._NORMAL.inv_cdf(0.995)
    own = (math.exp(-0.05 * z), math.exp(0.05 * z)) if values == (1.0, 1.0, 1.0) else (None, None)
    runs = [between.RunValue(v, own[0] and v * own[0], own[1] and v * own[1], 0.99 if own[0] else None) for v in values]
    pooled = between.pool(runs)
    assert pooled is not None and pooled.runs == 3 and pooled.log
    assert math.log(pooled.value) == pytest.approx(statistics_mean_log(values), abs=1e-12)
    assert math.log(pooled.high) - math.log(pooled.value) == pytest.approx(half, rel=1e-3)
    assert math.log(pooled.value) - math.log(pooled.low) == pytest.approx(half, rel=1e-3)


def statistics_mean_log(values) -> float:
    return sum(math.log(v) for v in values) / len(values)


def test_one_run_pools_nothing_and_the_prediction_for_more_new_runs_is_narrower():
    assert between.pool([between.RunValue(1.0)]) is None
    pooled = between.pool([between.RunValue(v) for v in (1.0, 1.02, 0.98, 1.01, 0.99)])
    assert pooled is not None
    one, three = between.prediction(pooled, 1), between.prediction(pooled, 3)
    assert one[0] < three[0] < pooled.value < three[1] < one[1]
    assert between.inside(pooled, 1.05) and not between.inside(pooled, 1.3)


@pytest.mark.parametrize(
    "replicates, cv, low, high",  # the change found 90% of the time at 99%: about (t·√(1+1/K) + 1.28)·cv and more
    [(3, 0.01, 0.15, 0.26), (5, 0.01, 0.06, 0.10), (3, 0.05, 1.2, 1.8), (5, 0.05, 0.35, 0.55), (10, 0.02, 0.08, 0.13)],
)
def test_the_change_detectable_between_runs_falls_with_replicates_and_grows_with_their_spread(
    replicates, cv, low, high
):
    assert low <= between.detectable_change(replicates, cv) <= high


def test_the_guides_table_of_detectable_changes_is_the_modules():
    from helpers import REPO

    assert between.change_table() in (REPO / "guide/checks.md").read_text(encoding="utf-8")


def test_a_planted_change_beyond_the_detectable_one_is_found_that_often():
    """The test of the test: K = 5 runs at 2% CV, new runs shifted by the detectable change, judged as the gate does."""
    import random

    shift, rng, found = between.detectable_change(5, 0.02), random.Random(7), 0
    sigma = math.sqrt(math.log1p(0.02**2))
    for _ in range(400):
        pooled = between.pool([between.RunValue(math.exp(rng.gauss(0, sigma))) for _ in range(5)])
        assert pooled is not None
        found += not between.inside(pooled, (1 + shift) * math.exp(rng.gauss(0, sigma)))
    assert 0.84 <= found / 400 <= 0.96  # 90%, within the sampling error of 400 trials


# -- which runs are replicates -------------------------------------------------------------------------


def _run(name: str, **fields) -> Run:
    base = {
        "probe": "probes/moe.py",
        "testbed": "linux-cpu",
        "started": RUN_TIME + timedelta(hours=int(name[-1])),
        "parameters": {"profile": "default", "rounds": 9},
        "environment": {"cpu_model": "AMD EPYC", "mlx_version": "0.32.4", "load_average_at_start": [0.5]},
        "declared_code": {"probes/moe.py": "a" * 64},
    }
    return Run(f"measurements/moe/{name}", Source("x", 0), **{**base, **fields})


@pytest.mark.parametrize(
    "other, replicate",
    [
        ({}, True),
        ({"parameters": {"profile": "default", "rounds": 30}}, True),  # rounds say how hard, not what
        ({"environment": {"cpu_model": "AMD EPYC", "mlx_version": "0.32.4", "load_average_at_start": [2.0]}}, True),
        ({"parameters": {"profile": "quick", "rounds": 9}}, False),
        ({"declared_code": {"probes/moe.py": "b" * 64}}, False),
        ({"environment": {"cpu_model": "Intel(R) Xeon(R) Processor", "mlx_version": "0.32.4"}}, False),
        ({"environment": {"cpu_model": "AMD EPYC", "mlx_version": "0.33.0"}}, False),
        ({"testbed": "linux-cpu-amd-epyc"}, False),
    ],
)
def test_replicates_share_probe_testbed_defining_parameters_code_and_environment(other, replicate):
    first, second = _run("r1"), _run("r2", **other)
    runs = {run.path: run for run in (first, second)}
    assert (replicates.Sets(runs).upto(second) == [first, second]) is replicate


def test_a_run_on_another_cpu_model_is_named_another_machine():
    xeon = _run("r2", environment={"cpu_model": "Intel(R) Xeon(R) Processor", "mlx_version": "0.32.4"})
    assert replicates.machine_changes(_run("r1"), xeon) == ["cpu_model AMD EPYC → Intel(R) Xeon(R) Processor"]
    upgraded = _run("r2", environment={"cpu_model": "AMD EPYC", "mlx_version": "0.33.0"})
    assert replicates.machine_changes(_run("r1"), upgraded) == []  # the same machine, a new environment


# -- a claim citing a set, and a claim on one run -----------------------------------------------------


def test_a_claim_citing_a_set_gets_the_pooled_value_and_a_between_run_interval(tmp_path):
    runs = a_set(tmp_path, LEVELS_A)
    # each run's batch-16 median, read whole (a check keeps only the tables of runs a claim cites: none yet)
    values = [load.one_run(tmp_path, run).tables["results.csv"].rows[0] for run in runs]
    pooled = math.exp(sum(math.log(float(row[2])) for row in values) / 3)
    write_tree(tmp_path, {"claims/a.yaml": "claims:" + set_claim(runs[-1], f"{pooled:.4f}")})
    data = check_json(tmp_path)
    found = data["verdicts"]["s16"]
    assert data["ok"], data["findings"]
    assert found["computed"] == pytest.approx(pooled)
    assert found["interval"]["basis"] == "replicates" and found["interval"]["runs"] == 3
    assert found["interval"]["level"] == 0.99 and found["interval"]["rounds"] == 27
    assert found["interval"]["low"] < pooled < found["interval"]["high"]
    assert found["prediction"]["runs"] == 3 and found["prediction"]["level"] == 0.99
    assert (
        found["prediction"]["low"] < found["interval"]["low"]
        and found["interval"]["high"] < found["prediction"]["high"]
    )
    assert found["replicates"] == runs and found["one_run"] is False
    shown = run_ledger("show", "s16", cwd=tmp_path).output.splitlines()
    assert shown[1].startswith("99% interval ") and shown[1].endswith("× (between 3 replicate runs)")
    assert shown[2].startswith("the next run should land in ") and shown[2].endswith(
        "(99% prediction interval of 3 replicate runs, their spread pooled over 2 settings of the set "
        "(4 degrees of freedom))"
    )
    assert (found["prediction"]["df"], found["prediction"]["pooled_cells"]) == (4, 2)
    assert sorted(found["pooled_with"]) == ["batch=1", "batch=16"]  # which settings, by name
    assert shown[3].startswith("run-to-run spread pooled with 2 settings of its set (batch=")
    assert shown[4].startswith(f"├── replicate run {runs[0]} (linux-cpu, value ")
    assert "one run" not in "\n".join(shown)


def test_a_claim_on_one_run_says_its_interval_leaves_run_to_run_variation_out(tmp_path):
    (run,) = a_set(tmp_path, LEVELS_A[:1])
    write_tree(tmp_path, {"claims/a.yaml": "claims:" + claim("s16", run, "3.6")})
    shown = run_ledger("show", "s16", cwd=tmp_path).output.splitlines()
    assert shown[2] == "one run: the interval does not include run-to-run variation"
    report = check_project(tmp_path, None, RUN_TIME + timedelta(days=1))
    verdict = report.verdicts["s16"]
    assert verdict.one_run and verdict.prediction is None
    from generator.site.claimpage import interval_html
    from generator.site.render import tooltip

    assert tooltip(verdict).endswith(
        "(9 rounds); one run: the interval does not include run-to-run variation; testbed linux-cpu; measured, asserted"
    )
    assert "<strong>One run: the interval does not include run-to-run variation</strong>" in interval_html(verdict)


def test_a_claim_on_one_run_of_a_set_keeps_its_value_and_is_told_where_the_next_run_lands(tmp_path):
    runs = a_set(tmp_path, LEVELS_A)
    write_tree(tmp_path, {"claims/a.yaml": "claims:" + claim("s16", runs[-1], "3.6").replace("5%", "10%")})
    found = check_json(tmp_path)["verdicts"]["s16"]
    assert found["interval"]["basis"] == "rounds" and found["one_run"] is True
    assert found["prediction"]["runs"] == 3 and found["replicates"] == runs


def test_too_few_replicates_for_the_set_a_claim_cites_is_invalid(tmp_path):
    runs = a_set(tmp_path, LEVELS_A[:2])
    write_tree(tmp_path, {"claims/a.yaml": "claims:" + set_claim(runs[-1], "3.6")})
    result = run_ledger("check", "--no-cache", cwd=tmp_path)
    assert result.exit_code == 1
    assert (
        f"claims/a.yaml:7: s16: invalid: evidence.replicates is 3, but {runs[-1]} has 2 replicate runs up to it"
    ) in result.output


def test_replicates_all_pools_every_replicate_up_to_the_cited_run(tmp_path):
    runs = a_set(tmp_path, LEVELS_A + LEVELS_B)
    write_tree(tmp_path, {"claims/a.yaml": "claims:" + set_claim(runs[3], "3.6", "all").replace("5%", "10%")})
    found = check_json(tmp_path)["verdicts"]["s16"]
    assert found["replicates"] == runs[:4] and found["interval"]["runs"] == 4  # later runs never join


def test_a_tampered_replicate_makes_the_claim_citing_its_set_tampered(tmp_path):
    runs = a_set(tmp_path, LEVELS_A)
    (tmp_path / runs[0] / "results.csv").write_text("batch,rounds,speedup\n16,9,9.9\n1,9,1.0\n")
    write_tree(tmp_path, {"claims/a.yaml": "claims:" + set_claim(runs[-1], "3.6", extra="")})
    result = run_ledger("check", "--no-cache", cwd=tmp_path)
    assert result.exit_code == 1
    assert f"claims/a.yaml:7: s16: tampered: {runs[0]}/results.csv " in result.output


@pytest.mark.parametrize("written", ["0", "two", "-3", "true", "1001"])
def test_a_bad_replicates_count_is_invalid(tmp_path, written):
    (run,) = a_set(tmp_path, LEVELS_A[:1])
    write_tree(tmp_path, {"claims/a.yaml": "claims:" + set_claim(run, "3.6", written)})
    result = run_ledger("check", "--no-cache", cwd=tmp_path)
    assert result.exit_code == 1
    assert "must be a whole number of runs from 1 to 1000, or `all`" in result.output


def test_claims_sharing_a_sets_cells_get_each_the_verdict_and_findings_it_gets_alone(tmp_path):
    """The gate reads each run's cell once for every claim selecting it (replicates.Reads) and pools a set once
    per run, selection and count: a claim among many on the same cells is judged exactly as it is alone,
    whether it cites a set or one run, whichever runs its set holds (a tampered one, one whose rounds contradict
    its summary) and however its `where` writes the same number (16 and 16.0 read alike, are worded apart)."""
    runs = a_set(tmp_path, LEVELS_A + LEVELS_B)
    (tmp_path / runs[0] / "results.csv").write_text("batch,rounds,speedup\n16,9,9.9\n1,9,1.0\n")  # tampered
    rewrite_rounds(
        tmp_path,
        runs[2],
        lambda lines: [line if not line.startswith("16,") else line.rsplit(",", 1)[0] + ",9.9" for line in lines],
    )
    items = [
        set_claim(runs[k], value, count).replace("batch: 16}", f"batch: {batch}}}").replace("id: s16", f"id: c{n}")
        for n, (k, batch, value, count) in enumerate(
            (k, batch, value, count)
            for k in (1, 2, 5, 5)  # the last run twice: two claims on one run and cells; run 1's set is too short for 3
            for batch, value in (("16", "3.6"), ("16.0", "3.61"), ("1", "1.0"))
            for count in ("1", "3", "all")
        )
    ]
    write_tree(tmp_path, {"claims/a.yaml": "claims:" + "".join(items)})
    together = check_project(tmp_path, None, RUN_TIME + timedelta(days=1))
    assert {f.rule for f in together.findings if f.claim_id} >= {"tampered", "invalid"}
    for n, item in enumerate(items):  # alone, on the same lines of the same file
        above = "\n#" * sum(before.count("\n") for before in items[:n])
        write_tree(tmp_path, {"claims/a.yaml": "claims:" + above + item})
        alone = check_project(tmp_path, None, RUN_TIME + timedelta(days=1))
        assert alone.verdicts[f"c{n}"] == together.verdicts[f"c{n}"], item
        assert [f for f in alone.findings if f.claim_id == f"c{n}"] == [
            f for f in together.findings if f.claim_id == f"c{n}"
        ], item


# -- judging a re-run against the set -------------------------------------------------------------------


@pytest.mark.parametrize(
    "scale, tolerance, words",
    [
        (1.0, "10%", "within noise: "),
        (1.0, "2%", "insufficient data: "),
        (1.3, "2%", "beyond noise: +31.2% [+26.5, +36.2] (99%, between-run: 3 runs → 3, from their pooled 3.577) |"),
    ],
)
def test_a_re_run_of_a_set_reads_within_noise_and_a_planted_step_beyond_it(tmp_path, scale, tolerance, words):
    """A set re-measured by a set of three: within noise where the change it could see is within the tolerance,
    insufficient data where it is not (and the words say how many replicates a side would see it), a planted ×1.3
    beyond noise; each with the change's interval, Welch's between the two sets."""
    old = a_set(tmp_path, LEVELS_A)
    write_tree(tmp_path, {"claims/a.yaml": "claims:" + set_claim(old[-1], "3.6", extra="")})
    value = check_json(tmp_path)["verdicts"]["s16"]["computed"]
    write_tree(tmp_path, {"claims/a.yaml": "claims:" + set_claim(old[-1], f"{value:.4f}").replace("5%", tolerance)})
    new = a_set(tmp_path, LEVELS_B, start=3, scale=scale)
    assert check_json(tmp_path)["ok"]
    result = run_ledger("refresh", cwd=tmp_path)
    row = next(line for line in result.output.splitlines() if line.startswith("| s16 |"))
    assert f"{old[-1].rsplit('/', 1)[-1]} → {new[-1].rsplit('/', 1)[-1]}" in row
    assert f"| {words}" in row, row
    if words.startswith("within"):
        assert "(99%, between-run: 3 runs → 3, from their pooled " in row and row.endswith(" or more would be seen |")
    if words.startswith("insufficient"):
        assert "; only a change over " in row and "2.0% allowed: few replicates: " in row, row
        assert " a side would see 2.0% at this run-to-run variation " in row, row


def test_a_step_after_a_claims_set_moves_it_against_the_prediction_interval(tmp_path):
    old = a_set(tmp_path, LEVELS_A)
    write_tree(tmp_path, {"claims/a.yaml": "claims:" + claim("s16", old[-1], "3.6", extra="").replace("5%", "10%")})
    a_set(tmp_path, LEVELS_B[:1], start=3, scale=1.3)
    report = check_project(tmp_path, None, RUN_TIME + timedelta(days=1))
    line = report.verdicts["s16"].series
    assert line is not None and line.method == "prediction" and line.moved is not None
    assert line.moved.test == "prediction interval"
    moved = next(f for f in report.findings if f.rule == "moved-since-cited")
    assert "outside the prediction interval of the cited run's 3 replicate runs" in moved.problem


def test_a_newer_run_on_another_cpu_model_never_refreshes_a_claim(tmp_path):
    epyc = {"backend": "cpu", "cpu_model": "AMD EPYC"}
    (old,) = a_set(tmp_path, LEVELS_A[:1], environment=epyc)
    (new,) = a_set(tmp_path, LEVELS_B[:1], start=1, environment={"backend": "cpu", "cpu_model": "Intel(R) Xeon(R)"})
    write_tree(tmp_path, {"claims/a.yaml": "claims:" + claim("s16", old, "3.6")})
    result = run_ledger("refresh", cwd=tmp_path)
    assert (
        f"skipped for s16: {new}: another machine (cpu_model AMD EPYC → Intel(R) Xeon(R)): a run on other hardware"
        in result.output
    )
    assert "no claim has a newer intact run" in result.output


# -- what a project can require ---------------------------------------------------------------------------

ASSERTING = '\n    asserts: "> 1"'


def test_min_replicates_fails_an_asserting_claim_on_one_run_and_passes_it_on_a_set(tmp_path):
    runs = a_set(tmp_path, LEVELS_A)
    write_tree(tmp_path, {"mkdocs.yml": "site_name: t\nplugins:\n  - ledger:\n      min_replicates: 3\n"})
    write_tree(tmp_path, {"claims/a.yaml": "claims:" + claim("s16", runs[-1], "3.6", extra=ASSERTING)})
    result = run_ledger("check", "--no-cache", cwd=tmp_path)
    assert result.exit_code == 1
    assert (
        "claims/a.yaml:9: s16: few-replicates: asserts > 1, but rests on one run: the policy's min_replicates is 3"
    ) in result.output
    assert "fix: measure it again (`ledger measure toy --replicates 3`)" in result.output
    value = check_json(tmp_path)["verdicts"]["s16"]
    write_tree(
        tmp_path, {"claims/a.yaml": "claims:" + set_claim(runs[-1], "3.6", extra=ASSERTING).replace("5%", "10%")}
    )
    assert value and "few-replicates" not in run_ledger("check", "--no-cache", cwd=tmp_path).output


PAGE = '---\nledger: {replicates: 3}\n---\n# Page\n\nThe speedup is {{ claim("s16") }}.\n'


def test_a_page_asking_for_replicates_fails_on_a_claim_resting_on_fewer(tmp_path):
    runs = a_set(tmp_path, LEVELS_A)
    write_tree(tmp_path, {"claims/a.yaml": "claims:" + claim("s16", runs[-1], "3.6"), "docs/index.md": PAGE})
    result = run_ledger("check", "--no-cache", cwd=tmp_path)
    assert result.exit_code == 1
    assert (
        "docs/index.md:6:16: few-replicates: cites s16, which rests on one run, on a page whose front matter asks "
        "for 3 replicate runs (`ledger: {replicates: 3}`)"
    ) in result.output
    write_tree(tmp_path, {"claims/a.yaml": "claims:" + set_claim(runs[-1], "3.6").replace("5%", "10%")})
    assert "few-replicates" not in run_ledger("check", "--no-cache", cwd=tmp_path).output


def test_a_bad_replicates_ask_in_front_matter_is_invalid(tmp_path):
    runs = a_set(tmp_path, LEVELS_A[:1])
    page = PAGE.replace("{replicates: 3}", "{replicates: many}")
    write_tree(tmp_path, {"claims/a.yaml": "claims:" + claim("s16", runs[-1], "3.6"), "docs/index.md": page})
    result = run_ledger("check", "--no-cache", cwd=tmp_path)
    assert "docs/index.md:2: invalid: front matter `ledger: replicates:` is 'many'" in result.output


# -- intervals that cannot be laundered -------------------------------------------------------------------


def test_an_interval_below_the_level_asserts_needs_holds_nothing_and_names_the_rounds(tmp_path):
    run = rounds_run(tmp_path, {16: [3.5, 3.6, 3.7], 1: [1.0, 1.0, 1.0]})  # min–max of 3 rounds: 75%
    write_tree(tmp_path, {"claims/a.yaml": "claims:" + claim("s16", run, "3.6", extra=ASSERTING)})
    result = run_ledger("check", "--no-cache", cwd=tmp_path)
    assert result.exit_code == 1
    assert (
        "claims/a.yaml:9: s16: not-significant: 3.6× asserts > 1, but its 75% interval is 3.5–3.7× (3 rounds), "
        "below the 95% an `asserts:` needs (asserts_level)"
    ) in result.output
    assert (
        "fix: measure it with at least 6 rounds (`ledger measure toy`: 6 rounds' min–max covers the median with 96.9%)"
        in result.output
    )


def test_a_column_declared_timed_is_never_exact_by_leaving_its_rounds_out(tmp_path):
    from generator.runs import Column, write_run

    write_tree(tmp_path, {"probes/toy.py": "print('toy')\n"})
    rows = [{"batch": 16, "speedup": 3.6}]
    for declared, shown in ((None, "exact"), (Column("×", "timed"), "no raw rounds")):
        path = write_run(
            tmp_path, "toy", "linux-cpu", {"results.csv": rows}, parameters={}, environment={}, code=["probes/toy.py"],
            started=RUN_TIME + timedelta(hours=0 if declared is None else 1),
            finished=RUN_TIME + timedelta(hours=0 if declared is None else 1),
            columns={"results.csv": {"speedup": declared}} if declared else None,
        )  # fmt: skip
        run = path.relative_to(tmp_path).as_posix()
        write_tree(tmp_path, {"claims/a.yaml": "claims:" + claim("s16", run, "3.6", extra=ASSERTING)})
        result = run_ledger("check", "--no-cache", cwd=tmp_path)
        assert run_ledger("show", "s16", cwd=tmp_path).output.splitlines()[1] == shown
        if declared is None:  # inferred exact: it holds on its value, and the inference is named
            assert result.exit_code == 0
            assert (
                f"{run}/manifest.json: undeclared-kind: {run} declares no kind (timed or exact) for results.csv "
                "speedup, which 1 claim read: each reads as exact" in result.output
            )
        else:  # declared timed, its rounds left out: it has no interval, so the assertion holds nothing
            assert result.exit_code == 1 and "undeclared-kind" not in result.output
            assert (
                "s16: not-significant: 3.6× asserts > 1, but it has no interval: a timed row with no raw rounds"
                in result.output
            )


def test_undeclared_kind_fails_where_the_policy_says_so(tmp_path):
    write_tree(tmp_path, {"probes/toy.py": "print('toy')\n"})
    from generator.runs import write_run

    path = write_run(
        tmp_path, "toy", "linux-cpu", {"results.csv": [{"batch": 16, "speedup": 3.6}]}, parameters={},
        environment={}, code=["probes/toy.py"], started=RUN_TIME, finished=RUN_TIME,
    )  # fmt: skip
    run = path.relative_to(tmp_path).as_posix()
    write_tree(
        tmp_path,
        {
            "claims/a.yaml": "claims:" + claim("s16", run, "3.6"),
            "mkdocs.yml": "site_name: t\nplugins:\n  - ledger:\n      fail: [undeclared-kind]\n",
        },
    )
    result = run_ledger("check", "--no-cache", cwd=tmp_path)
    assert result.exit_code == 1 and "1 failure: 1 undeclared-kind" in result.output


# -- ledger measure --replicates ------------------------------------------------------------------------


def test_measure_replicates_writes_runs_the_gate_treats_as_one_set(tmp_path):
    root = tmp_path / "proj"
    assert run_ledger("init", str(root), cwd=tmp_path).exit_code == 0
    result = run_ledger("measure", "--replicates", "3", "--profile", "quick", cwd=root)
    assert result.exit_code == 0, result.errors
    assert "[2/3] hashing (quick, replicate 2/3) ..." in result.errors
    assert "3 runs written by 1 probe(s)" in result.output
    made = sorted(p.name for p in (root / "measurements/hashing").iterdir())[1:]  # the first is init's own
    runs = [f"measurements/hashing/{name}" for name in made]
    assert len(runs) == 3
    text = (
        "claims:\n  - id: set\n    value: 1\n    unit: GB/s\n    kind: measured\n    tolerance: 50%\n    evidence:\n"
        f"      run: {runs[-1]}\n      file: results.csv\n      where: {{algorithm: sha256, size_kib: 1024}}\n"
        "      column: gb_per_s\n      replicates: 3\n"
    )
    write_tree(root, {"claims/set.yaml": text})
    found = check_json(root)["verdicts"]["set"]
    assert found["replicates"] == runs and found["interval"]["basis"] == "replicates"
    assert found["interval"]["runs"] == 3 and found["prediction"]["runs"] == 3
    assert all(json.loads((root / run / "manifest.json").read_text())["revision"]["commit"] == "" for run in runs)


def test_a_probes_replicates_default_is_read_and_spaced_by_the_other_probes(tmp_path):
    from generator.commands.measure import schedule
    from generator.inputs.config import read_policy

    write_tree(
        tmp_path,
        {
            "mkdocs.yml": "site_name: t\nplugins:\n  - ledger:\n      probes:\n"
            "        - {name: a, command: 'true', replicates: 2}\n        - {name: b, command: 'true'}\n"
        },
    )
    specs = list(read_policy(tmp_path / "mkdocs.yml").probes)
    assert [(spec.name, r) for spec, r, _ in schedule(specs)] == [("a", 1), ("b", 1), ("a", 2)]
    assert [(spec.name, r) for spec, r, _ in schedule(specs, 2)] == [("a", 1), ("b", 1), ("a", 2), ("b", 2)]


def test_accept_writes_a_sets_pooled_value_and_refresh_write_moves_the_set_to_the_newest_run(tmp_path):
    runs = a_set(tmp_path, LEVELS_A)
    write_tree(tmp_path, {"claims/a.yaml": "claims:" + set_claim(runs[-1], "3.0")})
    assert run_ledger("check", "--no-cache", cwd=tmp_path).exit_code == 1  # 3.0 is not the pooled value
    accepted = run_ledger("accept", "s16", cwd=tmp_path)
    assert accepted.exit_code == 0, accepted.output + accepted.errors
    found = check_json(tmp_path)
    assert found["ok"], found["findings"]
    assert found["verdicts"]["s16"]["interval"]["basis"] == "replicates"
    assert "replicates: 3}" in (tmp_path / "claims/a.yaml").read_text()  # the YAML keeps its set
    new = a_set(tmp_path, LEVELS_B, start=3)
    written = run_ledger("refresh", "--write", cwd=tmp_path)
    assert written.exit_code == 0, written.output
    text = (tmp_path / "claims/a.yaml").read_text()
    assert new[-1] in text and "replicates: 3}" in text
    moved = check_json(tmp_path)
    assert moved["ok"], moved["findings"]
    assert moved["verdicts"]["s16"]["replicates"] == new  # the window moved with the run: the three new runs


# -- the site says what the gate found, and verify-site reads it both ways ------------------------------


@pytest.mark.site
@pytest.mark.parametrize("apart", [True, False])
def test_a_claim_page_words_its_sets_spread_pooled_or_apart_and_verify_site_reads_it_both_ways(tmp_path, apart):
    """Four settings in three runs: batch 16's level moves 30% run to run where the others move 0.3% (its spread
    is judged apart from theirs), or all move alike (pooled). Its page says which, with the F test's or
    Bartlett's figures, and verify-site (in frames and whole) holds every figure the page shows."""
    import subprocess
    import sys

    from helpers import REPO
    from helpers_site import verify_both_ways

    levels = ((1.0, 1.3, 0.75) if apart else (1.0, 1.003, 0.997), (1.0, 1.003, 0.997))
    runs = [
        rounds_run(
            tmp_path,
            {
                16: noisy(3.6 * levels[0][i], cv=0.001, seed=i),
                **{b: noisy(b * levels[1][i], cv=0.001, seed=10 * b + i) for b in (1, 2, 4)},
            },
            when=RUN_TIME + timedelta(hours=i),
        )
        for i in range(3)
    ]
    write_tree(
        tmp_path,
        {
            "mkdocs.yml": "site_name: t\nplugins:\n  - ledger\n",
            "docs/index.md": "# t\n",
            "claims/a.yaml": "claims:" + set_claim(runs[-1], "3.6").replace("5%", "40%"),
        },
    )
    found = check_json(tmp_path)
    assert found["ok"], found["findings"]
    value = found["verdicts"]["s16"]["computed"]
    write_tree(tmp_path, {"claims/a.yaml": "claims:" + set_claim(runs[-1], f"{value:.4f}").replace("5%", "40%")})
    env = {"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"}
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict"], cwd=tmp_path, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr[-3000:]
    page = (tmp_path / "site/claim/s16/index.html").read_text(encoding="utf-8")
    words = "run-to-run spread its own: noisier than the rest" if apart else "run-to-run spread pooled with 4 settings"
    assert words in page
    assert "F test p = " in page if apart else "Bartlett&#x27;s p = " in page
    assert "pages verified: every one rendered by the ledger" in verify_both_ways(tmp_path / "site")


@pytest.mark.parametrize("block", [False, True], ids=["flow", "block"])
def test_refresh_after_a_set_is_measured_offers_the_set_and_write_pools_it(tmp_path, block):
    """A claim on one run; then `ledger measure --replicates 3` made three: refresh moves it onto the set
    (`replicates: 3`), not onto the newest run alone, and the gate then pools the three."""
    (old,) = a_set(tmp_path, LEVELS_A[:1])
    new = a_set(tmp_path, LEVELS_B, start=3)
    item = claim("s16", old, "3.6", extra="").replace("5%", "10%")
    if block:
        item = item.replace(
            f"    evidence: {{run: {old}, file: results.csv, where: {{batch: 16}}, column: speedup}}\n",
            f"    evidence:\n      run: {old}\n      file: results.csv\n      where: {{batch: 16}}\n      column: speedup\n",
        )
    write_tree(tmp_path, {"claims/a.yaml": "claims:" + item})
    shown = run_ledger("refresh", cwd=tmp_path)
    assert "(set of 3: `replicates: 3`)" in shown.output, shown.output
    assert run_ledger("refresh", "--write", cwd=tmp_path).exit_code == 0
    text = (tmp_path / "claims/a.yaml").read_text()
    assert new[-1] in text and "replicates: 3" in text
    found = check_json(tmp_path)["verdicts"]["s16"]
    assert found["replicates"] == new and found["interval"]["basis"] == "replicates"
