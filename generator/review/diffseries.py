"""Series in review: the base's and the head's Reports -> each point a claim's series gains, and
whether it is a step. Pure.

The head's series (series/stage.py, decided by the gate at head) says where its steps and segment
boundaries are; a point is new when its run is not in the claim's series at base. A claim new at
head has no series at base to gain a point, so it is not listed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from ..lang import moves
from ..lang.moves import Judged
from ..lang.values import format_value
from ..points import Series
from ..records import Report
from ..series.changepoint import MIN_POINTS
from ..wording import judged_text


@dataclass(frozen=True, slots=True)
class NewPoint:
    claim_id: str
    run: str
    value: str  # with the claim's unit
    verdict: str  # "step" | "new segment" | "no step" | "insufficient data"
    what: str  # the step's levels and test, the boundary's reason, or the level it joins
    moved: bool  # the claim's series moved since its cited run (moved-since-cited at head)
    judged: Judged | None = None  # the run judged against the cited set or run (lang/moves.py), as history says it


def new_points(base: Report, head: Report, moved: Mapping[str, Judged] | None = None) -> tuple[NewPoint, ...]:
    """Each point a claim's series gains. moved: the judgement of each claim re-measured between the two revisions
    (review/noise.py), which its new cited run takes: the one verdict the diff gives its move."""
    found = []
    for claim_id, now in sorted(head.verdicts.items()):
        line, then = now.series, base.verdict(claim_id)
        before = then.series if then is not None else None
        if line is None or before is None:
            continue
        unit = now.unit
        known = {point.run for point in before.points}
        steps = {step.index: step for step in line.steps}
        boundaries = {boundary.index: boundary for boundary in line.boundaries}
        for index, point in enumerate(line.points):
            if point.run in known:
                continue
            judged = line.judged if index == line.judged_at else None
            if index == line.cited and moved is not None and claim_id in moved:
                judged = moved[claim_id]  # the run it now cites, judged as its move is
            if index in boundaries and judged is None:
                verdict, what = "new segment", f"{boundaries[index].reason}: {', '.join(boundaries[index].changes)}"
            elif judged is not None and judged.beyond and index not in steps:
                verdict, what = "step", judged_text(judged, named=False)
            elif index in steps:
                step = steps[index]
                p = f", p = {step.p:.2g}" if step.p is not None else ""
                verdict = "step"
                what = f"{format_value(step.before, unit)} → {format_value(step.after, unit)} ({step.test}{p})"
                what += f": {judged_text(judged)}" if judged is not None else ""
            elif judged is not None:  # the one verdict history, check and refresh give this run
                verdict = "insufficient data" if judged.state == moves.INSUFFICIENT else "no step"
                what = judged_text(judged, named=verdict == "no step")
            else:
                verdict, what = "no step", _no_step(line, index)
            shown = format_value(point.value, unit)
            found.append(NewPoint(claim_id, point.run, shown, verdict, what, line.moved is not None, judged))
    return tuple(found)


def _no_step(line: Series, index: int) -> str:
    segment = line.segment(index)
    if len(segment) >= MIN_POINTS:
        return "on the level before it (E-divisive means, t-test)"
    if index == line.cited:
        return "the run the claim cites now (under 8 runs, the newest run is compared with the cited one)"
    if index == segment[-1] and line.cited in segment and line.cited < index:
        return "the cited run and this newest one agree within noise or tolerance (a series under 8 runs)"
    return "not judged: under 8 runs, only the newest run is compared with the cited one"
