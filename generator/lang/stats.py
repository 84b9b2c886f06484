"""Statistics: rounds -> intervals, paired intervals, the "changed" test, detectable shifts. Pure.

No I/O, no clock, no global state; the standard library only. Defaults and their sources:

- **The median's interval** (`median_interval`): distribution-free, from order statistics. For n
  sorted values, [x_(k), x_(n+1-k)] covers the population median with probability
  1 - 2·P(Binom(n, 1/2) <= k-1) (David & Nagaraja, *Order Statistics*, §7.1; asv_runner's
  `statistics.py` computes its `ci_99` the same way). The narrowest with coverage of at least
  `level` (default 99%); when none reaches it (n <= 7), min–max with its true coverage (98.4% at
  7 rounds, 99.6% at 9). The one implementation is the probes' clock's, `generator.timing`
  (`median_interval`, `median_coverage`): the probes stop on the interval the gate shows.
- **A paired interval** (`paired_interval`): a formula over several columns of one run, evaluated
  round by round (rounds are interleaved, so drift hits both sides of a ratio alike), then the
  median's interval of those per-round results; a paired ratio is `a / b` per round.
- **"Changed"** (`changed`): as asv's `_stats.is_different` — an exact two-sided Mann–Whitney U
  test at p < 0.002 when both sides have raw rounds and the sample sizes allow such a p at all
  (2 / C(m+n, m) < 0.002: 7 rounds a side or more), otherwise the two intervals do not overlap —
  **and** the move is beyond the claim's tolerance. Ties are broken the least significant way.
- **The shift between two runs' rounds** (`shift_interval`): the Hodges–Lehmann estimate, the median of the
  m·n differences b_j − a_i, and its distribution-free interval [D_(c+1), D_(mn−c)] from the same exact U
  distribution, c the largest U whose two-sided p is below the threshold (Hollander & Wolfe, *Nonparametric
  Statistical Methods*, 2nd ed., 1999, §4.3): it excludes 0 exactly when the Mann–Whitney test finds a change, so
  the interval and the verdict never disagree. With too few rounds for that p, the widest, [D_(1), D_(mn)], at its
  true level (it excludes 0 exactly when the two runs' ranges are disjoint).
- **Interval arithmetic's level** (`joint_level`): when each input's interval covers its median
  with probability l_i, all of them do at once with probability at least 1 - Σ(1 - l_i)
  (Bonferroni), so an interval carried through a formula is shown with that lower bound.
"""

from __future__ import annotations

import bisect
import functools
import math
import random
import statistics
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

import attrs

from .. import timing
from ..timing import Interval  # the probes' clock's interval record: one for the timer and the gate

DEFAULT_LEVEL = 0.99  # the median interval's target coverage
CHANGE_P = 0.002  # asv's p threshold for "changed"
EXACT_LIMIT = 2500  # m·n up to which the Mann–Whitney p is exact (50 rounds a side); above, normal approximation
# timing.median_interval's exact binomial sums grow about as n**4 (2 s at 1,000 rounds): past this many
# raw rounds a setting is refused, so no run can make the gate slow (probes stop at 50 by default).
MAX_ROUNDS = 250


def median_interval(values: Iterable[float], level: float = DEFAULT_LEVEL) -> Interval:
    """timing.median_interval of untrusted values: refused (ValueError) when there are none, one is
    not finite, or there are more than MAX_ROUNDS.

    Which order statistics and their coverage depend only on the count and the level, so they are
    timing's interval of the ranks 0..n-1, worked out once per count (a ledger's claims share a few).
    """
    xs = sorted(float(x) for x in values)
    if not xs:
        raise ValueError("no values")
    if len(xs) > MAX_ROUNDS:
        raise ValueError(f"{len(xs):,} rounds; the gate reads at most {MAX_ROUNDS}")
    if not all(math.isfinite(x) for x in xs):
        raise ValueError("a value is not finite")
    ranks = _ranks(len(xs), level)
    return Interval(xs[int(ranks.low)], xs[int(ranks.high)], ranks.level, ranks.k)


@functools.lru_cache(maxsize=1024)
def _ranks(n: int, level: float) -> Interval:
    return timing.median_interval(range(n), level)


def paired_interval(
    evaluate: Callable[[Mapping[str, float]], float],
    rounds: Mapping[str, Mapping[int, float]],
    level: float = DEFAULT_LEVEL,
) -> tuple[Interval, tuple[tuple[int, float], ...]] | None:
    """A formula over columns of one run, round by round (only rounds where every column ran), then
    the median's interval of the results; None when no round is common to all.

    `evaluate` may raise ValueError (e.g. division by zero in one round): that round is dropped.
    Returns the interval and the per-round results as (round, result), in round order.
    """
    common = sorted(set.intersection(*(set(by_round) for by_round in rounds.values()))) if rounds else []
    results = []
    for index in common:
        try:
            results.append((index, evaluate({name: by_round[index] for name, by_round in rounds.items()})))
        except (ValueError, ArithmeticError):
            continue
    if not results:
        return None
    return median_interval([value for _, value in results], level), tuple(results)


def joint_level(levels: Iterable[float | None]) -> float | None:
    """A lower bound on the probability that every interval covers its median at once (Bonferroni)."""
    found = list(levels)
    if any(level is None for level in found):
        return None
    return max(0.0, 1 - sum(1 - level for level in found if level is not None))


# -- the Mann–Whitney U test ---------------------------------------------------------------------


@functools.lru_cache(maxsize=256)
def _u_counts(m: int, n: int) -> tuple[int, ...]:
    """How many of the C(m+n, m) rank orders give U = 0, 1, ..., m·n: the coefficients of the
    Gaussian binomial [m+n choose m]_q = prod_{i=1..m} (1 - q^(n+i)) / (1 - q^i)."""
    poly = [1]
    for i in range(1, m + 1):
        grown = poly + [0] * (n + i)
        for j, c in enumerate(poly):  # times (1 - q^(n+i))
            grown[j + n + i] -= c
        for j in range(i, len(grown)):  # divided by (1 - q^i): exact, so a running sum
            grown[j] += grown[j - i]
        poly = grown[: i * n + 1]
    return tuple(poly)


def smallest_p(m: int, n: int) -> float:
    """The smallest two-sided p an exact Mann–Whitney test of m against n values can give."""
    return min(1.0, 2 / math.comb(m + n, m)) if m and n else 1.0


def mann_whitney_p(a: Sequence[float], b: Sequence[float]) -> float:
    """Two-sided p of the Mann–Whitney U test; exact up to m·n = EXACT_LIMIT, ties broken conservatively."""
    m, n = len(a), len(b)
    if not m or not n:
        raise ValueError("both samples need values")
    below, ties = _u_and_ties(a, b)
    half = m * n / 2
    # Every way of breaking the ties gives a U in [below, below + ties]: take the one nearest the centre.
    u = below + ties if below + ties < half else below if below > half else math.floor(half)
    extreme = min(u, m * n - u)
    if m * n <= EXACT_LIMIT:
        counts = _u_counts(min(m, n), max(m, n))
        return min(1.0, 2 * sum(counts[: extreme + 1]) / math.comb(m + n, m))
    sd = math.sqrt(m * n * (m + n + 1) / 12)
    z = max(0.0, half - extreme - 0.5) / sd
    return min(1.0, math.erfc(z / math.sqrt(2)))


def _u_and_ties(a: Sequence[float], b: Sequence[float]) -> tuple[int, int]:
    """(#pairs with a > b, #pairs with a == b), by sorting: O((m+n) log(m+n))."""
    ordered = sorted(b)
    below = ties = 0
    for x in a:
        left, right = bisect.bisect_left(ordered, x), bisect.bisect_right(ordered, x)
        below += left
        ties += right - left
    return below, ties


# -- "changed" between two runs ------------------------------------------------------------------


@attrs.frozen(weakref_slot=False)
class Estimate:
    """One run's view of a quantity: its value, its raw rounds (if any) and its interval (if any)."""

    value: float
    rounds: tuple[float, ...] = ()
    low: float | None = None
    high: float | None = None


@dataclass(frozen=True, slots=True)
class Change:
    """The verdict on a move between two runs."""

    changed: bool | None  # significant and beyond tolerance; None when the noise is unknown
    significant: bool | None  # None: neither side has rounds or an interval
    beyond_tolerance: bool
    test: str  # "Mann–Whitney U" | "intervals" | "none"
    p: float | None = None  # the test's p, for Mann–Whitney


def changed(old: Estimate, new: Estimate, allowed: float, p_threshold: float = CHANGE_P) -> Change:
    """Whether a quantity moved between two runs beyond its noise **and** beyond `allowed`.

    Mann–Whitney U at p < p_threshold when both have raw rounds and their sizes allow that p at
    all; otherwise whether the two intervals are disjoint (a side without an interval is its value).
    """
    beyond = abs(new.value - old.value) > allowed
    a, b = old.rounds, new.rounds
    if a and b and smallest_p(len(a), len(b)) < p_threshold:
        p = mann_whitney_p(a, b)
        significant = p < p_threshold
        return Change(significant and beyond, significant, beyond, "Mann–Whitney U", p)
    if old.low is None and new.low is None:
        return Change(None, None, beyond, "none")
    old_low, old_high = (old.low, old.high) if old.low is not None else (old.value, old.value)
    new_low, new_high = (new.low, new.high) if new.low is not None else (new.value, new.value)
    assert old_high is not None and new_high is not None
    significant = old_high < new_low or new_high < old_low
    return Change(significant and beyond, significant, beyond, "intervals")


@dataclass(frozen=True, slots=True)
class Shift:
    """The Hodges–Lehmann shift from one run's rounds to another's, and its interval at `level`."""

    estimate: float
    low: float
    high: float
    level: float


def shift_interval(a: Sequence[float], b: Sequence[float], p_threshold: float = CHANGE_P) -> Shift:
    """The shift from rounds a to rounds b (b − a) with the interval that matches the Mann–Whitney test at
    p_threshold (the widest one, at its true level, when so small a p cannot be reached)."""
    m, n = len(a), len(b)
    if not m or not n:
        raise ValueError("both samples need values")
    differences = sorted(y - x for x in a for y in b)
    total = m * n
    if total <= EXACT_LIMIT:
        c = critical_u(m, n, p_threshold)
        if c is None:
            c, level = 0, 1 - smallest_p(m, n)
        else:
            counts = _u_counts(min(m, n), max(m, n))
            level = 1 - min(1.0, 2 * sum(counts[: c + 1]) / math.comb(m + n, m))
    else:  # the normal approximation mann_whitney_p uses, continuity corrected
        sd = math.sqrt(total * (m + n + 1) / 12)
        z = statistics.NormalDist().inv_cdf(1 - p_threshold / 2)
        c, level = max(0, math.ceil(total / 2 - 0.5 - z * sd) - 1), 1 - p_threshold
    middle = total // 2
    estimate = differences[middle] if total % 2 else (differences[middle - 1] + differences[middle]) / 2
    return Shift(estimate, differences[c], differences[total - 1 - c], level)


# -- what a round count can detect ---------------------------------------------------------------


def lognormal_rounds(rng: random.Random, n: int, cv: float, scale: float = 1.0) -> list[float]:
    """n rounds of a lognormal timing with coefficient of variation cv around `scale` (its median)."""
    sigma = math.sqrt(math.log1p(cv * cv))
    return [scale * math.exp(rng.gauss(0.0, sigma)) for _ in range(n)]


def critical_u(m: int, n: int, p_threshold: float) -> int | None:
    """The largest u whose two-sided exact p is below the threshold (None: no u is)."""
    if smallest_p(m, n) >= p_threshold or m * n > EXACT_LIMIT:
        return None
    counts, total, running, found = _u_counts(min(m, n), max(m, n)), math.comb(m + n, m), 0, None
    for u, count in enumerate(counts):
        running += count
        if 2 * running / total >= p_threshold:
            return found
        found = u
    return found


def detectable_shift(
    rounds: int,
    cv: float = 0.10,
    power: float = 0.90,
    trials: int = 2000,
    seed: int = 18,
    p_threshold: float = CHANGE_P,
) -> tuple[float, str]:
    """The smallest relative shift that `changed` finds with probability `power` between two runs
    of `rounds` lognormal rounds each (coefficient of variation cv), and the test it uses.

    Seeded simulation, computed exactly per trial: with Mann–Whitney, a trial detects a shift s once
    at most u_crit of the m·n ratios a_i / b_j exceed 1 + s, so its threshold is the (u_crit+1)-th
    largest ratio; with intervals, once the shifted run's low end passes the other's high end.
    """
    rng = random.Random(seed)
    critical = critical_u(rounds, rounds, p_threshold)
    thresholds = []
    for _ in range(trials):
        a, b = lognormal_rounds(rng, rounds, cv), lognormal_rounds(rng, rounds, cv)
        if critical is not None:
            ratios = sorted((x / y for x in a for y in b), reverse=True)
            thresholds.append(ratios[critical] - 1)
        else:
            thresholds.append(median_interval(a).high / median_interval(b).low - 1)
    thresholds.sort()
    shift = thresholds[min(len(thresholds) - 1, math.ceil(power * len(thresholds)) - 1)]
    return max(0.0, shift), "Mann–Whitney U" if critical is not None else "intervals"


SHIFT_ROUNDS = (5, 7, 9, 15, 25, 50)  # round counts the guide's table shows (probes take 9 to 50)
SHIFT_CVS = (0.05, 0.10)  # coefficients of variation: a quiet machine, a busy one


def shift_table(rounds: Sequence[int] = SHIFT_ROUNDS, cvs: Sequence[float] = SHIFT_CVS, trials: int = 1000) -> str:
    """The guide's table of detectable shifts (Markdown): `python -m generator.lang.stats` prints it."""
    head = " | ".join(f"shift found 90% of the time, {cv:.0%} CV" for cv in cvs)
    lines = [f'| rounds in each run | the median\'s interval | "changed" by | {head} |']
    lines.append("| " + " | ".join(["---"] * (3 + len(cvs))) + " |")
    for n in rounds:
        found = [detectable_shift(n, cv, trials=trials) for cv in cvs]
        interval = median_interval(range(n))
        level = f"x<sub>({interval.k})</sub>–x<sub>({n + 1 - interval.k})</sub>, {interval.level:.1%}"
        shifts = " | ".join(f"{shift:.0%}" for shift, _ in found)
        lines.append(f"| {n} | {level} | {found[0][1]} | {shifts} |")
    return "\n".join(lines)


if __name__ == "__main__":
    print(shift_table())
