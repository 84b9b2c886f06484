"""The kind, status and field tables (generator/claims/kinds.py) are the one list of names: the typed names in
records.py, the JSON Schema, validate's readers and guide/claims.md's tables all follow them. Adding a
field is a row, its reader, its schema property and its guide row, or a test here fails."""

import json
import re
from typing import get_args

import pytest
from helpers import REPO

from generator.claims import validate
from generator.claims.kinds import FIELD_NAMES, FIELD_TABLE, KIND_TABLE, STATUS_TABLE
from generator.inputs.load import RawFile
from generator.lang import yamlread
from generator.records import KINDS, RETIRED, STATUSES, Kind, Source, Status

SCHEMA = json.loads((REPO / "schema/claims.schema.json").read_text())
CLAIMS_GUIDE = (REPO / "guide/claims.md").read_text()


def guide_table(heading: str) -> list[str]:
    """The first cells of the table under `## heading` in guide/claims.md."""
    section = CLAIMS_GUIDE.split(f"## {heading}\n", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"^\| ([^|]+) \|", section, re.M)[2:]  # past the header and its rule


def test_the_rows_are_the_typed_names_in_order():
    assert tuple(row.name for row in KIND_TABLE) == get_args(Kind) == KINDS
    assert tuple(row.name for row in STATUS_TABLE) == get_args(Status) == STATUSES
    assert {row.name for row in STATUS_TABLE if row.retirer} == RETIRED


def test_the_schema_enumerates_the_rows():
    properties = SCHEMA["$defs"]["claim"]["properties"]
    assert tuple(properties["kind"]["enum"]) == KINDS
    assert tuple(properties["status"]["enum"]) == STATUSES


def test_the_claims_guide_has_a_row_for_each_kind_and_status():
    assert [cell.strip() for cell in guide_table("Kinds")] == [f"`{kind}`" for kind in KINDS]
    statuses = re.findall(r"`([a-z]+)`", " ".join(guide_table("Statuses")))
    assert statuses == list(STATUSES)


def test_the_ranks_order_the_kinds_from_a_run_here_to_a_citation():
    assert [row.rank for row in KIND_TABLE] == sorted({row.rank for row in KIND_TABLE})


# --- the claim-field table: the schema, the readers and the guide follow its rows

CLAIM = SCHEMA["$defs"]["claim"]


def kind_rule(kind: str) -> dict:
    """The schema's `then` for claims of one kind."""
    return next(rule["then"] for rule in CLAIM["allOf"] if rule["if"]["properties"].get("kind") == {"const": kind})


def test_the_schema_has_a_property_for_each_field_and_no_other():
    assert tuple(CLAIM["properties"]) == FIELD_NAMES
    assert CLAIM["required"] == [row.name for row in FIELD_TABLE if row.required and row.kinds == KINDS]


@pytest.mark.parametrize("kind", KINDS)
def test_the_schema_requires_and_refuses_each_kinds_fields_as_the_table_does(kind):
    rule = kind_rule(kind)
    assert rule["required"] == [row.name for row in FIELD_TABLE if row.required and row.kinds == (kind,)]
    refused = [alternative["required"][0] for alternative in rule["not"]["anyOf"]]
    assert sorted(refused) == sorted(row.name for row in FIELD_TABLE if kind not in row.kinds)


@pytest.mark.parametrize("row", [row for row in FIELD_TABLE if row.parts], ids=lambda row: row.name)
def test_the_schema_names_the_parts_of_each_mapping_field(row):
    found = CLAIM["properties"][row.name]
    if "$ref" in found:  # checked_by: an id or {claim, expects}, or a list of them
        found = next(choice for choice in SCHEMA["$defs"]["check"]["oneOf"] if choice.get("type") == "object")
    assert tuple(found["properties"]) == row.parts
    assert found["additionalProperties"] is False


def test_every_field_has_one_reader():
    read = [name for names, _ in validate._READERS for name in names]
    assert sorted(read) == sorted(FIELD_NAMES)


# Claims that write some fields and not others: statuses that need a retirer, values, units, nothing.
OTHERS = ("", "status: refuted\n", "status: superseded\nsuperseded_by: b\n", "status: lead\nvalue: 1.5\nunit: x\n")


@pytest.mark.parametrize("others", OTHERS)
@pytest.mark.parametrize("kind", [*KINDS, "unknown"])
def test_skipping_the_readers_of_absent_fields_reads_every_claim_as_calling_them_all(kind, others, monkeypatch):
    """validate calls a reader of _NOTHING_WHEN_ABSENT only for a claim that writes one of its fields: each
    claim reads the same, with the same findings, as when every reader is called."""
    data = yamlread.parse(f"claims:\n  - id: some-claim\n    kind: {kind}\n{_indented(others)}".encode())
    raw = [RawFile(Source("claims/c.yaml", 0), data)]

    def read() -> tuple:
        claims, findings, _ = validate.claims(raw)
        return claims, findings

    skipping = read()
    assert skipping[0] or skipping[1]  # a claim read, or why not
    monkeypatch.setattr(validate, "_KIND_READERS", tuple((k, r, None) for k, r, _ in validate._KIND_READERS))
    assert read() == skipping


def _indented(fields: str) -> str:
    return "".join(f"    {line}\n" for line in fields.splitlines())


def test_the_claims_guide_has_a_row_for_each_field_and_names_each_kinds_own_fields():
    documented = re.findall(r"`(\w+)`", " ".join(guide_table("Fields")))
    assert documented == list(FIELD_NAMES)
    section = CLAIMS_GUIDE.split("## Kinds\n", 1)[1].split("\n## ", 1)[0]
    for kind in KINDS:
        own = re.search(rf"^\| `{kind}` \|.*\| (.*) \|$", section, re.M)
        assert own, kind
        required = [row.name for row in FIELD_TABLE if row.required and row.kinds == (kind,)]
        assert re.findall(r"`(\w+)`", own.group(1)) == required
