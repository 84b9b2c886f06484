"""Retirements: retired claims + the checks' verdicts -> unsupported-refutation findings. Pure.

A retired claim names what retired it (`refuted_by`, `superseded_by`), and each claim named must reach a
fresh measured run through asserted claims that are not leads (measured, extrapolated from measured ones,
or borrowed with a check that agrees). A refutation of a figure is judged again on every build: it holds
only while its refuter's interval lies outside the refuted figure's band (bands.py), so a measurement that
agrees with a figure, or a re-measure that moved onto it, never refutes it.
"""

from __future__ import annotations

from collections.abc import Mapping

from ..lang import units
from ..lang.values import allowed_text, format_pair
from ..records import CheckResult, Claim
from . import bands
from .checks import Ledger


def judge(ledger: Ledger, results: Mapping[str, tuple[CheckResult, ...]]) -> None:
    """Every retired claim's retirers, with the checks as checks.evaluate judged them (results)."""
    supported = {claim_id for claim_id, found in results.items() if any(r.supports for r in found)}
    for claim in ledger.by_id.values():
        _refutation(claim, ledger, supported)


def _refutation(claim: Claim, ledger: Ledger, supported: set[str]) -> None:
    """A retirement rests on evidence: every claim named as its retirer reaches a fresh measured run, and a
    refutation holds only while its refuter's interval lies outside the refuted value's band (_refuted)."""
    if not claim.retired:
        return
    field_name = "superseded_by" if claim.status == "superseded" else "refuted_by"
    for target_id in claim.retired_by:
        target = ledger.by_id.get(target_id)
        if target is None:
            continue  # a missing one is invalid already
        if ledger.reaches.get(target_id) or target_id in supported:
            if claim.status == "refuted":
                _refuted(claim, target, ledger)
            continue
        if target.status != "asserted":
            why = f"is {'a lead' if target.status == 'lead' else target.status}"
        elif target_id in ledger.failing:
            why = f"is stale ({', '.join(sorted(set(ledger.failing[target_id])))})"
        elif target.kind == "borrowed":
            why = "is borrowed, and no check here agrees with it"
        else:
            why = "does not reach a fresh measured run"
        ledger.report(
            claim,
            "unsupported-refutation",
            claim.at(field_name),
            f"{claim.status} by {target_id}, which {why}; a retirement must rest on a fresh measured run",
            f"name a claim measured here (or one a measured check agrees with) in `{field_name}`, "
            "or keep the claim as a lead with a note until something here settles it",
        )


def _refuted(claim: Claim, refuter: Claim, ledger: Ledger) -> None:
    """A measurement that agrees with a value does not refute it: the refuter's interval (its value, without one)
    must lie wholly outside the refuted claim's band (its stated value within its check tolerance, or what its
    source states), judged on every build, so a re-measure that moves the refuter across the value is seen. A
    claim with no figure, or one in another dimension than its refuter, is not compared (its words are refuted)."""
    mine, theirs = ledger.verdicts[claim.id].unit, ledger.verdicts[refuter.id].unit
    computed = ledger.verdicts[refuter.id].value
    value = computed if computed is not None else refuter.value
    if value is None or (claim.value is None and not claim.states) or not (mine.known and theirs.known):
        return
    if mine.dimension != theirs.dimension:
        return
    spread = ledger.interval(refuter.id)
    found = units.convert(value, theirs, mine)
    low, high = (units.convert(x, theirs, mine) for x in (spread.low, spread.high)) if spread else (found, found)
    if claim.states:
        band_low, band_high = bands.stated(claim, mine, ledger.vocabulary)
        band = f"what its source states ({claim.states})"
        inside, across = f"inside {band}", f"reaching into {band}"
    else:
        assert claim.value is not None
        tolerance = bands.check_tolerance(claim, ledger.policy)
        allowed = tolerance.allowed(found) + 1e-9 * abs(found)
        band_low, band_high = claim.value - allowed, claim.value + allowed
        band = f"{allowed_text(tolerance)} of its stated {format_pair(claim.value, found, mine)[0]}"
        inside, across = f"within {band}", f"reaching within {band}"
    where = bands.inside(band_low, band_high, low, high)
    if where is False:
        return  # the refutation holds
    given = bands.with_interval(found, spread, theirs, mine)
    ledger.report(
        claim,
        "unsupported-refutation",
        claim.at("refuted_by"),
        f"refuted by {refuter.id}, but {refuter.id} gives {given}, {inside if where else across}: "
        "a measurement that agrees with a claim does not refute it",
        f"if {refuter.id} is right, the claim stands: make it asserted with `checked_by: [{refuter.id}]`; "
        "else name a measurement whose interval lies outside its value",
    )
