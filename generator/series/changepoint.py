"""Change-points: a series of values -> the steps in it (E-divisive means, Student's t-test). Pure.

No I/O, no clock, no randomness; the standard library only. The method, its defaults and sources:

- **Candidates** by E-divisive means (Matteson & James, "A Nonparametric Approach for Multiple Change
  Point Analysis of Multivariate Data", JASA 2014, arXiv:1306.4933) with alpha = 1: within an
  interval [s, e) of the series, the split tau and end kappa (s < tau < kappa <= e) that maximise
  Q = m·n/(m+n) · (2/(m·n)·Σ|x_i − y_j| − Σ|x_i − x_k|/C(m,2) − Σ|y_j − y_k|/C(n,2)) for
  x = z[s:tau] (m points) and y = z[tau:kappa] (n points). tau is the first point of the new level.
- **Significance** as Apache Otava documents it (docs/MATH.md, after Fleming et al., "Hunter: Using
  Change Point Detection to Hunt for Performance Regressions", ICPE 2023, arXiv:2301.03034): the
  permutation test of the original is replaced by a two-sided Student's t-test (pooled variance)
  between x and y, the two subsequences found most different; deterministic and cheap. (Otava's code
  tests tau against the whole rest of the interval instead, which misses a level that comes back
  within one window: 1, 3, 1.)
- **Windows and weak points**, with Otava's defaults: the series is searched in windows of
  WINDOW = 50 points, each starting half a window after the last, at a relaxed threshold
  (10 × P_VALUE: "weak" change points); then the merge step removes the weakest point (largest
  p, its neighbours re-tested against the next points either side) until every one that is left has
  p < P_VALUE = 0.001. Two additions of ours: a level of a single run between two change points is
  an outlier, not a level (the weaker of its change points goes; only the newest level may be one
  run so far); and, as Otava's min_magnitude, the smallest move goes while it is not larger than
  `min_step` (series/stage.py passes the points' own noise: a step must be larger than one run's).
- **Too short**: the detector is run on MIN_POINTS = 8 points or more. With 7 or fewer the t-test
  at p < 0.001 has at most 5 degrees of freedom and needs |t| >= 6.9; series/stage.py then uses
  stats.changed between the cited run and the newest, on their raw rounds.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from ..lang.between import incomplete_beta

WINDOW = 50  # Otava's window_len
P_VALUE = 0.001  # Otava's max_pvalue
WEAK_FACTOR = 10  # the split step's threshold is 10× P_VALUE ("weak" change points), as Otava's
MIN_POINTS = 8  # shorter series: the pairwise "changed" test instead (series/stage.py)


@dataclass(frozen=True, slots=True)
class ChangePoint:
    """A step: the index of the first point of the new level, and the t-test that supports it."""

    index: int
    p: float  # two-sided Student's t-test between the points since the previous change point and until the next
    before: float  # mean of those before
    after: float  # mean of those from index on


def change_points(
    values: Sequence[float], window: int = WINDOW, p_value: float = P_VALUE, min_step: float = 0.0
) -> tuple[ChangePoint, ...]:
    """Every step in the series with p < p_value and a move larger than min_step after the merge step,
    in order (empty when none)."""
    xs = [float(x) for x in values]
    if any(not math.isfinite(x) for x in xs):
        raise ValueError("a value is not finite")
    if window < 2:
        raise ValueError(f"window {window} is below 2 points")
    weak = _split(xs, window, p_value * WEAK_FACTOR)
    return _merge(weak, xs, p_value, min_step)


def _split(xs: list[float], window: int, p_value: float) -> list[int]:
    """Candidate indexes from overlapping windows, each searched at the relaxed threshold."""
    found: set[int] = set()
    start, step = 0, window // 2
    while start < len(xs):
        end = min(start + window, len(xs))
        new = [start + i for i in _divisive(xs[start:end], p_value)]
        found.update(new)
        start = max(max(new, default=0), start + step)
    return sorted(found)


def _divisive(xs: list[float], p_value: float) -> list[int]:
    """E-divisive within one window: split the most divergent interval while its split is significant."""
    points: list[int] = []
    candidates: dict[tuple[int, int], tuple[int, int, float] | None] = {}
    while True:
        bounds = [0, *points, len(xs)]
        best: tuple[float, int, int, int, int] | None = None  # (qhat, tau, kappa, start, end)
        for start, end in zip(bounds, bounds[1:], strict=False):
            if (start, end) not in candidates:
                candidates[(start, end)] = _candidate(xs[start:end])
            found = candidates[(start, end)]
            if found is not None and (best is None or found[2] > best[0]):
                best = (found[2], start + found[0], start + found[1], start, end)
        if best is None:
            return points
        _, tau, kappa, start, end = best
        if t_test(xs[start:tau], xs[tau:kappa]) >= p_value:
            return points
        points = sorted([*points, tau])


def _candidate(xs: Sequence[float]) -> tuple[int, int, float] | None:
    """(tau, kappa, qhat) maximising Q over s < tau < kappa <= e in an interval; None under 2 points.

    within[a][b] is the sum of |x_i − x_k| over a <= i < k < b, filled column by column, so every
    Q(tau, kappa) costs O(1) and the whole search O(n²)."""
    n = len(xs)
    if n < 2:
        return None
    within = [[0.0] * (n + 1) for _ in range(n + 1)]
    for b in range(2, n + 1):
        last, running = xs[b - 1], 0.0
        for a in range(b - 2, -1, -1):
            running += abs(xs[a] - last)
            within[a][b] = within[a][b - 1] + running
    best_tau, best_kappa, best_q = 0, 0, -math.inf
    head = within[0]
    for tau in range(1, n):
        left = head[tau] / (tau * (tau - 1) / 2) if tau > 1 else 0.0
        row = within[tau]
        for kappa in range(tau + 1, n + 1):
            m, k = tau, kappa - tau
            between = head[kappa] - head[tau] - row[kappa]
            right = row[kappa] / (k * (k - 1) / 2) if k > 1 else 0.0
            q = m * k / (m + k) * (2 * between / (m * k) - left - right)
            if q > best_q:
                best_tau, best_kappa, best_q = tau, kappa, q
    return best_tau, best_kappa, best_q


def _merge(candidates: list[int], xs: list[float], p_value: float, min_step: float) -> tuple[ChangePoint, ...]:
    """Drop change points until the rest hold, re-testing them against their new neighbours after each:
    the weakest (largest p) while it is not significant; then one bounding a level of a single run
    (an outlier, not a level; only the newest level may be one run so far), the weaker of the two;
    then the smallest move while it is not larger than min_step (Otava's min_magnitude, in the
    values' own unit)."""
    points = list(candidates)
    while True:
        tested = _tested(points, xs)
        if not tested:
            return ()
        weakest = max(tested, key=lambda point: point.p)
        if weakest.p < p_value:
            bounds = [0, *points]
            lonely = [i for i in range(len(points)) if points[i] - bounds[i] == 1]  # level i is one run
            if lonely:
                pair = tested[max(lonely[0] - 1, 0) : lonely[0] + 1]
                weakest = max(pair, key=lambda point: point.p)
            else:
                weakest = min(tested, key=lambda point: abs(point.after - point.before))
                if abs(weakest.after - weakest.before) > min_step:
                    return tuple(tested)
        points.remove(weakest.index)


def _tested(points: list[int], xs: list[float]) -> list[ChangePoint]:
    bounds = [0, *points, len(xs)]
    found = []
    for before, index, after in zip(bounds, bounds[1:], bounds[2:], strict=False):
        left, right = xs[before:index], xs[index:after]
        found.append(
            ChangePoint(index, t_test(left, right), math.fsum(left) / len(left), math.fsum(right) / len(right))
        )
    return found


# -- Student's t-test ------------------------------------------------------------------------------


def t_test(a: Sequence[float], b: Sequence[float]) -> float:
    """Two-sided p of Student's two-sample t-test (pooled variance); 1.0 without a degree of freedom.

    Both sides without spread: 0.0 when their means differ (beyond rounding), else 1.0."""
    m, n = len(a), len(b)
    df = m + n - 2
    if m == 0 or n == 0 or df <= 0:
        return 1.0
    mean_a, mean_b = math.fsum(a) / m, math.fsum(b) / n
    squares = math.fsum((x - mean_a) ** 2 for x in a) + math.fsum((x - mean_b) ** 2 for x in b)
    gap = abs(mean_a - mean_b)
    scale = max(abs(mean_a), abs(mean_b), 1e-300)
    if squares <= (1e-12 * scale) ** 2 * (m + n):  # no spread to speak of: the means decide alone
        return 0.0 if gap > 1e-12 * scale else 1.0
    t = gap / math.sqrt(squares / df * (1 / m + 1 / n))
    return student_p(t, df)


def student_p(t: float, df: int) -> float:
    """P(|T| >= |t|) for Student's t with df degrees of freedom: I_{df/(df+t²)}(df/2, 1/2)."""
    if df <= 0:
        raise ValueError(f"{df} degrees of freedom")
    if math.isinf(t):
        return 0.0
    return min(1.0, max(0.0, incomplete_beta(df / 2, 0.5, df / (df + t * t))))
