"""A benchmark tool's export, read: its benchmarks' rounds with their units -> a run's tables and column
declarations. Pure: the readers (one module a tool) take parsed JSON, tools/__init__ reads the file.

Every round the tool kept becomes a row of samples.csv (numbered across the run in the order the tool
ran them, so rounds that did not run together never pair), and each benchmark a row of results.csv
with the median of its rounds and their slowest and fastest, as a probe of the probe API writes them.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import NoReturn

from ..lang.stats import MAX_ROUNDS
from ..runs import Column

TABLE = "results.csv"
SAMPLES = "samples.csv"  # timing.samples_file(TABLE), which a reader need not import
RESERVED = frozenset({"round", "rounds", "reps"})  # columns the run writes beside a benchmark's keys


class BadExport(ValueError):
    """What is wrong with an export, as 'FIELD: what', the field named as a JSON path (benchmarks[2].time_unit)."""


def fail(where: str, problem: str) -> NoReturn:
    raise BadExport(f"{where}: {problem}")


@dataclass(frozen=True, slots=True)
class Benchmark:
    """One benchmark of an export: what names it (its key columns) and every round the tool kept, or,
    where it kept none, its own summary (column -> value, over `summary_rounds` rounds)."""

    keys: tuple[tuple[str, object], ...]
    rounds: tuple[Mapping[str, float], ...] = ()  # each round: value column -> its value
    reps: tuple[int, ...] = ()  # calls timed in each round, where the tool records them (iterations)
    summary: Mapping[str, float] = field(default_factory=dict)
    summary_rounds: int = 0
    where: str = ""  # the benchmark's place in the export, for an error (benchmarks[3])


@dataclass(frozen=True, slots=True)
class Reading:
    """What an export holds, as a run keeps it: its benchmarks, each value column's unit as the tool's
    output gives it, the tool's record of the machine (never a host or user name) and of its version,
    and the time the tool stamped on it (None: it stamps none)."""

    benchmarks: tuple[Benchmark, ...]
    units: Mapping[str, str]  # value column (and summary column) -> unit
    environment: Mapping[str, object]
    measured: datetime | None = None


def member(parent: object, key: str, where: str) -> object:
    """parent[key], or an error naming where.key as missing."""
    if not isinstance(parent, dict):
        fail(where, "is not a JSON object")
    if key not in parent:
        fail(f"{where}.{key}" if where else key, "is missing")
    return parent[key]


def listed(value: object, where: str) -> list:
    """A non-empty JSON list."""
    if not isinstance(value, list) or not value:
        fail(where, "must be a non-empty list")
    return value


def number(value: object, where: str) -> float:
    """A finite JSON number (true and false are not numbers)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        fail(where, f"{str(value)[:40]!r} is not a finite number")
    return float(value)


def count(value: object, where: str) -> int:
    """A whole number of at least 1 (rounds, iterations)."""
    found = number(value, where)
    if not found.is_integer() or found < 1:
        fail(where, f"{str(value)[:40]!r} is not a whole number of at least 1")
    return int(found)


def text(value: object, where: str) -> str:
    if not isinstance(value, str) or not value.strip():
        fail(where, "must be non-empty text")
    return value


def key_value(value: object, where: str) -> object:
    """A value that names a benchmark in a CSV cell: text, a number or a boolean, never a structure."""
    if isinstance(value, (list, dict)) or value is None:
        fail(where, "must be text or a number to name a benchmark in a table")
    return value


def tables(reading: Reading) -> tuple[dict[str, list[dict[str, object]]], dict[str, dict[str, Column]]]:
    """The run's results.csv (and samples.csv where the tool kept rounds) and their value columns' units."""
    results: list[dict[str, object]] = []
    samples: list[dict[str, object]] = []
    for benchmark in reading.benchmarks:
        keys = _keys(benchmark, reading.units)
        if not benchmark.rounds:
            results.append({**keys, "rounds": benchmark.summary_rounds, **benchmark.summary})
            continue
        if len(benchmark.rounds) > MAX_ROUNDS:
            fail(
                benchmark.where,
                f"{len(benchmark.rounds):,} rounds; a claim's interval is read from at most {MAX_ROUNDS}",
            )
        row: dict[str, object] = {**keys, "rounds": len(benchmark.rounds)}
        for column in reading.units:
            values = [found[column] for found in benchmark.rounds if column in found]
            if values:
                row.update(
                    {column: statistics.median(values), f"{column}_min": min(values), f"{column}_max": max(values)}
                )
        results.append(row)
        for index, found in enumerate(benchmark.rounds):
            reps = {"reps": benchmark.reps[index]} if benchmark.reps else {}
            samples.append({**keys, "round": len(samples) + 1, **reps, **found})
    made = {TABLE: results, **({SAMPLES: samples} if samples else {})}
    present = {column for row in results for column in row}
    declared = {
        column: Column(reading.units[base], "timed")
        for column in present
        for base in (column, column.removesuffix("_min"), column.removesuffix("_max"))
        if base in reading.units
    }
    return made, {TABLE: dict(sorted(declared.items()))}


def _keys(benchmark: Benchmark, units: Mapping[str, str]) -> dict[str, object]:
    keys = dict(benchmark.keys)
    taken = sorted(set(keys) & (RESERVED | {f"{c}{end}" for c in units for end in ("", "_min", "_max")}))
    if taken:
        fail(benchmark.where, f"names a key {taken[0]!r}, which is a column the run writes; rename it")
    return keys
