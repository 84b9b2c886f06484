"""Units: a claim's unit text -> dimension and scale; conversion. Pure, importing nothing of ours.

A small table of our own (not pint: importing pint costs more than the warm gate's whole budget,
see guide/checks.md). A dimension is a product of base dimensions with exponents (bytes¹·seconds⁻¹),
so a unit is a row below: a symbol, its scale and dimension, which prefixes it takes (SI on every
symbol, binary too on bytes) and its spelled-out names, which take the prefixes spelled out
(milliseconds, gigabytes, kilowatts). Bases: bytes, seconds, FLOP, joules, each counted thing (tokens,
cycles, images, ...), each currency (ISO code), each temperature scale. A project adds its own in its
policy (`units:` in mkdocs.yml), which ownunits.py reads into a UnitTable. A unit is one term, or a
rate `term/term`:

    ×, x, %, ‰, percent, "" (no dim.)  B, kB, MiB, Gbit, gigabytes   s, ms, µs, min, h, milliseconds
    FLOP, TFLOP; FLOPS, TFLOP/s        Hz, GHz (1/s)               J, mJ (joules), W, kW (J/s)
    tokens, million tokens, cycles     USD, EUR, $ (each its own)  °C, °F, K (never converted)
    tok/s, GB/s, Gbps, J/token, images/s, USD/million tokens, QPS, IOPS, TOPS ...

Counts of different things never compare, nor do currencies or temperature scales. Display by unit
is values.py's.
"""

from __future__ import annotations

import difflib
import functools
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction

# -- the table: rows; units are spelled from them below ------------------------------------------

# Prefixes: the decimal SI ones from pico to exa (k and the common K both mean 1000; µ, μ and u all
# mean micro), and binary ones for bytes. Centi, deci, hecto and deca are left out: `dB`, `cs` and
# `h` would read as something else.
SI = {"p": 1e-12, "n": 1e-9, "µ": 1e-6, "μ": 1e-6, "u": 1e-6, "m": 1e-3, "k": 1e3, "K": 1e3}
SI |= {"M": 1e6, "G": 1e9, "T": 1e12, "P": 1e15, "E": 1e18}
BINARY = {"Ki": 1024.0, "Mi": 1024.0**2, "Gi": 1024.0**3, "Ti": 1024.0**4, "Pi": 1024.0**5, "Ei": 1024.0**6}
PREFIXES = {"si": SI, "si+binary": SI | BINARY, "": {}}
# The same prefixes spelled out, on spelled-out names (milliseconds, kibibytes).
SI_NAMES = {"pico": 1e-12, "nano": 1e-9, "micro": 1e-6, "milli": 1e-3, "kilo": 1e3, "mega": 1e6, "giga": 1e9}
SI_NAMES |= {"tera": 1e12, "peta": 1e15, "exa": 1e18}
BINARY_NAMES = {"kibi": 1024.0, "mebi": 1024.0**2, "gibi": 1024.0**3, "tebi": 1024.0**4, "pebi": 1024.0**5}
BINARY_NAMES |= {"exbi": 1024.0**6}
PREFIX_NAMES = {"si": SI_NAMES, "si+binary": SI_NAMES | BINARY_NAMES, "": {}}


@dataclass(frozen=True, slots=True)
class Base:
    """One row: a unit symbol, what one of it is, which prefixes it takes and its other spellings."""

    symbol: str
    dimension: dict[str, int]
    scale: float = 1.0  # in the dimension's base units: 1 min = 60 s
    prefixes: str = "si"  # a key of PREFIXES: "si", "si+binary" (bytes) or "" (none)
    also: tuple[str, ...] = ()  # other spellings, without prefixes
    names: tuple[str, ...] = ()  # spelled out: these take the prefixes spelled out (milli + seconds)


BASES = (
    Base("B", {"bytes": 1}, prefixes="si+binary", names=("byte", "bytes")),
    Base(
        "bit", {"bytes": 1}, 1 / 8, also=("bits",), names=("bit", "bits")
    ),  # Gbit/s compares with GB/s; `b` is no unit
    Base("bps", {"bytes": 1, "seconds": -1}, 1 / 8),  # Gbps: bits per second
    Base("s", {"seconds": 1}, also=("sec", "secs"), names=("second", "seconds")),
    Base("min", {"seconds": 1}, 60.0, prefixes="", also=("mins",), names=("minute", "minutes")),
    Base("h", {"seconds": 1}, 3600.0, prefixes="", also=("hr", "hrs"), names=("hour", "hours")),
    Base("FLOP", {"FLOP": 1}),
    Base("FLOPS", {"FLOP": 1, "seconds": -1}),  # TFLOPS is TFLOP/s (a plural FLOPs is not a unit: ambiguous)
    Base("OPS", {"operations": 1, "seconds": -1}),  # TOPS: tera-operations per second
    Base("Hz", {"seconds": -1}, names=("hertz",)),
    Base("J", {"joules": 1}, names=("joule", "joules")),
    Base("W", {"joules": 1, "seconds": -1}, names=("watt", "watts")),
    Base("cycles", {"cycles": 1}, also=("cycle",)),
    Base("instructions", {"instructions": 1}, also=("instruction", "instr")),
)
# Rates written as one word: requests, queries and I/O operations per second, iterations per second.
RATE_WORDS = {
    "QPS": "queries", "qps": "queries", "RPS": "requests", "rps": "requests", "IOPS": "operations",
    "it/s": "iterations",
}  # fmt: skip

# Counted things: plural (the base's name) -> other spellings. Each is its own dimension (experts are
# not layers); a scale word is allowed before any ("million tokens"). Add a row for a new kind of thing,
# or declare it in the project's policy.
COUNTS = {
    "tokens": ("token", "tok"), "experts": ("expert",), "layers": ("layer",), "sequences": ("sequence", "seq"),
    "requests": ("request", "req", "reqs"), "rounds": ("round",), "threadgroups": ("threadgroup",),
    "configurations": ("configuration",), "steps": ("step",), "calls": ("call",), "heads": ("head",),
    "items": ("item",), "runs": ("run",), "users": ("user",), "parameters": ("parameter", "params"),
    "kernels": ("kernel",), "matrices": ("matrix",), "cores": ("core",), "threads": ("thread",), "files": ("file",),
    "hashes": ("hash",), "lines": ("line",), "words": ("word",), "elements": ("element",),
    "operations": ("operation", "ops", "op"), "claims": ("claim",), "rows": ("row",), "images": ("image",),
    "samples": ("sample",), "frames": ("frame",), "queries": ("query",), "batches": ("batch",), "pixels": ("pixel",),
    "iterations": ("iteration", "iters", "iter"),
}  # fmt: skip
COUNT_PREFIXES = {"k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}  # on counts: no fractions of a token (mtok is no unit)
SCALE_WORDS = {"thousand": 1e3, "million": 1e6, "billion": 1e9, "trillion": 1e12}

# Currencies: ISO 4217 codes in legal tender on 2026-11-30 (CLDR's territory data, read with Babel
# 2.19). Each is its own dimension: amounts in two currencies never compare (no exchange rates).
CURRENCIES = tuple(
    """AED AFN ALL AMD AOA ARS AUD AWG AZN BAM BBD BDT BHD BIF BMD BND BOB BRL BSD BTN BWP BYN BZD CAD
    CDF CHF CLP CNY COP CRC CUP CVE CZK DJF DKK DOP DZD EGP ERN ETB EUR FJD FKP GBP GEL GHS GIP GMD GNF
    GTQ GYD HKD HNL HTG HUF IDR ILS INR IQD IRR ISK JMD JOD JPY KES KGS KHR KMF KPW KRW KWD KYD KZT LAK
    LBP LKR LRD LSL LYD MAD MDL MGA MKD MMK MNT MOP MRU MUR MVR MWK MXN MYR MZN NAD NGN NIO NOK NPR NZD
    OMR PAB PEN PGK PHP PKR PLN PYG QAR RON RSD RUB RWF SAR SBD SCR SDG SEK SGD SHP SLE SOS SRD SSP STN
    SYP SZL THB TJS TMT TND TOP TRY TTD TWD TZS UAH UGX USD UYU UZS VES VND VUV WST XAF XCD XCG XOF XPF
    YER ZAR ZMW ZWG""".split()
)
CURRENCY_SIGNS = {"$": "USD", "€": "EUR", "£": "GBP"}  # ¥ is left out: it is both JPY and CNY

# Temperatures parse and show but never convert: °C, °F and K are offset scales, so 2 °C is not twice
# 1 °C and no factor turns one into another. Each is its own dimension; they take no prefix.
TEMPERATURES = {"°C": ("degC", "℃"), "°F": ("degF", "℉"), "K": ("kelvin",)}

# Spellings of a plain ratio (no dimension) and their scale.
RATIOS = {"": 1.0, "×": 1.0, "x": 1.0, "%": 0.01, "‰": 0.001, "percent": 0.01, "pct": 0.01}
# What a reader reads as a unit but a claim may not state (ambiguous, or a word): each with the unit it
# reads as. The prose scan reads them with the table; a claim's `unit:` is told the table's spelling.
PROSE_ONLY = {"X": "×", "times": "×", "fold": "×", "per cent": "%", "flop": "FLOP", "flops": "FLOP"}
PROSE_ONLY |= {prefix + "FLOPs": prefix + "FLOP" for prefix in ("", "k", "K", "M", "G", "T", "P", "E")}


@dataclass(frozen=True, slots=True)
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

    @property
    def single(self) -> str:
        """The base when this is one base to the first power ('tokens'), else ''."""
        return self.exponents[0][0] if len(self.exponents) == 1 and self.exponents[0][1] == 1 else ""

    def describe(self) -> str:
        """In words, for messages: 'a plain ratio', 'a count of tokens', 'bytes per second'."""
        if not self.exponents:
            return "a plain ratio"
        if self.single in _CURRENCY_BASES:
            return f"an amount in {self.single}"
        if self.single in TEMPERATURES:
            return f"a temperature in {self.single}"
        if self.single and self.single not in _MEASURES:
            return f"a count of {self.single}"
        up = [_power(base, p) for base, p in self.exponents if p > 0]
        down = [_power(_singular(base), -p) for base, p in self.exponents if p < 0]
        return " per ".join([" times ".join(up) or "one", *down])


def _dimension(pairs) -> Dimension:
    total: dict[str, Fraction] = {}
    for base, power in pairs:
        total[base] = total.get(base, Fraction(0)) + Fraction(power)
    return Dimension(tuple(sorted((base, power) for base, power in total.items() if power)))


def _singular(base: str) -> str:
    """'tokens' -> 'token' from the table; a project's own counted thing by English rule ('prompts' -> 'prompt')."""
    if base in _SINGULAR or base in _MEASURES:
        return _SINGULAR.get(base, base)
    for plural, one in (("ies", "y"), ("ches", "ch"), ("shes", "sh"), ("sses", "ss"), ("xes", "x")):
        if base.endswith(plural):
            return base[: -len(plural)] + one
    return base[:-1] if base.endswith("s") and not base.endswith("ss") else base


def _power(base: str, power: Fraction) -> str:
    return base if power == 1 else f"{base}^{power}"


DIMENSIONLESS = Dimension()
BYTES = Dimension.of(bytes=1)
_CURRENCY_BASES = frozenset(CURRENCIES)
# Bases that are quantities rather than counted things; any other base (a project's own too) is a count.
_MEASURES = frozenset({"bytes", "seconds", "FLOP", "joules", *CURRENCIES, *TEMPERATURES})
_SINGULAR = {"bytes": "byte", "seconds": "second", "joules": "joule"}
_SINGULAR.update({plural: others[0] for plural, others in COUNTS.items()})
_SINGULAR.update({"cycles": "cycle", "instructions": "instruction"})
# The singular of each counted thing: after a number other than one it modifies a noun ("the two call
# times", "per 256K sequence"), so the prose scan does not read it as a count.
SINGULAR_COUNTS = frozenset(one for plural, one in _SINGULAR.items() if plural not in _MEASURES)


class UnitError(ValueError):
    """A unit outside the table; the message suggests the nearest known one."""


# -- the spellings: one per (prefix, base) and per other spelling of a row -------------------------

Term = tuple[float, Dimension]  # (scale to the dimension's base unit, dimension)


def _built_in() -> dict[str, Term]:
    terms: dict[str, Term] = {}

    def add(spelling: str, scale: float, dimension: Dimension) -> None:
        if spelling in terms:  # a new row whose prefixed spelling is an old one's would be ambiguous
            raise AssertionError(f"units table: {spelling!r} is spelled twice")
        terms[spelling] = (scale, dimension)

    for base in BASES:
        dimension = Dimension.of(**base.dimension)
        for spelling in dict.fromkeys((base.symbol, *base.also, *base.names)):
            add(spelling, base.scale, dimension)
        for prefix, factor in PREFIXES[base.prefixes].items():
            add(prefix + base.symbol, factor * base.scale, dimension)
        for prefix, factor in PREFIX_NAMES[base.prefixes].items():
            for name in base.names:
                add(prefix + name, factor * base.scale, dimension)
    for word, counted in RATE_WORDS.items():
        add(word, 1.0, Dimension.of(**{counted: 1, "seconds": -1}))
    one = Fraction(1)  # one Fraction for the single-base rows below: the table loads with the core
    for plural, others in COUNTS.items():
        for spelling in (plural, *others):
            add(spelling, 1.0, Dimension(((plural, one),)))
            for prefix, factor in COUNT_PREFIXES.items():  # Mtok, krequests: thousands and millions of a thing
                add(prefix + spelling, factor, Dimension(((plural, one),)))
    for code in CURRENCIES:
        add(code, 1.0, Dimension(((code, one),)))
    for sign, code in CURRENCY_SIGNS.items():
        add(sign, 1.0, Dimension(((code, one),)))
    for symbol, others in TEMPERATURES.items():
        for spelling in (symbol, *others):
            add(spelling, 1.0, Dimension(((symbol, one),)))
    return terms


_TERMS = _built_in()


@dataclass(frozen=True, slots=True)
class Declared:
    """A project's own unit (the policy's `units:`, read by ownunits.py): a spelling, its scale and
    dimension, prefixes or not."""

    name: str
    scale: float  # in the dimension's base units
    dimension: Dimension
    prefixed: bool = False  # SI prefixes on it too (Mpx, Gpx)

    def spellings(self) -> dict[str, Term]:
        found = {self.name: (self.scale, self.dimension)}
        if self.prefixed:
            found.update({prefix + self.name: (factor * self.scale, self.dimension) for prefix, factor in SI.items()})
        return found


@dataclass(frozen=True)
class UnitTable:
    """The built-in units and a project's own (ownunits.table builds it once, from the policy's `units:`);
    parse(text, table) reads with it."""

    declared: tuple[Declared, ...] = ()  # the project's own units, in the order mkdocs.yml declares them
    memo: dict[str, Unit] = field(default_factory=dict, init=False, compare=False, repr=False)

    @functools.cached_property
    def terms(self) -> Mapping[str, Term]:
        return _TERMS | {text: term for unit in self.declared for text, term in unit.spellings().items()}

    @property
    def names(self) -> tuple[str, ...]:
        """The project's units' names, for suggestions."""
        return tuple(unit.name for unit in self.declared)


BUILT_IN = UnitTable()


@dataclass(frozen=True, slots=True)
class Unit:
    text: str  # as written
    dimension: Dimension
    scale: float  # a value in this unit times scale = the value in the dimension's base unit
    known: bool = True  # False: text the table cannot read (validate reported it; displays show it as written)

    @property
    def is_count(self) -> bool:
        return bool(self.dimension.single) and self.dimension.single not in _MEASURES

    @property
    def is_bytes(self) -> bool:
        return self.dimension == BYTES

    def describe(self) -> str:
        """The dimension in words, for messages: 'a count of tokens', 'bytes per second'."""
        return self.dimension.describe()

    def described(self) -> str:
        """The dimension in words with the unit as written, said once: 'bytes per second (GB/s)', 'an amount in
        USD', 'a count of tokens', 'a plain ratio (no unit)'."""
        words = self.describe()
        return words if self.text and self.text in words.split() else f"{words} ({self.text or 'no unit'})"


NO_UNIT = Unit("", Dimension(), 1.0)  # a plain number


def unread(text: str) -> Unit:
    """A unit the table cannot read, kept as written so a display can still show it (never compared)."""
    return Unit(text, Dimension(), 1.0, known=False)


def read(text: str, table: UnitTable = BUILT_IN) -> Unit:
    """parse(), or unread(text) for a unit outside the table: what the load stage keeps of every unit."""
    try:
        return parse(text, table)
    except UnitError:
        return unread(text)


_RATES = (
    *("tok/s", "tokens/s", "GB/s", "TB/s", "MB/s", "GiB/s", "bytes/token", "KB/token", "ms/token", "s/GiB"),
    *("TFLOP/s", "J/token", "images/s", "USD/million tokens"),
)
# Prefixed spellings worth suggesting, by prefix family (a misspelt `Gb/s` means GB/s, not mB/s).
_SUGGESTED = {
    "si+binary": ("k", "K", "M", "G", "T", "P", "Ki", "Mi", "Gi", "Ti", "Pi"),
    "si": ("k", "M", "G", "T", "m", "µ", "u", "n"),
}


def known_units(table: UnitTable = BUILT_IN) -> list[str]:
    """The unit spellings suggestions and examples are drawn from: every base, count and temperature,
    the common prefixes on each base, everyday rates and the project's own (currencies: see suggestion)."""
    simple = [text for text in RATIOS if text]
    for base in BASES:
        simple += [base.symbol, *base.also]
        simple += [prefix + base.symbol for prefix in _SUGGESTED.get(base.prefixes, ())]
    simple += [*(text for plural, others in COUNTS.items() for text in (plural, *others))]
    simple += [text for symbol, others in TEMPERATURES.items() for text in (symbol, *others)]
    simple += [*CURRENCY_SIGNS, *table.names]
    return simple + list(_RATES)


def example(dimension: Dimension, table: UnitTable = BUILT_IN) -> str:
    """A unit spelling of this dimension, for a fix ('ms/token' for seconds/tokens); '' when none is simple."""
    for text in known_units(table):
        if parse(text, table).dimension == dimension:
            return text
    if dimension.single in _CURRENCY_BASES:
        return dimension.single
    up = [base for base, power in dimension.exponents if power == 1]
    down = [base for base, power in dimension.exponents if power == -1]
    if len(up) == 1 and len(down) == 1 and len(dimension.exponents) == 2:
        return f"{_spelling(up[0], table, plural=True)}/{_spelling(down[0], table, plural=False)}"
    return ""


def _spelling(base: str, table: UnitTable, plural: bool) -> str:
    if base in COUNTS:
        return base if plural else _SINGULAR[base]
    one = Dimension.of(**{base: 1})
    return next((text for text, (scale, found) in table.terms.items() if scale == 1 and found == one), base)


def parse(text: str, table: UnitTable = BUILT_IN) -> Unit:
    """'GB/s' -> Unit(dimension=bytes/seconds, scale=1e9); raises UnitError for anything unknown."""
    if not isinstance(text, str):
        raise UnitError("a unit must be text")
    found = table.memo.get(text)
    if found is None:
        found = _parse(text, table)
        if len(table.memo) < 1 << 12:  # a ledger repeats a few units thousands of times
            table.memo[text] = found
    return found


def _parse(text: str, table: UnitTable) -> Unit:
    written = text
    text = text.strip()
    if text in RATIOS:
        return Unit(written, DIMENSIONLESS, RATIOS[text])
    if len(text) > 100:
        raise UnitError("a unit is at most 100 characters")
    terms = table.terms
    if text in terms:  # a rate written as one word (it/s) is a term of its own
        return Unit(written, terms[text][1], terms[text][0])
    if "/" in text:  # left to right, as written: tokens/s/W is tokens per second per watt
        top, *bottoms = (part.strip() for part in text.split("/"))
        found = (1.0, DIMENSIONLESS) if top == "1" else _term(top, terms)
        for bottom in bottoms:
            denominator = _term(bottom, terms)
            if found is None or denominator is None:
                raise UnitError(_unknown(text, table))
            found = (found[0] / denominator[0], found[1] / denominator[1])
        if found is None:
            raise UnitError(_unknown(text, table))
        return Unit(written, found[1], found[0])
    term = _term(text, terms)
    if term is None:
        raise UnitError(_unknown(text, table))
    return Unit(written, term[1], term[0])


def _term(text: str, terms: Mapping[str, Term]) -> Term | None:
    if text in terms:
        return terms[text]
    first, _, rest = text.partition(" ")
    found = terms.get(rest.strip()) if first in SCALE_WORDS else None
    if found is None or found[1].single in TEMPERATURES:  # "million °C" is no temperature
        return None
    return SCALE_WORDS[first] * found[0], found[1]


def _unknown(text: str, table: UnitTable) -> str:
    near = suggestion(text, table)
    hint = f"; did you mean {near!r}?" if near else ""
    return f"unknown unit {text!r}{hint}"


def suggestion(text: str, table: UnitTable = BUILT_IN) -> str:
    """The nearest known unit ('% slower' -> '%', 'Gb/s' -> 'GB/s'), or '' when none is near."""
    text = text.strip()[:100]
    first = text.split(" ")[0]
    if first != text and (first in RATIOS or _term(first, table.terms)):
        return first
    return _nearest(text, table)


@functools.lru_cache(maxsize=1 << 10)  # an unknown unit is often repeated; difflib is the slow part
def _nearest(text: str, table: UnitTable) -> str:
    candidates, folded = _vocabulary(table)
    top, slash, bottom = (part.strip().lower() for part in text.partition("/"))
    if top in folded and (not slash or bottom in folded):  # 'gflop/s' is GFLOP/s
        return folded[top] + (f"/{folded[bottom]}" if slash else "")
    if len(text) == 3 and text.isalpha():  # an ISO code, perhaps misspelt
        candidates += CURRENCIES
    close = difflib.get_close_matches(text, candidates, n=1, cutoff=0.4)
    return close[0] if close else ""


@functools.lru_cache(maxsize=8)
def _vocabulary(table: UnitTable) -> tuple[tuple[str, ...], dict[str, str]]:
    """What a suggestion is drawn from, and every spelling by its lower case (a suggested one wins)."""
    candidates = tuple(known_units(table))
    return candidates, {known.lower(): known for known in [*table.terms, *candidates]}


def convert(value: float, source: Unit, target: Unit) -> float:
    """value in source -> the same quantity in target; UnitError when the dimensions differ."""
    if source.dimension != target.dimension:
        bases = {base for unit in (source, target) for base, _ in unit.dimension.exponents}
        never = "; temperatures never convert" if bases & TEMPERATURES.keys() else ""
        raise UnitError(
            f"cannot compare {source.describe()} ({source.text!r}) with {target.describe()} ({target.text!r}){never}"
        )
    return value * source.scale / target.scale


# -- the gap between a number and its unit (display by unit is values.py's) ------------------------

_NO_GAP = ("×", "x", "%")


def gap(unit: str) -> str:
    """The space between a number and its unit: none for ×, x and %, none without a unit."""
    return "" if not unit or unit.strip() in _NO_GAP else " "


_SWAPS = {"k": "Ki", "K": "Ki", "M": "Mi", "G": "Gi", "T": "Ti", "P": "Pi", "E": "Ei"}
_SWAPS_BACK = {"Ki": "k", "Mi": "M", "Gi": "G", "Ti": "T", "Pi": "P", "Ei": "E"}
_BYTE_PREFIX = re.compile(r"(?<![A-Za-z])([kKMGTPE]i?)(?=B\b|bytes?\b)")


def prefix_swapped(text: str) -> str:
    """The unit with each byte prefix swapped between decimal and binary ('MB/s' -> 'MiB/s', 'GiB' -> 'GB';
    '' when it has none): the unit a value typed from the other kind of tool would be in."""

    def swap(match: re.Match) -> str:
        prefix = match.group(1)
        return _SWAPS_BACK[prefix] if prefix in _SWAPS_BACK else _SWAPS[prefix]

    swapped = _BYTE_PREFIX.sub(swap, text)
    return swapped if swapped != text else ""
