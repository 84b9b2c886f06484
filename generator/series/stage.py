"""Series stage: measured claims + runs + run verdicts -> each claim's Series. Pure.

A measured claim's series is the value its evidence selects (file, row, column) in every run of the
same measurement as the run it cites: the same probe, testbed and defining parameters (the rule
`ledger refresh` uses: NOT_DEFINING lists the parameters that only say how hard a run measured),
intact (files as the manifest and git first recorded them), in the order the runs started. Each
point has its interval: the median's from its raw rounds, else the row's min–max (intervals.py).

Segments: a point whose run's code hashes differ from the point before starts a new segment (probe
changed), as does one whose environment differs in a field of SEGMENT_ENVIRONMENT (environment
changed). Steps are looked for within a segment, never across a boundary; but a change of environment
explains a move, it never hides one: the newest run of a later segment reached across environment changes
alone is judged against the cited (or kept) run as a short segment's newest run is (stats.changed).

Steps: in a segment of changepoint.MIN_POINTS points or more, E-divisive means with the t-test and
weak-point merge (changepoint.py), larger than the points' own noise (segment_changes); in a
shorter segment holding the cited run, stats.changed between the cited run and the newest. Either
way a step counts only when the level moves beyond the claim's tolerance. Claims that select the same cells of the same runs share one search.
"""

from __future__ import annotations

import json
import math
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from ..judging import intervals, replicates
from ..judging.replicates import NOT_DEFINING, SEGMENT_ENVIRONMENT, defining  # noqa: F401  (one definition)
from ..judging.replicates import selection as selection_of
from ..lang import between, moves, stats
from ..lang.moves import Judged
from ..lang.values import Tolerance
from ..points import (
    DETECTOR,
    ENVIRONMENT_CHANGED,
    PAIRWISE,
    PREDICTED,
    PREDICTION_TEST,
    PROBE_CHANGED,
    Boundary,
    Point,
    Series,
    Step,
    reach_of,
    segment_of,
)
from ..records import Claim, ClaimInterval, ClaimVerdict, Evidence, Replicas, Run, RunState
from . import changepoint


@dataclass(frozen=True, slots=True)
class _Shared:
    """What claims selecting the same cells share: the points, their estimates, boundaries, detector steps."""

    points: tuple[Point, ...]
    estimates: tuple[stats.Estimate, ...]
    boundaries: tuple[Boundary, ...]
    steps: tuple[Step, ...]  # the detector's, in segments of MIN_POINTS or more, indexes in the series (a
    # claim keeps those beyond its tolerance)
    at: Mapping[str, int]  # run path -> its (first) point
    means: dict[tuple[int, int, bool], float]  # (start, stop, log scale) -> the mean of those points, made once


def build(
    verdicts: Mapping[str, ClaimVerdict], runs: Mapping[str, Run], states: Mapping[str, RunState]
) -> dict[str, ClaimVerdict]:
    """The verdicts again, each measured claim whose evidence computed a value completed with its series.

    The point of a run a claim cites is the one the evidence stage read (ClaimVerdict.point): only the
    other runs of a series are read here."""
    groups = _groups(runs, states)
    keys = {path: _key(run) for path, run in runs.items() if not run.problem}
    measured: dict[str, tuple[ClaimVerdict, Evidence, tuple]] = {}
    read: dict[tuple, dict[str, ClaimVerdict]] = {}  # selection -> run -> a verdict that read its point
    for claim_id, verdict in verdicts.items():
        evidence = verdict.claim.evidence
        if verdict.claim.kind != "measured" or evidence is None or verdict.value is None or evidence.run not in keys:
            continue
        selection = (keys[evidence.run], *selection_of(evidence))  # `where` values with their types: 1 is not true
        measured[claim_id] = (verdict, evidence, selection)
        if verdict.point is not None:
            read.setdefault(selection, {})[evidence.run] = verdict
    index = intervals.RowIndex()
    shared: dict[tuple, _Shared] = {}
    found = dict(verdicts)
    for claim_id, (verdict, evidence, selection) in measured.items():
        if selection not in shared:
            shared[selection] = _shared(groups.get(selection[0], []), evidence, index, read.get(selection, {}))
        line = _series(verdict.claim, shared[selection], verdict.tolerance, verdict.replicas, verdict.exact, states)
        found[claim_id] = verdict.completed(series=line)
    return found


def _key(run: Run) -> tuple[str, str, str]:
    return run.probe_name, run.testbed, json.dumps(defining(run.parameters), sort_keys=True, default=str)


def _groups(runs: Mapping[str, Run], states: Mapping[str, RunState]) -> dict[tuple, list[Run]]:
    """Intact runs grouped by probe, testbed and defining parameters, each group in time order."""
    groups: dict[tuple, list[Run]] = {}
    for path, run in runs.items():
        state = states.get(path)
        if run.problem or run.started is None or state is None or not state.intact:
            continue
        groups.setdefault(_key(run), []).append(run)
    for members in groups.values():
        members.sort(key=lambda run: (run.started, run.path))
    return groups


def _shared(
    members: list[Run], evidence: Evidence, index: intervals.RowIndex, read: Mapping[str, ClaimVerdict]
) -> _Shared:
    """The series of one selection (file, `where`, column) across a group's runs; read: the verdicts of
    claims citing some of those runs, whose points (and raw rounds) the evidence stage read already."""
    points: list[Point] = []
    estimates: list[stats.Estimate] = []
    used: list[Run] = []
    for run in members:
        cited = read.get(run.path)
        # a claim citing a set has the set's interval, not its run's rounds: that run is read as any other
        own = cited is not None and (cited.interval is None or cited.interval.basis != "replicates")
        if cited is not None and cited.point is not None and own:
            points.append(cited.point)
            estimates.append(_estimate(cited.point.value, cited.interval))
            used.append(run)
            continue
        table = run.tables.get(evidence.file)
        cell = intervals.read_cell(table, evidence, index)
        if table is None or cell.value is None:
            continue
        found = intervals.measured(run, evidence, table, cell.rows[0], cell.value, index)
        made = intervals.point(run, cell.value, found)
        if found.problem or made is None:
            continue  # its rounds contradict its summary: not a point to judge others by
        points.append(made)
        estimates.append(_estimate(cell.value, found.interval))
        used.append(run)
    segments = boundaries(used)
    starts = [0, *(b.index for b in segments), len(points)]
    numbered: list[Point] = []
    detected: list[changepoint.ChangePoint] = []
    for number, (start, end) in enumerate(zip(starts, starts[1:], strict=False)):
        numbered += [
            point if point.segment == number else replace(point, segment=number) for point in points[start:end]
        ]
        if end - start >= changepoint.MIN_POINTS:
            detected += [_shifted(found, start) for found in segment_changes(points[start:end])]
    at: dict[str, int] = {}
    for place, point in enumerate(numbered):
        at.setdefault(point.run, place)
    steps = tuple(Step(found.index, found.before, found.after, "t-test", found.p) for found in detected)
    return _Shared(tuple(numbered), tuple(estimates), tuple(segments), steps, at, {})


def _estimate(value: float, interval: ClaimInterval | None) -> stats.Estimate:
    if interval is None:
        return stats.Estimate(value)
    return stats.Estimate(value, tuple(v for _, v in interval.samples), interval.low, interval.high)


def segment_changes(points: Sequence[Point]) -> tuple[changepoint.ChangePoint, ...]:
    """The change points of one segment (E-divisive, t-test) whose move is larger than its points' own
    noise: the median half-width of their intervals (0 when they have none). A level shift smaller
    than one run's noise is significant across many runs, but no run shows it: not a step."""
    widths = [(p.high - p.low) / 2 for p in points if p.low is not None and p.high is not None]
    floor = statistics.median(widths) if widths else 0.0
    found = changepoint.change_points([point.value for point in points], min_step=floor)
    newest = points[-1] if points else None
    if found and found[-1].index == len(points) - 1 and newest is not None and newest.low is not None:
        # the newest run alone as a level: only when its own interval excludes the level before it
        if newest.low <= found[-1].before <= (newest.high if newest.high is not None else newest.low):
            return changepoint.change_points([point.value for point in points[:-1]], min_step=floor)
    return found


def _shifted(found: changepoint.ChangePoint, start: int) -> changepoint.ChangePoint:
    return changepoint.ChangePoint(found.index + start, found.p, found.before, found.after)


def boundaries(runs: list[Run]) -> list[Boundary]:
    """Where the code hashes or the environment change from one run to the next."""
    found = []
    for index, (before, after) in enumerate(zip(runs, runs[1:], strict=False), start=1):
        code = sorted(
            path
            for path in before.declared_code.keys() | after.declared_code.keys()
            if before.declared_code.get(path) != after.declared_code.get(path)
        )
        if code:
            found.append(Boundary(index, PROBE_CHANGED, tuple(code)))
            continue
        changed = [
            f"{name} {_short(before.environment.get(name))} → {_short(after.environment.get(name))}"
            for name in SEGMENT_ENVIRONMENT
            if before.environment.get(name) != after.environment.get(name)
        ]
        if changed:
            found.append(Boundary(index, ENVIRONMENT_CHANGED, tuple(changed)))
    return found


def _short(value: object) -> str:
    text = "(none)" if value is None else value if isinstance(value, str) else json.dumps(value, sort_keys=True)
    return text if len(text) <= 40 else text[:37] + "..."


def _series(
    claim: Claim,
    shared: _Shared,
    tolerance: Tolerance,
    replicas: Replicas | None = None,
    exact: bool = False,
    states: Mapping[str, RunState] | None = None,
) -> Series:
    """One claim's view of a shared series: its cited point, the steps beyond its tolerance, whether it moved.
    With a replicate set up to the cited run (two runs or more), a later run moved only when it lands outside
    the set's prediction interval (and beyond the tolerance). A move judged pairwise or against the set is kept
    whole (lang/moves.py: its change, interval and what it could see), as refresh and diff judge one."""
    assert claim.evidence is not None
    points = shared.points
    cited = shared.at.get(claim.evidence.run, -1)
    if cited < 0:
        return Series(claim.id, points, cited, shared.boundaries)
    reach = reach_of(points, shared.boundaries, cited)
    allowed = tolerance.allowed(points[cited].value)  # the claim's tolerance, as the gate decided it
    steps = [step for step in shared.steps if abs(step.after - step.before) > allowed]
    kept = -1
    if claim.kept_through:
        kept = next((i for i in reach if points[i].run == claim.kept_through and i > cited), -1)
    reference = max(cited, kept)
    segment = segment_of(points, reference)
    judged_set = replicas if kept < 0 else None  # a kept run is judged as one run: the set is the cited run's
    if judged_set is not None:
        allowed = tolerance.allowed(judged_set.pooled.value)
    judged: Judged | None = None
    at = -1
    if len(segment) >= changepoint.MIN_POINTS:
        method = DETECTOR
        moved = _moved_level(points, [s for s in steps if s.index in segment], reference, segment, allowed)
        if moved is not None and judged_set is not None and _inside_level(judged_set, shared, moved.index, segment):
            moved = None
    else:
        method = PREDICTED if judged_set is not None else PAIRWISE if len(segment) > 1 else ""
        at = segment[-1]
        if at > reference:
            judged = _judged(shared, reference, at, allowed, judged_set, exact, states)
        moved = _step(judged, shared, reference, at)
        steps = sorted([*steps, moved], key=lambda step: step.index) if moved else steps
    if moved is None and reach.stop > segment.stop:  # a newer environment: its newest run against the reference
        at = reach[-1]
        judged = _judged(shared, reference, at, allowed, None, exact, states)
        moved = _step(judged, shared, reference, at)
    return Series(claim.id, points, cited, shared.boundaries, tuple(steps), method, moved, kept, judged, at)


def _judged(
    shared: _Shared,
    reference: int,
    newest: int,
    allowed: float,
    replicas: Replicas | None,
    exact: bool,
    states: Mapping[str, RunState] | None = None,
) -> Judged:
    """The newest run against the reference: against its replicate set where it has one (the set's prediction),
    else the two runs' rounds or intervals, as refresh and diff judge a move (review/noise.py); a run of them
    measured under load (its stability verdict) names the cause of insufficient data."""
    points, estimates = shared.points, shared.estimates
    old, new = points[reference], points[newest]
    judged_runs = [*(replicas.runs if replicas is not None else (old.run,)), new.run]
    loaded = replicates.loaded(judged_runs, states or {})
    if replicas is not None:
        pooled = replicas.pooled
        own = between.RunValue(new.value, new.low, new.high, new.level) if new.low is not None else None
        change = moves.between_sets(pooled, [new.value], own)
        wandering = replicas.shared.apart if replicas.shared is not None and replicas.shared.apart > 1 else 0.0
        if change is None:  # a value at or below 0 where its replicates were all above
            return moves.Judged(moves.BEYOND)
        return moves.judge(change, pooled.value, new.value, allowed, wandering=wandering, loaded=loaded)
    first, last = estimates[reference], estimates[newest]
    if first.rounds and last.rounds:
        change = moves.within_runs(first.rounds, last.rounds)
    else:
        level = stats.joint_level([p.level for p in (old, new) if p.low is not None])
        change = moves.apart(old.value, _ends(old), new.value, _ends(new), level)
    return moves.judge(change, old.value, new.value, allowed, exact=exact, loaded=loaded)


def _ends(point: Point) -> tuple[float, float] | None:
    return (point.low, point.high) if point.low is not None and point.high is not None else None


def _step(judged: Judged | None, shared: _Shared, reference: int, newest: int) -> Step | None:
    """The judged move as a step of the series, when it is one (beyond noise, or an exact value that changed)."""
    if judged is None or not judged.beyond:
        return None
    change, points = judged.change, shared.points
    basis = change.basis if change is not None else ""
    test = {moves.BETWEEN: PREDICTION_TEST, moves.WITHIN_RUN: "Mann–Whitney U", moves.INTERVALS: "intervals"}.get(
        basis, "exact"
    )
    first, last = shared.estimates[reference], shared.estimates[newest]
    p = stats.mann_whitney_p(first.rounds, last.rounds) if basis == moves.WITHIN_RUN else None
    return Step(newest, points[reference].value, points[newest].value, test, p)


def _moved_level(
    points: tuple[Point, ...], steps: list[Step], reference: int, segment: range, allowed: float
) -> Step | None:
    """The reference point's level against the newest level, when a step lies after the reference."""
    later = [step for step in steps if step.index > reference]
    if not later:
        return None
    starts = [segment.start, *(step.index for step in steps), segment.stop]
    level = next((start, end) for start, end in zip(starts, starts[1:], strict=False) if start <= reference < end)
    before = math.fsum(points[i].value for i in range(*level)) / (level[1] - level[0])
    newest = math.fsum(points[i].value for i in range(starts[-2], starts[-1])) / (starts[-1] - starts[-2])
    if abs(newest - before) <= allowed:
        return None  # it came back: the newest level reads as the cited one does
    if abs(newest - points[reference].value) <= allowed:
        return None  # the newest level reads as the cited run itself does (its own level sat apart from it)
    return Step(later[0].index, before, newest, later[0].test, later[0].p)


def _inside_level(replicas: Replicas, shared: _Shared, start: int, segment: range) -> bool:
    """Whether the newest level (from `start` to the segment's end) still lands inside the set's prediction
    interval for the mean of that many runs: then the detector's step is run-to-run variation. The level's
    mean is made once for the claims of a series that share it."""
    pooled = replicas.pooled
    key = (start, segment.stop, pooled.log)
    mean = shared.means.get(key)
    if mean is None:
        values = [shared.points[i].value for i in range(start, segment.stop)]
        if pooled.log and min(values) <= 0:
            return False
        mean = shared.means[key] = pooled.unscaled(statistics.fmean(pooled.scaled(v) for v in values))
    return between.inside(pooled, mean, segment.stop - start)
