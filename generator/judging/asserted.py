"""Asserted relations: claim verdicts (value, interval, noise) -> not-significant findings and one
AssertResult per `asserts:`. Pure.

A measured or extrapolated claim's `asserts:` says what the prose relies on, as a bound on its own
value (relations.py's forms that bound a value alone: `> 1`, `< 0.5`, `>= 10 GB/s`,
`between 0.9 and 1.1`; the claim's value is converted to the bound's unit). It holds only when the
whole interval does, never on the median alone: each form is a half-line or a range, so the interval
lies inside when both its ends do. A claim with no interval is judged by what it is (intervals.py
decides, as the evidence stage visits the claims, inputs first):

- *exact* (computed from counts, no timing; an extrapolated claim whose inputs are all exact, or
  borrowed and taken as stated): judged on its value;
- *unknown* (a timed value with neither raw rounds nor a min–max range, an input like that, or an
  interval a formula cannot carry): nothing shows the relation holds, so it does not.

A stale claim is not judged (its own finding says why); a retired claim's is shown and never fails.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from ..claims.vocabulary import Vocabulary
from ..lang import units
from ..lang.values import format_pair, format_value, level_text
from ..records import AssertResult, Claim, ClaimInterval, ClaimVerdict
from ..wording import interval_parts
from .reporter import Reporter

DEFAULT_LEVEL = 0.95  # config's asserts_level default, for callers without a policy


def evaluate(
    verdicts: Mapping[str, ClaimVerdict],
    vocabulary: Vocabulary,
    failing: Mapping[str, list[str]],
    report: Reporter,
    level: float = DEFAULT_LEVEL,
) -> dict[str, AssertResult]:
    """Judge every claim's `asserts:` on its verdict (value, interval, noise); report not-significant where
    it does not hold. level: the least coverage an interval needs to hold anything (the policy's asserts_level)."""
    return {
        claim_id: _judge(verdict, vocabulary, failing.get(claim_id), report, level)
        for claim_id, verdict in verdicts.items()
        if verdict.claim.asserts
    }


def _judge(
    verdict: ClaimVerdict, vocabulary: Vocabulary, stale: list[str] | None, report: Reporter, level: float
) -> AssertResult:
    claim, value, mine = verdict.claim, verdict.value, verdict.unit
    relation = vocabulary.relation(claim.asserts)
    if relation is None or not mine.known:  # validate reported it
        return AssertResult(claim.asserts, None, "cannot be read")
    theirs = relation.unit or mine
    words = relation.describe()
    if stale or value is None or mine.dimension != theirs.dimension:
        why = f"stale ({', '.join(sorted(set(stale)))})" if stale else "no value" if value is None else "units"
        return AssertResult(claim.asserts, None, f"not judged: {why}")
    shown = format_value(claim.value if claim.value is not None else value, mine)
    head = f"{shown} asserts {claim.asserts}, but"
    interval = verdict.interval
    if verdict.noise_unknown:
        holds, on = False, verdict.noise_unknown
        problem, fix = f"{head} {on}", _fix(claim, "no interval")
    elif interval is not None and (interval.level is None or interval.level < level):
        holds, on = False, f"{_interval_words(interval, mine)}, below the {level_text(level)} an `asserts:` needs"
        problem, fix = f"{head} {on} (asserts_level)", _more_coverage(claim, interval, level)
    elif interval is not None:
        ends = [units.convert(x, mine, theirs) for x in (interval.low, interval.high)]
        holds = all(relation.holds(end) for end in ends)
        on = _interval_words(interval, mine)
        problem, fix = f"{head} {on}", _fix(claim, interval.basis)
    elif verdict.exact:
        found = units.convert(value, mine, theirs)
        holds = relation.holds(found)
        origin = "computed from counts" if claim.kind == "measured" else "from exact inputs"
        on = f"its exact value {format_value(value, mine)} ({origin})"
        given = format_pair(found, relation.bound, relation.unit or mine)[0]
        problem = f"{head} it is exact ({origin}) and {given} is not {words}"
        fix = "correct the value or the statement: an exact value is its own interval"
    else:  # no interval and not known to be exact: evidence.py gives every such claim a noise_unknown
        holds, on = False, "it has no interval"
        problem, fix = f"{head} {on}", _fix(claim, "no interval")
    if not holds and not claim.retired:
        report(claim, "not-significant", claim.at("asserts"), problem, fix)
    return AssertResult(claim.asserts, holds, on)


def _interval_words(interval: ClaimInterval, unit: units.Unit) -> str:
    """'its 98.4% interval is 0.74–1.51× (min–max of 7 rounds; no raw rounds)'."""
    level, ends, words = interval_parts(interval, unit)
    return f"its {level or '(coverage unknown)'} interval is {ends} ({words})"


def rounds_for(level: float) -> int:
    """The fewest rounds whose min–max covers the median with at least `level`: 1 − 2·0.5ⁿ >= level."""
    return max(2, math.ceil(1 + math.log2(1 / (1 - level)) - 1e-12))


def _more_coverage(claim: Claim, interval: ClaimInterval, level: float) -> str:
    """What raises an interval to `level`: rounds for one run's, rounds on each input for a formula's."""
    probe = claim.evidence.run.split("/")[1] if claim.evidence and claim.evidence.run.count("/") == 2 else ""
    measure = f"`ledger measure {probe}`" if probe else "`ledger measure` for its inputs' probes"
    if interval.level is None:
        return f"measure it with raw rounds ({measure}: a run that records its rounds says what its interval covers)"
    if interval.basis == "formula":
        inputs = max(1, len(claim.inputs))
        each = 1 - (1 - level) / inputs
        return (
            f"give each of its {inputs} inputs an interval of at least {level_text(each)} (Bonferroni): "
            f"{rounds_for(each)} raw rounds or more each ({measure}), then `ledger refresh --write`"
        )
    return (
        f"measure it with at least {rounds_for(level)} rounds ({measure}: {rounds_for(level)} rounds' min–max covers "
        f"the median with {level_text(1 - 2 * 0.5 ** rounds_for(level))}), then `ledger refresh --write`"
    )


def _fix(claim: Claim, basis: str) -> str:
    """More rounds, or a weaker statement: what the interval supports, in `asserts` and in the prose."""
    probe = claim.evidence.run.split("/")[1] if claim.evidence and claim.evidence.run.count("/") == 2 else ""
    measure = f"`ledger measure {probe}`" if probe else "`ledger measure` for its inputs' probes"
    if basis in ("min-max", "no interval"):
        more = f"measure it again with raw rounds ({measure}: runs written through generator.timing keep them)"
    else:
        more = f"measure it with more rounds or a tighter target ({measure})"
    return f"{more}, then `ledger refresh --write`; or make the statement weaker, in `asserts` and in the prose"
