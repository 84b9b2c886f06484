"""The kind and status tables (generator/kinds.py) are the one list of names: the typed names in
records.py, the JSON Schema's enums and guide/claims.md's tables all follow them."""

import json
import re
from typing import get_args

from helpers import REPO

from generator.kinds import KIND_TABLE, STATUS_TABLE
from generator.records import KINDS, RETIRED, STATUSES, Kind, Status

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
