"""Formula grounding: an extrapolated claim + its inputs -> problems with its unit, testbed and inputs. Pure.

A formula's result has the dimension its inputs' units give it (numbers are dimensionless, so a
conversion constant is legal: `1000 / tok_s` is in ms/token), and the claim's unit must have that
dimension. Its testbed is its inputs' testbed: none when none has one; `mixed` (MIXED), said
explicitly, when they differ. An input that no perturbation moves the result of grounds nothing.
Arithmetic stays on the stated numbers: units are checked, never converted, here.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from ..lang import formula, units
from ..records import Claim

MIXED = "mixed"  # the testbed of a claim computed from inputs on different testbeds


@dataclass(frozen=True, slots=True)
class Problem:
    rule: str
    field: str  # the claim's field it concerns (its line is shown)
    problem: str
    fix: str


def dimension_problem(
    claim: Claim, mine: units.Unit, inputs: Mapping[str, units.Unit], table: units.UnitTable = units.BUILT_IN
) -> Problem | None:
    """The formula's result dimension against the claim's unit (mine; inputs: each input's unit, as read at
    load); None when they agree or a unit is unknown."""
    if not mine.known or not all(unit.known for unit in inputs.values()):
        return None  # validate reported the unknown unit
    given = {name: unit.dimension for name, unit in inputs.items()}
    try:
        result = formula.dimension(claim.formula, given)
    except formula.FormulaError as error:
        return Problem(
            "invalid",
            "formula",
            f"formula's units do not combine: {error}",
            "check the formula and its inputs' units (only quantities of one dimension add or compare)",
        )
    if result == mine.dimension:
        return None
    example = units.example(result, table)
    shown = f" (e.g. `unit: {example!r}`; the formula's numbers carry any scale)" if example else ""
    return Problem(
        "invalid",
        "unit" if claim.unit else "formula",
        f"formula {claim.formula} gives {result.describe()}, but the claim's unit "
        f"{repr(claim.unit) if claim.unit else '(none)'} is {mine.describe()}",
        f"state the claim in {result.describe()}{shown}, or correct the formula",
    )


def derived_testbed(testbeds: Iterable[str]) -> str:
    """The testbed of a claim computed from inputs on these testbeds: '' (none), one, or MIXED."""
    found = {testbed for testbed in testbeds if testbed}
    if len(found) > 1 or MIXED in found:
        return MIXED
    return next(iter(found), "")


def testbed_problem(claim: Claim, input_testbeds: Mapping[str, str]) -> Problem | None:
    """The claim's stated testbed against its inputs'; omitting it means 'the inputs' one testbed'."""
    derived = derived_testbed(input_testbeds.values())
    stated = claim.testbed
    if stated == derived or (not stated and derived != MIXED):
        return None
    on = sorted({testbed for testbed in input_testbeds.values() if testbed})
    if not derived:
        return Problem(
            "invalid",
            "testbed",
            f"testbed {stated}, but none of its inputs has a testbed",
            "remove `testbed:` (the claim describes no machine), or use inputs measured on it",
        )
    if derived == MIXED:
        return Problem(
            "invalid",
            "testbed" if stated else "inputs",
            f"its inputs are on {', '.join(on)}{f' (not {stated} alone)' if stated else ''}: a mix must be said",
            f"write `testbed: {MIXED}`, or use inputs from one testbed",
        )
    return Problem(
        "invalid",
        "testbed",
        f"testbed {stated}, but its inputs are on {derived}",
        f"write `testbed: {derived}` (or leave it out), or use inputs measured on {stated}",
    )


def unused_inputs(claim: Claim, values: Mapping[str, float], allowed: float) -> list[str]:
    """The input names that no perturbation (x0.1, x0.5, x2, x10) moves the result of beyond the claim's
    tolerance (`allowed`): whatever they are, the claim would pass, so they ground nothing."""
    try:
        return formula.unused_inputs(claim.formula, values, allowed)
    except formula.FormulaError:
        return []  # the evaluation itself is reported


def unused_problem(claim: Claim, name: str) -> Problem:
    return Problem(
        "unused-input",
        "formula",
        f"input {name} ({dict(claim.inputs).get(name, '?')}) does not move the result: {claim.formula} stays "
        f"within the claim's tolerance whether {name} is multiplied by 0.1, 0.5, 2 or 10",
        f"use {name} in the result or remove it from `inputs` and the formula: an input that cancels out grounds nothing",
    )
