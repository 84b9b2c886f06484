"""Values: parse and format numbers, units, tolerances and precision. Pure, on the floor: it imports
nothing of the package but the languages beside it.

The gate's stages and every display (pages, `show`, `diff`) import these, so a value is parsed,
compared and written the same way everywhere, and no display imports a gate stage. A claim's verdict
in words is wording.py's; a run's table and its rows are rows.py's.
"""

from __future__ import annotations

import functools
import math
import re

import attrs

from . import units
from .units import Unit
from .yamlread import NUMBER, UNSIGNED


@attrs.frozen(weakref_slot=False)
class Tolerance:
    text: str  # as written: "5%", "0.01", "precision"
    absolute: float = 0.0
    relative: float = 0.0  # fraction of the computed value

    def allowed(self, computed: float) -> float:
        """Largest |stated - computed| this tolerance accepts."""
        return max(self.absolute, self.relative * abs(computed))


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
    if "e" in number:
        return f"{number}{units.gap(text)}{text.strip()}".strip()  # an extreme value: its digits, never hundreds
    if unit is not None and unit.known and unit.is_count:
        whole, dot, fraction = number.partition(".")
        number = f"{int(whole):,}{dot}{fraction}" if whole.lstrip("-").isdigit() else number
    return f"{number}{units.gap(text)}{text.strip()}".strip()


SHORT_FROM = 15  # digits beyond which a number is written with an exponent (1.23e+300, never 300 digits)


def _decimals(value: float, quantum: float) -> str:
    places = max(0, -math.floor(math.log10(quantum) + 1e-9))
    if (value and abs(value) >= 10.0**SHORT_FROM) or places > SHORT_FROM:
        kept = max(0, math.floor(math.log10(abs(value))) - math.floor(math.log10(quantum) + 1e-9)) if value else 0
        return f"{value:.{kept}e}"
    text = f"{value:.{places}f}"
    return text.lstrip("-") if text.lstrip("-").strip("0.") == "" else text  # never "-0.0"


def counted(count: int, noun: str) -> str:
    """'1 round', '9 rounds': a count with its noun in the number it takes."""
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


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
    if unit.is_bytes and "bit" not in unit.text and math.isfinite(value * unit.scale):  # bits stay bits
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
    if abs(number) >= 10.0**SHORT_FROM or not math.isfinite(number):
        return f"{number:.3g}"
    digits = max(0, 2 - int(math.floor(math.log10(abs(number)))))
    text = f"{number:.{digits}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text
