"""Claim kinds, statuses and fields, one row each: validate, `ledger diff` and the guide read them.

The names themselves are typed in records.py (`Kind`, `Status`: a typo in a comparison fails mypy);
tests/test_kinds.py holds the JSON Schema and guide/claims.md to these rows.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..records import KINDS, Kind, Status


@dataclass(frozen=True, slots=True)
class KindRow:
    name: Kind
    rank: int  # how far its value is from a run here: a claim moving to a higher rank got weaker (ledger diff)


@dataclass(frozen=True, slots=True)
class StatusRow:
    name: Status
    retirer: str = ""  # the field naming the claim that retired it; "" for a live claim
    retirer_is: str = ""  # what that claim is to it, in words


KIND_TABLE = (
    KindRow("measured", rank=0),  # one cell of a run a probe wrote
    KindRow("extrapolated", rank=1),  # a formula over other claims
    KindRow("borrowed", rank=2),  # somewhere else, cited
)
STATUS_TABLE = (
    StatusRow("asserted"),
    StatusRow("lead"),
    StatusRow("refuted", "refuted_by", "the claim that refuted it"),
    StatusRow("superseded", "superseded_by", "its successor"),
    StatusRow("retracted", "refuted_by", "the claim that showed it wrong"),
)
KIND: dict[str, KindRow] = {row.name: row for row in KIND_TABLE}  # by name as written: KIND[text].name is a Kind
STATUS: dict[str, StatusRow] = {row.name: row for row in STATUS_TABLE}
RETIRER_FIELDS = tuple(dict.fromkeys(row.retirer for row in STATUS_TABLE if row.retirer))


@dataclass(frozen=True, slots=True)
class FieldRow:
    """One field of a claim: the kinds it applies to, whether they need it, and the fields of its mapping."""

    name: str
    kinds: tuple[Kind, ...] = KINDS  # the kinds it applies to; on another kind it is an error
    required: bool = False  # every claim of those kinds needs it
    fix: str = ""  # how to add it, when it is required and missing
    parts: tuple[str, ...] = ()  # the fields of its mapping (evidence: run, file, where, column)
    elsewhere: str = ""  # why it is wrong on another kind, when "applies to X claims" does not say it
    elsewhere_fix: str = ""  # the fix there, when it is not "remove it (or set the kind)"

    def misplaced(self, kind: str) -> tuple[str, str]:
        """(problem, fix) for this field on a claim of another kind."""
        owners = " and ".join(self.kinds)
        problem = f"`{self.name}` applies to {owners} claims" + (self.elsewhere or f", not {kind}")
        remedy = f", or set `kind: {self.kinds[0]}`" if len(self.kinds) == 1 else ""
        return problem, self.elsewhere_fix or f"remove `{self.name}`{remedy}"


# In the order "use only: ..." names them; guide/claims.md's table of fields has a row for each.
FIELD_TABLE = (
    FieldRow("id", required=True, fix="add `id: some-lower-kebab-id` as the claim's first line"),
    FieldRow("statement"),
    FieldRow("value"),
    FieldRow("unit"),
    FieldRow("kind", required=True, fix=f"add `kind:` ({', '.join(KINDS)})"),
    FieldRow("testbed"),
    FieldRow("status"),
    FieldRow(
        "evidence",
        ("measured",),
        required=True,
        fix="add `evidence:` with run, file, where and column",
        parts=("run", "file", "where", "column", "replicates"),
    ),
    FieldRow("formula", ("extrapolated",), required=True, fix="add `formula:` (e.g. byte_ratio * bandwidth_ratio)"),
    FieldRow("inputs", ("extrapolated",), required=True, fix="add `inputs:` mapping each formula name to a claim id"),
    FieldRow(
        "source",
        ("borrowed",),
        required=True,
        fix="add `source:` with at least `title:` (and the quoted words)",
        parts=("title", "quote", "url", "retrieved", "locator"),
    ),
    FieldRow("checked_by", ("extrapolated", "borrowed"), parts=("claim", "expects")),
    FieldRow("states", ("borrowed",)),  # a bound its source states (">= 10"): a plain check holds inside it
    FieldRow("range", ("borrowed",)),  # a range its source states ([5, 15]), read as "between 5 and 15"
    FieldRow("refuted_by"),
    FieldRow("superseded_by"),
    FieldRow("tolerance"),
    FieldRow("note"),
    FieldRow("kept", ("measured",), parts=("through", "why")),
    FieldRow(
        "asserts",
        ("measured", "extrapolated"),
        elsewhere=": a borrowed value has no interval here",
        elsewhere_fix="state the relation on the check instead (`checked_by: [{claim: some-id, expects: ...}]`), "
        "or remove `asserts`",
    ),
)
FIELD: dict[str, FieldRow] = {row.name: row for row in FIELD_TABLE}
FIELD_NAMES = tuple(FIELD)
