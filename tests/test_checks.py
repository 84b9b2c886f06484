"""Checks are comparisons: the plain form is the same quantity, a relation is stated, both are judged."""

from __future__ import annotations

from helpers import MEASURED, SPEEDUP_ROWS, a_run, run_ledger, write_tree

KV_RUN_ROWS = [{"dtype": "bf16", "bytes_per_token": 20480}]


def ledger(tmp_path, claims: str, rows=SPEEDUP_ROWS):
    a_run(tmp_path, rows)
    write_tree(tmp_path, {"claims/moe.yaml": claims})
    return run_ledger("check", cwd=tmp_path)


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


def test_the_rounds_spread_widens_a_plain_check(tmp_path):
    rows = [{"batch": 16, "speedup": 3.6, "speedup_min": 3.0, "speedup_max": 4.6}]
    claims = MEASURED + (
        '  - id: other-speedup\n    kind: borrowed\n    value: 4.9\n    unit: "×"\n    testbed: linux-cpu\n'
        "    source: {title: t}\n    checked_by: [moe-speedup-b16]\n"
    )
    assert ledger(tmp_path, claims, rows).exit_code == 0  # 4.9 is within 10% of the 4.6 high end


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
        '(e.g. "> 1", "above", "within 2x"; guide/checks.md), or remove the check\n'
    ) in result.output


def test_plain_check_across_dimensions_is_invalid(tmp_path):
    claims = MEASURED + (
        '  - id: m1-tok-s\n    kind: borrowed\n    value: 65.7\n    unit: "tok/s"\n    testbed: linux-cpu\n'
        "    source: {title: t}\n    checked_by: [moe-speedup-b16]\n"
    )
    result = ledger(tmp_path, claims)
    assert (
        "claims/moe.yaml:20: m1-tok-s: invalid: checked_by moe-speedup-b16 in the plain form compares a plain "
        "ratio (×) with this claim's a count of tokens per seconds (tok/s)\n"
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


def test_a_stated_relation_that_holds_checks_the_claim(tmp_path):
    claims = MEASURED + (
        '  - id: m1-speedup\n    kind: borrowed\n    value: 3.59\n    unit: "×"\n    testbed: apple-m1-max\n'
        '    source: {title: t}\n    checked_by: [{claim: moe-speedup-b16, expects: "> 1"}]\n'
    )
    assert ledger(tmp_path, claims).exit_code == 0


def test_a_relation_with_a_unit_of_another_dimension_is_invalid(tmp_path):
    claims = MEASURED + (
        '  - id: m1-speedup\n    kind: borrowed\n    value: 3.59\n    unit: "×"\n    testbed: apple-m1-max\n'
        '    source: {title: t}\n    checked_by: [{claim: moe-speedup-b16, expects: "> 10 GB/s"}]\n'
    )
    result = ledger(tmp_path, claims)
    assert (
        "claims/moe.yaml:20: m1-speedup: invalid: check by moe-speedup-b16: `expects: > 10 GB/s` is in bytes per "
        "seconds, moe-speedup-b16 in a plain ratio (×)\n"
    ) in result.output


def test_a_relation_that_does_not_parse_is_invalid(tmp_path):
    claims = MEASURED + (
        '  - id: m1-speedup\n    kind: borrowed\n    value: 3.59\n    unit: "×"\n    testbed: apple-m1-max\n'
        '    source: {title: t}\n    checked_by: [{claim: moe-speedup-b16, expects: "bigger"}]\n'
    )
    result = ledger(tmp_path, claims)
    assert (
        "claims/moe.yaml:20: m1-speedup: invalid: check by moe-speedup-b16: cannot read relation 'bigger'\n"
        '  fix: write e.g. "> 1", ">= 0.9", "< 50 %", "> 10 GB/s", "above", "below" or "within 2x"\n'
    ) in result.output


def test_a_retired_or_lead_claim_never_counts_as_a_check(tmp_path):
    claims = MEASURED.replace("    tolerance: 5%\n", "    tolerance: 5%\n    status: lead\n") + (
        '  - id: m1-speedup\n    kind: borrowed\n    value: 3.59\n    unit: "×"\n    testbed: apple-m1-max\n'
        '    source: {title: t}\n    checked_by: [{claim: moe-speedup-b16, expects: "> 1"}]\n'
    )
    result = ledger(tmp_path, claims)
    assert "m1-speedup: only-borrowed: borrowed, and nothing here checks it" in result.output


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
    assert "- `m1-speedup` also changed: checked by\n" in result.output  # a weakened relation is a change


def test_the_checked_badge_needs_every_check_to_hold():
    from generator.records import CheckResult, Claim, Report, Source
    from generator.site.render import checked

    claim = Claim("b", "borrowed", Source("claims/a.yaml", 1), checked_by=("m", "n"))
    held = CheckResult("m", "greater than 1", True, True)
    failed = CheckResult("n", "greater than 1", True, False)
    report = Report(claims=(claim,), runs={}, findings=(), computed={}, checks={"b": (held, held)})
    assert checked(claim, report)
    report = Report(claims=(claim,), runs={}, findings=(), computed={}, checks={"b": (held, failed)})
    assert not checked(claim, report)
