"""Checks and grounding: claims + computed values + intervals -> contradicted and only-borrowed findings,
and one CheckResult per `checked_by` entry. Pure.

A check is a comparison (guide/checks.md) with a strength decided here once: *agrees* (the plain
form, the same quantity on the same testbed within the check tolerance, or inside what a borrowed
claim's source `states:`; or `within Nx` up to the policy's max_check_factor, never across 1 for a
ratio), *bounded* (the checked value on one side of the checking value, or a wider factor) or
*direction* (a bound on the checking value alone: a sign, not a number). A check against a band holds
on the checking value's whole interval: one that reaches across an end of the band is *inconclusive*
(noise never widens agreement) and supports nothing. Both claims are in one dimension, compared after
unit conversion. Only an asserted claim whose own lineage reaches a fresh measured run counts as a
check, and only a check that agrees supports a borrowed claim. A bound or range a source states that every
value within max_check_factor of the measurement satisfies could not have failed: it only bounds the value.
The bands themselves are bands.py's; retirements are judged in retirements.py.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import attrs

from ..claims import lineage
from ..claims.vocabulary import Vocabulary
from ..lang import relations, units
from ..lang.relations import BOUNDED, INCONCLUSIVE
from ..lang.values import (
    allowed_text,
    format_pair,
    format_value,
    level_text,
    range_text,
    tolerance_excess,
)
from ..records import CheckResult, CheckSpec, Claim, ClaimInterval, ClaimVerdict, Policy
from . import bands
from .reporter import Reporter


@attrs.frozen(weakref_slot=False)
class Pair:
    """One check being judged: the checked claim and the checking one, the relation, and their units."""

    claim: Claim
    checker: Claim
    relation: relations.Relation
    strength: str
    value: float  # the checker's value (computed where it has one)
    mine: units.Unit  # the checked claim's unit
    theirs: units.Unit  # the checker's


@dataclass
class Ledger:
    """What the checks read: each claim's verdict as the evidence stage made it (value, unit, interval,
    testbed), the relations read at load, and the stage's failing claims."""

    verdicts: Mapping[str, ClaimVerdict]  # claim id -> its verdict (the first claim of an id)
    vocabulary: Vocabulary  # each `expects:` relation, read at load
    premises: Mapping[str, tuple[str, ...]]  # claim id -> the inputs that move its result
    failing: Mapping[str, list[str]]  # claim id -> the stale rules it fails
    policy: Policy
    report: Reporter
    reaches: dict[str, bool] = field(default_factory=dict)
    by_id: Mapping[str, Claim] = field(init=False)

    def __post_init__(self) -> None:
        self.by_id = {claim_id: found.claim for claim_id, found in self.verdicts.items()}

    def interval(self, claim_id: str) -> ClaimInterval | None:
        found = self.verdicts.get(claim_id)
        return found.interval if found is not None else None


def evaluate(ledger: Ledger) -> dict[str, tuple[CheckResult, ...]]:
    """Judge every check, then which claims rest on nothing measured; returns the verdicts (retirements.py
    judges the retirements with them)."""
    by_id = ledger.by_id
    for claim in by_id.values():
        _named_checks(claim, ledger)
    ledger.reaches = _reaching(ledger)  # after every invalid check is known, so order cannot matter
    results: dict[str, tuple[CheckResult, ...]] = {}
    for claim in by_id.values():
        if claim.checks and claim.id not in ledger.failing:
            results[claim.id] = tuple(_judge(claim, spec, ledger) for spec in claim.checks)
    for claim in by_id.values():
        _premises(claim, ledger, results.get(claim.id, ()))
    return results


def _reaching(ledger: Ledger) -> dict[str, bool]:
    """Claim id -> whether its own lineage (inputs that move it, not checks) reaches a fresh measured run."""
    by_id, failing = ledger.by_id, ledger.failing
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
                targets = ledger.premises.get(current, tuple(t for _, t in claim.inputs))
                pending = [t for t in targets if t not in memo and t not in on_path and t in by_id]
                if pending:
                    stack.append(pending[0])
                    on_path.add(pending[0])
                    continue
                memo[current] = any(memo.get(t, False) for t in targets)
            stack.pop()
            on_path.discard(current)
    return memo


def _judge(claim: Claim, spec: CheckSpec, ledger: Ledger) -> CheckResult:
    relation = ledger.vocabulary.relation(spec.expects) if spec.expects else relations.SAME
    if relation is None:  # validate reported it; a check never raises
        return CheckResult(spec.claim_id, spec.expects, False, None, why="cannot be read")
    strength = relation.strength(ledger.policy.max_check_factor)
    checker = ledger.by_id.get(spec.claim_id)
    words = relation.describe()

    def unjudged(why: str, counts: bool = False) -> CheckResult:
        return CheckResult(spec.claim_id, words, counts, None, why=why, strength=strength)

    if checker is None or checker.kind == "borrowed":
        return unjudged("not a claim measured here")
    computed = ledger.verdicts[checker.id].value
    value = computed if computed is not None else checker.value
    if not ledger.reaches.get(checker.id, False):
        return unjudged(checker.status if checker.status != "asserted" else "does not reach a fresh measured run")
    if value is None:
        return unjudged("has no value")
    mine, theirs = ledger.verdicts[claim.id].unit, ledger.verdicts[checker.id].unit
    if not mine.known or not theirs.known:
        return unjudged("unknown unit")  # validate said which
    mine_on, theirs_on = ledger.verdicts[claim.id].testbed, ledger.verdicts[checker.id].testbed
    if relation.op == "same" and mine_on and theirs_on and mine_on != theirs_on:
        ledger.report(
            claim,
            "invalid",
            claim.at("checked_by"),
            f"checked_by {checker.id} (testbed {theirs_on}) in the plain form, but this claim is on "
            f"{mine_on}: a check across testbeds must state the relation",
            f'write `{{claim: {checker.id}, expects: "..."}}` with the relation the run supports '
            '(e.g. "within 1.1x", "above", "> 1"; guide/checks.md), or remove the check',
        )
        return unjudged("across testbeds without a relation")
    if mine.dimension != theirs.dimension:
        form = "in the plain form " if relation.op == "same" else f"with `expects: {relation.text}` "
        ledger.report(
            claim,
            "invalid",
            claim.at("checked_by"),
            f"checked_by {checker.id} {form}compares {checker.id}'s value, {theirs.described()}, with this claim's, "
            f"{mine.described()}: its value cannot enter",
            "name a check of the same quantity (units convert: KB and B compare); if nothing here measures it, "
            "remove the check and mark the claim `status: lead` with a note on what the check showed",
        )
        return unjudged("different dimensions")
    if relation.against_claim:
        if claim.value is None and not (relation.op == "same" and claim.states):
            ledger.report(
                claim,
                "invalid",
                claim.at("checked_by"),
                f"check by {checker.id} compares with this claim's value, which is not stated",
                "add `value:`",
            )
            return unjudged("no value to compare")
        return _against_claim(Pair(claim, checker, relation, strength, value, mine, theirs), ledger)
    return _direction(Pair(claim, checker, relation, strength, value, mine, theirs), ledger)


def _direction(pair: Pair, ledger: Ledger) -> CheckResult:
    """A bound on the check's own value: the checked claim's value never enters (a sign, not a number)."""
    bound_unit = pair.relation.unit or pair.theirs  # read at load, with the relation
    if bound_unit.dimension != pair.theirs.dimension:
        ledger.report(
            pair.claim,
            "invalid",
            pair.claim.at("checked_by"),
            f"check by {pair.checker.id}: `expects: {pair.relation.text}` states {bound_unit.described()}, "
            f"{pair.checker.id} {pair.theirs.described()}",
            f"write the bound in {pair.checker.unit or 'the check’s unit'}",
        )
        return CheckResult(
            pair.checker.id, pair.relation.describe(), False, None, why="different dimensions", strength=pair.strength
        )
    found = units.convert(pair.value, pair.theirs, bound_unit)
    holds = pair.relation.holds(found, bound=pair.relation.bound)
    shown = Shown(pair.claim.value, "", pair.mine, found, ledger.interval(pair.checker.id), pair.theirs, bound_unit)
    if not holds and not pair.claim.retired:
        ledger.report(
            pair.claim,
            "contradicted",
            pair.claim.at("checked_by"),
            f"check by {pair.checker.id} expects {pair.relation.text.strip()}: {pair.checker.id} gives "
            f"{format_pair(found, pair.relation.bound, bound_unit)[0]}",  # never '1×' for 0.99999 against > 1
            _fix(pair.checker),
        )
    return CheckResult(pair.checker.id, pair.relation.describe(), True, holds, strength=pair.strength, texts=shown)


def _against_claim(pair: Pair, ledger: Ledger) -> CheckResult:
    """Agrees, bounded or inconclusive: the checked claim's value (or what its source states) and the
    check's, in the claim's unit. An agreement holds on the checker's whole interval (bands.inside)."""
    spread = ledger.interval(pair.checker.id)
    found = units.convert(pair.value, pair.theirs, pair.mine)
    low, high = (
        (units.convert(x, pair.theirs, pair.mine) for x in (spread.low, spread.high)) if spread else (found, found)
    )
    claimed = pair.claim.value
    band = _band(pair, found, ledger)
    if isinstance(band, CheckResult):
        return band  # a tolerance too wide (reported)
    strength, alone = pair.strength, False
    if band is not None:
        holds = bands.inside(band.low, band.high, low, high)
        words, expected = band.words, band.words + band.side
        if band.loose and holds:
            words, strength = words + band.loose, BOUNDED
        if claimed is not None and pair.claim.states:  # its figure is shown only where it agrees on its own
            allowed = bands.check_tolerance(pair.claim, ledger.policy).allowed(found) + 1e-9 * abs(found)
            alone = bands.inside(claimed - allowed, claimed + allowed, low, high) is True
    else:
        assert claimed is not None  # _judge reports a check against an unstated value instead
        holds = pair.relation.holds(found, claimed)
        words = expected = pair.relation.describe()
    figure = claimed if alone or not pair.claim.states else None  # a bound is shown as the bound (wording.stated)
    shown = Shown(figure, pair.claim.states, pair.mine, found, spread, pair.theirs, pair.mine)
    if holds is None:
        assert spread is not None and band is not None  # a point is inside its band or outside it
        why = _inconclusive(spread, low, high, band, pair.mine)
        return CheckResult(pair.checker.id, words, True, None, why=why, strength=INCONCLUSIVE, texts=shown)
    result = CheckResult(pair.checker.id, words, True, holds, strength=strength, texts=shown, value_agrees=alone)
    if not holds and not pair.claim.retired:
        if figure is not None:
            stated, given = format_pair(figure, found, pair.mine)  # values that differ never read alike
        else:
            stated, given = pair.claim.states, format_value(found, pair.mine)
        given = bands.with_interval(found, spread, pair.theirs, pair.mine, given)
        ledger.report(
            pair.claim,
            "contradicted",
            pair.claim.at("checked_by"),
            f"stated {stated}, but {pair.checker.id} gives {given} (expected: {expected})",
            _fix(pair.checker),
        )
    return result


@attrs.frozen(weakref_slot=False)
class Band:
    """The values of the checker that agree with the checked claim, in its unit (ends included)."""

    low: float
    high: float
    words: str  # the relation in words: "the same quantity (within 10%)"
    limit: str  # what an inconclusive interval is wider than or reaches past: "the 10% tolerance"
    one: float | None = None  # a ratio's 1×, in the claim's unit, where the band stops at it
    side: str = ""  # which side of 1× it keeps, said where a value outside it is reported: ", above 1×"
    loose: str = ""  # why what a source states only bounds the value: every value near the check's lies in it


def _band(pair: Pair, found: float, ledger: Ledger) -> Band | CheckResult | None:
    """The band a check's value must lie in: the stated value ± the check tolerance, what the source
    states (`states:`, `range:`), or `within Nx` of the value on its side of 1 for a ratio; None for a
    relation judged on the checker's value alone (above, below)."""
    claim, op = pair.claim, pair.relation.op
    if op == "same" and claim.states:
        low, high = bands.stated(claim, pair.mine, ledger.vocabulary)
        words = f"what its source states ({claim.states})"
        factor = ledger.policy.max_check_factor
        loose = ""
        if bands.near(found, factor, low, high):  # it constrains nothing the check could give: a bound, never agreement
            loose = f": too loose, every value within {_number(factor)}× of {pair.checker.id} satisfies it"
        return Band(low, high, words, words, loose=loose)  # reaching past it is inconclusive against the same words
    claimed = claim.value
    assert claimed is not None  # _judge reports a check against an unstated value instead
    if op == "same":
        tolerance = bands.check_tolerance(claim, ledger.policy)
        max_share = ledger.policy.max_tolerance.relative
        share = tolerance_excess(tolerance, claimed, found, max_share)
        if share is not None:
            ledger.report(
                claim,
                "invalid",
                claim.at("tolerance"),
                f"tolerance {tolerance.text} allows {share:.0%} of max(|stated|, |{pair.checker.id}|); "
                f"the policy's max_tolerance is {max_share:.0%}",
                "state the tolerance the source supports (a percentage is safest)",
            )
            return CheckResult(
                pair.checker.id, pair.relation.describe(), True, None, why="tolerance too wide", strength=pair.strength
            )
        allowed = tolerance.allowed(found) + 1e-9 * abs(found)
        text = allowed_text(tolerance)
        limit = f"the {text} tolerance"
        return Band(claimed - allowed, claimed + allowed, f"the same quantity (within {text})", limit)
    if op != "within" or claimed <= 0:
        return None  # within of a value at or below 0 is judged as the relation says (equal values only)
    factor = pair.relation.bound * (1 + 1e-12)
    low, high = claimed / factor, claimed * factor
    one, side = None, ""
    if pair.mine.dimension == units.DIMENSIONLESS and pair.mine.scale > 0:  # a ratio: never across 1
        one = 1 / pair.mine.scale  # 1× in the claim's unit (100 in %)
        if claimed > one:
            low, side = max(low, math.nextafter(one, math.inf)), ", above 1×"
        elif claimed < one:
            high, side = min(high, math.nextafter(one, -math.inf)), ", below 1×"
        else:
            one = None  # a stated 1× has no side
    return Band(low, high, pair.relation.describe(), f"a factor of {_number(pair.relation.bound)}", one, side)


def _inconclusive(spread: ClaimInterval, low: float, high: float, band: Band, unit: units.Unit) -> str:
    """Why a check cannot tell: 'the measurement's 99.6% interval 24.5–79.1× is wider than the 10%
    tolerance: more rounds, or a looser stated tolerance'."""
    level = level_text(spread.level)
    said = f"the measurement's {level + ' ' if level else ''}interval {range_text(low, high, unit)}"
    if band.one is not None and low <= band.one <= high:
        return f"{said} spans 1×: it does not say which way (more rounds)"
    if high - low > band.high - band.low:
        return f"{said} is wider than {band.limit}: more rounds, or a looser stated tolerance"
    return f"{said} reaches past {band.limit}: more rounds, or a looser stated tolerance"


def _number(value: float) -> str:
    return f"{value:g}"


@attrs.frozen(weakref_slot=False)
class Shown:
    """A judged check's two texts (CheckResult.claimed, .found), made when a page reads them: every check of
    every claim is judged, few are shown. The checked claim's value (what its source states, without one) in
    its unit; the check's value in `target`, with its interval (in the checker's unit, `source`) converted."""

    claimed: float | None
    states: str
    mine: units.Unit
    found: float
    spread: ClaimInterval | None
    source: units.Unit
    target: units.Unit

    def __call__(self) -> tuple[str, str]:
        claimed = format_value(self.claimed, self.mine) if self.claimed is not None else self.states
        return claimed, bands.with_interval(self.found, self.spread, self.source, self.target)


def _fix(checker: Claim) -> str:
    return (
        f"retire it (`status: refuted`, `refuted_by: [{checker.id}]`), or correct the value "
        f"or the stated relation if the check was misread"
    )


def _named_checks(claim: Claim, ledger: Ledger) -> None:
    """A check must be measured or extrapolated here, never borrowed."""
    for target_id in claim.checked_by:
        target = ledger.by_id.get(target_id)
        if target is not None and target.kind == "borrowed":
            ledger.report(
                claim,
                "invalid",
                claim.at("checked_by"),
                f"checked_by names {target_id}, a borrowed claim; a check must be measured or extrapolated here",
                "name a claim measured here, or extrapolated from one",
            )


def _premises(claim: Claim, ledger: Ledger, results: tuple[CheckResult, ...]) -> None:
    """Only borrowed: an asserted claim must reach a fresh measured run, itself or through a check that agrees."""
    by_id, failing, reaches = ledger.by_id, ledger.failing, ledger.reaches
    if claim.status != "asserted" or claim.kind == "measured" or claim.id in failing:
        return
    if reaches.get(claim.id) or any(r.supports for r in results):
        return
    if any(r.counts and r.holds is False for r in results):
        return  # contradicted already says what is wrong
    problem = (
        "borrowed, and no check here agrees with its value"
        if claim.kind == "borrowed"
        else "rests only on borrowed claims, and no check here agrees with its value"
    )
    reasons = []
    for result in results:
        if result.counts and result.holds and not result.supports:
            what = "bounds it" if result.strength == "bounded" else "gives a sign"
            reasons.append(f"{result.claim_id} only {what} ({result.relation})")
        elif result.counts and result.strength == INCONCLUSIVE:
            reasons.append(f"{result.claim_id} is inconclusive: {result.why}")
    for check_id in claim.checked_by:
        if check_id in failing:
            reasons.append(f"{check_id} is stale ({', '.join(sorted(set(failing[check_id])))})")
        elif check_id in by_id and not reaches.get(check_id):
            reasons.append(f"{check_id} does not reach a measured run")
    if reasons:
        problem += ": its check " + "; ".join(reasons)
    stale = [check_id for check_id in claim.checked_by if check_id in failing]
    unsure = [result.claim_id for result in results if result.counts and result.strength == INCONCLUSIVE]
    fix = _remeasure(stale, ledger) or (_more_rounds(unsure, ledger) if unsure else NO_CHECK_FIX)
    ledger.report(claim, "only-borrowed", claim.where, problem, fix)


NO_CHECK_FIX = (
    "add `checked_by:` naming a claim measured here (or extrapolated from one) that agrees with it "
    "(the plain form, or `within Nx`), or mark it `status: lead` with a note if nothing here could"
)
REMEASURED = frozenset({"probe-changed", "too-old", "tampered", "rewritten"})  # rules a new run fixes


def _remeasure(stale: list[str], ledger: Ledger) -> str:
    """The fix when the check exists but is stale: re-measure it (naming the probes), or fix it first."""
    if not stale:
        return ""
    probes = _probes(stale, ledger, lambda measured: bool(REMEASURED & set(ledger.failing.get(measured.id, ()))))
    if not probes:
        return f"fix {', '.join(stale)} first (`ledger check` lists why)"
    return f"re-measure {', '.join(stale)}: `ledger measure {' '.join(probes)}`, then `ledger refresh --write`"


def _probes(check_ids: list[str], ledger: Ledger, keep: Callable[[Claim], bool]) -> list[str]:
    """The probes of the measured claims each check rests on (itself and its inputs' closure) that `keep` takes."""
    by_id = ledger.by_id
    return sorted(
        {
            measured.evidence.run.rsplit("/", 2)[-2]
            for check_id in check_ids
            for measured in (by_id[i] for i in (check_id, *lineage.input_closure(check_id, by_id)) if i in by_id)
            if measured.evidence and keep(measured)
        }
    )


def _more_rounds(unsure: list[str], ledger: Ledger) -> str:
    """The fix when every check that could agree is inconclusive: a narrower interval, or what the source states."""
    probes = _probes(unsure, ledger, lambda measured: True)
    again = f" (`ledger measure {' '.join(probes)}`, or cite its replicates)" if probes else ""
    return (
        f"narrow {', '.join(unsure)}'s interval with more rounds{again}, or state the tolerance (or the "
        "`states:` bound or `range:`) its source supports"
    )
