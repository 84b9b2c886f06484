"""Evidence stage: claims + runs + policy -> findings and one ClaimVerdict per claim. Pure.

Rules (generator/rules.py): tampered, probe changed, drifted, formula drifted, too old, unused
input and a tolerance wider than max_tolerance, plus the "invalid" problems that need runs (missing
run, file, column or row) or inputs (a formula's unit and testbed, grounding.py). A run's state comes
decided from verdicts.py. Claims are visited inputs-first so staleness and testbeds flow down the
lineage; checks.py then judges checks, grounding and retirements. What the stage decided for each
claim (its parsed unit and tolerance, value, rows, interval, why it was not compared, its checks and its
`asserts:` verdict) is its ClaimVerdict (records.py), which later stages complete.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from functools import partial
from itertools import islice

import attrs

from ..claims import grounding
from ..claims.vocabulary import Vocabulary
from ..lang import formula, units
from ..lang.rows import Table
from ..lang.units import DIMENSIONLESS, Unit
from ..lang.values import Tolerance, allowed_text, format_pair, format_value, tolerance_excess, within
from ..records import (
    Cause,
    CheckSpec,
    Claim,
    ClaimInterval,
    ClaimVerdict,
    Evidence,
    Finding,
    Outcome,
    Policy,
    Prediction,
    Replicas,
    Run,
    RunState,
    Source,
)
from ..rules import STALE_RULES
from ..runs import is_samples
from ..trust import verdicts
from ..wording import tolerance_for
from . import alike, asserted, bands, checks, intervals, replicates, retirements
from .intervals import Cell, read_cell  # noqa: F401  (refresh reads newer runs through read_cell)
from .replicates import Member


@dataclass
class Evaluated:
    """What the evidence stage found: findings, and one verdict per claim id (the first claim of an id)."""

    findings: list[Finding] = field(default_factory=list)
    verdicts: dict[str, ClaimVerdict] = field(default_factory=dict)  # in the claims' order


def evaluate(
    claims: list[Claim],
    runs: Mapping[str, Run],
    states: Mapping[str, RunState],
    policy: Policy,
    vocabulary: Vocabulary,
    invalid: Iterable[Finding] = (),
    shared: alike.Judged | None = None,
) -> Evaluated:
    """Findings for every claim (every rule, not just the first) and each claim's verdict: its value,
    interval, checks and `asserts:` verdict. vocabulary: what the claims' unit and relation texts mean,
    as validate.py read them. shared: `ledger diff`'s two revisions' evidence stages, the first recording
    each claim's verdict, the second taking those whose inputs are alike (alike.py)."""
    by_id: dict[str, Claim] = {}
    for claim in claims:
        by_id.setdefault(claim.id, claim)
    stage = Stage(by_id, runs, states, policy, vocabulary)
    for finding in invalid:
        if finding.claim_id:
            stage.failing.setdefault(finding.claim_id, []).append(finding.rule)
    stage.visit_all(_inputs_first(by_id), shared)
    stage.findings += undeclared(stage.inferred, runs, policy)
    # Every stale finding is in `failing` by now, so checks and grounding cannot depend on claim order.
    made = {claim_id: stage.verdicts[claim_id] for claim_id in by_id}  # in the claims' order
    held = asserted.evaluate(made, stage.vocabulary, stage.failing, stage.report, policy.asserts_level)
    ledger = checks.Ledger(made, stage.vocabulary, stage.premises, stage.failing, policy, stage.report)
    judged = checks.evaluate(ledger)
    retirements.judge(ledger, judged)
    for claim_id in held.keys() | judged.keys():  # one replace each: these complete the record
        made[claim_id] = made[claim_id].completed(asserted=held.get(claim_id), checks=judged.get(claim_id, ()))
    return Evaluated(stage.findings, made)


@attrs.frozen(weakref_slot=False)
class SetFound:
    """A measured claim's replicate set, as the evidence stage read it: the set, where the next run should land,
    and (when the claim cites the set, `replicates:`) its pooled value and between-run interval."""

    replicas: Replicas
    prediction: Prediction
    value: float = 0.0
    interval: ClaimInterval | None = None


Said = Callable[[], tuple[str, str, str, str]]  # a comparison's (rule, verb, detail, fix), made for its finding


@attrs.frozen(weakref_slot=False)
class Made:
    """What every verdict begins with, read before the claim's evidence: the claim, its parsed unit and
    tolerance, its testbed. verdict() makes the record from it once, with what the evidence gave."""

    claim: Claim
    unit: Unit
    tolerance: Tolerance
    testbed: str

    def verdict(self, **found) -> ClaimVerdict:
        return ClaimVerdict(self.claim, self.unit, self.tolerance, self.testbed, **found)


class Stage:
    """The evidence stage's context, made once: the claims, runs, verdicts and policy it reads and the
    records it fills, so each step reads what it needs instead of a train of parameters."""

    def __init__(
        self,
        by_id: Mapping[str, Claim],
        runs: Mapping[str, Run],
        states: Mapping[str, RunState],
        policy: Policy,
        vocabulary: Vocabulary,
    ):
        self.by_id, self.runs, self.states, self.policy, self.vocabulary = by_id, runs, states, policy, vocabulary
        self.findings: list[Finding] = []
        self.verdicts: dict[str, ClaimVerdict] = {}  # claim id -> its verdict, inputs first
        self.failing: dict[str, list[str]] = {}  # claim id -> stale rules it fails
        self.premises: dict[str, tuple[str, ...]] = {}  # claim id -> the inputs that move it (when some do not)
        self.index = intervals.RowIndex()
        self.sets = replicates.Sets(runs)
        selected = Counter(replicates.selection(c.evidence) for c in by_id.values() if c.evidence is not None)
        self.reads = replicates.Reads(self.index, {chosen for chosen, claims in selected.items() if claims > 1})
        self.pooled: dict[tuple, SetFound | None] = {}  # (run path, selection, replicates) -> its set, made once
        self.pools = replicates.Pools(self.index)  # each set's cells of a column, grouped once
        self.inferred: dict[
            str, dict[tuple[str, str], list[str]]
        ] = {}  # run -> (file, column) -> claims: exact by inference
        self.judges: dict[str, list[tuple[Claim, CheckSpec]]] = {}  # checking claim -> the checks it takes part in
        self.last_inferred: tuple[str, str, str] | None = None  # the (run, file, column) a visit last inferred
        for checked in by_id.values():
            for spec in checked.checks if not checked.retired else ():
                self.judges.setdefault(spec.claim_id, []).append((checked, spec))

    def report(self, claim: Claim, rule: str, where: Source, problem: str, fix: str, detail: str = "") -> None:
        severity = self.policy.severity(rule)
        self.findings.append(Finding(where, claim.id, rule, problem, fix, detail, severity))
        if severity == "fail" and rule in STALE_RULES:
            self.failing.setdefault(claim.id, []).append(rule)

    def visit_all(self, claims: list[Claim], judged: alike.Judged | None) -> None:
        """Every claim's verdict, in order; with judged, each recorded for the other revision's stage, or taken
        from the one recorded where its inputs are alike (alike.py)."""
        if judged is None:
            for claim in claims:
                self.visit(claim)
            return
        here = alike.Context(self.policy, self.vocabulary.table, self.runs, self.states)
        if judged.recording():
            judged.context = here
            for claim in claims:
                self._recorded(claim, judged)
            return
        some, runs_alike = judged.reads_alike(here)
        taken: dict[str, ClaimVerdict] = {}
        for claim in claims:
            found = None
            if some and claim.id not in self.failing:  # failing already: validate found it invalid
                found = judged.takes(claim, self.judges.get(claim.id, ()), taken, runs_alike)
            if found is None:
                self.visit(claim)
            else:
                taken[claim.id] = self._take(claim, found)

    def _recorded(self, claim: Claim, judged: alike.Judged) -> None:
        """visit(), recording what it made of a claim it found nothing wrong with, for the other revision's stage."""
        invalid, findings, pooled = claim.id in self.failing, len(self.findings), len(self.pooled)
        self.last_inferred = None
        self.visit(claim)
        if invalid or len(self.findings) > findings:
            return
        made = tuple(islice(reversed(self.pooled.items()), len(self.pooled) - pooled))
        judges = tuple(self.judges.get(claim.id, ()))
        verdict, premises = self.verdicts[claim.id], self.premises.get(claim.id)
        judged.visits[claim.id] = alike.Visit(claim, verdict, judges, premises, self.last_inferred, made[::-1])

    def _take(self, claim: Claim, visit: alike.Visit) -> ClaimVerdict:
        """The verdict the other revision's stage made, with this revision's claim, and what its visit added."""
        verdict = self.verdicts[claim.id] = attrs.evolve(visit.verdict, claim=claim)
        if visit.premises is not None:
            self.premises[claim.id] = visit.premises
        if visit.inferred is not None:
            self._infer(visit.inferred, claim.id)
        for key, found in visit.pooled:
            self.pooled.setdefault(key, found)
        return verdict

    def _infer(self, cell: tuple[str, str, str], claim_id: str) -> None:
        """A claim found its (run, file, column) exact by inference (undeclared() reports it)."""
        run, file, column = cell
        self.inferred.setdefault(run, {}).setdefault((file, column), []).append(claim_id)
        self.last_inferred = cell

    def visit(self, claim: Claim) -> None:
        """The claim's verdict, made once (each branch builds the whole record; later stages complete it)."""
        testbed = _testbed(claim, self.by_id, self.runs, self.verdicts)
        made = Made(claim, self.vocabulary.unit(claim.unit), tolerance_for(claim, self.policy), testbed)
        if claim.id in self.failing and "invalid" in self.failing[claim.id]:
            found = made.verdict(cause="invalid-fields")  # validate already said why
        elif claim.kind == "measured" and claim.evidence:
            found = self.measured(made, claim.evidence)
        elif claim.kind == "extrapolated" and claim.formula:
            found = self.extrapolated(made)
        else:
            found = made.verdict(cause="borrowed" if claim.kind == "borrowed" else "invalid-fields")
        self.verdicts[claim.id] = found

    def measured(self, made: Made, evidence: Evidence) -> ClaimVerdict:
        claim = made.claim
        run, cause = self._run(claim, evidence)
        if run is None:
            return made.verdict(cause=cause)
        state = self.states[run.path]
        for rule, problem, fix in verdicts.run_findings(run, state, self.policy, _rerun(evidence)):
            self.report(claim, rule, claim.at("evidence"), problem, fix)
        table = run.tables.get(evidence.file)
        cell = read_cell(table, evidence, self.index)
        if cell.value is None:
            self._no_cell(claim, run, table, cell)
            return made.verdict(rows=cell.rows, cause=cell.cause)
        declared, factor = self._column_unit(made, run, evidence)
        if factor is None:  # its unit is not the column's dimension (reported): no value to state in it
            return made.verdict(rows=cell.rows, run_unit=declared, cause="unit-mismatch")
        assert table is not None  # a cell was read from it
        found = intervals.measured(run, evidence, table, cell.rows[0], cell.value, self.index)
        if found.problem:
            self.report(claim, found.rule, claim.at("evidence"), found.problem, found.fix)
        value = cell.value  # in the column's unit until the replicates are read (their runs are in it)
        if found.inferred:
            self._infer((run.path, evidence.file, evidence.column), claim.id)
        pooled = None if found.problem or found.exact else self._replicas(claim, Member(run, value, found), evidence)
        computed, interval = value, found.interval
        if pooled is not None and pooled.replicas.cited:
            computed, interval = pooled.value, pooled.interval
        if factor != 1:  # value and interval in the claim's unit; point, replicas and prediction stay in the column's
            computed, interval = computed * factor, _scaled(interval, factor)
        replicas = pooled.replicas if pooled is not None else None
        outcome: Outcome = ""
        if state.trusted:  # a value from untrusted or outdated evidence is not compared
            said = partial(_drift_said, claim, replicas, run, evidence, value, declared, factor)
            outcome = self.compare(made, computed, said)
        return made.verdict(  # the record made once, with every field the evidence gave
            value=computed,
            rows=cell.rows,
            run_unit=declared,
            interval=interval,
            exact=found.exact,
            no_rounds=found.missing if found.missing and not found.exact else "",
            noise_unknown=intervals.measured_noise(found),
            cause="" if state.trusted else "untrusted-run",
            outcome=outcome,
            point=intervals.point(run, value, found) if not found.problem else None,
            replicas=replicas,
            prediction=pooled.prediction if pooled is not None else None,
        )

    def _replicas(self, claim: Claim, cited: Member, evidence: Evidence) -> SetFound | None:
        """The claim's replicate set (its run's replicates up to it): with `replicates:` its value is pooled
        over the set and its interval is between-run; either way the set says where the next run should land.
        The set's pooled value is made once per run, selection and count (claims citing the same cells of
        a run share it); each claim citing a set is told of every run its value rests on."""
        run = cited.run
        members = self.sets.upto(run)
        if not evidence.cites_set and len(members) < 2:
            return None
        key = (run.path, replicates.selection(evidence), evidence.replicates)
        if not evidence.cites_set and key in self.pooled:
            return self.pooled[key]  # nothing to tell this claim: the set is only its prediction
        at = claim.at("evidence")
        short = replicates.shortfall(members, evidence.replicates)
        if short:
            fix = f"measure it again (`ledger measure {run.probe_name} --replicates N`), then cite the newest run; or cite fewer"
            self.report(claim, "invalid", at, short, fix)
        chosen = replicates.window(members, evidence.replicates) if evidence.cites_set else members
        read = [self.reads.member(member, evidence) for member in chosen[:-1]] + [cited]
        if evidence.cites_set:  # every run its value rests on is verified, as the cited one is
            for member in read[:-1]:
                for rule, problem, fix in verdicts.run_findings(
                    member.run, self.states[member.run.path], self.policy, _rerun(evidence)
                ):
                    self.report(claim, rule, at, problem, fix)
                if member.problem:
                    self.report(claim, member.rule, at, member.problem, _rerun(evidence))
        if key not in self.pooled:
            self.pooled[key] = _set_found(read, self.states, evidence, self.pools)
        return self.pooled[key]

    def _column_unit(self, made: Made, run: Run, evidence: Evidence) -> tuple[Unit | None, float | None]:
        """The unit the run declares for the cited column, and the factor from it to the claim's unit
        (None: the dimensions differ, reported as unit-mismatch). A column the run declares no unit for
        is taken in the claim's unit, as stated (reported as unit-undeclared, a warning by default)."""
        claim, table = made.claim, table_of(evidence.file)
        column = run.columns.get(table, {}).get(evidence.column)
        if column is None:
            problem = (
                f"unit not declared by the run: {run.name} declares no unit for {evidence.file} column "
                f"{evidence.column}, so its value is taken in {claim.unit or 'no unit'!r} as stated"
            )
            fix = "re-measure with a probe that declares its columns' units (run.timed(..., units={...}))"
            self.report(claim, "unit-undeclared", claim.at("evidence"), problem, fix)
            return None, 1.0
        declared = self.vocabulary.unit(column.unit)
        if not made.unit.known:
            return declared, 1.0  # validate reported the claim's unit; nothing to hold against the column
        if declared.known and declared.dimension == made.unit.dimension:
            return declared, declared.scale / made.unit.scale
        declared_as = f"{run.name} declares column {evidence.column} of {table} in {column.unit!r}"
        if not declared.known:
            problem = f"{declared_as}, a unit the unit table cannot read"
            fix = "add the unit to the project's `units:`, or re-measure with a probe that declares a known unit"
            self.report(claim, "unit-mismatch", claim.at("evidence"), problem, fix)
            return declared, None
        problem = f"unit {claim.unit!r} is {made.unit.describe()}, but {declared_as} ({declared.describe()})"
        fix = f"state the claim in {column.unit!r} or another unit of its dimension, or cite a column in {claim.unit!r}"
        self.report(claim, "unit-mismatch", claim.at("unit"), problem, fix)
        return declared, None

    def _run(self, claim: Claim, evidence: Evidence) -> tuple[Run | None, Cause]:
        """The claim's run when its data can be read (its findings reported either way)."""
        run = self.runs.get(evidence.run)
        if run is None:
            siblings = sorted(path for path in self.runs if path.startswith(evidence.run.rsplit("/", 1)[0] + "/"))
            hint = f" (latest run of that probe: {siblings[-1]})" if siblings else ""
            fix = "point evidence.run at an existing run folder"
            self.report(
                claim, "invalid", claim.at("evidence"), f"evidence run {evidence.run} does not exist{hint}", fix
            )
            return None, "no-run"
        if run.problem:
            self.report(
                claim, "invalid", claim.at("evidence"), f"evidence run {run.path} {run.problem}", _rerun(evidence)
            )
            return None, "run-unusable"
        if claim.testbed and run.testbed and claim.testbed != run.testbed:
            self.report(
                claim,
                "invalid",
                claim.at("testbed"),
                f"testbed {claim.testbed!r} but run {run.name} was measured on {run.testbed!r}",
                f"set `testbed: {run.testbed}` or point at a run from {claim.testbed}",
            )
        if evidence.file not in run.declared_files:
            listed = ", ".join(sorted(run.declared_files)) or "none"
            problem = f"{evidence.file} is not a file of run {run.name} (it has: {listed})"
            self.report(claim, "invalid", claim.at("evidence"), problem, "name one of the run's files in evidence.file")
            return None, "no-file"
        return run, ""

    def _no_cell(self, claim: Claim, run: Run, table: Table | None, cell: Cell) -> None:
        """The finding for a cell that cannot be read, worded from read_cell's cause."""
        evidence = claim.evidence
        assert evidence is not None
        at, shown_where = claim.at("evidence"), _shown_where(evidence)
        if table is None or cell.cause == "unreadable-file":
            problem = table.problem if table else "is not a CSV file"
            self.report(claim, "invalid", at, f"{run.path}/{evidence.file} {problem}", _rerun(evidence))
        elif cell.cause == "no-column":
            problem = f"{evidence.file} has no column {cell.missing!r} (columns: {', '.join(table.columns)})"
            self.report(claim, "invalid", at, problem, "name an existing column")
        elif cell.cause == "many-rows":
            problem = f"{len(cell.rows)} rows of {evidence.file} match where {{{shown_where}}}; it must select one"
            self.report(claim, "invalid", at, problem, "add columns to `where` until one row matches")
        elif cell.cause == "no-row":
            problem = f"no row of {evidence.file} matches where {{{shown_where}}}"
            self.report(claim, "invalid", at, problem, "check the values in `where` against the run's rows")
        else:
            text = table.rows[cell.rows[0]][table.columns.index(evidence.column)]
            problem = f"{evidence.file}, {shown_where}, column {evidence.column}: cell {text!r} is not a number"
            self.report(claim, "invalid", at, problem, "name a numeric column")

    def extrapolated(self, made: Made) -> ClaimVerdict:
        claim = made.claim
        scaled = self._unit_and_testbed(made)
        values, cause = self._inputs(claim)
        if cause:
            return made.verdict(cause=cause)
        if scaled is None:  # its unit is not the formula's dimension (reported): no value to state in it
            self._inputs_of_no_value(claim, values, made.tolerance)
            return made.verdict(cause="formula-error")
        try:
            value = formula.evaluate(claim.formula, values, scaled)
        except formula.FormulaError as error:
            problem = f"formula cannot be evaluated: {error}"
            self.report(claim, "invalid", claim.at("formula"), problem, "check the formula and its inputs' values")
            return made.verdict(cause="formula-error")
        self._unused_inputs(claim, values, self._loosest(made, value), scaled, value)
        carried = {name: self._interval(target) for name, target in claim.inputs}
        found = intervals.through_formula(claim.formula, values, carried, value, scaled)
        exact, unknown = intervals.formula_noise(claim, found, self.verdicts)
        outcome = self.compare(made, value, lambda: _formula_said(made, values, scaled))
        return made.verdict(value=value, interval=found.interval, exact=exact, noise_unknown=unknown, outcome=outcome)

    def _interval(self, claim_id: str) -> ClaimInterval | None:
        found = self.verdicts.get(claim_id)
        return found.interval if found is not None else None

    def _inputs_of_no_value(self, claim: Claim, values: Mapping[str, float], tolerance: Tolerance) -> None:
        """A formula whose result has no value in the claim's unit still has inputs that move it or not."""
        try:
            plain = formula.evaluate(claim.formula, values)
        except formula.FormulaError:
            return
        self._unused_inputs(claim, values, (tolerance.allowed(plain), "the claim's tolerance"), formula.PLAIN, plain)

    def _inputs(self, claim: Claim) -> tuple[dict[str, float], Cause]:
        """The formula's input values (computed where they have one), or the first reason they cannot be used."""
        values: dict[str, float] = {}
        causes: list[Cause] = []
        for name, target_id in claim.inputs:
            target = self.by_id.get(target_id)
            if target is None:
                return {}, "missing-input"  # validate reported the dangling reference
            if target.status == "lead" and claim.status == "asserted":
                problem = f"input {target_id} is a lead; a lead is never a premise"
                fix = f"check {target_id} here (measure it) and make it asserted, or drop the input"
                self.report(claim, "only-borrowed", claim.at("inputs"), problem, fix)
                causes.append("lead-input")
            elif target.retired and not claim.retired:
                problem = f"input {target_id} is {target.status}; an asserted claim cannot rest on a retired one"
                self.report(
                    claim,
                    "invalid",
                    claim.at("inputs"),
                    problem,
                    f"use what retired it ({', '.join(target.retired_by)}) instead",
                )
                causes.append("retired-input")
            if target_id in self.failing:
                rules = ", ".join(sorted(set(self.failing[target_id])))
                fix = f"fix {target_id} first (`ledger check` lists why)"
                self.report(claim, "formula-drifted", claim.at("inputs"), f"input {target_id} is stale ({rules})", fix)
                causes.append("stale-input")
            elif target.value is None:
                self.report(
                    claim,
                    "invalid",
                    claim.at("inputs"),
                    f"input {target_id} has no value",
                    f"give {target_id} a `value:`",
                )
                causes.append("input-without-value")
            else:
                computed = self.verdicts[target_id].value if target_id in self.verdicts else None
                values[name] = computed if computed is not None else target.value  # computed where it has one
        return values, causes[0] if causes else ""

    def _unit_and_testbed(self, made: Made) -> formula.Scales | None:
        """A formula's result is in its inputs' dimension and on their testbed (grounding.py); how its
        numbers are quantities in their units (None: the result cannot be stated in the claim's unit)."""
        claim = made.claim
        inputs = {name: self.by_id[target] for name, target in claim.inputs if target in self.by_id}
        testbeds = {name: self.verdicts[c.id].testbed if c.id in self.verdicts else "" for name, c in inputs.items()}
        given = {name: self.vocabulary.unit(c.unit) for name, c in inputs.items()}
        for problem in (
            grounding.dimension_problem(claim, made.unit, given, self.vocabulary.table),
            grounding.testbed_problem(claim, testbeds),
        ):
            if problem:
                self.report(claim, problem.rule, claim.at(problem.field), problem.problem, problem.fix)
        return grounding.scales(claim, made.unit, given)

    def _loosest(self, made: Made, value: float) -> tuple[float, str]:
        """The largest move of a formula's result that nothing judging it would see, and whose tolerance that is:
        the loosest band among the checks it could agree in (checks.allowance), else the claim's own tolerance."""
        found = [
            (allowed, checked.id)
            for checked, spec in self.judges.get(made.claim.id, ())
            if (allowed := bands.allowance(checked, spec, value, made.unit, self.vocabulary, self.policy)) is not None
        ]
        if found:
            allowed, checked_id = max(found)
            return allowed, f"the tolerance of its check of {checked_id} (±{format_value(allowed, made.unit)})"
        return made.tolerance.allowed(value), "the claim's tolerance"

    def _unused_inputs(
        self,
        claim: Claim,
        values: Mapping[str, float],
        allowed: tuple[float, str],
        scaled: formula.Scales,
        result: float,
    ) -> None:
        """An input claim that does not move the result beyond `allowed` (the amount, and whose tolerance it is)
        is reported once (under all its names), and grounding reads only those that do; a formula that cannot be
        evaluated when an input moves is reported apart. Only an asserted claim is judged: a lead or a retired
        claim is never a premise."""
        if claim.status != "asserted":
            return
        found = grounding.input_use(claim, values, allowed[0], scaled, result)
        problems = [grounding.unused_problem(claim, target, allowed[1]) for target in found.unused]
        problems += [grounding.fragile_problem(claim, *broken) for broken in found.breaks]
        for problem in problems:
            self.report(claim, problem.rule, claim.at(problem.field), problem.problem, problem.fix)
        if found.unused:
            self.premises[claim.id] = tuple(dict.fromkeys(t for _, t in claim.inputs if t not in found.unused))

    def compare(self, made: Made, value: float, said: Said) -> Outcome:
        """The stated value against the computed one; said: (rule, verb, detail, fix) for a finding, the
        last two made only when there is one."""
        claim, tolerance, unit = made.claim, made.tolerance, made.unit
        if claim.value is None:
            rule, verb, detail, fix = said()
            problem = f"no value stated; {verb} {format_value(value, unit)}"
            self.report(claim, rule, claim.where, problem, fix, detail)
            return "unstated"
        max_share = self.policy.max_tolerance.relative
        share = tolerance_excess(tolerance, claim.value, value, max_share)
        if share is not None:
            rule, verb, detail, fix = said()
            stated, found = format_pair(claim.value, value, unit)
            self.report(
                claim,
                "invalid",
                claim.at("tolerance" if claim.tolerance else "value"),
                f"tolerance {allowed_text(tolerance)} allows {share:.0%} of max(|stated|, |computed|) "
                f"(stated {stated}, {verb} {found}); the policy's max_tolerance is {max_share:.0%}",
                "state the value more exactly, or a tolerance the evidence supports",
                detail,
            )
            return "too-loose"
        meant = _meant_unit(claim.value, value, unit, self.vocabulary)
        if meant is not None:
            other, in_other = meant
            self.report(
                claim,
                "unit-mismatch",
                claim.at("unit"),
                f"stated {format_value(claim.value)} is what the evidence computes in {other.text!r} "
                f"({format_value(in_other, other)}), not in {unit.text!r} ({format_value(value, unit)}): "
                f"did you mean {other.text!r}?",
                f"write `unit: {other.text}` if the value was read in {other.text}, or state it in {unit.text} "
                f"({format_value(value, unit)})",
            )
            return "drifted"
        if within(claim.value, value, tolerance):
            return "agrees"
        rule, verb, detail, fix = said()
        stated, found = format_pair(claim.value, value, unit)
        problem = f"stated {stated}, {verb} {found} ({allowed_text(tolerance)} allowed)"
        self.report(claim, rule, claim.at("value"), problem, fix, detail)
        return "drifted"


CLOSER = 4  # the stated value is this many times closer to the evidence read in the other unit than in its own


def _meant_unit(stated: float, value: float, unit: Unit, vocabulary: Vocabulary) -> tuple[Unit, float] | None:
    """(the unit, the evidence's value in it) where the stated value is the evidence's value in the unit with its
    byte prefix swapped (MB/s for MiB/s: 4.9% apart, inside a 5% tolerance) far better than in its own."""
    other_text = units.prefix_swapped(unit.text) if unit.known else ""
    if not other_text or value == 0:
        return None
    other = vocabulary.unit(other_text)  # read at load, beside the claim's own (Vocabulary.read_unit)
    if not other.known or other.dimension != unit.dimension:
        return None
    in_other = units.convert(value, unit, other)
    own, theirs = abs(stated - value) / abs(value), abs(stated - in_other) / abs(in_other)
    return (other, in_other) if theirs * CLOSER < own else None


def _set_found(
    read: list[Member], states: Mapping[str, RunState], evidence: Evidence, pools: replicates.Pools
) -> SetFound | None:
    """A replicate set's members (the claim's cell in each, the cited run last) pooled, its spread shared with
    the set's other cells where they vary alike: where the next run should land and, when the claim cites the
    set, its value and between-run interval (None: fewer than two members read from intact data)."""
    good = replicates.usable(read, states)
    shared = pools.shared([m.run for m in good], evidence) if len(good) > 1 else None
    pooled = replicates.pool_members(good, shared)
    if pooled is None:
        return None
    paths, values = tuple(m.run.path for m in good), tuple(m.value for m in good if m.value is not None)
    cited = evidence.cites_set
    replicas = Replicas(paths, values, pooled, cited, shared)
    if not cited:
        return SetFound(replicas, replicates.prediction(pooled))
    return SetFound(replicas, replicates.prediction(pooled), pooled.value, replicates.confidence(pooled, good))


def _drift_said(
    claim: Claim,
    replicas: Replicas | None,
    run: Run,
    evidence: Evidence,
    read: float,
    declared: Unit | None,
    factor: float,
) -> tuple[str, str, str, str]:
    """A measured claim's drift finding: where its value was read (pooled over its replicates, if so) and,
    when the column's unit is another scale, the value it holds in it (read) before conversion."""
    detail = f"from {run.path}/{evidence.file}, {_shown_where(evidence)}, column {evidence.column}"
    if replicas is not None and replicas.cited:
        detail = f"pooled over {replicas.pooled.runs} replicate runs up to {detail[5:]}"
    if declared is not None and factor != 1:
        detail += f" in {declared.text!r} ({format_value(read, declared)}), converted to {claim.unit!r}"
    return "drifted", "evidence computes", detail, f"check the run, then `ledger accept {claim.id}`"


def _formula_said(made: Made, values: Mapping[str, float], scaled: formula.Scales) -> tuple[str, str, str, str]:
    """A formula's drift finding: its inputs' values, and the fix (_converting_fix's, where it applies)."""
    claim = made.claim
    shown = ", ".join(f"{name}={format_value(v)}" for name, v in values.items())
    fix = _converting_fix(made, values, scaled) or f"check the inputs, then `ledger accept {claim.id}`"
    return "formula-drifted", "formula gives", f"{claim.formula} with {shown}", fix


def undeclared(
    inferred: Mapping[str, Mapping[tuple[str, str], list[str]]], runs: Mapping[str, Run], policy: Policy
) -> list[Finding]:
    """One undeclared-kind finding per run whose cited columns read as exact by inference alone."""
    found = []
    for path, columns in sorted(inferred.items()):
        by_file: dict[str, list[str]] = {}
        for file, column in sorted(columns):
            by_file.setdefault(file, []).append(column)
        read = "; ".join(f"{file} {', '.join(names)}" for file, names in by_file.items())
        claims = len({claim_id for ids in columns.values() for claim_id in ids})
        problem = (
            f"{path} declares no kind (timed or exact) for {read}, which {claims} claim{'s' if claims != 1 else ''} "
            "read: each reads as exact because its row has no raw rounds, no min–max columns and no `rounds`, as a "
            "timed column whose rounds were left out would"
        )
        fix = (
            "measure it with a probe that declares its columns (`run.timed(..., units=...)`, `write_run(columns=...)`: "
            "guide/probes.md), then `ledger refresh --write`; `fail: [undeclared-kind]` once every run declares"
        )
        found.append(
            Finding(runs[path].source, "", "undeclared-kind", problem, fix, severity=policy.severity("undeclared-kind"))
        )
    return found


def _converting_fix(made: Made, values: Mapping[str, float], scaled: formula.Scales) -> str:
    """The fix for a formula whose plain numbers give the stated value while its quantities do not ("" where they
    do not give it either): a formula written to convert units itself (`100 * a / b` in %, `1000 / tok_s` in
    ms/token) drops the factor it writes, named; one that writes none states a value in its inputs' units (a
    fraction under %), which the claim's unit states otherwise."""
    claim = made.claim
    if scaled == formula.PLAIN or claim.value is None:
        return ""
    try:
        plain = formula.evaluate(claim.formula, values)
        computed = formula.evaluate(claim.formula, values, scaled)
    except formula.FormulaError:
        return ""
    if not within(claim.value, plain, made.tolerance) or plain == 0 or computed == 0:
        return ""
    factor = computed / plain  # what the unit conversion multiplies the plain result by
    written = next(
        (n for n in formula.numbers(claim.formula) if n > 0 and any(_near(n, f) for f in (factor, 1 / factor))),
        None,
    )
    said = f"the formula's plain numbers give {format_value(plain)}, the stated value"
    if written is not None:
        return (
            f"{said}: it converts units itself with the factor {format_value(written)}, but a formula is evaluated "
            f"in its inputs' units and its result converted to {claim.unit!r}, so drop that factor from "
            f"`{claim.formula}`"
        )
    other = "as a plain ratio (`unit: '×'`)" if made.unit.dimension == DIMENSIONLESS else "in its inputs' unit"
    return (
        f"{said} in its inputs' units; in {claim.unit!r} that is {format_value(computed, made.unit)}: state the "
        f"value in {claim.unit!r} (`ledger accept {claim.id}` writes {format_value(computed)}), or state the claim "
        f"{other}"
    )


def _near(number: float, factor: float) -> bool:
    """Whether a number written in a formula is the conversion factor (to a part in a million)."""
    return math.isclose(number, factor, rel_tol=1e-6)


def _rerun(evidence: Evidence | None) -> str:
    probe = evidence.run.split("/")[1] if evidence else ""
    return f"rerun `ledger measure {probe}` and point evidence.run at the new run"


def _shown_where(evidence: Evidence) -> str:
    return ", ".join(f"{c}={v}" for c, v in evidence.where) or "no filter"


def _testbed(
    claim: Claim, by_id: Mapping[str, Claim], runs: Mapping[str, Run], known: Mapping[str, ClaimVerdict]
) -> str:
    """Its stated testbed; else a measured claim's run's, an extrapolated claim's inputs' (visited first)."""
    if claim.testbed or claim.kind == "borrowed":
        return claim.testbed
    if claim.kind == "measured":
        run = runs.get(claim.evidence.run) if claim.evidence else None
        return run.testbed if run else ""
    return grounding.derived_testbed(
        known[target].testbed if target in known else "" for _, target in claim.inputs if target in by_id
    )


def table_of(file: str) -> str:
    """The table whose declarations a run's file has: a samples file shares its table's (runs.py)."""
    if file == "samples.csv":
        return "results.csv"
    return file.removesuffix(".samples.csv") + ".csv" if is_samples(file) else file


def _scaled(interval: ClaimInterval | None, factor: float) -> ClaimInterval | None:
    """The interval in the claim's unit (factor: the column's unit to the claim's; positive)."""
    if interval is None or factor == 1:
        return interval
    samples = tuple((index, value * factor) for index, value in interval.samples)
    return attrs.evolve(interval, low=interval.low * factor, high=interval.high * factor, samples=samples)


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
