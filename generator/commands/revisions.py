"""Revisions stage: a git revision name -> a Revision: its commit and the gate's Report on the files it holds.

The files are copied out of git's object store (ls-tree, cat-file) into a temporary folder and the
gate runs there; nothing is ever checked out over the user's working tree.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path, PurePosixPath

from ..config import read_policy
from ..gate import check
from ..records import LedgerError, Policy, Report


@dataclass(frozen=True)
class Revision:
    name: str  # as the user gave it ("main", "HEAD~1"); "" for the working tree
    commit: str  # the full commit id; "" for the working tree
    report: Report

    @property
    def label(self) -> str:
        if not self.commit:
            return "working tree"
        short = self.commit[:12]
        return short if self.commit.startswith(self.name) else f"{self.name} ({short})"


def at_revision(root: Path, name: str, config: str, now: datetime) -> Revision:
    """The gate's report on the files one git revision holds under root (copied to a temporary folder)."""
    commit = resolve(root, name)
    with tempfile.TemporaryDirectory(prefix="ledger-diff-") as folder:
        tree = Path(folder)
        copy_revision(root, commit, tree)
        try:
            policy = read_policy(tree / config) if (tree / config).is_file() else Policy()
            report = check(tree, policy, now)
        except LedgerError as error:
            raise LedgerError(f"at {name}: {error}") from None
    return Revision(name, commit, report)


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


def copy_revision(root: Path, commit: str, dest: Path) -> None:
    """Write every file that commit holds under root into dest, read from git's object store."""
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
        return
    batch = _git(root, "cat-file", "--batch", input=b"".join(oid + b"\n" for _, oid, _ in entries))
    if batch.returncode != 0:
        raise LedgerError(f"diff: git cat-file: {_first_line(batch.stderr)}")
    data, offset = batch.stdout, 0
    for mode, object_id, relative in entries:
        end = data.index(b"\n", offset)
        header = data[offset:end].split(b" ")
        if len(header) != 3:
            raise LedgerError(f"diff: git has no object {object_id.decode()} for {relative}")
        size = int(header[2])
        content = data[end + 1 : end + 1 + size]
        offset = end + 1 + size + 1
        target = dest / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        if mode == b"120000":
            os.symlink(os.fsdecode(content), target)
        else:
            target.write_bytes(content)


def _git(root: Path, *args: str, input: bytes | None = None) -> subprocess.CompletedProcess:
    try:
        return subprocess.run(["git", *args], cwd=root, input=input, capture_output=True)
    except FileNotFoundError:
        raise LedgerError("diff: git is not installed (or not on PATH)") from None


def _first_line(stderr: bytes) -> str:
    lines = stderr.decode(errors="replace").strip().splitlines()
    return lines[0] if lines else "no message from git"
