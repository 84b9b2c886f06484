"""Units: a claim's unit text -> dimension and scale; conversion; display by unit. Pure.

A small table of our own (not pint: importing pint costs more than the warm gate's whole budget,
see guide/checks.md). A dimension is a product of base dimensions with exponents (bytes¹·seconds⁻¹),
so a new unit is a row: a spelling, its scale and its dimension. Bases: bytes, seconds, FLOP, each
currency, and each counted thing (tokens, layers, sequences, ...). A unit is one term, or a rate
`term/term`:

    ×, x, %, "" (dimensionless)       B, KB, MB, GB, TB, KiB, MiB, GiB, TiB (bytes)
    s, ms, µs, us, ns, min, h (time)  counts: tokens, experts, layers, sequences, ... (each its own)
    FLOP, GFLOP, TFLOP (FLOP)         USD, EUR (each currency its own)
    tok/s, GB/s, TB/s, MB/s, bytes/token, ms/token, requests/s, TFLOP/s ...

A count may carry a scale word ("million tokens"). Counts of different things never compare.
"""

from __future__ import annotations

import difflib
import functools
import math
from dataclasses import dataclass
from fractions import Fraction


@dataclass(frozen=True)
class Dimension:
    """Exponents over base dimensions, e.g. ((bytes, 1), (seconds, -1)); () is dimensionless."""

    exponents: tuple[tuple[str, Fraction], ...] = ()

    @staticmethod
    def of(**powers: int | Fraction) -> Dimension:
        return _dimension(powers.items())

    def __mul__(self, other: Dimension) -> Dimension:
        return _dimension([*self.exponents, *other.exponents])

    def __truediv__(self, other: Dimension) -> Dimension:
        return _dimension([*self.exponents, *((base, -power) for base, power in other.exponents)])

    def __pow__(self, power: Fraction) -> Dimension:
        return _dimension((base, exponent * power) for base, exponent in self.exponents)

    def __str__(self) -> str:
        """'bytes/seconds', 'tokens', 'bytes^2', '' (dimensionless)."""
        up = [_power(base, p) for base, p in self.exponents if p > 0]
        down = [_power(base, -p) for base, p in self.exponents if p < 0]
        return "/".join(["·".join(up) or ("1" if down else ""), *down])

    def describe(self) -> str:
        """In words, for messages: 'a plain ratio', 'a count of tokens', 'bytes per second'."""
        if not self.exponents:
            return "a plain ratio"
        if len(self.exponents) == 1 and self.exponents[0][1] == 1 and self.exponents[0][0] in _COUNTS:
            return f"a count of {self.exponents[0][0]}"
        up = [_power(base, p) for base, p in self.exponents if p > 0]
        down = [_power(_SINGULAR.get(base, base), -p) for base, p in self.exponents if p < 0]
        return " per ".join([" times ".join(up) or "one", *down])


def _dimension(pairs) -> Dimension:
    total: dict[str, Fraction] = {}
    for base, power in pairs:
        total[base] = total.get(base, Fraction(0)) + Fraction(power)
    return Dimension(tuple(sorted((base, power) for base, power in total.items() if power)))


def _power(base: str, power: Fraction) -> str:
    return base if power == 1 else f"{base}^{power}"


DIMENSIONLESS = Dimension()
BYTES, SECONDS, FLOP = Dimension.of(bytes=1), Dimension.of(seconds=1), Dimension.of(FLOP=1)
_SINGULAR = {"bytes": "byte", "seconds": "second"}

# -- the table: spelling -> (scale to the dimension's base unit, dimension). One row per unit. -----

_RATIOS = {"": 1.0, "×": 1.0, "x": 1.0, "%": 0.01}
_DECIMAL_PREFIXES = {"K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "P": 1e15}
_BINARY_PREFIXES = {"Ki": 1024.0, "Mi": 1024.0**2, "Gi": 1024.0**3, "Ti": 1024.0**4, "Pi": 1024.0**5}
_TERMS: dict[str, tuple[float, Dimension]] = {}
for _name in ("B", "byte", "bytes"):
    _TERMS[_name] = (1.0, BYTES)
for _prefix, _scale in (*_DECIMAL_PREFIXES.items(), *_BINARY_PREFIXES.items(), ("k", 1e3)):
    _TERMS[f"{_prefix}B"] = (_scale, BYTES)
for _name, _scale in {"s": 1.0, "ms": 1e-3, "µs": 1e-6, "μs": 1e-6, "us": 1e-6, "ns": 1e-9, "min": 60.0}.items():
    _TERMS[_name] = (_scale, SECONDS)
_TERMS["h"] = (3600.0, SECONDS)
_TERMS["FLOP"] = (1.0, FLOP)
for _prefix, _scale in (*_DECIMAL_PREFIXES.items(), ("k", 1e3)):
    _TERMS[f"{_prefix}FLOP"] = (_scale, FLOP)
# Each currency is its own base: amounts in different currencies never compare (no exchange rates).
_CURRENCIES = {"USD": ("USD", "$"), "EUR": ("EUR", "€")}
for _code, _spellings in _CURRENCIES.items():
    for _name in _spellings:
        _TERMS[_name] = (1.0, Dimension.of(**{_code: 1}))
# Counted things: plural (canonical) -> accepted spellings. Add a row for a new kind of thing.
_COUNTS = {
    "tokens": ("token", "tok"),
    "experts": ("expert",),
    "layers": ("layer",),
    "sequences": ("sequence", "seq"),
    "requests": ("request",),
    "rounds": ("round",),
    "threadgroups": ("threadgroup",),
    "configurations": ("configuration",),
    "steps": ("step",),
    "calls": ("call",),
    "heads": ("head",),
    "items": ("item",),
    "runs": ("run",),
    "users": ("user",),
    "parameters": ("parameter", "params"),
    "kernels": ("kernel",),
    "matrices": ("matrix",),
    "cores": ("core",),
    "threads": ("thread",),
    "files": ("file",),
    "hashes": ("hash",),
    "lines": ("line",),
    "words": ("word",),
    "elements": ("element",),
    "operations": ("operation", "ops", "op"),
    "claims": ("claim",),
    "rows": ("row",),
}
_COUNT_OF = {spelling: plural for plural, others in _COUNTS.items() for spelling in (plural, *others)}
_SCALES = {"thousand": 1e3, "million": 1e6, "billion": 1e9, "trillion": 1e12}
_SINGULAR.update({plural: others[0] for plural, others in _COUNTS.items()})


class UnitError(ValueError):
    """A unit outside the table; the message suggests the nearest known one."""


@dataclass(frozen=True)
class Unit:
    text: str  # as written
    dimension: Dimension
    scale: float  # a value in this unit times scale = the value in the dimension's base unit

    @property
    def is_count(self) -> bool:
        exponents = self.dimension.exponents
        return len(exponents) == 1 and exponents[0][0] in _COUNTS and exponents[0][1] == 1

    @property
    def is_bytes(self) -> bool:
        return self.dimension == BYTES

    def describe(self) -> str:
        """The dimension in words, for messages: 'a count of tokens', 'bytes per second'."""
        return self.dimension.describe()


def known_units() -> list[str]:
    """Every unit spelling the table knows, for suggestions and the docs."""
    simple = [*_RATIOS, *_TERMS, *_COUNT_OF]
    rates = ["tok/s", "tokens/s", "GB/s", "TB/s", "MB/s", "GiB/s", "bytes/token", "KB/token", "ms/token", "s/GiB"]
    return [u for u in simple if u] + rates


def example(dimension: Dimension) -> str:
    """A unit spelling of this dimension, for a fix ('ms/token' for seconds/tokens); '' when none is simple."""
    for text in known_units():
        if parse(text).dimension == dimension:
            return text
    up = [base for base, power in dimension.exponents if power == 1]
    down = [base for base, power in dimension.exponents if power == -1]
    if len(up) == 1 and len(down) == 1 and len(dimension.exponents) == 2:
        return f"{_spelling(up[0], plural=True)}/{_spelling(down[0], plural=False)}"
    return ""


def _spelling(base: str, plural: bool) -> str:
    if base in _COUNTS:
        return base if plural else _SINGULAR[base]
    return next(text for text, (scale, found) in _TERMS.items() if scale == 1 and found == Dimension.of(**{base: 1}))


def parse(text: str) -> Unit:
    """'GB/s' -> Unit(dimension=bytes/seconds, scale=1e9); raises UnitError for anything unknown."""
    if not isinstance(text, str):
        raise UnitError("a unit must be text")
    return _parse(text)


@functools.lru_cache(maxsize=1 << 12)  # a ledger repeats a few units thousands of times
def _parse(text: str) -> Unit:
    written = text
    text = text.strip()
    if text in _RATIOS:
        return Unit(written, DIMENSIONLESS, _RATIOS[text])
    if len(text) > 100:
        raise UnitError("a unit is at most 100 characters")
    if "/" in text:
        top, _, bottom = text.partition("/")
        numerator, denominator = _term(top.strip()), _term(bottom.strip())
        if "/" in bottom or numerator is None or denominator is None:
            raise UnitError(_unknown(text))
        return Unit(written, numerator[1] / denominator[1], numerator[0] / denominator[0])
    term = _term(text)
    if term is None:
        raise UnitError(_unknown(text))
    return Unit(written, term[1], term[0])


def _term(text: str) -> tuple[float, Dimension] | None:
    if text in _TERMS:
        return _TERMS[text]
    scale = 1.0
    first, _, rest = text.partition(" ")
    if first in _SCALES and rest:
        scale, text = _SCALES[first], rest.strip()
    if text in _COUNT_OF:
        return scale, Dimension.of(**{_COUNT_OF[text]: 1})
    return None


def _unknown(text: str) -> str:
    near = suggestion(text)
    hint = f"; did you mean {near!r}?" if near else ""
    return f"unknown unit {text!r}{hint}"


def suggestion(text: str) -> str:
    """The nearest known unit ('% slower' -> '%', 'Gb/s' -> 'GB/s'), or '' when none is near."""
    text = text.strip()[:100]
    first = text.split(" ")[0]
    if first != text and (first in _RATIOS or _term(first)):
        return first
    close = difflib.get_close_matches(text, known_units(), n=1, cutoff=0.4)
    return close[0] if close else ""


def convert(value: float, source: Unit, target: Unit) -> float:
    """value in source -> the same quantity in target; UnitError when the dimensions differ."""
    if source.dimension != target.dimension:
        raise UnitError(
            f"cannot compare {source.describe()} ({source.text!r}) with {target.describe()} ({target.text!r})"
        )
    return value * source.scale / target.scale


# -- display by unit -------------------------------------------------------------------------------

_NO_GAP = ("×", "x", "%")
_DECIMAL = (("PB", 1e15), ("TB", 1e12), ("GB", 1e9), ("MB", 1e6), ("KB", 1e3))
_BINARY = (("PiB", 1024.0**5), ("TiB", 1024.0**4), ("GiB", 1024.0**3), ("MiB", 1024.0**2), ("KiB", 1024.0))


def gap(unit: str) -> str:
    """The space between a number and its unit: none for ×, x and %, none without a unit."""
    return "" if not unit or unit.strip() in _NO_GAP else " "


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


def show(value: float, unit_text: str) -> str:
    """A value the way a reader wants it, by unit: '40 layers', '64.4 MB', '3.59×', '28.49 tok/s'."""
    if not math.isfinite(value):
        return f"{value}{gap(unit_text)}{unit_text}".rstrip()
    try:
        unit = parse(unit_text)
    except UnitError:
        return f"{plain_number(value)}{gap(unit_text)}{unit_text}"
    if unit.is_count and abs(value - round(value)) < 1e-9 * max(1.0, abs(value)) and abs(value) < 1e15:
        return f"{int(round(value)):,}{gap(unit_text)}{unit_text.strip()}"
    if unit.is_bytes:
        return readable_bytes(value * unit.scale, binary="i" in unit.text)
    return f"{plain_number(value)}{gap(unit_text)}{unit_text.strip()}"


def readable_bytes(count: float, binary: bool = False) -> str:
    """64389120 -> '64.4 MB'; under 10,000 bytes stays in B ('20 B', '9,999 B')."""
    for name, size in _BINARY if binary else _DECIMAL:
        if abs(count) >= size * (10 if size == (1024.0 if binary else 1e3) else 1):
            return f"{_three(count / size)} {name}"
    if abs(count - round(count)) < 1e-9 and abs(count) < 1e15:
        return f"{int(round(count)):,} B"
    return f"{plain_number(count)} B"


def _three(number: float) -> str:
    """Three significant digits, trailing zeros dropped: 64.389 -> '64.4', 20.48 -> '20.5'."""
    if number == 0:
        return "0"
    digits = max(0, 2 - int(math.floor(math.log10(abs(number)))))
    text = f"{number:.{digits}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text
