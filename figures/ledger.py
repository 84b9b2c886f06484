"""Figures about the ledger itself: its claims by kind and status."""

from generator.records import KINDS, STATUSES
from generator.site.figure_api import table


@table("claims-by-kind")
def claims_by_kind(data):
    """Claims by kind and status
    How much of the report was measured here, computed from measurements, or borrowed."""
    claims = data.claims()
    counts = claims.groupby(["kind", "status"]).size().unstack(fill_value=0)
    counts = counts.reindex(index=list(KINDS), columns=list(STATUSES), fill_value=0)
    counts["total"] = counts.sum(axis=1)
    return counts.reset_index()
