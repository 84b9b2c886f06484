"""Held-out style attacks on the value side, made as a pull request would make them: a fresh copy of
this repository's report (claims, runs, probes, figures, pages, mkdocs.yml), one change, the real
`ledger check`. Each must fail with exit 1, name the file and line, and never print a traceback."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from helpers import REPO, restore_measured_code, run_ledger

# the report's files, with every surface the policy lists (guide/coverage.md); the code its runs hash is copied
# from their manifests (generator/timing.py, benchmarks/coverage.py, generator/lang/between.py)
REPORT = ("claims", "measurements", "probes", "figures", "docs", "mkdocs.yml", "README.md", "guide")
BATCHING, CPU = "claims/writeup-batching.yaml", "claims/here-linux-cpu.yaml"
TOUCHED = '[{claim: cpu-moe-touched-mc-b16, expects: "within 1.05x"}, {claim: cpu-moe-touched-closed-b16, expects: "within 1.05x"}, {claim: h200-moe-touched-mc-b16, expects: "within 1.05x"}]'
SPEEDUP = "    evidence: {run: measurements/moe/2026-12-01T16-32-32Z-linux-cpu-amd-epyc, file: results.csv, where: {mode: batched, batch: 16}"
INFLATION = "    formula: touched / touched_b1\n    inputs: {touched: cpu-moe-touched-mc-b16, touched_b1: cpu-moe-touched-mc-b1}\n"


@pytest.fixture(scope="module")
def report_copy(tmp_path_factory) -> Path:
    template = tmp_path_factory.mktemp("report")
    for name in REPORT:
        source = REPO / name
        (template / name).parent.mkdir(parents=True, exist_ok=True)  # generator/timing.py: hashed into every run
        (shutil.copytree if source.is_dir() else shutil.copy)(source, template / name)
    restore_measured_code(template)  # a probe branch before its re-measure: the code the runs were measured with
    return template


def attacked(report_copy: Path, tmp_path: Path, path: str, old: str, new: str):
    root = tmp_path / "pr"
    shutil.copytree(report_copy, root)
    text = (root / path).read_text()
    assert text.count(old) == 1, f"the attack's anchor must be unique in {path}: {old!r}"
    (root / path).write_text(text.replace(old, new))
    return run_ledger("check", "--no-cache", cwd=root)


ATTACKS = {
    # 1. A check must constrain the value it checks.
    "a borrowed number made up and held by a bound on the check alone": (
        BATCHING,
        f'    value: 102\n    unit: "experts"\n    kind: borrowed\n    testbed: apple-m1-max\n'
        f'    source: {{title: "What is batching actually saving?", quote: "At B=16 you expect to touch about 102 of them", locator: "section 1", retrieved: "2026-11-29"}}\n'
        f"    checked_by: {TOUCHED}",
        '    value: 250\n    unit: "experts"\n    kind: borrowed\n    testbed: apple-m1-max\n'
        '    source: {title: "What is batching actually saving?", quote: "At B=16 you expect to touch about 102 of them", locator: "section 1", retrieved: "2026-11-29"}\n'
        '    checked_by: [{claim: cpu-moe-touched-mc-b16, expects: "> 1"}]',
        "claims/writeup-batching.yaml:165: m1max-expected-touched-b16: only-borrowed: borrowed, and no check here "
        "agrees with its value: its check cpu-moe-touched-mc-b16 only gives a sign (greater than 1)",
    ),
    "a factor widened until a wrong number passes": (
        BATCHING,
        f"    checked_by: {TOUCHED}",
        '    checked_by: [{claim: cpu-moe-touched-mc-b16, expects: "within 9x"}]',
        "m1max-expected-touched-b16: only-borrowed: borrowed, and no check here agrees with its value: its check "
        "cpu-moe-touched-mc-b16 only bounds it (within 9× of the claim)",
    ),
    "a factor beyond any limit": (
        BATCHING,
        f"    checked_by: {TOUCHED}",
        '    checked_by: [{claim: cpu-moe-touched-mc-b16, expects: "within 1e9x"}]',
        "claims/writeup-batching.yaml:172: m1max-expected-touched-b16: invalid: check by cpu-moe-touched-mc-b16: "
        "within 1e9x: the factor must be a number from 1 to 10",
    ),
    "a check of another quantity": (
        BATCHING,
        f"    checked_by: {TOUCHED}",
        '    checked_by: [{claim: cpu-moe-speedup-b16, expects: "below"}]',
        "claims/writeup-batching.yaml:172: m1max-expected-touched-b16: invalid: checked_by cpu-moe-speedup-b16 with "
        "`expects: below` compares cpu-moe-speedup-b16's value, a plain ratio (×), with this claim's, a count of "
        "experts",
    ),
    "a bound in a unit that is not one": (
        BATCHING,
        f"    checked_by: {TOUCHED}",
        '    checked_by: [{claim: cpu-moe-touched-mc-b16, expects: "> 50 parsecs"}]',
        "claims/writeup-batching.yaml:172: m1max-expected-touched-b16: invalid: check by cpu-moe-touched-mc-b16: "
        "in '> 50 parsecs': unknown unit 'parsecs'",
    ),
    "a refutation resting on a lead": (
        BATCHING,
        "    refuted_by: [h200-moe-speedup-b16]\n",
        "    refuted_by: [m1max-moe-speedup-b16]\n",
        "claims/writeup-batching.yaml:206: m1max-killer-moe-ceiling: unsupported-refutation: refuted by "
        "m1max-moe-speedup-b16, which is a lead",
    ),
    "a conclusions page that forbids leads citing one": (
        "docs/report/batching.md",
        "# What batching saves: byte ratio × bandwidth ratio\n",
        "---\nledger: {leads: forbid}\n---\n# What batching saves: byte ratio × bandwidth ratio\n",
        "docs/report/batching.md:8:",
    ),
    # 2. Formulas have dimensions.
    "a measured input that cancels out": (
        CPU,
        INFLATION,
        INFLATION.replace("touched / touched_b1", "touched_b1 * 12.74 / 8 + touched - touched"),
        "cpu-moe-read-inflation-b16: unused-input: input touched (cpu-moe-touched-mc-b16) does not move the result",
    ),
    "a measured input raised to a power too small to matter": (
        CPU,
        INFLATION,
        INFLATION.replace("touched / touched_b1", "touched ** 0.00001 * touched_b1 * 1.5925"),
        "cpu-moe-read-inflation-b16: unused-input: input touched (cpu-moe-touched-mc-b16) does not move the result",
    ),
    "a ratio restated in the unit of another quantity": (
        CPU,
        '    unit: "×"\n    kind: extrapolated\n    value: 12.74\n    testbed: linux-cpu-amd-epyc\n' + INFLATION,
        '    unit: "GB/s"\n    kind: extrapolated\n    value: 12.74\n    testbed: linux-cpu-amd-epyc\n' + INFLATION,
        "cpu-moe-read-inflation-b16: invalid: formula touched / touched_b1 gives a plain ratio, but the claim's "
        "unit 'GB/s' is bytes per second",
    ),
    "a testbed none of the inputs ran on": (
        CPU,
        "    value: 12.74\n    testbed: linux-cpu-amd-epyc\n" + INFLATION,
        "    value: 12.74\n    testbed: apple-m1-max\n" + INFLATION,
        "cpu-moe-read-inflation-b16: invalid: testbed apple-m1-max, but its inputs are on linux-cpu-amd-epyc",
    ),
    "a stated zero with a tolerance that accepts anything": (
        CPU,
        "    value: 1.012\n    testbed: linux-cpu-amd-epyc\n" + SPEEDUP,
        "    value: 0\n    tolerance: 1000\n    testbed: linux-cpu-amd-epyc\n" + SPEEDUP,
        "cpu-moe-speedup-b16: invalid: tolerance 1000 allows",
    ),
    "a policy that loosens every tolerance": (
        "mkdocs.yml",
        "      default_tolerance: precision",
        "      max_tolerance: 900%\n      default_tolerance: precision",
        "mkdocs.yml:43: invalid: ledger option max_tolerance: must be a percentage above 0 and at most 50%",
    ),
    # 6. Value-side robustness.
    "a full-width function name": (
        CPU,
        INFLATION,
        INFLATION.replace("touched / touched_b1", "ｍａｘ(touched, touched) / touched_b1"),
        "cpu-moe-read-inflation-b16: invalid: invalid formula: 'ｍ' (U+FF4D) is not plain ASCII",
    ),
    "a one-argument max": (
        CPU,
        INFLATION,
        INFLATION.replace("touched / touched_b1", "max(touched) / touched_b1"),
        "cpu-moe-read-inflation-b16: invalid: invalid formula: max() needs at least two arguments (max(touched))",
    ),
}


@pytest.mark.parametrize("attack", list(ATTACKS))
def test_a_held_out_attack_fails_with_file_and_line_and_no_traceback(report_copy, tmp_path, attack):
    path, old, new, expected = ATTACKS[attack]
    result = attacked(report_copy, tmp_path, path, old, new)
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.errors + result.output
    assert expected in result.output


def test_the_report_copy_passes_before_any_attack(report_copy, tmp_path):
    result = run_ledger("check", "--no-cache", cwd=report_copy)
    assert result.exit_code == 0, result.output


def test_equal_numbers_never_drift_under_a_tiny_tolerance_on_the_report(report_copy, tmp_path):
    # cpu-moe-touched-mc-b1 states 8.000 and its run computes 8.0: equal, whatever the tolerance.
    old = "    value: 8.000\n    testbed: linux-cpu-amd-epyc\n    evidence: {run: measurements/moe/2026-12-01T16-32-32Z-linux-cpu-amd-epyc, file: touched.csv, where: {batch: 1}"
    result = attacked(report_copy, tmp_path, CPU, old, old.replace("8.000\n", "8.000\n    tolerance: 1e-300\n"))
    assert result.exit_code == 0, result.output
