"""A Series in words, for every display (the claim page, `ledger history`): how its steps were found,
and what happens at each point. Pure."""

from __future__ import annotations

from ..lang.units import Unit
from ..lang.values import format_value
from .records import DETECTOR, PAIRWISE, Series

METHODS = {
    DETECTOR: "E-divisive means with a t-test at p < 0.001 (a segment of 8 runs or more)",
    PAIRWISE: 'the cited run against the newest by the "changed" test on their raw rounds (under 8 runs)',
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
