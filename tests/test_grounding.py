"""Formulas have dimensions, testbeds and inputs that move them: each rule through real files and the CLI."""

from __future__ import annotations

import pytest
from helpers import MEASURED, SPEEDUP_ROWS, a_run, run_ledger, write_tree

RATE_ROWS = [{"batch": 16, "speedup": 3.6, "tok_s": 50.0}]
RATE = """
  - id: rate
    kind: measured
    value: 50
    unit: tok/s
    testbed: linux-cpu
    evidence: {run: measurements/toy/2026-11-29T10-00-00Z-linux-cpu, file: results.csv, where: {batch: 16}, column: tok_s}
"""


def ledger(tmp_path, claims: str, rows=RATE_ROWS):
    a_run(tmp_path, rows)
    write_tree(tmp_path, {"claims/moe.yaml": claims})
    return run_ledger("check", cwd=tmp_path)


def per_token(unit: str, formula: str = "1 / r", extra: str = "") -> str:
    return (
        MEASURED
        + RATE
        + f"  - id: per-token\n    kind: extrapolated\n    formula: {formula}\n    inputs: {{r: rate}}\n"
        + f"    value: 20\n    unit: {unit}\n{extra}"
    )


def test_a_formula_in_the_unit_of_its_dimension_passes(tmp_path):
    result = ledger(tmp_path, per_token("ms/token"))
    assert result.exit_code == 0, result.output


def test_a_formula_stated_in_another_dimension_is_invalid_with_a_unit_suggested(tmp_path):
    result = ledger(tmp_path, per_token("ms"))
    assert result.exit_code == 1 and not result.errors
    assert (
        "claims/moe.yaml:26: per-token: invalid: formula 1 / r gives seconds per token, but the claim's unit 'ms' "
        "is seconds\n"
        "  fix: state the claim in seconds per token (e.g. `unit: 'ms/token'`: the result is converted to the claim's "
        "unit), or correct the formula\n"
    ) in result.output


def test_a_formula_that_adds_different_dimensions_is_invalid_at_its_line(tmp_path):
    claims = per_token("tok/s", "r + s", "").replace("inputs: {r: rate}", "inputs: {r: rate, s: moe-speedup-b16}")
    result = ledger(tmp_path, claims)
    assert (
        "claims/moe.yaml:23: per-token: invalid: formula's units do not combine: r + s adds tokens per second and "
        "a plain ratio\n"
    ) in result.output


def test_a_formula_without_a_unit_must_be_dimensionless(tmp_path):
    claims = per_token("ms/token").replace("    unit: ms/token\n", "")
    result = ledger(tmp_path, claims)
    assert (
        "claims/moe.yaml:23: per-token: invalid: formula 1 / r gives seconds per token, but the claim's unit "
        "(none) is a plain ratio\n"
    ) in result.output


@pytest.mark.parametrize(
    "testbed, message",
    [
        (
            "nvidia-h200",
            "claims/moe.yaml:27: per-token: invalid: testbed nvidia-h200, but its inputs are on linux-cpu\n",
        ),
        ("mixed", "claims/moe.yaml:27: per-token: invalid: testbed mixed, but its inputs are on linux-cpu\n"),
    ],
)
def test_an_extrapolated_claims_testbed_is_its_inputs(tmp_path, testbed, message):
    result = ledger(tmp_path, per_token("ms/token", extra=f"    testbed: {testbed}\n"))
    assert result.exit_code == 1
    assert message in result.output


def test_a_mix_of_testbeds_must_be_said(tmp_path):
    other = RATE.replace("id: rate", "id: other").replace("linux-cpu", "nvidia-h200").replace("toy/", "toy2/")
    claims = per_token("ms/token", "1 / r + 1 / o").replace("inputs: {r: rate}", "inputs: {r: rate, o: other}")
    a_run(tmp_path, RATE_ROWS, probe="toy2", testbed="nvidia-h200")
    result = ledger(tmp_path, claims.replace(RATE, RATE + other))
    assert (
        "claims/moe.yaml:31: per-token: invalid: its inputs are on linux-cpu, nvidia-h200: a mix must be said\n"
        "  fix: write `testbed: mixed`, or use inputs from one testbed\n"
    ) in result.output
    said = claims.replace(RATE, RATE + other).replace("value: 20\n", "value: 40\n") + "    testbed: mixed\n"
    write_tree(tmp_path, {"claims/moe.yaml": said})
    assert run_ledger("check", cwd=tmp_path).exit_code == 0


def test_a_testbed_none_of_its_inputs_has_is_invalid(tmp_path):
    claims = (
        "claims:\n  - id: layers\n    kind: borrowed\n    status: lead\n    value: 40\n    unit: layers\n"
        "    source: {title: t}\n  - id: twice\n    kind: extrapolated\n    status: lead\n    formula: 2 * l\n"
        "    inputs: {l: layers}\n    value: 80\n    unit: layers\n    testbed: apple-m1-max\n"
    )
    result = ledger(tmp_path, claims)
    assert (
        "claims/moe.yaml:15: twice: invalid: testbed apple-m1-max, but none of its inputs has a testbed\n"
    ) in result.output


def test_mixed_is_only_for_an_extrapolated_claim(tmp_path):
    result = ledger(tmp_path, MEASURED.replace("testbed: linux-cpu", "testbed: mixed"), SPEEDUP_ROWS)
    assert (
        "claims/moe.yaml:7: moe-speedup-b16: invalid: testbed mixed is for an extrapolated claim whose inputs are on "
        "different testbeds\n"
    ) in result.output


def test_a_plain_check_compares_an_extrapolated_claims_derived_testbed(tmp_path):
    # The extrapolated check leaves its testbed out: it is its input's, linux-cpu, not the borrowed claim's.
    claims = per_token("ms/token") + (
        "  - id: m1-per-token\n    kind: borrowed\n    value: 20\n    unit: ms/token\n    testbed: apple-m1-max\n"
        "    source: {title: t}\n    checked_by: [per-token]\n"
    )
    result = ledger(tmp_path, claims)
    assert (
        "claims/moe.yaml:33: m1-per-token: invalid: checked_by per-token (testbed linux-cpu) in the plain form, but "
        "this claim is on apple-m1-max: a check across testbeds must state the relation\n"
    ) in result.output


CANCELS = """
  - id: cancels
    kind: extrapolated
    formula: s - s + 3.6
    inputs: {s: moe-speedup-b16}
    value: 3.6
    unit: "×"
"""


def test_an_input_that_cancels_is_unused_and_grounds_nothing(tmp_path):
    vouched = (
        '  - id: m1-speedup\n    kind: borrowed\n    value: 3.6\n    unit: "×"\n    source: {title: t}\n'
        "    checked_by: [cancels]\n"
    )
    result = ledger(tmp_path, MEASURED + CANCELS + vouched, SPEEDUP_ROWS)
    assert result.exit_code == 1
    assert (
        "claims/moe.yaml:17: cancels: unused-input: input s (moe-speedup-b16) does not move the result: s - s + 3.6 "
        "stays within the tolerance of its check of m1-speedup (±0.36×) whether s is multiplied by 0.5 or 2\n"
        "  fix: use s in the result, or remove moe-speedup-b16 from `inputs` and the formula: an input that cancels "
        "out, is clamped or flattened, or moves the result less than the tolerance it is judged with grounds "
        "nothing\n"
    ) in result.output
    assert "claims/moe.yaml:15: cancels: only-borrowed: rests only on borrowed claims" in result.output
    assert "m1-speedup: only-borrowed: borrowed, and no check here agrees with its value: its check cancels " in (
        result.output
    )


def test_a_lead_is_not_judged_for_unused_inputs(tmp_path):
    lead = CANCELS.replace("    value: 3.6\n", "    value: 3.6\n    status: lead\n")
    assert ledger(tmp_path, MEASURED + lead, SPEEDUP_ROWS).exit_code == 0
