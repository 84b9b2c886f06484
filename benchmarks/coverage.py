"""Coverage of the ledger's intervals, measured: K >= 5 replicate runs of a probe -> how often the interval
stated from the others covers a left-out run's value, within-run and between-run -> a run of its own.

For the newest replicate set of a probe on a testbed (runs of one probe, testbed, defining parameters,
code and environment: generator/judging/replicates.py) with K runs or more, for every setting (a row of
the table, named by its key columns) and every timed column:

- **within-run**: for each ordered pair of runs (i, j), whether run j's own interval (the gate's: the
  median's order-statistic interval of its raw rounds, stated at about 99%) holds run i's value: what a
  reader of one run's interval is promised about the next run;
- **between-run**: leaving run i out, whether the prediction interval the gate computes from the other
  K − 1 runs (lang/between.py, stated at 99%) holds run i's value, run i's own rounds included as the gate
  includes a new run's when judging it (`ledger refresh`, `ledger diff`).

Both are computed with the gate's own code from the stored rounds, deterministic. The result is written
as a run (measurements/coverage/<stamp>-<testbed>/: results.csv per setting and column, summary.csv per
column, every value exact), so the guide's coverage figures are claims with their evidence:

    .venv/bin/ledger measure coverage --testbed linux-cpu-amd-epyc    # mkdocs.yml declares it: bandwidth and moe
    .venv/bin/python benchmarks/coverage.py bandwidth moe --testbed linux-cpu-amd-epyc --claims

One run covers the probes named, on one testbed; --claims writes claims/coverage.yaml, a claim on each
figure of its summary (guide/coverage.md shows them). --keys and --columns name the table's key and value columns when its layout is not the timing
harness's (keys before `rounds`, values in the samples file); --dry-run prints the summary only.
"""

from __future__ import annotations

import argparse
import math
import os
import platform
import statistics
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from generator.gate import check  # noqa: E402
from generator.inputs.config import project_policy  # noqa: E402
from generator.judging import intervals, replicates  # noqa: E402
from generator.lang import between  # noqa: E402
from generator.records import Evidence, Report, Run  # noqa: E402
from generator.runs import Column, write_run  # noqa: E402
from generator.timing import CONTEXT_COLUMNS, samples_file  # noqa: E402

PROBE = "coverage"
CODE = ("benchmarks/coverage.py", "generator/lang/between.py")  # the script and the method it measures
MIN_RUNS = 5
NOT_VALUES = frozenset({"round", "reps", "rounds", *CONTEXT_COLUMNS})


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
    raise SystemExit(
        f"coverage: no replicate set of {probe}{' on ' + testbed if testbed else ''} has {least} runs (the largest "
        f"has {found}); measure it: `ledger measure {probe} --replicates {least}`"
    )


def layout(run: Run, file: str, keys: Sequence[str] | None, columns: Sequence[str] | None) -> tuple[list, list]:
    """The table's key columns (those before `rounds`, else as given) and its timed columns (in the samples
    file, numeric, not a key or a round's context; else as given)."""
    table = run.tables[file]
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
    """One setting's coverage: within-run over ordered pairs of runs, between-run over left-out runs."""

    within_hits: int
    within_pairs: int
    within_level: float  # the median level the runs' own intervals state
    between_hits: int
    left_out: int
    within_width: float  # median relative half-width of a run's own interval
    between_width: float  # median relative half-width of the prediction interval from K - 1 runs
    confidence_width: float  # relative half-width of the pooled value's confidence interval from all K runs
    cv: float  # the runs' standard deviation on the log scale (about their coefficient of variation)


def covered(values: Sequence[between.RunValue]) -> Covered | None:
    """Leave-one-out coverage of one setting's values (None when a prediction cannot be made)."""
    within = [(i, j) for i in range(len(values)) for j in range(len(values)) if i != j]
    hits = sum(_holds(values[j], values[i].value) for i, j in within)
    between_hits, widths = 0, []
    for i, left in enumerate(values):
        pooled = between.pool([v for j, v in enumerate(values) if j != i])
        if pooled is None:
            return None
        low, high = between.prediction(pooled, 1, left)
        between_hits += low <= left.value <= high
        widths.append((high - low) / 2 / abs(pooled.value) if pooled.value else math.inf)
    own = [(v.high - v.low) / 2 / abs(v.value) for v in values if v.value and v.low is not None and v.high is not None]
    logs = [math.log(v.value) for v in values] if all(v.value > 0 for v in values) else [v.value for v in values]
    levels = [v.level for v in values if v.level is not None]
    pooled = between.pool(values)
    assert pooled is not None  # K >= 3 here: K - 1 runs pooled above
    return Covered(
        hits,
        len(within),
        statistics.median(levels) if levels else math.nan,
        between_hits,
        len(values),
        statistics.median(own) if own else math.nan,
        statistics.median(widths),
        (pooled.high - pooled.low) / 2 / abs(pooled.value) if pooled.value else math.inf,
        statistics.stdev(logs),
    )


def _holds(run: between.RunValue, value: float) -> bool:
    return run.low is not None and run.high is not None and run.low <= value <= run.high


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
            "prediction_coverage": 100 * c.between_hits / c.left_out,
            "within_half_width": 100 * c.within_width,
            "prediction_half_width": 100 * c.between_width,
            "confidence_half_width": 100 * c.confidence_width,
            "run_to_run_cv": 100 * c.cv,
        }
        for setting, c in found
    ]


def summary(found: list[tuple[Setting, Covered]], probe: str) -> list[dict[str, object]]:
    """summary.csv: per column (and `all`), coverage pooled over settings, median widths, detectable change."""
    columns = sorted({setting.column for setting, _ in found})
    out = []
    for column in [*columns, "all"]:
        mine = [c for s, c in found if column in ("all", s.column)]
        cv = statistics.median(c.cv for c in mine)
        out.append(
            {
                "probe": probe,
                "column": column,
                "settings": len(mine),
                "runs": mine[0].left_out,
                "within_level": 100 * statistics.median(c.within_level for c in mine),
                "within_coverage": 100 * sum(c.within_hits for c in mine) / sum(c.within_pairs for c in mine),
                "prediction_level": 100 * between.LEVEL,
                "prediction_coverage": 100 * sum(c.between_hits for c in mine) / sum(c.left_out for c in mine),
                "within_half_width": 100 * statistics.median(c.within_width for c in mine),
                "prediction_half_width": 100 * statistics.median(c.between_width for c in mine),
                "confidence_half_width": 100 * statistics.median(c.confidence_width for c in mine),
                "run_to_run_cv": 100 * cv,
                "detectable_3": 100 * between.detectable_change(3, cv),
                "detectable_5": 100 * between.detectable_change(5, cv),
            }
        )
    return out


COLUMNS = {  # every value column is computed from stored runs: the same in every computation of them
    "results.csv": (
        ("runs", "runs"), ("within_level", "%"), ("within_coverage", "%"), ("prediction_level", "%"),
        ("prediction_coverage", "%"), ("within_half_width", "%"), ("prediction_half_width", "%"),
        ("confidence_half_width", "%"), ("run_to_run_cv", "%"),
    ),
    "summary.csv": (
        ("settings", ""), ("runs", "runs"), ("within_level", "%"), ("within_coverage", "%"),
        ("prediction_level", "%"), ("prediction_coverage", "%"), ("within_half_width", "%"),
        ("prediction_half_width", "%"), ("confidence_half_width", "%"), ("run_to_run_cv", "%"), ("detectable_3", "%"),
        ("detectable_5", "%"),
    ),
}  # fmt: skip


def measure(report: Report, probe: str, testbed: str | None, args: argparse.Namespace) -> tuple[list, list, list[Run]]:
    """One probe's newest set, then each setting's coverage: (results rows, summary rows, the set's runs)."""
    members = newest_set(report, probe, testbed, args.min_runs)
    keys, columns = layout(members[-1], args.file, args.keys, args.columns)
    found = [(s, c) for s in settings(members, args.file, keys, columns) if (c := covered(s.values)) is not None]
    if not found:
        raise SystemExit(f"coverage: no timed column of {probe}'s {args.file} has an interval in every run of its set")
    return rows(found, probe), summary(found, probe), members


def arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("probes", nargs="+", metavar="PROBE", help="the probes whose replicate runs to cover")
    parser.add_argument(
        "--testbed",
        default=os.environ.get("LEDGER_TESTBED"),
        help="their testbed (default: `ledger measure --testbed`'s, else the newest run's of the first probe)",
    )
    parser.add_argument("--file", default="results.csv", help="the table (default results.csv)")
    parser.add_argument("--keys", type=lambda text: text.split(","), help="the table's key columns, comma-separated")
    parser.add_argument("--columns", type=lambda text: text.split(","), help="the columns to cover, comma-separated")
    parser.add_argument("--min-runs", type=int, default=MIN_RUNS, help=f"replicate runs needed (default {MIN_RUNS})")
    parser.add_argument("--root", type=Path, default=Path(os.environ.get("LEDGER_ROOT", REPO)), help="the project")
    parser.add_argument("--dry-run", action="store_true", help="print the summary, write no run")
    parser.add_argument(
        "--claims",
        action="store_true",
        help="also write claims/coverage.yaml: a claim for each figure of the run's summary.csv (guide/coverage.md "
        "cites them), replacing that file",
    )
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = arguments(argv)
    root = args.root.resolve()
    started = datetime.now(timezone.utc)
    report = check(root, project_policy(root), started, every_run_rounds=True)
    results: list[dict[str, object]] = []
    summarised: list[dict[str, object]] = []
    sets: dict[str, list[Run]] = {}
    for probe in args.probes:
        found = measure(report, probe, args.testbed, args)
        results += found[0]
        summarised += found[1]
        sets[probe] = found[2]
        args.testbed = args.testbed or found[2][-1].testbed  # every probe on the first one's testbed
    for row in summarised:
        print(line(row))
    if args.dry_run:
        return 0
    run = write(root, args, results, summarised, sets, started)
    print(run)
    if args.claims:
        claims = root / "claims" / "coverage.yaml"
        if claims.is_symlink():
            raise SystemExit(f"coverage: {claims} is a link: nothing is written through one")
        claims.parent.mkdir(exist_ok=True)
        claims.write_text(claims_yaml(run, args.testbed, summarised), encoding="utf-8")
        print(claims.relative_to(root).as_posix())
    return 0


def line(row: dict[str, object]) -> str:
    """One summary row as the closing note reads it."""
    return (
        f"{row['probe']} {row['column']}: {row['settings']} settings, {row['runs']} runs; within-run "
        f"{row['within_coverage']:.1f}% at a stated {row['within_level']:.1f}%, prediction "
        f"{row['prediction_coverage']:.1f}% at {row['prediction_level']:.0f}%; median half-widths: within-run "
        f"{row['within_half_width']:.1f}%, between-run confidence {row['confidence_half_width']:.1f}%, "
        f"prediction {row['prediction_half_width']:.1f}%; detectable change "
        f"{row['detectable_3']:.0f}% with 3 replicates, {row['detectable_5']:.0f}% with 5"
    )


def write(
    root: Path, args: argparse.Namespace, results: list, summarised: list, sets: dict[str, list[Run]], started: datetime
) -> str:
    """The coverage run: its tables, the replicate runs it read (with their manifests' hashes), its code."""
    columns = {name: {c: Column(unit, "exact") for c, unit in entries} for name, entries in COLUMNS.items()}
    path = write_run(
        root,
        PROBE,
        args.testbed,
        {"results.csv": results, "summary.csv": summarised},
        parameters={
            "probes": list(sets),
            "file": args.file,
            "replicate_runs": {probe: [run.path for run in members] for probe, members in sets.items()},
            "manifests_sha256": {probe: [run.manifest_sha256 for run in members] for probe, members in sets.items()},
            "min_runs": args.min_runs,
            "prediction_level": between.LEVEL,
            "method": "leave one out: within-run, run j's own interval holds run i's value (ordered pairs); "
            "between-run, the 99% prediction interval of the other K - 1 runs holds run i's value",
        },
        environment={"python": platform.python_version(), "computed_from": "the stored rounds of the runs named"},
        code=list(CODE),
        started=started,
        finished=datetime.now(timezone.utc),
        probe_path=CODE[0],
        columns=columns,
    )
    return path.relative_to(root).as_posix()


QUANTITIES = (  # summary.csv column -> what a claim on it states
    ("within_level", "the level its within-run intervals state (median over settings)"),
    ("within_coverage", "how often one run's within-run interval holds another run's value"),
    ("prediction_level", "the level the between-run prediction interval states"),
    ("prediction_coverage", "how often the prediction interval of the other runs holds a left-out run's value"),
    ("within_half_width", "median half-width of a run's within-run interval, relative to its value"),
    ("confidence_half_width", "median half-width of the between-run confidence interval of the pooled value"),
    ("prediction_half_width", "median half-width of the prediction interval from the other runs"),
    ("run_to_run_cv", "median run-to-run coefficient of variation (standard deviation of the log values)"),
    (
        "detectable_3",
        "the change between runs the gate detects reliably with 3 replicates, at that variation (checks.md)",
    ),
    (
        "detectable_5",
        "the change between runs the gate detects reliably with 5 replicates, at that variation (checks.md)",
    ),
)


def claims_yaml(run: str, testbed: str, summarised: list[dict[str, object]]) -> str:
    """A measured claim for each figure of summary.csv, its value stated from the run (exact values)."""
    out = [f"# Written by `benchmarks/coverage.py ... --claims` from {run}: rerun it to replace this file.", "claims:"]
    for row in summarised:
        column, probe = str(row["column"]), row["probe"]
        for quantity, what in QUANTITIES:
            value = float(row[quantity])  # type: ignore[arg-type]
            out += [
                f"  - id: coverage-{probe}-{column.replace('_', '-')}-{quantity.replace('_', '-')}",
                f'    statement: "{probe}, {"every timed column" if column == "all" else column}: {what}"',
                f"    value: {value:.1f}",
                '    unit: "%"',
                "    kind: measured",
                f"    testbed: {testbed}",
                f"    evidence: {{run: {run}, file: summary.csv, where: {{probe: {probe}, column: {column}}}, "
                f"column: {quantity}}}",
            ]
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    raise SystemExit(main())
