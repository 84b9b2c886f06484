"""Series in tests: runs an hour apart at given levels and a claim citing one (runs_of, ledger), and
seeded series built from this repository's own noise: raw rounds from committed runs' samples.csv,
or, for runs written before raw rounds, each setting's spread.

repository_noise() returns one sampler per measured setting: sampler(rng, n) -> n rounds relative to
their median (1.0 = the median). With raw rounds, a sampler resamples a setting's own rounds
(divided by their median) with replacement. Without them, a setting is its row in results.csv:
X and its X_min/X_max over `rounds` rounds; its rounds are drawn lognormal with the spread that
range implies, sigma = ln(X_max / X_min) / d2(n) (d2: the expected range of n standard normals,
worked out by seeded simulation), so each series carries one real setting's noise level.
"""

from __future__ import annotations

import csv
import math
import random
import statistics
import subprocess
from collections.abc import Callable
from datetime import timedelta
from functools import lru_cache
from pathlib import Path

from helpers import REPO, RUN_TIME, write_tree
from helpers_rounds import rounds_run

from generator.lang import stats
from generator.lang.rows import spread_columns
from generator.lang.values import parse_number
from generator.points import Point

Sampler = Callable[[random.Random, int], list[float]]


def committed(pattern: str) -> list[Path]:
    listed = subprocess.run(
        ["git", "ls-files", "--", pattern], cwd=REPO, capture_output=True, text=True, check=True
    ).stdout.split()
    return [REPO / name for name in listed]


def _rows(path: Path) -> list[dict[str, str]]:
    with open(path, newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def from_raw_rounds(samples: list[Path]) -> list[Sampler]:
    """A sampler per setting and summarised column of each samples.csv: its rounds over their median."""
    found = []
    for path in samples:
        rows = _rows(path)
        results = path.with_name("results.csv" if path.name == "samples.csv" else path.name.replace(".samples", ""))
        if not rows or not results.exists():
            continue
        columns, summary = list(rows[0]), tuple(_rows(results)[0]) if _rows(results) else ()
        values = [c for c in columns if spread_columns(summary, c)]
        # a setting's keys are the summary's columns; the timer's per-round columns (started, wall_s,
        # cpu_s, load_1m) differ from round to round
        keys = [c for c in columns if c in summary and c not in ("round", "reps", *values)]
        groups: dict[tuple, dict[str, list[float]]] = {}
        for row in rows:
            group = groups.setdefault(tuple(row[k] for k in keys), {})
            for column in values:
                number = parse_number(row[column])
                if number is not None and number > 0:
                    group.setdefault(column, []).append(number)
        for group in groups.values():
            for rounds in group.values():
                if len(set(rounds)) >= 5:  # counted or quantized settings have no noise a step could be measured in
                    middle = statistics.median(rounds)
                    relative = [r / middle for r in rounds]
                    found.append(lambda rng, n, pool=relative: [rng.choice(pool) for _ in range(n)])
    return found


@lru_cache(maxsize=64)
def d2(n: int, trials: int = 20000) -> float:
    """The expected range of n standard normal values (seeded simulation)."""
    rng = random.Random(n)
    total = 0.0
    for _ in range(trials):
        draws = [rng.gauss(0.0, 1.0) for _ in range(n)]
        total += max(draws) - min(draws)
    return total / trials


def from_spreads(results: list[Path]) -> list[Sampler]:
    """A lognormal sampler per setting with a min–max spread: sigma = ln(max / min) / d2(rounds)."""
    found = []
    for path in results:
        rows = _rows(path)
        if not rows or "rounds" not in rows[0]:
            continue
        columns = tuple(rows[0])
        for column in columns:
            names = spread_columns(columns, column)
            if names is None:
                continue
            for row in rows:
                low, high, n = (parse_number(row[names[0]]), parse_number(row[names[1]]), parse_number(row["rounds"]))
                if not (low and high and n) or low <= 0 or high <= low or n < 3:
                    continue
                sigma = math.log(high / low) / d2(int(n))
                found.append(lambda rng, k, s=sigma: [math.exp(rng.gauss(0.0, s)) for _ in range(k)])
    return found


def newest_runs() -> list[Path]:
    """The newest committed run of each probe and testbed."""
    newest: dict[tuple[str, str], Path] = {}
    for manifest in committed("measurements/*/*/manifest.json"):
        run = manifest.parent
        key = (run.parent.name, run.name.split("Z-", 1)[-1])
        if key not in newest or run.name > newest[key].name:
            newest[key] = run
    return sorted(newest.values())


@lru_cache(maxsize=1)
def repository_noise() -> tuple[str, tuple[Sampler, ...]]:
    """(where the noise came from, one sampler per setting)."""
    raw = from_raw_rounds(committed("measurements/*/*/*samples.csv"))
    if raw:
        return "raw rounds", tuple(raw)
    results = [run / "results.csv" for run in newest_runs() if (run / "results.csv").exists()]
    return "min–max spreads of the newest runs", tuple(from_spreads(results))


def a_series(
    rng: random.Random, sampler: Sampler, points: int = 15, rounds: int = 9, step_after: int = 0
) -> list[Point]:
    """`points` runs of `rounds` rounds each, as series points (the median, its interval). From point
    step_after + 1 on (a step after point 10: step_after=10), every round moves up by twice the median
    interval half-width of the points before it."""
    runs = [sampler(rng, rounds) for _ in range(points)]
    if step_after:
        widths = [(stats.median_interval(r).high - stats.median_interval(r).low) / 2 for r in runs[:step_after]]
        shift = 2 * statistics.median(widths)
        runs = runs[:step_after] + [[x + shift for x in r] for r in runs[step_after:]]
    found = []
    for index, values in enumerate(runs):
        interval = stats.median_interval(values)
        when = RUN_TIME + timedelta(hours=index)
        found.append(Point(f"r{index}", when, statistics.median(values), interval.low, interval.high, "rounds"))
    return found


# -- runs an hour apart, and a ledger citing one -----------------------------------------------------

LEVEL_A = [3.59, 3.61, 3.6, 3.59, 3.61, 3.6, 3.59, 3.61]  # mean 3.6
LEVEL_B = [4.39, 4.41, 4.4, 4.4]  # mean 4.4
MKDOCS = "site_name: t\nplugins:\n  - ledger:\n      max_run_age_days: 36500{extra}\n"


def rounds(level: float, nudge: int = 0) -> list[float]:
    """Nine rounds whose median is the level, spread ±4%; `nudge` moves the second lowest by nudge·1e-9 of the
    level (not an end of the interval, nor the median), so runs of one level are measurements of their own,
    never byte-identical copies (the gate refuses those)."""
    return [level * (1 + 0.01 * (i - 4)) + (nudge * 1e-9 * level if i == 1 else 0.0) for i in range(9)]


def runs_of(root, levels, start=0, environment=None, testbed="linux-cpu", parameters=None) -> list[str]:
    """A run per level, an hour apart from RUN_TIME + start hours; each row B=16 holds the level."""
    return [
        rounds_run(
            root,
            {1: rounds(1.0), 16: rounds(level, nudge=start + i)},
            when=RUN_TIME + timedelta(hours=start + i),
            environment=environment,
            testbed=testbed,
            parameters=parameters,
        )
        for i, level in enumerate(levels)
    ]


def ledger(root, run: str, value: str = "3.6", extra: str = "", tolerance: str = "5%", policy: str = "") -> None:
    write_tree(
        root,
        {
            "mkdocs.yml": MKDOCS.format(extra=policy),
            "claims/moe.yaml": f"""
                claims:
                  - id: moe-speedup-b16
                    value: {value}
                    unit: "×"
                    kind: measured
                    testbed: linux-cpu
                    evidence: {{run: {run}, file: results.csv, where: {{batch: 16}}, column: speedup}}
                    tolerance: {tolerance}{extra}
                """,
            "docs/index.md": '# Report\n\nBatching gives {{ claim("moe-speedup-b16") }} at B=16.\n',
            "docs/more.md": '# More\n\nAs said, {{ claim("moe-speedup-b16") }}.\n\nAgain: {{ claim("moe-speedup-b16") }}\n',
        },
    )


def name(path: str) -> str:
    return path.rsplit("/", 1)[-1]


SITE = """
site_name: series
theme: {name: material, font: false}
plugins: [search, {ledger: {max_run_age_days: 36500}}]
markdown_extensions: [admonition, attr_list, md_in_html, tables, toc]
nav: [index.md, more.md]
"""


def series_ledger(root) -> list[str]:
    """Twelve runs stepping from 3.6× to 4.4× after the eighth, a claim citing the third, two pages, a site."""
    runs = runs_of(root, LEVEL_A + LEVEL_B)
    ledger(root, runs[2])
    write_tree(root, {"mkdocs.yml": SITE})
    return runs
