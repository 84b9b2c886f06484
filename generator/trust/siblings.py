"""Sibling runs: every run -> what each run's timed data and column declarations say against earlier runs'. Pure.

A run is a fresh measurement. Its timed data (each table with a timed column: its raw rounds where the run
keeps them, else the table itself) byte-identical to an earlier run's is a copy, not a replicate: pooled
as one, a copy narrows an interval and lets an author choose the value. Exact tables (a count, a closed
form) may repeat by design. A probe version (the code hashes its manifest lists, which probe.sha256 hashes)
declares its columns alike in every run it writes: a run that declares a column's unit or kind otherwise
than an earlier run of the same code contradicts that run. The gate runs no probe code, so it judges by
those runs; verdicts.py makes each finding a reason the run is not intact.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass

from ..lang.rows import spread_columns
from ..records import Redeclared, Run
from ..runs import is_samples
from ..timing import samples_file


@dataclass(frozen=True, slots=True)
class Against:
    """What one run's data and declarations say against earlier runs' (empty: nothing)."""

    copy_of: str = ""  # the earlier run whose timed data this run's is byte-identical to
    copied: tuple[str, ...] = ()  # those files of this run
    redeclared: tuple[Redeclared, ...] = ()


def against(runs: Mapping[str, Run]) -> dict[str, Against]:
    """Run path -> what it says against an earlier run, for every run that says something (in start order,
    the earlier run is the original: the later one is the copy, or the one that declares otherwise)."""
    ordered = sorted(
        (run for run in runs.values() if not run.problem and run.started is not None),
        key=lambda run: (run.started, run.path),
    )
    first: dict[str, str] = {}  # a timed file's sha256 -> the first run holding it
    declared: dict[tuple[str, str, str], tuple[str, str, str]] = {}  # (code, file, column) -> (run, unit, kind)
    found: dict[str, Against] = {}
    for run in ordered:
        copies: dict[str, list[str]] = {}
        for name in timed_files(run):
            sha256 = run.declared_files[name]
            earlier = first.setdefault(sha256, run.path)
            if earlier != run.path:
                copies.setdefault(earlier, []).append(name)
        code = json.dumps(dict(run.declared_code), sort_keys=True)
        redeclared = []
        for file, columns in sorted(run.columns.items()):
            for column, now in sorted(columns.items()):
                before = declared.setdefault((code, file, column), (run.path, now.unit, now.kind))
                if before[1:] != (now.unit, now.kind):
                    redeclared.append(Redeclared(file, column, before[0], before[1], before[2], now.unit, now.kind))
        if copies or redeclared:
            original = min(copies, default="")  # one earlier run is enough to name
            found[run.path] = Against(original, tuple(copies.get(original, ())), tuple(redeclared))
    return found


def timed_files(run: Run) -> list[str]:
    """The files that hold a run's timed data: for each table with a timed column (declared timed; in a
    table the run declares no kinds for, one with `rounds` or a min–max pair), its raw rounds where the run
    lists them, else the table."""
    found = []
    for name in sorted(run.declared_files):
        if is_samples(name) or not name.endswith(".csv") or not _timed(run, name):
            continue
        rounds = samples_file(name)
        found.append(rounds if rounds in run.declared_files else name)
    return found


def _timed(run: Run, name: str) -> bool:
    declared = run.columns.get(name)
    if declared:
        return any(column.kind == "timed" for column in declared.values())
    table = run.tables.get(name)
    if table is None or table.problem:
        return False
    return "rounds" in table.columns or any(spread_columns(table.columns, column) for column in table.columns)
