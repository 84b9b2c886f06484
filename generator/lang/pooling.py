"""Pooled run-to-run variation: a replicate set's cells (each its values across the set's runs, on the log
scale) -> the groups of cells that share one variance, each cell's with its degrees of freedom. Pure.

No I/O, no clock, no global state; the standard library only. Three runs give one cell's variance two degrees
of freedom, and a t quantile of 9.92 at 99%: a set's dozens of cells, where they vary alike, estimate it
together. Methods and their sources:

- **The pooled variance** of cells i with sample variances s_i² on d_i = K_i − 1 degrees of freedom is
  s_p² = Σ d_i·s_i² / Σ d_i, on Σ d_i degrees of freedom: the within-groups mean square of the one-way
  analysis of variance (Snedecor & Cochran, *Statistical Methods*, 8th ed., 1989, §12.3), each cell a group.
- **Cells pool only where their variances do not differ**, tested with the F test of one variance against a
  pool's, s_i² / s_p² on (d_i, Σd) degrees of freedom, upper tail (Snedecor & Cochran §6.12). Cells are taken in
  order of their rounds' own spread (the row's min–max: a regime of the machine, known from each run's rounds
  and so free of the run-to-run scatter being estimated, which would otherwise gather the cells that look steady
  by chance); a group grows until two cells in a row are each noisier than it at p < HOMOGENEITY_P, where the
  next group (a noisier regime) starts. Only a noisier cell splits: a steadier one that joins a noisier group is
  judged wider than it need be, never narrower.
- **No cell borrows a steadiness it lacks**, nor a noise it does not have. Within a group, a cell whose variance
  differs from the rest of its group's (the same test against the others' pool, two-sided at HOMOGENEITY_P) is
  judged on its own variance and degrees of freedom, the one-cell interval, exact for it whatever the others do:
  noisier, a wandering setting; steadier, a setting the group's noise does not reach. Its variance still counts in
  its group's, so judging the noisiest cells apart never makes the rest look steadier than they are. Bartlett's test of the group's homogeneity (Bartlett, *Proc. R. Soc. A* 160:268, 1937;
  NIST/SEMATECH *e-Handbook of Statistical Methods* §1.3.5.7: T = (N·ln s_p² − Σ d_i·ln s_i²) /
  (1 + (Σ 1/d_i − 1/N) / (3(k − 1))), chi-square on k − 1 degrees of freedom) is reported with it.
- **Chi-square and F tails** from the regularised incomplete gamma function (its series and continued
  fraction, Numerical Recipes, 3rd ed., §6.2) and the incomplete beta (between.incomplete_beta).

Assumptions: on the log scale a cell's run values are normal with the variance of its group; runs are
independent (each a fresh process: judging/replicates.py); a cell with no variation at all (every run read
the same) is exact in this set and pools with nothing.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from .between import incomplete_beta

HOMOGENEITY_P = 0.05  # the F tests' level: cells pool while their variances are not shown to differ


def gamma_q(a: float, x: float) -> float:
    """The regularised upper incomplete gamma function Q(a, x) = Γ(a, x) / Γ(a), for a > 0 and x >= 0."""
    if x <= 0:
        return 1.0
    front = -x + a * math.log(x) - math.lgamma(a)
    if x < a + 1:  # the series converges fast here (Numerical Recipes' gser)
        term = total = 1.0 / a
        n = a
        for _ in range(10_000):
            n += 1
            term *= x / n
            total += term
            if abs(term) < abs(total) * 1e-16:
                break
        return max(0.0, 1.0 - total * math.exp(front))
    tiny = 1e-300  # the continued fraction, modified Lentz (Numerical Recipes' gcf)
    b = x + 1 - a
    c, d = 1 / tiny, 1 / b
    h = d
    for i in range(1, 10_000):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = 1 / (d if abs(d) > tiny else tiny)
        c = b + an / c
        c = c if abs(c) > tiny else tiny
        h *= d * c
        if abs(d * c - 1) < 1e-16:
            break
    return math.exp(front) * h


def chi2_sf(x: float, df: float) -> float:
    """P(X > x) for a chi-square variable with df degrees of freedom."""
    return gamma_q(df / 2, x / 2)


def f_sf(x: float, d1: float, d2: float) -> float:
    """P(F > x) for Snedecor's F on (d1, d2) degrees of freedom."""
    if x <= 0:
        return 1.0
    return incomplete_beta(d2 / 2, d1 / 2, d2 / (d2 + d1 * x))


@dataclass(frozen=True, slots=True)
class Bartlett:
    statistic: float  # T
    df: int  # k − 1
    p: float  # P(chi-square on df > T)


def bartlett(variances: Sequence[tuple[float, int]]) -> Bartlett:
    """Bartlett's test that k >= 2 groups' variances are equal: each (sample variance, its degrees of freedom),
    every variance above 0."""
    if len(variances) < 2:
        raise ValueError("Bartlett's test needs at least two groups")
    if any(variance <= 0 or df < 1 for variance, df in variances):
        raise ValueError("every group needs a variance above 0 and a degree of freedom")
    return _bartlett(*_sums(variances))


def _sums(variances: Sequence[tuple[float, int]]) -> tuple[int, float, float, float, int]:
    """(Σd, Σd·s², Σd·ln s², Σ1/d, k): what Bartlett's statistic reads."""
    n = sum(df for _, df in variances)
    return (
        n,
        math.fsum(df * variance for variance, df in variances),
        math.fsum(df * math.log(variance) for variance, df in variances),
        math.fsum(1 / df for _, df in variances),
        len(variances),
    )


def _bartlett(n: int, weighted: float, logs: float, inverse: float, k: int) -> Bartlett:
    pooled = weighted / n
    correction = 1 + (inverse - 1 / n) / (3 * (k - 1))
    statistic = max(0.0, (n * math.log(pooled) - logs) / correction)
    return Bartlett(statistic, k - 1, chi2_sf(statistic, k - 1))


@dataclass(frozen=True, slots=True)
class Cell:
    """One cell of a set: its name for a reader, its values on the log scale (one per run) and the order it is
    grouped in (its rounds' own spread, else its level)."""

    name: str
    values: tuple[float, ...]
    order: float


@dataclass(frozen=True, slots=True)
class Shared:
    """The run-to-run variance a cell is judged with, on the log scale, and where it comes from."""

    variance: float  # its group's pooled variance (its own, when it stands alone)
    df: int  # the degrees of freedom of that variance
    cells: tuple[str, ...]  # the cells pooled, itself among them (itself alone: not pooled)
    p: float = 1.0  # Bartlett's p for the group (1.0 for a cell alone)
    apart: float = 0.0  # for a cell judged apart from its group: its variance over the rest's (F test)
    apart_p: float = 1.0  # and that test's two-sided p

    @property
    def pooled(self) -> bool:
        return len(self.cells) > 1


def variance_of(values: Sequence[float]) -> float:
    """The sample variance (K − 1 in the denominator) of K >= 2 values."""
    mean = math.fsum(values) / len(values)
    return math.fsum((v - mean) ** 2 for v in values) / (len(values) - 1)


def groups(cells: Sequence[Cell], level: float = HOMOGENEITY_P) -> dict[str, Shared]:
    """Each cell's Shared. Cells are taken in `order`; a group grows until two cells in a row are each noisier than
    it (F test, upper tail below `level`: a regime of larger variation starts there); then, within each group, a
    cell whose variance differs from the rest's (two-sided) is judged on its own, still counted in the group's.
    Every other cell gets its group's pooled variance, on the group's degrees of freedom."""
    found: dict[str, Shared] = {}
    varied: list[tuple[Cell, float, int]] = []
    for cell in cells:
        if len(cell.values) < 2:
            continue
        variance, df = variance_of(cell.values), len(cell.values) - 1
        if variance > 0:
            varied.append((cell, variance, df))
        else:  # every run read the same: nothing to pool it with, and no variation of its own
            found[cell.name] = Shared(0.0, df, (cell.name,))
    varied.sort(key=lambda item: (item[0].order, item[0].name))
    group: list[tuple[Cell, float, int]] = []
    for index, item in enumerate(varied):
        following = varied[index + 1] if index + 1 < len(varied) else None
        if group and _noisier(item, group, level) and (following is None or _noisier(following, group, level)):
            found.update(_shared(group, level))
            group = []
        group.append(item)
    found.update(_shared(group, level))
    return found


def _noisier(item: tuple[Cell, float, int], group: Sequence[tuple[Cell, float, int]], level: float) -> bool:
    """Whether the cell's variance exceeds the group's by more than chance allows (F test, upper tail)."""
    n = sum(df for _, _, df in group)
    pooled = math.fsum(df * variance for _, variance, df in group) / n
    return f_sf(item[1] / pooled, item[2], n) < level


def _shared(group: list[tuple[Cell, float, int]], level: float) -> dict[str, Shared]:
    """Each cell of a group with its Shared: the group's pooled variance, or its own where it differs from the rest
    of the group (noisier: a wandering setting; or steadier), still counted in the group's variance."""
    if not group:
        return {}
    if len(group) == 1:
        cell, variance, df = group[0]
        return {cell.name: Shared(variance, df, (cell.name,))}
    n, weighted, logs, inverse, k = _sums([(variance, df) for _, variance, df in group])
    p = _bartlett(n, weighted, logs, inverse, k).p
    found, names = {}, []
    for cell, variance, df in group:
        rest = (weighted - df * variance) / (n - df)
        ratio = variance / rest
        upper = f_sf(ratio, df, n - df)
        tail = 2 * min(upper, 1 - upper)  # two-sided: noisier or steadier than the rest
        if tail < level:
            found[cell.name] = Shared(variance, df, (cell.name,), 1.0, ratio, tail)
        else:
            names.append(cell.name)
    pooled = Shared(weighted / n, n, tuple(names), p)
    found.update((name, pooled) for name in names)
    return found
