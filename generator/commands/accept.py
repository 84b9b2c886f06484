"""`ledger accept`: write a drifted claim's computed value into its YAML file, changing nothing else.

Only the bytes of the value itself are replaced (or one `value:` line is added), so comments,
order, quoting and layout stay exactly as they were; the result is re-read before it is saved.
"""

from __future__ import annotations

import argparse
import graphlib
import os
import re
import sys
import tempfile
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from ..claims import lineage
from ..gate import check
from ..lang import yamlread
from ..records import Claim, ClaimVerdict, Finding, LedgerError, Report, Source, refusal
from ..rules import STALE_RULES
from ..wording import rounded

_VALUE_LINE = re.compile(r"^(?P<head>\s*(?:-\s+)?value\s*:[ \t]*)(?P<value>[^#\s][^#\n]*?)(?P<tail>[ \t]*(?:#.*)?)$")
_KEY_LINE = re.compile(r"^(?P<indent>\s*(?:-\s+)?)(?P<key>[A-Za-z_]+)\s*:")
DRIFT_RULES = ("drifted", "formula-drifted")  # the rules a comparison of stated and computed values reports


def setup_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("ids", nargs="+", metavar="ID")
    parser.add_argument("--dry-run", action="store_true", help="print the changes, write nothing")


def run_from_args(args: argparse.Namespace) -> int:
    """Accept each claim named, inputs first; say per claim what could not be accepted.

    A claim that rests on another one named (an input, a check, a retirer) is judged again once that
    one is written, so `ledger accept a b` takes b's value from a's accepted one. Exit 0 when every
    claim was accepted, 1 when some were and others not, 2 when none was (nothing written)."""
    root = args.root.resolve()
    accepted: list[Change] = []
    refused: dict[str, str] = {}
    pending = list(dict.fromkeys(args.ids))
    while pending:
        report = check(args.project.root, args.project.policy, datetime.now(timezone.utc))
        changes, waiting = _round(report, ordered(report, pending), refused)
        if not args.dry_run:
            apply(root, changes, report.by_id)
        accepted += changes
        for change in changes:
            print(("would change " if args.dry_run else "") + str(change))
        if not changes or args.dry_run:
            for claim_id in waiting:
                refused[claim_id] = _waits(report, claim_id, [c.claim_id for c in changes], args.dry_run)
            break
        pending = waiting
    for claim_id in dict.fromkeys(args.ids):
        if claim_id in refused:
            print(f"ledger: {refused[claim_id]}", file=sys.stderr)
    return 0 if not refused else 1 if accepted else 2


def _round(report: Report, pending: list[str], refused: dict[str, str]) -> tuple[list[Change], list[str]]:
    """The claims accepted on this report, and those that wait for one of them (judged again after)."""
    changes: list[Change] = []
    waiting: list[str] = []
    for claim_id in pending:
        try:
            changes.append(plan_one(report, claim_id))
        except LedgerError as error:
            if _rests_on(report, claim_id, {change.claim_id for change in changes}):
                waiting.append(claim_id)
            else:
                refused[claim_id] = str(error)
    return changes, waiting


def ordered(report: Report, claim_ids: list[str]) -> list[str]:
    """The claims named, each after the named claims it rests on (a cycle keeps the order given)."""
    named = set(claim_ids)
    graph = {claim_id: {t for t in _upstream(report, claim_id) if t in named} for claim_id in claim_ids}
    try:
        found = list(graphlib.TopologicalSorter(graph).static_order())
    except graphlib.CycleError:
        return claim_ids
    return [claim_id for claim_id in found if claim_id in named]


def _upstream(report: Report, claim_id: str) -> set[str]:
    return lineage.upstream_closure(claim_id, report.by_id)


def _rests_on(report: Report, claim_id: str, claim_ids: set[str]) -> bool:
    return bool(_upstream(report, claim_id) & claim_ids)


def _waits(report: Report, claim_id: str, before: list[str], dry_run: bool) -> str:
    """Why a claim resting on another one accepted in this run was not judged again."""
    claim = report.claim(claim_id)
    first = ", ".join(c for c in before if c in _upstream(report, claim_id))
    where = claim.where if claim else Source("", 0)
    if dry_run:
        problem = f"rests on {first}, which this accept would change first: judged once that is written"
        return str(Finding(where, claim_id, "accept", problem, "run it without --dry-run, or accept " + first))
    problem = f"rests on {first}, and could not be accepted after it"
    return str(Finding(where, claim_id, "accept", problem, "`ledger check` lists why"))


@dataclass(frozen=True, slots=True)
class Change:
    claim_id: str
    path: str
    line: int
    old: str  # "" when the claim had no value
    new: str
    computed: float

    def __str__(self) -> str:
        was = self.old or "(none)"
        return f"{self.path}:{self.line}: {self.claim_id}: value {was} -> {self.new} (computed {self.computed!r})"


def plan(report: Report, claim_ids: list[str]) -> list[Change]:
    """What accepting each claim would change; raises LedgerError naming the first that cannot be accepted."""
    return [plan_one(report, claim_id) for claim_id in claim_ids]


def plan_one(report: Report, claim_id: str) -> Change:
    """What accepting one claim would change; raises LedgerError saying why it cannot be accepted."""
    claim = report.claim(claim_id)
    if claim is None:
        raise LedgerError(f"no claim {claim_id!r}")
    verdict: ClaimVerdict | None = report.verdict(claim_id)
    drifted = verdict is not None and verdict.drifted  # compared on trusted evidence, and it differs
    # The comparison's own finding is what accept mends; any other finding of a stale rule blocks it.
    mended = DRIFT_RULES if drifted else ()
    blocking = [f for f in report.findings_for(claim_id) if f.rule in STALE_RULES and f.rule not in mended]
    if blocking:
        reasons = "; ".join(f"{f.rule}: {f.problem}" for f in blocking)
        fix = "mend what makes the evidence stale first (`ledger check` names each), then accept"
        raise refusal(claim.where, claim_id, "accept", f"cannot accept a value from stale evidence ({reasons})", fix)
    if verdict is None or verdict.value is None or not drifted:
        fix = "nothing to do; accept is for a stated value its evidence no longer computes"
        raise refusal(claim.where, claim_id, "accept", "nothing to accept (its value agrees with its evidence)", fix)
    computed = verdict.value
    new = rounded(claim, computed, report.policy)
    return Change(claim_id, claim.where.path, claim.at("value").line, claim.value_text, new, computed)


def apply(root: Path, changes: list[Change], claims: dict[str, Claim]) -> None:
    """Rewrite each touched file once, verifying the edit before replacing the file."""
    by_path: dict[str, list[Change]] = {}
    for change in changes:
        by_path.setdefault(change.path, []).append(change)
    for path, file_changes in by_path.items():
        file = root / path
        write(file, path, file.read_bytes().decode("utf-8").splitlines(keepends=True), file_changes, claims)


def write(file: Path, path: str, lines: list[str], changes: list[Change], claims: dict[str, Claim]) -> None:
    """Edit the values in one claim file's lines, check they read back, then replace the file at once
    (`ledger refresh` moves the evidence in the same lines first)."""
    # Bottom-up, so inserted lines do not shift the ones still to edit.
    for change in sorted(changes, key=lambda c: c.line, reverse=True):
        _edit(lines, claims[change.claim_id], change)
    text = "".join(lines)
    _verify(text, path, changes)
    replace_file(file, text.encode("utf-8"))


def _edit(lines: list[str], claim: Claim, change: Change) -> None:
    if "value" in dict(claim.field_lines):  # a value, or `value: ~` (a new claim: fill me), on its own line
        index = change.line - 1
        match = _VALUE_LINE.match(lines[index].rstrip("\r\n"))
        if not match:
            where = Source(change.path, change.line)
            problem = "the value is not on a plain `value: N` line"
            raise refusal(where, claim.id, "accept", problem, f"set it to {change.new} by hand")
        ending = lines[index][len(lines[index].rstrip("\r\n")) :]
        lines[index] = match.group("head") + change.new + match.group("tail") + ending
        return
    anchor = claim.at("kind").line
    key = _KEY_LINE.match(lines[claim.where.line - 1])
    if not key:
        where = Source(change.path, claim.where.line)
        problem = "its claim has no `value:` line and no plain `- id:` line to add one under"
        raise refusal(where, claim.id, "accept", problem, f"add `value: {change.new}` by hand")
    indent = " " * len(key.group("indent"))
    ending = "\r\n" if lines[anchor - 1].endswith("\r\n") else "\n"
    if not lines[anchor - 1].endswith(("\n", "\r")):
        lines[anchor - 1] += ending
    lines.insert(anchor, f"{indent}value: {change.new}{ending}")


def _verify(text: str, path: str, changes: list[Change]) -> None:
    data = yamlread.parse(text.encode("utf-8"))
    assert isinstance(data, dict)  # the file was a claim file before the edit
    values = {item.get("id"): item.get("value") for item in data["claims"] if isinstance(item, dict)}
    for change in changes:
        if values.get(change.claim_id) != float(change.new) and values.get(change.claim_id) != int(float(change.new)):
            problem = f"the edit did not read back as {change.new}; file left unchanged"
            raise refusal(Source(path, 0), change.claim_id, "accept", problem, f"set it to {change.new} by hand")


def replace_file(file: Path, content: bytes) -> None:
    """The file's bytes replaced at once (a temporary file beside it, renamed over it), its mode kept."""
    mode = file.stat().st_mode
    handle, temporary = tempfile.mkstemp(dir=file.parent, prefix=f".{file.name}.")
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(content)
        os.chmod(temporary, mode & 0o7777)
        os.replace(temporary, file)
    except BaseException:
        os.unlink(temporary)
        raise
