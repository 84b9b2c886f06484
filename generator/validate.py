"""Validate stage: raw claim files -> Claims + "invalid" findings.

Checks fields, types and values per claim, then what needs the whole ledger: duplicate ids,
references to other claims, formulas (syntax and names) and cycles among formula inputs.
A claim with problems is still returned when it has a usable id and kind, so its dependents can be
reported as resting on an invalid claim instead of vanishing.
"""

from __future__ import annotations

import difflib
import functools

from . import formula, units
from .grounding import MIXED
from .kinds import KIND, RETIRER_FIELDS, STATUS, STATUS_TABLE
from .load import RawFile
from .records import KINDS, STATUSES, Claim, Finding, Source
from .runs import KEBAB_CASE, TESTBED_PATTERN
from .validate_fields import _REQUIRED_FIX, _asserts, _checks, _citation, _evidence, _inputs, _kept, _Problems, _type
from .validate_ledger import ledger_problems
from .values import NUMBER_PATTERN, finite_number, parse_tolerance
from .yamlread import LocatedDict, LocatedList

ID_PATTERN = KEBAB_CASE

FIELDS = (
    "id",
    "statement",
    "value",
    "unit",
    "kind",
    "testbed",
    "status",
    "evidence",
    "formula",
    "inputs",
    "source",
    "checked_by",
    "refuted_by",
    "superseded_by",
    "tolerance",
    "note",
    "kept",
    "asserts",
)
# Fields that belong to one kind only; the others are errors on that kind.
KIND_FIELDS = {"measured": {"evidence"}, "extrapolated": {"formula", "inputs"}, "borrowed": {"source"}}
CHECKABLE = {"borrowed", "extrapolated"}
FIELDS_FIX = "use only: " + ", ".join(FIELDS)


def claims(
    raw_files: list[RawFile],
    measurements_dir: str = "measurements",
    max_tolerance: float = 0.5,
    table: units.UnitTable = units.BUILT_IN,
) -> tuple[list[Claim], list[Finding]]:
    """Claims from every file, plus every problem found, each with file and line (units read with `table`)."""
    found: list[Claim] = []
    findings: list[Finding] = []
    for raw in raw_files:
        if raw.problem:
            findings.append(Finding(Source(raw.source.path, raw.line, raw.column), "", "invalid", raw.problem, raw.fix))
            continue
        for mapping, where in _claim_mappings(raw, findings):
            claim, problems = _claim(mapping, where, measurements_dir, max_tolerance, table)
            findings += problems
            if claim:
                found.append(claim)
    findings += ledger_problems(found)
    return found, findings


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
                    f"a claim must be a mapping of fields, found {_type(item)}",
                    "write the claim as `- id: ...` with its fields below",
                )
            )


def _claim(
    mapping: LocatedDict, where: Source, measurements_dir: str, max_tolerance: float, table: units.UnitTable
) -> tuple[Claim | None, list[Finding]]:
    raw_id = mapping.get("id")
    claim_id = raw_id if isinstance(raw_id, str) and ID_PATTERN.fullmatch(raw_id) else ""
    check = _Problems(mapping, where, claim_id)
    if raw_id is None:
        check.add(None, "missing field `id`", "add `id: some-lower-kebab-id` as the claim's first line")
    elif isinstance(raw_id, str) and raw_id.strip() != raw_id:
        check.add(
            "id",
            f"id {raw_id!r} has spaces or line breaks around it",
            f"write `id: {raw_id.strip()}` (a quoted id must not carry whitespace)",
        )
    elif not isinstance(raw_id, str) or not ID_PATTERN.fullmatch(raw_id):
        check.add(
            "id",
            f"id {raw_id!r} is not lower-kebab-case",
            "use lower-case letters, digits and single hyphens, e.g. moe-speedup-b16",
        )
    for key in mapping:
        if key not in FIELDS:
            close = difflib.get_close_matches(key, FIELDS, n=1)
            hint = f"did you mean `{close[0]}`?" if close else FIELDS_FIX
            check.add(key, f"unknown field `{key}`", f"{hint}" if close else hint)

    kind = check.text("kind", required=True)
    if kind and kind not in KINDS:
        check.add("kind", f"kind {kind!r} is not one of {', '.join(KINDS)}", "set `kind:` to one of those")
        kind = ""
    status = check.text("status") or "asserted"
    if status not in STATUSES:
        check.add(
            "status",
            f"status {status!r} is not one of {', '.join(STATUSES)}",
            "set `status:` to one of those, or remove it (asserted)",
        )
    statement = check.text("statement")
    unit = check.text("unit")
    note = check.text("note")
    testbed = check.text("testbed")
    if unit:
        try:
            units.parse(unit, table)
        except units.UnitError as error:
            near = units.suggestion(unit, table)
            check.add(
                "unit",
                str(error),
                f'write `unit: "{near}"` and put any qualifier in the statement'
                + (f", or declare `{unit.strip()}` under `units:` in mkdocs.yml" if _word(unit) else "")
                if near
                else "use a unit from guide/checks.md (e.g. ×, %, tok/s, GB/s, ms, B, KiB, tokens), or declare it under `units:` in mkdocs.yml",
            )
    if testbed and testbed.strip() != testbed:
        check.add(
            "testbed", f"testbed {testbed!r} has spaces or line breaks around it", f"write `testbed: {testbed.strip()}`"
        )
    elif testbed and not TESTBED_PATTERN.fullmatch(testbed):
        check.add("testbed", f"testbed {testbed!r} is not lower-kebab-case", "e.g. linux-cpu, apple-m1-max")
    elif testbed == MIXED and kind != "extrapolated":
        check.add(
            "testbed",
            f"testbed {MIXED} is for an extrapolated claim whose inputs are on different testbeds",
            "name the machine this value belongs to, or remove `testbed:`",
        )

    value, value_text = None, ""
    if "value" in mapping:
        raw_value = mapping["value"]
        written = str(mapping.texts.get("value", raw_value))
        number = finite_number(raw_value)
        if isinstance(raw_value, bool) or not isinstance(raw_value, (int, float)):
            check.add(
                "value",
                f"value must be a number, found {_type(raw_value)} {str(raw_value)[:60]!r}",
                "write the number alone and put the unit in `unit:`",
            )
        elif number is None:
            check.add(
                "value",
                f"value {written[:40]}{'…' if len(written) > 40 else ''} is not a finite number",
                "write a finite decimal number (no .inf or .nan; at most about 1.8e308)",
            )
        elif not NUMBER_PATTERN.match(written.strip()):
            check.add(
                "value",
                f"value {written!r} is not written as a decimal number",
                f"write it in decimal: `value: {raw_value}`",
            )
        else:
            value, value_text = number, written

    tolerance = None
    if "tolerance" in mapping:
        try:
            tolerance = parse_tolerance(mapping["tolerance"])
        except ValueError as error:
            check.add(
                "tolerance",
                f"tolerance {str(mapping['tolerance'])[:40]} {error}",
                "write e.g. `tolerance: 5%` or `tolerance: 0.01`",
            )
        else:
            relative = tolerance.relative
            if tolerance.absolute and value:
                relative = tolerance.absolute / abs(value)
            if relative > max_tolerance * (1 + 1e-12):
                check.add(
                    "tolerance",
                    f"tolerance {tolerance.text} allows {relative:.0%} of the value; the policy's max_tolerance "
                    f"is {max_tolerance:.0%}",
                    "state the value more exactly, or raise max_tolerance in mkdocs.yml if this is deliberate",
                )
                tolerance = None

    for name in sorted(set().union(*KIND_FIELDS.values()) - KIND_FIELDS.get(kind, set())):
        if kind and name in mapping:
            owner = next(k for k, fields in KIND_FIELDS.items() if name in fields)
            check.add(
                name,
                f"`{name}` does not apply to a {kind} claim (only to {owner} claims)",
                f"remove `{name}`, or set `kind: {owner}`",
            )
    for name in KIND_FIELDS.get(kind, ()):
        if name not in mapping:
            check.add(None, f"a {kind} claim needs `{name}:`", _REQUIRED_FIX[name])

    evidence = _evidence(mapping.get("evidence"), check, measurements_dir) if kind == "measured" else None
    kept = _kept(mapping.get("kept"), check, measurements_dir) if kind == "measured" else ("", "")
    if kind and kind != "measured" and "kept" in mapping:
        check.add("kept", f"`kept` applies to measured claims (their series), not {kind}", "remove `kept`")
    formula_text = check.text("formula") if kind == "extrapolated" else ""
    if (
        kind == "extrapolated"
        and "formula" in mapping
        and not (isinstance(mapping["formula"], str) and formula_text.strip())
    ):
        check.add(
            "formula", "`formula` must be non-empty text", "write the arithmetic, e.g. byte_ratio * bandwidth_ratio"
        )
        formula_text = ""
    inputs = _inputs(mapping.get("inputs"), check) if kind == "extrapolated" else ()
    if formula_text:
        try:
            used = formula.names(formula_text)
        except formula.FormulaError as error:
            check.add(
                "formula",
                f"invalid formula: {error}",
                "use only + - * / ** min max, numbers and the names listed under `inputs`",
            )
        else:
            declared = {name for name, _ in inputs}
            for name in sorted(used - declared):
                check.add(
                    "formula",
                    f"formula uses {name!r}, which is not listed under `inputs`",
                    f"add `{name}: some-claim-id` under `inputs`",
                )
            for name in sorted(declared - used) if "inputs" in mapping else ():
                check.add(
                    "inputs",
                    f"input {name!r} is not used by the formula",
                    "remove it from `inputs`, or use it in `formula`",
                )
    source = _citation(mapping.get("source"), check) if kind == "borrowed" else None

    asserts = _asserts(mapping, check, kind, unit, table)
    checks = _checks(mapping.get("checked_by"), check, ID_PATTERN, table)
    checked_by = tuple(spec.claim_id for spec in checks)
    if "checked_by" in mapping and kind and kind not in CHECKABLE:
        check.add(
            "checked_by", f"`checked_by` applies to borrowed and extrapolated claims, not {kind}", "remove `checked_by`"
        )
    retired_by = _retirement(mapping, check, status)

    if not claim_id or not kind:
        return None, check.findings
    lines = _layout(tuple(sorted((key, line - where.line) for key, line in mapping.key_lines.items())))
    claim = Claim(
        claim_id,
        KIND[kind].name,
        where,
        statement=statement,
        value=value,
        value_text=value_text,
        unit=unit,
        testbed=testbed,
        status=STATUS[status].name if status in STATUS else "asserted",
        evidence=evidence,
        formula=formula_text,
        inputs=inputs,
        source=source,
        checked_by=checked_by,
        checks=checks,
        retired_by=retired_by,
        tolerance=tolerance,
        note=note,
        kept_through=kept[0],
        kept_why=kept[1],
        field_lines=lines,
        asserts=asserts,
    )
    return claim, check.findings


def _retirement(mapping: LocatedDict, check: _Problems, status: str) -> tuple[str, ...]:
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
