"""Numbers are numbers, and nothing crashes the gate: every input gives findings with file:line."""

from __future__ import annotations

import os

import pytest
from helpers import MEASURED, RUN, SPEEDUP_ROWS, a_run, ledger, run_ledger, write_tree


@pytest.mark.parametrize(
    "written, message",
    [
        ("1:30", "claims/moe.yaml:4: moe-speedup-b16: invalid: value must be a number, found text '1:30'\n"),
        (".nan", "claims/moe.yaml:4: moe-speedup-b16: invalid: value .nan is not a finite number\n"),
        ("1e999", "claims/moe.yaml:4: moe-speedup-b16: invalid: value 1e999 is not a finite number\n"),
        ("9" * 350, "claims/moe.yaml:4: moe-speedup-b16: invalid: value " + "9" * 40 + "… is not a finite number\n"),
        ("0xee", "claims/moe.yaml:4: moe-speedup-b16: invalid: value '0xee' is not written as a decimal number\n"),
        ("yes", "claims/moe.yaml:4: moe-speedup-b16: invalid: value must be a number, found text 'yes'\n"),
    ],
)
def test_values_are_read_by_yaml_1_2_and_must_be_finite_decimals(tmp_path, written, message):
    result = ledger(tmp_path, MEASURED.replace("value: 3.59", f"value: {written}"))
    assert result.exit_code == 1 and not result.errors
    assert message in result.output


def test_a_leading_zero_is_decimal_as_yaml_1_2_says(tmp_path):
    result = ledger(tmp_path, MEASURED.replace("value: 3.59", "value: 010"))
    assert "moe-speedup-b16: drifted: stated 10×, evidence computes 3.6× (5% allowed)" in result.output


def test_a_tolerance_must_be_finite_and_within_max_tolerance(tmp_path):
    result = ledger(tmp_path, MEASURED.replace("tolerance: 5%", "tolerance: .inf"))
    assert "claims/moe.yaml:13: moe-speedup-b16: invalid: tolerance inf must be a finite number\n" in result.output
    result = ledger(tmp_path, MEASURED.replace("tolerance: 5%", "tolerance: 80%"))
    assert (
        "claims/moe.yaml:13: moe-speedup-b16: invalid: tolerance 80% allows 80% of the value; the policy's "
        "max_tolerance is 50%\n"
        "  fix: state the value more exactly, or raise max_tolerance in mkdocs.yml if this is deliberate\n"
    ) in result.output


def test_exponent_notation_never_widens_the_default_tolerance(tmp_path):
    result = ledger(tmp_path, MEASURED.replace("value: 3.59", "value: 0.0e+99").replace("    tolerance: 5%\n", ""))
    assert "moe-speedup-b16: drifted: stated 0×, evidence computes 3.6× (±0.5 allowed)" in result.output


def test_a_huge_where_value_is_invalid_not_a_crash(tmp_path):
    result = ledger(tmp_path, MEASURED.replace("where: {batch: 16}", "where: {batch: " + "9" * 350 + "}"))
    assert "moe-speedup-b16: invalid: evidence.where batch: " + "9" * 40 + " is not a finite number" in result.output


@pytest.mark.parametrize("cell", ["3_600", "３.６", "inf", "nan"])
def test_csv_numbers_are_plain_ascii_decimals(tmp_path, cell):
    result = ledger(tmp_path, MEASURED, rows=[{"batch": 16, "speedup": cell}])
    assert f"column speedup: cell {cell!r} is not a number" in result.output


def test_a_duplicated_csv_header_is_invalid(tmp_path):
    a_run(tmp_path, SPEEDUP_ROWS)
    csv = tmp_path / RUN / "results.csv"
    csv.write_text("batch,speedup,speedup\n16,3.6,9\n")
    import hashlib
    import json

    manifest = json.loads((tmp_path / RUN / "manifest.json").read_text())
    manifest["files"]["results.csv"]["sha256"] = hashlib.sha256(csv.read_bytes()).hexdigest()
    (tmp_path / RUN / "manifest.json").write_text(json.dumps(manifest))
    write_tree(tmp_path, {"claims/moe.yaml": MEASURED})
    result = run_ledger("check", cwd=tmp_path)
    assert (
        f"moe-speedup-b16: invalid: {RUN}/results.csv column 'speedup' appears twice in the header (columns 2 and 3)"
    ) in result.output


def test_ids_and_testbeds_with_surrounding_whitespace_are_invalid(tmp_path):
    result = ledger(
        tmp_path, MEASURED.replace("- id: moe-speedup-b16          # the headline", '- id: "moe-speedup-b16\\n"')
    )
    assert (
        "claims/moe.yaml:2: invalid: id 'moe-speedup-b16\\n' has spaces or line breaks around it\n"
        "  fix: write `id: moe-speedup-b16` (a quoted id must not carry whitespace)\n"
    ) in result.output
    result = ledger(tmp_path, MEASURED.replace("testbed: linux-cpu", 'testbed: " linux-cpu"'))
    assert (
        "claims/moe.yaml:7: moe-speedup-b16: invalid: testbed ' linux-cpu' has spaces or line breaks" in result.output
    )


def test_a_nul_byte_gets_its_line(tmp_path):
    result = ledger(tmp_path, MEASURED + "  # \x00\n")
    assert "claims/moe.yaml:14:5: invalid: a NUL byte (\\0) in the file\n  fix: remove the NUL byte\n" in result.output


def test_a_small_default_tolerance_in_mkdocs_yml_is_legitimate(tmp_path):
    config = "site_name: t\nplugins:\n  - ledger:\n      default_tolerance: 0.00001\n"
    result = ledger(tmp_path, MEASURED, **{"mkdocs.yml": config})
    assert result.exit_code == 0 and not result.errors, result.output + result.errors


def test_bad_policy_values_are_findings_with_their_line(tmp_path):
    config = (
        "site_name: t\nplugins:\n  - ledger:\n      max_run_age_days: " + "9" * 400 + "\n      max_tolerance: lots\n"
    )
    result = ledger(tmp_path, MEASURED, **{"mkdocs.yml": config})
    assert result.exit_code == 1 and not result.errors
    assert "mkdocs.yml:4: invalid: ledger option max_run_age_days: must be a positive whole number" in result.output
    assert (
        "mkdocs.yml:5: invalid: ledger option max_tolerance: must be a percentage above 0 and at most 50% like '10%', "
        "got 'lots'\n"
    ) in result.output


@pytest.mark.parametrize(
    "option, value, message",
    [
        ("check_tolerance", "'60%'", "must be a percentage above 0 and at most 50% like '10%', got '60%'"),
        ("check_tolerance", "0.5", "must be a percentage above 0 and at most 50% like '10%', got '0.5'"),
        ("max_tolerance", "'1000%'", "must be a percentage above 0 and at most 50% like '10%', got '1000%'"),
        ("default_tolerance", "'51%'", "'51%' is above the limit of 50%"),
        ("default_tolerance", "'1e400%'", "'1e400%' must be a finite number"),
    ],
)
def test_tolerance_options_have_hard_limits_at_their_line(tmp_path, option, value, message):
    config = f"site_name: t\nplugins:\n  - ledger:\n      {option}: {value}\n"
    result = ledger(tmp_path, MEASURED, **{"mkdocs.yml": config})
    assert result.exit_code == 1 and not result.errors
    assert f"mkdocs.yml:4: invalid: ledger option {option}: {message}\n" in result.output


def test_a_tolerance_is_held_to_max_tolerance_of_the_larger_of_stated_and_computed(tmp_path):
    # A stated 0 with an absolute tolerance of 1000 would accept anything the evidence computes.
    result = ledger(tmp_path, MEASURED.replace("value: 3.59", "value: 0").replace("tolerance: 5%", "tolerance: 1000"))
    assert (
        "claims/moe.yaml:13: moe-speedup-b16: invalid: tolerance 1000 allows 27778% of max(|stated|, |computed|) "
        "(stated 0×, evidence computes 3.6×); the policy's max_tolerance is 50%\n"
    ) in result.output
    # A default absolute tolerance is held to the same limit, claim by claim.
    config = "site_name: t\nplugins:\n  - ledger:\n      default_tolerance: 5\n"
    result = ledger(tmp_path, MEASURED.replace("    tolerance: 5%\n", ""), **{"mkdocs.yml": config})
    assert "claims/moe.yaml:4: moe-speedup-b16: invalid: tolerance 5 allows 139% of max(|stated|, |computed|)" in (
        result.output
    )


def test_values_that_differ_never_read_as_equal_in_a_drift(tmp_path):
    rows = [{"batch": 16, "speedup": 1.000002}]
    claims = MEASURED.replace("value: 3.59", "value: 1.000001").replace("tolerance: 5%", "tolerance: 0.0000001")
    result = ledger(tmp_path, claims, rows=rows)
    assert "moe-speedup-b16: drifted: stated 1.000001×, evidence computes 1.000002× (1e-07 allowed)" in (result.output)
    write_tree(tmp_path, {"claims/moe.yaml": claims.replace("value: 1.000001", "value: 1.000002")})
    assert run_ledger("check", cwd=tmp_path).exit_code == 0  # equal numbers never drift, however tight


def test_a_3000_deep_formula_chain_is_checked_without_recursion(tmp_path):
    lines = [MEASURED]
    previous = "moe-speedup-b16"
    for i in range(3000):
        lines.append(
            f"  - id: chain-{i}\n    kind: extrapolated\n    value: 3.6\n    formula: 1 * x\n    inputs: {{x: {previous}}}\n"
        )
        previous = f"chain-{i}"
    result = ledger(tmp_path, "".join(lines))
    assert not result.errors
    assert result.exit_code == 0, result.output[-500:]


def test_every_markdown_extension_is_scanned_and_special_pages_are_refused(tmp_path):
    (tmp_path / "docs/x.md").mkdir(parents=True)
    os.symlink("/dev/zero", tmp_path / "docs/zero.md")
    result = ledger(tmp_path, MEASURED, **{"docs/notes.markdown": '{{ claim("nope") }}\n'})
    assert "docs/notes.markdown:1:1: unknown-reference: page refers to unknown claim 'nope'" in result.output
    assert "docs/x.md: invalid: page is a folder, not a file" in result.output
    assert "docs/zero.md: invalid: page is not a regular file (a FIFO, device or socket, or a link to one)" in (
        result.output
    )
