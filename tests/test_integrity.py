"""Runs are immutable: every run's manifest, folder and files are verified, cited or not; git history too."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
from dataclasses import replace

from helpers import MEASURED, RUN, SPEEDUP_KINDS, SPEEDUP_ROWS, a_run, git, run_ledger, write_tree

from generator.runs import Column, columns_sha256


def ledger_with_run(tmp_path, claims: str = MEASURED):
    a_run(tmp_path, SPEEDUP_ROWS, columns=SPEEDUP_KINDS)
    write_tree(tmp_path, {"claims/moe.yaml": claims})


def edit_manifest(tmp_path, change) -> None:
    path = tmp_path / RUN / "manifest.json"
    manifest = json.loads(path.read_text())
    change(manifest)
    path.write_text(json.dumps(manifest, indent=2))


def check(tmp_path):
    return run_ledger("check", cwd=tmp_path)


def test_a_manifest_hash_that_is_a_number_is_invalid_not_a_crash(tmp_path):
    ledger_with_run(tmp_path)
    edit_manifest(tmp_path, lambda m: m["files"]["results.csv"].update(sha256=12))
    result = check(tmp_path)
    assert result.exit_code == 1 and not result.errors
    assert (
        f"claims/moe.yaml:8: moe-speedup-b16: invalid: evidence run {RUN} manifest.json "
        "files['results.csv'].sha256 is not a 64-digit hex sha256\n"
        "  fix: rerun `ledger measure toy` and point evidence.run at the new run\n"
    ) in result.output


def test_a_time_without_a_zone_is_invalid(tmp_path):
    ledger_with_run(tmp_path)
    edit_manifest(tmp_path, lambda m: m.update(finished="2026-11-29T10:00:00"))
    assert "manifest.json `finished` '2026-11-29T10:00:00' has no time zone" in check(tmp_path).output


def test_an_empty_code_list_is_invalid(tmp_path):
    ledger_with_run(tmp_path)
    edit_manifest(tmp_path, lambda m: m["probe"].update(code={}))
    output = check(tmp_path).output
    assert "probe.code is empty: no code file is hashed, so the probe could change unnoticed" in output


def test_a_probe_missing_from_its_hashed_code_is_invalid(tmp_path):
    ledger_with_run(tmp_path)
    edit_manifest(tmp_path, lambda m: m["probe"].update(code={"probes/other.py": "0" * 64}))
    assert "the probe probes/toy.py is not among the hashed code files" in check(tmp_path).output


def test_a_run_finished_in_the_future_is_invalid(tmp_path):
    ledger_with_run(tmp_path)
    edit_manifest(tmp_path, lambda m: m.update(finished="2099-01-01T00:00:00Z"))
    result = check(tmp_path)
    assert (
        f"claims/moe.yaml:8: moe-speedup-b16: invalid: run {RUN}: finished 2099-01-01T00:00:00Z is in the future\n"
    ) in result.output


def test_a_run_folder_renamed_to_another_testbed_is_invalid(tmp_path):
    ledger_with_run(tmp_path)
    moved = RUN.replace("linux-cpu", "nvidia-h200")
    os.rename(tmp_path / RUN, tmp_path / moved)
    write_tree(tmp_path, {"claims/moe.yaml": MEASURED.replace(RUN, moved)})
    assert (
        "folder 2026-11-29T10-00-00Z-nvidia-h200 does not match the manifest (started 2026-11-29T10:00:00Z, "
        "testbed linux-cpu: 2026-11-29T10-00-00Z-linux-cpu)"
    ) in check(tmp_path).output


def test_an_unlisted_file_in_a_run_is_tampered(tmp_path):
    ledger_with_run(tmp_path)
    (tmp_path / RUN / "extra.csv").write_text("a\n1\n")
    assert f"moe-speedup-b16: tampered: {RUN}/extra.csv is not listed in the manifest" in check(tmp_path).output


def test_an_uncited_run_is_verified_too_at_its_manifest(tmp_path):
    ledger_with_run(tmp_path, "claims: []\n")
    csv = tmp_path / RUN / "results.csv"
    csv.write_bytes(csv.read_bytes().replace(b"3.6", b"9.9"))
    result = check(tmp_path)
    assert result.exit_code == 1
    assert f"{RUN}/manifest.json: tampered: {RUN}/results.csv has sha256 " in result.output


def test_a_special_file_as_manifest_is_refused_without_reading_it(tmp_path):
    ledger_with_run(tmp_path)
    manifest = tmp_path / RUN / "manifest.json"
    manifest.unlink()
    os.mkfifo(manifest)  # reading it would block for ever
    result = check(tmp_path)
    assert "manifest.json is not a regular file (a FIFO, device or socket, or a link to one)" in result.output


def test_a_committed_run_rewritten_with_its_hash_is_rewritten_naming_the_commit(tmp_path):
    ledger_with_run(tmp_path)
    git(tmp_path, "init", "-q")
    git(tmp_path, "-c", "user.name=t", "-c", "user.email=t@t", "add", ".")
    git(tmp_path, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "measure toy")
    assert check(tmp_path).exit_code == 0
    csv = tmp_path / RUN / "results.csv"
    data = csv.read_bytes().replace(b"3.6", b"3.59")
    csv.write_bytes(data)
    edit_manifest(tmp_path, lambda m: m["files"]["results.csv"].update(sha256=hashlib.sha256(data).hexdigest()))
    result = check(tmp_path)
    assert result.exit_code == 1
    commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=tmp_path, capture_output=True, text=True).stdout[:12]
    assert (
        f"claims/moe.yaml:8: moe-speedup-b16: rewritten: {RUN}: manifest.json, results.csv differ from commit "
        f"{commit} (measure toy), the commit that first added them (runs are immutable)\n"
        f"  fix: restore them (`git checkout {commit} -- {RUN}`), or rerun `ledger measure toy` and point "
        "evidence.run at the new run\n"
    ) in result.output


def test_a_new_uncommitted_run_passes_and_outside_git_history_is_said_once(tmp_path):
    ledger_with_run(tmp_path)
    result = check(tmp_path)
    assert result.exit_code == 0
    assert result.output.count("run history not checked: not a git repository") == 1


def test_ledger_diff_flags_a_rewritten_run_first(tmp_path):
    ledger_with_run(tmp_path)
    git(tmp_path, "init", "-q")
    git(tmp_path, "add", ".")
    git(tmp_path, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "measure toy")
    csv = tmp_path / RUN / "results.csv"
    data = csv.read_bytes().replace(b"3.6", b"3.59")
    csv.write_bytes(data)
    edit_manifest(tmp_path, lambda m: m["files"]["results.csv"].update(sha256=hashlib.sha256(data).hexdigest()))
    result = run_ledger("diff", "HEAD", cwd=tmp_path)
    flags = [line for line in result.output.splitlines() if line.startswith("| ") and "---" not in line][1:]
    assert flags[0] == (
        f"| run rewritten | `{RUN}` | manifest.json differs; results.csv differs since the base (runs are immutable) |  |"
    )


def test_a_figure_refuses_a_run_that_is_not_intact():
    import pytest

    from generator.inputs.config import DEFAULTS
    from generator.lang.rows import Table
    from generator.records import FileChange, Report, Run, RunState, Source
    from generator.site.figure_api import Data, FigureError
    from generator.trust import verdicts

    run = Run(RUN, Source(RUN + "/manifest.json", 0), probe="probes/toy.py", testbed="linux-cpu")
    run = replace(run, tables={"results.csv": Table(("a",), (("1",),))})
    state = RunState(changed_files=(FileChange("results.csv", "hash", "abc", "def"),))
    state = replace(state, reasons=verdicts.reasons(state))
    report = Report(claims=(), runs={RUN: run}, findings=(), verdicts={}, policy=DEFAULTS, run_states={RUN: state})
    with pytest.raises(FigureError, match=f"run {RUN} is tampered: results.csv has sha256 abc…"):
        Data(report).frame("toy")


def test_a_shallow_clone_says_once_that_run_history_was_not_checked(tmp_path):
    origin = tmp_path / "origin"
    origin.mkdir()
    ledger_with_run(origin)
    git(origin, "init", "-q")
    git(origin, "add", ".")
    git(origin, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "measure toy")
    git(tmp_path, "clone", "-q", "--depth", "1", f"file://{origin}", "clone")
    result = check(tmp_path / "clone")
    assert result.exit_code == 0
    assert result.output.endswith(
        "— 0 failures — run history not checked: a shallow clone (fetch full history: `git fetch --unshallow`)\n"
    )


DECLARED = {"batch": Column("", "exact"), "speedup": Column("×", "timed")}


def test_a_declaration_edited_in_the_manifest_alone_is_tampered(tmp_path):
    a_run(tmp_path, SPEEDUP_ROWS, columns=DECLARED)
    write_tree(tmp_path, {"claims/moe.yaml": MEASURED})
    assert check(tmp_path).exit_code == 0
    edit_manifest(tmp_path, lambda m: m["columns"]["results.csv"]["speedup"].update(unit="%"))
    result = check(tmp_path)
    assert result.exit_code == 1
    assert (
        f"claims/moe.yaml:8: moe-speedup-b16: tampered: {RUN}/manifest.json column declarations have sha256 "
    ) in result.output
    assert f"its columns_sha256 says {columns_sha256({'results.csv': DECLARED})[:12]}…\n" in result.output
    assert f"  fix: restore it (`git checkout -- {RUN}/manifest.json`) or rerun `ledger measure toy`" in result.output


def test_a_committed_declaration_edited_with_its_hash_is_rewritten(tmp_path):
    a_run(tmp_path, SPEEDUP_ROWS, columns=DECLARED)
    write_tree(tmp_path, {"claims/moe.yaml": MEASURED})
    git(tmp_path, "init", "-q")
    git(tmp_path, "-c", "user.name=t", "-c", "user.email=t@t", "add", ".")
    git(tmp_path, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "measure toy")
    edited = {"results.csv": {**DECLARED, "speedup": Column("%", "timed")}}

    def change(manifest):
        manifest["columns"]["results.csv"]["speedup"]["unit"] = "%"
        manifest["columns_sha256"] = columns_sha256(edited)

    edit_manifest(tmp_path, change)
    output = check(tmp_path).output
    assert f"rewritten: {RUN}: manifest.json differ from commit" in output and "tampered" not in output


def test_an_uncited_run_with_an_edited_declaration_is_tampered_at_its_manifest(tmp_path):
    a_run(tmp_path, SPEEDUP_ROWS, columns=DECLARED)
    write_tree(tmp_path, {"claims/moe.yaml": "claims: []\n"})
    edit_manifest(tmp_path, lambda m: m["columns"]["results.csv"]["batch"].update(kind="timed"))
    result = check(tmp_path)
    assert result.exit_code == 1
    assert f"{RUN}/manifest.json: tampered: {RUN}/manifest.json column declarations have sha256" in result.output


EXPORT = b'{"results": [{"command": "toy", "times": [0.5, 0.6]}]}\n'  # a tool's export, kept in the run


def ledger_with_export(tmp_path, claims: str = MEASURED) -> None:
    """The toy run with a tool's export attached, as `ledger measure` writes a tool probe's run."""
    a_run(tmp_path, SPEEDUP_ROWS, columns=SPEEDUP_KINDS, attachments={"hyperfine.json": EXPORT})
    write_tree(tmp_path, {"claims/moe.yaml": claims})


def test_a_changed_byte_in_an_attached_export_makes_its_claims_tampered(tmp_path):
    ledger_with_export(tmp_path)
    assert check(tmp_path).exit_code == 0
    (tmp_path / RUN / "hyperfine.json").write_bytes(EXPORT.replace(b"0.6", b"0.4"))
    result = check(tmp_path)
    assert result.exit_code == 1
    assert (
        f"claims/moe.yaml:8: moe-speedup-b16: tampered: {RUN}/hyperfine.json has sha256 "
        f"{hashlib.sha256(EXPORT.replace(b'0.6', b'0.4')).hexdigest()[:12]}…, the manifest says "
        f"{hashlib.sha256(EXPORT).hexdigest()[:12]}…\n"
    ) in result.output


def test_a_missing_export_of_an_uncited_run_is_tampered_at_its_manifest(tmp_path):
    ledger_with_export(tmp_path, "claims: []\n")
    (tmp_path / RUN / "hyperfine.json").unlink()
    result = check(tmp_path)
    assert result.exit_code == 1 and f"{RUN}/manifest.json: tampered: {RUN}/hyperfine.json is missing" in result.output


def test_a_committed_export_rewritten_with_its_hash_is_rewritten(tmp_path):
    ledger_with_export(tmp_path)
    git(tmp_path, "init", "-q")
    git(tmp_path, "-c", "user.name=t", "-c", "user.email=t@t", "add", ".")
    git(tmp_path, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "measure toy")
    edited = EXPORT.replace(b"0.6", b"0.4")
    (tmp_path / RUN / "hyperfine.json").write_bytes(edited)
    edit_manifest(
        tmp_path, lambda m: m["attachments"]["hyperfine.json"].update(sha256=hashlib.sha256(edited).hexdigest())
    )
    output = check(tmp_path).output
    assert f"rewritten: {RUN}: hyperfine.json, manifest.json differ from commit" in output and "tampered" not in output


def test_the_run_page_lists_the_export_with_its_hash_and_says_the_tables_were_made_from_it(tmp_path):
    ledger_with_export(tmp_path)
    assert run_ledger("pages", "out", cwd=tmp_path).exit_code == 0
    (page,) = (tmp_path / "out/run/toy").glob("*.md")
    text = page.read_text()
    export = text.index("<code>hyperfine.json</code>")
    assert "hash matches" in text[export : text.index("<code>results.csv</code>")]
    assert "The benchmark tool's own export, kept as the tool wrote it: the run's tables were made from it." in text
