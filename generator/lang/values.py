"""Values: parse and format numbers, units, tolerances and precision; select a row. Pure.

The gate's stages and every display (pages, `show`, `diff`) import these, so a value is parsed,
compared and written the same way everywhere, and no display imports a gate stage.
"""

from __future__ import annotations

import functools
import math
import re

from ..frozen import by_identity
from ..records import AssertResult, Claim, ClaimInterval, ClaimVerdict, Policy, Table, Tolerance
from . import units
from .units import Unit
from .yamlread import NUMBER, UNSIGNED

TOLERANCE_PATTERN = re.compile(rf"^\s*({UNSIGNED})\s*(%?)\s*$", re.ASCII)
TOLERANCE_HELP = "must be a number, a percentage like '5%', or 'precision'"
# A number in a CSV cell or a written value: plain ASCII decimal, optional exponent. No '1_000',
# no full-width or other Unicode digits, no 'inf' or 'nan'.
NUMBER_PATTERN = re.compile(rf"^{NUMBER}$", re.ASCII)


@functools.lru_cache(maxsize=1 << 16)  # a run's cells repeat across the claims that select its rows
def parse_number(text: str) -> float | None:
    """A CSV cell as a finite number ('1.5', '-2e3'), or None ('1_000', '１', 'inf', 'n/a', '')."""
    text = text.strip()
    if len(text) > 400 or not NUMBER_PATTERN.match(text):
        return None
    number = float(text)
    return number if math.isfinite(number) else None


def cell_number(table: Table, row: int, column: str) -> float | None:
    """The one cell reader for the gate and every command: a table's cell as a number (parse_number).

    None when the column is missing or the cell is not a plain finite decimal ('3_7', 'inf', '')."""
    if column not in table.columns or not 0 <= row < len(table.rows):
        return None
    return parse_number(table.rows[row][table.columns.index(column)])


def finite_number(value: object) -> float | None:
    """A YAML number as a finite float, or None (booleans, text, nan, inf, integers beyond a float)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        number = float(value)
    except OverflowError:
        return None
    return number if math.isfinite(number) else None


def parse_tolerance(value: object) -> Tolerance:
    """'5%' -> relative 0.05; 0.01 or '0.01' -> absolute; 'precision' -> half the last stated digit."""
    if isinstance(value, bool) or value is None:
        raise ValueError(TOLERANCE_HELP)
    if isinstance(value, (int, float)):
        number = finite_number(value)
        if number is None:
            raise ValueError("must be a finite number")
        if number < 0:
            raise ValueError("must not be negative")
        return Tolerance(str(value), absolute=number)
    text = str(value)
    if text.strip() == "precision":
        return Tolerance("precision")
    match = TOLERANCE_PATTERN.match(text)
    if not match:
        raise ValueError(TOLERANCE_HELP)
    number = float(match.group(1))
    if not math.isfinite(number):
        raise ValueError("must be a finite number")
    if match.group(2):
        return Tolerance(text.strip(), relative=number / 100)
    return Tolerance(text.strip(), absolute=number)


@functools.lru_cache(maxsize=1 << 16)  # each claim's default tolerance, and again when its value is restated
def precision_of(value_text: str) -> float:
    """Half a unit in the last written digit: '3.59' -> 0.005, '67' -> 0.5, '1.2e-3' -> 0.00005.

    An exponent can make the precision finer, never coarser than half a unit: '1.2e3' and
    '0.0e+99' -> 0.5, so exponent notation cannot widen the default tolerance. Text that is not a
    plain decimal (hex, octal) gets half a unit too.
    """
    text = value_text.strip().lower()
    if not NUMBER_PATTERN.match(text) or len(text) > 400:
        return 0.5
    mantissa, _, exponent_text = text.partition("e")
    decimals = len(mantissa.split(".", 1)[1]) if "." in mantissa else 0
    exponent = int(exponent_text or 0)
    return 0.5 * 10.0 ** max(-300, min(0, exponent - decimals))


def tolerance_for(claim: Claim, policy: Policy) -> Tolerance:
    """The claim's own tolerance, else the policy's default."""
    tolerance = claim.tolerance or policy.default_tolerance
    if tolerance.text == "precision":
        return _precision(claim.value_text)
    return tolerance


@functools.lru_cache(maxsize=1 << 16)  # one record per written value, not one per claim
def _precision(value_text: str) -> Tolerance:
    return Tolerance("precision", absolute=precision_of(value_text) if value_text else 0.0)


def rounded(claim: Claim, computed: float, policy: Policy) -> str:
    """A computed value restated with as many significant digits as the stated one (at least 3), or
    more if the tolerance needs them (`ledger accept` and `refresh --write` write it)."""
    digits = max(3, _significant(claim.value_text)) if claim.value_text else 4
    for extra in range(0, 14):
        text = _fixed(computed, digits + extra)
        restated = Claim(
            claim.id, claim.kind, claim.where, value=float(text), value_text=text, tolerance=claim.tolerance
        )
        if within(float(text), computed, tolerance_for(restated, policy)):
            return text
    return repr(computed)


def _significant(text: str) -> int:
    mantissa = text.strip().lower().split("e")[0].lstrip("+-").replace("_", "")
    digits = mantissa.replace(".", "").lstrip("0")
    return max(1, len(digits))


def _fixed(value: float, significant: int) -> str:
    if value == 0:
        return "0"
    decimals = max(0, significant - 1 - int(math.floor(math.log10(abs(value)))))
    return f"{value:.{decimals}f}"


def allowed_text(tolerance: Tolerance) -> str:
    """How a tolerance reads in a message: '5%', '0.01', or '±0.005' for the precision default."""
    return tolerance.text if tolerance.text != "precision" else f"±{format_value(tolerance.absolute)}"


def within(stated: float, computed: float, tolerance: Tolerance) -> bool:
    """Whether a stated value agrees with the computed one under the tolerance (1e-9 relative slack)."""
    return abs(stated - computed) <= tolerance.allowed(computed) + 1e-9 * max(abs(computed), 1e-300)


def tolerance_excess(tolerance: Tolerance, stated: float, computed: float, max_share: float) -> float | None:
    """The share of max(|stated|, |computed|) a tolerance allows, when it is above max_share; else None.

    Judged on both values, so a stated 0 with a wide absolute tolerance is caught once anything is
    computed; two values that are both exactly 0 need no tolerance at all.
    """
    scale = max(abs(stated), abs(computed))
    allowed = tolerance.allowed(computed)
    if scale == 0 or allowed <= max_share * scale * (1 + 1e-12):
        return None
    return allowed / scale


FORMATTED_KEPT = 1 << 14  # values format_value remembers at most; it starts again empty past this
_formatted: dict[tuple[float, int], tuple[Unit | None, str]] = {}  # (value, id(unit)) -> (unit, text)


def format_value(value: float, unit: Unit | None = None) -> str:
    """A value the way a reader wants it, by its parsed unit: 4 significant digits ('3.59×', '28.49 tok/s'),
    counts as whole numbers with separators ('40 layers', '1,234,567 prompts'), bytes with a readable
    prefix ('64.4 MB')."""
    if type(value) is not float or value == 0:  # only plain floats are remembered (0.0 and -0.0 are one key)
        return _format_value(value, unit)
    # every page of a claim, its checks and its series formats the same values; a unit is keyed by its
    # identity (its hash reads Fractions) and kept beside the text, so a key is never another unit's
    key = (value, id(unit))
    found = _formatted.get(key)
    if found is None or found[0] is not unit:
        if len(_formatted) >= FORMATTED_KEPT:
            _formatted.clear()
        found = _formatted[key] = (unit, _format_value(value, unit))
    return found[1]


def _format_value(value: float, unit: Unit | None) -> str:
    return show(value, unit) if unit is not None and unit.text else plain_number(value)


def format_pair(first: float, second: float, unit: Unit | None = None) -> tuple[str, str]:
    """Two values as a reader compares them: with as many digits as it takes to tell them apart,
    so values that differ never read as equal ('1.00001' and '1.00002', not '1' and '1')."""
    texts = format_value(first, unit), format_value(second, unit)
    if texts[0] != texts[1] or first == second:
        return texts
    text = unit.text if unit is not None else ""
    gap = units.gap(text)
    for digits in range(5, 18):
        texts = f"{first:.{digits}g}{gap}{text}", f"{second:.{digits}g}{gap}{text}"
        if texts[0] != texts[1]:
            break
    return texts[0].strip(), texts[1].strip()


def unit_gap(unit: str) -> str:
    """The space between a number and its unit: none for × and %."""
    return units.gap(unit)


@by_identity(1 << 14)  # a claim's page, each page listing it and its checks state it alike
def stated(verdict: ClaimVerdict) -> str:
    """The value as the claim states it, with its unit ('3.59×', '67 tok/s'); '' without a value.

    Written digits are kept (they carry the precision), except where the unit has a better
    display: bytes with a readable prefix, counts (a project's own too) with thousands separators.
    """
    claim, unit = verdict.claim, verdict.unit
    if claim.value is None:
        return _states_shown(claim.states, claim.unit) if claim.states else ""
    number = claim.value_text or format_value(claim.value)
    if unit.known and unit.text:
        if unit.is_bytes and "bit" not in unit.text and abs(claim.value * unit.scale) >= 1e4:
            return show(claim.value, unit)  # '64.4 MB', not '64389120 B'
        if unit.is_count and claim.value.is_integer():
            return show(claim.value, unit)  # '40 layers', never '40.00 layers'
    return f"{number}{unit_gap(claim.unit)}{claim.unit}"


def displayed(verdict: ClaimVerdict) -> str:
    """The value as a reader sees it in prose and tables: the stated value with only the digits its
    interval supports ('22 ms' for 22.341 ms with an interval of 17–34 ms; `step`), never more digits
    than written; the stated value itself (stated()) without an interval. Pages show the full value and
    interval on hover and on the claim page; the gate compares the stated value."""
    claim, interval = verdict.claim, verdict.interval
    if claim.value is None or interval is None:
        return stated(verdict)
    quantum = step(claim.value, interval.low, interval.high)
    if quantum is None or quantum <= precision_of(claim.value_text or repr(claim.value)) * 2:
        return stated(verdict)
    halves_up = math.copysign(math.floor(abs(claim.value) / quantum + 0.5), claim.value)  # 28.5 -> 29, not 28
    return show_to(halves_up * quantum, verdict.unit, quantum)


def step(value: float, low: float, high: float) -> float | None:
    """The rounding step an interval supports: the place of its half-width's second significant digit
    when that half-width's three leading digits are 100–354, else of its first (the Particle Data Group's
    rule); never coarser than the value's own leading digit. None for a point or a non-finite interval."""
    half = (high - low) / 2
    if not (math.isfinite(half) and half > 0 and math.isfinite(value)):
        return None
    exponent = math.floor(math.log10(half))
    leading = half / 10.0**exponent  # 1.0 <= leading < 10
    quantum = 10.0 ** (exponent - 1 if leading < 3.55 else exponent)
    if value:
        quantum = min(quantum, 10.0 ** math.floor(math.log10(abs(value))))
    return quantum


def show_to(value: float, unit: Unit | None, quantum: float) -> str:
    """A value already rounded to `quantum` (a power of ten in the claim's unit), written with exactly
    the decimals that step has, by unit as show() writes it (separators, a byte prefix, no gap before × or %)."""
    text = unit.text if unit is not None else ""
    if unit is not None and unit.known and unit.is_bytes and "bit" not in text:
        count, quantum_bytes = value * unit.scale, quantum * unit.scale
        name, size = _byte_prefix(count, binary="i" in text)
        return f"{_decimals(count / size, quantum_bytes / size)} {name}"
    number = _decimals(value, quantum)
    if unit is not None and unit.known and unit.is_count:
        whole, dot, fraction = number.partition(".")
        number = f"{int(whole):,}{dot}{fraction}" if whole.lstrip("-").isdigit() else number
    return f"{number}{units.gap(text)}{text.strip()}".strip()


def _decimals(value: float, quantum: float) -> str:
    places = max(0, -math.floor(math.log10(quantum) + 1e-9))
    text = f"{value:.{places}f}"
    return text.lstrip("-") if text.lstrip("-").strip("0.") == "" else text  # never "-0.0"


def _states_shown(states: str, unit: str) -> str:
    """What a source states with no single figure, as the claim writes it, with its unit: '>= 10 GB/s',
    'between 5 and 15×'."""
    if not unit or re.search(r"[^\d.\s]$", states):  # no unit, or the bound ends in its own
        return states
    return f"{states}{unit_gap(unit)}{unit}"


def level_text(level: float | None) -> str:
    """A coverage as a reader sees it: '99.6%', '98.4%', '99%'; '' when not known."""
    if level is None:
        return ""
    return f"{100 * level:.1f}".rstrip("0").rstrip(".") + "%"


def range_text(low: float, high: float, unit: Unit | None = None) -> str:
    """'26.1–44.4 tok/s': both ends by unit, the unit written once."""
    low_text, high_text = format_value(low, unit), format_value(high, unit)
    text = unit.text if unit is not None else ""
    gap = unit_gap(text)
    if text and low_text.endswith(gap + text) and high_text.endswith(gap + text):
        low_text = low_text[: len(low_text) - len(gap + text)]
    return f"{low_text}–{high_text}"


BASIS_WORDS = {
    "rounds": "{n} rounds",
    "min-max": "min–max of {n} rounds; no raw rounds",
    "paired": "paired by round, {n} rounds",
    "formula": "carried through the formula",
    "replicates": "between {runs} replicate runs",
}
ONE_RUN = "one run: the interval does not include run-to-run variation"


def interval_text(interval: ClaimInterval | None, unit: Unit | None = None) -> str:
    """A claim's interval as a reader sees it: '99.6% interval 3.41–3.79× (9 rounds)',
    '98.4% interval 0.74–1.51× (min–max of 7 rounds; no raw rounds)',
    '≥ 98% interval 3.1–3.9× (carried through the formula)'; '' without one."""
    if interval is None:
        return ""
    level, ends, words = interval_parts(interval, unit)
    return f"{level + ' ' if level else ''}interval {ends} ({words})"


def interval_parts(interval: ClaimInterval, unit: Unit | None = None) -> tuple[str, str, str]:
    """(level, ends, how it was found): ('98.4%', '0.74–1.51×', 'min–max of 7 rounds; no raw rounds')."""
    level = level_text(interval.level)
    if level and interval.basis == "formula":
        level = "≥ " + level  # a lower bound (Bonferroni)
    words = BASIS_WORDS.get(interval.basis, interval.basis).format(n=interval.rounds, runs=interval.runs)
    if interval.basis == "min-max" and not interval.rounds:
        words = "min–max; no raw rounds"
    return level, range_text(interval.low, interval.high, unit), words


def noise_text(verdict: ClaimVerdict) -> str:
    """What a reader is told of a claim's noise: its interval, 'exact' for a value computed from counts,
    or 'no raw rounds' for a measured claim without raw rounds or a min–max range; else ''. Every display
    shows ONE_RUN beside it when the interval comes from one run (ClaimVerdict.one_run)."""
    text = interval_text(verdict.interval, verdict.unit)
    if text or verdict.exact:
        return text or "exact"
    return "no raw rounds" if verdict.no_rounds else ""


def prediction_text(verdict: ClaimVerdict) -> str:
    """'the next run should land in 0.8–1.32× (99% prediction interval of 4 replicate runs)'; '' without a set."""
    found = verdict.prediction
    if found is None:
        return ""
    ends = range_text(found.low, found.high, verdict.unit)
    return f"the next run should land in {ends} ({level_text(found.level)} prediction interval of {found.runs} replicate runs)"


def assert_text(result: AssertResult) -> str:
    """A claim's `asserts:` verdict in words: 'asserts > 1: holds: its 99.6% interval is 1.1–1.5× (9 rounds)',
    'asserts > 1: does not hold: it has no interval: …', 'asserts > 1: not judged: stale (drifted)'."""
    verdict = "" if result.holds is None else "holds: " if result.holds else "does not hold: "
    return f"asserts {result.relation}: {verdict}{result.on}"


def select_row(table: Table, where: tuple[tuple[str, object], ...]) -> list[int]:
    """Indexes of the rows whose cells equal every value in `where` (numbers compared as numbers)."""
    positions = [(table.columns.index(column), value) for column, value in where]
    return [
        i for i, row in enumerate(table.rows) if all(matches(row[position], value) for position, value in positions)
    ]


def matches(cell: str, value: object) -> bool:
    """Whether a CSV cell equals a `where` value: numbers as numbers, booleans by their words."""
    if isinstance(value, bool):
        return cell.strip().lower() == str(value).lower()
    if isinstance(value, (int, float)):
        number = parse_number(cell)
        return number is not None and number == finite_number(value)
    return cell == ("" if value is None else str(value))


# -- a row's spread across rounds (runs without raw rounds) ----------------------------------------
# A measured column X carries its low and high across rounds in the columns X_min and X_max (or
# X_low and X_high), beside a `rounds` column. Runs with raw rounds have samples instead
# (intervals.py); this is what a run without them still gives.

SPREAD_SUFFIXES = (("_min", "_max"), ("_low", "_high"))


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
    low, high = (cell_number(table, row, name) for name in names)
    if low is None or high is None:
        return None
    return min(low, high), max(low, high)


# -- display by unit -------------------------------------------------------------------------------

_DECIMAL = (("PB", 1e15), ("TB", 1e12), ("GB", 1e9), ("MB", 1e6), ("KB", 1e3))
_BINARY = (("PiB", 1024.0**5), ("TiB", 1024.0**4), ("GiB", 1024.0**3), ("MiB", 1024.0**2), ("KiB", 1024.0))


def plain_number(value: float) -> str:
    """4 significant digits, no exponent for everyday sizes, no trailing zeros."""
    if not math.isfinite(value):
        return str(value)
    if value == 0 or 1e-3 <= abs(value) < 1e7:
        digits = max(0, 3 - int(math.floor(math.log10(abs(value))))) if value else 0
        text = f"{value:.{digits}f}"
        if "." in text:
            text = text.rstrip("0").rstrip(".")
        return "0" if text in ("-0", "") else text
    return f"{value:.4g}"


def show(value: float, unit: Unit) -> str:
    """A value the way a reader wants it, by its parsed unit: '40 layers', '64.4 MB', '3.59×', '28.49 tok/s'."""
    unit_text = unit.text
    if not math.isfinite(value):
        return f"{value}{units.gap(unit_text)}{unit_text}".rstrip()
    if not unit.known:
        return f"{plain_number(value)}{units.gap(unit_text)}{unit_text}"
    if unit.is_count and abs(value - round(value)) < 1e-9 * max(1.0, abs(value)) and abs(value) < 1e15:
        return f"{int(round(value)):,}{units.gap(unit_text)}{unit_text.strip()}"
    if unit.is_bytes and "bit" not in unit.text:  # bits stay bits
        return readable_bytes(value * unit.scale, binary="i" in unit.text)
    return f"{plain_number(value)}{units.gap(unit_text)}{unit_text.strip()}"


def readable_bytes(count: float, binary: bool = False) -> str:
    """64389120 -> '64.4 MB'; under 10,000 bytes stays in B ('20 B', '9,999 B')."""
    name, size = _byte_prefix(count, binary)
    if size > 1:
        return f"{_three(count / size)} {name}"
    if abs(count - round(count)) < 1e-9 and abs(count) < 1e15:
        return f"{int(round(count)):,} B"
    return f"{plain_number(count)} B"


def _byte_prefix(count: float, binary: bool) -> tuple[str, float]:
    """The readable prefix for a byte count and its size: ('MB', 1e6); ('B', 1) under 10,000 bytes."""
    for name, size in _BINARY if binary else _DECIMAL:
        if abs(count) >= size * (10 if size == (1024.0 if binary else 1e3) else 1):
            return name, size
    return "B", 1.0


def _three(number: float) -> str:
    """Three significant digits, trailing zeros dropped: 64.389 -> '64.4', 20.48 -> '20.5'."""
    if number == 0:
        return "0"
    digits = max(0, 2 - int(math.floor(math.log10(abs(number)))))
    text = f"{number:.{digits}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text
