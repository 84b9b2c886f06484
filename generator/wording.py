"""A claim's verdict in words and values: its tolerance, a computed value restated, the value as stated
and as displayed, its interval, noise, prediction and asserted relation. Above the records it words;
every display (pages, `show`, `diff`, surfaces) and the stages that restate a value import it.
"""

from __future__ import annotations

import functools
import math
import re

from .lang import moves
from .lang.moves import Change, Judged
from .lang.units import Unit
from .lang.values import (
    Tolerance,
    counted,
    format_value,
    level_text,
    precision_of,
    range_text,
    show,
    show_to,
    step,
    unit_gap,
    within,
)
from .records import AssertResult, Claim, ClaimInterval, ClaimVerdict, Policy, Prediction


def tolerance_for(claim: Claim, policy: Policy) -> Tolerance:
    """The claim's own tolerance, else the policy's default."""
    tolerance = claim.tolerance or policy.default_tolerance
    if tolerance.text == "precision":
        return _precision(claim.value_text)
    return tolerance


@functools.lru_cache(maxsize=1 << 16)  # one record per written value, not one per claim
def _precision(value_text: str) -> Tolerance:
    return Tolerance("precision", absolute=precision_of(value_text) if value_text else 0.0)


def _significant(text: str) -> int:
    mantissa = text.strip().lower().split("e")[0].lstrip("+-").replace("_", "")
    digits = mantissa.replace(".", "").lstrip("0")
    return max(1, len(digits))


def _fixed(value: float, significant: int) -> str:
    if value == 0:
        return "0"
    decimals = max(0, significant - 1 - int(math.floor(math.log10(abs(value)))))
    return f"{value:.{decimals}f}"


def rounded(claim: Claim, computed: float, policy: Policy) -> str:
    """A computed value restated with as many significant digits as the stated one (at least 3), or
    more if the tolerance needs them (`ledger accept` and `refresh --write` write it)."""
    digits = max(3, _significant(claim.value_text)) if claim.value_text else 4
    for extra in range(0, 14):
        text = _fixed(computed, digits + extra)
        restated = Claim(
            claim.id, claim.kind, claim.where, value=float(text), value_text=text, tolerance=claim.tolerance
        )
        if within(float(text), computed, tolerance_for(restated, policy)):
            return text
    return repr(computed)


def stated(verdict: ClaimVerdict) -> str:
    """The value as the claim states it, with its unit ('3.59×', '67 tok/s'); '' without a value. A claim that
    states a bound or range (`states:`, `range:`) shows it ('>= 10 GB/s'), and its figure only where a check
    found that figure agreeing with the measurement on its own (CheckResult.value_agrees).

    Written digits are kept (they carry the precision), except where the unit has a better
    display: bytes with a readable prefix, counts (a project's own too) with thousands separators.
    """
    claim, unit = verdict.claim, verdict.unit
    if claim.states and not any(result.value_agrees for result in verdict.checks):
        return _states_shown(claim.states, claim.unit)  # a bound is shown as the bound, its figure only where it agrees
    if claim.value is None:
        return ""
    number = claim.value_text or format_value(claim.value)
    if unit.known and unit.text:
        if unit.is_bytes and "bit" not in unit.text and abs(claim.value * unit.scale) >= 1e4:
            return show(claim.value, unit)  # '64.4 MB', not '64389120 B'
        if unit.is_count and claim.value.is_integer():
            return show(claim.value, unit)  # '40 layers', never '40.00 layers'
    return f"{number}{unit_gap(claim.unit)}{claim.unit}"


def displayed(verdict: ClaimVerdict) -> str:
    """The value as a reader sees it in prose and tables: the stated value with only the digits its
    interval supports ('22 ms' for 22.341 ms with an interval of 17–34 ms; `step`), never more digits
    than written; the stated value itself (stated()) without an interval. Pages show the full value and
    interval on hover and on the claim page; the gate compares the stated value."""
    claim, interval = verdict.claim, verdict.interval
    if claim.value is None or interval is None:
        return stated(verdict)
    quantum = step(claim.value, interval.low, interval.high)
    if quantum is None or quantum <= precision_of(claim.value_text or repr(claim.value)) * 2:
        return stated(verdict)
    halves_up = math.copysign(math.floor(abs(claim.value) / quantum + 0.5), claim.value)  # 28.5 -> 29, not 28
    return show_to(halves_up * quantum, verdict.unit, quantum)


def _states_shown(states: str, unit: str) -> str:
    """What a source states with no single figure, as the claim writes it, with its unit: '>= 10 GB/s',
    'between 5 and 15×'."""
    if not unit or re.search(r"[^\d.\s]$", states):  # no unit, or the bound ends in its own
        return states
    return f"{states}{unit_gap(unit)}{unit}"


BASIS_WORDS = {
    "rounds": "{rounds}",
    "min-max": "min–max of {rounds}; no raw rounds",
    "paired": "paired by round, {rounds}",
    "formula": "carried through the formula",
    "replicates": "between {runs}",
}


ONE_RUN = "one run: the interval does not include run-to-run variation"


def interval_text(interval: ClaimInterval | None, unit: Unit | None = None) -> str:
    """A claim's interval as a reader sees it: '99.6% interval 3.41–3.79× (9 rounds)',
    '98.4% interval 0.74–1.51× (min–max of 7 rounds; no raw rounds)',
    '≥ 98% interval 3.1–3.9× (carried through the formula)'; '' without one."""
    if interval is None:
        return ""
    level, ends, words = interval_parts(interval, unit)
    return f"{level + ' ' if level else ''}interval {ends} ({words})"


def interval_parts(interval: ClaimInterval, unit: Unit | None = None) -> tuple[str, str, str]:
    """(level, ends, how it was found): ('98.4%', '0.74–1.51×', 'min–max of 7 rounds; no raw rounds')."""
    level = level_text(interval.level)
    if level and interval.basis == "formula":
        level = "≥ " + level  # a lower bound (Bonferroni)
    words = BASIS_WORDS.get(interval.basis, interval.basis).format(
        rounds=counted(interval.rounds, "round"), runs=counted(interval.runs, "replicate run")
    )
    if interval.basis == "min-max" and not interval.rounds:
        words = "min–max; no raw rounds"
    return level, range_text(interval.low, interval.high, unit), words


def noise_text(verdict: ClaimVerdict) -> str:
    """What a reader is told of a claim's noise: its interval, 'exact' for a value computed from counts,
    or 'no raw rounds' for a measured claim without raw rounds or a min–max range; else ''. Every display
    shows ONE_RUN beside it when the interval comes from one run (ClaimVerdict.one_run)."""
    text = interval_text(verdict.interval, verdict.unit)
    if text or verdict.exact:
        return text or "exact"
    return "no raw rounds" if verdict.no_rounds else ""


def prediction_text(verdict: ClaimVerdict) -> str:
    """'the next run should land in 0.8–1.32× (99% prediction interval of 4 replicate runs)'; '' without a set."""
    found = verdict.prediction
    if found is None:
        return ""
    ends = range_text(found.low, found.high, verdict.unit)
    return f"the next run should land in {ends} ({level_text(found.level)} prediction interval of {found.runs} replicate runs{pooled_text(found)})"


SETTINGS_NAMED = 8  # the settings a claim's spread is pooled with, named up to this many


def shared_text(verdict: ClaimVerdict) -> str:
    """Which settings of its set a claim's run-to-run spread is pooled with ('pooled with 18 settings of its set:
    batch=1, batch=2, …; Bartlett's p = 0.31'), or why it is judged apart from them; '' without a set."""
    replicas = verdict.replicas
    shared = replicas.shared if replicas is not None else None
    if shared is None:
        return ""
    if shared.pooled:
        names = "; ".join(shared.cells[:SETTINGS_NAMED]) + ("; …" if len(shared.cells) > SETTINGS_NAMED else "")
        return (
            f"run-to-run spread pooled with {len(shared.cells)} settings of its set ({names}; Bartlett's p = "
            f"{shared.p:.2g}, {shared.df} degrees of freedom)"
        )
    if shared.apart:
        side = "noisier" if shared.apart > 1 else "steadier"
        return (
            f"run-to-run spread its own: {side} than the rest of its set's settings (its variance {shared.apart:.3g}× "
            f"theirs, F test p = {shared.apart_p:.2g})"
        )
    return "run-to-run spread its own: no setting of its set varies alike"


def pooled_text(found: Prediction) -> str:
    """', their spread pooled over 18 settings of the set (36 degrees of freedom)', or '' for a setting's own."""
    if found.cells <= 1:
        return ""
    return f", their spread pooled over {found.cells} settings of the set ({found.df} degrees of freedom)"


def assert_text(result: AssertResult) -> str:
    """A claim's `asserts:` verdict in words: 'asserts > 1: holds: its 99.6% interval is 1.1–1.5× (9 rounds)',
    'asserts > 1: does not hold: it has no interval: …', 'asserts > 1: not judged: stale (drifted)'."""
    verdict = "" if result.holds is None else "holds: " if result.holds else "does not hold: "
    return f"asserts {result.relation}: {verdict}{result.on}"


# -- a move between runs, judged (lang/moves.py): the same words in refresh, diff, history and check -----------


def percent_text(share: float, sign: bool = True) -> str:
    """'−3.1%', '+0.42%', '110%': a relative change as a reader reads it (two significant digits under 1%)."""
    if not math.isfinite(share):
        return "any change" if share > 0 else "−100%"
    value = 100 * share
    digits = 2 if abs(value) < 1 else 1 if abs(value) < 100 else 0
    text = f"{value:+.{digits}f}" if sign else f"{value:.{digits}f}"
    return text.replace("-", "−") + "%"


def change_text(change: Change) -> str:
    """'−3.1% [−4.0, −2.2] (99%, between-run: 3 runs → 1)': the change, its interval at its level, what it is from."""
    ends = f"[{percent_text(change.low).rstrip('%')}, {percent_text(change.high).rstrip('%')}]"
    if change.basis == moves.BETWEEN:
        basis = f"between-run: {change.runs[0]} run{'s' if change.runs[0] != 1 else ''} → {change.runs[1]}"
        basis += f", from their pooled {format_value(change.reference)}" if math.isfinite(change.reference) else ""
    else:
        basis = change.basis
    level = level_text(change.level)
    return f"{percent_text(change.change)} {ends} ({level + ', ' if level else ''}{basis})"


STATE_WORDS = {
    moves.BEYOND: "beyond noise",
    moves.TOLERANCE: "within tolerance",
    moves.WITHIN: "within noise",
    moves.INSUFFICIENT: "insufficient data",
    moves.UNKNOWN: "noise unknown",
    moves.UNCHANGED: "unchanged",
    moves.EXACT_CHANGED: "exact, changed",
}


def judged_text(judged: Judged, named: bool = True) -> str:
    """One move's verdict in words, with its change and interval, and for insufficient data what it could see,
    why, and what would settle it (named=False: without the verdict's own name, for a line that says it already)."""
    said, change = STATE_WORDS[judged.state], judged.change
    if change is None or judged.state == moves.UNCHANGED:
        return said
    text = change_text(change)
    if judged.state == moves.WITHIN:
        text += f"; a change of {percent_text(change.detectable, sign=False)} or more would be seen"
    elif judged.state == moves.INSUFFICIENT:
        allowed = percent_text(judged.allowed, sign=False)
        if not math.isfinite(change.detectable):  # an interval of unknown level: nothing says what it could see
            seen = "the intervals' level is not known, so no change is known to be seen"
        else:
            seen = f"only a change over {percent_text(change.detectable, sign=False)} could be seen"
        text += f"; {seen}, {allowed} allowed: {cause_text(judged)}"
    return f"{said}: {text}" if named else text


def cause_text(judged: Judged) -> str:
    """Why the evidence could not see a change of the tolerance, and what would settle it."""
    change, allowed = judged.change, percent_text(judged.allowed, sign=False)
    assert change is not None
    if judged.cause == moves.LOADED:
        return (
            f"measured under load: changes under {percent_text(change.detectable, sign=False)} cannot be seen here; "
            "measure on a quieter machine"
        )
    if judged.cause == moves.ONE_RUN:
        return (
            f"one run a side, judged on {'its rounds' if change.basis == moves.WITHIN_RUN else 'their intervals'} "
            "alone: measure replicate runs (`ledger measure --replicates 3`) and cite them (`replicates: 3`), or "
            "more rounds"
        )
    if judged.cause == moves.WANDERING:
        return (
            f"a wandering setting: its runs vary {judged.wandering:.3g}× as much as its set's other settings' "
            "(judged apart from them); measure it again, or on a quieter machine"
        )
    variation = percent_text(math.expm1(change.sigma), sign=False)
    if judged.cause == moves.FEW_REPLICATES:
        return f"few replicates: {judged.needed} a side would see {allowed} at this run-to-run variation ({variation})"
    return (
        f"a noisy machine: its run-to-run variation ({variation}) hides {allowed} even with "
        f"{moves.MOST_REPLICATES} replicates a side; measure on a quieter machine"
    )
