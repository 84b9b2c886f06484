"""The built page read back: a hand-written page's final HTML -> figures a reader sees that `ledger check` did not.

The gate reads each page as Python-Markdown renders it (prose.py); the site build then reads what it
actually wrote, the page's content and everything the theme put around it (title, navigation,
metadata), and fails on any figure the gate did not see there. The ledger's own output (claim badges,
figures, banners: ledger-* elements) is skipped; generated pages are never read as prose.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping

from ..prose import numbers, rendered
from ..records import Source


def figures_in(html: str) -> list[str]:
    """The figures a reader reads in HTML the ledger rendered (its own elements skipped)."""
    return [figure.text for figure in numbers.figures(rendered.visible(html, skip_ledger=True))]


def missed(page: str, output: str, content: str, typed: Mapping[str, Iterable[tuple[str, Source]]]) -> list[str]:
    """Figures on the built page that the gate's scan did not find: in its content, beyond those typed
    into the page; around it, beyond those typed anywhere (titles and navigation come from every page)."""
    around = output.replace(content, "", 1) if content and content in output else output
    inside = Counter(figures_in(content)) - Counter(text for text, _ in typed.get(page, ()))
    anywhere = {text for figures in typed.values() for text, _ in figures}
    found = [f"{page}: {text!r} in the page's text" for text in sorted(inside.elements())]
    found += [
        f"{page}: {text!r} around the page (title, navigation, metadata)"
        for text in figures_in(around)
        if text not in anywhere
    ]
    return found
