"""`ledger show ID`: a Report + one claim id -> its lineage as a text tree (inputs down to runs and
probes, then what depends on it), each node with its kind and freshness. tree() is pure."""

from __future__ import annotations

import argparse
import difflib
from datetime import datetime, timezone

from ..claims import lineage
from ..gate import check
from ..lang.relations import INCONCLUSIVE, SHOWN
from ..lang.values import format_value
from ..records import Claim, ClaimVerdict, LedgerError, Report, Run
from ..wording import ONE_RUN, assert_text, noise_text, prediction_text, shared_text, stated

BRANCH, LAST, PIPE, SPACE = "├── ", "└── ", "│   ", "    "


def setup_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("id", metavar="ID")


def run_from_args(args: argparse.Namespace) -> int:
    print(tree(check(args.project.root, args.project.policy, datetime.now(timezone.utc)), args.id))
    return 0


def node(verdict: ClaimVerdict) -> str:
    """One claim as a tree node: 'id = 3.59× (measured, fresh)', 'id = 3.6× (borrowed, agrees, fresh)'."""
    claim = verdict.claim
    value = stated(verdict)
    status = "" if claim.status == "asserted" else f", {claim.status}"
    strength = verdict.support
    support = f", {SHOWN[strength]}" if strength else ""
    return f"{claim.id}{' = ' + value if value else ''} ({claim.kind}{status}{support}, {verdict.fresh.describe()})"


def tree(report: Report, claim_id: str) -> str:
    """The claim, what it rests on (down to runs and probe files), what rests on it, and its findings."""
    by_id = report.by_id
    claim = by_id.get(claim_id)
    if claim is None:
        close = difflib.get_close_matches(claim_id, list(by_id), n=1)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        raise LedgerError(f"show: no claim {claim_id!r}{hint}")
    verdict = report.verdicts[claim_id]
    lines = [node(verdict)]
    noise = noise_text(verdict)
    if noise:
        lines.append(f"{noise}")
    if verdict.asserted is not None:
        lines.append(assert_text(verdict.asserted))
    if verdict.one_run:
        lines.append(ONE_RUN)
    if verdict.prediction is not None:
        lines.append(prediction_text(verdict))
        lines += [shared_text(verdict)] if shared_text(verdict) else []
    lines += _draw(_upstream(report, by_id, claim, (claim.id,)), "")
    below = _downstream(report, by_id, claim.id, (claim.id,))
    lines.append("what depends on it:" if below else "what depends on it: nothing")
    lines += _draw(below, "")
    findings = report.findings_for(claim.id)
    if findings:
        lines.append("findings:")
        lines += ["  " + line for finding in findings for line in str(finding).splitlines()]
    return "\n".join(lines)


# A subtree is (label, children).
Tree = tuple[str, list]


def _upstream(report: Report, by_id: dict[str, Claim], claim: Claim, path: tuple[str, ...]) -> list[Tree]:
    children: list[Tree] = []
    if claim.kind == "measured" and claim.evidence:
        replicas = report.verdicts[claim.id].replicas
        if replicas is not None and replicas.cited:  # the runs its value is pooled over, then the cited one
            pairs = zip(replicas.runs[:-1], replicas.values, strict=False)
            children += [_replicate(report.runs[path], value, report) for path, value in pairs]
        children.append(_run(report.runs.get(claim.evidence.run), claim, report))
    for name, target in claim.inputs:
        children.append(_claim_child(report, by_id, f"input {name}: ", target, path))
    if claim.source:
        quote = f" — “{_one_line(claim.source.quote)}”" if claim.source.quote else ""
        children.append((f"source: {_one_line(claim.source.title)}{quote}", []))
    results = {result.claim_id: result for result in report.verdicts[claim.id].checks}
    for target in claim.checked_by:
        result = results.get(target)
        verdict = "holds" if result and result.holds else "does not hold" if result and result.holds is False else ""
        if result and result.strength == INCONCLUSIVE:
            verdict = result.why  # why the measurement cannot tell
        how = f"({SHOWN[result.strength]}: {result.relation}, {verdict or 'not judged'}) " if result else ""
        children.append(_claim_child(report, by_id, f"checked by {how}", target, path))
    for target in claim.retired_by:
        children.append(_claim_child(report, by_id, f"{claim.status} by ", target, path))
    return children


def _claim_child(report: Report, by_id: dict[str, Claim], relation: str, target_id: str, path: tuple[str, ...]) -> Tree:
    target = by_id.get(target_id)
    if target is None:
        return (f"{relation}{target_id} (no such claim)", [])
    if target_id in path:
        return (f"{relation}{target_id} (cycle: already above)", [])
    return (relation + node(report.verdicts[target_id]), _upstream(report, by_id, target, path + (target_id,)))


def _run(run: Run | None, claim: Claim, report: Report) -> Tree:
    evidence = claim.evidence
    assert evidence is not None  # only measured claims with evidence have a run
    if run is None:
        return (f"run {evidence.run} (missing)", [])
    if run.problem:
        return (f"run {run.path} ({run.problem})", [])
    when = f", finished {run.finished:%Y-%m-%dT%H:%M:%SZ}" if run.finished else ""
    where = ", ".join(f"{column}={value}" for column, value in evidence.where)
    children: list[Tree] = []
    verdict = report.run_state(run.path)
    changed_files = {change.name: change.kind for change in verdict.changed_files}
    changed_code = dict(verdict.changed_code)
    for name in sorted(run.declared_files):
        kind = changed_files.get(name)
        state = (
            "matches its manifest"
            if kind is None
            else "missing"
            if kind == "missing"
            else "tampered: differs from its manifest"
        )
        used = f", row {where}, column {evidence.column}" if name == evidence.file else ""
        children.append((f"data {name} ({state}{used})", []))
    for path in sorted(run.declared_code):
        code_kind = changed_code.get(path)
        state = (
            "unchanged since the run"
            if code_kind is None
            else "missing"
            if code_kind == "gone"
            else "changed since the run"
        )
        children.append((f"{'probe' if path == run.probe else 'code'} {path} ({state})", []))
    stale = f"; {verdict.label}: " + "; ".join(verdict.reasons) if not verdict.trusted else ""
    return (f"run {run.path} ({run.testbed or 'no testbed'}{when}{stale})", children)


def _replicate(run: Run, value: float, report: Report) -> Tree:
    """A replicate run the claim's value is pooled over, beside the cited one: its value and state."""
    state = report.run_state(run.path)
    stale = f"; {state.label}: " + "; ".join(state.reasons) if not state.trusted else ""
    return (f"replicate run {run.path} ({run.testbed}, value {format_value(value)}{stale})", [])


def _downstream(report: Report, by_id: dict[str, Claim], claim_id: str, path: tuple[str, ...]) -> list[Tree]:
    relation = {lineage.INPUT: "input of ", lineage.CHECK: "checks ", lineage.RETIREMENT: "retired "}
    children: list[Tree] = []
    for edge in lineage.downstream(claim_id, report.claims):
        dependent = by_id.get(edge.claim_id)
        if dependent is None or by_id.get(claim_id) is None:
            continue
        label = relation[edge.relation]
        if edge.relation == lineage.INPUT:
            name = next(n for n, target in dependent.inputs if target == claim_id)
            label = f"input {name} of "
        if dependent.id in path:
            children.append((f"{label}{dependent.id} (cycle: already above)", []))
            continue
        children.append(
            (
                label + node(report.verdicts[dependent.id]),
                _downstream(report, by_id, dependent.id, path + (dependent.id,)),
            )
        )
    return _unique(children)


def _unique(children: list[Tree]) -> list[Tree]:
    """A claim that names this one twice (as input and as check) is listed once per relation."""
    seen, kept = set(), []
    for child in children:
        if child[0] not in seen:
            seen.add(child[0])
            kept.append(child)
    return kept


def _draw(children: list[Tree], prefix: str) -> list[str]:
    lines = []
    for index, (label, grandchildren) in enumerate(children):
        last = index == len(children) - 1
        lines.append(prefix + (LAST if last else BRANCH) + label)
        lines += _draw(grandchildren, prefix + (SPACE if last else PIPE))
    return lines


def _one_line(text: str) -> str:
    return " ".join(text.split())
