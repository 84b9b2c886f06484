"""A claim's round spread from its evidence row, and how a move reads against it. Pure.

Both `ledger refresh` and `ledger diff` mark a value change *beyond noise* or *within noise* on the
same terms: the spread convention of generator.values (a column X with X_min/X_max or X_low/X_high),
in both runs; the move is within noise when the two ranges overlap.
"""

from __future__ import annotations

from ..records import Claim, Report, Run
from ..values import format_value, row_spread, select_row, within_noise


def run_spread(run: Run | None, claim: Claim) -> tuple[float, float] | None:
    """(low, high) across rounds of the cell a measured claim cites in `run`; None without one."""
    evidence = claim.evidence
    if run is None or evidence is None:
        return None
    table = run.tables.get(evidence.file)
    if table is None or table.problem or evidence.column not in table.columns:
        return None
    if any(column not in table.columns for column, _ in evidence.where):
        return None
    rows = select_row(table, evidence.where)
    return row_spread(table, rows[0], evidence.column) if len(rows) == 1 else None


def claim_spread(claim: Claim, report: Report) -> tuple[float, float] | None:
    """A measured claim's spread in the run it cites."""
    return run_spread(report.runs.get(claim.evidence.run), claim) if claim.evidence else None


def verdict(
    old: float, old_spread: tuple[float, float] | None, new: float, new_spread: tuple[float, float] | None
) -> tuple[bool | None, str]:
    """(within noise or None if unknown, 'within noise (rounds 1.1–1.3 → 1.2–1.4)')."""
    if old == new:
        return True, "unchanged"
    inside = within_noise(old, old_spread, new, new_spread)
    if inside is None:
        return None, "noise unknown (no round spread recorded)"
    words = "within noise" if inside else "beyond noise"
    return inside, f"{words} (rounds {_range(old, old_spread)} → {_range(new, new_spread)})"


def _range(value: float, spread: tuple[float, float] | None) -> str:
    if spread is None:
        return format_value(value)
    return f"{format_value(spread[0])}–{format_value(spread[1])}"
