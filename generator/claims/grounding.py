"""Formula grounding: an extrapolated claim + its inputs -> problems with its unit, testbed and inputs. Pure.

A formula's result has the dimension its inputs' units give it (numbers are dimensionless), and the
claim's unit must have that dimension. The formula is evaluated on quantities (scales()): each input
in its unit, the result converted to the claim's unit, so `1 / tok_s` stated in ms/token is the
milliseconds per token and `1 - a / b` stated in % is a percentage; a number in a formula is a plain
number, never a conversion factor. Its testbed is its inputs' testbed: none when none has one;
`mixed` (MIXED), said explicitly, when they differ. An input claim that no perturbation moves the
result of beyond the tolerance that judges it grounds nothing, and a formula that cannot be evaluated near
its inputs' values is a finding of its own (fragile-formula).
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
    shown = f" (e.g. `unit: {example!r}`: the result is converted to the claim's unit)" if example else ""
    return Problem(
        "invalid",
        "unit" if claim.unit else "formula",
        f"formula {claim.formula} gives {result.describe()}, but the claim's unit "
        f"{repr(claim.unit) if claim.unit else '(none)'} is {mine.describe()}",
        f"state the claim in {result.describe()}{shown}, or correct the formula",
    )


def scales(claim: Claim, mine: units.Unit, inputs: Mapping[str, units.Unit]) -> formula.Scales | None:
    """How the formula's numbers are quantities: each input's unit scale and the claim unit's (mine; inputs:
    each input's unit, as read at load); None when a unit is unknown or the result's dimension is not the
    claim's (dimension_problem says which)."""
    if not mine.known or not all(unit.known for unit in inputs.values()):
        return None
    try:
        result = formula.dimension(claim.formula, {name: unit.dimension for name, unit in inputs.items()})
    except formula.FormulaError:
        return None
    if result != mine.dimension:
        return None
    scaled = tuple((name, unit.scale) for name, unit in sorted(inputs.items()) if unit.scale != 1.0)
    return formula.Scales(scaled, mine.scale) if scaled or mine.scale != 1.0 else formula.PLAIN


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


def input_use(
    claim: Claim,
    values: Mapping[str, float],
    allowed: float,
    scaled: formula.Scales = formula.PLAIN,
    result: float | None = None,
) -> formula.Use:
    """Which input claims (ids) no perturbation (x0.5, x2) of the claim, under every name it is bound to, moves
    the result of beyond `allowed` (the loosest tolerance that judges the claim): whatever their value, the
    claim would pass, so they ground nothing; and those under which the formula cannot be evaluated.
    result: the formula on `values`, when already evaluated."""
    groups: dict[str, list[str]] = {}
    for name, target in claim.inputs:
        if name in values:
            groups.setdefault(target, []).append(name)
    try:
        return formula.use(claim.formula, values, allowed, scaled, groups, result)
    except formula.FormulaError:
        return formula.Use()  # the evaluation itself is reported


def _named(claim: Claim, target: str) -> tuple[list[str], str]:
    """The names an input claim is bound to, and how a finding names it: 'input s (m)', 'input m (as a and b)'."""
    names = [name for name, bound in claim.inputs if bound == target]
    named = " and ".join(names)
    return names, f"input {named} ({target})" if len(names) == 1 else f"input {target} (as {named})"


def unused_problem(claim: Claim, target: str, allowed_text: str) -> Problem:
    """The finding for an input claim that does not move the result, named with every name it is bound to;
    allowed_text: the tolerance it was judged against, in words."""
    names, head = _named(claim, target)
    named = " and ".join(names)
    moved = (
        f"whether {named} is multiplied" if len(names) == 1 else f"whether {target} is multiplied (as each of {named})"
    )
    return Problem(
        "unused-input",
        "formula",
        f"{head} does not move the result: {claim.formula} stays within {allowed_text} {moved} by 0.5 or 2",
        f"use {named} in the result, or remove {target} from `inputs` and the formula: an input that cancels out, "
        "is clamped or flattened, or moves the result less than the tolerance it is judged with grounds nothing",
    )


def fragile_problem(claim: Claim, target: str, factor: float, error: str) -> Problem:
    """The finding for a formula that cannot be evaluated when an input claim moves by a plausible factor."""
    _, head = _named(claim, target)
    return Problem(
        "fragile-formula",
        "formula",
        f"{claim.formula} cannot be evaluated when {head} is multiplied by {factor:g} ({error}): a formula that "
        "breaks near its inputs' values says nothing about them, and its break is never taken for dependence",
        "write the formula so that it holds for values near its inputs' (no division by a difference that can "
        "reach 0, no power that overflows), or remove the input",
    )
