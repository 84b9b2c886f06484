"""`ledger coverage PROBE... [--write-run] [--claims]`: how often each interval method holds a left-out run of
the probes' newest replicate sets, per probe and column: the stated level, the coverage measured, the median
half-width and the change it can detect (judging/reruns.py); with --write-run, the figures as a run of their own.

The run (measurements/coverage/<stamp>-<testbed>/: results.csv per setting and column, summary.csv per column,
every value exact) names the replicate runs it read with their manifests' hashes, and hashes its code (CODE), so
a project's coverage figures can be claims with their evidence; --claims writes claims/coverage.yaml, a claim on
each figure of its summary (replacing that file: name every probe in one command). This repository declares it as
a probe run only when named (mkdocs.yml: benchmarks/coverage.py, a thin caller of this verb).
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
from datetime import datetime, timezone
from pathlib import Path

from ..gate import check_project
from ..judging import reruns
from ..lang import between
from ..records import LedgerError, Run
from ..runs import Column, write_run

PROBE = "coverage"
# The code a coverage run hashes: the caller, this verb, the method it measures and the statistics it reads.
CODE = (
    "benchmarks/coverage.py",
    "generator/commands/coverage.py",
    "generator/judging/reruns.py",
    "generator/lang/between.py",
    "generator/lang/pooling.py",
)
MIN_RUNS = 5
SHOWN = (  # (method prefix of summary.csv's columns, its name in the table)
    ("within", "within-run"),
    ("cell", "one setting's runs"),
    ("", "pooled (the gate's)"),
)


def setup_arguments(parser: argparse.ArgumentParser) -> None:
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
    parser.add_argument("--write-run", action="store_true", help="write the figures as a run: measurements/coverage/")
    parser.add_argument(
        "--claims",
        action="store_true",
        help="with --write-run, also write claims/coverage.yaml: a claim for each figure of the run's summary.csv, "
        "replacing that file",
    )


def run_from_args(args: argparse.Namespace) -> int:
    if args.min_runs < 3:
        raise LedgerError(f"--min-runs {args.min_runs}: leaving one run out needs at least 3 runs")
    if args.claims and not args.write_run:
        raise LedgerError("--claims states the figures of a coverage run: add --write-run")
    root = args.root.resolve()
    started = datetime.now(timezone.utc)
    report = check_project(args.root, args.config, started, every_run_rounds=True)
    results: list[dict[str, object]] = []
    summarised: list[dict[str, object]] = []
    sets: dict[str, list[Run]] = {}
    for probe in args.probes:
        try:
            found = reruns.measure(report, probe, args.testbed, args.min_runs, args.file, args.keys, args.columns)
        except reruns.NoSet as error:
            raise LedgerError(f"coverage: {error}") from None
        results += found[0]
        summarised += found[1]
        sets[probe] = found[2]
        args.testbed = args.testbed or found[2][-1].testbed  # every probe on the first one's testbed
    print(as_table(summarised))
    if not args.write_run:
        return 0
    run = write(root, args, results, summarised, sets, started)
    print(run)
    if args.claims:
        claims = root / report.policy.claims_dir / "coverage.yaml"
        if claims.is_symlink():
            raise LedgerError(f"coverage: {claims} is a link: nothing is written through one")
        claims.parent.mkdir(exist_ok=True)
        claims.write_text(reruns.claims_yaml(run, args.testbed, summarised), encoding="utf-8")
        print(claims.relative_to(root).as_posix())
    return 0


def as_table(summarised: list[dict[str, object]]) -> str:
    """Per probe, column and method: the stated level, the coverage measured, the median half-width and the
    change detectable with 3 and 5 replicates, beside the column's median run-to-run variation."""
    lines = [
        "| probe | column | settings × runs | run-to-run CV | method | stated | covers | median half-width "
        "| detects, 3 runs | 5 runs |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for row in summarised:
        head = (
            f"| {row['probe']} | {row['column']} | {row['settings']} × {row['runs']} | {_percent(row['run_to_run_cv'])}"
        )
        for prefix, name in SHOWN:
            if prefix == "within":
                figures = [row["within_level"], row["within_coverage"], row["within_half_width"], None, None]
            else:
                key = f"{prefix}_" if prefix else ""
                figures = [row["prediction_level"], *(row[f"{key}{q}"] for q in PREDICTION)]
            lines.append(f"{head} | {name} | " + " | ".join(_percent(figure) for figure in figures) + " |")
    return "\n".join(lines)


PREDICTION = ("prediction_coverage", "prediction_half_width", "detectable_3", "detectable_5")


def _percent(value: object) -> str:
    return "—" if value is None else f"{float(value):.1f}%"  # type: ignore[arg-type]


def write(
    root: Path,
    args: argparse.Namespace,
    results: list[dict[str, object]],
    summarised: list[dict[str, object]],
    sets: dict[str, list[Run]],
    started: datetime,
) -> str:
    """The coverage run: its tables, the replicate runs it read (with their manifests' hashes), its code."""
    columns = {name: {c: Column(unit, "exact") for c, unit in entries} for name, entries in reruns.COLUMNS.items()}
    code = [path for path in CODE if (root / path).is_file()]  # a project holds the caller, perhaps no more
    if not code:
        raise LedgerError(
            f"coverage: --write-run hashes the code that measured into the run, and {root} holds none of "
            f"{', '.join(CODE)}: copy benchmarks/coverage.py from the ledger's repository, or print the figures only"
        )
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
            "between-run, the 99% prediction interval of the other K - 1 runs holds run i's value: one setting's "
            "runs alone (cell_), and its spread pooled with the set's settings that vary alike (the gate's)",
        },
        environment={"python": platform.python_version(), "computed_from": "the stored rounds of the runs named"},
        code=code,
        started=started,
        finished=datetime.now(timezone.utc),
        probe_path=code[0],
        columns=columns,
    )
    return path.relative_to(root).as_posix()


def main(argv: list[str]) -> int:
    """benchmarks/coverage.py's entry: the verb with --write-run, the project from LEDGER_ROOT (`ledger measure`
    sets it) or --root, errors as the command line shows them."""
    parser = argparse.ArgumentParser(prog="coverage", description=__doc__.split("\n")[0])
    parser.add_argument("--root", type=Path, default=Path(os.environ.get("LEDGER_ROOT", ".")), help="the project")
    parser.add_argument("--config", type=Path, help="mkdocs.yml holding the policy (default: ROOT/mkdocs.yml)")
    setup_arguments(parser)
    args = parser.parse_args(argv)
    args.write_run = True
    try:
        return run_from_args(args)
    except LedgerError as error:
        print(f"ledger: {error}", file=sys.stderr)
        return 1
