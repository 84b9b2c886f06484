"""Asserted relations: a claim's `asserts:` is judged on its interval, never on its median alone.

A held-out set of ledgers, each a real run (raw rounds, min–max only, counts) and the real command
line: what the rounds support holds, what they do not fails `not-significant` with its line and fix,
an exact value is judged on itself, a timed value without an interval holds nothing, a ratio of two
intervals is judged on the interval carried through its formula. Nothing raises a traceback.
"""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from helpers import RUN_TIME, TOY_PROBE, a_run, run_ledger, write_tree
from helpers_rounds import claim, rounds_run

from generator.lang import relations
from generator.runs import Column, write_run

SPREAD = [1.1, 1.2, 1.25, 1.3, 1.31, 1.35, 1.4, 1.45, 1.5]  # median 1.31; 9 rounds: min–max at 99.6%
STRADDLE = [0.74, 0.95, 1.1, 1.2, 1.3, 1.35, 1.4, 1.45, 1.51]  # median 1.3, but the low end is below 1
FLAT = [0.95, 0.97, 0.98, 0.99, 1.0, 1.01, 1.02, 1.03, 1.05]  # median 1.0
DRIFTING = [0.85, 0.97, 0.98, 0.99, 1.0, 1.01, 1.02, 1.03, 1.05]  # median 1.0, one round outside 0.9–1.1


def asserting(tmp_path, rounds: list[float], asserts: str, value: str, **options) -> str:
    """A measured claim s16 on raw rounds, asserting `asserts` (its line is 9)."""
    run = rounds_run(tmp_path, {16: rounds}, **options)
    text = claim(
        "s16", run, value, extra=f"\n    asserts: {json.dumps(asserts)}", column=options.get("column", "speedup")
    )
    write_tree(tmp_path, {"claims/a.yaml": "claims:" + text})
    return run


def check(root):
    result = run_ledger("check", cwd=root)
    assert "Traceback" not in result.output + result.errors
    return result


@pytest.mark.parametrize(
    "rounds, asserts, value, problem",
    [
        (SPREAD, "> 1", "1.31", None),
        (STRADDLE, "> 1", "1.3", "1.3× asserts > 1, but its 99.6% interval is 0.74–1.51× (9 rounds)"),
        (SPREAD, ">= 1.1", "1.31", None),
        (SPREAD, "< 2", "1.31", None),
        (SPREAD, "< 1.4", "1.31", "1.31× asserts < 1.4, but its 99.6% interval is 1.1–1.5× (9 rounds)"),
        (SPREAD, "<= 150 %", "1.31", None),  # units convert: 150% is 1.5×
        (SPREAD, "< 140 %", "1.31", "1.31× asserts < 140 %, but its 99.6% interval is 1.1–1.5× (9 rounds)"),
        (FLAT, "between 0.9 and 1.1", "1", None),
        (DRIFTING, "between 0.9 and 1.1", "1", "1× asserts between 0.9 and 1.1, but its 99.6% interval is 0.85–1.05× (9 rounds)"),
    ],
)  # fmt: skip
def test_raw_rounds_hold_an_assertion_only_when_their_whole_interval_does(tmp_path, rounds, asserts, value, problem):
    asserting(tmp_path, rounds, asserts, value)
    result = check(tmp_path)
    if problem is None:
        assert result.exit_code == 0, result.output
    else:
        assert result.exit_code == 1
        assert f"claims/a.yaml:9: s16: not-significant: {problem}\n" in result.output
        assert "  fix: measure it with more rounds or a tighter target (`ledger measure toy`), then " in result.output
        assert "or make the statement weaker, in `asserts` and in the prose" in result.output
        assert "— 1 failure: 1 not-significant —" in result.output


def test_a_bound_in_another_unit_of_the_claims_dimension_is_converted(tmp_path):
    rounds = [0.95, 0.96, 0.98, 0.99, 1.0, 1.01, 1.02, 1.04, 1.05]
    run = rounds_run(tmp_path, {16: rounds}, column="gb_per_s", unit="GB/s")
    gbs = claim("bw", run, "1", column="gb_per_s").replace('unit: "×"', "unit: GB/s")
    write_tree(
        tmp_path,
        {
            "claims/a.yaml": "claims:"
            + gbs.replace("id: bw", "id: bw-holds") + '    asserts: "> 900 MB/s"\n'
            + gbs.replace("id: bw", "id: bw-fails") + '    asserts: "between 1 and 2 GB/s"\n'
        },
    )  # fmt: skip
    result = check(tmp_path)
    assert result.exit_code == 1
    assert (
        "claims/a.yaml:18: bw-fails: not-significant: 1 GB/s asserts between 1 and 2 GB/s, but its 99.6% interval "
        "is 0.95–1.05 GB/s (9 rounds)\n"
    ) in result.output
    assert "bw-holds" not in result.output


def test_a_bound_in_a_unit_the_project_declares_is_read_with_its_table(tmp_path):
    policy = "site_name: t\nplugins:\n  - ledger:\n      units:\n        kWh: {dimension: J, scale: 3600000}\n"
    run = rounds_run(tmp_path, {16: [x * 3_600_000 for x in SPREAD]}, column="joules", unit="J")  # 1.1–1.5 kWh
    joules = claim("e", run, "4716000", column="joules").replace('unit: "×"', "unit: J")
    write_tree(
        tmp_path,
        {
            "mkdocs.yml": policy,
            "claims/a.yaml": "claims:"
            + joules.replace("id: e", "id: e-holds") + '    asserts: "> 1 kWh"\n'
            + joules.replace("id: e", "id: e-fails") + '    asserts: "< 1.4 kWh"\n',
        },
    )  # fmt: skip
    result = check(tmp_path)
    assert result.exit_code == 1, result.output
    assert (
        "claims/a.yaml:18: e-fails: not-significant: 4716000 J asserts < 1.4 kWh, but its 99.6% interval is "
        "3960000–5400000 J (9 rounds)\n"
    ) in result.output
    assert "e-holds" not in result.output and "invalid" not in result.output


def test_a_run_without_raw_rounds_is_judged_on_its_min_max_and_says_so(tmp_path):
    run = a_run(tmp_path, [{"batch": 16, "rounds": 7, "speedup": 1.301, "speedup_min": 0.74, "speedup_max": 1.51}])
    text = claim("cpu-moe-speedup-b16", run, "1.301", extra='\n    asserts: "> 1"')
    write_tree(tmp_path, {"claims/a.yaml": "claims:" + text})
    result = check(tmp_path)
    assert result.exit_code == 1
    assert (
        "claims/a.yaml:9: cpu-moe-speedup-b16: not-significant: 1.301× asserts > 1, but its 98.4% interval is "
        "0.74–1.51× (min–max of 7 rounds; no raw rounds)\n"
        "  fix: measure it again with raw rounds (`ledger measure toy`: runs written through generator.timing keep "
        "them), then `ledger refresh --write`; or make the statement weaker, in `asserts` and in the prose\n"
    ) in result.output


def test_a_timed_value_with_no_interval_holds_nothing(tmp_path):
    run = a_run(
        tmp_path, [{"batch": 16, "rounds": 7, "speedup": 1.3}], columns={}
    )  # timed (rounds, by inference), no min–max
    write_tree(tmp_path, {"claims/a.yaml": "claims:" + claim("s16", run, "1.3", extra='\n    asserts: "> 1"')})
    result = check(tmp_path)
    assert result.exit_code == 1
    assert (
        "claims/a.yaml:9: s16: not-significant: 1.3× asserts > 1, but it has no interval: a timed row with no raw "
        "rounds (the run has no samples.csv) and no min–max columns\n"
    ) in result.output
    assert run_ledger("show", "s16", cwd=tmp_path).output.splitlines()[1:3] == [
        "no raw rounds",
        "asserts > 1: does not hold: it has no interval: a timed row with no raw rounds (the run has no "
        "samples.csv) and no min–max columns",
    ]


def test_an_exact_value_computed_from_counts_is_judged_on_itself(tmp_path):
    run = a_run(
        tmp_path, [{"batch": 16, "byte_ratio": 4.1}], columns={"byte_ratio": Column("×", "exact")}
    )  # no rounds, no min–max: counts
    text = claim("ratio-holds", run, "4.1", extra='\n    asserts: "> 4"', column="byte_ratio")
    text += claim("ratio-fails", run, "4.1", extra='\n    asserts: "> 5"', column="byte_ratio")
    write_tree(tmp_path, {"claims/a.yaml": "claims:" + text})
    result = check(tmp_path)
    assert result.exit_code == 1
    assert (
        "claims/a.yaml:18: ratio-fails: not-significant: 4.1× asserts > 5, but it is exact (computed from counts) "
        "and 4.1× is not greater than 5\n"
        "  fix: correct the value or the statement: an exact value is its own interval\n"
    ) in result.output
    assert "ratio-holds" not in result.output
    data = json.loads(run_ledger("check", "--format", "json", cwd=tmp_path).output)
    assert data["exact"] == ["ratio-fails", "ratio-holds"] and data["no_raw_rounds"] == {}
    assert data["asserts"]["ratio-holds"] == {
        "relation": "> 4",
        "holds": True,
        "on": "its exact value 4.1× (computed from counts)",
    }
    assert run_ledger("show", "ratio-holds", cwd=tmp_path).output.splitlines()[1:3] == [
        "exact",
        "asserts > 4: holds: its exact value 4.1× (computed from counts)",
    ]


def test_a_column_its_samples_file_leaves_out_is_exact(tmp_path):
    # A timed row (rounds, raw rounds of its speedup) that also carries a count the probe kept no rounds of.
    write_tree(tmp_path, {"probes/toy.py": TOY_PROBE})
    results = [{"batch": 16, "rounds": 9, "speedup": 1.31, "experts": 101}]
    samples = [{"batch": 16, "round": r, "reps": 1, "speedup": v} for r, v in enumerate(SPREAD)]
    run = write_run(
        tmp_path, "toy", "linux-cpu", {"results.csv": results, "samples.csv": samples}, parameters={"rounds": 9},
        environment={"backend": "cpu"}, code=["probes/toy.py"], started=RUN_TIME, finished=RUN_TIME,
    ).relative_to(tmp_path).as_posix()  # fmt: skip
    text = claim("s16", run, "1.31", extra='\n    asserts: "> 1"')
    text += claim("experts", run, "101", extra='\n    asserts: "> 100"', column="experts").replace('"×"', "experts")
    write_tree(tmp_path, {"claims/a.yaml": "claims:" + text})
    assert check(tmp_path).exit_code == 0
    data = json.loads(run_ledger("check", "--format", "json", cwd=tmp_path).output)
    assert data["exact"] == ["experts"] and data["asserts"]["s16"]["holds"] is True
    assert data["asserts"]["experts"]["on"] == "its exact value 101 experts (computed from counts)"


# -- extrapolated claims: judged on the interval carried through the formula ---------------------------

RATIO = """
  - id: ratio
    kind: extrapolated
    formula: a / b
    inputs: {{a: a, b: b}}
    value: {value}
    unit: "×"
    tolerance: 5%
    asserts: "{asserts}"
"""


def two_runs(tmp_path, a: list[float], b: list[float], value: str, asserts: str):
    """Claims a and b on two runs (no pairing by round: interval arithmetic), and ratio = a / b."""
    first = rounds_run(tmp_path, {16: a}, column="ms")
    second = rounds_run(tmp_path, {16: b}, column="ms", when=RUN_TIME + timedelta(hours=1))
    a_median, b_median = sorted(a)[len(a) // 2], sorted(b)[len(b) // 2]
    text = claim("a", first, f"{a_median}", column="ms") + claim("b", second, f"{b_median}", column="ms")
    write_tree(tmp_path, {"claims/a.yaml": "claims:" + text + RATIO.format(value=value, asserts=asserts)})


def test_a_ratio_of_two_intervals_that_do_not_overlap_holds(tmp_path):
    two_runs(tmp_path, [2.0 + 0.02 * i for i in range(9)], [1.0 + 0.01 * i for i in range(9)], "2", "> 1")
    result = check(tmp_path)
    assert result.exit_code == 0, result.output


def test_a_ratio_of_two_overlapping_intervals_is_not_significant_whatever_its_median(tmp_path):
    two_runs(tmp_path, [1.0 + 0.03 * i for i in range(9)], [0.95 + 0.03 * i for i in range(9)], "1.05", "> 1")
    result = check(tmp_path)
    assert result.exit_code == 1
    assert (
        "claims/a.yaml:25: ratio: not-significant: 1.05× asserts > 1, but its ≥ 99.2% interval is 0.8403–1.305× "
        "(carried through the formula)\n"
        "  fix: measure it with more rounds or a tighter target (`ledger measure` for its inputs' probes), then "
    ) in result.output


def test_a_ratio_paired_by_round_cancels_drift_that_interval_arithmetic_cannot(tmp_path):
    # Both settings slow down together from round to round: each one's interval is wide (1.0–2.0 and
    # 2.0–4.0 ms), so arithmetic gives 2.0/2.0–4.0/1.0 = 1–4, which does not show > 1.5. Paired by
    # round, every round's ratio is 2.
    drift = [1.0, 1.5, 2.0, 1.2, 1.8, 1.1, 1.9, 1.3, 1.6]
    run = rounds_run(tmp_path, {1: drift, 16: [2 * d for d in drift]}, column="ms")
    text = claim("a", run, "3", column="ms") + claim("b", run, "1.5", batch=1, column="ms")
    write_tree(tmp_path, {"claims/a.yaml": "claims:" + text + RATIO.format(value="2", asserts="> 1.5")})
    result = check(tmp_path)
    assert result.exit_code == 0, result.output
    shown = run_ledger("show", "ratio", cwd=tmp_path).output.splitlines()
    assert shown[1:3] == [
        "99.6% interval 2–2× (paired by round, 9 rounds)",
        "asserts > 1.5: holds: its 99.6% interval is 2–2× (paired by round, 9 rounds)",
    ]


def test_a_formula_over_a_timed_input_without_an_interval_holds_nothing_and_names_it(tmp_path):
    timed = a_run(tmp_path, [{"batch": 16, "rounds": 7, "ms": 2.0}])  # timed, no min–max, no raw rounds
    counts = a_run(tmp_path, [{"batch": 16, "ms": 1.0}], when=RUN_TIME + timedelta(hours=1))
    text = claim("a", timed, "2", column="ms") + claim("b", counts, "1", column="ms")
    twice = "\n  - id: twice\n    kind: extrapolated\n    formula: 2 * r\n    inputs: {r: ratio}\n    value: 4\n"
    twice += '    unit: "×"\n    tolerance: 5%\n    asserts: "> 1"\n'
    write_tree(tmp_path, {"claims/a.yaml": "claims:" + text + RATIO.format(value="2", asserts="> 1") + twice})
    result = check(tmp_path)
    assert (
        "claims/a.yaml:25: ratio: not-significant: 2× asserts > 1, but its input a has no interval, so its own "
        "interval leaves that noise out\n"
    ) in result.output
    assert (
        "claims/a.yaml:34: twice: not-significant: 4× asserts > 1, but a, which its input ratio rests on, has no "
        "interval, so its own interval leaves that noise out\n"
    ) in result.output


def test_a_formula_over_exact_inputs_is_exact(tmp_path):
    counts = a_run(tmp_path, [{"batch": 16, "ms": 2.0}, {"batch": 1, "ms": 1.0}])
    text = claim("a", counts, "2", column="ms") + claim("b", counts, "1", batch=1, column="ms")
    write_tree(tmp_path, {"claims/a.yaml": "claims:" + text + RATIO.format(value="2", asserts="> 1")})
    assert check(tmp_path).exit_code == 0
    assert run_ledger("show", "ratio", cwd=tmp_path).output.splitlines()[1:3] == [
        "exact",
        "asserts > 1: holds: its exact value 2× (from exact inputs)",
    ]


# -- what is not judged, and what is not valid ---------------------------------------------------------


def test_a_stale_claim_is_not_judged_its_own_finding_says_why(tmp_path):
    asserting(tmp_path, STRADDLE, "> 1", "1.9")  # drifted: the rounds' median is 1.3
    result = check(tmp_path)
    assert "s16: drifted: stated 1.9×, evidence computes 1.3×" in result.output
    assert "not-significant" not in result.output
    assert "asserts > 1: not judged: stale (drifted)" in run_ledger("show", "s16", cwd=tmp_path).output


def test_not_significant_can_be_a_warning(tmp_path):
    asserting(tmp_path, STRADDLE, "> 1", "1.3")
    write_tree(tmp_path, {"mkdocs.yml": "site_name: t\nplugins:\n  - ledger:\n      warn: [not-significant]\n"})
    result = check(tmp_path)
    assert result.exit_code == 0, result.output
    assert "s16: not-significant: 1.3× asserts > 1, but its 99.6% interval is 0.74–1.51× (9 rounds) (warning)" in (
        result.output
    )


@pytest.mark.parametrize(
    "line, problem",
    [
        ('asserts: "bigger"', "cannot read relation 'bigger'"),
        ("asserts: above", "`asserts: above` compares with another claim; `asserts` bounds the claim's own value"),
        ("asserts: 1", "`asserts` must be text, found 1"),
        ('asserts: "> 10 GB/s"', "`asserts: > 10 GB/s` states bytes per second (GB/s), the claim a plain ratio (×)"),
        ('asserts: "> 10 furlongs"', "in '> 10 furlongs': unknown unit 'furlongs'; did you mean 'rounds'?"),
        ('asserts: "between 2 and 1"', "in 'between 2 and 1': the first number must be smaller than the second"),
        ('asserts: "> 1e999"', "1e999 is not a finite number"),
        ('asserts: ["> 1"]', "`asserts` must be text, found ['> 1']"),
    ],
)
def test_an_unreadable_assertion_is_invalid_at_its_line(tmp_path, line, problem):
    run = rounds_run(tmp_path, {16: SPREAD})
    write_tree(tmp_path, {"claims/a.yaml": "claims:" + claim("s16", run, "1.31", extra=f"\n    {line}")})
    result = check(tmp_path)
    assert result.exit_code == 1
    assert f"claims/a.yaml:9: s16: invalid: {problem}\n" in result.output
    assert f"  fix: {relations.ASSERTS_HELP}" in result.output or "fix: write the bound in ×" in result.output


def test_a_borrowed_claim_cannot_assert_its_check_states_the_relation(tmp_path):
    write_tree(
        tmp_path,
        {
            "claims/a.yaml": "claims:\n  - id: m1\n    kind: borrowed\n    status: lead\n    value: 3\n"
            '    source: {title: t}\n    asserts: "> 1"\n'
        },
    )
    result = check(tmp_path)
    assert (
        "claims/a.yaml:7: m1: invalid: `asserts` applies to measured and extrapolated claims: a borrowed value "
        "has no interval here\n"
    ) in result.output


def test_an_unquoted_bound_is_a_yaml_error_with_its_position(tmp_path):
    run = rounds_run(tmp_path, {16: SPREAD})
    write_tree(tmp_path, {"claims/a.yaml": "claims:" + claim("s16", run, "1.31", extra="\n    asserts: > 1")})
    result = check(tmp_path)
    assert result.exit_code == 1
    assert "claims/a.yaml:9:" in result.output and "malformed YAML" in result.output


# -- `between` in a check's `expects` --------------------------------------------------------------------


@pytest.mark.parametrize("rounds, holds", [(FLAT, True), ([2.0] * 9, False)])
def test_a_check_may_expect_a_value_between_two_bounds(tmp_path, rounds, holds):
    run = rounds_run(tmp_path, {16: rounds})
    median = sorted(rounds)[4]
    borrowed = (
        '\n  - id: m1\n    kind: borrowed\n    value: 1\n    unit: "×"\n    testbed: apple-m1-max\n    status: lead\n'
        '    source: {title: t}\n    checked_by: [{claim: s16, expects: "between 0.9 and 1.1"}]\n'
    )
    write_tree(tmp_path, {"claims/a.yaml": "claims:" + claim("s16", run, f"{median}") + borrowed})
    result = check(tmp_path)
    contradicted = "m1: contradicted: check by s16 expects between 0.9 and 1.1: s16 gives 2×"
    assert (contradicted in result.output) is not holds
