"""Validate stage: raw claim files -> Claims + "invalid" findings.

Checks fields, types and values per claim, then what needs the whole ledger: duplicate ids,
references to other claims, formulas (syntax and names) and cycles among formula inputs.
A claim with problems is still returned when it has a usable id and kind, so its dependents can be
reported as resting on an invalid claim instead of vanishing.
"""

from __future__ import annotations

import difflib
import re
from pathlib import PurePosixPath

from . import formula
from .records import KINDS, RETIRED, STATUSES, Citation, Claim, Evidence, Finding, RawFile, Source
from .runs import TESTBED_PATTERN
from .values import parse_tolerance
from .yamlread import LocatedDict, LocatedList

ID_PATTERN = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
NAME_PATTERN = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")

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
)
EVIDENCE_FIELDS = ("run", "file", "where", "column")
SOURCE_FIELDS = ("title", "quote", "url", "retrieved", "locator")
# Fields that belong to one kind only; the others are errors on that kind.
KIND_FIELDS = {"measured": {"evidence"}, "extrapolated": {"formula", "inputs"}, "borrowed": {"source"}}
CHECKABLE = {"borrowed", "extrapolated"}
FIELDS_FIX = "use only: " + ", ".join(FIELDS)


def claims(raw_files: list[RawFile], measurements_dir: str = "measurements") -> tuple[list[Claim], list[Finding]]:
    """Claims from every file, plus every problem found, each with file and line."""
    found: list[Claim] = []
    findings: list[Finding] = []
    for raw in raw_files:
        if raw.problem:
            findings.append(Finding(Source(raw.source.path, raw.line, raw.column), "", "invalid", raw.problem, raw.fix))
            continue
        for mapping, where in _claim_mappings(raw, findings):
            claim, problems = _claim(mapping, where, measurements_dir)
            findings += problems
            if claim:
                found.append(claim)
    findings += _ledger_problems(found)
    return found, findings


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


class _Problems:
    """Collects a claim's problems, each at the line of the field it concerns."""

    def __init__(self, mapping: LocatedDict, where: Source, claim_id: str):
        self.mapping, self.where, self.claim_id = mapping, where, claim_id
        self.findings: list[Finding] = []

    def add(self, field_name: str | None, problem: str, fix: str) -> None:
        line = self.mapping.key_lines.get(field_name) if field_name else None
        self.findings.append(
            Finding(Source(self.where.path, line or self.where.line), self.claim_id, "invalid", problem, fix)
        )

    def text(self, name: str, required: bool = False) -> str:
        value = self.mapping.get(name)
        if value is None:
            if required:
                self.add(None, f"missing field `{name}`", f"add `{name}:`")
            return ""
        if isinstance(value, (dict, list, bool)):
            self.add(name, f"`{name}` must be text, found {_type(value)}", f"write `{name}` as plain text")
            return ""
        return str(value)

    def ids(self, name: str) -> tuple[str, ...]:
        value = self.mapping.get(name)
        if value is None:
            return ()
        items = [value] if isinstance(value, str) else value
        if not isinstance(items, list) or not all(isinstance(i, str) for i in items):
            self.add(
                name,
                f"`{name}` must be a claim id or a list of claim ids, found {_type(value)}",
                f"write `{name}: [some-claim-id]`",
            )
            return ()
        return tuple(items)


def _claim(mapping: LocatedDict, where: Source, measurements_dir: str) -> tuple[Claim | None, list[Finding]]:
    raw_id = mapping.get("id")
    claim_id = raw_id if isinstance(raw_id, str) else ""
    check = _Problems(mapping, where, claim_id)
    if raw_id is None:
        check.add(None, "missing field `id`", "add `id: some-lower-kebab-id` as the claim's first line")
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
    if testbed and not TESTBED_PATTERN.fullmatch(testbed):
        check.add("testbed", f"testbed {testbed!r} is not lower-kebab-case", "e.g. linux-cpu, apple-m1-max")

    value, value_text = None, ""
    if "value" in mapping:
        raw_value = mapping["value"]
        if isinstance(raw_value, bool) or not isinstance(raw_value, (int, float)):
            check.add(
                "value",
                f"value must be a number, found {_type(raw_value)} {raw_value!r}",
                "write the number alone and put the unit in `unit:`",
            )
        else:
            value, value_text = float(raw_value), str(mapping.texts.get("value", raw_value))

    tolerance = None
    if "tolerance" in mapping:
        try:
            tolerance = parse_tolerance(mapping["tolerance"])
        except ValueError as error:
            check.add(
                "tolerance",
                f"tolerance {mapping['tolerance']!r} {error}",
                "write e.g. `tolerance: 5%` or `tolerance: 0.01`",
            )

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

    checked_by = check.ids("checked_by")
    if checked_by and kind and kind not in CHECKABLE:
        check.add(
            "checked_by", f"`checked_by` applies to borrowed and extrapolated claims, not {kind}", "remove `checked_by`"
        )
    # Only the field that matches the status names a retirer; a misplaced one is reported once, below.
    retirer_field = "superseded_by" if status == "superseded" else "refuted_by"
    retired_by = check.ids(retirer_field) if status in RETIRED else ()
    if status in RETIRED and not {"refuted_by", "superseded_by"} & mapping.keys():
        check.add(
            "status", f"a {status} claim must name the claim that retired it", f"add `{retirer_field}: some-claim-id`"
        )
    for name in ("refuted_by", "superseded_by"):
        if name in mapping and status not in RETIRED:
            check.add(
                name,
                f"`{name}` only applies to a retired claim (status is {status})",
                "set `status: refuted` (or superseded, retracted), or remove it",
            )
    if "superseded_by" in mapping and status in RETIRED and status != "superseded":
        check.add(
            "superseded_by",
            f"`superseded_by` is for status superseded, not {status}",
            "use `refuted_by`, or set `status: superseded`",
        )
    if "refuted_by" in mapping and status == "superseded":
        check.add(
            "refuted_by",
            "a superseded claim names its successor with `superseded_by`",
            "rename `refuted_by` to `superseded_by`",
        )

    if not claim_id or not kind:
        return None, check.findings
    lines = tuple(sorted(mapping.key_lines.items()))
    claim = Claim(
        claim_id,
        kind,
        where,
        statement=statement,
        value=value,
        value_text=value_text,
        unit=unit,
        testbed=testbed,
        status=status if status in STATUSES else "asserted",
        evidence=evidence,
        formula=formula_text,
        inputs=inputs,
        source=source,
        checked_by=checked_by,
        retired_by=retired_by,
        tolerance=tolerance,
        note=note,
        field_lines=lines,
    )
    return claim, check.findings


_REQUIRED_FIX = {
    "evidence": "add `evidence:` with run, file, where and column",
    "formula": "add `formula:` (e.g. byte_ratio * bandwidth_ratio)",
    "inputs": "add `inputs:` mapping each formula name to a claim id",
    "source": "add `source:` with at least `title:` (and the quoted words)",
}


def _evidence(value: object, check: _Problems, measurements_dir: str) -> Evidence | None:
    if value is None:
        return None
    if not isinstance(value, LocatedDict):
        check.add(
            "evidence",
            f"`evidence` must be a mapping, found {_type(value)}",
            "write run, file, where and column under `evidence:`",
        )
        return None
    ok = True
    for key in value:
        if key not in EVIDENCE_FIELDS:
            close = difflib.get_close_matches(key, EVIDENCE_FIELDS, n=1)
            check.add(
                "evidence",
                f"unknown field `evidence.{key}`",
                f"did you mean `{close[0]}`?" if close else "use only: " + ", ".join(EVIDENCE_FIELDS),
            )
            ok = False
    fields = {}
    for key in ("run", "file", "column"):
        item = value.get(key)
        if not isinstance(item, str) or not item:
            check.add("evidence", f"`evidence.{key}` is missing or not text", f"add `{key}:` under `evidence:`")
            ok = False
        fields[key] = item if isinstance(item, str) else ""
    run = fields["run"]
    if run:
        parts = PurePosixPath(run).parts
        if (
            run.startswith("/")
            or "\\" in run
            or len(parts) != 3
            or parts[0] != measurements_dir
            or any(part.startswith(".") for part in parts)
        ):
            check.add(
                "evidence",
                f"evidence.run {run!r} must be a run folder {measurements_dir}/<probe>/<run> inside the repository",
                f"point `run:` at a folder under {measurements_dir}/ (no '..', no absolute path)",
            )
            ok = False
    if fields["file"] and ("/" in fields["file"] or "\\" in fields["file"] or fields["file"].startswith(".")):
        check.add(
            "evidence",
            f"evidence.file {fields['file']!r} must be a file name inside the run",
            "name a CSV file of the run, e.g. results.csv",
        )
        ok = False
    where = value.get("where", {})
    if not isinstance(where, dict) or any(isinstance(v, (dict, list)) for v in where.values()):
        check.add(
            "evidence",
            "`evidence.where` must map column names to single values",
            "write e.g. `where: {batch: 16, mode: batched}`",
        )
        ok = False
        where = {}
    return Evidence(run, fields["file"], tuple(where.items()), fields["column"]) if ok else None


def _inputs(value: object, check: _Problems) -> tuple[tuple[str, str], ...]:
    if value is None:
        return ()
    if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
        check.add(
            "inputs",
            "`inputs` must map formula names to claim ids",
            "write e.g. `inputs: {byte_ratio: moe-byte-ratio-b16}`",
        )
        return ()
    for name in value:
        if not NAME_PATTERN.match(name) or name in ("min", "max"):
            check.add(
                "inputs",
                f"input name {name!r} is not a valid formula name",
                "use letters, digits and '_' (not min or max), starting with a letter",
            )
    return tuple(value.items())


def _citation(value: object, check: _Problems) -> Citation | None:
    if value is None:
        return None
    if not isinstance(value, dict):
        check.add(
            "source", f"`source` must be a mapping, found {_type(value)}", "write `source: {title: ..., quote: ...}`"
        )
        return None
    for key in value:
        if key not in SOURCE_FIELDS:
            check.add("source", f"unknown field `source.{key}`", "use only: " + ", ".join(SOURCE_FIELDS))
    fields = {}
    for key in SOURCE_FIELDS:
        item = value.get(key)
        if item is not None and isinstance(item, (dict, list, bool)):
            check.add("source", f"`source.{key}` must be text", f"write `{key}` as plain text")
            item = None
        fields[key] = "" if item is None else str(item)
    if not fields["title"]:
        check.add("source", "`source` needs a `title`", "add `title:` naming where the figure came from")
        return None
    return Citation(**fields)


def _ledger_problems(found: list[Claim]) -> list[Finding]:
    """Problems that need every claim: duplicate ids, dangling references, formula cycles."""
    findings: list[Finding] = []
    first: dict[str, Claim] = {}
    for claim in found:
        if claim.id in first:
            findings.append(
                Finding(
                    claim.where,
                    claim.id,
                    "invalid",
                    f"duplicate id {claim.id!r}, first defined at {first[claim.id].where}",
                    "rename one of the two claims",
                )
            )
        else:
            first[claim.id] = claim
    for claim in found:
        references = [("inputs", target) for _, target in claim.inputs]
        references += [("checked_by", target) for target in claim.checked_by]
        references += [
            ("refuted_by" if claim.status != "superseded" else "superseded_by", target) for target in claim.retired_by
        ]
        for field_name, target in references:
            if target not in first:
                close = difflib.get_close_matches(target, list(first), n=1)
                fix = f"did you mean {close[0]!r}?" if close else "name an existing claim id"
                findings.append(
                    Finding(
                        claim.at(field_name), claim.id, "invalid", f"{field_name} names unknown claim {target!r}", fix
                    )
                )
            elif target == claim.id:
                findings.append(
                    Finding(
                        claim.at(field_name),
                        claim.id,
                        "invalid",
                        f"{field_name} names the claim itself",
                        "name another claim",
                    )
                )
    findings += _cycles(first)
    return findings


def _cycles(by_id: dict[str, Claim]) -> list[Finding]:
    """Each cycle among formula inputs, reported once at its first claim."""
    findings = []
    state: dict[str, int] = {}  # 1 = on the current path, 2 = done

    def visit(claim_id: str, path: list[str]) -> None:
        state[claim_id] = 1
        for _, target in by_id[claim_id].inputs:
            if target not in by_id or target == claim_id:
                continue
            if state.get(target) == 1:
                cycle = path[path.index(target) :] + [target]
                head = by_id[target]
                findings.append(
                    Finding(
                        head.at("inputs"),
                        head.id,
                        "invalid",
                        "formula cycle: " + " -> ".join(cycle),
                        "break the cycle: one of these claims must not use the other",
                    )
                )
            elif target not in state:
                visit(target, path + [target])
        state[claim_id] = 2

    for claim_id in by_id:
        if claim_id not in state:
            visit(claim_id, [claim_id])
    return findings


def _type(value: object) -> str:
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    if value is None:
        return "nothing"
    return {bool: "a boolean", int: "a number", float: "a number", str: "text"}.get(type(value), type(value).__name__)
