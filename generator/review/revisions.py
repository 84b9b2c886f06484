"""Revisions stage: a git revision name -> a Revision: its commit, the gate's Report on the files it
holds (with the runs' history read from that commit, as a checkout of it would), and the bytes of its
runs' files (blob ids), which review compares across the pull request.

The files are copied out of git's object store (ls-tree, cat-file) into a temporary folder and the
gate runs there; nothing is ever checked out over the user's working tree. Replace objects are ignored.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path, PurePosixPath

import yaml

from ..gate import check
from ..inputs import gitlog, load, mkdocs_yml
from ..inputs.config import DEFAULTS, read_policy
from ..inputs.hashcache import files_under
from ..inputs.mkdocs_yml import Composed
from ..records import LedgerError, Report
from ..runs import linked_part

NO_CONFIG = Composed({}, (), ())  # a revision without the configuration file


@dataclass(frozen=True, slots=True)
class Revision:
    name: str  # as the user gave it ("main", "HEAD~1"); "" for the working tree
    commit: str  # the full commit id; "" for the working tree
    report: Report
    run_blobs: Mapping[str, Mapping[str, str]] = field(default_factory=dict)  # run -> file -> git blob id
    config: Composed = NO_CONFIG  # its mkdocs.yml with what it inherits, as MkDocs composes it

    @property
    def label(self) -> str:
        if not self.commit:
            return "working tree"
        short = self.commit[:12]
        return short if self.commit.startswith(self.name) else f"{self.name} ({short})"


def at_revision(root: Path, name: str, config: str, now: datetime) -> Revision:
    """The gate's report on the files one git revision holds under root (copied to a temporary folder),
    with the runs' history read from that revision, as `ledger check` reads it on a checkout of it."""
    commit = resolve(root, name)
    with tempfile.TemporaryDirectory(prefix="ledger-diff-") as folder:
        tree = Path(folder)
        blobs = copy_revision(root, commit, tree)
        try:
            policy = read_policy(tree / config) if (tree / config).is_file() else DEFAULTS
            past = gitlog.read(root, policy.measurements_dir, commit)
            report = check(tree, policy, now, past=past)
        except LedgerError as error:
            raise LedgerError(f"at {name}: {error}") from None
        composed = configuration(tree / config)
    return Revision(name, commit, report, run_blobs(blobs, policy.measurements_dir), composed)


def working_tree(root: Path, report: Report, config: Path) -> Revision:
    """The working tree as a Revision: its runs' files hashed as git would store them."""
    files: dict[str, str] = {}
    base = root / report.policy.measurements_dir
    for path in sorted(files_under(base)) if base.is_dir() else []:
        try:
            files[path.relative_to(root).as_posix()] = load.blob_id(load.read_capped(path, load.MAX_DATA_BYTES))
        except load.Unreadable as problem:
            files[path.relative_to(root).as_posix()] = f"unreadable: {problem}"
    return Revision("", "", report, run_blobs(files, report.policy.measurements_dir), configuration(config))


def configuration(config: Path) -> Composed:
    """A revision's configuration as MkDocs composes it (the files it inherits merged in): none where it has
    no such file, one setting saying why where it cannot be read (a review shows it as changed code)."""
    if not config.is_file():
        return NO_CONFIG
    try:
        return mkdocs_yml.composed(config) or NO_CONFIG
    except mkdocs_yml.Malformed as problem:
        said = yaml.ScalarNode("tag:yaml.org,2002:str", str(problem)[:200])
        return Composed({f"(unreadable {config.name})": said}, (config.name,), ())


def run_blobs(files: Mapping[str, str], measurements_dir: str) -> dict[str, dict[str, str]]:
    """measurements/<probe>/<run>/<file> -> blob, grouped as run folder -> file -> blob."""
    runs: dict[str, dict[str, str]] = {}
    prefix = measurements_dir.strip("/") + "/"
    for path, blob in files.items():
        if not path.startswith(prefix):
            continue
        parts = path[len(prefix) :].split("/")
        if len(parts) >= 3:
            runs.setdefault(prefix + "/".join(parts[:2]), {})["/".join(parts[2:])] = blob
    return runs


def config_path(root: Path, config: Path | None) -> str:
    """The policy file, relative to root, that each revision is read with (default mkdocs.yml)."""
    if config is None:
        return "mkdocs.yml"
    try:
        return config.resolve().relative_to(root).as_posix()
    except ValueError:
        raise LedgerError(f"diff: --config {config} must be inside {root}, so each revision has its own") from None


def resolve(root: Path, name: str) -> str:
    """The full commit id a revision name stands for; LedgerError when git does not know it."""
    if not root.is_dir():
        raise LedgerError(f"diff: {root} is not a folder")
    inside = _git(root, "rev-parse", "--is-inside-work-tree")
    if inside.returncode != 0:
        raise LedgerError(
            f"diff: {root} is not in a git repository ({_first_line(inside.stderr)}); "
            "`ledger diff` compares git revisions"
        )
    found = _git(root, "rev-parse", "--verify", "--quiet", "--end-of-options", f"{name}^{{commit}}")
    if name.startswith("-") or found.returncode != 0:
        raise LedgerError(
            f"diff: unknown revision {name!r}: no such branch, tag or commit here "
            "(in CI, check out the whole history: fetch-depth: 0)"
        )
    return found.stdout.decode().strip()


def copy_revision(root: Path, commit: str, dest: Path) -> dict[str, str]:
    """Write every file that commit holds under root into dest, read from git's object store; returns
    each file's path and blob id."""
    listing = _git(root, "ls-tree", "-r", "-z", commit, "--", ".")
    if listing.returncode != 0:
        raise LedgerError(f"diff: git ls-tree {commit}: {_first_line(listing.stderr)}")
    entries = []  # (mode, object id, path)
    for record in listing.stdout.split(b"\0"):
        if not record:
            continue
        meta, _, path = record.partition(b"\t")
        mode, kind, object_id = meta.split(b" ")
        parts = PurePosixPath(os.fsdecode(path)).parts
        if (
            kind == b"blob"
            and parts
            and not any(p in ("", ".", "..", ".git") or "/" in p for p in parts)
            and not path.startswith(b"/")
        ):
            entries.append((mode, object_id, Path(*parts)))
    if not entries:
        return {}
    batch = _git(root, "cat-file", "--batch", input=b"".join(oid + b"\n" for _, oid, _ in entries))
    if batch.returncode != 0:
        raise LedgerError(f"diff: git cat-file: {_first_line(batch.stderr)}")
    data, offset = batch.stdout, 0
    blobs = {}
    for mode, object_id, relative in entries:
        end = data.index(b"\n", offset)
        header = data[offset:end].split(b" ")
        if len(header) != 3:
            raise LedgerError(f"diff: git has no object {object_id.decode()} for {relative}")
        size = int(header[2])
        content = data[end + 1 : end + 1 + size]
        offset = end + 1 + size + 1
        target = dest / relative
        if linked_part(dest, target) is not None:  # a crafted tree: a file below one of its own links
            raise LedgerError(f"diff: {relative} lies below a link in the same tree; git would not check it out")
        target.parent.mkdir(parents=True, exist_ok=True)
        if mode == b"120000":
            os.symlink(os.fsdecode(content), target)
        else:
            target.write_bytes(content)
        blobs[relative.as_posix()] = object_id.decode()
    return blobs


def changed_files(root: Path, base: str, head: str) -> list[str]:
    """Paths (relative to root) that differ between two commits, or between a commit and the working
    tree (head ""), untracked files included."""
    args = ["diff", "--name-only", "-z", "--no-renames", "--relative", base, *([head] if head else []), "--", "."]
    found = _git(root, *args)
    if found.returncode != 0:
        raise LedgerError(f"diff: git diff: {_first_line(found.stderr)}")
    paths = [os.fsdecode(p) for p in found.stdout.split(b"\0") if p]
    if not head:
        untracked = _git(root, "ls-files", "--others", "--exclude-standard", "-z", "--", ".")
        paths += [os.fsdecode(p) for p in untracked.stdout.split(b"\0") if p]
    return sorted(set(paths))


def _git(root: Path, *args: str, input: bytes | None = None) -> subprocess.CompletedProcess:
    try:
        return subprocess.run(
            ["git", *gitlog.GIT_OPTIONS, "-c", "core.quotePath=false", *args],
            cwd=root,
            input=input,
            capture_output=True,
            env={**os.environ, **gitlog.SUBSTITUTES_OFF},
        )
    except FileNotFoundError:
        raise LedgerError("diff: git is not installed (or not on PATH)") from None


def _first_line(stderr: bytes) -> str:
    lines = stderr.decode(errors="replace").strip().splitlines()
    return lines[0] if lines else "no message from git"
