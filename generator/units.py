"""Units: a claim's unit text -> dimension and scale; conversion; display by unit. Pure.

A small table of our own (not pint: importing pint costs more than the warm gate's whole budget,
see guide/checks.md). A unit is one term, or a rate `term/term`:

    ×, x, %, "" (dimensionless)       B, KB, MB, GB, TB, KiB, MiB, GiB, TiB (bytes)
    s, ms, µs, us, ns, min, h (time)  counts: tokens, experts, layers, sequences, ... (each its own)
    tok/s, GB/s, TB/s, MB/s, bytes/token, ms/token, requests/s ...

A count may carry a scale word ("million tokens"). Counts of different things never compare.
"""

from __future__ import annotations

import difflib
import math
from dataclasses import dataclass

DIMENSIONLESS = ""
_RATIOS = {"": 1.0, "×": 1.0, "x": 1.0, "%": 0.01}
_BYTES = {"B": 1.0, "byte": 1.0, "bytes": 1.0}
for _prefix, _power in (("K", 1), ("M", 2), ("G", 3), ("T", 4), ("P", 5)):
    _BYTES[f"{_prefix}B"] = 1000.0**_power
    _BYTES[f"{_prefix}iB"] = 1024.0**_power
_BYTES["kB"] = 1000.0
_TIMES = {"s": 1.0, "ms": 1e-3, "µs": 1e-6, "μs": 1e-6, "us": 1e-6, "ns": 1e-9, "min": 60.0, "h": 3600.0}
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


class UnitError(ValueError):
    """A unit outside the table; the message suggests the nearest known one."""


@dataclass(frozen=True)
class Unit:
    text: str  # as written
    dimension: str  # "" dimensionless, "bytes", "seconds", "count:tokens", or "a/b" for a rate
    scale: float  # a value in this unit times scale = the value in the dimension's base unit

    @property
    def is_count(self) -> bool:
        return self.dimension.startswith("count:")

    @property
    def is_bytes(self) -> bool:
        return self.dimension == "bytes"

    def describe(self) -> str:
        """The dimension in words, for messages: 'a count of tokens', 'bytes per second'."""
        if self.dimension == DIMENSIONLESS:
            return "a plain ratio"
        parts = [_words(part) for part in self.dimension.split("/")]
        return " per ".join(parts)


def _words(dimension: str) -> str:
    return f"a count of {dimension[6:]}" if dimension.startswith("count:") else dimension


def known_units() -> list[str]:
    """Every unit spelling the table knows, for suggestions and the docs."""
    simple = [*_RATIOS, *_BYTES, *_TIMES, *_COUNT_OF]
    rates = ["tok/s", "tokens/s", "GB/s", "TB/s", "MB/s", "GiB/s", "bytes/token", "KB/token", "ms/token"]
    return [u for u in simple if u] + rates


def parse(text: str) -> Unit:
    """'GB/s' -> Unit(dimension='bytes/seconds', scale=1e9); raises UnitError for anything unknown."""
    if not isinstance(text, str):
        raise UnitError("a unit must be text")
    written = text
    text = text.strip()
    if text in _RATIOS:
        return Unit(written, DIMENSIONLESS, _RATIOS[text])
    if "/" in text:
        top, _, bottom = text.partition("/")
        numerator, denominator = _term(top.strip(), text), _term(bottom.strip(), text)
        if "/" in bottom or numerator is None or denominator is None:
            raise UnitError(_unknown(text))
        return Unit(written, f"{numerator[0]}/{denominator[0]}", numerator[1] / denominator[1])
    term = _term(text, text)
    if term is None:
        raise UnitError(_unknown(text))
    return Unit(written, term[0], term[1])


def _term(text: str, whole: str) -> tuple[str, float] | None:
    if text in _BYTES:
        return "bytes", _BYTES[text]
    if text in _TIMES:
        return "seconds", _TIMES[text]
    if text in ("×", "x", "%"):
        return None
    scale = 1.0
    first, _, rest = text.partition(" ")
    if first in _SCALES and rest:
        scale, text = _SCALES[first], rest.strip()
    if text in _COUNT_OF:
        return f"count:{_COUNT_OF[text]}", scale
    return None


def _unknown(text: str) -> str:
    near = suggestion(text)
    hint = f"; did you mean {near!r}?" if near else ""
    return f"unknown unit {text!r}{hint}"


def suggestion(text: str) -> str:
    """The nearest known unit ('% slower' -> '%', 'Gb/s' -> 'GB/s'), or '' when none is near."""
    text = text.strip()
    first = text.split(" ")[0]
    if first != text and (first in _RATIOS or _term(first, first)):
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
