"""Claims measured until settled: a claim's verdict and the runs of its probe -> its replicate set's values
and the questions its interval must decide; each look (lang/sequential.py) in words. Pure.

A claim's set is the replicate set (replicates.py) of the newest run of its cited run's measurement (probe,
testbed, defining parameters, environment) that the gate trusts (intact, today's code), from its first run to
that one: `--until-settled` adds runs to it, measured with the cited run's profile unless told otherwise.
Its questions are the claim's tolerance band around the stated value and, when it has one, its `asserts:`
bound; the values are read as the gate reads a cited set (the claim's cell in each run, with its within-run
interval) and converted to the claim's unit.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ..lang import between, relations, units
from ..lang.sequential import FIRST_LOOK, Look, Question
from ..lang.values import format_value, level_text, range_text, within
from ..records import Claim, ClaimVerdict, Evidence, LedgerError, Policy, Run, RunState
from . import intervals, replicates

NEXT = "`ledger refresh --write` moves each claim to its newest run; `replicates: all` under its evidence cites the set"


@dataclass(frozen=True, slots=True)
class Target:
    """A claim to settle: what its set is made of and what its interval must decide."""

    claim: Claim
    evidence: Evidence
    probe: str  # the probe whose replicate runs it needs
    testbed: str  # its cited run's
    profile: str  # its cited run's `profile` parameter ("default" when it has none)
    measurement: tuple[str, str, str, str]  # what its replicates share but their code (replicates.measurement)
    factor: float  # from the column's unit to the claim's
    verdict: ClaimVerdict
    questions: tuple[Question, ...]


def target(verdict: ClaimVerdict, runs: Mapping[str, Run], policy: Policy) -> Target:
    """The claim as a target, or LedgerError saying why it cannot be settled."""
    claim, evidence = verdict.claim, verdict.claim.evidence
    if claim.kind != "measured" or evidence is None:
        raise LedgerError(
            f"{claim.id} is {claim.kind}: --until-settled adds runs to measured claims; name the measured claims "
            "it rests on (`ledger show " + claim.id + "` lists them)"
        )
    if verdict.exact or claim.value is None:
        why = "exact (its value is its own interval)" if verdict.exact else "without a stated value"
        raise LedgerError(f"{claim.id} is {why}: there is nothing for more runs to settle")
    cited = runs.get(evidence.run)
    if cited is None or cited.problem:
        raise LedgerError(f"{claim.id}: its run {evidence.run} cannot be read; `ledger check` says why")
    factor = units.convert(1.0, verdict.run_unit, verdict.unit) if verdict.run_unit is not None else 1.0
    profile = cited.parameters.get("profile")
    return Target(
        claim,
        evidence,
        cited.probe_name,
        cited.testbed,
        profile if isinstance(profile, str) and profile else "default",
        replicates.measurement(cited),
        factor,
        verdict,
        _questions(verdict, policy),
    )


def _questions(verdict: ClaimVerdict, policy: Policy) -> tuple[Question, ...]:
    """The tolerance band around the stated value, and the `asserts:` bound when the claim has one."""
    claim, mine = verdict.claim, verdict.unit
    stated, tolerance = claim.value, verdict.tolerance
    assert stated is not None  # target() refuses a claim without a value
    found = [Question("tolerance", lambda value: within(stated, value, tolerance), stated)]
    if claim.asserts:
        relation = relations.parse(claim.asserts, policy.units, "asserts")
        theirs = relation.unit or mine
        witness = units.convert(relation.bound, theirs, mine) if relation.op == "between" else None
        found.append(Question("asserts", lambda value: relation.holds(units.convert(value, mine, theirs)), witness))
    return tuple(found)


def members(found: Target, runs: Mapping[str, Run], states: Mapping[str, RunState]) -> list[Run]:
    """The claim's set now: the replicates, up to it, of the newest trusted run of its cited run's measurement."""
    trusted = [
        run
        for run in runs.values()
        if run.probe_name == found.probe
        and run.started is not None
        and states.get(run.path, RunState(manifest_problem="unknown")).trusted
        and replicates.measurement(run) == found.measurement
    ]
    if not trusted:
        return []
    newest = max(trusted, key=lambda run: (run.started, run.path))
    return [run for run in replicates.Sets(runs).upto(newest) if states[run.path].trusted]


def values(found: Target, members: Sequence[Run]) -> list[between.RunValue]:
    """Each run's value of the claim's cell with its within-run interval, in the claim's unit (a run whose
    cell cannot be read is left out: the gate names it when a claim cites it)."""
    index = intervals.RowIndex()
    read = [replicates.read_member(run, found.evidence, index) for run in members]
    scaled = []
    for member in read:
        if member.problem or member.value is None:
            continue
        value = replicates.run_value(member)
        ends = [None if end is None else end * found.factor for end in (value.low, value.high)]
        scaled.append(between.RunValue(value.value * found.factor, ends[0], ends[1], value.level))
    return scaled


def detectable(pooled: between.Pooled) -> float | None:
    """The change between runs the gate's prediction interval finds nine times in ten with this many runs,
    at the set's run-to-run variation (between.detectable_change); None off the log scale."""
    if not pooled.log:
        return None
    return between.detectable_change(pooled.runs, math.sqrt(math.expm1(pooled.between**2)))


def said(found: Target, seen: Look, level: float) -> str:
    """One claim's look in words: 'cpu-x: 5 replicate runs, 99.9% interval 1.01–1.06 GB/s (99% over 9
    looks): tolerance inside, asserts open'."""
    claim, unit = found.claim, found.verdict.unit
    head = f"{claim.id}: {seen.runs} replicate run{'s' if seen.runs != 1 else ''}"
    if seen.pooled is None:
        return f"{head}, no interval yet (one is looked at from {FIRST_LOOK} runs)"
    pooled = seen.pooled
    decisions = ", ".join(f"{name} {_decision_words(name, decision, found)}" for name, decision in seen.decisions)
    change = detectable(pooled)
    shown = f"{change:.2%}" if change is not None and change < 0.01 else f"{change:.0%}"
    detect = f"; a change between runs of {shown} is detectable" if change is not None else ""
    return (
        f"{head}, {level_text(seen.level)} interval {range_text(pooled.low, pooled.high, unit)} "
        f"({level_text(level)} over every look){detect}: {decisions}"
    )


def _decision_words(name: str, decision: str, found: Target) -> str:
    claim, tolerance = found.claim, found.verdict.tolerance
    if name == "tolerance":
        band = tolerance.text if tolerance.text != "precision" else f"±{tolerance.absolute:g}"
        stated = format_value(claim.value if claim.value is not None else 0.0, found.verdict.unit)
        return {
            "inside": f"inside {band} of the stated {stated}",
            "outside": f"outside {band} of the stated {stated} (`ledger accept {claim.id}` after review)",
            "open": f"open (it reaches past {band} of the stated {stated})",
        }[decision]
    return {"inside": f"{claim.asserts} holds", "outside": f"{claim.asserts} fails", "open": f"{claim.asserts} open"}[
        decision
    ]
