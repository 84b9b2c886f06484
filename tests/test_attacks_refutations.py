"""Refutations are re-judged (issue 46, class 5): a refutation holds only while its refuter's interval (its
value, without one) lies outside the refuted value within the claim's check tolerance (or outside what its
source states); otherwise `unsupported-refutation`, naming both, on every build, so a re-measure that moves the
refuter across the refuted value is seen. Refuted values are generated near and far from the measurement."""

from __future__ import annotations

import random
from datetime import timedelta

import pytest
from helpers import MEASURED, RUN_TIME, a_run, ledger, run_ledger, write_tree
from helpers_rounds import claim, noisy, rounds_run


def refuted(value: float, extra: str = "") -> str:
    return (
        f"  - id: killer-claim\n    kind: borrowed\n    value: {value}\n    unit: '×'\n"
        f"    source: {{title: a write-up}}\n    status: refuted\n    refuted_by: [moe-speedup-b16]\n{extra}"
    )


def refuted_by_line(root) -> int:
    lines = (root / "claims/moe.yaml").read_text().splitlines()
    return 1 + lines.index("    refuted_by: [moe-speedup-b16]")


@pytest.mark.parametrize("seed", range(8))
def test_a_refutation_by_a_measurement_that_agrees_with_the_value_is_unsupported_naming_both(tmp_path, seed):
    rng = random.Random(seed)
    tolerance = rng.choice(("", "5%", "20%"))  # the claim's own, else the policy's check_tolerance (10%)
    share = {"": 0.10, "5%": 0.05, "20%": 0.20}[tolerance]
    value = round(3.6 * (1 + rng.uniform(-0.9, 0.9) * share), 3)  # the measured 3.6× lies within its tolerance
    extra = f"    tolerance: {tolerance}\n" if tolerance else ""
    result = ledger(tmp_path, MEASURED + refuted(value, extra))
    assert result.exit_code == 1 and not result.errors, result.output
    allowed = f"{tolerance or '10%'}"
    assert (
        f"claims/moe.yaml:{refuted_by_line(tmp_path)}: killer-claim: unsupported-refutation: refuted by "
        f"moe-speedup-b16, but moe-speedup-b16 gives 3.6×, within {allowed} of its stated "
    ) in result.output, result.output
    assert "a measurement that agrees with a claim does not refute it" in result.output


@pytest.mark.parametrize("seed", range(6))
def test_a_refutation_by_a_measurement_outside_the_value_holds(tmp_path, seed):
    rng = random.Random(seed)
    value = round(3.6 * rng.choice((rng.uniform(0.05, 0.85), rng.uniform(1.15, 20))), 3)
    assert ledger(tmp_path, MEASURED + refuted(value)).exit_code == 0


def test_a_refuters_interval_that_reaches_the_value_does_not_refute_it(tmp_path):
    run = rounds_run(tmp_path, {16: [3.0, 3.2, 3.4, 3.5, 3.6, 3.7, 3.8, 4.0, 4.4]})  # 99.6% interval 3–4.4×
    claims = "claims:" + claim("moe-speedup-b16", run, "3.6") + refuted(4.6)  # 4.6 ± 10%: 4.14–5.06×
    write_tree(tmp_path, {"claims/moe.yaml": claims})
    result = run_ledger("check", cwd=tmp_path)
    assert result.exit_code == 1, result.output
    assert "gives 3.6× (99.6% interval 3–4.4× (9 rounds)), reaching within 10% of its stated 4.6×" in result.output


def test_a_refutation_is_judged_again_after_a_re_measure_moves_the_refuter_across_the_value(tmp_path):
    old = a_run(tmp_path, [{"batch": 16, "speedup": 2.0}])
    write_tree(tmp_path, {"claims/moe.yaml": "claims:" + claim("moe-speedup-b16", old, "2.0") + refuted(3.6)})
    assert run_ledger("check", cwd=tmp_path).exit_code == 0  # 2× is outside 3.6× ± 10%: it refutes it
    new = a_run(tmp_path, [{"batch": 16, "speedup": 3.55}], when=RUN_TIME + timedelta(hours=1))
    write_tree(tmp_path, {"claims/moe.yaml": "claims:" + claim("moe-speedup-b16", new, "3.55") + refuted(3.6)})
    result = run_ledger("check", cwd=tmp_path)
    assert result.exit_code == 1, result.output
    assert "killer-claim: unsupported-refutation: refuted by moe-speedup-b16, but moe-speedup-b16 gives 3.55×" in (
        result.output
    )


def test_a_refuted_range_that_holds_the_measurement_is_unsupported(tmp_path):
    claims = MEASURED + refuted(9.0, "    range: [2, 5]\n").replace("    value: 9.0\n", "")
    result = ledger(tmp_path, claims)
    assert result.exit_code == 1, result.output
    assert "moe-speedup-b16 gives 3.6×, inside what its source states (between 2 and 5)" in result.output


def test_a_refuted_claim_without_a_figure_rests_on_its_refuter_reaching_a_measured_run(tmp_path):
    words = refuted(1.0).replace("    value: 1.0\n    unit: '×'\n", "")
    assert ledger(tmp_path, MEASURED + words).exit_code == 0


def test_replicates_of_the_refuter_are_its_interval(tmp_path):
    runs = [
        rounds_run(tmp_path, {16: noisy(3.6, cv=0.02, seed=i)}, when=RUN_TIME + timedelta(hours=i)) for i in range(3)
    ]
    cited = claim("moe-speedup-b16", runs[-1], "3.6").replace("column: speedup}", "column: speedup, replicates: 3}")
    write_tree(tmp_path, {"claims/moe.yaml": "claims:" + cited + refuted(3.7)})
    result = run_ledger("check", cwd=tmp_path)
    assert result.exit_code == 1 and "between 3 replicate runs" in result.output, result.output
