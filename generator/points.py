"""A claim's series: its value across runs (points), their segments and steps. No I/O; beside the
records (Report.series holds them; series/stage.py builds them), so every stage and display can read them."""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from dataclasses import dataclass
from datetime import datetime

from .lang.moves import Judged

PROBE_CHANGED = "probe changed"
ENVIRONMENT_CHANGED = "environment changed"
DETECTOR = "e-divisive"  # a segment long enough for changepoint.change_points
PAIRWISE = "changed"  # a shorter one: stats.changed between the cited (or kept) run and the newest
PREDICTED = "prediction"  # a shorter one whose cited run has replicates: the newest against their prediction interval
PREDICTION_TEST = "prediction interval"  # a Step found so (outside the replicate set's prediction interval)


@dataclass(frozen=True, slots=True)
class Point:
    run: str  # the run's path
    started: datetime
    value: float
    low: float | None = None  # its interval (None: the run has neither raw rounds nor min–max columns)
    high: float | None = None
    basis: str = ""  # rounds | min-max | "" (intervals.py)
    segment: int = 0
    level: float | None = None  # its interval's level (None: not known)


@dataclass(frozen=True, slots=True)
class Boundary:
    index: int  # the first point of the new segment
    reason: str  # PROBE_CHANGED | ENVIRONMENT_CHANGED
    changes: tuple[str, ...]  # "probes/x.py", "mlx_version 0.32.4 → 0.33.0"


@dataclass(frozen=True, slots=True)
class Step:
    index: int  # the first point of the new level
    before: float  # the level before: the mean of its points (a single point for the pairwise test)
    after: float  # the level from index on
    test: str  # "t-test" | "Mann–Whitney U" | "intervals" | PREDICTION_TEST
    p: float | None = None


@dataclass(frozen=True, slots=True)
class Series:
    """A measured claim's value across runs, decided once (the gate); pages, history and diff read it."""

    claim_id: str
    points: tuple[Point, ...]
    cited: int  # the cited run's point; -1 when that run is not in the series (tampered, say)
    boundaries: tuple[Boundary, ...] = ()
    steps: tuple[Step, ...] = ()  # beyond noise and beyond the claim's tolerance, in order
    method: str = ""  # DETECTOR | PAIRWISE | PREDICTED for the cited run's segment; "" with one point
    moved: Step | None = None  # the cited (or kept) level -> the newest level, when a step lies between, or the
    # newest run of a later segment (a change of environment) moved against it
    kept: int = -1  # the point `kept.through` names, when it is after the cited run in its reach
    judged: Judged | None = None  # the newest run of its reach against the cited set or (kept) run (lang/moves.py),
    # where a segment too short for the detector, or a change of environment, has it judged so
    judged_at: int = -1  # the point judged

    def segment(self, index: int) -> range:
        """The indexes of the points in the same segment as point `index`."""
        return segment_of(self.points, index)

    def reach(self, index: int) -> range:
        """Point `index`'s segment and every later one reached across a change of environment alone (never a
        change of probe): a change of environment explains a move, it does not hide one."""
        return reach_of(self.points, self.boundaries, index)

    def changes_after(self, index: int, upto: int) -> tuple[Boundary, ...]:
        """The segment boundaries after point `index`'s segment, up to point `upto`."""
        end = self.segment(index).stop
        return tuple(boundary for boundary in self.boundaries if end <= boundary.index <= upto)


def segment_of(points: tuple[Point, ...], index: int) -> range:
    """The indexes of the points in the same segment as point `index` (in run order, segments numbered up)."""
    number = points[index].segment
    return range(bisect_left(points, number, key=_segment), bisect_right(points, number, key=_segment))


def reach_of(points: tuple[Point, ...], boundaries: tuple[Boundary, ...], index: int) -> range:
    """Series.reach, for a series being built."""
    start, stop = segment_of(points, index).start, segment_of(points, index).stop
    for boundary in boundaries:
        if boundary.index == stop and boundary.reason == ENVIRONMENT_CHANGED:
            stop = segment_of(points, boundary.index).stop
    return range(start, stop)


def _segment(point: Point) -> int:
    return point.segment
