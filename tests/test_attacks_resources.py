"""Every command stays bounded (issue 47): a run no claim reads costs a check its hashing and its rows' reading,
never its rows' memory; `ledger diff` of a change to thousands of claims prints the counts and the top of
each section, the whole going to a file. Real runs written by the run writer, the real command line; peak
memory is the process's own (resource.getrusage in the command's process), so it does not depend on load."""

from __future__ import annotations

import re
import sys
from datetime import timedelta

import pytest
from helpers import (
    MEASURED,
    RUN_TIME,
    SPEEDUP_KINDS,
    SPEEDUP_ROWS,
    a_run,
    git,
    run_ledger,
    run_python,
    write_tree,
)

from generator.runs import Column

# `ledger check` printing its own peak memory (ru_maxrss: KiB on Linux), started through a launcher so that
# the test's own memory is not carried into it.
PEAK = (
    "import resource, sys\nfrom generator.cli import main\ncode = main(sys.argv[1:])\n"
    "print('peak-kib', resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)\nsys.exit(code)\n"
)
LAUNCHER = "import subprocess, sys; sys.exit(subprocess.run(sys.argv[1:]).returncode)"


def peak_kib(root, *args: str) -> tuple[int, str]:
    done = run_python("-c", LAUNCHER, sys.executable, "-c", PEAK, *args, cwd=root)
    return int(re.search(r"peak-kib (\d+)", done.stderr).group(1)), done.stdout


ARCHIVE = [{"batch": i, "rounds": 3, "seconds": 0.001 * (i % 997 + 1)} for i in range(300_000)]
ARCHIVE_COLUMNS = {"batch": Column("", "exact"), "seconds": Column("s", "timed")}


def test_a_run_no_claim_reads_is_read_in_bounded_memory(tmp_path):
    """300,000 rows in a run of a probe no claim cites: hashed, read and counted as a stream; the check's peak
    memory stays within 1.3x the same check without it (its rows kept, it was over 2x)."""
    without, with_archive = tmp_path / "without", tmp_path / "with"
    for root in (without, with_archive):
        a_run(root, SPEEDUP_ROWS, columns=SPEEDUP_KINDS)
        write_tree(root, {"claims/moe.yaml": MEASURED})
    a_run(with_archive, ARCHIVE, probe="archive", columns=ARCHIVE_COLUMNS)
    base, said = peak_kib(without, "check", "--no-cache")
    large, said_too = peak_kib(with_archive, "check", "--no-cache")
    assert said.splitlines()[-1] == said_too.splitlines()[-1], said_too  # the archive is intact: no finding
    assert large <= 1.3 * base, (large, base)


def test_a_run_no_claim_reads_is_still_read_to_its_last_row(tmp_path):
    """Read in bounded memory, every row is still read: a bad row at its end refuses the run."""
    a_run(tmp_path, SPEEDUP_ROWS, columns=SPEEDUP_KINDS)
    run = a_run(tmp_path, ARCHIVE[:50_000], probe="archive", columns=ARCHIVE_COLUMNS)
    write_tree(tmp_path, {"claims/moe.yaml": MEASURED})
    data = tmp_path / run / "results.csv"
    data.write_bytes(data.read_bytes() + b"1,2\n")  # one row short of the header's cells
    result = run_ledger("check", cwd=tmp_path)
    assert result.exit_code == 1, result.output
    assert f"{run}/manifest.json: tampered: " in result.output and "results.csv" in result.output, result.output


MKDOCS = "site_name: test\nplugins:\n  - ledger:\n      max_run_age_days: 36500\n"


def committed(root, files: dict) -> None:
    git(root, "init", "-q", "-b", "main")
    write_tree(root, files)
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "base")


def test_a_diff_prints_at_most_60000_bytes_unless_told_otherwise(tmp_path):
    """Without --max-bytes the Markdown is cut to a pull-request comment's worth (it was printed whole, however
    long): the counts whole, the top of each section, the whole diff in --full's file."""
    committed(tmp_path, {"mkdocs.yml": MKDOCS, "claims/.keep": ""})
    title = "a long source title, as a pasted citation is " + "x" * 300
    rows = [
        f"  - id: borrowed-{n}\n    kind: borrowed\n    status: lead\n    value: {n}\n    unit: ms\n"
        f"    source: {{title: '{title} {n}'}}\n"
        for n in range(400)
    ]
    write_tree(tmp_path, {"claims/many.yaml": "claims:\n" + "".join(rows)})
    whole = tmp_path.parent / f"{tmp_path.name}-whole.md"
    result = run_ledger("diff", "HEAD", "--full", str(whole), cwd=tmp_path)
    assert result.exit_code == 0, result.errors
    assert len(result.output.encode()) <= 60_000 < len(whole.read_bytes()), len(result.output.encode())
    assert "400 added" in result.output and "| `borrowed-0` |" in result.output
    assert "| `borrowed-399` |" not in result.output and "| `borrowed-399` |" in whole.read_text()


def test_a_diff_reads_a_run_alike_at_both_revisions_once_and_judges_each_as_ledger_check_does(tmp_path):
    """A run whose files are the same at base and head is read once (benchmarks/bounded.py); its probe changed at
    head, the base's gate still judges it with the base's probe, as `ledger check` on the base does."""
    a_run(tmp_path, SPEEDUP_ROWS, columns=SPEEDUP_KINDS)
    committed(tmp_path, {"mkdocs.yml": MKDOCS, "claims/moe.yaml": MEASURED})
    at_base = run_ledger("check", cwd=tmp_path).output.splitlines()[-1]
    probe = tmp_path / "probes/toy.py"
    probe.write_text(probe.read_text() + "# a changed probe\n")
    at_head = run_ledger("check", cwd=tmp_path).output.splitlines()[-1]
    assert "0 failures" in at_base and "0 failures" not in at_head, (at_base, at_head)
    result = run_ledger("diff", "HEAD", cwd=tmp_path)
    assert result.exit_code == 0, result.errors
    assert f"Gate at base: {at_base}  \nGate at head: {at_head}" in result.output, result.output[-600:]


TWO_CLAIMS = """claims:
  - id: moe-speedup-b16
    statement: {words}
    value: {value}
    unit: "×"
    kind: measured
    testbed: linux-cpu
    evidence: {{run: {run}, file: results.csv, where: {{batch: {batch}}}, column: speedup}}
    tolerance: {tolerance}
  - id: moe-speedup-doubled
    statement: {words}, doubled
    kind: extrapolated
    formula: {formula}
    inputs: {{s: moe-speedup-b16}}
    value: 7.2
    unit: "×"
"""
CLEAN = {"value": 3.59, "tolerance": "5%", "batch": 16, "run": 0}  # run 0 reads 3.6 at batch 16
LATER = RUN_TIME + timedelta(hours=1)
DEFECTS = {  # each a change that moves a verdict, at the base only (the doubled claim's input moves with each)
    "nothing but words": {},
    "a stated value": {"value": 4.5},
    "a tolerance": {"tolerance": "0.1%"},
    "the cited cell": {"batch": 1},
    "the cited run's cell": {"run": 1},  # run 1 reads 4.5 there
}


@pytest.mark.parametrize("defect", DEFECTS)
def test_a_diff_judges_again_at_the_base_each_claim_whose_verdict_inputs_differ(tmp_path, defect):
    """`ledger diff` takes the head's verdict at the base only for a claim alike at both in all it is judged on
    (judging/alike.py): every statement reworded, it is; a value, a tolerance,
    a cited cell or run, or an input claim's verdict (the doubled claim's, alike itself) differing, it is judged
    again. Either way each side's gate says what `ledger check` says at that revision."""
    runs = [
        a_run(tmp_path, SPEEDUP_ROWS, columns=SPEEDUP_KINDS),
        a_run(tmp_path, [*SPEEDUP_ROWS[:1], {"batch": 16, "speedup": 4.5}], columns=SPEEDUP_KINDS, when=LATER),
    ]
    fields = {**CLEAN, **DEFECTS[defect]}
    base = TWO_CLAIMS.format(words="MoE reads get faster", formula="2 * s", **{**fields, "run": runs[fields["run"]]})
    committed(tmp_path, {"mkdocs.yml": MKDOCS, "claims/moe.yaml": base})
    at_base = run_ledger("check", cwd=tmp_path).output.splitlines()[-1]
    head = TWO_CLAIMS.format(words="MoE expert reads get faster", formula="2 * s", **{**CLEAN, "run": runs[0]})
    write_tree(tmp_path, {"claims/moe.yaml": head})
    at_head = run_ledger("check", cwd=tmp_path).output.splitlines()[-1]
    assert "0 failures" in at_head, at_head
    assert ("0 failures" in at_base) == (defect == "nothing but words"), at_base
    assert defect == "nothing but words" or "formula-drifted" in at_base, at_base  # the input's verdict moved
    result = run_ledger("diff", "HEAD", cwd=tmp_path)
    assert result.exit_code == 0, result.errors
    assert f"Gate at base: {at_base}  \nGate at head: {at_head}" in result.output, result.output[-600:]
