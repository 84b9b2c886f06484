"""Bands: a check's relation + the claims' values and units -> the band a checking value must lie in. Pure.

A band is what a check is judged with (checks.py) and what a refutation must lie outside of
(retirements.py): a stated value within its check tolerance, what a source states (a bound, a range), a
factor. A checking value is judged on its whole interval (inside, outside, or across an end), and how far
it may move inside the band is what unused-input holds a formula's inputs to (allowance).
"""

from __future__ import annotations

import math

import attrs

from ..claims.vocabulary import Vocabulary
from ..lang import relations, units
from ..lang.values import Tolerance, format_value
from ..records import CheckSpec, Claim, ClaimInterval, Policy
from ..wording import interval_text


def stated(claim: Claim, unit: units.Unit, vocabulary: Vocabulary) -> tuple[float, float]:
    """What a borrowed claim's source states (`states:`, `range:`), as the band (low, high) in `unit`."""
    relation = vocabulary.relation(claim.states)
    assert relation is not None  # validate read it
    bound = relation.unit or unit
    ends = (relation.bound, relation.upper) if relation.op == "between" else open_ends(relation.op, relation.bound)
    low, high = (units.convert(end, bound, unit) if math.isfinite(end) else end for end in ends)
    return low, high


def check_tolerance(claim: Claim, policy: Policy) -> Tolerance:
    """A same-quantity check's tolerance: the checked claim's own, else the policy's check_tolerance (never the
    `precision` default, which is for a stated value against its own evidence)."""
    tolerance = claim.tolerance or policy.check_tolerance
    return policy.check_tolerance if tolerance.text == "precision" else tolerance


def allowance(
    checked: Claim, spec: CheckSpec, value: float, theirs: units.Unit, vocabulary: Vocabulary, policy: Policy
) -> float | None:
    """How far a checking value (`value`, in its unit `theirs`) may move while the check that could agree
    with `checked` still reads it alike: half the band it is judged with (the check tolerance, `within Nx`,
    a range), or its distance to the one finite end of a bound; None for a check that supports no number (a
    bound or a direction), a relation or unit that cannot be read, or another dimension. unused-input holds
    a formula's inputs to the loosest of them: an input that moves the result less supports nothing."""
    relation = vocabulary.relation(spec.expects) if spec.expects else relations.SAME
    mine = vocabulary.unit(checked.unit)
    if relation is None or relation.strength(policy.max_check_factor) != relations.AGREES:
        return None
    if not (mine.known and theirs.known) or mine.dimension != theirs.dimension:
        return None
    found = units.convert(value, theirs, mine)
    if relation.op == "same" and checked.states:
        low, high = stated(checked, mine, vocabulary)
        finite = [end for end in (low, high) if math.isfinite(end)]
        half = (high - low) / 2 if len(finite) == 2 else abs(found - finite[0]) if finite else None
    elif checked.value is None:
        half = None
    elif relation.op == "same":
        half = check_tolerance(checked, policy).allowed(found)
    else:
        half = (checked.value * relation.bound - checked.value / relation.bound) / 2 if checked.value > 0 else None
    return units.convert(half, mine, theirs) if half is not None else None


def near(value: float, factor: float, low: float, high: float) -> bool:
    """Whether every value within `factor` of `value` (same sign) lies in [low, high]."""
    ends = sorted((value / factor, value * factor))
    return low <= ends[0] and ends[1] <= high


def open_ends(op: str, bound: float) -> tuple[float, float]:
    """A one-sided bound's ends (an open end just past the bound, as the relation excludes it)."""
    if op == ">":
        return math.nextafter(bound, math.inf), math.inf
    if op == ">=":
        return bound, math.inf
    if op == "<":
        return -math.inf, math.nextafter(bound, -math.inf)
    return -math.inf, bound


def inside(band_low: float, band_high: float, low: float, high: float) -> bool | None:
    """Whether the checker's interval [low, high] lies inside the band (True), wholly outside it (False),
    or reaches across an end (None: inconclusive). A value with no interval is a point: True or False."""
    if band_low <= low and high <= band_high:
        return True
    if high < band_low or low > band_high:
        return False
    return None


def with_interval(
    found: float, spread: ClaimInterval | None, source: units.Unit, target: units.Unit, text: str = ""
) -> str:
    """The check's value in the target unit, with its interval (converted) where it has one."""
    text = text or format_value(found, target)
    if spread:
        low, high = (units.convert(x, source, target) for x in (spread.low, spread.high))
        text += f" ({interval_text(attrs.evolve(spread, low=low, high=high), target)})"
    return text
