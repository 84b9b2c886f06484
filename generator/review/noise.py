"""How a move between two runs reads against their noise: one verdict for refresh and diff. Pure.

Both `ledger refresh` and `ledger diff` judge a move the same way. When the cited run has replicates (its
replicate set up to it holds two runs or more: judging/replicates.py), the new run (or the mean of the new
runs of a set) is judged against the set's between-run prediction interval: inside it, *re-measured,
within noise*. Otherwise with the gate's statistics (stats.changed): an exact Mann–Whitney U test on the
two runs' raw rounds where their sizes allow p < 0.002, else whether the two intervals are disjoint.
Either way only a move beyond the claim's tolerance counts, and a run on other hardware (another CPU
model on one testbed name) is named as another machine, never judged as a re-measure. The intervals and
tolerances are the gate's (Report.verdicts), decided once.
"""

from __future__ import annotations

import graphlib
import statistics
from collections.abc import Mapping
from dataclasses import dataclass

from ..judging import replicates
from ..judging.replicates import defining  # "the same measurement" (NOT_DEFINING): refresh, diff, series
from ..lang import between, stats
from ..lang.between import RunValue
from ..lang.units import Unit
from ..lang.values import counted, format_value, level_text, range_text, within
from ..records import Claim, ClaimInterval, ClaimVerdict, Replicas, Report, Run


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
        how = f"Mann–Whitney p = {change.p:.2g}; {len(old_interval.samples)} → {counted(len(new_interval.samples), 'round')}"
    else:
        how = f"intervals {_range(old, old_interval)} → {_range(new, new_interval)}"
    if change.significant and not change.beyond_tolerance:
        return Noise(False, f"within tolerance ({how})")
    return Noise(change.changed, f"{'beyond' if change.changed else 'within'} noise ({how})")


def against_set(
    replicas: Replicas, new: float, allowed: float, unit: Unit | None, new_runs: int = 1, own: RunValue | None = None
) -> Noise:
    """A new value (one new run's, or the mean of new_runs new runs) judged against the prediction interval
    of the cited run's replicate set: inside it, *re-measured, within noise*; outside and beyond the
    claim's tolerance (`allowed`, from the set's pooled value), beyond noise."""
    pooled = replicas.pooled
    low, high = between.prediction(pooled, new_runs, own)
    runs = f"{new_runs} new runs' mean" if new_runs > 1 else "the new run"
    how = (
        f"{runs} against the {level_text(pooled.level)} prediction interval {range_text(low, high, unit)} "
        f"of {pooled.runs} replicate runs"
    )
    if between.inside(pooled, new, new_runs, own):
        return Noise(False, f"re-measured, within noise ({how})")
    if abs(new - pooled.value) <= allowed:
        return Noise(False, f"within tolerance ({how})")
    return Noise(True, f"beyond noise ({how})")


def another_machine(changes: list[str]) -> Noise:
    """A run on other hardware than the cited one: never a re-measure of it, so its noise says nothing."""
    return Noise(None, f"another machine ({'; '.join(changes)}): not a re-measure")


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


def remeasured(
    before: ClaimVerdict, after: ClaimVerdict, base_runs: Mapping[str, Run], head_runs: Mapping[str, Run]
) -> Noise:
    """A measured claim whose evidence changed between two revisions: another machine, a re-measure judged
    against the base's replicate set (its prediction interval) when it has one, else the two runs' rounds."""
    old, new = before.claim, after.claim
    assert old.evidence is not None and new.evidence is not None and old.value is not None and new.value is not None
    first, last = base_runs.get(old.evidence.run), head_runs.get(new.evidence.run)
    changes = replicates.machine_changes(first, last) if first is not None and last is not None else []
    if changes:
        return another_machine(changes)
    allowed = before.tolerance.allowed(old.value)
    replicas = before.replicas
    if replicas is None:
        return verdict_of(old.value, before.interval, new.value, after.interval, allowed)
    held = set(replicas.runs)
    if after.replicas is not None and after.replicas.cited:
        fresh = [v for run, v in zip(after.replicas.runs, after.replicas.values, strict=True) if run not in held]
    else:
        fresh = [new.value] if new.evidence.run not in held else []
    if not fresh:
        return verdict_of(old.value, before.interval, new.value, after.interval, allowed)
    if replicas.pooled.log and min(fresh) <= 0:
        return Noise(True, "beyond noise (a value at or below 0 where its replicates were all above)")
    mean = replicas.pooled.unscaled(statistics.fmean(replicas.pooled.scaled(value) for value in fresh))
    interval = after.interval
    own = None
    if len(fresh) == 1 and interval is not None and interval.runs <= 1:
        own = RunValue(new.value, interval.low, interval.high, interval.level)
    return against_set(replicas, mean, allowed, after.unit, len(fresh), own)


def review(
    old_by_id: Mapping[str, Claim], new_by_id: Mapping[str, Claim], base: Report, head: Report
) -> dict[str, Noise]:
    """Head claim id -> the noise verdict on its stated value's move from base (ids are head ids).

    A measured claim is judged when its evidence run changed: its two runs' raw rounds (or intervals).
    A claim whose stated value is unchanged, or moved within its tolerance, is within noise. An
    extrapolated claim with the same formula and inputs inherits its inputs' verdicts. Anything else
    (a new claim, a value edited over the same run, a new formula) is unknown, so it stays flagged."""
    found: dict[str, Noise] = {}
    inheriting = []  # extrapolated claims whose move only their inputs' moves explain: judged after them
    for claim_id, new in new_by_id.items():
        old = old_by_id.get(claim_id)
        verdict = Noise(None, "noise unknown")
        if old is None or old.value is None or new.value is None:
            pass
        elif old.value == new.value:
            verdict = Noise(False, "unchanged")
        elif within(old.value, new.value, base.verdicts[old.id].tolerance):  # the base's rule, as diff's
            verdict = Noise(False, "within tolerance")
        elif new.kind == "measured" and old.evidence and new.evidence and old.evidence != new.evidence:
            verdict = remeasured(base.verdicts[old.id], head.verdicts[new.id], base.runs, head.runs)
        elif new.kind == "extrapolated" and (old.formula, old.inputs) == (new.formula, new.inputs):
            inheriting.append(claim_id)
        found[claim_id] = verdict
    graph = {claim_id: {t for _, t in new_by_id[claim_id].inputs if t in new_by_id} for claim_id in inheriting}
    try:
        order = list(graphlib.TopologicalSorter(graph).static_order())  # inputs first, without recursion
    except graphlib.CycleError:
        order = inheriting  # the gate reports the cycle; inputs not yet judged read as unknown
    for claim_id in (claim_id for claim_id in order if claim_id in graph):
        # Only inputs that moved explain a move; with none, the stated value was edited: unknown.
        moved = {t: found.get(t, Noise(None, "")) for _, t in new_by_id[claim_id].inputs}
        moved = {t: v for t, v in moved.items() if v.words != "unchanged"}
        if moved:
            found[claim_id] = inherited(moved, list(moved))
    return found
