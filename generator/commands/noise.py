"""How a move between two runs reads against their noise: one verdict for refresh and diff. Pure.

Both `ledger refresh` and `ledger diff` judge a move with the same test (stats.changed, the gate's
statistics): an exact Mann–Whitney U test on the two runs' raw rounds where their sizes allow
p < 0.002, otherwise whether the two intervals are disjoint — and only a move beyond the claim's
tolerance counts. The intervals and tolerances are the gate's (Report.evaluations), decided once.
"""

from __future__ import annotations

import graphlib
from collections.abc import Mapping
from dataclasses import dataclass

from ..lang import stats
from ..lang.values import format_value, range_text, within
from ..records import Claim, ClaimInterval, Report, Run
from ..series.stage import defining  # one definition of "the same measurement" (NOT_DEFINING): refresh, diff, series


def differences(old: Run, new: Run) -> list[str]:
    """'profile quick ≠ default' for each defining parameter that differs (new first)."""
    before, after = defining(old.parameters), defining(new.parameters)
    return [
        f"{key} {_short(after.get(key, '(none)'))} ≠ {_short(before.get(key, '(none)'))}"
        for key in sorted(before.keys() | after.keys())
        if before.get(key) != after.get(key)
    ]


def _short(value: object) -> str:
    shown = str(value)
    return shown if len(shown) <= 40 else shown[:37] + "..."


@dataclass(frozen=True, slots=True)
class Noise:
    """The verdict on one move: beyond noise (True), within noise (False), or unknown (None)."""

    beyond: bool | None
    words: str  # "beyond noise (Mann–Whitney p = 0.0004; 9 → 9 rounds)", "within noise (...)", ...


def estimate(value: float, interval: ClaimInterval | None) -> stats.Estimate:
    """One run's view of a quantity for stats.changed: its value, raw rounds and interval."""
    if interval is None:
        return stats.Estimate(value)
    return stats.Estimate(value, tuple(v for _, v in interval.samples), interval.low, interval.high)


def verdict_of(
    old: float, old_interval: ClaimInterval | None, new: float, new_interval: ClaimInterval | None, allowed: float
) -> Noise:
    """Whether a move from old to new is beyond noise and beyond `allowed` (the claim's tolerance)."""
    if old == new:
        return Noise(False, "unchanged")
    change = stats.changed(estimate(old, old_interval), estimate(new, new_interval), allowed)
    if change.changed is None:
        return Noise(None, "noise unknown (no raw rounds or interval in either run)")
    if change.test == "Mann–Whitney U":
        assert old_interval is not None and new_interval is not None and change.p is not None
        how = f"Mann–Whitney p = {change.p:.2g}; {len(old_interval.samples)} → {len(new_interval.samples)} rounds"
    else:
        how = f"intervals {_range(old, old_interval)} → {_range(new, new_interval)}"
    if change.significant and not change.beyond_tolerance:
        return Noise(False, f"within tolerance ({how})")
    return Noise(change.changed, f"{'beyond' if change.changed else 'within'} noise ({how})")


def inherited(moved: Mapping[str, Noise], inputs: list[str]) -> Noise:
    """A dependent's verdict from its inputs that moved: beyond when any is, within when all are."""
    verdicts = [moved[i] for i in inputs if i in moved]
    names = ", ".join(i for i in inputs if i in moved)
    if any(v.beyond for v in verdicts):
        return Noise(True, f"beyond noise (follows {names})")
    if verdicts and all(v.beyond is False for v in verdicts):
        return Noise(False, f"within noise (follows {names})")
    return Noise(None, f"noise unknown (follows {names})")


def _range(value: float, interval: ClaimInterval | None) -> str:
    return format_value(value) if interval is None else range_text(interval.low, interval.high)


def review(
    old_by_id: Mapping[str, Claim], new_by_id: Mapping[str, Claim], base: Report, head: Report
) -> dict[str, Noise]:
    """Head claim id -> the noise verdict on its stated value's move from base (ids are head ids).

    A measured claim is judged when its evidence run changed: its two runs' raw rounds (or intervals).
    A claim whose stated value is unchanged, or moved within its tolerance, is within noise. An
    extrapolated claim with the same formula and inputs inherits its inputs' verdicts. Anything else
    (a new claim, a value edited over the same run, a new formula) is unknown, so it stays flagged."""
    found: dict[str, Noise] = {}
    graph = {claim_id: {t for _, t in claim.inputs if t in new_by_id} for claim_id, claim in new_by_id.items()}
    try:
        order = list(graphlib.TopologicalSorter(graph).static_order())  # inputs first, without recursion
    except graphlib.CycleError:
        order = list(new_by_id)  # the gate reports the cycle; inputs not yet judged read as unknown
    for claim_id in order:
        old, new = old_by_id.get(claim_id), new_by_id[claim_id]
        verdict = Noise(None, "noise unknown")
        if old is None or old.value is None or new.value is None:
            pass
        elif old.value == new.value:
            verdict = Noise(False, "unchanged")
        elif within(old.value, new.value, base.verdicts[old.id].tolerance):  # the base's rule, as diff's
            verdict = Noise(False, "within tolerance")
        elif new.kind == "measured" and old.evidence and new.evidence and old.evidence.run != new.evidence.run:
            allowed = base.verdicts[old.id].tolerance.allowed(old.value)
            before, after = base.verdicts[old.id].interval, head.verdicts[new.id].interval
            verdict = verdict_of(old.value, before, new.value, after, allowed)
        elif new.kind == "extrapolated" and (old.formula, old.inputs) == (new.formula, new.inputs):
            # Only inputs that moved explain a move; with none, the stated value was edited: unknown.
            moved = {t: found.get(t, Noise(None, "")) for _, t in new.inputs}
            moved = {t: v for t, v in moved.items() if v.words != "unchanged"}
            verdict = inherited(moved, list(moved)) if moved else verdict
        found[claim_id] = verdict
    return found
