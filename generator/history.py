"""Run history: git -> the blob each committed run file had when first added; runs -> rewritten files.

read() asks git twice for the whole measurements folder (never once per file), so a ledger of
hundreds of runs stays fast; rewritten() is pure. Outside a git work tree, or in a shallow clone,
history is not checked and the Report says so once.
"""

from __future__ import annotations

import subprocess
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from .records import Run

CHECKED = "checked"


@dataclass(frozen=True)
class History:
    status: str  # "checked", or why history was not checked
    first_added: Mapping[str, tuple[str, str]] = field(default_factory=dict)  # path -> (blob sha1, commit)


def read(root: Path, measurements_dir: str) -> History:
    """The first-added blob of every committed file under measurements/ (two git calls)."""
    if not (root / measurements_dir).is_dir():
        return History("no runs")
    try:
        state = _git(root, "rev-parse", "--is-inside-work-tree", "--is-shallow-repository").split()
    except (OSError, subprocess.SubprocessError):
        return History("not checked: not a git repository")
    if state[:1] != ["true"]:
        return History("not checked: not a git work tree")
    if state[1:2] == ["true"]:
        return History("not checked: a shallow clone (fetch full history: `git fetch --unshallow`)")
    try:
        log = _git(
            root,
            "log",
            "--reverse",
            "--diff-filter=A",
            "--no-renames",
            "--raw",
            "--no-abbrev",
            "--relative",
            "--format=%x00%H %s",
            "--",
            measurements_dir,
        )
    except (OSError, subprocess.SubprocessError):
        return History("not checked: git log failed")
    first: dict[str, tuple[str, str]] = {}
    commit = ""
    for line in log.splitlines():
        if line.startswith("\0"):
            full, _, subject = line[1:].strip().partition(" ")
            subject = subject if len(subject) <= 50 else subject[:49] + "…"
            commit = f"commit {full[:12]} ({subject})"
        elif line.startswith(":"):
            meta, _, path = line.partition("\t")
            parts = meta.split()
            if len(parts) >= 4 and path not in first:
                first[path] = (parts[3], commit)
    return History(CHECKED, first)


def _git(root: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-C", str(root), *args], capture_output=True, text=True, timeout=60, check=True, encoding="utf-8"
    )
    return done.stdout


def rewritten(history: History, runs: Mapping[str, Run]) -> dict[str, tuple[str, tuple[str, ...]]]:
    """Run path -> (the commit that first added its files, files whose bytes differ from that commit)."""
    found: dict[str, tuple[str, tuple[str, ...]]] = {}
    for path, run in runs.items():
        changed, commits = [], []
        for name, blob in sorted(run.blob_ids.items()):
            recorded = history.first_added.get(f"{path}/{name}")
            if recorded and recorded[0] != blob:
                changed.append(name)
                commits.append(recorded[1])
        if changed:
            found[path] = (commits[0], tuple(changed))
    return found
