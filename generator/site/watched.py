"""What the gate reads, as folders, and a cheap signature of them (file stats, not contents).

Shared by serve (incremental.py) and the Markdown extension, which rebuild the Report only when the
signature moves; kept apart so neither pulls in the other.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from ..records import Policy

FIGURES = "figures"
PROBES = "probes"


def inputs(policy: Policy) -> tuple[str, ...]:
    """The folders the gate reads, relative to the project root."""
    return (policy.claims_dir, policy.measurements_dir, PROBES, FIGURES, policy.docs_dir)


def signature(root: Path, folders: Iterable[str]) -> tuple:
    """(path, size, mtime_ns, inode) of every file under the folders: changes when any file does."""
    found: list[tuple] = []
    for folder in folders:
        _walk(root / folder, found)
    return tuple(sorted(found))


def _walk(folder: Path, found: list[tuple]) -> None:
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return
    for entry in entries:
        try:
            if entry.is_dir(follow_symlinks=False):
                _walk(Path(entry.path), found)
            else:
                info = entry.stat()
                found.append((entry.path, info.st_size, info.st_mtime_ns, info.st_ino))
        except OSError:
            continue
