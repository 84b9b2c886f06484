"""Measuring until settled: a replicate set's values at each look -> its interval at that look's level and
whether the interval decides each question asked of it, the stated level kept over every look. Pure.

`ledger measure --until-settled` adds replicate runs and looks at the claims' sets after each one. Looking
again and again at an interval stated at 99% and stopping the first time it decides is wrong more often than
1% of the time (each look is another chance for a chance interval to decide). The rule here keeps the
level by **spending it among the looks** (alpha spending with Bonferroni's split, the simplest group
sequential design: Armitage, McPherson & Rowe, *JRSS A* 132, 1969, showed the inflation; the union bound
holds for any dependence between the looks): a maximum number of new replicates is fixed before the first
look, so the looks are counted in advance, one at each replicate count from the set's size at the start up
to that maximum, from FIRST_LOOK runs on; each look's interval is stated at 1 − (1 − L)/looks. Whatever
the runs' distribution, the chance that any look's interval misses the true value is at most the sum of
the looks' chances, 1 − L: the interval at which it stops covers the true value with at least L.

Why not an anytime-valid confidence sequence (Howard, Ramdas, McAuliffe & Sekhon, *Ann. Statist.* 49,
2021), which needs no maximum: the few runs a session makes are where it is widest, it needs a known
bound or variance proxy for the runs' spread (a t interval estimates it), and a fixed maximum is what a
budget of runs is anyway. The price of the split: each look's interval is wider than a single 99% one
(t quantiles at 99.9% for ten looks), so settling takes more runs than a peek would suggest.

An interval **decides** a question (a convex set of values: the claim's tolerance band, its `asserts:`
half-line or range) when it lies wholly inside the set or wholly outside it; otherwise the question is
still open and, within the budget, another replicate is made.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

from .between import LEVEL, Pooled, RunValue, pool

FIRST_LOOK = 3  # runs in a set before its interval is looked at: t with one degree of freedom decides nothing
Decision = Literal["inside", "outside", "open"]


def looks(start: int, most_new: int) -> int:
    """How many looks a session makes at most: one at each replicate count from `start` (the set's size at
    the first look) to start + most_new that has FIRST_LOOK runs or more (at least one)."""
    return max(1, sum(1 for runs in range(start, start + most_new + 1) if runs >= FIRST_LOOK))


def look_level(level: float, count: int) -> float:
    """Each look's level when `count` looks share 1 − level (Bonferroni: the misses add up to at most 1 − level)."""
    return 1 - (1 - level) / count


@dataclass(frozen=True, slots=True)
class Question:
    """A set of values a claim's interval should decide: its tolerance band around the stated value, or its
    `asserts:` bound. holds(value) tests a value; witness is a value inside it (None: a half-line, which
    a bounded interval never holds whole), so an interval around the witness is not wholly outside."""

    name: str
    holds: Callable[[float], bool]
    witness: float | None = None


def decide(low: float, high: float, question: Question) -> Decision:
    """inside: both ends hold (the set is convex, so every value between does); outside: neither end holds
    and the interval does not hold the witness; open otherwise."""
    ends = question.holds(low), question.holds(high)
    if all(ends):
        return "inside"
    if not any(ends) and (question.witness is None or not low <= question.witness <= high):
        return "outside"
    return "open"


@dataclass(frozen=True, slots=True)
class Look:
    """One look at a set: its runs, the pooled value's interval at the look's level (None: fewer than
    FIRST_LOOK runs, or nothing to pool), and each question's decision."""

    runs: int
    level: float
    pooled: Pooled | None
    decisions: tuple[tuple[str, Decision], ...]

    @property
    def settled(self) -> bool:
        return self.pooled is not None and all(decision != "open" for _, decision in self.decisions)


def look(values: Sequence[RunValue], level: float, questions: Sequence[Question]) -> Look:
    """The set's interval at `level` and what it decides (every question open before FIRST_LOOK runs)."""
    found = pool(values, level) if len(values) >= FIRST_LOOK else None
    if found is None:
        return Look(len(values), level, None, tuple((q.name, "open") for q in questions))
    return Look(len(values), level, found, tuple((q.name, decide(found.low, found.high, q)) for q in questions))


def settle(
    first: Sequence[RunValue],
    more: Callable[[], RunValue],
    most_new: int,
    questions: Sequence[Question],
    level: float = LEVEL,
) -> Look:
    """One claim measured until settled, as the verb does it (for simulations: more() draws a new run):
    look at the set, add a run while a question is open and the budget allows, look again; the last look."""
    values = list(first)
    each = look_level(level, looks(len(values), most_new))
    found = look(values, each, questions)
    for _ in range(most_new):
        if found.settled:
            break
        values.append(more())
        found = look(values, each, questions)
    return found
