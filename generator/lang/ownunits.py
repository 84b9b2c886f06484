"""A project's own units: the policy's `units:` entries in mkdocs.yml -> UnitSpecs -> a units.UnitTable. Pure.

    units:
      prompts: {dimension: prompts}          # a new counted thing: its own name as its dimension
      kWh: {dimension: J, scale: 3600000}    # a unit of a known dimension: 1 kWh is 3,600,000 J
      px: {dimension: px, prefixes: si}      # SI prefixes on it too: Mpx, Gpx

A dimension is any unit the table parses (J, bytes/s, tokens) or a counted thing declared beside it;
the scale says how many of it one new unit is. Nothing declared may respell a built-in unit or another
entry, nor redefine a prefixed form of one with another scale or dimension: `Mtok` reads as a million
tokens and `kilorows` as a thousand rows, so either may be declared only as that. The policy option
parses the entries into one UnitTable, once (`Policy.units`); every stage and display reads that table.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from .units import (
    BINARY,
    BINARY_NAMES,
    BUILT_IN,
    COUNT_PREFIXES,
    COUNTS,
    RATIOS,
    SI,
    SI_NAMES,
    TEMPERATURES,
    Declared,
    Dimension,
    Term,
    UnitError,
    UnitTable,
    example,
    parse,
)

MAX_DECLARED = 200
KEYS = ("dimension", "scale", "prefixes")
_NAME = re.compile(r"^[^\s/\d.+\-−][^\s/]{0,39}$")
FIX = "write `NAME: {dimension: NAME}` for a new counted thing, or e.g. `kWh: {dimension: J, scale: 3600000}`"


class DeclarationError(ValueError):
    """A bad `units:` entry: which one (its line is the caller's to find), what is wrong, and the fix."""

    def __init__(self, name: str, problem: str, fix: str = FIX) -> None:
        super().__init__(f"{name}: {problem}")
        self.name, self.fix = name, fix


@dataclass(frozen=True, slots=True)
class UnitSpec:
    """A project's own unit as its policy declares it (`units:` in mkdocs.yml): checked, not yet resolved."""

    name: str
    dimension: str  # a unit's text, or the name itself for a new counted thing
    scale: float = 1.0  # how many of `dimension` one of this unit is
    prefixes: str = ""  # "si": SI prefixes on the name too


def read(entries: Iterable[tuple[object, object]]) -> UnitTable:
    """`units:` (name, {dimension, scale, prefixes}) entries -> the project's UnitTable; else DeclarationError."""
    found, problems = read_each(entries)
    if problems:
        raise problems[0]
    return found


def read_each(entries: Iterable[tuple[object, object]]) -> tuple[UnitTable, list[DeclarationError]]:
    """The UnitTable of every entry that is sound, and a DeclarationError for each one that is not: a bad
    entry drops itself, never the units declared beside it."""
    entries = list(entries)
    if len(entries) > MAX_DECLARED:
        error = DeclarationError(f"{len(entries)} entries", f"at most {MAX_DECLARED} units may be declared")
        return BUILT_IN, [error]
    specs, problems = [], []
    for name, spec in entries:
        try:
            specs.append(_spec(name, spec))
        except DeclarationError as error:
            problems.append(error)
    kept: list[UnitSpec] = []
    for spec in specs:  # one at a time, so a clash or a bad dimension drops that entry alone
        try:
            table((*kept, spec))
            kept.append(spec)
        except DeclarationError as error:
            problems.append(error)
    return table(tuple(kept)), problems


def _spec(name: object, spec: object) -> UnitSpec:
    if not isinstance(name, str) or not _NAME.match(name):
        raise DeclarationError(str(name)[:40], "a unit's name is up to 40 characters, without spaces or '/'")
    if not isinstance(spec, Mapping):
        raise DeclarationError(name, "must be a mapping with `dimension` (and optionally `scale`, `prefixes`)")
    unknown = sorted(str(key) for key in spec if key not in KEYS)
    if unknown:
        raise DeclarationError(name, f"unknown key {unknown[0]!r}; keys are: {', '.join(KEYS)}")
    scale = _scale(name, spec.get("scale", 1))
    prefixes = spec.get("prefixes", "")
    if prefixes not in ("", "si"):
        raise DeclarationError(name, f"`prefixes` can only be si, got {str(prefixes)[:40]}", "write `prefixes: si`")
    dimension = spec.get("dimension")
    if not isinstance(dimension, str) or not dimension.strip():
        raise DeclarationError(name, "`dimension` must be a unit (e.g. J, bytes/s, tokens) or the entry's own name")
    return UnitSpec(name, dimension, float(scale), prefixes)


MIN_SCALE, MAX_SCALE = 1e-100, 1e100  # a unit's scale: wide enough for any physical unit, far from overflow
SCALE_FIX = "write how many of its dimension one of the unit is, e.g. `kWh: {dimension: J, scale: 3600000}`"


def _scale(name: str, scale: object) -> float:
    """A declared scale as a number in range (YAML 1.1 reads `1e300` as text: it is read as the number)."""
    if isinstance(scale, str):
        text = scale
        try:
            scale = float(text.strip())
        except ValueError:
            raise DeclarationError(name, f"`scale` must be a number, got {text[:40]!r}", SCALE_FIX) from None
    if isinstance(scale, bool) or not isinstance(scale, (int, float)) or math.isnan(scale):
        raise DeclarationError(name, f"`scale` must be a number, got {str(scale)[:40]}", SCALE_FIX)
    if scale < 0 or (scale == 0 and isinstance(scale, int)):
        raise DeclarationError(name, f"`scale` must be above 0, got {scale:g}", SCALE_FIX)
    if not MIN_SCALE <= scale <= MAX_SCALE:
        written = "too large to hold" if scale == math.inf else "too small to hold" if scale == 0 else f"{scale:g}"
        raise DeclarationError(
            name,
            f"`scale` is out of range ({written}): a unit's scale is from {MIN_SCALE:g} to {MAX_SCALE:g}",
            SCALE_FIX,
        )
    return float(scale)


def table(declared: tuple[UnitSpec, ...]) -> UnitTable:
    """The built-in units with a project's own; DeclarationError for a dimension or spelling that does not resolve."""
    return UnitTable(tuple(_resolved(declared))) if declared else BUILT_IN


def _resolved(declared: tuple[UnitSpec, ...]) -> list[Declared]:
    """Each spec's dimension read (new counted things first, so others may use them), clashes refused."""
    fresh = sorted({spec.name for spec in declared if spec.dimension == spec.name})
    bases = UnitTable(tuple(Declared(name, 1.0, Dimension.of(**{name: 1})) for name in fresh))
    found: list[Declared] = []
    for spec in declared:
        try:
            of = parse(spec.dimension, bases)
        except UnitError as error:
            raise DeclarationError(spec.name, f"dimension: {error}") from None
        if spec.scale != 1 and any(base in TEMPERATURES for base, _ in of.dimension.exponents):
            raise DeclarationError(spec.name, "temperatures never convert, so no unit is a multiple of one")
        unit = Declared(spec.name, spec.scale * of.scale, of.dimension, spec.prefixes == "si")
        if spec.name[:1] in COUNT_PREFIXES and spec.name[1:] in _COUNTED:  # Mtok: said as the prefix it reads as
            _prefixed_reading(unit, BUILT_IN.terms)
        taken = {text for other in found for text in other.spellings()}
        clash = next(
            (
                text
                for text, term in unit.spellings().items()
                if (text in BUILT_IN.terms and not _same(BUILT_IN.terms[text], term)) or text in RATIOS or text in taken
            ),
            "",
        )
        if clash:
            raise DeclarationError(spec.name, f"{clash!r} is already a unit", "choose another spelling")
        taken_terms = {text: term for other in found for text, term in other.spellings().items()}
        _prefixed_reading(unit, {**BUILT_IN.terms, **taken_terms})
        found.append(unit)
    return found


def _same(built_in: Term, declared: Term) -> bool:
    """A declaration of what the table already reads the same way (Mtok: a million tokens) is no clash: a
    project that declared it before the table had it keeps working."""
    return built_in[1] == declared[1] and math.isclose(built_in[0], declared[0], rel_tol=1e-9)


_PREFIXES = {**SI, **BINARY, **SI_NAMES, **BINARY_NAMES}  # symbols and spelled out: Mtok, kilorows, gibibits
_COUNTED = frozenset(spelling for plural, others in COUNTS.items() for spelling in (plural, *others))


def _prefixed_reading(unit: Declared, terms: Mapping[str, Term]) -> None:
    """Refuse a name that reads as a prefix on a known unit (`Mtok`: a million tokens) with another scale or
    dimension than that reading: it would respell a unit the table (or an earlier entry) already has."""
    for prefix, factor in _PREFIXES.items():
        rest = unit.name[len(prefix) :] if unit.name.startswith(prefix) else ""
        if rest not in terms:
            continue
        scale, dimension = terms[rest]
        scale *= factor
        if dimension == unit.dimension and math.isclose(scale, unit.scale, rel_tol=1e-9):
            continue
        shown = example(dimension) or str(dimension) or "a plain number"
        text = f"{scale:g} {rest}" if dimension.single else f"{scale:g} {shown}"
        raise DeclarationError(
            unit.name,
            f"{unit.name!r} reads as {prefix!r} on {rest!r} ({text}), not as declared",
            f"declare it as `{unit.name}: {{dimension: {rest}, scale: {factor:g}}}`, or choose a name that is not "
            "a prefix on a unit",
        )


def shown(units: UnitTable) -> str:
    """The declared units as a reviewer reads them: 'prompts (a count of prompts); kWh = 3.6e+06 J'."""
    return "; ".join(_text(unit) for unit in units.declared) or "none"


def _text(unit: Declared) -> str:
    prefixes = ", SI prefixes" if unit.prefixed else ""
    if unit.dimension.single == unit.name:
        return f"{unit.name} ({unit.dimension.describe()}{prefixes})"
    return f"{unit.name} = {unit.scale:g} {example(unit.dimension) or unit.dimension}{prefixes}"
