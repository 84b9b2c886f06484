"""Values: parse and format numbers, units, tolerances and precision; select a row. Pure.

The gate's stages and every display (pages, `show`, `diff`) import these, so a value is parsed,
compared and written the same way everywhere, and no display imports a gate stage.
"""

from __future__ import annotations

import math
import re

from .records import Claim, Policy, Table, Tolerance

TOLERANCE_PATTERN = re.compile(r"^\s*(\d+(\.\d*)?|\.\d+)\s*(%?)\s*$")
TOLERANCE_HELP = "must be a number, a percentage like '5%', or 'precision'"
UNITS_WITHOUT_GAP = ("×", "%", "x")


def parse_tolerance(value: object) -> Tolerance:
    """'5%' -> relative 0.05; 0.01 or '0.01' -> absolute; 'precision' -> half the last stated digit."""
    if isinstance(value, bool) or value is None:
        raise ValueError(TOLERANCE_HELP)
    if isinstance(value, (int, float)):
        if value < 0:
            raise ValueError("must not be negative")
        return Tolerance(str(value), absolute=float(value))
    text = str(value)
    if text.strip() == "precision":
        return Tolerance("precision")
    match = TOLERANCE_PATTERN.match(text)
    if not match:
        raise ValueError(TOLERANCE_HELP)
    number = float(match.group(1))
    if match.group(3):
        return Tolerance(text.strip(), relative=number / 100)
    return Tolerance(text.strip(), absolute=number)


def precision_of(value_text: str) -> float:
    """Half a unit in the last written digit: '3.59' -> 0.005, '67' -> 0.5, '1.2e3' -> 50."""
    text = value_text.strip().lower().replace("_", "")
    mantissa, _, exponent = text.partition("e")
    decimals = len(mantissa.split(".", 1)[1]) if "." in mantissa else 0
    return 0.5 * 10.0 ** (int(exponent or 0) - decimals)


def tolerance_for(claim: Claim, policy: Policy) -> Tolerance:
    """The claim's own tolerance, else the policy's default."""
    tolerance = claim.tolerance or parse_tolerance(policy.default_tolerance)
    if tolerance.text == "precision":
        return Tolerance("precision", absolute=precision_of(claim.value_text) if claim.value_text else 0.0)
    return tolerance


def allowed_text(tolerance: Tolerance) -> str:
    """How a tolerance reads in a message: '5%', '0.01', or '±0.005' for the precision default."""
    return tolerance.text if tolerance.text != "precision" else f"±{format_value(tolerance.absolute)}"


def within(stated: float, computed: float, tolerance: Tolerance) -> bool:
    """Whether a stated value agrees with the computed one under the tolerance (1e-9 relative slack)."""
    return abs(stated - computed) <= tolerance.allowed(computed) + 1e-9 * max(abs(computed), 1e-300)


def format_value(value: float, unit: str = "") -> str:
    """A value the way a reader wants it: 4 significant digits, no exponent for everyday sizes."""
    if value == 0 or 1e-3 <= abs(value) < 1e7:
        digits = max(0, 3 - int(math.floor(math.log10(abs(value))))) if value else 0
        text = f"{value:.{digits}f}"
        if "." in text:
            text = text.rstrip("0").rstrip(".")
    else:
        text = f"{value:.4g}"
    return f"{text}{unit_gap(unit)}{unit}"


def unit_gap(unit: str) -> str:
    """The space between a number and its unit: none for × and %."""
    return "" if not unit or unit in UNITS_WITHOUT_GAP else " "


def stated(claim: Claim) -> str:
    """The value as the claim states it, with its unit ('3.59×', '67 tok/s'); '' without a value."""
    if claim.value is None:
        return ""
    number = claim.value_text or format_value(claim.value)
    return f"{number}{unit_gap(claim.unit)}{claim.unit}"


def select_row(table: Table, where: tuple[tuple[str, object], ...]) -> list[int]:
    """Indexes of the rows whose cells equal every value in `where` (numbers compared as numbers)."""
    positions = [(table.columns.index(column), value) for column, value in where]
    return [i for i, row in enumerate(table.rows) if all(_same(row[position], value) for position, value in positions)]


def _same(cell: str, value: object) -> bool:
    if isinstance(value, bool):
        return cell.strip().lower() == str(value).lower()
    if isinstance(value, (int, float)):
        try:
            return float(cell) == float(value)
        except ValueError:
            return False
    return cell == ("" if value is None else str(value))


# -- a row's spread across rounds ----------------------------------------------------------------
# A measured column X carries its low and high across rounds in the columns X_min and X_max (or
# X_low and X_high), beside a `rounds` column. A formula's spread is its result over every corner
# of its inputs' spreads (exact for the monotone arithmetic formulas use: + - * / ** min max).

SPREAD_SUFFIXES = (("_min", "_max"), ("_low", "_high"))
MAX_CORNER_INPUTS = 8  # 2**8 evaluations at most


def spread_columns(columns: tuple[str, ...], column: str) -> tuple[str, str] | None:
    """The (low, high) column names that carry `column`'s spread, if the table has them."""
    for low, high in SPREAD_SUFFIXES:
        if column + low in columns and column + high in columns:
            return column + low, column + high
    return None


def row_spread(table: Table, row: int, column: str) -> tuple[float, float] | None:
    """(low, high) of one cell across rounds, from its spread columns; None when it has none."""
    names = spread_columns(table.columns, column)
    if names is None:
        return None
    try:
        low, high = (float(table.rows[row][table.columns.index(name)]) for name in names)
    except ValueError:
        return None
    if not (math.isfinite(low) and math.isfinite(high)):
        return None
    return min(low, high), max(low, high)


def within_noise(
    old: float, old_spread: tuple[float, float] | None, new: float, new_spread: tuple[float, float] | None
) -> bool | None:
    """Whether a move from old to new lies inside the rounds' spread (the ranges overlap); None if unknown."""
    if old_spread is None and new_spread is None:
        return None
    old_low, old_high = old_spread or (old, old)
    new_low, new_high = new_spread or (new, new)
    return old_low <= new_high and new_low <= old_high
