"""Runs are immutable against history tricks: history read by first parent (merges included), in
topological order, as bytes, without replace objects; linked or misnamed run folders refused; history
that cannot be read fails when required; a tracked cache and a converting .gitattributes are named."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess

from helpers import MEASURED, RUN, SPEEDUP_ROWS, a_run, git, run_ledger, write_tree

from generator.inputs import attributes
from generator.inputs.gitlog import parse_log
from generator.runs import code_hash

IDENTITY = ["-c", "user.name=t", "-c", "user.email=t@t"]


def committed_ledger(root):
    a_run(root, SPEEDUP_ROWS)
    write_tree(root, {"claims/moe.yaml": MEASURED})
    git(root, "init", "-q", "-b", "main")
    git(root, "add", ".")
    git(root, "commit", "-qm", "measure toy")
    return git(root, "rev-parse", "HEAD")


def rewrite(root, run=RUN, old=b"3.6", new=b"3.59", name="results.csv"):
    """Change a run file's bytes and its manifest's hash, as a careful rewriter would."""
    path = root / run / name
    data = path.read_bytes().replace(old, new)
    path.write_bytes(data)
    manifest = root / run / "manifest.json"
    fields = json.loads(manifest.read_text())
    fields["files"][name]["sha256"] = hashlib.sha256(data).hexdigest()
    manifest.write_text(json.dumps(fields, indent=2))


def test_a_side_branch_dated_earlier_cannot_back_date_a_run(tmp_path):
    first = committed_ledger(tmp_path)
    # A branch from before the run, dated years earlier, adds the same run with other bytes...
    git(tmp_path, "checkout", "-q", "-b", "side", f"{first}~0")
    git(tmp_path, "checkout", "-q", "--orphan", "old")
    rewrite(tmp_path)
    git(tmp_path, "add", ".")
    old = {"GIT_AUTHOR_DATE": "2001-01-01T00:00:00Z", "GIT_COMMITTER_DATE": "2001-01-01T00:00:00Z"}
    git(tmp_path, "commit", "-qm", "the same run, earlier", env=old)
    # ...and is merged into main, keeping its bytes: the merge is main's first change to the run.
    git(tmp_path, "checkout", "-q", "main")
    git(tmp_path, "merge", "-q", "--allow-unrelated-histories", "-s", "ours", "--no-commit", "old")
    git(tmp_path, "checkout", "old", "--", RUN)
    git(tmp_path, "commit", "-qm", "merge the earlier run")
    result = run_ledger("check", cwd=tmp_path)
    assert result.exit_code == 1
    assert f"differ from commit {first[:12]} (measure toy), the commit that first added them" in result.output


def test_a_replace_object_cannot_swap_the_commit_that_added_a_run(tmp_path):
    first = committed_ledger(tmp_path)
    rewrite(tmp_path)
    git(tmp_path, "add", ".")
    tree = git(tmp_path, "write-tree")
    forged = git(tmp_path, "commit-tree", tree, "-m", "measure toy")
    git(tmp_path, "replace", first, forged)
    git(tmp_path, "reset", "-q", "--hard")
    result = run_ledger("check", cwd=tmp_path)
    assert result.exit_code == 1
    assert "rewritten: " in result.output and f"commit {first[:12]}" in result.output


def test_a_non_ascii_file_name_is_compared_as_stored_not_quoted(tmp_path):
    a_run(tmp_path, SPEEDUP_ROWS, columns={})  # no declarations, which name the file: it is renamed below
    write_tree(tmp_path, {"claims/moe.yaml": MEASURED})
    csv, manifest = tmp_path / RUN / "results.csv", tmp_path / RUN / "manifest.json"
    os.rename(csv, tmp_path / RUN / "résultats.csv")
    fields = json.loads(manifest.read_text())
    fields["files"]["résultats.csv"] = fields["files"].pop("results.csv")
    manifest.write_text(json.dumps(fields, indent=2))
    write_tree(tmp_path, {"claims/moe.yaml": MEASURED.replace("file: results.csv", "file: résultats.csv")})
    git(tmp_path, "init", "-q", "-b", "main")
    git(tmp_path, "add", ".")
    git(tmp_path, "commit", "-qm", "measure toy")
    assert run_ledger("check", cwd=tmp_path).exit_code == 0
    rewrite(tmp_path, name="résultats.csv")
    result = run_ledger("check", cwd=tmp_path)
    assert result.exit_code == 1
    assert "manifest.json, résultats.csv differ from commit" in result.output


def test_a_subject_that_is_not_utf8_is_read_leniently():
    log = (
        b"\0"
        + b"a" * 40
        + b" measure \xff\xfe toy\0\n:000000 100644 "
        + b"0" * 40
        + b" "
        + b"b" * 40
        + b" A\0m/x.csv\0"
    )
    assert parse_log(log) == {"m/x.csv": ("b" * 40, "aaaaaaaaaaaa", "measure \ufffd\ufffd toy")}


def test_a_commit_subject_in_latin1_does_not_crash_the_gate(tmp_path):
    committed_ledger(tmp_path)
    (tmp_path / "note.txt").write_text("x")
    git(tmp_path, "add", ".")
    subprocess.run(["git", *IDENTITY, "commit", "-q", "-F", "-"], cwd=tmp_path, input=b"caf\xe9\n", check=True)
    rewrite(tmp_path)
    result = run_ledger("check", cwd=tmp_path)
    assert result.exit_code == 1 and "Traceback" not in result.errors


def test_a_linked_run_folder_is_invalid(tmp_path):
    committed_ledger(tmp_path)
    real = tmp_path / "elsewhere"
    os.rename(tmp_path / RUN, real)
    os.symlink(real, tmp_path / RUN)
    result = run_ledger("check", cwd=tmp_path)
    assert result.exit_code == 1
    assert f"evidence run {RUN} is a link: a run folder is committed as it is, never linked" in result.output


def test_a_linked_measurements_folder_is_invalid(tmp_path):
    committed_ledger(tmp_path)
    os.rename(tmp_path / "measurements", tmp_path / "kept")
    os.symlink(tmp_path / "kept", tmp_path / "measurements")
    result = run_ledger("check", cwd=tmp_path)
    assert result.exit_code == 1
    assert (
        "measurements: invalid: the measurements folder is a link: the gate would read the files it points to, "
        "not the ones git holds"
    ) in result.output


def test_a_run_folder_not_named_as_runs_are_written_is_invalid(tmp_path):
    a_run(tmp_path, SPEEDUP_ROWS, testbed="linux-cpu")
    write_tree(tmp_path, {"claims/none.yaml": "claims: []\n"})
    bad = "measurements/toy/2026-11-29T10-00-00Z-lіnux-cpu"  # a Cyrillic і, in the folder and the manifest
    os.rename(tmp_path / RUN, tmp_path / bad)
    manifest = tmp_path / bad / "manifest.json"
    manifest.write_text(manifest.read_text().replace('"linux-cpu"', '"lіnux-cpu"'))
    os.makedirs(tmp_path / "measurements/toy/latest")
    result = run_ledger("check", cwd=tmp_path)
    assert result.exit_code == 1
    assert "`testbed` 'lіnux-cpu' is not lower-kebab-case ASCII" in result.output
    assert "folder 'latest' is not named <UTC start>-<testbed> as runs are written" in result.output


def test_history_that_cannot_be_read_fails_when_required(tmp_path):
    origin = tmp_path / "origin"
    origin.mkdir()
    committed_ledger(origin)
    subprocess.run(["git", "clone", "-q", "--depth", "1", f"file://{origin}", str(tmp_path / "clone")], check=True)
    assert run_ledger("check", cwd=tmp_path / "clone").exit_code == 0  # a note, without the flag
    result = run_ledger("check", "--require-history", cwd=tmp_path / "clone")
    assert result.exit_code == 1
    assert (
        ".git: unverified-history: run history cannot be read (a shallow clone (fetch full history: "
        "`git fetch --unshallow`)), so a rewritten run would pass"
    ) in result.output
    a_run(tmp_path / "plain", SPEEDUP_ROWS)
    write_tree(tmp_path / "plain", {"claims/moe.yaml": MEASURED})
    assert "unverified-history: run history cannot be read (not a git repository)" in (
        run_ledger("check", "--require-history", cwd=tmp_path / "plain").output
    )


def test_a_tracked_cache_is_invalid(tmp_path):
    committed_ledger(tmp_path)
    write_tree(tmp_path, {".cache/ledger/svg/x.svg": "<svg>3.7×</svg>"})
    git(tmp_path, "add", "-f", ".cache")
    result = run_ledger("check", cwd=tmp_path)
    assert result.exit_code == 1
    assert ".cache/ledger/svg/x.svg: invalid: 1 file under .cache/ tracked by git" in result.output


def test_a_gitattributes_rule_that_converts_runs_is_named_at_its_line(tmp_path):
    committed_ledger(tmp_path)
    write_tree(tmp_path, {".gitattributes": "measurements/** -text\n*.py text\n[attr]lfs filter=lfs\n*.csv lfs\n"})
    result = run_ledger("check", cwd=tmp_path)
    assert result.exit_code == 1
    assert (
        f".gitattributes:4: invalid: `*.csv lfs` sets filter on {RUN}/results.csv: git would convert the bytes "
        "of runs on checkout"
    ) in result.output
    write_tree(tmp_path, {"measurements/.gitattributes": "* text=auto\n"})
    result = run_ledger("check", cwd=tmp_path)
    assert f"measurements/.gitattributes:1: invalid: `* text=auto` sets text on {RUN}/manifest.json" in result.output


def rules(text, folder=""):
    return attributes.parse(".gitattributes", folder, text, top=True)


def test_gitattributes_matching_follows_git():
    paths = ["measurements/toy/r/results.csv", "measurements/toy/r/manifest.json", "docs/a.csv"]
    cases = [
        ("*.csv text", [("text", "measurements/toy/r/results.csv")]),
        ("/*.csv text", []),  # anchored to the file's folder
        ("measurements/** eol=crlf", [("eol", "measurements/toy/r/results.csv")]),
        ("measurements/** eol=crlf\nmeasurements/** -text", []),  # a later line wins; eol needs text
        ("* text\n*.csv binary", [("text", "measurements/toy/r/manifest.json")]),
        ("**/r/*.json ident", [("ident", "measurements/toy/r/manifest.json")]),
        ("m*/** working-tree-encoding=UTF-16", [("working-tree-encoding", "measurements/toy/r/results.csv")]),
        ("!*.csv text\nmeasurements/ text", []),  # negation is ignored; a folder pattern matches no file inside
    ]
    for text, expected in cases:
        found = [(name, path) for _, name, path in attributes.converting(rules(text), paths[:2])]
        assert found == expected, text


def test_a_run_whose_code_is_not_a_tracked_file_of_the_probes_is_invalid(tmp_path):
    committed_ledger(tmp_path)
    secret = tmp_path / "secret.txt"
    secret.write_text("not code\n")
    os.symlink(secret, tmp_path / "probes/linked.py")
    write_tree(tmp_path, {"probes/untracked.py": "print('later')\n", "notes/other.py": "x = 1\n"})
    digest = hashlib.sha256(b"x").hexdigest()
    manifest = tmp_path / RUN / "manifest.json"
    fields = json.loads(manifest.read_text())
    for path in (".git/config", "../outside.py", "probes/linked.py", "probes/untracked.py", "notes/other.py"):
        fields["probe"]["code"][path] = digest
    fields["probe"]["sha256"] = code_hash(fields["probe"]["code"])  # the probe version these files name
    manifest.write_text(json.dumps(fields, indent=2))
    result = run_ledger("check", cwd=tmp_path)
    assert result.exit_code == 1
    for why in (
        "code file .git/config is under .git/, which git does not version",
        "code file ../outside.py is outside the repository",
        "code file probes/linked.py is reached through a link",
        "code file probes/untracked.py is not tracked by git, so review cannot see the code that measured it",
        "code file notes/other.py is not in probes/, the timing module or the probe's declared `code:`",
    ):
        assert why in result.output, why
