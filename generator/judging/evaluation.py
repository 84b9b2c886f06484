"""What the evidence stage decided for each claim, once (evidence.py): one Evaluation per claim id.

The claim page, `ledger diff` and its noise verdict, `accept`, `refresh` and `show` read these records;
none of them selects a row or works out a tolerance again, and none reads a finding's wording.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Protocol

from ..records import Claim, ClaimInterval, Source, Tolerance

# Why a claim's value was not computed, or was computed but not compared with the stated one ("": compared).
Cause = Literal[
    "",
    "invalid-fields",  # validate found its fields unusable
    "borrowed",  # nothing here computes it
    "no-run",
    "run-unusable",  # the run's manifest could not be read
    "no-file",  # evidence.file is not a file of the run
    "unreadable-file",
    "no-column",
    "no-row",
    "many-rows",
    "not-a-number",
    "untrusted-run",  # computed from a run that is tampered, rewritten, probe-changed or too old
    "missing-input",
    "lead-input",
    "retired-input",
    "stale-input",
    "input-without-value",
    "formula-error",
]
# How the stated value compares with the computed one ("": not compared; cause says why).
Outcome = Literal["", "agrees", "drifted", "unstated", "too-loose"]


@dataclass(frozen=True, slots=True)
class Evaluation:
    """One claim as the evidence stage judged it: what it computes, from where, and how it compares."""

    tolerance: Tolerance  # the claim's own, else the policy's default (precision of the stated value)
    value: float | None = None  # what its evidence or formula computes
    rows: tuple[int, ...] = ()  # rows of its evidence file that match `where` (one when usable)
    interval: ClaimInterval | None = None  # where the value lies given its noise (intervals.py)
    cause: Cause = ""
    outcome: Outcome = ""

    @property
    def drifted(self) -> bool:
        """Computed from trusted evidence and disagreeing with the stated value (or none is stated)."""
        return self.outcome in ("drifted", "unstated")


class Reporter(Protocol):
    """The evidence stage's sink for findings: checks.py and asserted.py report through it too."""

    def __call__(self, claim: Claim, rule: str, where: Source, problem: str, fix: str, detail: str = "") -> None: ...
