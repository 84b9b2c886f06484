"""Validate stage: raw claim files -> Claims + "invalid" findings.

Checks fields, types and values per claim, then what needs the whole ledger: duplicate ids,
references to other claims, formulas (syntax and names) and cycles among formula inputs.
A claim with problems is still returned when it has a usable id and kind, so its dependents can be
reported as resting on an invalid claim instead of vanishing.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..inputs.load import RawFile
from ..lang import formula, units
from ..lang.values import NUMBER_PATTERN, finite_number, parse_tolerance
from ..lang.yamlread import LocatedDict, LocatedList
from ..records import KINDS, STATUSES, Claim, Finding, Source
from ..runs import KEBAB_CASE, TESTBED_PATTERN
from . import fields
from .grounding import MIXED
from .kinds import FIELD, FIELD_NAMES, FIELD_TABLE, KIND, RETIRER_FIELDS, STATUS, STATUS_TABLE
from .ledger import ledger_problems
from .vocabulary import Vocabulary

ID_PATTERN = KEBAB_CASE


def claims(
    raw_files: list[RawFile],
    measurements_dir: str = "measurements",
    max_tolerance: float = 0.5,
    table: units.UnitTable = units.BUILT_IN,
) -> tuple[list[Claim], list[Finding], Vocabulary]:
    """Claims from every file, plus every problem found, each with file and line, and what their unit and
    relation texts mean (read with `table`, once: vocabulary.py)."""
    found: list[Claim] = []
    findings: list[Finding] = []
    vocabulary = Vocabulary(table)
    for raw in raw_files:
        if raw.problem:
            findings.append(Finding(Source(raw.source.path, raw.line, raw.column), "", "invalid", raw.problem, raw.fix))
            continue
        for mapping, where in _claim_mappings(raw, findings):
            claim, problems = _claim(mapping, where, measurements_dir, max_tolerance, vocabulary)
            findings += problems
            if claim:
                found.append(claim)
    findings += ledger_problems(found)
    return found, findings, vocabulary


def _word(text: str) -> bool:
    """One word a project might declare as its own unit ('zorps'), not a unit with a qualifier ('% slower')."""
    return bool(text.strip()) and not any(c.isspace() or c == "/" for c in text.strip())


def _claim_mappings(raw: RawFile, findings: list[Finding]):
    path = raw.source.path
    data = raw.data
    if not isinstance(data, LocatedDict) or "claims" not in data:
        findings.append(
            Finding(
                Source(path, getattr(data, "line", 1) or 1),
                "",
                "invalid",
                "a claim file needs a top-level `claims:` list",
                "start the file with `claims:` and list the claims under it",
            )
        )
        return
    for key in data:
        if key != "claims":
            findings.append(
                Finding(
                    Source(path, data.key_lines[key]),
                    "",
                    "invalid",
                    f"unknown top-level key {key!r}",
                    "keep only `claims:` at the top level",
                )
            )
    items = data["claims"]
    if not isinstance(items, LocatedList):
        findings.append(
            Finding(
                Source(path, data.key_lines["claims"]),
                "",
                "invalid",
                "`claims:` must be a list",
                "write each claim as `- id: ...`",
            )
        )
        return
    for item, line in zip(items, items.item_lines, strict=True):
        if isinstance(item, LocatedDict):
            yield item, Source(path, line)
        else:
            findings.append(
                Finding(
                    Source(path, line),
                    "",
                    "invalid",
                    f"a claim must be a mapping of fields, found {fields.type_name(item)}",
                    "write the claim as `- id: ...` with its fields below",
                )
            )


@dataclass(slots=True)
class _Read:
    """One claim being read: its fields, its problems, the policy it is read under and what was found so far."""

    mapping: LocatedDict
    check: fields.Problems
    measurements_dir: str
    max_tolerance: float
    vocabulary: Vocabulary  # the unit and relation texts read so far, with the project's units
    kind: str = ""  # a known kind, or "" until read (or when missing or unknown)
    status: str = "asserted"  # as written, known or not
    found: dict[str, Any] = field(default_factory=dict)  # Claim's keyword arguments


def _claim(
    mapping: LocatedDict, where: Source, measurements_dir: str, max_tolerance: float, vocabulary: Vocabulary
) -> tuple[Claim | None, list[Finding]]:
    """One claim: each field read by its reader (_READERS), on the kinds kinds.FIELD_TABLE says it applies to."""
    raw_id = mapping.get("id")
    claim_id = raw_id if isinstance(raw_id, str) and ID_PATTERN.fullmatch(raw_id) else ""
    read = _Read(mapping, fields.Problems(mapping, where, claim_id), measurements_dir, max_tolerance, vocabulary)
    fields.unknown_fields(mapping, FIELD_NAMES, read.check)
    written = mapping.keys()
    for kinds, reader, names in _KIND_READERS:
        # A kind's own fields wait for a known kind; a reader with nothing to read is not called (names).
        if (kinds is None or read.kind in kinds) and (names is None or not written.isdisjoint(names)):
            reader(read)
    _kind_fields(read)
    if not claim_id or not read.kind:
        return None, read.check.findings
    lines = _layout(tuple(sorted((key, line - where.line) for key, line in mapping.key_lines.items())))
    return Claim(claim_id, KIND[read.kind].name, where, field_lines=lines, **read.found), read.check.findings


def _kind_fields(read: _Read) -> None:
    """Each field on a kind it does not apply to, and each its kind needs but lacks (kinds.FIELD_TABLE)."""
    if not read.kind:
        return
    for row, misplaced in _KIND_ROWS[KIND[read.kind].name]:  # in the table's order, as findings are listed
        if misplaced and row.name in read.mapping:
            read.check.add(row.name, *row.misplaced(read.kind))
        elif not misplaced and row.name not in read.mapping:
            read.check.add(None, f"a {read.kind} claim needs `{row.name}:`", row.fix)


# Per kind, the rows it may not have (True) or needs beyond every kind's (False): found once, not per claim.
_KIND_ROWS = {
    kind: tuple(
        (row, kind not in row.kinds)
        for row in FIELD_TABLE
        if kind not in row.kinds or (row.required and row.kinds != KINDS)
    )
    for kind in KINDS
}


def _read_id(read: _Read) -> None:
    raw_id = read.mapping.get("id")
    if raw_id is None:
        read.check.add(None, "missing field `id`", FIELD["id"].fix)
    elif isinstance(raw_id, str) and raw_id.strip() != raw_id:
        read.check.add(
            "id",
            f"id {raw_id!r} has spaces or line breaks around it",
            f"write `id: {raw_id.strip()}` (a quoted id must not carry whitespace)",
        )
    elif not isinstance(raw_id, str) or not ID_PATTERN.fullmatch(raw_id):
        read.check.add(
            "id",
            f"id {raw_id!r} is not lower-kebab-case",
            "use lower-case letters, digits and single hyphens, e.g. moe-speedup-b16",
        )


def _read_kind(read: _Read) -> None:
    kind = read.check.text("kind", required=True)
    if kind and kind not in KIND:
        read.check.add("kind", f"kind {kind!r} is not one of {', '.join(KINDS)}", "set `kind:` to one of those")
    read.kind = kind if kind in KIND else ""


def _read_status(read: _Read) -> None:
    read.status = read.check.text("status") or "asserted"
    if read.status not in STATUS:
        read.check.add(
            "status",
            f"status {read.status!r} is not one of {', '.join(STATUSES)}",
            "set `status:` to one of those, or remove it (asserted)",
        )
    read.found["status"] = STATUS[read.status].name if read.status in STATUS else "asserted"


def _read_texts(read: _Read) -> None:
    read.found["statement"] = read.check.text("statement")
    read.found["note"] = read.check.text("note")


def _read_unit(read: _Read) -> None:
    unit = read.found["unit"] = read.check.text("unit")
    if not unit:
        return
    try:
        read.vocabulary.read_unit(unit)
    except units.UnitError as error:
        near = units.suggestion(unit, read.vocabulary.table)
        read.check.add(
            "unit",
            str(error),
            f'write `unit: "{near}"` and put any qualifier in the statement'
            + (f", or declare `{unit.strip()}` under `units:` in mkdocs.yml" if _word(unit) else "")
            if near
            else "use a unit from guide/checks.md (e.g. ×, %, tok/s, GB/s, ms, B, KiB, tokens), or declare it under `units:` in mkdocs.yml",
        )


def _read_testbed(read: _Read) -> None:
    testbed = read.found["testbed"] = read.check.text("testbed")
    if testbed and testbed.strip() != testbed:
        read.check.add(
            "testbed", f"testbed {testbed!r} has spaces or line breaks around it", f"write `testbed: {testbed.strip()}`"
        )
    elif testbed and not TESTBED_PATTERN.fullmatch(testbed):
        read.check.add("testbed", f"testbed {testbed!r} is not lower-kebab-case", "e.g. linux-cpu, apple-m1-max")
    elif testbed == MIXED and read.kind != "extrapolated":
        read.check.add(
            "testbed",
            f"testbed {MIXED} is for an extrapolated claim whose inputs are on different testbeds",
            "name the machine this value belongs to, or remove `testbed:`",
        )


def _read_value(read: _Read) -> None:
    if "value" not in read.mapping:
        return
    raw_value = read.mapping["value"]
    if raw_value is None:  # `value: ~`: a new claim whose value is still to fill in (`ledger accept` does)
        return
    written = str(read.mapping.texts.get("value", raw_value))
    number = finite_number(raw_value)
    if isinstance(raw_value, bool) or not isinstance(raw_value, (int, float)):
        read.check.add(
            "value",
            f"value must be a number, found {fields.type_name(raw_value)} {str(raw_value)[:60]!r}",
            "write the number alone and put the unit in `unit:`",
        )
    elif number is None:
        read.check.add(
            "value",
            f"value {written[:40]}{'…' if len(written) > 40 else ''} is not a finite number",
            "write a finite decimal number (no .inf or .nan; at most about 1.8e308)",
        )
    elif not NUMBER_PATTERN.match(written.strip()):
        read.check.add(
            "value",
            f"value {written!r} is not written as a decimal number",
            f"write it in decimal: `value: {raw_value}`",
        )
    else:
        read.found["value"], read.found["value_text"] = number, written


def _read_tolerance(read: _Read) -> None:
    if "tolerance" not in read.mapping:
        return
    try:
        tolerance = parse_tolerance(read.mapping["tolerance"])
    except ValueError as error:
        read.check.add(
            "tolerance",
            f"tolerance {str(read.mapping['tolerance'])[:40]} {error}",
            "write e.g. `tolerance: 5%` or `tolerance: 0.01`",
        )
        return
    value = read.found.get("value")
    relative = tolerance.absolute / abs(value) if tolerance.absolute and value else tolerance.relative
    if relative > read.max_tolerance * (1 + 1e-12):
        read.check.add(
            "tolerance",
            f"tolerance {tolerance.text} allows {relative:.0%} of the value; the policy's max_tolerance "
            f"is {read.max_tolerance:.0%}",
            "state the value more exactly, or raise max_tolerance in mkdocs.yml if this is deliberate",
        )
        return
    read.found["tolerance"] = tolerance


def _read_evidence(read: _Read) -> None:
    read.found["evidence"] = fields.read_evidence(read.mapping.get("evidence"), read.check, read.measurements_dir)


def _read_kept(read: _Read) -> None:
    read.found["kept_through"], read.found["kept_why"] = fields.read_kept(
        read.mapping.get("kept"), read.check, read.measurements_dir
    )


def _read_formula(read: _Read) -> None:
    mapping, check = read.mapping, read.check
    inputs = read.found["inputs"] = fields.read_inputs(mapping.get("inputs"), check)
    formula_text = check.text("formula")
    if "formula" in mapping and not (isinstance(mapping["formula"], str) and formula_text.strip()):
        check.add(
            "formula", "`formula` must be non-empty text", "write the arithmetic, e.g. byte_ratio * bandwidth_ratio"
        )
        return
    read.found["formula"] = formula_text
    if not formula_text:
        return
    try:
        used = formula.names(formula_text)
    except formula.FormulaError as error:
        check.add(
            "formula",
            f"invalid formula: {error}",
            "use only + - * / ** min max, numbers and the names listed under `inputs`",
        )
        return
    declared = {name for name, _ in inputs}
    for name in sorted(used - declared):
        check.add(
            "formula",
            f"formula uses {name!r}, which is not listed under `inputs`",
            f"add `{name}: some-claim-id` under `inputs`",
        )
    for name in sorted(declared - used) if "inputs" in mapping else ():
        check.add(
            "inputs", f"input {name!r} is not used by the formula", "remove it from `inputs`, or use it in `formula`"
        )


def _read_source(read: _Read) -> None:
    read.found["source"] = fields.read_citation(read.mapping.get("source"), read.check)


def _read_asserts(read: _Read) -> None:
    read.found["asserts"] = fields.read_asserts(read.mapping, read.check, read.found.get("unit", ""), read.vocabulary)


def _read_states(read: _Read) -> None:
    read.found["states"] = fields.read_states(read.mapping, read.check, read.found.get("unit", ""), read.vocabulary)


def _read_checks(read: _Read) -> None:
    checks = read.found["checks"] = fields.read_checks(
        read.mapping.get("checked_by"), read.check, ID_PATTERN, read.vocabulary
    )
    read.found["checked_by"] = tuple(spec.claim_id for spec in checks)


def _read_retirement(read: _Read) -> None:
    read.found["retired_by"] = _retirement(read.mapping, read.check, read.status)


# Each field's reader, in the order they depend on each other (a tolerance on the value, the formula
# on its inputs, asserts on the unit); tests/test_kinds.py checks every row of kinds.FIELD_TABLE has one.
_READERS: tuple[tuple[tuple[str, ...], Callable[[_Read], None]], ...] = (
    (("id",), _read_id),
    (("kind",), _read_kind),
    (("status",), _read_status),
    (("statement", "note"), _read_texts),
    (("unit",), _read_unit),
    (("testbed",), _read_testbed),
    (("value",), _read_value),
    (("tolerance",), _read_tolerance),
    (("evidence",), _read_evidence),
    (("kept",), _read_kept),
    (("formula", "inputs"), _read_formula),
    (("source",), _read_source),
    (("asserts",), _read_asserts),
    (("states", "range"), _read_states),
    (("checked_by",), _read_checks),
    (("refuted_by", "superseded_by"), _read_retirement),
)


# Readers that, when a claim writes none of their fields, leave each of its fields at the Claim's default and
# say nothing (a missing field is _kind_fields' to report, or _read_id's, _read_kind's, _read_retirement's):
# they are called only for a claim that writes one (tests/test_kinds.py holds each to it). Others always are.
_NOTHING_WHEN_ABSENT = {
    _read_status,
    _read_texts,
    _read_unit,
    _read_testbed,
    _read_value,
    _read_tolerance,
    _read_evidence,
    _read_kept,
    _read_formula,
    _read_source,
    _read_asserts,
    _read_states,
    _read_checks,
}

# Each reader with the kinds it waits for (None: every kind's field, read before the kind is known) and the
# fields one of which a claim must write for it to be called (None: always called).
_KIND_READERS = tuple(
    (
        None if FIELD[names[0]].kinds == KINDS else FIELD[names[0]].kinds,
        reader,
        frozenset(names) if reader in _NOTHING_WHEN_ABSENT else None,
    )
    for names, reader in _READERS
)


def _retirement(mapping: LocatedDict, check: fields.Problems, status: str) -> tuple[str, ...]:
    """The claims that retired this one, from the one field its status names (kinds.STATUS_TABLE)."""
    retirer = STATUS[status].retirer if status in STATUS else ""
    for name in RETIRER_FIELDS:
        if name in mapping and not retirer:
            retired = ", ".join(row.name for row in STATUS_TABLE if row.retirer)
            check.add(
                name,
                f"`{name}` only applies to a retired claim (status is {status})",
                f"set `status:` to one of {retired}, or remove `{name}`",
            )
        elif name in mapping and name != retirer:
            check.add(
                name,
                f"a {status} claim names {STATUS[status].retirer_is} with `{retirer}`",
                f"rename `{name}` to `{retirer}`",
            )
    if retirer and not set(RETIRER_FIELDS) & mapping.keys():
        check.add("status", f"a {status} claim must name the claim that retired it", f"add `{retirer}: some-claim-id`")
    return check.ids(retirer) if retirer else ()


@functools.lru_cache(maxsize=1024)
def _layout(lines: tuple[tuple[str, int], ...]) -> tuple[tuple[str, int], ...]:
    """One shared copy of a claim's field layout: 100,000 claims written alike hold one, not 100,000."""
    return lines
