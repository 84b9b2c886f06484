"""A Series in words, for every display (the claim page, `ledger history`): how its steps were found,
what happens at each point, and its points as the CSV the site publishes. Pure."""

from __future__ import annotations

import csv
import hashlib
import io
from collections.abc import Iterable

from ..lang.units import Unit
from ..lang.values import format_value, range_text
from ..points import DETECTOR, PAIRWISE, PREDICTED, Point, Series

ALL_UP_TO = 24  # a series this long is listed whole; a longer one shows...
LAST_POINTS = 10  # ...its last runs,
NOTED = 8  # ...and the latest runs where something happens (cited, a step, a segment's start)

METHODS = {
    DETECTOR: "E-divisive means with a t-test at p < 0.001 (a segment of 8 runs or more)",
    PAIRWISE: 'the cited run against the newest by the "changed" test on their raw rounds (under 8 runs)',
    PREDICTED: "the newest run against the prediction interval of the cited run's replicates (under 8 runs)",
    "": "none (one run)",
}


def notes(series: Series, unit: Unit) -> dict[int, list[str]]:
    """Point index -> what happens there: cited, kept through, a segment boundary, a step."""
    found: dict[int, list[str]] = {}
    if series.cited >= 0:
        found.setdefault(series.cited, []).append("cited")
    if series.kept >= 0:
        found.setdefault(series.kept, []).append("kept through (reviewed)")
    for boundary in series.boundaries:
        found.setdefault(boundary.index, []).append(f"{boundary.reason}: {', '.join(boundary.changes)}")
    for step in series.steps:
        p = f", p = {step.p:.2g}" if step.p is not None else ""
        found.setdefault(step.index, []).append(
            f"step {format_value(step.before, unit)} → {format_value(step.after, unit)} ({step.test}{p})"
        )
    return found


def point_text(point: Point, unit: Unit) -> tuple[str, str]:
    """A point's value and interval as text ('' for none), as every display writes them."""
    interval = range_text(point.low, point.high, unit) if point.low is not None and point.high is not None else ""
    return format_value(point.value, unit), interval


CSV_COLUMNS = ("n", "run", "path", "started", "value", "low", "high", "basis", "segment", "shown", "interval")


def points_csv(series: Series, unit: Unit) -> str:
    """A series' points as the site publishes them (the timeline chart's data, and the full series a
    reader can download): one row per run, in time order; segment counts from 1; shown and interval
    are the value and interval as the page writes them."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for number, point in enumerate(series.points):
        shown, interval = point_text(point, unit)
        writer.writerow(
            (
                number + 1,
                point.run.rsplit("/", 1)[-1],
                point.run,
                point.started.isoformat(),
                repr(point.value),
                "" if point.low is None else repr(point.low),
                "" if point.high is None else repr(point.high),
                point.basis,
                point.segment + 1,
                shown,
                interval,
            )
        )
    return out.getvalue()


SERIES_ASSETS = "assets/ledger/series"  # the site's folder of series data, one CSV per series


def asset_path(text: str) -> str:
    """Where the site publishes a series' CSV (points_csv's text): named by the hash of its content."""
    return f"{SERIES_ASSETS}/{hashlib.sha256(text.encode('utf-8')).hexdigest()[:20]}.csv"


def listed(series: Series, noted: Iterable[int]) -> list[int]:
    """The points the table lists: all of a short series; of a longer one, the last LAST_POINTS, the
    cited (and kept) run, where the newest segment starts, and the latest NOTED runs where something
    happens (a step, a boundary). Pure."""
    count = len(series.points)
    if count <= ALL_UP_TO:
        return list(range(count))
    tail = count - LAST_POINTS
    keep = set(range(tail, count)) | {i for i in (series.cited, series.kept) if i >= 0}
    keep |= set(sorted(i for i in noted if i < tail)[-NOTED:])
    newest = series.points[-1].segment
    keep.add(next(i for i, point in enumerate(series.points) if point.segment == newest))
    return sorted(keep)


def gap_text(skipped: int) -> str:
    """A history table's row between two listed runs: how many runs it leaves out."""
    return f"{skipped} run{'s' if skipped > 1 else ''}"


def listed_text(chosen: int, count: int) -> str:
    """What a history table that leaves runs out says of itself."""
    return f"The table lists {chosen} of its {count} runs: the last {LAST_POINTS} and those where something happens. "


def table_words(series: Series, unit: Unit) -> list[str]:
    """Every count a claim page's history table writes of this series (its gaps, its summary) and how
    its steps were found: what verify-site may see there besides the points' values."""
    chosen = listed(series, notes(series, unit))
    words = [METHODS.get(series.method, ""), f"{len(series.points)} runs"]
    if len(chosen) < len(series.points):
        words.append(listed_text(len(chosen), len(series.points)))
    words += [gap_text(b - a - 1) for a, b in zip([-1, *chosen], chosen, strict=False) if b > a + 1]
    return words
