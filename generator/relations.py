"""Relations a check states: `expects:` text -> a predicate on numbers. Pure; parsed, never executed.

The smallest set that covers the report (see guide/checks.md):

    same             the plain form `checked_by: [id]`: the same quantity, within the check tolerance
    > N, >= N, < N, <= N [unit]   the check's own value against a number (in `unit`, else the check's)
    above, below     the check's value is above / below the checked claim's value (same dimension)
    within Nx        the two values are within a factor N of each other (same dimension)
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

OPERATORS = {">": "greater than", ">=": "at least", "<": "less than", "<=": "at most"}
_TYPOGRAPHIC = {"≥": ">=", "≤": "<=", "×": "x"}
_NUMBER = r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?"
_BOUND = re.compile(rf"^(>=|<=|>|<)\s*({_NUMBER})\s*(.*)$", re.ASCII)
_WITHIN = re.compile(rf"^within\s+({_NUMBER})\s*x$", re.ASCII)
HELP = 'write e.g. "> 1", ">= 0.9", "< 50 %", "> 10 GB/s", "above", "below" or "within 2x"'


class RelationError(ValueError):
    """`expects:` text that is not one of the relations."""


@dataclass(frozen=True)
class Relation:
    text: str  # as written ("same" for the plain form)
    op: str  # same | > | >= | < | <= | above | below | within
    bound: float = 0.0  # the number for > >= < <=; the factor for within
    unit: str = ""  # the bound's unit as written ("" = the check's own unit)

    @property
    def against_claim(self) -> bool:
        """Whether it compares with the checked claim's value (so the two need one dimension)."""
        return self.op in ("same", "above", "below", "within")

    def holds(self, check: float, claimed: float | None = None, bound: float | None = None) -> bool:
        """Whether the check's value satisfies it; `bound` is self.bound already converted to the check's unit."""
        limit = self.bound if bound is None else bound
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
        if self.op in OPERATORS:
            unit = f"{' ' if self.unit and self.unit not in ('%', '×', 'x') else ''}{self.unit}"
            return f"{OPERATORS[self.op]} {_number(self.bound)}{unit}"
        if self.op == "within":
            return f"within {_number(self.bound)}× of the claim"
        return f"{self.op} the claim's value"


SAME = Relation("same", "same")


def parse(text: object) -> Relation:
    """'> 1' -> Relation(op='>', bound=1.0); raises RelationError saying what is allowed."""
    if not isinstance(text, str) or not text.strip():
        raise RelationError(f"`expects` must be text, found {text!r}")
    if len(text) > 100:
        raise RelationError("`expects` is longer than 100 characters")
    cleaned = text.strip()
    for typographic, plain in _TYPOGRAPHIC.items():
        cleaned = cleaned.replace(typographic, plain)
    lowered = cleaned.lower()
    if lowered in ("above", "below"):
        return Relation(text, lowered)
    if lowered in ("same", "="):
        return Relation(text, "same")
    within = _WITHIN.match(lowered)
    if within:
        factor = float(within.group(1))
        if not math.isfinite(factor) or factor < 1:
            raise RelationError(f"within {within.group(1)}x: the factor must be a finite number of at least 1")
        return Relation(text, "within", factor)
    bound = _BOUND.match(cleaned)
    if bound:
        number = float(bound.group(2))
        if not math.isfinite(number):
            raise RelationError(f"{bound.group(2)} is not a finite number")
        return Relation(text, bound.group(1), number, bound.group(3).strip())
    raise RelationError(f"cannot read relation {text!r}")


def _number(value: float) -> str:
    return f"{value:g}"
