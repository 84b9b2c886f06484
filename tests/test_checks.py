"""Checks are comparisons: the plain form is the same quantity, a relation is stated, both are judged,
and each check has a strength: only a check that agrees with the value supports it."""

from __future__ import annotations

import re

import pytest
from helpers import MEASURED, SPEEDUP_ROWS, a_run, ledger, run_ledger, write_tree

from generator.lang import relations
from generator.lang.units import NO_UNIT
from generator.lang.values import Tolerance
from generator.records import CheckResult, Claim, ClaimVerdict, Source

KV_RUN_ROWS = [{"dtype": "bf16", "bytes_per_token": 20480}]


KV = """
claims:
  - id: kv-bytes-per-token
    kind: measured
    value: 20480
    unit: "B"
    testbed: linux-cpu
    evidence: {run: measurements/toy/2026-11-29T10-00-00Z-linux-cpu, file: results.csv, where: {dtype: bf16}, column: bytes_per_token}
  - id: writeup-kv-per-token
    kind: borrowed
    value: 45
    unit: "KB"
    source: {title: a write-up}
    checked_by: [kv-bytes-per-token]
"""


def test_plain_check_compares_after_unit_conversion_and_fails_as_contradicted(tmp_path):
    result = ledger(tmp_path, KV, KV_RUN_ROWS)
    assert result.exit_code == 1
    assert (
        "claims/moe.yaml:13: writeup-kv-per-token: contradicted: stated 45 KB, but kv-bytes-per-token gives "
        "20.5 KB (expected: the same quantity (within 10%))\n"
        "  fix: retire it (`status: refuted`, `refuted_by: [kv-bytes-per-token]`), or correct the value or the "
        "stated relation if the check was misread\n"
    ) in result.output


def test_a_retired_claim_keeps_its_check_on_its_page_without_failing(tmp_path):
    retired = KV.replace(
        "    checked_by: [kv-bytes-per-token]\n",
        "    checked_by: [kv-bytes-per-token]\n    status: refuted\n    refuted_by: [kv-bytes-per-token]\n",
    )
    result = ledger(tmp_path, retired, KV_RUN_ROWS)
    assert result.exit_code == 0, result.output


def test_plain_check_within_the_check_tolerance_holds(tmp_path):
    close = KV.replace("value: 45\n", "value: 21\n")  # 21 KB against 20.48 KB: within 10%
    assert ledger(tmp_path, close, KV_RUN_ROWS).exit_code == 0


def test_the_rounds_spread_never_widens_a_plain_check(tmp_path):
    rows = [{"batch": 16, "speedup": 3.6, "speedup_min": 3.0, "speedup_max": 4.6}]
    claims = MEASURED + (
        '  - id: other-speedup\n    kind: borrowed\n    value: 4.9\n    unit: "×"\n    testbed: linux-cpu\n'
        "    source: {title: t}\n    checked_by: [moe-speedup-b16]\n"
    )
    result = ledger(tmp_path, claims, rows)  # 4.9 is within 10% of the 4.6 high end, not of the value 3.6
    assert result.exit_code == 1
    assert (
        "other-speedup: only-borrowed: borrowed, and no check here agrees with its value: its check "
        "moe-speedup-b16 is inconclusive: the measurement's "
    ) in result.output, result.output
    assert "interval 3–4.6× is wider than the 10% tolerance: more rounds, or a looser stated tolerance" in result.output


def test_plain_check_across_testbeds_is_invalid_and_asks_for_the_relation(tmp_path):
    claims = MEASURED + (
        '  - id: m1-speedup\n    kind: borrowed\n    value: 3.59\n    unit: "×"\n    testbed: apple-m1-max\n'
        "    source: {title: t}\n    checked_by: [moe-speedup-b16]\n"
    )
    result = ledger(tmp_path, claims)
    assert (
        "claims/moe.yaml:20: m1-speedup: invalid: checked_by moe-speedup-b16 (testbed linux-cpu) in the plain "
        "form, but this claim is on apple-m1-max: a check across testbeds must state the relation\n"
        '  fix: write `{claim: moe-speedup-b16, expects: "..."}` with the relation the run supports '
        '(e.g. "within 1.1x", "above", "> 1"; guide/checks.md), or remove the check\n'
    ) in result.output


def test_plain_check_across_dimensions_is_invalid(tmp_path):
    claims = MEASURED + (
        '  - id: m1-tok-s\n    kind: borrowed\n    value: 65.7\n    unit: "tok/s"\n    testbed: linux-cpu\n'
        "    source: {title: t}\n    checked_by: [moe-speedup-b16]\n"
    )
    result = ledger(tmp_path, claims)
    assert (
        "claims/moe.yaml:20: m1-tok-s: invalid: checked_by moe-speedup-b16 in the plain form compares "
        "moe-speedup-b16's value, a plain ratio (×), with this claim's, tokens per second (tok/s): its value cannot "
        "enter\n"
    ) in result.output


def test_a_stated_relation_that_does_not_hold_is_contradicted(tmp_path):
    claims = MEASURED + (
        '  - id: m1-speedup\n    kind: borrowed\n    value: 3.59\n    unit: "×"\n    testbed: apple-m1-max\n'
        '    source: {title: t}\n    checked_by: [{claim: moe-speedup-b16, expects: "> 5"}]\n'
    )
    result = ledger(tmp_path, claims)
    assert result.exit_code == 1
    assert (
        "claims/moe.yaml:20: m1-speedup: contradicted: check by moe-speedup-b16 expects > 5: "
        "moe-speedup-b16 gives 3.6×\n"
    ) in result.output


def borrowed(value: str, expects: str, unit: str = "×") -> str:
    return MEASURED + (
        f'  - id: m1-speedup\n    kind: borrowed\n    value: {value}\n    unit: "{unit}"\n    testbed: apple-m1-max\n'
        f'    source: {{title: t}}\n    checked_by: [{{claim: moe-speedup-b16, expects: "{expects}"}}]\n'
    )


def test_a_check_within_a_small_factor_agrees_and_supports_the_claim(tmp_path):
    assert ledger(tmp_path, borrowed("3.59", "within 1.05x")).exit_code == 0


def test_a_bound_on_the_check_alone_supports_a_sign_not_the_number(tmp_path):
    result = ledger(tmp_path, borrowed("999", "> 1"))  # 999x: the check's 3.6x never meets the claimed value
    assert result.exit_code == 1
    assert (
        "claims/moe.yaml:14: m1-speedup: only-borrowed: borrowed, and no check here agrees with its value: its check "
        "moe-speedup-b16 only gives a sign (greater than 1)\n"
    ) in result.output


def test_above_and_below_compare_the_checked_value_and_only_bound_it(tmp_path):
    result = ledger(tmp_path, borrowed("999", "above"))  # the check (3.6x) must be above the claim: it is not
    assert (
        "claims/moe.yaml:20: m1-speedup: contradicted: stated 999×, but moe-speedup-b16 gives 3.6× "
        "(expected: above the claim's value)\n"
    ) in result.output
    write_tree(tmp_path, {"claims/moe.yaml": borrowed("2", "above")})  # holds, and only bounds it
    result = run_ledger("check", cwd=tmp_path)
    assert "m1-speedup: only-borrowed: borrowed, and no check here agrees with its value: its check " in result.output
    assert "moe-speedup-b16 only bounds it (above the claim's value)\n" in result.output


def test_a_factor_wider_than_max_check_factor_only_bounds_the_value(tmp_path):
    result = ledger(tmp_path, borrowed("1.5", "within 3x"))
    assert "moe-speedup-b16 only bounds it (within 3× of the claim)\n" in result.output
    write_tree(tmp_path, {"mkdocs.yml": "site_name: t\nplugins:\n  - ledger:\n      max_check_factor: 3\n"})
    assert run_ledger("check", cwd=tmp_path).exit_code == 0


@pytest.mark.parametrize(
    "setting, message",
    [
        ("11", "mkdocs.yml:4: invalid: ledger option max_check_factor: must be a number from 1 to 10, got 11\n"),
        ("0.5", "mkdocs.yml:4: invalid: ledger option max_check_factor: must be a number from 1 to 10, got 0.5\n"),
        ("'2'", "mkdocs.yml:4: invalid: ledger option max_check_factor: must be a number from 1 to 10, got 2\n"),
    ],
)
def test_max_check_factor_outside_its_limit_is_invalid_at_its_line(tmp_path, setting, message):
    config = f"site_name: t\nplugins:\n  - ledger:\n      max_check_factor: {setting}\n"
    write_tree(tmp_path, {"mkdocs.yml": config})
    result = ledger(tmp_path, MEASURED)
    assert result.exit_code == 1 and not result.errors
    assert message in result.output


def test_a_check_of_another_dimension_is_invalid_whatever_the_relation(tmp_path):
    # The report's old case: an engine's tok/s "checked" by a flatness ratio its value never enters.
    result = ledger(tmp_path, borrowed("65.7", ">= 0.9", unit="tok/s"))
    assert (
        "claims/moe.yaml:20: m1-speedup: invalid: checked_by moe-speedup-b16 with `expects: >= 0.9` compares "
        "moe-speedup-b16's value, a plain ratio (×), with this claim's, tokens per second (tok/s): its value cannot "
        "enter\n"
        "  fix: name a check of the same quantity (units convert: KB and B compare); if nothing here measures it, "
        "remove the check and mark the claim `status: lead` with a note on what the check showed\n"
    ) in result.output


@pytest.mark.parametrize(
    "expects, message",
    [
        ("> 10 furlongs", "check by moe-speedup-b16: in '> 10 furlongs': unknown unit 'furlongs'"),
        ("within 11x", "check by moe-speedup-b16: within 11x: the factor must be a number from 1 to 10"),
        ("within 1e308x", "check by moe-speedup-b16: within 1e308x: the factor must be a number from 1 to 10"),
        ("> 1e999", "check by moe-speedup-b16: 1e999 is not a finite number"),
    ],
)
def test_a_relation_with_a_bad_unit_or_factor_is_invalid_never_a_traceback(tmp_path, expects, message):
    result = ledger(tmp_path, borrowed("3.59", expects))
    assert result.exit_code == 1 and not result.errors
    assert f"claims/moe.yaml:20: m1-speedup: invalid: {message}" in result.output


def test_a_relation_with_a_unit_of_another_dimension_is_invalid(tmp_path):
    claims = MEASURED + (
        '  - id: m1-speedup\n    kind: borrowed\n    value: 3.59\n    unit: "×"\n    testbed: apple-m1-max\n'
        '    source: {title: t}\n    checked_by: [{claim: moe-speedup-b16, expects: "> 10 GB/s"}]\n'
    )
    result = ledger(tmp_path, claims)
    assert (
        "claims/moe.yaml:20: m1-speedup: invalid: check by moe-speedup-b16: `expects: > 10 GB/s` states bytes per "
        "second (GB/s), moe-speedup-b16 a plain ratio (×)\n"
    ) in result.output


def test_a_relation_that_does_not_parse_is_invalid(tmp_path):
    claims = MEASURED + (
        '  - id: m1-speedup\n    kind: borrowed\n    value: 3.59\n    unit: "×"\n    testbed: apple-m1-max\n'
        '    source: {title: t}\n    checked_by: [{claim: moe-speedup-b16, expects: "bigger"}]\n'
    )
    result = ledger(tmp_path, claims)
    assert (
        "claims/moe.yaml:20: m1-speedup: invalid: check by moe-speedup-b16: cannot read relation 'bigger'\n"
        '  fix: write e.g. "within 1.1x", "above", "below", "> 1", ">= 0.9", "< 50 %", "> 10 GB/s" or '
        '"between 0.9 and 1.1"\n'
    ) in result.output


def test_a_retired_or_lead_claim_never_counts_as_a_check(tmp_path):
    claims = MEASURED.replace("    tolerance: 5%\n", "    tolerance: 5%\n    status: lead\n") + (
        '  - id: m1-speedup\n    kind: borrowed\n    value: 3.59\n    unit: "×"\n    testbed: apple-m1-max\n'
        '    source: {title: t}\n    checked_by: [{claim: moe-speedup-b16, expects: "within 1.05x"}]\n'
    )
    result = ledger(tmp_path, claims)
    assert (
        "m1-speedup: only-borrowed: borrowed, and no check here agrees with its value: its check moe-speedup-b16 "
        "does not reach a measured run\n"
    ) in result.output


def test_check_format_github_prints_annotations_on_the_claims_lines(tmp_path):
    claims = MEASURED + (
        '  - id: m1-speedup\n    kind: borrowed\n    value: 3.59\n    unit: "×"\n    testbed: apple-m1-max\n'
        '    source: {title: t}\n    checked_by: [{claim: moe-speedup-b16, expects: "> 5"}]\n'
    )
    a_run(tmp_path, SPEEDUP_ROWS)
    write_tree(tmp_path, {"claims/moe.yaml": claims})
    result = run_ledger("check", "--format", "github", cwd=tmp_path)
    assert result.exit_code == 1
    assert result.output.splitlines()[0] == (
        "::error file=claims/moe.yaml,line=20,title=contradicted::m1-speedup: check by moe-speedup-b16 expects > 5: "
        "moe-speedup-b16 gives 3.6×%0Afix: retire it (`status: refuted`, `refuted_by: [moe-speedup-b16]`), or correct "
        "the value or the stated relation if the check was misread"
    )


def test_ledger_diff_shows_a_changed_relation(tmp_path):
    import subprocess

    claims = MEASURED + (
        '  - id: m1-speedup\n    kind: borrowed\n    value: 3.59\n    unit: "×"\n    testbed: apple-m1-max\n'
        '    source: {title: t}\n    checked_by: [{claim: moe-speedup-b16, expects: "> 3"}]\n'
    )
    a_run(tmp_path, SPEEDUP_ROWS)
    write_tree(tmp_path, {"claims/moe.yaml": claims})
    for args in (["init", "-q"], ["add", "."], ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "base"]):
        subprocess.run(["git", *args], cwd=tmp_path, check=True, capture_output=True)
    write_tree(tmp_path, {"claims/moe.yaml": claims.replace('"> 3"', '"> 0"')})
    result = run_ledger("diff", "HEAD", cwd=tmp_path)
    assert (
        "| changed | `m1-speedup` |  | also changed: checked by |" in result.output
    )  # a weakened relation is a change


def result(strength: str, holds: bool | None = True, counts: bool = True) -> CheckResult:
    return CheckResult("m", "r", counts, holds, strength=strength)


@pytest.mark.parametrize(
    "results, shown",
    [
        ((result("agrees"),), "agrees"),
        ((result("direction"), result("agrees")), "agrees"),
        ((result("direction"), result("bounded")), "bounded"),
        ((result("direction"),), "direction"),
        ((result("agrees", counts=False, holds=None),), ""),
        ((result("agrees"), result("direction", holds=False)), ""),  # a check that fails: no badge of support
        ((), ""),
    ],
)
def test_a_claims_support_is_its_strongest_check_that_holds(results, shown):
    claim = Claim("c", "borrowed", Source("claims/c.yaml", 1))
    assert ClaimVerdict(claim, NO_UNIT, Tolerance("precision"), checks=results).support == shown


@pytest.mark.parametrize(
    "text, factor, strength",
    [
        ("same", 2, "agrees"),
        ("within 2x", 2, "agrees"),
        ("within 2.5x", 2, "bounded"),
        ("within 2.5x", 3, "agrees"),
        ("above", 2, "bounded"),
        ("below", 10, "bounded"),
        ("> 1", 2, "direction"),
        ("<= 50 %", 2, "direction"),
        ("between 0.9 and 1.1", 2, "direction"),
    ],
)
def test_each_relation_has_a_strength(text, factor, strength):
    assert relations.parse(text).strength(factor) == strength


def test_the_badge_and_show_say_the_strength_never_checked(tmp_path):
    from helpers import RUN_TIME

    from generator.gate import check
    from generator.inputs.config import DEFAULTS
    from generator.site.render import claim_badges

    ledger(tmp_path, borrowed("3.59", "within 1.05x"))
    report = check(tmp_path, DEFAULTS, RUN_TIME)
    verdict = report.verdict("m1-speedup")
    assert verdict is not None
    assert '<span class="ledger-badge ledger-badge--agrees">agrees</span>' in claim_badges(verdict)
    assert ">checked<" not in claim_badges(verdict)
    shown = run_ledger("show", "m1-speedup", cwd=tmp_path).output
    assert shown.startswith("m1-speedup = 3.59× (borrowed, agrees, fresh)\n")
    assert "checked by (agrees: within 1.05× of the claim, holds) moe-speedup-b16 = 3.59×" in shown


def test_a_contradiction_never_shows_two_values_that_read_alike(tmp_path):
    claims = MEASURED.replace("value: 3.59", "value: 1.00002") + (
        '  - id: same-speedup\n    kind: borrowed\n    value: 1.00001\n    unit: "×"\n    testbed: linux-cpu\n'
        "    source: {title: t}\n    tolerance: 0\n    checked_by: [moe-speedup-b16]\n"
    )
    result = ledger(tmp_path, claims, rows=[{"batch": 16, "speedup": 1.00002}])
    assert (
        "same-speedup: contradicted: stated 1.00001×, but moe-speedup-b16 gives 1.00002× "
        "(expected: the same quantity (within 0))\n"
    ) in result.output


@pytest.mark.parametrize(
    "text, value, holds",
    [
        ("between 0.9 and 1.1", 0.9, True),  # both ends included
        ("between 0.9 and 1.1", 1.1, True),
        ("between 0.9 and 1.1", 1.2, False),
        ("Between -1 and 1e3 GB/s", 0.0, True),
        ("> 1", 1.0, False),
        (">= 1", 1.0, True),
    ],
)
def test_a_bound_relation_holds_on_the_value_in_its_own_unit(text, value, holds):
    relation = relations.parse(text)
    assert relation.bounds_itself and relation.holds(value) is holds


@pytest.mark.parametrize(
    "text, message",
    [
        ("between 1 and 1", "in 'between 1 and 1': the first number must be smaller than the second"),
        ("between 1 and", "cannot read relation 'between 1 and'"),
        ("between 1 and 2 furlongs", "in 'between 1 and 2 furlongs': unknown unit 'furlongs'"),
        ("between 1e999 and 2", "1e999 is not a finite number"),
    ],
)
def test_a_between_that_does_not_read_says_why(text, message):
    with pytest.raises(relations.RelationError, match="^" + re.escape(message)):
        relations.parse(text)
