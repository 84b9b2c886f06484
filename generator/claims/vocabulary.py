"""What a ledger's unit and relation texts mean, read once at load: each text -> its parsed value.

validate.py reads every claim's `unit`, `asserts` and `checked_by: {expects}` here, with the project's
unit table (Policy.units); the stages after load (evidence, checks, asserted, grounding) look a text up
and never parse it again, and the evidence stage puts each claim's parsed unit on its ClaimVerdict,
which every display formats with. A ledger repeats a few texts thousands of times: each is parsed once.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace

from ..lang import relations, units
from ..lang.relations import Relation
from ..lang.units import Unit, UnitTable


@dataclass(frozen=True, slots=True)
class Vocabulary:
    table: UnitTable = units.BUILT_IN  # the built-in units and the project's own
    units: dict[str, Unit] = field(default_factory=dict)  # unit text -> its unit (unreadable: known False)
    relations: dict[str, Relation] = field(default_factory=dict)  # relation text -> its reading
    errors: dict[str, str] = field(default_factory=dict, repr=False)  # unreadable unit text -> why

    # -- at load (validate.py) -------------------------------------------------------------------

    def read_unit(self, text: str) -> Unit:
        """The unit a claim writes, parsed with the table; UnitError (it is kept as unreadable) when unknown."""
        found = self.units.get(text)
        if found is None:
            try:
                found = units.parse(text, self.table)
            except units.UnitError as error:
                found, self.errors[text] = units.unread(text), str(error)
            self.units[text] = found
            twin = units.prefix_swapped(text) if found.known else ""
            if twin and twin not in self.units:  # MiB/s beside MB/s: what evidence.py asks "did you mean" with
                self.units[twin] = units.read(twin, self.table)
        if not found.known:
            raise units.UnitError(self.errors[text])
        return found

    def read_relation(self, text: object, field_name: str = "expects") -> Relation:
        """A relation a claim writes (`asserts`, `expects`), kept under its stripped text as the claim keeps
        it; RelationError naming the text as written and `field_name` when unreadable."""
        if not isinstance(text, str):
            return relations.parse(text, self.table, field_name)  # raises: a relation is text
        key = text.strip()
        found = self.relations.get(key)
        if found is None:
            found = self.relations[key] = replace(relations.parse(text, self.table, field_name), text=key)
        return found

    # -- after load (every stage) ------------------------------------------------------------------

    def unit(self, text: str) -> Unit:
        """The unit read at load (no unit: NO_UNIT; a text load never saw is kept as written, not parsed)."""
        return self.units.get(text) or (units.NO_UNIT if not text else units.unread(text))

    def relation(self, text: str) -> Relation | None:
        """The relation read at load; None for one that could not be read (validate reported it)."""
        return self.relations.get(text)


def read_run_units(vocabulary: Vocabulary, declared: Iterable[str]) -> None:
    """Read the units runs declare for their columns (manifest `columns`), at load like the claims' own:
    the evidence stage holds a measured claim's unit against its column's and parses nothing itself.
    A text the table cannot read is kept as unreadable (known False) with why, as a claim's would be."""
    for text in declared:
        if text and text not in vocabulary.units:
            try:
                vocabulary.read_unit(text)
            except units.UnitError:
                pass  # kept as unreadable: the evidence stage names it
