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
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path, PurePosixPath

from ..gate import Reused, check
from ..inputs import gitlog, load
from ..inputs.config import DEFAULTS, policy_of, read_config
from ..inputs.hashcache import files_under
from ..inputs.mkdocs_yml import Composed
from ..judging.alike import Judged
from ..prose import surfaces
from ..records import LedgerError, Policy, Report, Run
from ..runs import linked_part

NO_CONFIG = Composed({}, (), ())  # a revision without the configuration file
Figure = tuple[str, int, str, str]  # (surface, line, claim id, the text between its markers)


def surface_figures(root: Path, policy: Policy) -> tuple[Figure, ...]:
    """Every claim's value standing between markers on the policy's surfaces (prose/surfaces.py), in order."""
    texts, _ = load.surfaces(root, policy.surfaces, policy.docs_dir, config=policy.config_path)  # the gate refuses
    return tuple(
        (path, mark.where.line, mark.claim_id, mark.text)
        for path, text in sorted(texts.items())
        for mark in surfaces.markers(text, path)
        if mark.claim_id
    )


@dataclass(frozen=True, slots=True)
class Revision:
    name: str  # as the user gave it ("main", "HEAD~1"); "" for the working tree
    commit: str  # the full commit id; "" for the working tree
    report: Report
    run_blobs: Mapping[str, Mapping[str, str]] = field(default_factory=dict)  # run -> file -> git blob id
    config: Composed = NO_CONFIG  # its mkdocs.yml with what it inherits, as MkDocs composes it
    figures: tuple[Figure, ...] = ()  # the claims' values standing between markers on its surfaces (README.md, ...)
    blobs: Mapping[str, str] = field(default_factory=dict)  # a commit's every file -> its blob id ({}: work tree)

    def blob(self, root: Path, path: str) -> str:
        """The blob id of a file as this revision holds it ('' where it holds none, or a link)."""
        if self.commit:
            return self.blobs.get(path, "")
        file = root / path
        if file.is_symlink() or not file.is_file():
            return ""
        try:
            return load.blob_id(load.read_capped(file, load.MAX_CODE_BYTES))
        except load.Unreadable:
            return ""

    @property
    def label(self) -> str:
        if not self.commit:
            return "working tree"
        short = self.commit[:12]
        return short if self.commit.startswith(self.name) else f"{self.name} ({short})"


def at_revision(
    root: Path, name: str, config: str, now: datetime, other: Revision | None = None, shared: Judged | None = None
) -> Revision:
    """The gate's report on the files one git revision holds under root (copied to a temporary folder),
    with the runs' history read from that revision, as `ledger check` reads it on a checkout of it.

    other: the revision it is compared with, read already. A run folder whose every file, and the code it
    declares, is byte for byte the other side's is neither copied nor read again: the gate takes the other
    side's reading of it (a review of a change to thousands of claims reads its runs once). shared: the claims'
    verdicts at the other revision, taken where a claim's inputs are alike (judging/alike.py)."""
    commit = resolve(root, name)
    entries = listing(root, commit)
    alike = _alike_runs(root, entries, other) if other is not None else set()
    prefix = other.report.policy.measurements_dir.strip("/") + "/" if other is not None else ""
    skipped = {entry.path for entry in entries if alike and _run_of(entry.path, prefix) in alike}
    with tempfile.TemporaryDirectory(prefix="ledger-diff-") as folder:
        tree = Path(folder)
        copy_revision(root, entries, tree, skip=skipped)
        try:  # the revision's configuration composed once: its policy, and what a review compares of it
            composed = read_config(tree / config) if (tree / config).is_file() else None
            policy = policy_of(composed, (tree / config).name) if composed else DEFAULTS
            if alike and other is not None and policy.measurements_dir != other.report.policy.measurements_dir:
                copy_revision(root, [e for e in entries if e.path in skipped], tree)  # not runs on this side
                alike, skipped = set(), set()
            past = gitlog.read(root, policy.measurements_dir, commit)
            reused = Reused(
                {path: other.report.runs[path] for path in alike} if other is not None else {},
                {path: other.report.run_states[path].stability for path in alike} if other is not None else {},
                sum(entry.size for entry in entries if entry.path in skipped),
            )
            report = check(tree, policy, now, past=past, reused=reused, shared=shared)
        except LedgerError as error:
            raise LedgerError(f"at {name}: {error}") from None
        figures = surface_figures(tree, policy)
    blobs = {entry.path: entry.blob for entry in entries}
    measured = run_blobs(blobs, policy.measurements_dir)
    return Revision(name, commit, report, measured, configuration(composed), figures, blobs)


def _run_of(path: str, prefix: str) -> str:
    """The run folder (measurements/PROBE/RUN, prefix: the measurements folder and /) a file is in, else ''."""
    if not path.startswith(prefix):
        return ""
    parts = path[len(prefix) :].split("/")
    return prefix + "/".join(parts[:2]) if len(parts) >= 3 else ""


def _alike_runs(root: Path, entries: list[Entry], other: Revision) -> set[str]:
    """The run folders this revision holds byte for byte as `other` holds them, files and declared code
    alike, whose reading on the other side is whole (every table kept, rounds parsed): what need not be
    read again."""
    here: dict[str, dict[str, str]] = {}
    regular = {entry.path: entry.blob for entry in entries if entry.mode in (b"100644", b"100755")}
    prefix = other.report.policy.measurements_dir.strip("/") + "/"
    for entry in entries:
        folder = _run_of(entry.path, prefix)
        if folder in other.run_blobs:
            here.setdefault(folder, {})[entry.path[len(folder) + 1 :]] = regular.get(entry.path, "")
    alike = set()
    for path, files in here.items():
        run = other.report.runs.get(path)
        if run is None or run.problem or run.unlisted or files != other.run_blobs[path] or not _whole(run):
            continue
        if all(regular.get(code) and regular[code] == other.blob(root, code) for code in run.declared_code):
            alike.add(path)
    return alike


def _whole(run: Run) -> bool:
    return all(table.counted is None and table.problem != load.NOT_PARSED for table in run.tables.values())


def working_tree(root: Path, report: Report, config: Composed) -> Revision:
    """The working tree as a Revision: its runs' files hashed as git would store them (the check hashed most
    of them as it read them: those ids are taken, the rest hashed here)."""
    files: dict[str, str] = {}
    base = root / report.policy.measurements_dir
    read = {f"{path}/{name}": blob for path, run in report.runs.items() for name, blob in run.blob_ids.items()}
    for path in sorted(files_under(base)) if base.is_dir() else []:
        relative = path.relative_to(root).as_posix()
        if relative in read:
            files[relative] = read[relative]
            continue
        try:
            files[relative] = load.blob_id(load.read_capped(path, load.MAX_DATA_BYTES))
        except load.Unreadable as problem:
            files[relative] = f"unreadable: {problem}"
    figures = surface_figures(root, report.policy)
    return Revision("", "", report, run_blobs(files, report.policy.measurements_dir), config, figures)


def configuration(composed: Composed | None) -> Composed:
    """A revision's configuration as MkDocs composes it (the files it inherits merged in), as its gate read
    it: none where it has no such file."""
    return composed or NO_CONFIG


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


def config_path(root: Path, config: Path) -> str:
    """The policy file (--config, else ROOT/mkdocs.yml), relative to root, that each revision is read with."""
    try:
        return (config.parent.resolve() / config.name).relative_to(root).as_posix()
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


@dataclass(frozen=True, slots=True)
class Entry:
    """One file a commit holds: its mode, blob id and size as git lists them, and its path under root."""

    mode: bytes
    blob: str
    size: int
    path: str  # relative to root, with /


def listing(root: Path, commit: str) -> list[Entry]:
    """Every file that commit holds under root (a path git would not check out left out)."""
    found = _git(root, "ls-tree", "-r", "-l", "-z", commit, "--", ".")
    if found.returncode != 0:
        raise LedgerError(f"diff: git ls-tree {commit}: {_first_line(found.stderr)}")
    entries = []
    for record in found.stdout.split(b"\0"):
        if not record:
            continue
        meta, _, path = record.partition(b"\t")
        mode, kind, object_id, size = meta.split()
        parts = PurePosixPath(os.fsdecode(path)).parts
        if (
            kind == b"blob"
            and parts
            and not any(p in ("", ".", "..", ".git") or "/" in p for p in parts)
            and not path.startswith(b"/")
        ):
            entries.append(Entry(mode, object_id.decode(), int(size) if size.isdigit() else 0, "/".join(parts)))
    return entries


def copy_revision(root: Path, entries: list[Entry], dest: Path, skip: Collection[str] = ()) -> None:
    """Write each listed file (but those in `skip`) into dest, read from git's object store."""
    wanted = [entry for entry in entries if entry.path not in skip]
    if not wanted:
        return
    batch = _git(root, "cat-file", "--batch", input=b"".join(entry.blob.encode() + b"\n" for entry in wanted))
    if batch.returncode != 0:
        raise LedgerError(f"diff: git cat-file: {_first_line(batch.stderr)}")
    data, offset = batch.stdout, 0
    for entry in wanted:
        end = data.index(b"\n", offset)
        header = data[offset:end].split(b" ")
        if len(header) != 3:
            raise LedgerError(f"diff: git has no object {entry.blob} for {entry.path}")
        size = int(header[2])
        content = data[end + 1 : end + 1 + size]
        offset = end + 1 + size + 1
        target = dest / entry.path
        if linked_part(dest, target) is not None:  # a crafted tree: a file below one of its own links
            raise LedgerError(f"diff: {entry.path} lies below a link in the same tree; git would not check it out")
        target.parent.mkdir(parents=True, exist_ok=True)
        if entry.mode == b"120000":
            os.symlink(os.fsdecode(content), target)
        else:
            target.write_bytes(content)


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
