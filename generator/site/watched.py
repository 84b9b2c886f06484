"""What the gate reads, as folders, and a cheap signature of them (file stats, not contents).

Shared by serve (incremental.py) and the Markdown extension, which rebuild the Report only when the
signature moves; kept apart so neither pulls in the other.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from ..hashcache import files_under, stat_key
from ..records import Policy

FIGURES = "figures"
PROBES = "probes"


def inputs(policy: Policy) -> tuple[str, ...]:
    """The folders the gate reads, relative to the project root."""
    return (policy.claims_dir, policy.measurements_dir, PROBES, FIGURES, policy.docs_dir)


def signature(root: Path, folders: Iterable[str]) -> tuple:
    """(path, size, mtime_ns, ctime_ns, inode) of every file under the folders: changes when any file does."""
    found = []
    for folder in folders:
        for path in files_under(root / folder):
            key = stat_key(path)
            if key is not None:
                found.append((str(path), *key))
    return tuple(sorted(found))
