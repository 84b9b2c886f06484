"""The check cache: the last verdict and what it was reached on, kept as data in .cache/ledger/check.json.

A file is known by what git's index records of it: size, mtime, ctime and inode (ctime too, so an
edit that puts the size and mtime back is still seen: the kernel sets ctime on every write). An
entry is trusted only when it is strictly older than the moment the cache was written (git's
racy-entry rule): a file changed in the same tick as the cache is hashed again. The last verdict
is reused only when every file the gate reads, the gate's own code, the policy, the arguments and
the day are all as they were; anything else runs the whole gate. What the gate reads is one list
(reads.py, derived from the policy) plus the code files the runs' manifests declared last time; the
cache keeps that list itself (`reads`), so deciding whether the last verdict stands needs no policy,
no YAML and none of the gate: mkdocs.yml is one of the files, and when it changes, the key does.
JSON, never pickle; `--no-cache` skips it (so does LEDGER_NO_CACHE in the environment), and CI and
the publish workflow run without it.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from ..runs import linked_part

CACHE_ROOT = ".cache"  # the one cache folder (the check cache, the charts, compiled probes): never committed
FOLDER = f"{CACHE_ROOT}/ledger"
NO_CACHE = "LEDGER_NO_CACHE"  # set in CI: as --no-cache (the build's chart cache reads it too)
NAME = "check.json"
VERSION = 4  # 4: and what the check read (`reads`); 3: the verdict and the code files the runs declared
GENERATOR = Path(__file__).resolve().parents[1]  # the gate's own code (the whole package) is an input too


def stat_key(path: Path | str) -> list[int] | None:
    """[size, mtime_ns, ctime_ns, inode], or None when the file cannot be read."""
    try:
        info = os.stat(path)
    except (OSError, ValueError):
        return None
    return [info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino]


def racy(key: list[int], written_ns: int) -> bool:
    """git's rule: an entry not strictly older than the cache itself may have changed unseen."""
    return key[1] >= written_ns or key[2] >= written_ns


@dataclass
class Cache:
    path: Path | None  # None: --no-cache (every hash computed, nothing kept)
    written_ns: int = 0  # when the cache's contents were taken (the start of the run that wrote it)
    verdict: dict = field(default_factory=dict)  # {"key", "output", "exit", "code", "reads", "plugin"}
    started_ns: int = field(default_factory=time.time_ns)

    def answer(self, root: Path, context: list) -> dict | None:
        """The last verdict when every file the last check read (its own `reads` list) is as it was and it
        was reached on this context (arguments, the day): nothing but this module is needed to decide."""
        reads = self.verdict.get("reads")
        if self.path is None or not isinstance(reads, dict):
            return None
        return self.reusable(inputs_key(root, reads.get("folders", ()), reads.get("files", ()), context))

    def reusable(self, key: list) -> dict | None:
        """The last verdict, if it was reached on exactly these inputs and none of them is racy."""
        if self.path is None or self.verdict.get("key") != key:
            return None
        for _, stat in key[-1]:
            if stat is not None and racy(stat, self.written_ns):  # a missing file stays missing, or the key moves
                return None
        return self.verdict

    def save(self, key: list, output: str, exit_code: int, code: tuple[str, ...] = (), **more: object) -> None:
        """Write the cache atomically (a temporary file, then a rename); a read-only tree keeps none.

        `code`: the code files the runs declared, so the next key covers them wherever they live; more:
        what else the next run reads back (`reads`: the folders and files behind the key; `plugin`)."""
        if self.path is None:
            return
        verdict = {"key": key, "output": output, "exit": exit_code, "code": list(code), **more}
        data = {"version": VERSION, "written_ns": self.started_ns, "verdict": verdict}
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            ignore = self.path.parent.parent / ".gitignore"
            if self.path.parent.parent.name == CACHE_ROOT and not ignore.exists():
                ignore.write_text("# build and check caches of the evidence ledger\n*\n")
            temporary = self.path.with_name(f".{NAME}.{os.getpid()}")
            temporary.write_text(json.dumps(data, separators=(",", ":")), encoding="utf-8")
            temporary.replace(self.path)
        except OSError:
            pass


def load(root: Path, enabled: bool = True) -> Cache:
    """The cache under root (an empty one when it is missing, unreadable or from another version)."""
    path = root / FOLDER / NAME
    if not enabled or linked_part(root, path) is not None:  # a linked .cache/ would read and write elsewhere
        return Cache(None)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if data.get("version") != VERSION:
            raise ValueError("another version")
        # the entries were taken before the run that wrote them started: they are as old as that start
        return Cache(path, int(data["written_ns"]), dict(data["verdict"]))
    except (OSError, ValueError, KeyError, TypeError):
        return Cache(path)


def inputs_key(root: Path, folders: Iterable[str], files: Iterable[str], context: list) -> list:
    """Every file the gate reads (under the folders, the named files, the gate's code) by stat key."""
    paths: set[str] = set()  # as text: a ledger's thousands of run files are stat-ed, not made Paths
    for folder in folders:
        base = root / folder
        if base.is_dir():
            paths.update(_under(str(base)))
    paths.update(str(root / name) for name in files)
    paths.update(path for path in _under(str(GENERATOR)) if path.endswith(".py"))
    entries = [[path, stat_key(path)] for path in sorted(paths)]
    return [VERSION, *context, entries]


def files_under(folder: Path):
    """Every file below a folder, links not followed into folders; nothing when it cannot be read."""
    return map(Path, _under(str(folder)))


def _under(folder: str):
    """files_under's paths as text."""
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return
    for entry in entries:
        try:
            is_folder = entry.is_dir(follow_symlinks=False)
        except OSError:
            continue
        if is_folder:
            yield from _under(entry.path)
        else:
            yield entry.path
