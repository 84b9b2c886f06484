"""Claim kinds and statuses, one row each: validate, the summary, `ledger diff` and the guide read them.

The names themselves are typed in records.py (`Kind`, `Status`: a typo in a comparison fails mypy);
tests/test_schema.py holds the JSON Schema to these rows, tests/test_guide.py guide/claims.md.
"""

from __future__ import annotations

from dataclasses import dataclass

from .records import Kind, Status


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
