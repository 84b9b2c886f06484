"""Shared judging for `ledger diff`: one revision's per-claim verdicts -> the other revision's, for each claim
whose every verdict input is alike at both (the evidence stage, evidence.py, records and takes them).

A claim's verdict is made from its own fields, the policy, the unit table, the runs it reads and their states,
the verdicts of its inputs (visited first) and the fields of the claims that check it. Where all of those are
alike, the evidence stage at the other revision would make the same verdict: it is taken, with this revision's
claim in it. Only a claim the stage found nothing wrong with is recorded, so no finding (with its lines and
words) is ever taken for another revision's. A formula is alike where its text is, or where it differs only in the
order of a sum's or a product's two operands (formula.canonical(): the same numbers, bit for bit) and the verdict
taken has an interval (no step of its evaluation raised an error, whose words could name the other operand first).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from operator import attrgetter
from typing import Any

import attrs

from ..lang import formula
from ..records import CheckSpec, Citation, Claim, ClaimVerdict, Policy, Run, RunState

# Never read by the evidence stage: the statement and a borrowed source's title are shown, not judged; a claim's
# lines enter only its findings, and a claim with a finding is not recorded. Every other field is compared, the
# formula apart (same_formula()).
_SHOWN = ("statement", "source", "where", "field_lines", "formula")
_JUDGED = attrgetter(*(f.name for f in attrs.fields(Claim) if f.name not in _SHOWN))
_CITED = attrgetter(*(f.name for f in attrs.fields(Citation) if f.name != "title"))  # a source but its title


def alike_fields(claim: Claim, other: Claim) -> bool:
    """Whether two claims are alike in what the evidence stage reads of them, but their formulas: every field
    but their words and lines (a borrowed source's title among them)."""
    if _JUDGED(claim) != _JUDGED(other):
        return False
    source, then = claim.source, other.source
    if source is None or then is None:
        return source is then
    return _CITED(source) == _CITED(then)


@dataclass(frozen=True, slots=True)
class Visit:
    """What the evidence stage made of one claim it found nothing wrong with, and what it read to make it."""

    claim: Claim
    verdict: ClaimVerdict  # before checks and assertions complete it
    judges: tuple[tuple[Claim, CheckSpec], ...]  # the claims checking it (their bands bound its inputs' use)
    premises: tuple[str, ...] | None  # the inputs that move it, where some do not
    inferred: tuple[str, str, str] | None  # (run, file, column) it found exact by inference
    pooled: tuple[tuple[tuple, Any], ...]  # the replicate sets it pooled first: (key, evidence.SetFound)


@dataclass(frozen=True, slots=True)
class Context:
    """What every verdict of a revision reads: its policy, unit table, runs and their states."""

    policy: Policy
    table: object  # the unit table (claims/vocabulary.py)
    runs: Mapping[str, Run]
    states: Mapping[str, RunState]


class Judged:
    """One revision's evidence stage, claim by claim. The first evaluate() given it records; the next (the
    other revision's) takes each recorded verdict whose inputs are alike at its revision (takes())."""

    def __init__(self) -> None:
        self.context: Context | None = None
        self.visits: dict[str, Visit] = {}

    def recording(self) -> bool:
        return self.context is None

    def reads_alike(self, here: Context) -> tuple[bool, bool]:
        """(whether any verdict can be taken: policy and unit table alike; whether a measured one can: every run
        the very record read there, each in the same state)."""
        there = self.context
        if there is None or here.policy != there.policy or here.table != there.table:
            return False, False
        runs = here.runs.keys() == there.runs.keys() and all(run is there.runs[p] for p, run in here.runs.items())
        return True, runs and here.states == there.states

    def takes(
        self,
        claim: Claim,
        judges: Sequence[tuple[Claim, CheckSpec]],
        taken: Mapping[str, ClaimVerdict],
        runs_alike: bool,
    ) -> Visit | None:
        """The recorded visit whose verdict this claim takes, if every input of it is alike here: its fields,
        the claims checking it, its inputs (each taken too: taken) and, for a measured claim, every run."""
        visit = self.visits.get(claim.id)
        if visit is None or (claim.kind == "measured" and not runs_alike):
            return None
        if any(target not in taken for _, target in claim.inputs):
            return None
        if not alike_fields(claim, visit.claim) or not same_formula(claim, visit):
            return None
        if len(judges) != len(visit.judges):
            return None
        for (checker, spec), (then, then_spec) in zip(judges, visit.judges, strict=True):
            if spec != then_spec or checker.formula != then.formula or not alike_fields(checker, then):
                return None
        return visit


def same_formula(claim: Claim, visit: Visit) -> bool:
    """Whether the claim's formula gives the numbers the visit's gave: the same text, or the same but for the order
    of a sum's or product's operands where that evaluation raised nothing (its verdict has an interval)."""
    then = visit.claim.formula
    if claim.formula == then:
        return True
    return visit.verdict.interval is not None and formula.canonical(claim.formula) == formula.canonical(then)
