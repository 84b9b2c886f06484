"""Evidence stage: claims + runs + policy -> findings and computed values. Pure.

Rules (generator/rules.py): tampered, probe changed, drifted, formula drifted, too old, unused
input and a tolerance wider than max_tolerance, plus the "invalid" problems that need runs (missing
run, file, column or row) or inputs (a formula's unit and testbed, grounding.py). A run's state comes
decided from verdicts.py. Claims are visited inputs-first so staleness and testbeds flow down the
lineage; checks.py then judges checks, grounding and retirements.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from . import asserted, checks, formula, grounding, intervals, ownunits, units
from .records import AssertResult, CheckResult, Claim, ClaimInterval, Finding, Policy, Run, RunState, Source
from .rules import STALE_RULES
from .values import (
    allowed_text,
    cell_number,
    format_pair,
    format_value,
    policy_share,
    select_row,
    tolerance_excess,
    tolerance_for,
    within,
)


@dataclass
class Evaluated:
    """What the evidence stage found: findings, computed values, intervals, check verdicts."""

    findings: list[Finding] = field(default_factory=list)
    computed: dict[str, float] = field(default_factory=dict)  # claim id -> value from evidence or formula
    intervals: dict[str, ClaimInterval] = field(default_factory=dict)  # claim id -> its interval
    no_rounds: dict[str, str] = field(default_factory=dict)  # measured claim id -> why it has no raw rounds
    exact: set[str] = field(default_factory=set)  # claims computed from counts: their value is exact
    unknown: dict[str, str] = field(default_factory=dict)  # claim id -> why its noise is not known
    asserts: dict[str, AssertResult] = field(default_factory=dict)
    checks: dict[str, tuple[CheckResult, ...]] = field(default_factory=dict)
    testbeds: dict[str, str] = field(default_factory=dict)  # claim id -> stated, its run's, or its inputs'
    by_id: dict[str, Claim] = field(default_factory=dict)  # the first claim of each id, as the gate judged it
    premises: dict[str, tuple[str, ...]] = field(default_factory=dict)  # claim id -> inputs that move it


def evaluate(
    claims: list[Claim],
    runs: Mapping[str, Run],
    states: Mapping[str, RunState],
    policy: Policy,
    invalid: Iterable[Finding] = (),
) -> Evaluated:
    """Findings for every claim (every rule, not just the first), computed values, intervals and checks."""
    by_id: dict[str, Claim] = {}
    for claim in claims:
        by_id.setdefault(claim.id, claim)
    failing: dict[str, list[str]] = {}  # claim id -> stale rules it fails
    for finding in invalid:
        if finding.claim_id:
            failing.setdefault(finding.claim_id, []).append(finding.rule)
    out = Evaluated(by_id=by_id)
    findings, computed = out.findings, out.computed
    index = intervals.RowIndex()

    def report(claim: Claim, rule: str, where: Source, problem: str, fix: str, detail: str = "") -> None:
        severity = policy.severity(rule)
        findings.append(Finding(where, claim.id, rule, problem, fix, detail, severity))
        if severity == "fail" and rule in STALE_RULES:
            failing.setdefault(claim.id, []).append(rule)

    for claim in _inputs_first(by_id):
        out.testbeds[claim.id] = _testbed(claim, by_id, runs, out.testbeds)
        if claim.id in failing and "invalid" in failing[claim.id]:
            continue  # its fields are not usable; validate already said why
        if claim.kind == "measured" and claim.evidence:
            _measured(claim, runs, states, policy, report, out, index)
        elif claim.kind == "extrapolated" and claim.formula:
            _extrapolated(claim, by_id, failing, policy, report, out)
    # Every stale finding is in `failing` by now, so checks and grounding cannot depend on claim order.
    noise = asserted.Noise(out.intervals, frozenset(out.exact), out.unknown, ownunits.table(policy.units))
    out.asserts = asserted.evaluate(by_id, computed, noise, failing, report)
    ledger = checks.Ledger(by_id, computed, out.intervals, out.testbeds, out.premises, failing, policy, report)
    out.checks = checks.evaluate(ledger)
    return out


def _testbed(claim: Claim, by_id: Mapping[str, Claim], runs: Mapping[str, Run], known: Mapping[str, str]) -> str:
    """Its stated testbed; else a measured claim's run's, an extrapolated claim's inputs' (visited first)."""
    if claim.testbed or claim.kind == "borrowed":
        return claim.testbed
    if claim.kind == "measured":
        run = runs.get(claim.evidence.run) if claim.evidence else None
        return run.testbed if run else ""
    return grounding.derived_testbed(known.get(target, "") for _, target in claim.inputs if target in by_id)


def _measured(
    claim: Claim,
    runs: Mapping[str, Run],
    states: Mapping[str, RunState],
    policy: Policy,
    report,
    out: Evaluated,
    index: intervals.RowIndex,
) -> None:
    evidence = claim.evidence
    assert evidence is not None  # evaluate() calls this only for claims with evidence
    at = claim.at("evidence")
    run = runs.get(evidence.run)
    rerun = f"rerun `ledger measure {evidence.run.split('/')[1]}` and point evidence.run at the new run"
    if run is None:
        siblings = sorted(path for path in runs if path.startswith(evidence.run.rsplit("/", 1)[0] + "/"))
        hint = f" (latest run of that probe: {siblings[-1]})" if siblings else ""
        report(
            claim,
            "invalid",
            at,
            f"evidence run {evidence.run} does not exist{hint}",
            "point evidence.run at an existing run folder",
        )
        return
    if run.problem:
        report(claim, "invalid", at, f"evidence run {run.path} {run.problem}", rerun)
        return
    if claim.testbed and run.testbed and claim.testbed != run.testbed:
        report(
            claim,
            "invalid",
            claim.at("testbed"),
            f"testbed {claim.testbed!r} but run {run.name} was measured on {run.testbed!r}",
            f"set `testbed: {run.testbed}` or point at a run from {claim.testbed}",
        )
    if evidence.file not in run.declared_files:
        listed = ", ".join(sorted(run.declared_files)) or "none"
        report(
            claim,
            "invalid",
            at,
            f"{evidence.file} is not a file of run {run.name} (it has: {listed})",
            "name one of the run's files in evidence.file",
        )
        return
    state = states[run.path]
    if state.manifest_problem:
        report(claim, "invalid", at, f"evidence run {run.path}: {state.manifest_problem}", rerun)
    if state.rewritten:
        first = state.rewritten_commit.split()[1] if state.rewritten_commit else "HEAD"
        report(
            claim,
            "rewritten",
            at,
            f"{run.path}: {', '.join(state.rewritten)} differ from {state.rewritten_commit}, "
            "the commit that first added them (runs are immutable)",
            f"restore them (`git checkout {first} -- {run.path}`), or {rerun}",
        )
    for name, what in state.changed_files:
        report(
            claim,
            "tampered",
            at,
            f"{run.path}/{name} {what}",
            f"restore it (`git checkout -- {run.path}/{name}`) or {rerun}",
        )
    for path, what in state.changed_code:
        report(claim, "probe-changed", at, f"{path} {what} (run {run.name})", rerun)
    if state.too_old:
        report(
            claim,
            "too-old",
            at,
            f"run {run.name} is {state.age_days} days old; the policy allows {policy.max_run_age_days}",
            rerun,
        )
    table = run.tables.get(evidence.file)
    if table is None or table.problem:
        problem = table.problem if table else "is not a CSV file"
        report(claim, "invalid", at, f"{run.path}/{evidence.file} {problem}", rerun)
        return
    missing = [c for c in [evidence.column, *(c for c, _ in evidence.where)] if c not in table.columns]
    if missing:
        report(
            claim,
            "invalid",
            at,
            f"{evidence.file} has no column {missing[0]!r} (columns: {', '.join(table.columns)})",
            "name an existing column",
        )
        return
    rows = select_row(table, evidence.where)
    shown_where = ", ".join(f"{c}={v}" for c, v in evidence.where) or "no filter"
    if len(rows) != 1:
        if rows:
            problem = f"{len(rows)} rows of {evidence.file} match where {{{shown_where}}}; it must select one"
            fix = "add columns to `where` until one row matches"
        else:
            problem = f"no row of {evidence.file} matches where {{{shown_where}}}"
            fix = "check the values in `where` against the run's rows"
        report(claim, "invalid", at, problem, fix)
        return
    value = cell_number(table, rows[0], evidence.column)
    if value is None:
        cell = table.rows[rows[0]][table.columns.index(evidence.column)]
        report(
            claim,
            "invalid",
            at,
            f"{evidence.file}, {shown_where}, column {evidence.column}: cell {cell!r} is not a number",
            "name a numeric column",
        )
        return
    out.computed[claim.id] = value
    found = intervals.measured(run, evidence, table, rows[0], value, index)
    if found.problem:
        report(claim, "invalid", at, found.problem, found.fix)
    if found.interval is not None:
        out.intervals[claim.id] = found.interval
    if found.missing and not found.exact:
        out.no_rounds[claim.id] = found.missing
    intervals.measured_noise(claim.id, found, out.exact, out.unknown)
    if not state.trusted:
        return  # a value from untrusted or outdated evidence is not compared
    detail = f"from {run.path}/{evidence.file}, {shown_where}, column {evidence.column}"
    _compare(
        claim,
        value,
        policy,
        report,
        "drifted",
        "evidence computes",
        detail,
        f"check the run, then `ledger accept {claim.id}`",
    )


def _extrapolated(
    claim: Claim, by_id: Mapping[str, Claim], failing: Mapping[str, list[str]], policy: Policy, report, out: Evaluated
) -> None:
    computed = out.computed
    at = claim.at("inputs")
    _unit_and_testbed(claim, by_id, ownunits.table(policy.units), report, out)
    values: dict[str, float] = {}
    usable = True
    for name, target_id in claim.inputs:
        target = by_id.get(target_id)
        if target is None:
            return  # validate reported the dangling reference
        if target.status == "lead" and claim.status == "asserted":
            report(
                claim,
                "only-borrowed",
                at,
                f"input {target_id} is a lead; a lead is never a premise",
                f"check {target_id} here (measure it) and make it asserted, or drop the input",
            )
            usable = False
        elif target.retired and not claim.retired:
            report(
                claim,
                "invalid",
                at,
                f"input {target_id} is {target.status}; an asserted claim cannot rest on a retired one",
                f"use what retired it ({', '.join(target.retired_by)}) instead",
            )
            usable = False
        if target_id in failing:
            rules = ", ".join(sorted(set(failing[target_id])))
            report(
                claim,
                "formula-drifted",
                at,
                f"input {target_id} is stale ({rules})",
                f"fix {target_id} first (`ledger check` lists why)",
            )
            usable = False
        elif target.value is None:
            report(claim, "invalid", at, f"input {target_id} has no value", f"give {target_id} a `value:`")
            usable = False
        else:
            values[name] = computed.get(target_id, target.value)  # its computed value where it has one
    if not usable:
        return
    try:
        value = formula.evaluate(claim.formula, values)
    except formula.FormulaError as error:
        report(
            claim,
            "invalid",
            claim.at("formula"),
            f"formula cannot be evaluated: {error}",
            "check the formula and its inputs' values",
        )
        return
    computed[claim.id] = value
    _unused_inputs(claim, values, tolerance_for(claim, policy).allowed(value), report, out)
    carried = {name: out.intervals.get(target) for name, target in claim.inputs}
    found = intervals.through_formula(claim.formula, values, carried, value)
    if found.interval is not None:
        out.intervals[claim.id] = found.interval
    intervals.formula_noise(claim, found, by_id, out.exact, out.unknown)
    shown = ", ".join(f"{name}={format_value(v)}" for name, v in values.items())
    _compare(
        claim,
        value,
        policy,
        report,
        "formula-drifted",
        "formula gives",
        f"{claim.formula} with {shown}",
        f"check the inputs, then `ledger accept {claim.id}`",
    )


def _unit_and_testbed(claim: Claim, by_id: Mapping[str, Claim], table: units.UnitTable, report, out: Evaluated) -> None:
    """A formula's result is in its inputs' dimension and on their testbed (grounding.py)."""
    inputs = {name: by_id[target] for name, target in claim.inputs if target in by_id}
    for problem in (
        grounding.dimension_problem(claim, inputs, table),
        grounding.testbed_problem(claim, {name: out.testbeds.get(c.id, "") for name, c in inputs.items()}),
    ):
        if problem:
            report(claim, problem.rule, claim.at(problem.field), problem.problem, problem.fix)


def _unused_inputs(claim: Claim, values: Mapping[str, float], allowed: float, report, out: Evaluated) -> None:
    """An input that does not move the result beyond `allowed` is reported, and grounding reads only those
    that do. Only an asserted claim is judged: a lead or a retired claim is never a premise."""
    unused = grounding.unused_inputs(claim, values, allowed) if claim.status == "asserted" else []
    for name in unused:
        problem = grounding.unused_problem(claim, name)
        report(claim, problem.rule, claim.at(problem.field), problem.problem, problem.fix)
    if unused:
        out.premises[claim.id] = tuple(target for name, target in claim.inputs if name not in unused)


def _compare(claim: Claim, value: float, policy: Policy, report, rule: str, verb: str, detail: str, fix: str) -> None:
    if claim.value is None:
        report(claim, rule, claim.where, f"no value stated; {verb} {format_value(value, claim.unit)}", fix, detail)
        return
    tolerance = tolerance_for(claim, policy)
    max_share = policy_share(policy.max_tolerance)
    share = tolerance_excess(tolerance, claim.value, value, max_share)
    if share is not None:
        stated, found = format_pair(claim.value, value, claim.unit)
        report(
            claim,
            "invalid",
            claim.at("tolerance" if claim.tolerance else "value"),
            f"tolerance {allowed_text(tolerance)} allows {share:.0%} of max(|stated|, |computed|) "
            f"(stated {stated}, {verb} {found}); the policy's max_tolerance is {max_share:.0%}",
            "state the value more exactly, or a tolerance the evidence supports",
            detail,
        )
    elif not within(claim.value, value, tolerance):
        stated, found = format_pair(claim.value, value, claim.unit)
        allowed = allowed_text(tolerance)
        report(claim, rule, claim.at("value"), f"stated {stated}, {verb} {found} ({allowed} allowed)", fix, detail)


def _inputs_first(by_id: Mapping[str, Claim]) -> list[Claim]:
    """Claims ordered so every claim comes after its inputs (cycles broken arbitrarily)."""
    order: list[Claim] = []
    state: dict[str, int] = {}
    for root_id in by_id:
        stack = [(root_id, iter(by_id[root_id].inputs))]
        if root_id in state:
            continue
        state[root_id] = 1
        while stack:
            claim_id, pending = stack[-1]
            for _, target in pending:
                if target in by_id and target not in state:
                    state[target] = 1
                    stack.append((target, iter(by_id[target].inputs)))
                    break
            else:
                stack.pop()
                state[claim_id] = 2
                order.append(by_id[claim_id])
    return order
