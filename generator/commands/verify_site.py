"""`ledger verify-site SITE_DIR`: a built site and a fresh check of the ledger -> every page the ledger
did not render, or did not render from this ledger, and why.

Run in its own process after the build, it imports no project code (no figures, no hooks: only the
gate) and trusts nothing the build wrote about itself. Whatever built the site (the plugin, another
builder with the Markdown extension and `ledger pages`, or a tool that skipped the ledger):

- a site with no HTML page fails, and so does every HTML file that lacks the ledger's stamp, whose
  stamp says the gate failed, or whose stamp carries another digest of the gate's report than a fresh
  `check()` gives (rendered from another state of the ledger, or edited after). The one exception
  is the theme's 404.html from a builder without plugin events (the plugin stamps it): it passes
  unstamped only when it shows no figure and no claim;
- every claim a page shows (`data-claim`) must show the value, kind and status the fresh check
  gives, and have a claim page; every chart's rows must be rows of the runs they name (chartdata.py);
- no page may hold a claim, table or chart reference outside code, an unfilled slot, or a reference
  the ledger could not resolve;
- the site's registry of runs must be the fresh check's, and with --against, every run published
  before must have the same bytes now (registry.py).
"""

from __future__ import annotations

import argparse
import html
import re
import sys
from dataclasses import dataclass
from datetime import datetime, timezone
from html.parser import HTMLParser
from pathlib import Path

from ..gate import check_project
from ..inputs import project
from ..lang.values import stated
from ..prose import readback
from ..records import Report
from ..trust import stamp
from ..trust.digest import digest
from ..trust.digest import registry as run_registry
from . import chartdata, registry

_CODE = re.compile(r"<(code|pre|script|style|textarea)\b.*?</\1>", re.DOTALL | re.IGNORECASE)
# As Markdown leaves one (quotes as typed, or curled by a typography extension), in any letter case.
# Text the ledger escaped has its quotes as &quot; / &#x27;, so a claim statement quoting the syntax
# is not mistaken for one.
_REFERENCE = re.compile(
    r"""\{\{\s*(?:claim|table|chart)\s*\(\s*(?:["'\u201c\u2018]|&[lr][sd]quo;|&#82(?:16|20);)[^}]*\}\}""",
    re.IGNORECASE,
)
_SLOT = re.compile(r"LEDGERSLOT\d+X")
_MISSING = re.compile(r'<span class="ledger-missing" title="([^"]*)"')
THEME_404 = "404.html"  # stamped by the plugin; other builders write it from the theme alone


def setup_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("site_dir", metavar="SITE_DIR", type=Path, help="a built site, e.g. site/")
    parser.add_argument(
        "--against",
        metavar="REGISTRY",
        help="the registry of runs the previous site published (a folder, a file or an http(s) URL): "
        "refuse a published run whose bytes changed",
    )


def run_from_args(args: argparse.Namespace) -> int:
    if not args.site_dir.is_dir():
        print(f"ledger verify-site: {args.site_dir} is not a folder", file=sys.stderr)
        return 2
    project.find(args.root, args.config)
    report = check_project(args.root, args.config, datetime.now(timezone.utc))
    checked, problems = verify(args.site_dir, report)
    lines = [str(problem) for problem in problems] + _against(args.against, report)
    for line in lines:
        print(line)
    if lines:
        pages = {problem.page for problem in problems}
        print(f"{len(lines)} problem{'s' if len(lines) != 1 else ''} ({len(pages)} of {checked} pages)")
        return 1
    print(
        f"{checked} pages verified: every one rendered by the ledger from this ledger's report, with the gate passing"
    )
    return 0


def _against(published: str | None, report: Report) -> list[str]:
    """Problems with the runs the previous site published (--against), its notes printed."""
    if not published:
        return []
    try:
        before, note = registry.published(published)
    except registry.Unavailable as error:
        return [f"--against {published}: the published registry cannot be read: {error}"]
    if note:
        print(f"note: {note}")
    if before is None:
        return []
    rewritten, notes = registry.differences(before, run_registry(report))
    for line in notes:
        print(f"note: {line}")
    return [f"{line} (a published run was rewritten)" for line in rewritten]


@dataclass(frozen=True, order=True, slots=True)
class Problem:
    page: str  # relative to the site folder
    line: int
    what: str

    def __str__(self) -> str:
        return f"{self.page}:{self.line}: {self.what}" if self.line else f"{self.page}: {self.what}"


def verify(site: Path, report: Report) -> tuple[int, list[Problem]]:
    """(HTML pages checked, every problem found) for the site under `site`, against a fresh Report."""
    pages = sorted(p for p in site.rglob("*.html") if p.is_file() and not p.is_symlink())
    problems: list[Problem] = []
    if not pages:
        problems.append(Problem(".", 0, "no HTML page: an empty site is not a report"))
    if not report.ok:
        problems.append(Problem(".", 0, "the gate fails on this ledger now (`ledger check` says why)"))
    for path in pages:
        name = path.relative_to(site).as_posix()
        problems += page_problems(site, name, path.read_text("utf-8", "replace"), report)
    problems += registry_problems(site, report)
    return len(pages), sorted(problems)


def page_problems(site: Path, name: str, text: str, report: Report) -> list[Problem]:
    found = []
    verdict = stamp.read(text)
    if verdict is None and name == THEME_404 and not readback.figures_in(text) and "data-claim" not in text:
        pass  # a builder without plugin events writes the theme's error page itself: it shows no figure
    elif verdict is None:
        found.append(Problem(name, 0, "no ledger stamp: this page was not rendered by the ledger"))
    elif verdict[0] == "fail":
        found.append(Problem(name, 0, "built while the gate failed (`ledger check` says why)"))
    elif verdict[1] != digest(report):
        found.append(
            Problem(
                name,
                0,
                f"its stamp's report digest {verdict[1][:12]}… is not the ledger's ({digest(report)[:12]}…): "
                "built from another state of the ledger, or edited after",
            )
        )
    visible = _CODE.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)  # keeps line numbers
    for match in _REFERENCE.finditer(visible):
        found.append(Problem(name, _line(text, match.start()), f"unrendered reference {html.unescape(match.group(0))}"))
    for match in _SLOT.finditer(visible):
        found.append(Problem(name, _line(text, match.start()), f"unfilled ledger slot {match.group(0)}"))
    for match in _MISSING.finditer(visible):
        found.append(
            Problem(name, _line(text, match.start()), f"unresolved reference: {html.unescape(match.group(1))}")
        )
    reader = _Shown()
    reader.feed(text)
    reader.close()
    for line, claim_id, classes, value in reader.claims:
        found += _claim_problems(site, name, line, claim_id, classes, value, report)
    for line, chart_id, spec in reader.charts:
        found += [Problem(name, line, what) for what in chartdata.problems(chart_id, spec, report)]
    return found


def _claim_problems(
    site: Path, name: str, line: int, claim_id: str, classes: list[str], value: str, report: Report
) -> list[Problem]:
    claim = report.claim(claim_id)
    if claim is None:
        return [Problem(name, line, f"shows claim {claim_id!r}, which the ledger does not hold")]
    found = []
    expected = stated(claim) or claim.statement or claim.id
    if " ".join(value.split()) != " ".join(expected.split()):
        found.append(Problem(name, line, f"shows {claim_id} as {value[:80]!r}; the ledger gives {expected[:80]!r}"))
    for what in (claim.kind, claim.status):
        if f"ledger-claim--{what}" not in classes:
            found.append(Problem(name, line, f"shows {claim_id} without its {what!r} mark"))
    if not any((site / page).is_file() for page in (f"claim/{claim_id}/index.html", f"claim/{claim_id}.html")):
        found.append(Problem(name, 0, f"cites claim {claim_id!r}, which has no claim page in the site"))
    return found


class _Shown(HTMLParser):
    """The claims a page shows (data-claim links and the value inside) and its charts' specs."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.claims: list[tuple[int, str, list[str], str]] = []  # line, id, classes, value shown
        self.charts: list[tuple[int, str, str]] = []  # line, chart id, spec JSON
        self._claim: list | None = None  # the claim link being read: [line, id, classes, value, depth]
        self._value_depth = 0
        self._chart: tuple[int, str] | None = None
        self._spec: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {key: value or "" for key, value in attrs}
        classes = values.get("class", "").split()
        if tag == "a" and "data-claim" in values and self._claim is None:
            self._claim = [self.getpos()[0], values["data-claim"], classes, ""]
        elif self._claim is not None and tag == "span" and "ledger-value" in classes:
            self._value_depth = 1
        elif self._value_depth and tag not in ("br", "img", "wbr"):
            self._value_depth += 1
        if tag == "figure" and "data-chart" in values:
            self._chart = (self.getpos()[0], values["data-chart"])
        if tag == "script" and "ledger-chart-spec" in classes and self._chart is not None:
            self._spec = []

    def handle_endtag(self, tag: str) -> None:
        if self._value_depth:
            self._value_depth -= 1
        elif tag == "a" and self._claim is not None:
            self.claims.append((self._claim[0], self._claim[1], self._claim[2], self._claim[3]))
            self._claim = None
        if tag == "script" and self._spec is not None and self._chart is not None:
            self.charts.append((self._chart[0], self._chart[1], "".join(self._spec)))
            self._spec = None
        if tag == "figure":
            self._chart = None

    def handle_data(self, data: str) -> None:
        if self._value_depth and self._claim is not None:
            self._claim[3] += data
        if self._spec is not None:
            self._spec.append(data)


def registry_problems(site: Path, report: Report) -> list[Problem]:
    """The registry the site publishes must be the ledger's own."""
    path = site / stamp.REGISTRY
    if not path.is_file():
        return [Problem(stamp.REGISTRY, 0, "missing: the site publishes no registry of its runs")]
    if path.read_text("utf-8", "replace") != stamp.registry_json(report):
        return [Problem(stamp.REGISTRY, 0, "differs from the ledger's runs: the site was built from other runs")]
    return []


def _line(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1
