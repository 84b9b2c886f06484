"""Checks and grounding: claims + computed values + intervals -> contradicted / only-borrowed findings
and one CheckResult per `checked_by` entry. Pure.

A check is a comparison (guide/checks.md): the plain form `checked_by: [id]` means the same quantity
on the same testbed, compared after unit conversion within the check tolerance (the claim's own
`tolerance`, else the policy's `check_tolerance`), widened by the checking value's interval; `{claim: id, expects: "> 1"}` states any other relation. Only an asserted claim whose own
lineage reaches a fresh measured run counts as a check.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace

from . import lineage, relations, units
from .records import CheckResult, CheckSpec, Claim, ClaimInterval, Policy
from .values import allowed_text, format_value, interval_text, parse_tolerance

Report = Callable[..., None]  # evidence's report(claim, rule, where, problem, fix, detail="")


def evaluate(
    by_id: Mapping[str, Claim],
    computed: Mapping[str, float],
    intervals: Mapping[str, ClaimInterval],
    failing: Mapping[str, list[str]],
    policy: Policy,
    report: Report,
) -> dict[str, tuple[CheckResult, ...]]:
    """Judge every check, then which asserted claims rest on nothing measured; returns the verdicts."""
    for claim in by_id.values():
        _named_claims(claim, by_id, report)
    reaches = _reaching(by_id, failing)  # after every invalid check is known, so order cannot matter
    results: dict[str, tuple[CheckResult, ...]] = {}
    for claim in by_id.values():
        if claim.checks and claim.id not in failing:
            results[claim.id] = tuple(
                _judge(claim, spec, by_id, computed, intervals, reaches, policy, report) for spec in claim.checks
            )
    for claim in by_id.values():
        _premises(claim, by_id, failing, reaches, results.get(claim.id, ()), report)
    return results


def _reaching(by_id: Mapping[str, Claim], failing: Mapping[str, list[str]]) -> dict[str, bool]:
    """Claim id -> whether its own lineage (inputs, not checks) reaches a fresh measured run. Iterative."""
    memo: dict[str, bool] = {}
    for root in by_id:
        if root in memo:
            continue
        stack = [root]
        on_path = {root}
        while stack:
            current = stack[-1]
            claim = by_id.get(current)
            if claim is None or current in failing or claim.status != "asserted":
                memo[current] = False
            elif claim.kind == "measured":
                memo[current] = True
            else:
                pending = [t for _, t in claim.inputs if t not in memo and t not in on_path and t in by_id]
                if pending:
                    stack.append(pending[0])
                    on_path.add(pending[0])
                    continue
                memo[current] = any(memo.get(t, False) for _, t in claim.inputs)
            stack.pop()
            on_path.discard(current)
    return memo


def _judge(
    claim: Claim,
    spec: CheckSpec,
    by_id: Mapping[str, Claim],
    computed: Mapping[str, float],
    intervals: Mapping[str, ClaimInterval],
    reaches: Mapping[str, bool],
    policy: Policy,
    report: Report,
) -> CheckResult:
    relation = relations.parse(spec.expects) if spec.expects else relations.SAME
    checker = by_id.get(spec.claim_id)
    words = relation.describe()
    at = claim.at("checked_by")
    if checker is None or checker.kind == "borrowed":
        return CheckResult(spec.claim_id, words, False, None, why="not a claim measured here")
    counts = reaches.get(checker.id, False)
    value = computed.get(checker.id, checker.value)
    if not counts:
        why = f"{checker.status}" if checker.status != "asserted" else "does not reach a fresh measured run"
        return CheckResult(spec.claim_id, words, False, None, why=why)
    if value is None:
        return CheckResult(spec.claim_id, words, False, None, why="has no value")
    try:
        mine = units.parse(claim.unit)
        theirs = units.parse(checker.unit)
    except units.UnitError:
        return CheckResult(spec.claim_id, words, False, None, why="unknown unit")  # validate said which
    spread = intervals.get(checker.id)
    if relation.op == "same" and claim.testbed and checker.testbed and claim.testbed != checker.testbed:
        report(
            claim,
            "invalid",
            at,
            f"checked_by {checker.id} (testbed {checker.testbed}) in the plain form, but this claim is on "
            f"{claim.testbed}: a check across testbeds must state the relation",
            f'write `{{claim: {checker.id}, expects: "..."}}` with the relation the run supports '
            '(e.g. "> 1", "above", "within 2x"; guide/checks.md), or remove the check',
        )
        return CheckResult(spec.claim_id, words, False, None, why="across testbeds without a relation")
    if relation.against_claim:
        if mine.dimension != theirs.dimension:
            form = "in the plain form " if relation.op == "same" else f"with `expects: {relation.text}` "
            report(
                claim,
                "invalid",
                at,
                f"checked_by {checker.id} {form}compares {theirs.describe()} ({checker.unit or 'no unit'}) "
                f"with this claim's {mine.describe()} ({claim.unit or 'no unit'})",
                f'state the relation on {checker.id}\'s own value, e.g. `{{claim: {checker.id}, expects: "> 1"}}`, '
                "or name a check of the same quantity",
            )
            return CheckResult(spec.claim_id, words, False, None, why="different dimensions")
        if claim.value is None:
            report(
                claim,
                "invalid",
                at,
                f"check by {checker.id} compares with this claim's value, which is not stated",
                "add `value:`, or state the relation on the check's own value",
            )
            return CheckResult(spec.claim_id, words, False, None, why="no value to compare")
        return _against_claim(claim, checker, relation, value, spread, mine, theirs, policy, report)
    bound_unit = units.parse(relation.unit) if relation.unit else theirs
    if bound_unit.dimension != theirs.dimension:
        report(
            claim,
            "invalid",
            at,
            f"check by {checker.id}: `expects: {relation.text}` is in {bound_unit.describe()}, "
            f"{checker.id} in {theirs.describe()} ({checker.unit or 'no unit'})",
            f"write the bound in {checker.unit or 'the check’s unit'}",
        )
        return CheckResult(spec.claim_id, words, False, None, why="different dimensions")
    shown_unit = relation.unit or checker.unit
    found = units.convert(value, theirs, bound_unit)
    holds = relation.holds(found, bound=relation.bound)
    claimed = format_value(claim.value, claim.unit) if claim.value is not None else ""
    result = CheckResult(
        spec.claim_id, words, True, holds, claimed, _with_spread(found, spread, theirs, bound_unit, shown_unit)
    )
    if not holds and not claim.retired:
        report(
            claim,
            "contradicted",
            at,
            f"check by {checker.id} expects {relation.text.strip()}: {checker.id} gives "
            f"{format_value(found, shown_unit)}",
            _fix(claim, checker),
        )
    return result


def _against_claim(claim, checker, relation, value, spread, mine, theirs, policy, report) -> CheckResult:
    found = units.convert(value, theirs, mine)
    low, high = (units.convert(x, theirs, mine) for x in (spread.low, spread.high)) if spread else (found, found)
    shown = _with_spread(found, spread, theirs, mine, claim.unit)
    claimed = claim.value
    if relation.op == "same":
        tolerance = claim.tolerance or parse_tolerance(policy.check_tolerance)
        if tolerance.text == "precision":
            tolerance = parse_tolerance(policy.check_tolerance)
        allowed = tolerance.allowed(found)
        holds = low - allowed - 1e-9 * abs(found) <= claimed <= high + allowed + 1e-9 * abs(found)
        widened = ", widened by its interval" if spread else ""
        words = f"the same quantity (within {allowed_text(tolerance)}{widened})"
    else:
        holds = relation.holds(found, claimed)
        words = relation.describe()
    result = CheckResult(checker.id, words, True, holds, format_value(claimed, claim.unit), shown)
    if not holds and not claim.retired:
        report(
            claim,
            "contradicted",
            claim.at("checked_by"),
            f"stated {format_value(claimed, claim.unit)}, but {checker.id} gives {shown} (expected: {words})",
            _fix(claim, checker),
        )
    return result


def _with_spread(found: float, spread: ClaimInterval | None, source: units.Unit, target: units.Unit, unit: str) -> str:
    """The check's value in the target unit, with its interval (converted) where it has one."""
    text = format_value(found, unit)
    if spread:
        low, high = (units.convert(x, source, target) for x in (spread.low, spread.high))
        text += f" ({interval_text(replace(spread, low=low, high=high), unit)})"
    return text


def _fix(claim: Claim, checker: Claim) -> str:
    return (
        f"retire it (`status: refuted`, `refuted_by: [{checker.id}]`), or correct the value "
        f"or the stated relation if the check was misread"
    )


def _named_claims(claim: Claim, by_id: Mapping[str, Claim], report: Report) -> None:
    """What a check or a retirement may name: a check is not borrowed, a retirer is not a lead."""
    for target_id in claim.checked_by:
        target = by_id.get(target_id)
        if target is not None and target.kind == "borrowed":
            report(
                claim,
                "invalid",
                claim.at("checked_by"),
                f"checked_by names {target_id}, a borrowed claim; a check must be measured or extrapolated here",
                "name a claim measured here, or extrapolated from one",
            )
    for target_id in claim.retired_by:
        target = by_id.get(target_id)
        if target is not None and target.status == "lead":
            report(
                claim,
                "only-borrowed",
                claim.at("status"),
                f"retired by {target_id}, which is a lead; a lead is never a premise",
                "name a claim that was checked here",
            )


def _premises(
    claim: Claim,
    by_id: Mapping[str, Claim],
    failing: Mapping[str, list[str]],
    reaches: Mapping[str, bool],
    results: tuple[CheckResult, ...],
    report: Report,
) -> None:
    """Only borrowed: an asserted claim must reach a fresh measured run, itself or through a check that holds."""
    if claim.status != "asserted" or claim.kind == "measured" or claim.id in failing:
        return
    if reaches.get(claim.id) or any(r.counts and r.holds for r in results):
        return
    if any(r.counts and r.holds is False for r in results):
        return  # contradicted already says what is wrong
    problem = (
        "borrowed, and nothing here checks it"
        if claim.kind == "borrowed"
        else "rests only on borrowed claims, and nothing here checks it"
    )
    reasons = []
    for check_id in claim.checked_by:
        if check_id in failing:
            reasons.append(f"{check_id} is stale ({', '.join(sorted(set(failing[check_id])))})")
        elif check_id in by_id and not reaches.get(check_id):
            reasons.append(f"{check_id} does not reach a measured run")
    if reasons:
        problem += ": its check " + "; ".join(reasons)
    stale = [check_id for check_id in claim.checked_by if check_id in failing]
    report(claim, "only-borrowed", claim.where, problem, _remeasure(stale, by_id, failing) or NO_CHECK_FIX)


NO_CHECK_FIX = (
    "add `checked_by:` naming a claim measured here (or extrapolated from one), "
    "or mark it `status: lead` if nothing here could ever check it"
)
REMEASURED = frozenset({"probe-changed", "too-old", "tampered", "rewritten"})  # rules a new run fixes


def _remeasure(stale: list[str], by_id: Mapping[str, Claim], failing: Mapping[str, list[str]]) -> str:
    """The fix when the check exists but is stale: re-measure it (naming the probes), or fix it first."""
    if not stale:
        return ""
    probes = sorted(
        {
            measured.evidence.run.rsplit("/", 2)[-2]
            for check_id in stale
            for measured in (by_id[i] for i in (check_id, *lineage.input_closure(check_id, by_id)) if i in by_id)
            if measured.evidence and REMEASURED & set(failing.get(measured.id, ()))
        }
    )
    if not probes:
        return f"fix {', '.join(stale)} first (`ledger check` lists why)"
    return f"re-measure {', '.join(stale)}: `ledger measure {' '.join(probes)}`, then `ledger refresh --write`"
