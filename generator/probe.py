"""The probe API: a probe's rows, parameters, environment and code -> one measurement run on disk.

Standard library only, so a probe runs wherever Python does, without the site's dependencies.

    from generator.probe import each, measure, time_settings

    with measure("hashing", parameters={"profile": "default", "sizes_kib": [4, 1024]}) as run:
        timed = time_settings({"sha256 4 KiB": lambda: hashlib.sha256(block).digest()})["sha256 4 KiB"]
        run.timed("results.csv", {"size_kib": 4}, timed, {"ms": each(timed, lambda s: s * 1e3)},
                  units={"ms": "ms", "size_kib": "KiB"})
        run.rows("sizes.csv", [{"size_kib": 4, "bytes": 4096}], units={"bytes": "B"})   # exact columns
    # leaving the block writes measurements/hashing/<UTC time>-<testbed>/ (results.csv with the
    # median of the rounds, samples.csv with every round, manifest.json with the columns' units)
    # into place complete; an exception inside the block writes nothing. The clock is generator.timing's.

A probe in another language is a command that writes CSV files into a folder, and declares their
value columns in columns.json there; finalize() (or `python -m generator.probe finalize DIR ...`,
or `ledger measure` for a probe declared with `{out}` in its command) adds the manifest and hashes
and renames it into place. Both paths go through generator.runs.write_run, the one run writer.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import platform
import re
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from .runs import (
    FILE_PATTERN,
    PROBE_NAME,
    TESTBED_PATTERN,
    Column,
    ColumnKind,
    imported_code,
    installed_timing,
    read_columns,
    remove_tree,
    write_run,
)
from .timing import (
    PerRound,
    Spread,
    Stop,
    Timed,
    call,
    each,
    fixed,
    paired,
    samples_file,
    spread,
    summarise,
    time_interleaved,
)

__all__ = [
    "Column", "Spread", "Stop", "Timed", "each", "environment", "finalize", "measure", "paired", "spread",
    "time_rounds", "time_settings",
]  # fmt: skip

PARAMETERS_FILE = "parameters.json"  # optional, beside the CSV files of a probe in another language
ENVIRONMENT_FILE = "environment.json"  # optional: what the probe knows of its build (compiler, flags, libc)
COLUMNS_FILE = "columns.json"  # the value columns' units and kinds: {file: {column: {"unit", "kind"}}}


def time_rounds(settings: Mapping[str, Callable[[], object]], rounds: int = 7, warmup: int = 1) -> dict[str, Spread]:
    """Seconds per call of each setting, interleaved: rounds outside, settings inside, after warm-up.

    Interleaving makes drift in the machine (clock, heat, other work) hit every setting alike.
    Spread.samples keeps every round; time_settings() keeps each round's context too, for run.timed().
    """
    return {name: timed.spread for name, timed in time_settings(settings, fixed(rounds), warmup).items()}


def time_settings(
    settings: Mapping[str, Callable[[], object]], stop: Stop | None = None, warmup: int = 1
) -> dict[str, Timed]:
    """Every setting timed in interleaved rounds until `stop` (default Stop(): 9 rounds at least, then
    until the median's 99% interval is within 5%, at most 50 rounds or 60 s); every round kept."""
    return time_interleaved({name: call(fn) for name, fn in settings.items()}, stop or Stop(), warmup)


def default_testbed() -> str:
    """LEDGER_TESTBED if set, else '<os>-<machine>' in lower-kebab-case (e.g. linux-x86-64)."""
    named = os.environ.get("LEDGER_TESTBED", "")
    if named:
        return named
    raw = f"{platform.system()}-{platform.machine()}".lower()
    return re.sub(r"[^a-z0-9]+", "-", raw).strip("-") or "unknown"


def environment() -> dict[str, object]:
    """What the machine is, never who runs it: OS, CPU, cores, memory, Python (no host or user names)."""
    found: dict[str, object] = {
        "os": platform.system(),
        "os_release": platform.release(),
        "machine": platform.machine(),
        "python": platform.python_version(),
        "python_implementation": platform.python_implementation(),
        "cpu_count": os.cpu_count(),
    }
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.is_file():
        for line in cpuinfo.read_text(errors="replace").splitlines():
            if line.lower().startswith("model name"):
                found["cpu"] = line.split(":", 1)[1].strip()
                break
    elif platform.processor():
        found["cpu"] = platform.processor()
    try:
        found["memory_bytes"] = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        pass
    return found


def project_root(start: Path | None = None) -> Path:
    """LEDGER_ROOT if set, else the nearest folder at or above `start` holding mkdocs.yml or claims/."""
    named = os.environ.get("LEDGER_ROOT")
    if named:
        return Path(named).resolve()
    here = (start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        if (folder / "mkdocs.yml").is_file() or (folder / "claims").is_dir():
            return folder
    raise RuntimeError(f"no ledger project (mkdocs.yml or claims/) at or above {here}; set LEDGER_ROOT")


def _main_file() -> Path | None:
    main = sys.modules.get("__main__")
    filename = getattr(main, "__file__", None)
    return Path(filename).resolve() if filename else None


@dataclass
class Measurement:
    """A run being measured: add rows with rows()/row(); written when the `with` block ends cleanly."""

    probe: str
    testbed: str
    root: Path
    parameters: dict[str, object]
    environment: dict[str, object]
    probes_dir: str
    code: list[str] | None = None
    started: datetime = field(default_factory=lambda: datetime.now(timezone.utc))
    tables: dict[str, list[Mapping[str, object]]] = field(default_factory=dict)
    columns: dict[str, dict[str, Column]] = field(default_factory=dict)  # file -> column -> its declaration
    path: Path | None = None  # the run's folder, once written

    def declare(self, file: str, units: Mapping[str, str], kind: ColumnKind = "exact") -> None:
        """Declare the unit of columns of `file` and whether they were timed or are exact:
        run.declare("results.csv", {"bytes": "B"}). A column declared twice must be declared alike."""
        declared = self.columns.setdefault(file, {}) if units else {}
        for column, unit in units.items():
            found = Column(unit, kind)
            if declared.setdefault(column, found) != found:
                before = declared[column]
                raise ValueError(
                    f"{file}, column {column!r}: declared {before.unit!r} ({before.kind}), now {unit!r} ({kind})"
                )

    def rows(self, file: str, rows: Iterable[Mapping[str, object]], units: Mapping[str, str] | None = None) -> None:
        """Add tidy rows (one dict per row) to a CSV file of the run; units: column -> unit of its
        exact columns (computed, not timed: run.rows("kv.csv", rows, units={"bytes_per_token": "B"}))."""
        self.tables.setdefault(file, []).extend(dict(row) for row in rows)
        self.declare(file, units or {}, "exact")

    def row(self, file: str = "results.csv", **cells: object) -> None:
        """Add one row: run.row(size_kib=4, bytes=4096); declare its columns' units with declare()."""
        self.rows(file, [cells])

    def timed(
        self,
        file: str,
        keys: Mapping[str, object],
        timed: Timed,
        values: Mapping[str, PerRound],
        spread_of: Sequence[str] = (),
        units: Mapping[str, str] | None = None,
    ) -> None:
        """Add one timed setting: its row to `file` (each value the median of its rounds, with
        rounds and stop) and one row per round to the file's samples table (results.csv ->
        samples.csv). values: column -> {round: value}, from each() or paired(). units: column ->
        unit of every value (declared timed, with its NAME_min and NAME_max) and of any key
        (declared exact); None declares nothing (the gate then warns that the run declares no units)."""
        if units is not None:
            undeclared = [name for name in values if name not in units]
            unknown = [name for name in units if name not in values and name not in keys]
            if undeclared or unknown:
                what = f"no unit for {', '.join(undeclared)}" if undeclared else f"{', '.join(unknown)} is not a column"
                raise ValueError(f"{file}: units: {what}; give every value column of the row its unit")
        row, rounds = summarise(keys, timed, values, spread_of)
        self.rows(file, [row])
        self.rows(samples_file(file), rounds)
        if units is not None:
            self.declare(file, {name: unit for name, unit in units.items() if name in keys}, "exact")
            spreads = {f"{name}_{end}": units[name] for name in spread_of if name in values for end in ("min", "max")}
            self.declare(file, {**{name: units[name] for name in values}, **spreads}, "timed")

    def write(self) -> Path:
        """Hash the probe's code and data, write the manifest, rename the run into place; its folder."""
        code, probe_path = self._code()
        self.path = write_run(
            self.root,
            self.probe,
            self.testbed,
            self.tables,
            parameters=self.parameters,
            environment={**self.environment, **installed_timing(self.root)},
            code=code,
            started=self.started,
            finished=datetime.now(timezone.utc),
            measurements=_measurements_override(),
            probe_path=probe_path,
            columns=self.columns,
        )
        return self.path

    def _code(self) -> tuple[list[str], str]:
        if self.code is not None:
            code = sorted(set(self.code))
            return code, own_file(self.probe, code, self.probes_dir)
        found = set(imported_code(self.root, self.probes_dir))
        main = _main_file()
        if main is not None and self.root.resolve() in main.parents:
            found.add(main.relative_to(self.root.resolve()).as_posix())
        return sorted(found), own_file(self.probe, sorted(found), self.probes_dir, main, self.root)

    def __enter__(self) -> Measurement:
        return self

    def __exit__(self, kind, error, trace) -> None:
        if kind is None:
            path = self.write()
            inside = self.root.resolve() in path.resolve().parents
            print(path.resolve().relative_to(self.root.resolve()).as_posix() if inside else path, flush=True)


def measure(
    probe: str,
    *,
    parameters: Mapping[str, object],
    testbed: str | None = None,
    root: Path | None = None,
    code: Iterable[str] | None = None,
    environment_extra: Mapping[str, object] | None = None,
) -> Measurement:
    """Start a run of `probe` (lower_snake_case); use it as `with measure(...) as run:`.

    parameters: what defines the measurement (profile, shapes) and how it was taken (rounds, warmup).
    testbed: default LEDGER_TESTBED, else '<os>-<machine>'. root: default LEDGER_ROOT, else the
    project around the probe file. code: files (relative to root) the code hash covers; default the
    probe file and every module it imported from the probes folder (LEDGER_PROBES_DIR, else probes).
    """
    if not PROBE_NAME.match(probe):
        raise ValueError(f"probe name {probe!r}: use lower-case letters, digits and '_'")
    bed = testbed or default_testbed()
    if not TESTBED_PATTERN.match(bed):
        raise ValueError(f"testbed {bed!r}: use lower-case letters, digits and '-'")
    main = _main_file()
    found_root = root.resolve() if root else project_root(main.parent if main else None)
    return Measurement(
        probe,
        bed,
        found_root,
        dict(parameters),
        {**environment(), **(environment_extra or {})},
        os.environ.get("LEDGER_PROBES_DIR", "probes"),
        list(code) if code is not None else None,
    )


def finalize(
    folder: Path,
    probe: str,
    *,
    root: Path,
    code: Sequence[str],
    started: datetime,
    finished: datetime | None = None,
    testbed: str | None = None,
    parameters: Mapping[str, object] | None = None,
    probes_dir: str = "probes",
    environment_extra: Mapping[str, object] | None = None,
    machine: Mapping[str, object] | None = None,
) -> Path:
    """Turn a folder of CSV files written by any command into a run, then remove the folder.

    The folder holds tidy CSV files (samples.csv and NAME.samples.csv for raw rounds, like any
    table), optionally parameters.json (merged over `parameters`: what defines the measurement),
    environment.json (merged, then environment_extra over it, into the manifest's environment: the
    compiler and its version, flags, libc, CPU flags; never a defining parameter) and columns.json
    (the unit of each value column and whether it was timed or is exact:
    {"results.csv": {"gb_per_s": {"unit": "GB/s", "kind": "timed"}}}).
    code: the command's source files, relative to root (the probe's own file first or under
    probes_dir named <probe>.*). machine: what the machine did while the command ran (`ledger measure`
    samples it: generator.machine). Returns the run's folder under root/measurements.
    """
    folder = Path(folder)
    if folder.is_symlink():
        raise ValueError(
            f"{folder} is a link (to {os.readlink(folder)}): a probe's output folder is never read through one"
        )
    merged = dict(parameters or {})
    found_environment: dict[str, object] = {}
    columns: dict[str, dict[str, Column]] = {}
    tables: dict[str, list[Mapping[str, object]]] = {}
    for path in sorted(folder.iterdir()):
        if path.is_symlink():
            raise ValueError(
                f"{path.name} in {folder} is a link (to {os.readlink(path)}): a run holds the files a probe wrote, "
                "never what a link points to; write the file itself"
            )
        if path.name == PARAMETERS_FILE:
            merged.update(_json_object(path))
        elif path.name == ENVIRONMENT_FILE:
            found_environment.update(_json_object(path))
        elif path.name == COLUMNS_FILE:
            columns = read_columns(_json_object(path), str(path))
        elif FILE_PATTERN.match(path.name) and path.is_file():
            with open(path, newline="", encoding="utf-8") as handle:
                tables[path.name] = list(csv.DictReader(handle))
        else:
            raise ValueError(
                f"{path}: a probe's output folder holds only *.csv files, {PARAMETERS_FILE}, {ENVIRONMENT_FILE} "
                f"and {COLUMNS_FILE}"
            )
    if not tables:
        raise ValueError(f"{folder}: the probe wrote no CSV file")
    bed = testbed or default_testbed()
    written = write_run(
        root,
        probe,
        bed,
        tables,
        parameters=merged,
        environment={**environment(), **found_environment, **(environment_extra or {})},
        code=code,
        started=started,
        finished=finished or datetime.now(timezone.utc),
        measurements=_measurements_override(),
        probe_path=own_file(probe, list(code), probes_dir),
        columns=columns,
        machine=machine,
    )
    remove_tree(folder)
    return written


def _json_object(path: Path) -> dict[str, object]:
    try:
        found = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ValueError(f"{path}: not JSON ({error}); write one JSON object") from None
    if not isinstance(found, dict):
        raise ValueError(f"{path}: must hold a JSON object")
    return found


def own_file(probe: str, code: list[str], probes_dir: str, main: Path | None = None, root: Path | None = None) -> str:
    """The probe's own file among its code: the running script, else <probes_dir>/<probe>.*, else the first."""
    if main is not None and root is not None and root.resolve() in main.parents:
        relative = main.relative_to(root.resolve()).as_posix()
        if relative in code:
            return relative
    for path in code:
        if Path(path).parent.as_posix() == probes_dir and Path(path).stem == probe:
            return path
    if not code:
        raise ValueError("a run's code must name at least the probe's own file")
    return code[0]


def _measurements_override() -> Path | None:
    named = os.environ.get("LEDGER_MEASUREMENTS")
    return Path(named) if named else None


def _parse_time(text: str) -> datetime:
    moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    return moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)


def main(argv: list[str] | None = None) -> int:
    """`python -m generator.probe finalize DIR --probe NAME --code FILE [...]`: a folder -> a run."""
    parser = argparse.ArgumentParser(prog="python -m generator.probe", description=main.__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    done = commands.add_parser("finalize", help="add the manifest and hashes to a folder of CSVs; rename it in")
    done.add_argument("folder", type=Path)
    done.add_argument("--probe", required=True)
    done.add_argument("--code", action="append", required=True, help="a source file of the probe (repeatable)")
    done.add_argument("--root", type=Path, default=Path("."))
    done.add_argument("--testbed")
    done.add_argument("--started", help="UTC start time (default: the folder's creation, else now)")
    done.add_argument("--param", action="append", default=[], metavar="KEY=VALUE", help="a parameter (JSON value)")
    done.add_argument(
        "--env", action="append", default=[], metavar="KEY=VALUE", help="an environment entry, e.g. compiler=gcc 13.2"
    )
    args = parser.parse_args(argv)
    try:
        print(_finalized(args))
    except (ValueError, OSError) as error:
        print(f"python -m generator.probe: {error}", file=sys.stderr)
        return 2
    return 0


def _finalized(args: argparse.Namespace) -> Path:
    extra = dict(item.partition("=")[::2] for item in args.env)
    parameters: dict[str, object] = {}
    for item in args.param:
        key, _, value = item.partition("=")
        try:
            parameters[key] = json.loads(value)
        except json.JSONDecodeError:
            parameters[key] = value
    started = (
        _parse_time(args.started)
        if args.started
        else datetime.fromtimestamp(args.folder.stat().st_mtime, timezone.utc).replace(microsecond=0)
    )
    return finalize(
        args.folder,
        args.probe,
        root=args.root.resolve(),
        code=args.code,
        started=started,
        testbed=args.testbed,
        parameters=parameters,
        environment_extra=extra,
    )


if __name__ == "__main__":
    sys.exit(main())
