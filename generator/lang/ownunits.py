"""A project's own units: the policy's `units:` entries in mkdocs.yml -> UnitSpecs -> a units.UnitTable. Pure.

    units:
      prompts: {dimension: prompts}          # a new counted thing: its own name as its dimension
      kWh: {dimension: J, scale: 3600000}    # a unit of a known dimension: 1 kWh is 3,600,000 J
      px: {dimension: px, prefixes: si}      # SI prefixes on it too: Mpx, Gpx

A dimension is any unit the table parses (J, bytes/s, tokens) or a counted thing declared beside it;
the scale says how many of it one new unit is. Nothing declared may respell a built-in unit or another
entry. The policy option parses the entries into one UnitTable, once (`Policy.units`); every stage and
display reads that table.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from .units import BUILT_IN, RATIOS, TEMPERATURES, Declared, Dimension, UnitError, UnitTable, example, parse

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
    entries = list(entries)
    if len(entries) > MAX_DECLARED:
        raise DeclarationError(f"{len(entries)} entries", f"at most {MAX_DECLARED} units may be declared")
    return table(tuple(_spec(name, spec) for name, spec in entries))


def _spec(name: object, spec: object) -> UnitSpec:
    if not isinstance(name, str) or not _NAME.match(name):
        raise DeclarationError(str(name)[:40], "a unit's name is up to 40 characters, without spaces or '/'")
    if not isinstance(spec, Mapping):
        raise DeclarationError(name, "must be a mapping with `dimension` (and optionally `scale`, `prefixes`)")
    unknown = sorted(str(key) for key in spec if key not in KEYS)
    if unknown:
        raise DeclarationError(name, f"unknown key {unknown[0]!r}; keys are: {', '.join(KEYS)}")
    scale = spec.get("scale", 1)
    if isinstance(scale, bool) or not isinstance(scale, (int, float)) or not 0 < scale < math.inf:
        raise DeclarationError(name, f"`scale` must be a positive number, got {str(scale)[:40]}")
    prefixes = spec.get("prefixes", "")
    if prefixes not in ("", "si"):
        raise DeclarationError(name, f"`prefixes` can only be si, got {str(prefixes)[:40]}", "write `prefixes: si`")
    dimension = spec.get("dimension")
    if not isinstance(dimension, str) or not dimension.strip():
        raise DeclarationError(name, "`dimension` must be a unit (e.g. J, bytes/s, tokens) or the entry's own name")
    return UnitSpec(name, dimension, float(scale), prefixes)


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
        taken = {text for other in found for text in other.spellings()}
        clash = next(
            (text for text in unit.spellings() if text in BUILT_IN.terms or text in RATIOS or text in taken), ""
        )
        if clash:
            raise DeclarationError(spec.name, f"{clash!r} is already a unit", "choose another spelling")
        found.append(unit)
    return found


def shown(units: UnitTable) -> str:
    """The declared units as a reviewer reads them: 'prompts (a count of prompts); kWh = 3.6e+06 J'."""
    return "; ".join(_text(unit) for unit in units.declared) or "none"


def _text(unit: Declared) -> str:
    prefixes = ", SI prefixes" if unit.prefixed else ""
    if unit.dimension.single == unit.name:
        return f"{unit.name} ({unit.dimension.describe()}{prefixes})"
    return f"{unit.name} = {unit.scale:g} {example(unit.dimension) or unit.dimension}{prefixes}"
