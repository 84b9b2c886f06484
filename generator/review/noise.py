"""How a move between two runs reads against their noise: one verdict for refresh and diff. Pure.

Both `ledger refresh` and `ledger diff` judge a move with lang/moves.py, as the series stage does for `ledger
history` and `ledger check`. When the cited run has replicates (its replicate set up to it holds two runs or more:
judging/replicates.py), the new run (or the mean of the new runs of a set) is judged against the set: the
log-ratio's interval from the set's pooled spread, which excludes 0 exactly when the new value lands outside the
set's prediction interval. Otherwise on the two runs' raw rounds (the Hodges–Lehmann shift, whose interval
excludes 0 exactly when the Mann–Whitney test at p < 0.002 finds a change), else on their two intervals. Every
move gets its change with an interval and the smallest change the evidence could detect; *within noise* only
where that is within the claim's tolerance, else *insufficient data* with its cause. A run on other hardware
(another CPU model on one testbed name) is named as another machine, a run of another probe version as another
measurement: never judged as a re-measure. The intervals and tolerances are the gate's (Report.verdicts),
decided once.
"""

from __future__ import annotations

import graphlib
from collections.abc import Mapping
from dataclasses import dataclass

from ..judging import replicates
from ..judging.replicates import defining  # "the same measurement" (NOT_DEFINING): refresh, diff, series
from ..lang import between, moves, stats
from ..lang.between import RunValue
from ..lang.moves import Judged
from ..lang.values import counted, within
from ..records import Claim, ClaimInterval, ClaimVerdict, Replicas, Report, Run
from ..wording import judged_text


def differences(old: Run, new: Run) -> list[str]:
    """'profile quick ≠ default' for each defining parameter that differs (new first); a long value is
    shown where it differs: a list by what it gains and loses, a text around its first difference."""
    before, after = defining(old.parameters), defining(new.parameters)
    return [
        f"{key} {_difference(after.get(key, '(none)'), before.get(key, '(none)'))}"
        for key in sorted(before.keys() | after.keys())
        if before.get(key) != after.get(key)
    ]


SHORT = 40  # a value up to this many characters is shown whole


def _difference(new: object, old: object) -> str:
    if len(str(new)) <= SHORT and len(str(old)) <= SHORT:
        return f"{new} ≠ {old}"
    if isinstance(new, list) and isinstance(old, list):
        gained = [x for x in new if x not in old]
        lost = [x for x in old if x not in new]
        if not gained and not lost:
            return f"the same {len(new)} values in another order or count ({_around(str(new), str(old))})"
        parts = ([f"adds {_items(gained)}"] if gained else []) + ([f"drops {_items(lost)}"] if lost else [])
        return " and ".join(parts) + f" (of {len(old)} values before, {len(new)} now)"
    return _around(str(new), str(old))


def _items(values: list) -> str:
    shown = ", ".join(str(v) for v in values[:8])
    return shown + (f", … ({len(values)} in all)" if len(values) > 8 else "")


def _around(new: str, old: str) -> str:
    """Both texts from a little before where they first differ."""
    at = next((i for i, (a, b) in enumerate(zip(new, old, strict=False)) if a != b), min(len(new), len(old)))
    start = max(0, at - 10)

    def cut(text: str) -> str:
        part = text[start : start + SHORT]
        return ("…" if start else "") + part + ("…" if start + SHORT < len(text) else "")

    return f"{cut(new)} ≠ {cut(old)}"


@dataclass(frozen=True, slots=True)
class Noise:
    """The verdict on one move: beyond noise (True), not (False), or nothing to judge it by (None), in words,
    with the judgement it comes from (its state, change, interval and the change it could detect)."""

    beyond: bool | None
    words: str  # "beyond noise: +25.0% [+20.1, +30.2] (99.8%, within-run)", "insufficient data: ...", ...
    judged: Judged | None = None

    @property
    def state(self) -> str:
        """lang/moves.py's state; '' for a move not judged as a re-measure (another machine or probe version)."""
        return self.judged.state if self.judged is not None else ""


def said(judged: Judged, how: str = "") -> Noise:
    """A judgement as a Noise, in words (how: what else to say, in parentheses)."""
    return Noise(judged.beyond, judged_text(judged) + (f" ({how})" if how else ""), judged)


def verdict_of(
    old: float,
    old_interval: ClaimInterval | None,
    new: float,
    new_interval: ClaimInterval | None,
    allowed: float,
    exact: bool = False,
    loaded: bool = False,
) -> Noise:
    """A move between two runs (no replicate set): on their raw rounds where both have them, else their intervals;
    exact: both values are exact (no noise: a move is a change); loaded: a run of them was measured under load."""
    if old_interval is not None and new_interval is not None and old_interval.samples and new_interval.samples:
        change = moves.within_runs([v for _, v in old_interval.samples], [v for _, v in new_interval.samples])
        p = stats.mann_whitney_p([v for _, v in old_interval.samples], [v for _, v in new_interval.samples])
        how = f"Mann–Whitney p = {p:.2g}; {len(old_interval.samples)} → {counted(len(new_interval.samples), 'round')}"
    else:
        level = stats.joint_level([i.level for i in (old_interval, new_interval) if i is not None])
        change = moves.apart(old, _ends(old_interval), new, _ends(new_interval), level)
        how = ""  # the change's own words say it is from the two intervals
    judged = moves.judge(change, old, new, allowed, exact=exact, loaded=loaded)
    if judged.state == moves.UNKNOWN:
        return Noise(None, "noise unknown (no raw rounds or interval in either run)", judged)
    return said(judged, how if judged.state not in (moves.UNCHANGED, moves.EXACT_CHANGED) else "")


def _ends(interval: ClaimInterval | None) -> tuple[float, float] | None:
    return (interval.low, interval.high) if interval is not None else None


def against_set(
    replicas: Replicas,
    fresh: list[float],
    allowed: float,
    own: RunValue | None = None,
    new: between.Pooled | None = None,
    loaded: bool = False,
) -> Noise:
    """New values (one new run's, or each of a new set's runs) judged against the cited run's replicate set: the
    change of their mean from the set's pooled value, with its interval (lang/moves.py); allowed: the claim's
    tolerance. own: the one new run's within-run interval; new: the new runs pooled (two or more); loaded: a run
    of them was measured under load."""
    pooled = replicas.pooled
    change = moves.between_sets(pooled, fresh, own, new)
    if change is None:
        return Noise(True, "beyond noise (a value at or below 0 where its replicates were all above)")
    scale = pooled.scaled
    mean = pooled.unscaled(sum(scale(value) for value in fresh) / len(fresh))
    shared = replicas.shared
    wandering = shared.apart if shared is not None and shared.apart > 1 else 0.0
    return said(moves.judge(change, pooled.value, mean, allowed, wandering=wandering, loaded=loaded))


def another_machine(changes: list[str]) -> Noise:
    """A run on other hardware than the cited one: never a re-measure of it, so its noise says nothing."""
    return Noise(None, f"another machine ({'; '.join(changes)}): not a re-measure")


def another_probe(old: Run, new: Run) -> Noise:
    """A run of another probe version than the cited set's: another measurement, never judged against its runs."""
    changed = sorted(
        path
        for path in old.declared_code.keys() | new.declared_code.keys()
        if old.declared_code.get(path) != new.declared_code.get(path)
    )
    return Noise(None, f"another probe version ({', '.join(changed)} changed): not judged against the cited runs")


def inherited(moved: Mapping[str, Noise], inputs: list[str]) -> Noise:
    """A dependent's verdict from its inputs that moved: beyond when any is, insufficient data when any is and none
    is beyond, within when all are within."""
    verdicts = [moved[i] for i in inputs if i in moved]
    names = ", ".join(i for i in inputs if i in moved)
    if any(v.beyond for v in verdicts):
        return Noise(True, f"beyond noise (follows {names})")
    if any(v.state == moves.INSUFFICIENT for v in verdicts):
        return Noise(False, f"insufficient data (follows {names})", Judged(moves.INSUFFICIENT))
    if verdicts and all(v.beyond is False for v in verdicts):
        return Noise(False, f"within noise (follows {names})")
    return Noise(None, f"noise unknown (follows {names})")


def remeasured(before: ClaimVerdict, after: ClaimVerdict, base: Report, head: Report) -> Noise:
    """A measured claim whose evidence changed between two revisions: another machine or probe version, a
    re-measure judged against the base's replicate set when it has one, else the two runs' rounds."""
    base_runs, head_runs = base.runs, head.runs
    old, new = before.claim, after.claim
    assert old.evidence is not None and new.evidence is not None
    old_value = before.value if before.value is not None else old.value  # what each side's evidence computes
    new_value = after.value if after.value is not None else new.value
    assert old_value is not None and new_value is not None
    first, last = base_runs.get(old.evidence.run), head_runs.get(new.evidence.run)
    changes = replicates.machine_changes(first, last) if first is not None and last is not None else []
    if changes:
        return another_machine(changes)
    if first is not None and last is not None and dict(first.declared_code) != dict(last.declared_code):
        return another_probe(first, last)
    exact = before.exact and after.exact
    replicas = before.replicas
    allowed = before.tolerance.allowed(replicas.pooled.value if replicas is not None else old_value)  # of its reference
    judged_runs = [*(replicas.runs if replicas is not None else (old.evidence.run,))]
    judged_runs += list(after.replicas.runs if after.replicas is not None else (new.evidence.run,))
    loaded = replicates.loaded(judged_runs, {**base.run_states, **head.run_states})
    if replicas is None:
        return verdict_of(old_value, before.interval, new_value, after.interval, allowed, exact, loaded)
    held = set(replicas.runs)
    fresh_set = after.replicas is not None and after.replicas.cited
    if fresh_set and after.replicas is not None:
        fresh = [v for run, v in zip(after.replicas.runs, after.replicas.values, strict=True) if run not in held]
    else:
        at = after.point.value if after.point is not None else new_value  # in the column's unit, as its set's values
        fresh = [at] if new.evidence.run not in held else []
    if not fresh:
        return verdict_of(old_value, before.interval, new_value, after.interval, allowed, exact, loaded)
    interval = after.interval
    own = None
    if len(fresh) == 1 and interval is not None and interval.runs <= 1:
        own = RunValue(new_value, interval.low, interval.high, interval.level)
    whole = fresh_set and after.replicas is not None and len(fresh) == len(after.replicas.runs) > 1
    new_set = after.replicas.pooled if whole and after.replicas is not None else None  # a new set, none of it held
    return against_set(replicas, fresh, allowed, own, new_set, loaded)


def review(
    old_by_id: Mapping[str, Claim], new_by_id: Mapping[str, Claim], base: Report, head: Report
) -> dict[str, Noise]:
    """Head claim id -> the noise verdict on its stated value's move from base (ids are head ids).

    A measured claim is judged whenever its evidence changed (a re-measure: its stated value moved or not), against
    the base's replicate set or on the two runs' raw rounds (or intervals). Any other claim whose stated value is
    unchanged, or moved within its tolerance, is within noise. An
    extrapolated claim with the same formula and inputs inherits its inputs' verdicts. Anything else
    (a new claim, a value edited over the same run, a new formula) is unknown, so it stays flagged."""
    found: dict[str, Noise] = {}
    inheriting = []  # extrapolated claims whose move only their inputs' moves explain: judged after them
    for claim_id, new in new_by_id.items():
        old = old_by_id.get(claim_id)
        verdict = Noise(None, "noise unknown")
        if old is None or old.value is None or new.value is None:
            pass
        elif new.kind == "measured" and old.evidence and new.evidence and old.evidence != new.evidence:
            # every re-measure is judged, its stated value moved or not: what could the evidence have seen?
            verdict = remeasured(base.verdicts[old.id], head.verdicts[new.id], base, head)
        elif old.value == new.value:
            verdict = Noise(False, "unchanged")
        elif within(old.value, new.value, base.verdicts[old.id].tolerance):  # the base's rule, as diff's
            verdict = Noise(False, "within tolerance")
        elif new.kind == "extrapolated" and (old.formula, old.inputs) == (new.formula, new.inputs):
            inheriting.append(claim_id)
        found[claim_id] = verdict
    # Ordered inputs first (without recursion) among those alone: a review of 100,000 claims sorts the few.
    graph = {claim_id: {t for _, t in new_by_id[claim_id].inputs if t in new_by_id} for claim_id in inheriting}
    try:
        order = list(graphlib.TopologicalSorter(graph).static_order())
    except graphlib.CycleError:
        order = inheriting  # the gate reports the cycle; inputs not yet judged read as unknown
    for claim_id in (claim_id for claim_id in order if claim_id in graph):
        # Only inputs that moved explain a move; with none, the stated value was edited: unknown.
        moved = {t: found.get(t, Noise(None, "")) for _, t in new_by_id[claim_id].inputs}
        moved = {t: v for t, v in moved.items() if v.words != "unchanged"}
        if moved:
            found[claim_id] = inherited(moved, list(moved))
    return found
