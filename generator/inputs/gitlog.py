"""Run history: git -> the blob each committed run file had when first added, and the files git tracks;
runs -> rewritten files.

History is read as main's reviewers see it: by first parent from HEAD (or a given commit), merges
included (a merge's changes against its first parent), in topological order (never by commit date,
which anyone can set), as bytes (`-z`: paths exactly as stored, never quoted; subjects decoded
leniently), with replace objects, grafts and the commit-graph ignored (none can swap a commit's
parents or contents). read()
asks git twice or three times for the whole ledger (never once per file); rewritten() is pure.
Outside a git work tree, or in a shallow clone, history is not checked and the Report says so once;
`ledger check --require-history` makes that a failure.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from ..records import Finding, Run, Source
from .hashcache import CACHE_ROOT

CHECKED = "checked"
CACHE_FOLDER = CACHE_ROOT
# Every mechanism git has for substituting commits is switched off, as replace objects are: `git replace`
# refs, the grafts file (.git/info/grafts, GIT_GRAFT_FILE) and the commit-graph file (a cache of parents
# git would trust over the commits themselves). History is read from the commit objects alone.
SUBSTITUTES_OFF = {"GIT_NO_REPLACE_OBJECTS": "1", "GIT_GRAFT_FILE": os.devnull}
GIT_OPTIONS = ("--no-replace-objects", "-c", "core.commitGraph=false", "-c", "advice.graftFileDeprecated=false")
_ENV = {**os.environ, **SUBSTITUTES_OFF, "GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C"}


@dataclass(frozen=True, slots=True)
class History:
    status: str  # "checked", or why history was not checked
    first_added: Mapping[str, tuple[str, str, str]] = field(
        default_factory=dict
    )  # path -> (blob sha1, commit, subject)
    tracked: frozenset[str] | None = None  # every file git tracks under the root; None when unknown


def read(root: Path, measurements_dir: str, revision: str = "") -> History:
    """The first-added blob of every committed file under measurements/, and the tracked files.

    revision: a commit id to read history from (`ledger diff` reads each side's own); "" for the
    work tree: HEAD's history and the index's files.
    """
    if not (root / measurements_dir).is_dir() and not revision:
        return History("no runs", tracked=_tracked(root, revision))
    why = unreadable(root)
    if why:
        return History(f"not checked: {why}")
    tracked = _tracked(root, revision)
    start = revision or "HEAD"
    try:
        git(root, "rev-parse", "--verify", "--quiet", f"{start}^{{commit}}")
    except subprocess.CalledProcessError:
        return History(CHECKED, {}, tracked)  # no commit yet: every run is new
    except (OSError, subprocess.SubprocessError):
        return History("not checked: git rev-parse failed", tracked=tracked)
    try:
        log = first_parent_log(root, start, measurements_dir, "--diff-filter=A", "--format=%x00%H %s")
    except (OSError, subprocess.SubprocessError):
        return History("not checked: git log failed", tracked=tracked)
    return History(CHECKED, parse_log(log), tracked)


def unreadable(root: Path) -> str:
    """Why history under root cannot be read as this module reads it; "" when it can."""
    try:
        state = git(root, "rev-parse", "--is-inside-work-tree", "--is-shallow-repository").split()
    except (OSError, subprocess.SubprocessError):
        return "not a git repository"
    if state[:1] != [b"true"]:
        return "not a git work tree"
    if state[1:2] == [b"true"]:
        return "a shallow clone (fetch full history: `git fetch --unshallow`)"
    return ""


def first_parent_log(root: Path, start: str, folder: str, *options: str) -> bytes:
    """`git log --raw -z` of start's first-parent line under folder: merges included (their changes
    against the first parent), oldest first, in topological order, paths relative to root, as bytes.
    options: a --format starting with %x00 (raw_entries splits on it), filters."""
    args = ["--first-parent", "--topo-order", "--reverse", "--no-renames", "--raw", "-z", "--no-abbrev"]
    args += ["--relative", *options, start, "--", folder]
    try:
        return git(root, "log", "--diff-merges=first-parent", *args)
    except subprocess.CalledProcessError:  # git before 2.31: -m with --first-parent is the same
        return git(root, "log", "-m", *args)


def raw_entries(log: bytes) -> Iterator[tuple[bytes, list[tuple[list[bytes], str]]]]:
    """first_parent_log's bytes -> each commit's header (its --format text) and its changes, each the
    raw line's fields (`:mode mode blob blob status`) and the path."""
    header: bytes | None = None
    changes: list[tuple[list[bytes], str]] = []
    tokens = log.split(b"\0")
    index = 0
    while index < len(tokens):
        token = tokens[index].lstrip(b"\n")
        index += 1
        if token.startswith(b":"):
            path = os.fsdecode(tokens[index]) if index < len(tokens) else ""
            index += 1
            if header is not None and path:
                changes.append((token.split(), path))
        elif token:
            if header is not None:
                yield header, changes
            header, changes = token, []
    if header is not None:
        yield header, changes


def parse_log(log: bytes) -> dict[str, tuple[str, str, str]]:
    """`git log -z --raw --format=%x00%H %s` output -> path -> (blob, commit, subject) at its first add
    (the commit's first 12 digits; the subject cut at 50 characters)."""
    first: dict[str, tuple[str, str, str]] = {}
    for header, changes in raw_entries(log):
        full, _, subject_bytes = header.partition(b" ")
        subject = subject_bytes.decode("utf-8", errors="replace")
        subject = subject if len(subject) <= 50 else subject[:49] + "…"
        commit = full.decode("ascii", "replace")[:12]
        for parts, path in changes:
            if len(parts) >= 4 and path not in first:
                first[path] = (parts[3].decode("ascii", "replace"), commit, subject)
    return first


def tracked_files(root: Path) -> frozenset[str] | None:
    """Every file git tracks under root (in its index); None when root is not in a git work tree."""
    return _tracked(root, "")


def _tracked(root: Path, revision: str) -> frozenset[str] | None:
    try:
        if revision:
            listing = git(root, "ls-tree", "-r", "-z", "--name-only", revision, "--", ".")
        else:
            listing = git(root, "ls-files", "-z", "--", ".")
    except (OSError, subprocess.SubprocessError):
        return None
    return frozenset(os.fsdecode(path) for path in listing.split(b"\0") if path)


def git(root: Path, *args: str, input: bytes | None = None) -> bytes:
    """git's output in root, as bytes, replace objects ignored; raises on failure (a minute at most)."""
    done = subprocess.run(
        ["git", *GIT_OPTIONS, "-c", "core.quotePath=false", "-C", str(root), *args],
        input=input,
        capture_output=True,
        timeout=60,
        check=True,
        env=_ENV,
    )
    return done.stdout


def rewritten(history: History, runs: Mapping[str, Run]) -> dict[str, tuple[tuple[str, str], tuple[str, ...]]]:
    """Run path -> ((sha, subject) of the commit that first added its files, files whose bytes differ from it)."""
    found: dict[str, tuple[tuple[str, str], tuple[str, ...]]] = {}
    for path, run in runs.items():
        changed, commits = [], []
        for name, blob in sorted(run.blob_ids.items()):
            recorded = history.first_added.get(f"{path}/{name}")
            if recorded and recorded[0] != blob:
                changed.append(name)
                commits.append((recorded[1], recorded[2]))
        if changed:
            found[path] = (commits[0], tuple(changed))
    return found


def findings(history: History, has_runs: bool, require: bool) -> list[Finding]:
    """A tracked cache (served unverified by whoever checks it out); unread history when it is required."""
    found = []
    cached = sorted(path for path in history.tracked or () if path.split("/", 1)[0] == CACHE_FOLDER)
    if cached:
        found.append(
            Finding(
                Source(cached[0], 0),
                "",
                "invalid",
                f"{len(cached)} file{'s' if len(cached) != 1 else ''} under {CACHE_FOLDER}/ "
                "tracked by git: a cache in the repository is read unverified by every checkout",
                f"`git rm -r --cached {CACHE_FOLDER}` and keep {CACHE_FOLDER}/ in .gitignore",
            )
        )
    if require and has_runs and history.status != CHECKED:
        found.append(
            Finding(
                Source(".git", 0),
                "",
                "unverified-history",
                f"run history cannot be read ({history.status.removeprefix('not checked: ')}), so a rewritten "
                "run would pass",
                "check out the whole history (`git fetch --unshallow`; in CI, `fetch-depth: 0`) and run where git is",
            )
        )
    return found
