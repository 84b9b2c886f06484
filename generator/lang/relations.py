"""Relations a check states: `expects:` text -> a predicate on numbers and its strength. Pure; parsed,
never executed.

One table of forms (FORMS), the smallest set that covers the report (see guide/checks.md); a new
form is a row:

    same             the plain form `checked_by: [id]`: the same quantity, within the check tolerance
    within Nx        the two values are within a factor N of each other (1 <= N <= MAX_FACTOR)
    above, below     the check's value is above / below the checked claim's value
    > N, >= N, < N, <= N [unit]   the check's own value against a number (in `unit`, else the check's)
    between N and M [unit]        the check's own value from N to M, both included

The forms that bound a value alone (the last two) are also what a claim's `asserts:` states of its
own value (asserted.py judges them on its interval).

Each check has a strength (guide/checks.md): *agrees* (same, or within a factor up to the policy's
max_check_factor) supports the number; *bounded* (above, below, a wider factor) puts the checked
value on one side; *direction* (a bound on the check's own value) supports a sign, never a number.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass

from . import units
from .yamlread import NUMBER

STRENGTHS = ("agrees", "bounded", "direction")  # a check's strength, strongest first
INCONCLUSIVE = "inconclusive"  # a check whose measurement cannot tell (its interval reaches past the band): no support
AGREES, BOUNDED, DIRECTION = STRENGTHS  # strongest first
# badges and listings; inconclusive is a verdict shown where a strength is (it supports nothing)
SHOWN = {AGREES: "agrees", BOUNDED: "bounded", DIRECTION: "direction only", INCONCLUSIVE: "inconclusive"}
MAX_FACTOR = 10.0  # the widest `within Nx`, and the largest max_check_factor a policy may set
OPERATORS = {">": "greater than", ">=": "at least", "<": "less than", "<=": "at most"}
_TYPOGRAPHIC = {"≥": ">=", "≤": "<=", "×": "x", "−": "-"}
HELP = 'write e.g. "within 1.1x", "above", "below", "> 1", ">= 0.9", "< 50 %", "> 10 GB/s" or "between 0.9 and 1.1"'
ASSERTS_HELP = 'write the bound in quotes, e.g. `asserts: "> 1"`, "< 0.5", ">= 10 GB/s" or "between 0.9 and 1.1"'


class RelationError(ValueError):
    """`expects:` text that is not one of the relations."""


@dataclass(frozen=True, slots=True)
class Relation:
    text: str  # as written ("same" for the plain form)
    op: str  # a FORMS row's op: same | within | above | below | > | >= | < | <= | between
    bound: float = 0.0  # the number for > >= < <=; the factor for within; the lower end for between
    unit: units.Unit | None = None  # the bound's unit, parsed when the relation is (None: the check's own unit)
    upper: float = 0.0  # the upper end for between

    @property
    def against_claim(self) -> bool:
        """Whether the checked claim's value enters (so the two need one dimension)."""
        return _FORM[self.op].against_claim

    def strength(self, max_factor: float) -> str:
        """agrees, bounded or direction; a factor wider than max_factor only bounds the value."""
        if self.op == "within":
            return AGREES if self.bound <= max_factor * (1 + 1e-12) else BOUNDED
        return _FORM[self.op].strength

    @property
    def bounds_itself(self) -> bool:
        """Whether it bounds a value alone (> >= < <= N, between N and M): what `asserts:` may state."""
        return not self.against_claim

    def holds(self, check: float, claimed: float | None = None, bound: float | None = None) -> bool:
        """Whether the check's value satisfies it; `bound` is self.bound already converted to the check's
        unit (`between` takes its ends as written: convert the value to self.unit instead)."""
        limit = self.bound if bound is None else bound
        if self.op == "between":
            return self.bound <= check <= self.upper
        if self.op == ">":
            return check > limit
        if self.op == ">=":
            return check >= limit
        if self.op == "<":
            return check < limit
        if self.op == "<=":
            return check <= limit
        assert claimed is not None  # against_claim relations are given the claim's value
        if self.op == "above":
            return check > claimed
        if self.op == "below":
            return check < claimed
        if self.op == "within":
            if check == 0 or claimed == 0 or (check > 0) != (claimed > 0):
                return check == claimed
            return max(check / claimed, claimed / check) <= self.bound * (1 + 1e-12)
        raise AssertionError(self.op)

    def describe(self) -> str:
        """The relation in words, for pages and messages."""
        if self.op == "same":
            return "the same quantity"
        written = self.unit.text if self.unit is not None else ""
        unit = f"{units.gap(written)}{written}"
        if self.op in OPERATORS:
            return f"{OPERATORS[self.op]} {_number(self.bound)}{unit}"
        if self.op == "between":
            return f"between {_number(self.bound)} and {_number(self.upper)}{unit}"
        if self.op == "within":
            return f"within {_number(self.bound)}× of the claim"
        return f"{self.op} the claim's value"


@dataclass(frozen=True, slots=True)
class Form:
    """One row of the grammar: how it is written, what it compares, how strong it is, how it is built."""

    op: str
    pattern: re.Pattern[str]  # matched against the lowered text, typographic signs made plain
    against_claim: bool  # the checked claim's value enters
    strength: str  # for `within`, Relation.strength decides by the factor
    build: Callable[[str, re.Match[str], units.UnitTable], Relation]


def _within(text: str, match: re.Match[str], _: units.UnitTable) -> Relation:
    factor = float(match.group(1))
    if not math.isfinite(factor) or not 1 <= factor <= MAX_FACTOR:
        raise RelationError(f"within {match.group(1)}x: the factor must be a number from 1 to {MAX_FACTOR:g}")
    return Relation(text, "within", factor)


def _bound(text: str, match: re.Match[str], table: units.UnitTable) -> Relation:
    return Relation(text, match.group(1), _finite(match.group(2)), _unit(text, match.group(3), table))


def _between(text: str, match: re.Match[str], table: units.UnitTable) -> Relation:
    low, high = _finite(match.group(1)), _finite(match.group(2))
    if not low < high:
        raise RelationError(f"in {text.strip()!r}: the first number must be smaller than the second")
    return Relation(text, "between", low, _unit(text, match.group(3), table), upper=high)


def _finite(written: str) -> float:
    number = float(written)
    if not math.isfinite(number):
        raise RelationError(f"{written} is not a finite number")
    return number


def _unit(text: str, written: str, table: units.UnitTable) -> units.Unit | None:
    unit = written.strip()
    if not unit:
        return None
    try:
        return units.parse(unit, table)
    except units.UnitError as error:
        raise RelationError(f"in {text.strip()!r}: {error}") from None


FORMS = (
    Form("same", re.compile(r"^(?:same|=)$"), True, AGREES, lambda text, *_: Relation(text, "same")),
    Form("within", re.compile(rf"^within\s+({NUMBER})\s*x$", re.ASCII), True, AGREES, _within),
    Form("above", re.compile(r"^above$"), True, BOUNDED, lambda text, *_: Relation(text, "above")),
    Form("below", re.compile(r"^below$"), True, BOUNDED, lambda text, *_: Relation(text, "below")),
    Form("bound", re.compile(rf"^(>=|<=|>|<)\s*({NUMBER})\s*(.*)$", re.ASCII | re.DOTALL), False, DIRECTION, _bound),
    Form(
        "between",
        re.compile(rf"^between\s+({NUMBER})\s+and\s+({NUMBER})\s*(.*)$", re.ASCII | re.DOTALL | re.IGNORECASE),
        False,
        DIRECTION,
        _between,
    ),
)
_FORM = {form.op: form for form in FORMS}
_FORM.update(dict.fromkeys(OPERATORS, _FORM["bound"]))  # the bound row builds each of > >= < <=

SAME = Relation("same", "same")
UNIT_CASE = ("bound", "between")  # forms that end in a unit, matched on the text as written (MB is not mB)


def parse(text: object, table: units.UnitTable = units.BUILT_IN, field: str = "expects") -> Relation:
    """'> 1' -> Relation(op='>', bound=1.0); raises RelationError saying what is allowed (in `field`; a
    bound's unit is read with the project's units table)."""
    if not isinstance(text, str) or not text.strip():
        raise RelationError(f"`{field}` must be text, found {text!r}")
    if len(text) > 100:
        raise RelationError(f"`{field}` is longer than 100 characters")
    cleaned = text.strip()
    for typographic, plain in _TYPOGRAPHIC.items():
        cleaned = cleaned.replace(typographic, plain)
    for form in FORMS:
        # The unit after a bound keeps its case; the words are read in any case.
        match = form.pattern.match(cleaned if form.op in UNIT_CASE else cleaned.lower())
        if match:
            return form.build(text, match, table)
    raise RelationError(f"cannot read relation {text!r}")


def _number(value: float) -> str:
    return f"{value:g}"
