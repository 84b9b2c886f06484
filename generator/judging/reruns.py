"""Re-runs held: a probe's newest replicate set (K runs) -> how often each interval method holds a left-out run,
how wide each is and the change it can detect, per setting and per column. Pure: the gate's Report is read.

For the newest replicate set of a probe on a testbed (runs of one probe, testbed, defining parameters, code and
environment: replicates.py) with K runs or more, for every setting (a row of the table, named by its key
columns) and every timed column, three methods, each with the gate's own code on the stored rounds:

- **within-run**: for each ordered pair of runs (i, j), whether run j's own interval (the median's
  order-statistic interval of its rounds, about 99%) holds run i's value;
- **one cell's prediction** (`cell_`): leaving run i out, whether the 99% prediction interval of the other
  K − 1 runs of this setting alone (K − 2 degrees of freedom: the gate's method before pooling) holds it;
- **the gate's prediction** (no prefix): the same, the spread shared with the other settings of the column
  that vary alike in those K − 1 runs (lang/pooling.py), as the gate computes it for a claim's set.

Run i's own rounds are included as the gate includes a new run's when judging it. The detectable change is
between.detectable_change at the column's median run-to-run variation: for one cell, on K − 1 degrees of
freedom; for the gate's, on (K − 1)·M, M the median number of cells a setting's variation is pooled over.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass

from ..lang import between
from ..records import Evidence, Report, Run
from ..timing import CONTEXT_COLUMNS, samples_file
from . import intervals, replicates

NOT_VALUES = frozenset({"round", "reps", "rounds", *CONTEXT_COLUMNS})
METHODS = (  # (prefix of its columns, in words)
    ("within", "within-run: one run's interval from its rounds"),
    ("cell", "prediction from one setting's K − 1 runs alone"),
    ("", "prediction pooled over the setting's set (the gate's)"),
)


class NoSet(ValueError):
    """No replicate set large enough, or no column to cover: the message says how to make one."""


@dataclass(frozen=True, slots=True)
class Setting:
    """One setting and column across the set's runs: each run's value and its within-run interval."""

    where: tuple[tuple[str, object], ...]
    column: str
    values: tuple[between.RunValue, ...]


def newest_set(report: Report, probe: str, testbed: str | None, least: int) -> list[Run]:
    """The replicate set of the probe (on the testbed) with its newest run, among those with `least` runs."""
    sets = replicates.Sets(report.runs)
    candidates = [
        run
        for run in report.runs.values()
        if run.probe_name == probe
        and not run.problem
        and run.started is not None
        and (testbed is None or run.testbed == testbed)
        and report.run_state(run.path).intact
    ]
    for run in sorted(candidates, key=lambda r: (r.started, r.path), reverse=True):
        members = [m for m in sets.upto(run) if report.run_state(m.path).intact]
        if len(members) >= least:
            return members
    found = max((len(sets.upto(run)) for run in candidates), default=0)
    raise NoSet(
        f"no replicate set of {probe}{' on ' + testbed if testbed else ''} has {least} runs (the largest has "
        f"{found}); measure it: `ledger measure {probe} --replicates {least}`"
    )


def layout(run: Run, file: str, keys: Sequence[str] | None, columns: Sequence[str] | None) -> tuple[list, list]:
    """The table's key columns (those before `rounds`, else as given) and its timed columns (in the samples
    file, numeric, not a key or a round's context; else as given)."""
    table = run.tables.get(file)
    if table is None or (not keys and "rounds" not in table.columns):
        raise NoSet(f"{run.path} has no {file} with a `rounds` column: name its key columns with --keys")
    found_keys = list(keys) if keys else list(table.columns[: table.columns.index("rounds")])
    if columns:
        return found_keys, list(columns)
    samples = run.tables.get(samples_file(file))
    timed = [c for c in (samples.columns if samples else ()) if c in table.columns and c not in NOT_VALUES]
    return found_keys, [c for c in timed if c not in found_keys]


def settings(members: list[Run], file: str, keys: list[str], columns: list[str]) -> list[Setting]:
    """Every setting of the newest run's table and every column, read in each run as the gate reads a claim."""
    index = intervals.RowIndex()
    newest = members[-1].tables[file]
    found = []
    for row in newest.rows:
        where = tuple((key, _typed(row[newest.columns.index(key)])) for key in keys)
        for column in columns:
            evidence = Evidence(members[-1].path, file, where, column)
            values = [_value(run, evidence, index) for run in members]
            if all(value is not None for value in values):
                found.append(Setting(where, column, tuple(v for v in values if v is not None)))
    return found


def _typed(cell: str) -> object:
    try:
        number = float(cell)
    except ValueError:
        return cell
    return int(number) if number.is_integer() and "." not in cell and "e" not in cell.lower() else number


def _value(run: Run, evidence: Evidence, index: intervals.RowIndex) -> between.RunValue | None:
    member = replicates.read_member(run, evidence, index)
    if member.problem or member.value is None or member.found is None or member.found.interval is None:
        return None  # no cell, or no within-run interval (an exact value): nothing to cover
    return replicates.run_value(member)


@dataclass(frozen=True, slots=True)
class Covered:
    """One setting's coverage: within-run over ordered pairs of runs; each prediction over left-out runs."""

    within_hits: int
    within_pairs: int
    within_level: float  # the median level the runs' own intervals state
    cell_hits: int  # one setting alone
    hits: int  # pooled, as the gate computes it
    left_out: int
    within_width: float  # median relative half-width of a run's own interval
    cell_width: float  # median relative half-width of one setting's prediction from K − 1 runs
    width: float  # of the pooled prediction
    cell_confidence: float  # relative half-width of the pooled value's confidence interval, all K runs, alone
    confidence: float  # and pooled
    cv: float  # the runs' standard deviation on the log scale (about their coefficient of variation)
    cells: int  # the settings whose variation it shares, all K runs (1: its own)


def covered(setting: Setting, members: Sequence[Run], file: str, pools: replicates.Pools) -> Covered | None:
    """Leave-one-out coverage of one setting (None when a prediction cannot be made). pools: the settings of a
    column grouped once per set of runs (each set left after one run is left out, and the whole)."""
    values = setting.values
    within = [(i, j) for i in range(len(values)) for j in range(len(values)) if i != j]
    within_hits = sum(_holds(values[j], values[i].value) for i, j in within)
    evidence = Evidence(members[-1].path, file, setting.where, setting.column)
    held: dict[str, list[bool]] = {"cell": [], "pooled": []}  # each left-out run held, by method
    widths: dict[str, list[float]] = {"cell": [], "pooled": []}  # each prediction's relative half-width
    for i, left in enumerate(values):
        others = [v for j, v in enumerate(values) if j != i]
        runs = [run for j, run in enumerate(members) if j != i]
        alone = between.pool(others)
        if alone is None:
            return None
        for method, found in (("cell", alone), ("pooled", _pooled(others, pools, runs, evidence))):
            low, high = between.prediction(found, 1, left)
            held[method].append(low <= left.value <= high)
            widths[method].append((high - low) / 2 / abs(found.value) if found.value else math.inf)
    own = [(v.high - v.low) / 2 / abs(v.value) for v in values if v.value and v.low is not None and v.high is not None]
    logs = [math.log(v.value) for v in values] if all(v.value > 0 for v in values) else [v.value for v in values]
    levels = [v.level for v in values if v.level is not None]
    alone, pooled = between.pool(values), _pooled(values, pools, list(members), evidence)
    assert alone is not None  # K >= 3 here: K - 1 runs pooled above
    return Covered(
        within_hits,
        len(within),
        statistics.median(levels) if levels else math.nan,
        sum(held["cell"]),
        sum(held["pooled"]),
        len(values),
        statistics.median(own) if own else math.nan,
        statistics.median(widths["cell"]),
        statistics.median(widths["pooled"]),
        _half(alone),
        _half(pooled),
        statistics.stdev(logs),
        pooled.cells,
    )


@dataclass(frozen=True, slots=True)
class Held:
    """Leave-one-out on one setting's runs alone: how many the 99% prediction interval of the others held."""

    between_hits: int
    left_out: int


def held_alone(values: Sequence[between.RunValue]) -> Held | None:
    """Each of one setting's runs left out in turn and held to the prediction interval of the others alone (K − 2
    degrees of freedom: there is no other setting to pool with); None for fewer than 3 runs. The count a set made
    by `ledger measure --until-settled` is held to (tests/test_settled.py, benchmarks/settled_coverage.py)."""
    if len(values) < 3:
        return None
    hits = 0
    for i, left in enumerate(values):
        found = between.pool([v for j, v in enumerate(values) if j != i])
        assert found is not None  # two runs or more
        low, high = between.prediction(found, 1, left)
        hits += low <= left.value <= high
    return Held(hits, len(values))


def _pooled(
    values: Sequence[between.RunValue], pools: replicates.Pools, runs: Sequence[Run], evidence: Evidence
) -> between.Pooled:
    """The values pooled as the gate pools a claim's set: the spread shared with the set's settings that vary alike."""
    shared = pools.shared(runs, evidence)
    pooled_with = (shared.variance, shared.df, len(shared.cells)) if shared is not None and shared.pooled else None
    found = between.pool(values, shared=pooled_with)
    assert found is not None
    return found


def _half(pooled: between.Pooled) -> float:
    return (pooled.high - pooled.low) / 2 / abs(pooled.value) if pooled.value else math.inf


def _holds(run: between.RunValue, value: float) -> bool:
    return run.low is not None and run.high is not None and run.low <= value <= run.high


def measure(
    report: Report,
    probe: str,
    testbed: str | None,
    least: int,
    file: str = "results.csv",
    keys: Sequence[str] | None = None,
    columns: Sequence[str] | None = None,
) -> tuple[list[dict[str, object]], list[dict[str, object]], list[Run]]:
    """One probe's newest set, then each setting's coverage: (results rows, summary rows, the set's runs)."""
    members = newest_set(report, probe, testbed, least)
    found_keys, found_columns = layout(members[-1], file, keys, columns)
    pools = replicates.Pools(intervals.RowIndex())
    found = [
        (s, c) for s in settings(members, file, found_keys, found_columns) if (c := covered(s, members, file, pools))
    ]
    if not found:
        raise NoSet(f"no timed column of {probe}'s {file} has an interval in every run of its set")
    return rows(found, probe), summary(found, probe), members


def rows(found: list[tuple[Setting, Covered]], probe: str) -> list[dict[str, object]]:
    """results.csv: one row per setting and column."""
    return [
        {
            "probe": probe,
            "setting": ", ".join(f"{k}={v}" for k, v in setting.where),
            "column": setting.column,
            "runs": c.left_out,
            "within_level": 100 * c.within_level,
            "within_coverage": 100 * c.within_hits / c.within_pairs,
            "prediction_level": 100 * between.LEVEL,
            "cell_prediction_coverage": 100 * c.cell_hits / c.left_out,
            "prediction_coverage": 100 * c.hits / c.left_out,
            "within_half_width": 100 * c.within_width,
            "cell_prediction_half_width": 100 * c.cell_width,
            "prediction_half_width": 100 * c.width,
            "cell_confidence_half_width": 100 * c.cell_confidence,
            "confidence_half_width": 100 * c.confidence,
            "run_to_run_cv": 100 * c.cv,
            "pooled_cells": c.cells,
        }
        for setting, c in found
    ]


def summary(found: list[tuple[Setting, Covered]], probe: str) -> list[dict[str, object]]:
    """summary.csv: per column (and `all`), coverage over settings, median widths, detectable changes."""
    columns = sorted({setting.column for setting, _ in found})
    out = []
    for column in [*columns, "all"]:
        mine = [c for s, c in found if column in ("all", s.column)]
        cv = statistics.median(c.cv for c in mine)
        cells = statistics.median(c.cells for c in mine)
        left_out = sum(c.left_out for c in mine)
        out.append(
            {
                "probe": probe,
                "column": column,
                "settings": len(mine),
                "runs": mine[0].left_out,
                "within_level": 100 * statistics.median(c.within_level for c in mine),
                "within_coverage": 100 * sum(c.within_hits for c in mine) / sum(c.within_pairs for c in mine),
                "prediction_level": 100 * between.LEVEL,
                "cell_prediction_coverage": 100 * sum(c.cell_hits for c in mine) / left_out,
                "prediction_coverage": 100 * sum(c.hits for c in mine) / left_out,
                "within_half_width": 100 * statistics.median(c.within_width for c in mine),
                "cell_prediction_half_width": 100 * statistics.median(c.cell_width for c in mine),
                "prediction_half_width": 100 * statistics.median(c.width for c in mine),
                "cell_confidence_half_width": 100 * statistics.median(c.cell_confidence for c in mine),
                "confidence_half_width": 100 * statistics.median(c.confidence for c in mine),
                "run_to_run_cv": 100 * cv,
                "pooled_cells": cells,
                "cell_detectable_3": 100 * between.detectable_change(3, cv),
                "cell_detectable_5": 100 * between.detectable_change(5, cv),
                "detectable_3": 100 * between.detectable_change(3, cv, df=_pooled_df(3, cells)),
                "detectable_5": 100 * between.detectable_change(5, cv, df=_pooled_df(5, cells)),
            }
        )
    return out


def _pooled_df(replicates: int, cells: float) -> int | None:
    """The degrees of freedom a set of `replicates` runs gives a setting whose variation `cells` settings share."""
    return int((replicates - 1) * cells) if cells > 1 else None


COLUMNS = {  # each value column of the coverage run, with its unit: computed from stored runs, exact
    "results.csv": (
        ("runs", "runs"), ("within_level", "%"), ("within_coverage", "%"), ("prediction_level", "%"),
        ("cell_prediction_coverage", "%"), ("prediction_coverage", "%"), ("within_half_width", "%"),
        ("cell_prediction_half_width", "%"), ("prediction_half_width", "%"), ("cell_confidence_half_width", "%"),
        ("confidence_half_width", "%"), ("run_to_run_cv", "%"), ("pooled_cells", ""),
    ),
    "summary.csv": (
        ("settings", ""), ("runs", "runs"), ("within_level", "%"), ("within_coverage", "%"),
        ("prediction_level", "%"), ("cell_prediction_coverage", "%"), ("prediction_coverage", "%"),
        ("within_half_width", "%"), ("cell_prediction_half_width", "%"), ("prediction_half_width", "%"),
        ("cell_confidence_half_width", "%"), ("confidence_half_width", "%"), ("run_to_run_cv", "%"),
        ("pooled_cells", ""), ("cell_detectable_3", "%"), ("cell_detectable_5", "%"), ("detectable_3", "%"),
        ("detectable_5", "%"),
    ),
}  # fmt: skip

QUANTITIES = (  # summary.csv column -> what a claim on it states
    ("within_level", "the level its within-run intervals state (median over settings)"),
    ("within_coverage", "how often one run's within-run interval holds another run's value"),
    ("prediction_level", "the level the between-run prediction interval states"),
    ("cell_prediction_coverage", "how often one setting's prediction interval from the other runs alone holds a left-out run's value"),
    ("prediction_coverage", "how often the gate's prediction interval (pooled over the set's settings) holds a left-out run's value"),
    ("within_half_width", "median half-width of a run's within-run interval, relative to its value"),
    ("cell_prediction_half_width", "median half-width of one setting's prediction interval from the other runs alone"),
    ("prediction_half_width", "median half-width of the gate's prediction interval from the other runs"),
    ("confidence_half_width", "median half-width of the gate's between-run confidence interval of the pooled value"),
    ("run_to_run_cv", "median run-to-run coefficient of variation (standard deviation of the log values)"),
    ("pooled_cells", "median number of settings whose run-to-run variation a setting's is pooled with, itself included"),
    ("cell_detectable_3", "the change between runs one setting's 3 replicates alone detect reliably, at that variation"),
    ("detectable_3", "the change between runs the gate detects reliably with 3 replicates, at that variation"),
    ("detectable_5", "the change between runs the gate detects reliably with 5 replicates, at that variation"),
)  # fmt: skip


def claims_yaml(run: str, testbed: str, summarised: list[dict[str, object]]) -> str:
    """A measured claim for each figure of summary.csv QUANTITIES names, stated from the run (exact values), and the
    detectable change in multiples of the run-to-run variation (extrapolated from two of them)."""
    out = [f"# Written by `ledger coverage ... --claims` from {run}: rerun it to replace this file.", "claims:"]
    for row in summarised:
        column, probe = str(row["column"]), row["probe"]
        for quantity, what in QUANTITIES:
            value = float(row[quantity])  # type: ignore[arg-type]
            unit = '""' if quantity == "pooled_cells" else '"%"'
            out += [
                f"  - id: coverage-{probe}-{column.replace('_', '-')}-{quantity.replace('_', '-')}",
                f'    statement: "{probe}, {"every timed column" if column == "all" else column}: {what}"',
                f"    value: {value:.1f}",
                f"    unit: {unit}",
                "    kind: measured",
                f"    testbed: {testbed}",
                f"    evidence: {{run: {run}, file: summary.csv, where: {{probe: {probe}, column: {column}}}, "
                f"column: {quantity}}}",
            ]
        stem = f"coverage-{probe}-{column.replace('_', '-')}"
        ratio = float(row["detectable_3"]) / float(row["run_to_run_cv"])  # type: ignore[arg-type]
        out += [
            f"  - id: {stem}-detectable-3-in-cvs",
            f'    statement: "{probe}, {"every timed column" if column == "all" else column}: the change the gate '
            'detects with 3 replicates, in multiples of the median run-to-run variation"',
            f"    value: {ratio:.1f}",
            '    unit: "×"',
            "    kind: extrapolated",
            "    formula: detectable / cv",
            f"    inputs: {{detectable: {stem}-detectable-3, cv: {stem}-run-to-run-cv}}",
        ]
    return "\n".join(out) + "\n"
