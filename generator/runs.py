"""Measurement runs on disk: write_run(), the one run writer behind the probe API, and the names, formats and
hashes the gate reads runs by.

Standard library only, so a probe can call write_run() on any machine where MLX runs, without the
site's dependencies installed (a Mac, a GPU box).

A run is a folder  measurements/<probe>/<UTC timestamp>-<testbed>/  holding tidy CSV files and a
manifest.json that records the probe's code hashes, parameters, environment, times, the hash of
every data file and what the probe declared of its value columns (`columns`: each one's unit and
whether it was timed or is exact, with the declaration's own hash, so an edit of it alone reads as
tampered, as an edit of a data file does), the repository commit it was measured at (`revision`,
with whether the working tree was clean), the hash of every attachment (a file kept as a tool wrote it,
a benchmark tool's export, verified as a data file is and never read as a table) and, when `ledger
measure` ran it, what the machine was doing meanwhile (`machine`: machine.py). Runs are written to a
hidden temporary folder and renamed into place when complete; an existing run is never overwritten.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Literal, get_args

from . import machine as machine_record

MANIFEST = "manifest.json"
FORMAT = 1  # the manifest format write_run writes and the gate reads (integrity.shape refuses another)
# The one copy of each name pattern: lower-kebab-case (claim ids, testbeds, the end of a run folder's
# name) and lower_snake_case (a probe's name: its runs go to measurements/<name>/).
KEBAB = r"[a-z0-9]+(?:-[a-z0-9]+)*"
SNAKE = r"[a-z0-9_]+"
KEBAB_CASE = re.compile(rf"^{KEBAB}$")
TESTBED_PATTERN = KEBAB_CASE  # the name probes and `ledger init` projects import
PROBE_NAME = re.compile(rf"^{SNAKE}$")
FILE_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*\.csv$")
ATTACHMENT_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")  # a plain file name; never a table's (.csv)
PARTIAL_PREFIX = ".partial-"

ColumnKind = Literal["timed", "exact"]
# timed: a median of timed rounds (it varies from run to run); exact: computed from counts or settings,
# the same in every run of the same parameters (a byte count, a closed form).
COLUMN_KINDS: tuple[ColumnKind, ...] = get_args(ColumnKind)
MAX_UNIT_CHARS = 40  # a declared unit's text ("GB/s", "ms per token", "×"): a unit, not a sentence


@dataclass(frozen=True, slots=True)
class Column:
    """What a probe declares of one value column it writes: its unit, as a claim states it ("ms", "GB/s",
    "×", "" for a plain number), and whether the value was timed or is exact."""

    unit: str
    kind: ColumnKind

    def __post_init__(self) -> None:
        why = column_problem(self.unit, self.kind)
        if why:
            raise ValueError(why)

    def as_json(self) -> dict[str, str]:
        return {"unit": self.unit, "kind": self.kind}


Columns = Mapping[str, Mapping[str, Column]]  # data file -> column -> its declaration


def column_problem(unit: object, kind: object) -> str:
    """What is wrong with a column's declaration ("" when nothing is); the writer and the gate both ask."""
    if not isinstance(unit, str):
        return f"unit {str(unit)[:40]!r} is not text"
    if len(unit) > MAX_UNIT_CHARS or unit != unit.strip() or not unit.isprintable():
        return f"unit {unit[:MAX_UNIT_CHARS]!r}: a unit's text, at most {MAX_UNIT_CHARS} printable characters, no spaces around it"
    if kind not in COLUMN_KINDS:
        return f"kind {str(kind)[:20]!r}: a column is {' or '.join(COLUMN_KINDS)}"
    return ""


def columns_json(columns: Columns) -> dict[str, dict[str, dict[str, str]]]:
    """The declarations as manifest.json (and a probe's columns.json) hold them."""
    return {name: {column: found.as_json() for column, found in table.items()} for name, table in columns.items()}


def columns_sha256(columns: Columns) -> str:
    """The SHA-256 of the declarations' canonical JSON (keys sorted, no spaces, UTF-8): the manifest's
    `columns_sha256`, which the gate recomputes, as it rehashes every data file."""
    canonical = json.dumps(columns_json(columns), sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return sha256_bytes(canonical.encode())


def read_columns(found: object, where: str) -> dict[str, dict[str, Column]]:
    """Declarations from their JSON form ({file: {column: {"unit": ..., "kind": ...}}}); ValueError naming `where`."""
    if not isinstance(found, dict):
        raise ValueError(f'{where}: must hold a JSON object {{file: {{column: {{"unit": ..., "kind": ...}}}}}}')
    columns: dict[str, dict[str, Column]] = {}
    for name, table in found.items():
        if not isinstance(table, dict) or not table:
            raise ValueError(f'{where}: {str(name)[:60]!r} must map each column to {{"unit": ..., "kind": ...}}')
        columns[name] = {}
        for column, entry in table.items():
            if not isinstance(entry, dict) or set(entry) != {"unit", "kind"}:
                raise ValueError(f'{where}: {name}, column {str(column)[:60]!r}: write {{"unit": ..., "kind": ...}}')
            why = column_problem(entry["unit"], entry["kind"])
            if why:
                raise ValueError(f"{where}: {name}, column {str(column)[:60]!r}: {why}")
            columns[name][column] = Column(entry["unit"], entry["kind"])
    return columns


@dataclass(frozen=True, slots=True)
class Revision:
    """The repository commit a run was measured at, and whether the working tree matched it (no uncommitted
    change to a tracked file), so replicate runs trace to revisions. commit "": not a git work tree."""

    commit: str
    clean: bool | None  # None: unknown (no git)

    def as_json(self) -> dict[str, object]:
        return {"commit": self.commit, "clean": self.clean}

    @classmethod
    def read(cls, found: object) -> Revision:
        """From the manifest's `revision`; ValueError when it is not {"commit": hex or "", "clean": bool or null}."""
        if not isinstance(found, dict) or set(found) != {"commit", "clean"}:
            raise ValueError('`revision` must be {"commit": ..., "clean": ...}')
        commit, clean = found["commit"], found["clean"]
        if not isinstance(commit, str) or not re.fullmatch(r"(?:[0-9a-f]{40}|[0-9a-f]{64})?", commit):
            raise ValueError("revision.commit must be a git commit id (40 or 64 hex digits) or empty")
        if clean is not None and not isinstance(clean, bool):
            raise ValueError("revision.clean must be true, false or null")
        return cls(commit, clean)


def revision(root: Path) -> Revision:
    """The commit HEAD names in root's git work tree and whether tracked files match it (untracked files,
    such as runs not yet committed, do not count); Revision("", None) without git or a work tree."""
    try:
        head = subprocess.run(
            ["git", "-C", str(root), "rev-parse", "--verify", "HEAD"], capture_output=True, text=True, timeout=30
        )
        if head.returncode != 0:
            return Revision("", None)
        status = subprocess.run(
            ["git", "-C", str(root), "status", "--porcelain", "--untracked-files=no"],
            capture_output=True,
            text=True,
            timeout=60,
        )
    except (OSError, subprocess.SubprocessError):
        return Revision("", None)
    commit = head.stdout.strip()
    if not re.fullmatch(r"[0-9a-f]{40}|[0-9a-f]{64}", commit):
        return Revision("", None)
    return Revision(commit, status.stdout.strip() == "" if status.returncode == 0 else None)


@dataclass(frozen=True, slots=True)
class Manifest:
    """A run's manifest.json: its probe's code hashes, testbed, times, parameters, environment and the
    hash and row count of every data file. write_run writes it; the gate reads it (load.py)."""

    probe_path: str  # the probe's own file, relative to the root; one of `code`
    code: Mapping[str, str]  # path relative to the root -> sha256 of its bytes
    testbed: str
    started: str  # UTC stamps, 2026-11-30T10:02:11Z
    finished: str
    parameters: Mapping[str, object]
    environment: Mapping[str, object]
    files: Mapping[str, tuple[str, int]]  # data file -> (sha256, rows)
    columns: Columns = field(default_factory=dict)  # data file -> column -> its declaration (empty: none)
    columns_sha256: str = ""  # of the declarations as written (columns_sha256()); "" when there are none
    revision: Revision | None = None  # the repository commit it was measured at (None: a run from before it was kept)
    attachments: Mapping[str, str] = field(default_factory=dict)  # a file kept as a tool wrote it -> its sha256
    machine: Mapping[str, object] | None = None  # what the machine did meanwhile (machine.FIELDS); None: not recorded

    @property
    def folder(self) -> str:
        """The run's folder name under measurements/<probe>/: 2026-11-30T10-02-11Z-<testbed>."""
        return f"{self.started.replace(':', '-')}-{self.testbed}"

    def as_bytes(self) -> bytes:
        """manifest.json's bytes, keys in the order every committed run has them."""
        manifest = {
            "format": FORMAT,
            "probe": {"path": self.probe_path, "sha256": code_hash(self.code), "code": dict(self.code)},
            "testbed": self.testbed,
            "started": self.started,
            "finished": self.finished,
            "parameters": dict(self.parameters),
            "environment": dict(self.environment),
            "files": {name: {"sha256": sha256, "rows": rows} for name, (sha256, rows) in self.files.items()},
        }
        if self.columns:  # a run written before declarations were has neither key
            manifest["columns"] = columns_json(self.columns)
            manifest["columns_sha256"] = self.columns_sha256
        if self.revision is not None:
            manifest["revision"] = self.revision.as_json()
        if self.attachments:  # a run without one has no key
            manifest["attachments"] = {name: {"sha256": sha256} for name, sha256 in self.attachments.items()}
        if self.machine is not None:
            manifest["machine"] = dict(self.machine)
        return (json.dumps(manifest, indent=2) + "\n").encode()

    @classmethod
    def read(cls, manifest: Mapping) -> Manifest:
        """The record from manifest.json's parsed JSON, once integrity.shape() found nothing wrong with it."""
        files = manifest["files"]
        return cls(
            probe_path=str(manifest["probe"].get("path", "")),
            code=dict(manifest["probe"]["code"]),
            testbed=str(manifest.get("testbed", "")),
            started=manifest["started"],
            finished=manifest["finished"],
            parameters=manifest.get("parameters") or {},
            environment=manifest.get("environment") or {},
            files={str(name): (entry["sha256"], entry.get("rows", 0)) for name, entry in files.items()},
            columns=read_columns(manifest["columns"], "manifest.json columns") if "columns" in manifest else {},
            columns_sha256=str(manifest.get("columns_sha256", "")),
            revision=Revision.read(manifest["revision"]) if "revision" in manifest else None,
            attachments={str(name): entry["sha256"] for name, entry in manifest.get("attachments", {}).items()},
            machine=dict(manifest["machine"]) if "machine" in manifest else None,
        )


def is_samples(name: str) -> bool:
    """Whether a run's file holds raw rounds (samples.csv, NAME.samples.csv: timing.samples_file, which
    this module does not import, so a probe importing the run writer does not hash the timer)."""
    return name == "samples.csv" or name.endswith(".samples.csv")


def sha256_bytes(data: bytes) -> str:
    """Hex SHA-256 of a byte string."""
    return hashlib.sha256(data).hexdigest()


def sha256_file(path: Path) -> str:
    """Hex SHA-256 of a file's bytes, read in chunks."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def code_hash(file_hashes: Mapping[str, str]) -> str:
    """One hash over a probe's code files: path and content hash of each, in path order."""
    lines = "".join(f"{path}\0{file_hashes[path]}\n" for path in sorted(file_hashes))
    return sha256_bytes(lines.encode())


TIMING_MODULE = "generator.timing"  # the probes' clock: hashed with the probe when the project holds it
DISTRIBUTION = "evidence-ledger"  # the package that provides it when installed


def imported_code(root: Path, package: str = "probes") -> list[str]:
    """Paths (relative to root) of the running program's modules that live under root/package.

    Covers the probe script itself (even when run as __main__), every harness module it imported,
    and generator/timing.py when it was imported from inside root (this repository's probes), so a
    change to any of them makes the probe's runs stale. An installed timing module is recorded by
    installed_timing() in the environment instead.
    """
    base = (root / package).resolve()
    found = set()
    for module in list(sys.modules.values()):
        filename = getattr(module, "__file__", None)
        if not filename:
            continue
        path = Path(filename).resolve()
        if path.suffix == ".py" and base in path.parents:
            found.add(path.relative_to(root.resolve()).as_posix())
    timing = _timing_file()
    if timing is not None and root.resolve() in timing.parents:
        found.add(timing.relative_to(root.resolve()).as_posix())
    return sorted(found)


def installed_timing(root: Path) -> dict[str, str]:
    """{"timing": "evidence-ledger==X"} when the timing module was imported from outside root; else {}."""
    timing = _timing_file()
    if timing is None or root.resolve() in timing.parents:
        return {}
    import importlib.metadata  # only here: it costs a warm `ledger check` a fifth of its time

    try:
        version = importlib.metadata.version(DISTRIBUTION)
    except importlib.metadata.PackageNotFoundError:
        version = "unknown (not installed as a distribution)"
    return {"timing": f"{DISTRIBUTION}=={version}"}


def _timing_file() -> Path | None:
    filename = getattr(sys.modules.get(TIMING_MODULE), "__file__", None)
    return Path(filename).resolve() if filename else None


def csv_bytes(rows: Sequence[Mapping[str, object]]) -> bytes:
    """Tidy rows -> CSV bytes; columns in first-seen order, floats with full precision."""
    columns: list[str] = []
    for row in rows:
        for key in row:
            if key not in columns:
                columns.append(key)
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=columns, lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow({key: _cell(value) for key, value in row.items()})
    return out.getvalue().encode()


def _cell(value: object) -> object:
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    return value


def utc_stamp(moment: datetime) -> str:
    """2026-11-30T10:02:11Z: a UTC timestamp that is also a safe folder name when ':' -> '-'."""
    return moment.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def linked_part(base: Path, path: Path) -> Path | None:
    """The first link on the way from base down to path (path itself included, base not), or None.

    No command writes, deletes or copies through a link it did not make: a committed link, or one a
    probe left, can point anywhere on the machine. Paths are compared as given, never resolved.
    """
    try:
        parts = Path(os.path.abspath(path)).relative_to(os.path.abspath(base)).parts
    except ValueError:
        return None
    current = Path(base)
    for part in parts:
        current = current / part
        if os.path.islink(current):
            return current
    return None


def link_problem(base: Path, path: Path, what: str) -> str:
    """'<what>: <link> is a link (to <target>); ...' when a link lies on the way to path, else ''."""
    link = linked_part(base, path)
    if link is None:
        return ""
    try:
        shown = Path(os.path.abspath(link)).relative_to(os.path.abspath(base)).as_posix()
    except ValueError:
        shown = str(link)
    return (
        f"{what + ': ' if what else ''}{shown} is a link (to {os.readlink(link)}); the ledger writes, deletes and "
        "copies nothing through a link it did not make: replace it with the folder or file itself"
    )


def _under(base: Path, path: Path) -> bool:
    try:
        Path(os.path.abspath(path)).relative_to(os.path.abspath(base))
    except ValueError:
        return False
    return True


def remove_tree(path: Path) -> None:
    """Delete a folder the caller made, never through a link: a link in its place is removed as a link."""
    if os.path.islink(path):
        os.unlink(path)
    elif path.is_dir():
        shutil.rmtree(path)  # removes links inside as links (the fd-based walk never follows one)


def write_run(
    root: Path,
    probe: str,
    testbed: str,
    tables: Mapping[str, Sequence[Mapping[str, object]]],
    *,
    parameters: Mapping[str, object],
    environment: Mapping[str, object],
    code: Iterable[str],
    started: datetime,
    finished: datetime,
    measurements: Path | None = None,
    probe_path: str | None = None,
    columns: Columns | None = None,
    attachments: Mapping[str, bytes] | None = None,
    machine: Mapping[str, object] | None = None,
) -> Path:
    """Write one measurement run atomically and return its folder.

    root: the repository root (the run goes to root/measurements/<probe>/<stamp>-<testbed>/).
    tables: {"results.csv": [row dict, ...]}; every row of a measured setting should carry its
      round count and spread (rounds, min, median, max) beside the derived figures.
    code: paths relative to root of the probe and the harness modules it uses (imported_code()).
    measurements: where runs go instead of root/measurements (tests write to a temporary folder).
    probe_path: the probe's own file relative to root (default probes/<probe>.py); it must be in code.
    columns: {"results.csv": {"gb_per_s": Column("GB/s", "timed")}}: the unit of each value column and
      whether it was timed or is exact, for the tables (a samples file's columns are its table's).
    attachments: {"hyperfine.json": bytes}: files kept as a tool wrote them (its export), hashed in the
      manifest and verified like the tables, never read as one.
    machine: the machine record (machine.FIELDS); default: the one `ledger measure` is sampling for this
      process (LEDGER_MACHINE_RECORD), closed now; none when no runner samples it (the run says "not recorded").
    Raises FileExistsError rather than overwrite an existing run; leaves nothing behind on error.
    """
    _check_names(probe, testbed, tables)
    declared = _checked_columns(columns or {}, tables)
    kept = _checked_attachments(attachments or {}, tables)
    parent = (measurements or root / "measurements") / probe
    _refuse_links(root, sorted(set(code)), measurements, parent)
    code_hashes = {path: sha256_file(root / path) for path in sorted(set(code))}
    probe_path = probe_path or f"probes/{probe}.py"
    if probe_path not in code_hashes:
        raise ValueError(f"code must include the probe itself ({probe_path})")

    data = {name: csv_bytes(rows) for name, rows in tables.items()}
    manifest = Manifest(
        probe_path,
        code_hashes,
        testbed,
        utc_stamp(started),
        utc_stamp(finished),
        parameters,
        environment,
        {name: (sha256_bytes(content), len(tables[name])) for name, content in data.items()},
        declared,
        columns_sha256(declared) if declared else "",
        revision(root),
        {name: sha256_bytes(content) for name, content in kept.items()},
        _machine(machine),
    )

    parent.mkdir(parents=True, exist_ok=True)
    final = parent / manifest.folder
    if final.exists():
        raise FileExistsError(f"{final} exists: a rerun is a new run, never an overwrite")
    partial = parent / f"{PARTIAL_PREFIX}{final.name}-{os.getpid()}"
    try:
        partial.mkdir()
        for name, content in {**data, **kept}.items():
            _write_synced(partial / name, content)
        _write_synced(partial / MANIFEST, manifest.as_bytes())
        if final.exists():
            raise FileExistsError(f"{final} exists: a rerun is a new run, never an overwrite")
        os.rename(partial, final)
    finally:
        if partial.exists():
            shutil.rmtree(partial)
    return final


def _check_names(probe: str, testbed: str, tables: Mapping[str, Sequence[Mapping[str, object]]]) -> None:
    """ValueError unless the probe, the testbed and each table have names a run's folder and files can take."""
    if not PROBE_NAME.fullmatch(probe):
        raise ValueError(f"probe name {probe!r}: use lower-case letters, digits and '_'")
    if not TESTBED_PATTERN.fullmatch(testbed):
        raise ValueError(f"testbed {testbed!r}: use lower-case letters, digits and '-'")
    if not tables:
        raise ValueError("a run needs at least one table")
    for name, rows in tables.items():
        if not FILE_PATTERN.match(name):
            raise ValueError(f"table name {name!r}: use a plain file name ending in .csv")
        if not rows:
            raise ValueError(f"table {name!r} has no rows")


def _machine(given: Mapping[str, object] | None) -> dict[str, object] | None:
    """The record given, else the one the runner is sampling for this process; ValueError when malformed."""
    found = dict(given) if given is not None else machine_record.from_environment()
    problems = machine_record.problems(found) if found is not None else []
    if problems:
        raise ValueError(f"machine: {'; '.join(problems)}")
    return found


def _checked_columns(columns: Columns, tables: Mapping[str, Sequence[Mapping[str, object]]]) -> Columns:
    """The declarations, once each names a table of the run (not a samples file) and a column it has."""
    for name, declared in columns.items():
        if not declared:
            continue
        if name not in tables:
            raise ValueError(f"columns: {name!r} is not a table of the run ({', '.join(sorted(tables))})")
        if is_samples(name):
            raise ValueError(f"columns: declare the columns of the table, not of {name}: its rounds share them")
        present = {key for row in tables[name] for key in row}
        for column, found in declared.items():
            if column not in present:
                raise ValueError(f"columns: {name} has no column {column!r}")
            if not isinstance(found, Column):
                raise ValueError(f"columns: {name}, {column}: declare it as Column(unit, kind), not {found!r}")
    return {name: dict(columns[name]) for name in tables if columns.get(name)}  # in the tables' order


def attachment_problem(name: object, tables: Iterable[str]) -> str:
    """What is wrong with an attachment's name ("" when nothing is); the writer and the gate both ask."""
    if not isinstance(name, str) or not ATTACHMENT_PATTERN.match(name):
        return f"attachment name {str(name)[:60]!r}: use a plain file name (letters, digits, '_', '.', '-')"
    if name.endswith(".csv") or name == MANIFEST:
        return f"attachment name {name!r}: a .csv file is a table and {MANIFEST} the manifest; name it otherwise"
    if name in tables:
        return f"attachment name {name!r} is also a table of the run"
    return ""


def _checked_attachments(attachments: Mapping[str, bytes], tables: Mapping[str, object]) -> dict[str, bytes]:
    """The attachments, once each has a plain name of its own and bytes to keep."""
    for name, content in attachments.items():
        why = attachment_problem(name, tables)
        if why:
            raise ValueError(why)
        if not isinstance(content, bytes):
            raise ValueError(f"attachment {name!r}: give its bytes, as the tool wrote them")
    return dict(attachments)


def _refuse_links(root: Path, code: list[str], measurements: Path | None, parent: Path) -> None:
    """A run is never written through a link, nor hashes code read through one (ValueError says where)."""
    base = measurements if measurements and not _under(root, measurements) else root
    problems = [link_problem(root, Path(root) / path, "the probe's code") for path in code]
    problems.append(link_problem(base, parent, "runs"))
    linked = next(filter(None, problems), "")
    if linked:
        raise ValueError(linked)


def _write_synced(path: Path, content: bytes) -> None:
    with open(path, "wb") as handle:
        handle.write(content)
        handle.flush()
        os.fsync(handle.fileno())
