"""The evidence stage's sink for findings (evidence.py), which checks.py and asserted.py report through too.

What the stage decides for each claim is its ClaimVerdict (records.py): one record per claim.
"""

from __future__ import annotations

from typing import Protocol

from ..records import Claim, Source


class Reporter(Protocol):
    """The evidence stage's sink for findings: checks.py and asserted.py report through it too."""

    def __call__(self, claim: Claim, rule: str, where: Source, problem: str, fix: str, detail: str = "") -> None: ...
