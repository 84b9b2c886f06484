"""Each verb composes mkdocs.yml once and hands it down: its reads counted through the entry point, in a
real project, by an audit hook on every file the process opens (the mkdocs.yml of each `ledger diff`
revision is that revision's own, read once too)."""

import ast
import shutil

import pytest
from helpers import git, init_project, run_python

# The entry point under an audit hook ("open": builtin open and os.open alike) that lists every mkdocs.yml
# opened for reading, printed last on stderr.
COUNTED = """
import os, sys

read = []


def opened(event, args):
    if event != "open" or not isinstance(args[0], (str, bytes, os.PathLike)):
        return
    path, mode, flags = os.fsdecode(args[0]), args[1], args[2]
    writes = any(c in mode for c in "wax+") if isinstance(mode, str) else flags & (os.O_WRONLY | os.O_RDWR)
    if os.path.basename(path) == "mkdocs.yml" and not writes:
        read.append(path)


sys.addaudithook(opened)
from generator.cli import main

status = main(sys.argv[1:])
print(f"READS {read!r}", file=sys.stderr)
sys.exit(status)
"""


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    """A `ledger init` project, committed, and the counting script beside it."""
    root = init_project(tmp_path_factory)
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "the project")
    (root.parent / "counted.py").write_text(COUNTED)
    return root


def reads(root, *args, cwd=None):
    """The mkdocs.yml files one `ledger ARGS` opened for reading, in order, with no check cache (cold)."""
    shutil.rmtree(root / ".cache/ledger", ignore_errors=True)
    done = run_python(root.parent / "counted.py", *args, cwd=cwd or root)
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("READS "), done.stdout + done.stderr
    return ast.literal_eval(last.removeprefix("READS "))


def test_a_cold_ledger_check_reads_mkdocs_yml_once(project):
    read = reads(project, "check")
    assert (project / ".cache/ledger/check.json").is_file()  # it was the cold path: it wrote the cache
    assert read == [str(project.resolve() / "mkdocs.yml")]


def test_a_warm_ledger_check_reads_it_not_at_all(project):
    done = run_python(project.parent / "counted.py", "check", cwd=project)
    assert done.returncode == 0, done.stdout + done.stderr
    again = run_python(project.parent / "counted.py", "check", cwd=project)
    assert again.stderr.strip().splitlines()[-1] == "READS []"


def test_from_a_folder_inside_the_project_the_one_read_finds_it_too(project):
    assert reads(project, "check", cwd=project / "docs") == [str(project.resolve() / "mkdocs.yml")]


@pytest.mark.parametrize(
    "args",
    [
        ("check", "--no-cache"),
        ("show", "sha256-1mib-throughput"),
        ("history", "sha256-1mib-throughput"),
        ("accept", "--dry-run", "sha256-1mib-throughput"),
        ("refresh",),
        ("measure", "--matrix", "all"),
        ("pages", "../built-docs"),
        ("verify-site", "docs"),  # not a site (no HTML page: it fails), but read as one
    ],
    ids=lambda args: " ".join(args),
)
def test_every_verb_reads_it_once(project, args):
    assert reads(project, *args) == [str(project.resolve() / "mkdocs.yml")]


def test_ledger_coverage_reads_it_twice_while_its_code_is_hashed_into_a_committed_run(project):
    """generator/commands/coverage.py is code the committed coverage run hashes: edited, that run's claims turn
    probe-changed. Until it is measured again it reads the policy itself, after the entry point's read."""
    assert reads(project, "coverage", "hashing") == [str(project.resolve() / "mkdocs.yml")] * 2


def test_ledger_diff_reads_the_working_trees_once_and_each_revisions_once(project):
    against_head = reads(project, "diff", "HEAD")
    assert against_head[0] == str(project.resolve() / "mkdocs.yml") and len(against_head) == 2
    two_revisions = reads(project, "diff", "HEAD", "HEAD")  # the working tree's: only to find the ledger
    assert len(two_revisions) == 3 and len(set(two_revisions)) == 3, two_revisions
    assert all(path.startswith(str(project.resolve())) is (n == 0) for n, path in enumerate(two_revisions))


def test_the_count_sees_a_read(tmp_path, project):
    """The hook counts what a verb opens: one more read of the file before the verb is one more counted."""
    script = tmp_path / "once_more.py"
    script.write_text(
        COUNTED.replace(
            "status = main(sys.argv[1:])",
            "from pathlib import Path\nPath('mkdocs.yml').read_text()\nstatus = main(sys.argv[1:])",
        )
    )
    done = run_python(script, "check", "--no-cache", cwd=project)
    counted = ast.literal_eval(done.stderr.strip().splitlines()[-1].removeprefix("READS "))
    assert len(counted) == len(reads(project, "check", "--no-cache")) + 1, done.stderr


def test_ledger_init_reads_the_configuration_it_wrote_once(tmp_path, project):
    """For the example's measurement and the gate after it (the package's template it copies aside)."""
    done = run_python(project.parent / "counted.py", "init", "fresh", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    read = ast.literal_eval(done.stderr.strip().splitlines()[-1].removeprefix("READS "))
    assert [path for path in read if "template" not in path] == [str(tmp_path.resolve() / "fresh/mkdocs.yml")]
