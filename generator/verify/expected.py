"""A fresh Report -> the fragments the ledger renders into each claim page, and each series' data, for
verify-site to hold a built site to.

A claim page's content is its builder's skeleton (the headings Markdown made of the page's fixed
Markdown) with the ledger's fragments in it (site/claimpage.py). Rendering them again from the fresh
Report costs a fraction of reading them: where a built page's content is exactly these fragments in a
skeleton, the skeleton is read once for every page of its form and the fragments not at all
(verify/framed.read_around). Anything else about the page is read as before. Rendering needs the site
stack; without it there is nothing to compare, and every page is read whole.
"""

from __future__ import annotations

import os

from ..inputs import stack
from ..records import ClaimVerdict, Report
from ..series.words import points_csv
from . import framed
from .sitetext import dest_of


class Rendered:
    """The claim pages of one Report, each rendered when asked for, and the series' data they load."""

    def __init__(self, report: Report, directory_urls: bool):
        self.report, self.directory_urls = report, directory_urls
        self._indexes: dict[str, list[str]] | None = None
        self._site = None
        if stack.missing():  # the lean install (the ledger built nothing here without the site stack)
            return
        from ..site import claimpage, render, report_pages, timeline

        self._site = (claimpage, report_pages)
        self._shared = render.Shared()  # what its pages write alike, made once for this reading
        self.series = timeline.SeriesAssets()
        self._index = claimpage.index(report, self.series)

    def fragments(self, name: str) -> list[str] | None:
        """The fragments of the generated page at `name` in the site, a claim's or an index (the claims,
        those that fell, the runs, the gate), in the order the page holds them; None for any other page
        (a run's and a code file's pages cost more to render than to read: they are read)."""
        if self._site is None:
            return None
        claimpage, report_pages = self._site
        claim_id = claim_of(name, self.directory_urls)
        if claim_id is None:
            if self._indexes is None:
                indexes = report_pages.index_pages(self.report, self.directory_urls, self._shared)
                self._indexes = {dest_of(page.src, self.directory_urls): page.slots.fragments for page in indexes}
            return self._indexes.get(name)
        verdict = self.report.verdicts.get(claim_id)
        if verdict is None:
            return None
        page = report_pages.Page(f"claim/{claim_id}.md", claim_id, self.directory_urls, self._shared)
        made = claimpage.build(page, verdict, self.report, self._index)
        return made.slots.fragments

    def banner(self, path: str) -> tuple[str, str] | None:
        """The banner the ledger renders atop the hand-written page from `path` (docs/...md), up to its list,
        and its list; None without one, without the site stack or with LEDGER_VERIFY_FRAMES=off (every page
        read whole)."""
        if self._site is None or os.environ.get(framed.OFF, "") == "off":
            return None
        from ..site import render

        opening, items = render.banner_list(render.page_findings(self.report, path))
        return (opening, items) if items else None

    def series_text(self, verdict: ClaimVerdict) -> str:
        """The CSV of a claim's series, as the site writes it (made once for the claims that share it)."""
        assert verdict.series is not None
        if self._site is None:
            return points_csv(verdict.series, verdict.unit)
        return self.series.of(verdict.series, verdict.unit).content


def claim_of(name: str, directory_urls: bool) -> str | None:
    """claim/ID/index.html (or claim/ID.html) -> ID; None for any other page."""
    folder, _, rest = name.partition("/")
    if folder != "claim" or not rest:
        return None
    if directory_urls:
        claim_id, _, page = rest.partition("/")
        return claim_id if page == "index.html" else None
    return rest.removesuffix(".html") if rest.endswith(".html") and "/" not in rest else None
