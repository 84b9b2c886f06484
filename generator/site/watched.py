"""A cheap signature of what the gate reads (file stats, not contents); the list itself is reads.py's.

Shared by serve (incremental.py) and the Markdown extension, which rebuild the Report only when the
signature moves; kept apart so neither pulls in the other.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from ..inputs.hashcache import files_under, stat_key


def signature(root: Path, folders: Iterable[str], files: Iterable[str] = ()) -> tuple:
    """(path, size, mtime_ns, ctime_ns, inode) of every file under the folders and of each named file
    (None for one that is missing): changes when any of them does."""
    found = []
    for folder in folders:
        for path in files_under(root / folder):
            key = stat_key(path)
            if key is not None:
                found.append((str(path), *key))
    found += [(str(root / name), *(stat_key(root / name) or ("missing",))) for name in sorted(set(files))]
    return tuple(sorted(found, key=lambda entry: entry[0]))
