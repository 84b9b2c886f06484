"""A move between two runs or replicate sets, judged: the old and new evidence -> the change with its interval at
the stated level, the smallest change that evidence could detect, and one verdict. Pure.

No I/O, no clock; the standard library only. One function judges a move for every display (`ledger refresh`,
`ledger diff` and its pull-request comment, `ledger history --changed`, `ledger check`), so they cannot disagree.
The change is relative (new / old − 1) and its interval is computed on the log scale where every value is
positive (times and rates are multiplicative), on the values themselves otherwise:

- **Between runs** (`between_sets`: the old side a replicate set, pooled: lang/between.py and lang/pooling.py):
  the log-ratio of the new runs' mean to the set's, ± t·SE at the set's level, SE² = σ̂²/K + σ̂ₙ²/m. With one new
  run, or new runs without a spread of their own, σ̂ₙ is the set's σ̂ (the new run's own within-run spread where
  wider) and t takes the set's degrees of freedom: the interval excludes 0 exactly when the new value lands
  outside the set's prediction interval. With a new set of its own, Welch's: each side its own σ̂ and the
  Welch–Satterthwaite degrees of freedom (Welch, *Biometrika* 34, 1947).
- **Within a run** (`within_runs`: two runs' raw rounds): the medians' move, with the distribution-free interval of
  the Hodges–Lehmann shift of the log rounds (stats.shift_interval), which excludes 0 exactly when the
  Mann–Whitney test at p < 0.002 finds a change. Labelled within-run: it leaves run-to-run variation out.
- **Two intervals** (`apart`: no rounds, a min–max range or an interval on either side): interval arithmetic,
  [new low / old high − 1, new high / old low − 1], at the Bonferroni level of the two; it excludes 0 exactly
  when the two intervals are disjoint.
- **The smallest change it could detect** (`detectable`) with probability POWER at the interval's level:
  (t_((1+L)/2, ν) + t_(POWER, ν))·SE, the minimum detectable effect of a two-sided test (Bloom, *Evaluation
  Review* 19, 1995), with z quantiles where no degrees of freedom apply (the interval's half-width over
  z_((1+L)/2) standing for SE).

The verdict (`judge`): *beyond noise* when the interval excludes 0 and the move is beyond the claim's tolerance;
*within tolerance* when it excludes 0 within it; *within noise* when it holds 0 and the change it could detect
is within the tolerance; otherwise **insufficient data**, naming the cause (few replicates, a noisy machine, a
wandering setting, one run a side, load) and what would settle it. *Exact, changed* for a value with no noise
that moved beyond its tolerance (a step, as beyond noise is); *noise unknown* where neither side has an interval.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass

from . import between, stats

POWER = between.POWER  # the detectable change: found this often
MOST_REPLICATES = 20  # replicates a side the settling advice counts up to; beyond, the machine is the cause
_NORMAL = statistics.NormalDist()

BETWEEN, WITHIN_RUN, INTERVALS = "between-run", "within-run", "intervals"  # Change.basis


@dataclass(frozen=True, slots=True)
class Change:
    """A move's relative change (new / old − 1) with its interval, and the smallest change the evidence detects."""

    change: float
    low: float
    high: float
    level: float | None  # the interval's level (None: an input interval of unknown level)
    basis: str  # BETWEEN | WITHIN_RUN | INTERVALS
    detectable: float  # relative; math.inf when nothing could be seen
    sigma: float = 0.0  # BETWEEN: the run-to-run standard deviation on the log scale, for the settling advice
    runs: tuple[int, int] = (1, 1)  # runs on each side (old, new)
    df: float = 0.0  # BETWEEN: the degrees of freedom of its t
    reference: float = math.nan  # BETWEEN: the old set's pooled value the change is from

    @property
    def holds_zero(self) -> bool:
        return self.low <= 0 <= self.high


def _detect(half: float, level: float | None, df: float = 0.0) -> float:
    """The effect a two-sided test at `level` finds with probability POWER, from an interval's half-width."""
    if not math.isfinite(half) or level is None or not 0 < level < 1:
        return math.inf
    if df:
        alpha, beta = between.t_quantile((1 + level) / 2, round(df)), between.t_quantile(POWER, round(df))
    else:
        alpha, beta = _NORMAL.inv_cdf((1 + level) / 2), _NORMAL.inv_cdf(POWER)
    return half * (alpha + beta) / alpha


def _relative(log: bool, low: float, high: float, centre: float, old: float) -> tuple[float, float, float]:
    if log:
        return math.expm1(centre), math.expm1(low), math.expm1(high)
    return centre / abs(old), low / abs(old), high / abs(old)


def between_sets(
    old: between.Pooled, fresh: Sequence[float], own: between.RunValue | None = None, new: between.Pooled | None = None
) -> Change | None:
    """The mean of the fresh runs' values against the old set (None where a value at or below 0 meets a log set).
    own: the one fresh run's within-run interval; new: the fresh runs' own pooled set (two or more: Welch's)."""
    if not fresh or (old.log and min(fresh) <= 0):
        return None
    scale = math.log if old.log else float
    mean = statistics.fmean(scale(value) for value in fresh)
    m = len(fresh)
    if new is not None and new.runs >= 2 and new.log == old.log:
        a, b = old.spread**2 / old.runs, new.spread**2 / new.runs
        df = (a + b) ** 2 / (a * a / old.freedom + b * b / new.freedom) if a + b > 0 else old.freedom
        se = math.sqrt(a + b)
    else:
        spread = old.spread
        if own is not None and m == 1:
            within = between.within_sd([own], old.log)
            spread = max(spread, within)
        se, df = math.sqrt(old.spread**2 / old.runs + spread**2 / m), old.freedom
    half = between.t_quantile((1 + old.level) / 2, max(1, round(df))) * se
    centre = mean - old.centre
    change, low, high = _relative(old.log, centre - half, centre + half, centre, old.value)
    detect = _detect(half, old.level, max(1.0, df))
    detectable = math.expm1(detect) if old.log else detect / abs(old.value) if old.value else math.inf
    sigma = old.spread if old.log else 0.0
    return Change(change, low, high, old.level, BETWEEN, detectable, sigma, (old.runs, m), df, old.value)


def within_runs(old: Sequence[float], new: Sequence[float], p_threshold: float = stats.CHANGE_P) -> Change | None:
    """The shift from one run's raw rounds to another's (Hodges–Lehmann, on the log scale where all are positive)."""
    if not old or not new:
        return None
    log = min(min(old), min(new)) > 0
    scale = math.log if log else float
    shift = stats.shift_interval([scale(v) for v in old], [scale(v) for v in new], p_threshold)
    reference = statistics.median(old)
    if not log and not reference:
        return None
    moved = scale(statistics.median(new)) - scale(reference)  # the medians' move: the values a reader sees
    change, low, high = _relative(log, shift.low, shift.high, moved, reference)
    half = (shift.high - shift.low) / 2
    detect = _detect(half, shift.level)
    detectable = math.expm1(detect) if log else detect / abs(reference)
    return Change(change, low, high, shift.level, WITHIN_RUN, detectable)


def apart(
    old: float,
    old_range: tuple[float, float] | None,
    new: float,
    new_range: tuple[float, float] | None,
    level: float | None,
) -> Change | None:
    """Two runs' intervals (either may be missing: the run's value) by interval arithmetic; None when neither has
    one or the old side touches 0."""
    if old_range is None and new_range is None:
        return None
    old_low, old_high = old_range or (old, old)
    new_low, new_high = new_range or (new, new)
    if old_low > 0 and new_low > 0:
        change, low, high = new / old - 1, new_low / old_high - 1, new_high / old_low - 1
    elif old:
        change, low, high = (new - old) / abs(old), (new_low - old_high) / abs(old), (new_high - old_low) / abs(old)
    else:
        return None
    return Change(change, low, high, level, INTERVALS, _detect((high - low) / 2, level))


# -- the verdict ------------------------------------------------------------------------------------------

BEYOND, TOLERANCE, WITHIN, INSUFFICIENT = "beyond", "tolerance", "within", "insufficient"
UNKNOWN, UNCHANGED, EXACT_CHANGED = "unknown", "unchanged", "exact-changed"
STEP_STATES = (BEYOND, EXACT_CHANGED)  # a step, wherever it is shown

# Causes of insufficient data, the first that applies
FEW_REPLICATES, NOISY, WANDERING, ONE_RUN, LOADED = "few-replicates", "noisy", "wandering", "one-run", "loaded"


@dataclass(frozen=True, slots=True)
class Judged:
    """The verdict on one move, decided once: its state, the change it rests on, and, when the evidence could not
    have seen a change of the tolerance, why and how many replicates a side would."""

    state: str
    change: Change | None = None
    allowed: float = 0.0  # the claim's tolerance, relative to the old value (0: none known)
    cause: str = ""  # for INSUFFICIENT: FEW_REPLICATES | NOISY | WANDERING | ONE_RUN | LOADED
    needed: int = 0  # FEW_REPLICATES: replicates a side that would see a change of the tolerance
    wandering: float = 0.0  # WANDERING: how many times the set's other settings' variance this one's is

    @property
    def beyond(self) -> bool | None:
        """A step (True: beyond noise, or an exact value that moved beyond its tolerance), not one (False), or
        nothing to judge by (None)."""
        return True if self.state in STEP_STATES else None if self.state == UNKNOWN else False


def judge(
    change: Change | None,
    old: float,
    new: float,
    allowed: float,
    *,
    exact: bool = False,
    wandering: float = 0.0,
    loaded: bool = False,
) -> Judged:
    """The verdict on a move from old to new given its change (None: no interval on either side). allowed: the
    claim's tolerance, absolute. wandering: the old set's setting's variance over the rest of its set's, when it was
    judged apart as noisier. loaded: the runs were measured under load (a run's stability verdict)."""
    relative = allowed / abs(old) if old else 0.0
    if old == new:
        return Judged(UNCHANGED, change, relative)
    if exact:  # no noise: a move beyond the tolerance is a change
        return Judged(EXACT_CHANGED if abs(new - old) > allowed else TOLERANCE, change, relative)
    if change is None:
        return Judged(UNKNOWN, None, relative)
    if not change.holds_zero:
        return Judged(BEYOND if abs(new - old) > allowed else TOLERANCE, change, relative)
    if change.detectable <= relative:
        return Judged(WITHIN, change, relative)
    return _insufficient(change, relative, wandering, loaded)


def _insufficient(change: Change, relative: float, wandering: float, loaded: bool) -> Judged:
    if loaded:
        return Judged(INSUFFICIENT, change, relative, LOADED)
    if change.basis != BETWEEN:
        return Judged(INSUFFICIENT, change, relative, ONE_RUN)
    if wandering > 1:
        return Judged(INSUFFICIENT, change, relative, WANDERING, wandering=wandering)
    needed = replicates_for(change.sigma, relative, change.level or between.LEVEL)
    if needed and needed <= MOST_REPLICATES:
        return Judged(INSUFFICIENT, change, relative, FEW_REPLICATES, needed)
    return Judged(INSUFFICIENT, change, relative, NOISY)


def replicates_for(sigma: float, relative: float, level: float) -> int:
    """Replicates a side that see a change of `relative` with probability POWER at `level`, at run-to-run standard
    deviation sigma (log scale), with the normal quantiles: n = 2·((z_a + z_b)·σ / ln(1 + relative))²; 0 when no
    count can (no tolerance)."""
    if relative <= 0 or sigma <= 0:
        return 0
    z = _NORMAL.inv_cdf((1 + level) / 2) + _NORMAL.inv_cdf(POWER)
    return max(2, math.ceil(2 * (z * sigma / math.log1p(relative)) ** 2))
