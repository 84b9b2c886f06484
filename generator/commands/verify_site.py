"""`ledger verify-site SITE_DIR`: a built site -> the pages the ledger did not render, and why.

Whatever built the site (the plugin, another builder with the Markdown extension and
`ledger pages`, or a tool that skipped the ledger), a page is refused when:

- it lacks the stamp the ledger leaves on every page it renders, or its stamp says the gate failed;
- its HTML still holds a claim, table or chart reference outside code, or an unfilled slot;
- it shows a reference the ledger could not resolve (an unknown claim, table or chart);
- it cites a claim that has no claim page in the site.

Reads files only; imports nothing of the site stack.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from pathlib import Path

from ..site import stamp

_CODE = re.compile(r"<(code|pre|script|style|textarea)\b.*?</\1>", re.DOTALL | re.IGNORECASE)
# As Markdown leaves one (quotes as typed, or curled by a typography extension). Text the ledger escaped
# has its quotes as &quot; / &#x27;, so a claim statement quoting the syntax is not mistaken for one.
_REFERENCE = re.compile(
    r"""\{\{\s*(?:claim|table|chart)\s*\(\s*(?:["'\u201c\u2018]|&[lr][sd]quo;|&#82(?:16|20);)[^}]*\}\}"""
)
_SLOT = re.compile(r"LEDGERSLOT\d+X")
_MISSING = re.compile(r'<span class="ledger-missing" title="([^"]*)"')
_CITED = re.compile(r'<a class="ledger-claim\b[^>]*\bdata-claim="([^"]+)"')
SKIPPED = ("404.html",)  # the theme's error page: no content of ours


@dataclass(frozen=True, order=True)
class Problem:
    page: str  # relative to the site folder
    line: int
    what: str

    def __str__(self) -> str:
        return f"{self.page}:{self.line}: {self.what}" if self.line else f"{self.page}: {self.what}"


def verify(site: Path) -> tuple[int, list[Problem]]:
    """(pages checked, every problem found) for the site under `site`."""
    pages = sorted(p for p in site.rglob("*.html") if p.is_file() and p.relative_to(site).as_posix() not in SKIPPED)
    problems: list[Problem] = []
    for path in pages:
        problems += page_problems(site, path.relative_to(site).as_posix(), path.read_text("utf-8", "replace"))
    return len(pages), sorted(problems)


def page_problems(site: Path, name: str, text: str) -> list[Problem]:
    found = []
    verdict = stamp.read(text)
    if verdict is None:
        found.append(Problem(name, 0, "no ledger stamp: this page was not rendered by the ledger"))
    elif verdict == "fail":
        found.append(Problem(name, 0, "built while the gate failed (`ledger check` says why)"))
    visible = _CODE.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)  # keeps line numbers
    for match in _REFERENCE.finditer(visible):
        found.append(Problem(name, _line(text, match.start()), f"unrendered reference {html.unescape(match.group(0))}"))
    for match in _SLOT.finditer(visible):
        found.append(Problem(name, _line(text, match.start()), f"unfilled ledger slot {match.group(0)}"))
    for match in _MISSING.finditer(visible):
        found.append(
            Problem(name, _line(text, match.start()), f"unresolved reference: {html.unescape(match.group(1))}")
        )
    for claim_id in sorted({html.unescape(m.group(1)) for m in _CITED.finditer(text)}):
        if not any((site / page).is_file() for page in (f"claim/{claim_id}/index.html", f"claim/{claim_id}.html")):
            found.append(Problem(name, 0, f"cites claim {claim_id!r}, which has no claim page in the site"))
    return found


def _line(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1
