"""Render stage: Report -> HTML fragments for pages. Claim text is data: always escaped, never templated."""

from __future__ import annotations

import html

from . import references
from .evidence import format_value
from .records import Claim, Report


def claim_inline(claim: Claim, report: Report) -> str:
    """A claim as it appears in prose: its value and unit, with its kind and status."""
    value = format_value(claim.value, claim.unit) if claim.value is not None else claim.statement or claim.id
    classes = f"ledger-claim ledger-{claim.kind} ledger-{claim.status}"
    if report.is_stale(claim.id):
        classes += " ledger-stale"
    title = html.escape(f"{claim.statement} ({claim.kind}, {claim.status}, {claim.testbed or 'no testbed'})",
                        quote=True)
    body = html.escape(value)
    if claim.retired:
        body = f"<del>{body}</del> <span class=\"ledger-badge\">{html.escape(claim.status)}</span>"
    else:
        body += f" <span class=\"ledger-badge\">{html.escape(claim.kind)}</span>"
    return f'<span class="{classes}" title="{title}" data-claim="{html.escape(claim.id)}">{body}</span>'


def replace_references(markdown: str, report: Report, page_path: str) -> str:
    """Swap every claim reference in a page for its rendered value (unknown ones are gate failures)."""
    out, last = [], 0
    for ref in references.find(markdown, page_path):
        out.append(markdown[last:ref.start])
        claim = report.claim(ref.name) if ref.kind == "claim" else None
        out.append(claim_inline(claim, report) if claim else html.escape(markdown[ref.start:ref.end]))
        last = ref.end
    out.append(markdown[last:])
    return "".join(out)
