"""Replicate premises: claim verdicts + the policy's min_replicates + pages' front matter -> few-replicates
findings. Pure.

One run's rounds say nothing of how the next run will read (judging/replicates.py), so a project can ask
for more where it matters:

- `min_replicates: 3` under the plugin: every measured or extrapolated claim with an `asserts:` relation
  (what the prose relies on) must rest on at least 3 replicate runs: its own `replicates:` set, or, for a
  formula, every input with an interval;
- a page's front matter `ledger: {replicates: 3}` (beside `leads: forbid`): every measured or extrapolated
  claim the page cites must.

An exact value (a count, a size: the same in every run) needs none; a retired claim is shown as retired
and asks nothing; a timed value with no interval rests on no run's noise at all (it fails as such).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from ..records import ClaimVerdict, Finding, PageRef, Policy
from .leads import page_settings

RULE = "few-replicates"


def runs_behind(verdict: ClaimVerdict) -> int | None:
    """The replicate runs a claim's value rests on (0: a timed value with no interval); None when it
    needs none: an exact value, a borrowed or retired claim."""
    claim = verdict.claim
    if claim.kind == "borrowed" or claim.retired or verdict.exact:
        return None
    if verdict.interval is None:
        return 0 if verdict.value is not None else None
    return verdict.interval.runs


def findings(
    verdicts: Mapping[str, ClaimVerdict], pages: Mapping[str, str], refs: Iterable[PageRef], policy: Policy
) -> list[Finding]:
    """few-replicates for each asserting claim below min_replicates and each citation below its page's ask."""
    found = []
    if policy.min_replicates > 1:
        for verdict in verdicts.values():
            runs = runs_behind(verdict)
            if verdict.claim.asserts and runs is not None and runs < policy.min_replicates:
                found.append(_claim_finding(verdict, runs, policy))
    asks = {path: page_settings(text, path)[0].replicates for path, text in pages.items()}
    for ref in refs:
        needed = asks.get(ref.where.path, 1)
        cited = verdicts.get(ref.name) if ref.kind == "claim" and needed > 1 else None
        behind = runs_behind(cited) if cited is not None else None
        if cited is not None and behind is not None and behind < needed:
            found.append(_page_finding(ref, cited, behind, needed, policy))
    return found


def _rests(runs: int) -> str:
    return "has no interval" if runs == 0 else f"rests on {'one run' if runs == 1 else f'{runs} replicate runs'}"


def _fix(verdict: ClaimVerdict, needed: int) -> str:
    claim = verdict.claim
    if claim.kind == "measured" and claim.evidence is not None:
        probe = claim.evidence.run.split("/")[1] if claim.evidence.run.count("/") == 2 else "PROBE"
        return (
            f"measure it again (`ledger measure {probe} --replicates {needed}`), point `run:` at the newest and pool "
            f"them with `replicates: {needed}` under `evidence:` (guide/checks.md#replicate-runs)"
        )
    return f"cite replicate sets (`replicates: {needed}`) in the measured claims its inputs rest on"


def _claim_finding(verdict: ClaimVerdict, runs: int, policy: Policy) -> Finding:
    claim = verdict.claim
    problem = (
        f"asserts {claim.asserts}, but {_rests(runs)}: the policy's min_replicates is {policy.min_replicates} "
        "(one run's rounds do not include run-to-run variation)"
    )
    where = claim.at("asserts")
    return Finding(where, claim.id, RULE, problem, _fix(verdict, policy.min_replicates), severity=policy.severity(RULE))


def _page_finding(ref: PageRef, verdict: ClaimVerdict, runs: int, needed: int, policy: Policy) -> Finding:
    problem = (
        f"cites {verdict.id}, which {_rests(runs)}, on a page whose front matter asks for {needed} replicate runs "
        f"(`ledger: {{replicates: {needed}}}`)"
    )
    fix = _fix(verdict, needed) + ", or move the sentence to a page that asks for fewer"
    return Finding(ref.where, "", RULE, problem, fix, severity=policy.severity(RULE))
