"""Replicate sets: runs -> the sets of runs that re-measure one thing; a claim's set -> its values in
each run, pooled (lang/between.py). Pure.

Runs of one probe, testbed, defining parameters (all but NOT_DEFINING), code hashes and environment
segment (SEGMENT_ENVIRONMENT: the backend and its versions, the hardware, the interpreter, an installed
timer, a compiled probe's build, a benchmark tool's version and command) are **replicates** of each other, wherever and whenever they were made:
each is a fresh process measuring the same thing on the same kind of machine, so the spread of their
values is the run-to-run variation one run's rounds cannot show. A run whose hardware differs
(MACHINE_ENVIRONMENT: another CPU model on one testbed name) never joins a set, and `ledger refresh`
and `ledger diff` name it as another machine (machine_changes).

A measured claim's set is its run's replicates up to it (the cited run last): with `replicates: N`
its value is pooled over the N newest of them (`all`: every one), its interval is between-run; with
one run, the set still says where the next run should land (the prediction), when it has two runs.
Its run-to-run variation is estimated with the set's other cells of the same column where they vary alike
(cells_of, Pools: lang/pooling.py), each cell a row named as the claim's `where` names its own.
"""

from __future__ import annotations

import json
import math
import statistics
from collections.abc import Collection, Mapping, Sequence

import attrs

from ..lang import between, pooling
from ..lang.rows import cell_number, row_spread
from ..records import ALL_REPLICATES, ClaimInterval, Evidence, Prediction, Run, RunState
from . import intervals

# Parameters that say how a run measured, not what: a run differing only in these may replace another.
NOT_DEFINING = frozenset(
    {
        "rounds", "warmup", "warmup_calls", "warmup_rounds", "min_sample_s", "max_reps", "min_reps", "timing",
        "target", "min_rounds", "max_rounds", "max_seconds", "stop",
        # how the run went, recorded beside its parameters: the time plan a budgeted probe made from its first
        # steps, each setting's stopping reason, what it dropped or could not start for time, its phases and
        # the GPU logger's record (each differs run to run although every run measured the same thing)
        "plan", "stops_by_setting", "dropped_for_time", "not_started_for_time", "failed", "phases", "gpu_log",
    }
)  # fmt: skip

# Manifest environment fields that name what measured: the backend and its versions, the hardware,
# the interpreter, an installed timer, a compiled probe's build and a benchmark tool's version and command.
# A change in one starts a segment of a claim's series (series/stage.py) and a new replicate set. Not here:
# what varies run to run on one machine (load averages, free memory) and the kernel release.
SEGMENT_ENVIRONMENT = (
    "backend", "mlx_version", "packages", "device", "device_info", "cpu_model", "cpu", "machine", "cpu_count",
    "memory_total_bytes", "memory_bytes", "os", "python", "python_implementation", "timing", "compiler", "build",
    "tool", "command",
)  # fmt: skip
# The fields among them that name the hardware: a run differing in one was made on another machine.
MACHINE_ENVIRONMENT = ("device", "device_info", "cpu_model", "cpu", "machine", "cpu_count")


def defining(parameters: Mapping[str, object]) -> dict:
    """The parameters that say what a run measured (all but NOT_DEFINING)."""
    return {key: value for key, value in dict(parameters).items() if key not in NOT_DEFINING}


def key(run: Run) -> tuple[str, str, str, str, str]:
    """What replicates share: probe, testbed, defining parameters, code hashes, environment segment."""
    probe, testbed, parameters, environment = measurement(run)
    return probe, testbed, parameters, json.dumps(dict(run.declared_code), sort_keys=True), environment


def measurement(run: Run) -> tuple[str, str, str, str]:
    """What replicates share but their code: probe, testbed, defining parameters, environment segment (runs
    of one measurement by another version of its probe start a set of their own)."""
    environment = {name: run.environment.get(name) for name in SEGMENT_ENVIRONMENT}
    return (
        run.probe_name,
        run.testbed,
        json.dumps(defining(run.parameters), sort_keys=True, default=str),
        json.dumps(environment, sort_keys=True, default=str),
    )


def machine_changes(before: Run, after: Run) -> list[str]:
    """'cpu_model Intel(R) Xeon(R) Processor → AMD EPYC' for each hardware field that differs ([] on one machine)."""
    return [
        f"{name} {_short(before.environment.get(name))} → {_short(after.environment.get(name))}"
        for name in MACHINE_ENVIRONMENT
        if before.environment.get(name) != after.environment.get(name)
    ]


def _short(value: object) -> str:
    text = "(none)" if value is None else value if isinstance(value, str) else json.dumps(value, sort_keys=True)
    return text if len(text) <= 40 else text[:37] + "..."


class Sets:
    """The runs grouped into replicate sets (key), each in start order; built on first use."""

    def __init__(self, runs: Mapping[str, Run]) -> None:
        self._runs = runs
        self._sets: dict[tuple, list[Run]] | None = None
        self._keys: dict[str, tuple] = {}  # run path -> its key, made once (many claims cite one run)
        self._at: dict[str, int] = {}  # run path -> its place in its set

    def upto(self, run: Run) -> list[Run]:
        """The replicates of `run` that started before it (or with it), in start order, `run` last."""
        if self._sets is None:
            self._sets = {}
            for found in self._runs.values():
                if not found.problem and found.started is not None:
                    self._sets.setdefault(self._key(found), []).append(found)
            for members in self._sets.values():
                members.sort(key=lambda member: (member.started, member.path))
                self._at.update((member.path, place) for place, member in enumerate(members))
        if run.problem or run.started is None:
            return [run]
        members = self._sets.get(self._key(run), [run])
        if len(members) == 1 and members[0] is run:  # the commonest set: the run alone
            return [run]
        place = self._at.get(run.path, -1)
        if 0 <= place < len(members) and members[place] is run:  # a run of the mapping: the set's start, to it
            return members[: place + 1]
        ordered = (run.started, run.path)
        return [member for member in members if (member.started, member.path) < ordered] + [run]

    def _key(self, run: Run) -> tuple:
        if self._runs.get(run.path) is not run:  # a run outside the mapping (refresh's newer runs): made anew
            return key(run)
        found = self._keys.get(run.path)
        if found is None:
            found = self._keys[run.path] = key(run)
        return found


def window(members: Sequence[Run], replicates: int) -> list[Run]:
    """The runs a claim's value pools: the newest `replicates` of the set up to its run (all: every one)."""
    if replicates in (1, ALL_REPLICATES):
        return list(members) if replicates == ALL_REPLICATES else list(members[-1:])
    return list(members[-replicates:])


def shortfall(members: Sequence[Run], replicates: int) -> str:
    """Why the set is too small for `replicates: N` ('' when it is large enough)."""
    if replicates in (1, ALL_REPLICATES) or len(members) >= replicates:
        return ""
    names = ", ".join(member.name for member in members)
    return (
        f"evidence.replicates is {replicates}, but {members[-1].path} has {len(members)} replicate run"
        f"{'s' if len(members) != 1 else ''} up to it ({names}): a replicate is a run of the same probe, testbed, "
        "defining parameters, code and environment"
    )


@attrs.frozen(weakref_slot=False)
class Member:
    """One replicate run's view of a claim's cell: its value and within-run interval, or why it has none."""

    run: Run
    value: float | None = None
    found: intervals.Found | None = None
    problem: str = ""  # why the cell cannot be read in this run ("" when it can)
    rule: str = "invalid"  # the rule that problem is a finding of


def read_member(run: Run, evidence: Evidence, index: intervals.RowIndex) -> Member:
    """The claim's cell (its file, `where` and column) in one replicate run, with its interval."""
    table = run.tables.get(evidence.file)
    cell = intervals.read_cell(table, evidence, index)
    if cell.value is None or table is None:
        where = ", ".join(f"{c}={v}" for c, v in evidence.where) or "no filter"
        return Member(
            run,
            problem=f"replicate {run.path}: {evidence.file} has no one numeric cell {evidence.column} where {where}",
        )
    found = intervals.measured(run, evidence, table, cell.rows[0], cell.value, index)
    if found.problem:
        return Member(run, cell.value, found, f"replicate {found.problem}", found.rule)
    return Member(run, cell.value, found)


def selection(evidence: Evidence) -> tuple:
    """What a claim's evidence reads in each run: its file, `where` and column. Each `where` value keeps its
    type: `1`, `1.0` and `true` are equal keys but select and read differently (and say so differently)."""
    return evidence.file, tuple((column, type(value), value) for column, value in evidence.where), evidence.column


class Reads:
    """Replicate runs' members, each read once per run and selection however many claims' sets hold it.

    Claims selecting the same cells of a series' runs each pool the set up to the run they cite: without
    this, every claim re-read the cell (and its raw rounds) of every run before its own. Only selections
    that `shared` names (read by more than one claim) are kept, and each kept member without its rounds'
    values (pooling reads an interval's ends, level and round count), so a selection only one claim reads
    costs no memory."""

    def __init__(self, index: intervals.RowIndex, shared: Collection[tuple]) -> None:
        self._index, self._shared = index, shared
        self._kept: dict[tuple, Member] = {}  # (run path, selection) -> its member

    def member(self, run: Run, evidence: Evidence) -> Member:
        chosen = selection(evidence)
        if chosen not in self._shared:
            return read_member(run, evidence, self._index)
        key = (run.path, chosen)
        found = self._kept.get(key)
        if found is None:
            found = self._kept[key] = _without_rounds(read_member(run, evidence, self._index))
        return found


def _without_rounds(member: Member) -> Member:
    """The member as pooling reads it: its interval without the per-round values it was computed from."""
    found = member.found
    if found is None or found.interval is None or not found.interval.samples:
        return member
    return attrs.evolve(member, found=attrs.evolve(found, interval=attrs.evolve(found.interval, samples=())))


def run_value(member: Member) -> between.RunValue:
    """A member as the pooling reads it: its value and, when it has one, its within-run interval."""
    assert member.value is not None
    interval = member.found.interval if member.found is not None else None
    if interval is None:
        return between.RunValue(member.value)
    return between.RunValue(member.value, interval.low, interval.high, interval.level)


def usable(members: Sequence[Member], states: Mapping[str, RunState]) -> list[Member]:
    """The members whose cell was read from intact data (a tampered one is the claim's finding, never a value)."""
    return [
        member
        for member in members
        if member.value is not None and not member.problem and states.get(member.run.path, RunState()).intact
    ]


def confidence(pooled: between.Pooled, members: Sequence[Member]) -> ClaimInterval:
    """The pooled value's between-run confidence interval as a claim's interval (basis replicates)."""
    rounds = sum(m.found.interval.rounds for m in members if m.found is not None and m.found.interval is not None)
    return ClaimInterval(pooled.low, pooled.high, pooled.level, "replicates", rounds, runs=pooled.runs)


def prediction(pooled: between.Pooled) -> Prediction:
    """Where one new run of the set should land."""
    low, high = between.prediction(pooled)
    return Prediction(low, high, pooled.level, pooled.runs, pooled.freedom, pooled.cells)


# -- the set's other cells: run-to-run variation estimated together where it is shared ----------------------


def cells_of(runs: Sequence[Run], evidence: Evidence, index: intervals.RowIndex) -> dict[tuple, pooling.Cell]:
    """The cells of the claim's column in a set's runs, by their `where` key (intervals.cell_key): every row named
    as the claim's `where` names its own, once in every run, positive in each (pooled on the log scale), ordered
    by its rounds' own spread (the median over runs of ln(max/min) of its row) where every cell has one, else
    by its level."""
    grouped = []
    for run in runs:
        table = run.tables.get(evidence.file)
        needed = (evidence.column, *(column for column, _ in evidence.where))
        if table is None or table.problem or any(column not in table.columns for column in needed):
            return {}
        grouped.append((table, index.cells(table, evidence.where)))
    once = [{key for key, rows in groups.items() if len(rows) == 1} for _, groups in grouped]
    found: dict[tuple, tuple[tuple[float, ...], list[float]]] = {}
    for key in set.intersection(*once) if once else set():
        values, spreads = [], []
        for table, groups in grouped:
            row = groups[key][0]
            value = cell_number(table, row, evidence.column)
            if value is None or value <= 0:
                break
            values.append(math.log(value))
            spread = row_spread(table, row, evidence.column)
            if spread is not None and spread[0] > 0:
                spreads.append(math.log(spread[1] / spread[0]))
        else:
            found[key] = (tuple(values), spreads)
    by_spread = all(len(spreads) == len(values) for values, spreads in found.values())
    columns = [column for column, _ in evidence.where]
    return {
        key: pooling.Cell(
            _cell_name(columns, key),
            values,
            statistics.median(spreads) if by_spread else statistics.fmean(values),
        )
        for key, (values, spreads) in found.items()
    }


def _cell_name(columns: Sequence[str], key: tuple) -> str:
    return ", ".join(f"{column}={value:g}" if isinstance(value, float) else f"{column}={value}"
                     for column, value in zip(columns, key, strict=True)) or "the one row"  # fmt: skip


class Pools:
    """Each set's cells of a column grouped once (pooling.groups), however many claims read the set."""

    def __init__(self, index: intervals.RowIndex) -> None:
        self._index = index
        self._found: dict[tuple, dict[tuple, pooling.Shared]] = {}

    def shared(self, runs: Sequence[Run], evidence: Evidence) -> pooling.Shared | None:
        """The variation the claim's cell shares with its set's other cells (None: it has no cell to share)."""
        kinds = tuple((column, type(value).__name__) for column, value in evidence.where)
        key = (tuple(run.path for run in runs), evidence.file, evidence.column, kinds)
        found = self._found.get(key)
        if found is None:
            cells = cells_of(runs, evidence, self._index)
            by_name = pooling.groups(list(cells.values()))
            found = self._found[key] = {cell_key: by_name[cell.name] for cell_key, cell in cells.items()
                                        if cell.name in by_name}  # fmt: skip
        return found.get(intervals.cell_key(evidence.where))


def pool_members(members: Sequence[Member], shared: pooling.Shared | None = None) -> between.Pooled | None:
    """The members pooled (between.pool), their spread the one they share with the set's other cells (Pools), when
    their cell pools with others."""
    pooled_with = (shared.variance, shared.df, len(shared.cells)) if shared is not None and shared.pooled else None
    return between.pool([run_value(member) for member in members], shared=pooled_with)


def loaded(runs: Collection[str], states: Mapping[str, RunState]) -> bool:
    """Whether any of the runs was measured under load: its stability verdict says the machine itself was busy
    (lang/stability.py: other processes or machines took its cores), the cause a move's insufficient data names."""
    return any(states[run].stability.loaded for run in runs if run in states)
