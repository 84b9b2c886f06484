"""Validate fields: one claim's nested fields (evidence, inputs, source, checked_by) -> records + problems.

Used by validate.py, which checks a claim's top-level fields and then the whole ledger.
"""

from __future__ import annotations

import difflib
import functools
import re
from pathlib import PurePosixPath

from ..lang import relations
from ..lang.values import finite_number
from ..lang.yamlread import LocatedDict
from ..records import ALL_REPLICATES, CheckSpec, Citation, Evidence, Finding, Source
from .kinds import FIELD
from .vocabulary import Vocabulary

EVIDENCE_FIELDS, SOURCE_FIELDS = FIELD["evidence"].parts, FIELD["source"].parts
NAME_PATTERN = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


class Problems:
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
                self.add(None, f"missing field `{name}`", FIELD[name].fix)
            return ""
        if isinstance(value, (dict, list, bool)):
            self.add(name, f"`{name}` must be text, found {type_name(value)}", f"write `{name}` as plain text")
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
                f"`{name}` must be a claim id or a list of claim ids, found {type_name(value)}",
                f"write `{name}: [some-claim-id]`",
            )
            return ()
        return tuple(items)


def unknown_fields(value: dict, known: tuple[str, ...], check: Problems, field_name: str = "") -> bool:
    """Each key of a claim (or of its field `field_name`) that kinds.FIELD_TABLE does not name; True if any."""
    names = _names(known)
    unknown = [str(key) for key in value if key not in names]
    for key in unknown:
        close = difflib.get_close_matches(key, known, n=1)
        check.add(
            field_name or key,
            f"unknown field `{field_name + '.' if field_name else ''}{key}`",
            f"did you mean `{close[0]}`?" if close else "use only: " + ", ".join(known),
        )
    return bool(unknown)


def read_evidence(value: object, check: Problems, measurements_dir: str) -> Evidence | None:
    if value is None:
        return None
    if not isinstance(value, LocatedDict):
        check.add(
            "evidence",
            f"`evidence` must be a mapping, found {type_name(value)}",
            "write run, file, where and column under `evidence:`",
        )
        return None
    ok = not unknown_fields(value, EVIDENCE_FIELDS, check, "evidence")
    fields = {}
    for key in ("run", "file", "column"):
        item = value.get(key)
        if not isinstance(item, str) or not item:
            check.add("evidence", f"`evidence.{key}` is missing or not text", f"add `{key}:` under `evidence:`")
            ok = False
        fields[key] = item if isinstance(item, str) else ""
    run = fields["run"]
    if run:
        parts = _parts(run)
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
    elif not _finite_where(where, check):
        ok = False
    replicates = _replicates(value.get("replicates", 1), check)
    if not ok or replicates is None:
        return None
    return Evidence(run, fields["file"], tuple(where.items()), fields["column"], replicates)


@functools.lru_cache(maxsize=64)  # the field tables: a set each, for every claim's keys
def _names(known: tuple[str, ...]) -> frozenset[str]:
    return frozenset(known)


@functools.lru_cache(maxsize=1 << 12)  # a ledger's claims cite a few runs each
def _parts(path: str) -> tuple[str, ...]:
    return PurePosixPath(path).parts


MAX_REPLICATES = 1000


def _replicates(value: object, check: Problems) -> int | None:
    """`evidence.replicates`: a whole number of runs (1: the cited run alone) or `all` -> Evidence.replicates."""
    if value == "all":
        return ALL_REPLICATES
    if isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= MAX_REPLICATES:
        return value
    check.add(
        "evidence",
        f"evidence.replicates {str(value)[:40]!r} must be a whole number of runs from 1 to {MAX_REPLICATES}, or `all`",
        "write `replicates: 3` (the cited run and the two replicates before it) or `replicates: all` (guide/claims.md)",
    )
    return None


def read_inputs(value: object, check: Problems) -> tuple[tuple[str, str], ...]:
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
        if not NAME_PATTERN.fullmatch(name) or name in ("min", "max"):
            check.add(
                "inputs",
                f"input name {name!r} is not a valid formula name",
                "use letters, digits and '_' (not min or max), starting with a letter",
            )
    return tuple(value.items())


def read_citation(value: object, check: Problems) -> Citation | None:
    if value is None:
        return None
    if not isinstance(value, dict):
        check.add(
            "source",
            f"`source` must be a mapping, found {type_name(value)}",
            "write `source: {title: ..., quote: ...}`",
        )
        return None
    unknown_fields(value, SOURCE_FIELDS, check, "source")
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


def type_name(value: object) -> str:
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    if value is None:
        return "nothing"
    return {bool: "a boolean", int: "a number", float: "a number", str: "text"}.get(type(value), type(value).__name__)


def read_checks(value: object, check: Problems, id_pattern, vocabulary: Vocabulary) -> tuple[CheckSpec, ...]:
    """`checked_by`: ids (the plain form: the same quantity) or {claim: id, expects: "> 1"} mappings."""
    if value is None:
        return ()
    items = [value] if isinstance(value, (str, dict)) else value
    if not isinstance(items, list):
        check.add("checked_by", f"`checked_by` must be a list, found {type_name(value)}", _CHECK_FIX)
        return ()
    found = []
    for item in items:
        if isinstance(item, str):
            found.append(CheckSpec(item))
            continue
        if not isinstance(item, dict):
            check.add(
                "checked_by", f"a `checked_by` entry must be an id or a mapping, found {type_name(item)}", _CHECK_FIX
            )
            continue
        unknown_fields(item, FIELD["checked_by"].parts, check, "checked_by")
        target, expects = item.get("claim"), item.get("expects")
        if not isinstance(target, str) or not target:
            check.add("checked_by", "a `checked_by` mapping needs `claim:` naming the checking claim", _CHECK_FIX)
            continue
        if not isinstance(expects, str) or not expects.strip():
            check.add(
                "checked_by",
                f"check by {target}: `expects` must be a relation as text, found {type_name(expects)}",
                relations.HELP,
            )
            continue
        try:
            vocabulary.read_relation(expects)
        except relations.RelationError as error:
            check.add("checked_by", f"check by {target}: {error}", relations.HELP)
            continue
        found.append(CheckSpec(target, expects.strip()))
    for spec in found:
        if spec.claim_id != spec.claim_id.strip() or not id_pattern.fullmatch(spec.claim_id):
            check.add("checked_by", f"checked_by names {spec.claim_id!r}, which is not a claim id", _ID_FIX)
    return tuple(spec for spec in found if id_pattern.fullmatch(spec.claim_id))


def read_asserts(mapping: LocatedDict, check: Problems, unit: str, vocabulary: Vocabulary) -> str:
    """`asserts`: a bound on the claim's own value (> >= < <= N, between N and M), in a unit of its dimension."""
    if "asserts" not in mapping:
        return ""
    return read_bound(mapping["asserts"], "asserts", check, unit, vocabulary)


STATES_HELP = 'write the bound its source states in quotes, e.g. `states: ">= 10"`, "< 0.5" or ">= 10 GB/s"'
RANGE_HELP = "write the range its source states as two numbers in the claim's unit, e.g. `range: [5, 15]`"


def read_states(mapping: LocatedDict, check: Problems, unit: str, vocabulary: Vocabulary) -> str:
    """`states` (a bound: ">= 10") or `range` ([5, 15], read as "between 5 and 15"): what a borrowed claim's
    source states of the value, as a relation on the checker's value; "" when neither is given."""
    if "states" in mapping and "range" in mapping:
        check.add("range", "a claim states a bound (`states`) or a range (`range`), not both", "keep one of them")
        return ""
    if "states" in mapping:
        return read_bound(mapping["states"], "states", check, unit, vocabulary)
    if "range" not in mapping:
        return ""
    ends = mapping["range"]
    numbers = [finite_number(end) for end in ends] if isinstance(ends, list) and len(ends) == 2 else []
    low, high = numbers if len(numbers) == 2 else (None, None)
    if low is None or high is None:
        check.add("range", f"`range` must be two finite numbers, found {str(ends)[:60]!r}", RANGE_HELP)
        return ""
    written = f"between {ends[0]} and {ends[1]}"  # as written: 5, not 5.0
    if not low < high:
        check.add(
            "range", f"`range: [{ends[0]}, {ends[1]}]`: the first number must be smaller than the second", RANGE_HELP
        )
        return ""
    return read_bound(written, "range", check, unit, vocabulary)


def read_bound(value: object, field_name: str, check: Problems, unit: str, vocabulary: Vocabulary) -> str:
    """A bound on one value (> >= < <= N, between N and M), in a unit of the claim's dimension; "" when
    it cannot be read (reported at the field's line)."""
    help_text = relations.ASSERTS_HELP if field_name == "asserts" else STATES_HELP
    try:
        relation = vocabulary.read_relation(value, field_name)
    except relations.RelationError as error:
        check.add(field_name, str(error), help_text)
        return ""
    assert isinstance(value, str)  # a relation is read from text only
    if not relation.bounds_itself:
        compares = "`asserts` bounds the claim's own value" if field_name == "asserts" else "a source states a bound"
        check.add(
            field_name,
            f"`{field_name}: {value.strip()}` compares with another claim; {compares}",
            help_text
            + (" (to compare two claims, assert on an extrapolated ratio of them)" if field_name == "asserts" else ""),
        )
        return ""
    mine = vocabulary.unit(unit)
    bound = relation.unit or mine
    if not mine.known:
        return value.strip()  # the claim's unit is reported on its own line
    if mine.dimension != bound.dimension:
        check.add(
            field_name,
            f"`{field_name}: {value.strip()}` states {bound.described()}, the claim {mine.described()}",
            f"write the bound in {unit or 'the claim’s unit (a plain number)'}, or in a unit that converts to it",
        )
        return ""
    return value.strip()


_CHECK_FIX = 'write `checked_by: [some-id]` (the same quantity) or `checked_by: [{claim: some-id, expects: "> 1"}]`'
_ID_FIX = "ids are lower-kebab-case, without spaces or line breaks around them"


_KEPT_FIX = (
    "write `kept: {through: <the newest run you reviewed>, why: <why the page keeps the cited run>}` (guide/checks.md)"
)


def read_kept(value: object, check: Problems, measurements_dir: str) -> tuple[str, str]:
    """`kept`: (the newest run reviewed after the series moved, why the cited run stays); ("", "") when absent."""
    if value is None:
        return "", ""
    if not isinstance(value, dict):
        check.add("kept", f"`kept` must be a mapping, found {type_name(value)}", _KEPT_FIX)
        return "", ""
    unknown_fields(value, FIELD["kept"].parts, check, "kept")
    through, why = value.get("through"), value.get("why")
    parts = PurePosixPath(through).parts if isinstance(through, str) else ()
    if len(parts) != 3 or parts[0] != measurements_dir or ".." in parts:
        check.add("kept", f"`kept.through` must be a run folder {measurements_dir}/<probe>/<run>", _KEPT_FIX)
        return "", ""
    if not isinstance(why, str) or not why.strip():
        check.add("kept", "`kept.why` must say, in words, why the page keeps the cited run", _KEPT_FIX)
        return "", ""
    return str(through), why.strip()


def _finite_where(where: dict, check: Problems) -> bool:
    """`where` values must be text, booleans or finite numbers."""
    for column, value in where.items():
        if isinstance(value, (int, float)) and not isinstance(value, bool) and finite_number(value) is None:
            check.add(
                "evidence",
                f"evidence.where {column}: {str(value)[:40]} is not a finite number",
                "write the row's value as it appears in the CSV file",
            )
            return False
    return True
