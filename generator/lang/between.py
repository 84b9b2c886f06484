"""Between-run statistics: replicate runs' values and within-run intervals -> a pooled value, its
confidence interval and a prediction interval for the next run; the change they can detect. Pure.

No I/O, no clock, no global state; the standard library only. Methods and their sources:

- **The model.** Each replicate run i of one measurement gives a value y_i (its median over rounds) with
  a within-run interval. On the log scale (every value positive: times and rates are multiplicative;
  otherwise the values themselves), y_i = μ + u_i + e_i: a run effect u_i ~ N(0, τ²) and the run's own
  noise e_i ~ N(0, v_i), the one-way random-effects model of meta-analysis (DerSimonian & Laird, 1986,
  *Controlled Clinical Trials* 7:177–188) and of interlaboratory studies (ISO 5725-2).
- **The spread** σ̂ is the sample standard deviation of the K values (K − 1 degrees of freedom), never
  below the within-run one: s_w² = the mean of the v_i, each v_i read from the run's own interval as
  ((f(high) − f(low)) / (2·z_(1+level)/2))², the normal approximation Cochrane's Handbook (§6.5.2.2) uses
  to read a standard error from a confidence interval. σ̂² = max(s², s_w²) is DerSimonian–Laird's
  truncation of τ² at zero: three runs that agree by chance are no more precise than each run is.
- **Shared with the set's other cells** (`shared`: lang/pooling.py): where the set's cells vary alike, σ̂ is
  their pooled standard deviation on ν = Σ(K_i − 1) degrees of freedom instead of this cell's own on K − 1,
  still never below this cell's within-run one; t is then t_ν.
- **The pooled value** is the mean on that scale (the geometric mean of the runs' values), the centre of
  both intervals. **Its confidence interval** is μ̂ ± t_ν·σ̂/√K; **the prediction interval** for the
  mean of m new runs is μ̂ ± t_ν·σ̂·√(1/K + 1/m), ν = K − 1 unless shared (Hahn & Meeker, *Statistical Intervals*, 1991, §4.4;
  Meeker, Hahn & Escobar, 2nd ed., 2017, §4.6): where a re-run should land, what `diff`, `refresh` and the
  history judge a new run against. A new run whose own within-run spread is wider than σ̂ widens it.
- **Student's t** from the regularised incomplete beta function (its continued fraction, Numerical
  Recipes §6.4), inverted by bisection: exact to 1e-12, cached per level and degrees of freedom.
- **The change they can detect** (`detectable_change`): seeded simulation of that judgement, as
  stats.detectable_shift does for rounds: K replicate runs with run-to-run coefficient of variation
  cv, then a new run shifted by s; the smallest s that lands outside the prediction interval with
  probability `power`; with ν degrees of freedom shared (pooled), σ̂² is drawn as σ²·χ²_ν/ν.
"""

from __future__ import annotations

import functools
import math
import random
import statistics
from collections.abc import Sequence
from dataclasses import dataclass

LEVEL = 0.99  # both between-run intervals, as the within-run median interval (stats.DEFAULT_LEVEL)
POWER = 0.90  # the detectable change: found this often
_NORMAL = statistics.NormalDist()


def incomplete_beta(a: float, b: float, x: float) -> float:
    """The regularised incomplete beta function I_x(a, b), for a, b > 0 and 0 <= x <= 1."""
    if x <= 0:
        return 0.0
    if x >= 1:
        return 1.0
    front = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x))
    if x < (a + 1) / (a + b + 2):
        return front * _beta_fraction(a, b, x) / a
    return 1.0 - front * _beta_fraction(b, a, 1.0 - x) / b


def _beta_fraction(a: float, b: float, x: float) -> float:
    """The continued fraction of I_x(a, b) by the modified Lentz method (Numerical Recipes §6.4)."""
    tiny = 1e-300
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 400):
        for numerator in (
            m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
            -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1)),
        ):
            d = 1.0 + numerator * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + numerator / c
            c = c if abs(c) > tiny else tiny
            h *= d * c
        if abs(d * c - 1.0) < 1e-15:
            break
    return h


def t_cdf(t: float, df: int) -> float:
    """P(T <= t) for Student's t with df degrees of freedom."""
    tail = 0.5 * incomplete_beta(df / 2, 0.5, df / (df + t * t))
    return 1.0 - tail if t > 0 else tail


@functools.lru_cache(maxsize=512)
def t_quantile(p: float, df: int) -> float:
    """The p-quantile of Student's t with df >= 1 degrees of freedom, for 0.5 <= p < 1."""
    if not 0.5 <= p < 1 or df < 1:
        raise ValueError(f"t quantile needs 0.5 <= p < 1 and df >= 1, got p={p}, df={df}")
    low, high = 0.0, 1.0
    while t_cdf(high, df) < p:
        low, high = high, high * 2
    for _ in range(200):
        mid = (low + high) / 2
        if t_cdf(mid, df) < p:
            low = mid
        else:
            high = mid
        if high - low <= 1e-12 * max(1.0, high):
            break
    return (low + high) / 2


@dataclass(frozen=True, slots=True)
class RunValue:
    """One replicate run's value of a quantity, with its within-run interval (None: it has none)."""

    value: float
    low: float | None = None
    high: float | None = None
    level: float | None = None  # the within-run interval's coverage; None: not known (no floor from it)


@dataclass(frozen=True, slots=True)
class Pooled:
    """K replicate runs of one quantity, pooled: the value, its confidence interval, and what a
    prediction for the next run needs (prediction() computes it)."""

    value: float  # the pooled estimate: the runs' geometric mean (log scale) or mean
    low: float  # its confidence interval at `level`
    high: float
    level: float
    runs: int
    log: bool  # computed on the log scale (every value and interval end positive)
    centre: float  # the mean, on that scale
    spread: float  # σ̂ on that scale: the larger of the runs' standard deviation and the within-run one
    between: float  # the runs' own standard deviation, on that scale
    within: float  # the within-run standard deviation of one run's value (the floor), on that scale
    df: int = 0  # the degrees of freedom of `spread`: K − 1, or the pooled cells' (shared); 0: K − 1
    cells: int = 1  # the cells of the set whose variation `spread` pools (1: this cell's own)

    @property
    def freedom(self) -> int:
        """The degrees of freedom its t quantile takes."""
        return self.df or self.runs - 1

    def scaled(self, value: float) -> float:
        """A value on the scale the intervals are computed on."""
        return math.log(value) if self.log else value

    def unscaled(self, value: float) -> float:
        return math.exp(value) if self.log else value


def pool(runs: Sequence[RunValue], level: float = LEVEL, shared: tuple[float, int, int] | None = None) -> Pooled | None:
    """The pooled value and confidence interval of K >= 2 replicate runs (None for fewer). shared: the log-scale
    variance the set's cells pool, its degrees of freedom and how many cells (lang/pooling.py), used on the log
    scale only (a cell with a value at or below 0 keeps its own)."""
    if len(runs) < 2:
        return None
    log = all(_positive(run) for run in runs)
    scale = math.log if log else float
    ys = [scale(run.value) for run in runs]
    centre, between = statistics.fmean(ys), statistics.stdev(ys)
    within = within_sd(runs, log)
    df, cells, spread = len(runs) - 1, 1, between
    if shared is not None and log and shared[1] > 0:
        spread, df, cells = math.sqrt(shared[0]), shared[1], shared[2]
    spread = max(spread, within)
    half = t_quantile((1 + level) / 2, df) * spread / math.sqrt(len(runs))
    back = math.exp if log else float
    return Pooled(back(centre), back(centre - half), back(centre + half), level, len(runs), log, centre, spread,
                  between, within, df, cells)  # fmt: skip


def _positive(run: RunValue) -> bool:
    return run.value > 0 and all(end is None or end > 0 for end in (run.low, run.high))


def within_sd(runs: Sequence[RunValue], log: bool) -> float:
    """The within-run standard deviation of a run's value (root mean square over the runs whose
    interval has a known level), on the scale given; 0 when none has one."""
    found = [_sd(run, log) for run in runs]
    known = [sd for sd in found if sd is not None]
    return math.sqrt(statistics.fmean(sd * sd for sd in known)) if known else 0.0


def _sd(run: RunValue, log: bool) -> float | None:
    """A run's within-run standard deviation from its interval (normal approximation), or None."""
    if run.low is None or run.high is None or run.level is None or not 0 < run.level < 1:
        return None
    if log and (run.low <= 0 or run.high <= 0):
        return None
    low, high = (math.log(run.low), math.log(run.high)) if log else (run.low, run.high)
    return max(0.0, high - low) / 2 / _NORMAL.inv_cdf((1 + run.level) / 2)


def prediction(pooled: Pooled, new_runs: int = 1, own: RunValue | None = None) -> tuple[float, float]:
    """Where the mean of `new_runs` new runs should land, at the pooled level: μ̂ ± t·σ̂·√(1/K + 1/m).
    own: the one new run judged, when its own within-run spread is known (a wider one widens it)."""
    new = pooled.spread
    if own is not None:
        sd = _sd(own, pooled.log)
        new = max(new, sd if sd is not None else 0.0)
    t = t_quantile((1 + pooled.level) / 2, pooled.freedom)
    half = t * math.sqrt(pooled.spread**2 / pooled.runs + new**2 / max(1, new_runs))
    return pooled.unscaled(pooled.centre - half), pooled.unscaled(pooled.centre + half)


def inside(pooled: Pooled, value: float, new_runs: int = 1, own: RunValue | None = None) -> bool:
    """Whether a new value (the mean of new_runs runs) lies within the prediction interval."""
    if pooled.log and value <= 0:
        return False
    low, high = prediction(pooled, new_runs, own)
    return low <= value <= high


def detectable_change(
    replicates: int,
    cv: float,
    power: float = POWER,
    level: float = LEVEL,
    new_runs: int = 1,
    trials: int = 2000,
    seed: int = 32,
    df: int | None = None,
) -> float:
    """The smallest relative change of a quantity, between runs, that lands outside the prediction
    interval of `replicates` earlier runs with probability `power`, when run-to-run variation has
    coefficient of variation cv (lognormal) and the change is judged on the mean of new_runs runs.
    df: the degrees of freedom of the spread when it is pooled over a set's cells (None: K − 1, its own).

    Seeded simulation of prediction(): per trial, K runs and the new runs' mean are drawn without the
    change; the change s is found once log(1 + s) lifts that mean past the interval's upper end, so a
    trial's threshold is exp(upper − mean) − 1; the power-quantile of the thresholds is returned.
    """
    if replicates < 2:
        raise ValueError("a prediction interval needs at least 2 replicate runs")
    sigma = math.sqrt(math.log1p(cv * cv))
    t = t_quantile((1 + level) / 2, df or replicates - 1)
    rng = random.Random(seed)
    thresholds = []
    for _ in range(trials):
        ys = [rng.gauss(0.0, sigma) for _ in range(replicates)]
        new = statistics.fmean(rng.gauss(0.0, sigma) for _ in range(new_runs))
        spread = statistics.stdev(ys) if not df else sigma * math.sqrt(rng.gammavariate(df / 2, 2.0) / df)
        upper = statistics.fmean(ys) + t * spread * math.sqrt(1 / replicates + 1 / new_runs)
        thresholds.append(math.expm1(upper - new))
    thresholds.sort()
    return max(0.0, thresholds[min(len(thresholds) - 1, math.ceil(power * len(thresholds)) - 1)])


CHANGE_REPLICATES = (3, 5)  # replicate counts the guide's table shows
CHANGE_CVS = (0.01, 0.02, 0.05, 0.10)  # run-to-run coefficients of variation: a quiet GPU to a busy shared CPU


def change_table(replicates: Sequence[int] = CHANGE_REPLICATES, cvs: Sequence[float] = CHANGE_CVS) -> str:
    """The guide's table of changes between runs the gate detects (Markdown): `python -m generator.lang.between`."""
    head = " | ".join(f"run-to-run CV {cv:.0%}" for cv in cvs)
    lines = [
        f"| replicate runs | t<sub>K−1</sub> at {LEVEL:.0%} | {head} |",
        "| " + " | ".join(["---"] * (2 + len(cvs))) + " |",
    ]
    for k in replicates:
        shifts = " | ".join(f"{detectable_change(k, cv):.0%}" for cv in cvs)
        lines.append(f"| {k} | {t_quantile((1 + LEVEL) / 2, k - 1):.2f} | {shifts} |")
    return "\n".join(lines)


if __name__ == "__main__":
    print(change_table())
