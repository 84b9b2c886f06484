"""Render stage: Report -> HTML fragments (claim badges, admonitions, links). Pure.

Claim text is data: every string from a claim, run or source goes through esc() and is placed into
the page only after Markdown has run (see Slots), so neither Markdown nor a template ever reads it.
"""

from __future__ import annotations

import html
import json
import posixpath
import re
from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar, cast

from ..claims.kinds import FIELD
from ..inputs import hashcache
from ..lang.relations import SHOWN
from ..prose import references
from ..records import ClaimVerdict, Finding, PageRef, Report, Run
from ..trust.digest import code_page
from ..wording import ONE_RUN, displayed, noise_text, stated

# Where the generated pages live (src paths in the docs tree; none is written into docs/).
CLAIMS_INDEX = "claims/index.md"
FELL = "claims/fell.md"
MEASUREMENTS = "measurements/index.md"
GATE = "gate/index.md"
ASSETS = "assets/ledger"
ASSET_FILES = Path(__file__).parent / "assets"  # the CSS and JS shipped with the package
CACHE = hashcache.FOLDER  # the Vega bundle and chart SVGs, made once (Material's plugins use .cache/ too)


T = TypeVar("T")


def esc(text: object) -> str:
    """HTML-escape any value for text or a quoted attribute."""
    text = str(text)
    # most text holds none of the five: looking for each costs a third of html.escape's five replaces
    if "&" in text or "<" in text or ">" in text or '"' in text or "'" in text:
        return html.escape(text, quote=True)
    return text


def script_json(data: object) -> str:
    """JSON that is safe inside <script type="application/json">: no '<', '>' or '&' survive."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def claim_src(claim_id: str) -> str:
    return f"claim/{claim_id}.md"


def run_src(run_path: str) -> str:
    """measurements/<probe>/<run> -> run/<probe>/<run>.md"""
    return "run/" + "/".join(run_path.split("/")[-2:]) + ".md"


def url_of(src: str, directory_urls: bool = True) -> str:
    """The URL MkDocs gives a page or file at src (claims/index.md -> claims/)."""
    if not src.endswith(".md"):
        return src
    stem = src[:-3]
    if not directory_urls:
        return stem + ".html"
    if stem == "index" or stem.endswith("/index"):
        return stem[:-5]
    return stem + "/"


def path_parts(path: str) -> tuple[str, ...]:
    """A URL path's parts as mkdocs.utils.get_relative_url normalises them ('..' resolved, no leading '/')."""
    if "." not in path and "//" not in path:  # no part to resolve: normpath would only drop its outer slashes
        inner = path.strip("/")
        return tuple(inner.split("/")) if inner else ()
    normal = posixpath.normpath(path if path.startswith("/") else "/" + path)[1:]
    return tuple(normal.split("/")) if normal else ()


def _base(other: str) -> tuple[str, ...]:
    """The parts of the folder a page's URL lies in: a last part with a dot is a file."""
    directory, _, name = other.rpartition("/")
    return path_parts(directory if "." in name else other)


def relative_url(url: str, other: str) -> str:
    """url relative to the page at other: mkdocs.utils.get_relative_url's answer (tests/test_site.py holds
    the two to the same answers)."""
    return _relative(_base(other), path_parts(url), url)


def _relative(base: tuple[str, ...], target: tuple[str, ...], url: str) -> str:
    """relative_url from the parts of the page's folder (base) to those of url (target)."""
    common = 0
    for a, b in zip(base, target, strict=False):  # as mkdocs: the shorter one ends it
        if a != b:
            break
        common += 1
    return _climbing(len(base) - common, target[common:], url)


def _climbing(up: int, down: tuple[str, ...], url: str) -> str:
    """The relative URL up so many folders, then down these parts (with url's last '/')."""
    relative = "/".join(("..",) * up + down) or "."
    return relative + "/" if url.endswith("/") else relative


def _page_link(relative: str, url: str) -> str:
    """A relative URL as a link to the page at url: './' for the page itself, a folder's with its '/'."""
    if relative in ("", "."):
        return "./"
    return relative + "/" if (not url or url.endswith("/")) and not relative.endswith("/") else relative


LINKS_KEPT = 1 << 14  # links one place keeps at most; it starts again empty past this
SharedLink = tuple[str | None, str, str | None]  # (a second part, or None; the link from a page without it; with it)
# fragments of each kind a build keeps at most (past this, kept afresh); "highlight": a language's Pygments tools
KEPT = {"claim": 1 << 14, "run": 1 << 12, "highlight": 8}


class Shared:
    """What the pages of one build write alike, made once for them all: the links from each place (Links),
    and the fragments many pages show (a claim as every list of it shows it, what a claim page shows of the
    run it cites), and the tools that make them (runpage.code's lexers and formatter). The build owns one (assemble.Site), as does verify-site's one reading (verify/expected.py);
    every fragment is of that one report. Keys name what a fragment is made of besides the report."""

    def __init__(self) -> None:
        self.links: dict[tuple, dict[str, SharedLink]] = {}  # a page's place -> src -> how pages there link to it
        self.made: dict[str, dict[Hashable, object]] = {kind: {} for kind in KEPT}  # kind -> key -> fragment

    def fragment(self, kind: str, key: Hashable, make: Callable[[], T]) -> T:
        """make()'s fragment, made once for this key (kind: one of KEPT)."""
        made = self.made[kind]
        if key not in made:
            if len(made) >= KEPT[kind]:
                made.clear()
            made[key] = make()
        return cast(T, made[key])  # stored under this key by this make


@dataclass(frozen=True, slots=True)
class Links:
    """Relative links from one page (its URL) to generated pages and assets."""

    here: str  # the current page's URL, e.g. "claim/moe-speedup-b16/"
    directory_urls: bool = True
    shared: Shared | None = field(default=None, repr=False, compare=False, kw_only=True)  # the build's (Shared)
    # The links this page shares with the other pages at its place (its folder's depth and first part), found
    # once for them all: one into another first folder ("run/..." from "claim/a/") is the same from every one
    # of them; one into the same first folder ("claim/b/") from every one but b, and from b (at depth two).
    _shared: dict[str, SharedLink] = field(init=False, repr=False, compare=False)
    _own: str = field(init=False, repr=False, compare=False)  # its folder's second part ("a"), "" if none
    _place: tuple = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        base = _base(self.here or ".")
        place = (len(base), base[:1], self.directory_urls)
        object.__setattr__(self, "_place", place)
        places = self.shared.links if self.shared is not None else {}
        object.__setattr__(self, "_shared", places.setdefault(place, {}))
        object.__setattr__(self, "_own", base[1] if len(base) > 1 else "")

    def seen_from(self, *folders: str) -> Hashable:
        """What this page's links into these first folders ("run") depend on, a key for HTML that holds no
        other links: its place when it lies in none of them (every claim page, for the runs), else the page."""
        first = self._place[1]  # (its first folder,), () at the root
        return self._place if first and first[0] not in folders else (self._place, self.here)

    def to(self, src: str, anchor: str = "") -> str:
        found = self._shared.get(src)
        if found is None:
            target = self._link(src)
        elif found[0] != self._own:  # another second part than this page's, or into another first folder
            target = found[1]
        else:
            target = found[2] if found[2] is not None else self._link(src)
        return target + f"#{anchor}" if anchor else target

    def _link(self, src: str) -> str:
        """The link to src's page without an anchor, kept for the place where it reads the same from others."""
        url = url_of(src, self.directory_urls)
        base, parts = _base(self.here or "."), path_parts(url or ".")
        if not base or not parts or base[0] != parts[0]:  # no part in common: the depth alone decides
            shared: SharedLink | None = (None, _page_link(_climbing(len(base), parts, url or "."), url), None)
        elif len(base) > 1 and len(parts) > 1:  # the first part in common: then its second decides
            other = _page_link(_climbing(len(base) - 1, parts[1:], url or "."), url)  # only the first in common
            own = _page_link(_climbing(0, parts[2:], url or "."), url) if len(base) == 2 else None  # the folder
            shared = (parts[1], other, own)
        else:
            shared = None
        if shared is not None:
            if len(self._shared) >= LINKS_KEPT:
                self._shared.clear()
            self._shared[src] = shared
        return _page_link(_relative(base, parts, url or "."), url)

    def claim(self, claim_id: str) -> str:
        return self.to(claim_src(claim_id))

    def run(self, run_path: str, anchor: str = "") -> str:
        return self.to(run_src(run_path), anchor)

    def code(self, path: str, sha256: str) -> str:
        """The page of one version of a code file (digest.code_page)."""
        return self.to(code_page(path, sha256) + ".md")

    def asset(self, name: str) -> str:
        return self.to(posixpath.join(ASSETS, name))


# -- claims ------------------------------------------------------------------------------------


def code_value(value: object) -> str:
    """A value as code: an identifier (no space) stays whole in a table; text with spaces (a long
    parameter, a JSON mapping) is code.ledger-prose and wraps at its spaces (ledger.css)."""
    text = str(value)
    prose = any(char.isspace() for char in text)
    return f'<code class="ledger-prose">{esc(text)}</code>' if prose else f"<code>{esc(text)}</code>"


def badge(label: str, variant: str) -> str:
    return f'<span class="ledger-badge ledger-badge--{esc(variant)}">{esc(label)}</span>'


def claim_badges(verdict: ClaimVerdict) -> str:
    """Kind and status badges: retired and lead claims say so instead of their kind."""
    claim = verdict.claim
    if claim.retired:
        parts = [badge(claim.status, "retired")]
    elif claim.status == "lead":
        parts = [badge("unverified lead", "lead")]
    else:
        parts = [badge(claim.kind, claim.kind)]
        if claim.kind in FIELD["checked_by"].kinds:  # the kinds that can be checked show their support
            parts.append(support_badge(verdict))
    if verdict.fresh.fails:
        parts.append(badge("fails the gate", "failing"))
    return "".join(parts)


def support_badge(verdict: ClaimVerdict) -> str:
    """The strength of its strongest check that holds ('agrees', 'bounded', 'direction only'), or ''."""
    strength = verdict.support
    return badge(SHOWN[strength], strength) if strength else ""


def tooltip(verdict: ClaimVerdict) -> str:
    """The hover text: statement, the value's interval (or 'no raw rounds'; from one run, ONE_RUN), testbed,
    kind, status."""
    claim = verdict.claim
    what = claim.statement or claim.id
    spread = noise_text(verdict) + (f"; {ONE_RUN}" if verdict.one_run else "")
    if spread and displayed(verdict) != stated(verdict):  # the badge rounds to what its interval supports
        spread = f"stated {stated(verdict)}, {spread}"
    testbed = f"testbed {claim.testbed}" if claim.testbed else "no testbed"
    return f"{what} — {spread + '; ' if spread else ''}{testbed}; {claim.kind}, {claim.status}"


def claim_inline(verdict: ClaimVerdict, links: Links) -> str:
    """A claim as it appears in prose: value and unit with badges, linking to its page; the value
    with the digits its interval supports (wording.displayed), the stated value in the hover text.

    A retired claim is struck through with its status; a lead is marked as unverified.
    """
    claim = verdict.claim
    text = esc(displayed(verdict) or claim.statement or claim.id)
    if claim.retired:
        text = f"<del>{text}</del>"
    classes = f"ledger-claim ledger-claim--{claim.kind} ledger-claim--{claim.status}"
    value_class = "ledger-value" if claim.value is not None else "ledger-value ledger-value--text"
    return (
        f'<a class="{classes}" href="{esc(links.claim(claim.id))}" title="{esc(tooltip(verdict))}" '
        f'data-claim="{esc(claim.id)}"><span class="{value_class}">{text}</span>'
        f"{claim_badges(verdict)}</a>"
    )


def claim_link(claim_id: str, report: Report | None, links: Links) -> str:
    """A claim's id as a link with its value and badges (for lists and lineage); with no report (a page
    of one record alone), the link alone."""
    if report is None:
        return f'<a class="ledger-claim-id" href="{esc(links.claim(claim_id))}"><code>{esc(claim_id)}</code></a>'
    if links.shared is None:
        described = _described(claim_id, report)
    else:  # every page that lists the claim writes it alike
        described = links.shared.fragment("claim", claim_id, lambda: _described(claim_id, report))
    if described is None:
        return f'<code class="ledger-missing">{esc(claim_id)}</code> (no such claim)'
    title, after = described
    return f'<a class="ledger-claim-id" href="{esc(links.claim(claim_id))}" title="{title}">{after}'


def _described(claim_id: str, report: Report) -> tuple[str, str] | None:
    """A listed claim's link but its href: (the title attribute, what follows the href), or None for no
    such claim."""
    verdict = report.verdict(claim_id)
    if verdict is None:
        return None
    value = stated(verdict)
    shown = f"<del>{esc(value)}</del>" if verdict.claim.retired and value else esc(value)
    return (
        esc(tooltip(verdict)),
        f"<code>{esc(claim_id)}</code></a>{' ' + shown if shown else ''} {claim_badges(verdict)}",
    )


# -- runs --------------------------------------------------------------------------------------


def run_link(run: Run, links: Links) -> str:
    return (
        f'<a class="ledger-run" href="{esc(links.run(run.path))}"><code>{esc(run.probe_name)}/'
        f"{esc(run.name)}</code></a>"
    )


# -- findings and banners ------------------------------------------------------------------------


def admonition(kind: str, title: str, body_html: str) -> str:
    """A Material admonition (kind: note, info, success, warning, failure, danger, quote...)."""
    return f'<div class="admonition {esc(kind)}"><p class="admonition-title">{esc(title)}</p>{body_html}</div>'


def finding_html(finding: Finding, report: Report | None, links: Links) -> str:
    """One gate finding as an admonition: where, claim, problem, detail, fix."""
    kind = "failure" if finding.severity == "fail" else "warning"
    title = f"{finding.rule}{' (warning)' if finding.severity == 'warn' else ''}: {finding.where}"
    lines = []
    if finding.claim_id:
        lines.append(f"<p>{claim_link(finding.claim_id, report, links)}</p>")
    docs = (report.policy.docs_dir if report is not None else "docs").rstrip("/") + "/"
    if finding.where.path.startswith(docs) and finding.where.path.endswith(".md"):
        page = links.to(finding.where.path.removeprefix(docs))
        lines.append(f'<p>On the page <a href="{esc(page)}"><code>{esc(finding.where)}</code></a></p>')
    lines.append(f"<p>{esc(finding.problem)}</p>")
    if finding.detail:
        lines.append(f'<p class="ledger-detail">{esc(finding.detail)}</p>')
    lines.append(f'<p class="ledger-fix">fix: <code>{esc(finding.fix)}</code></p>')
    return admonition(kind, title, "".join(lines))


def page_findings(report: Report, path: str) -> list[Finding]:
    """The findings a hand-written page's banner lists (path: docs/...md): its own, and those about the
    claims it cites."""
    cited = {r.name for r in report.page_refs if r.where.path == path and r.kind == "claim"}
    return [f for f in report.findings if f.where.path == path or f.claim_id in cited]


def page_banner(findings: Iterable[Finding], links: Links) -> str:
    """The banner atop a page whose claims or references fail the gate ('' when none)."""
    opening, items = banner_list(findings)
    if not items:
        return ""
    return (
        f'{opening}{items}<p>The <a href="{esc(links.to(GATE))}">gate report</a> lists every finding '
        f"with its fix. <code>mkdocs build</code> fails until they are resolved.</p></div></div>"
    )


def banner_list(findings: Iterable[Finding]) -> tuple[str, str]:
    """A banner's HTML up to its list, and its list of findings (each '' when none). The list of a page
    verify-site finds as the ledger renders it from the fresh report it need not read: a fixed sentence
    reads on each side of it (the title's last word, the closing sentence's first), so no figure reads
    across its edges."""
    listed = list(findings)
    if len(listed) > 1:  # one finding (most claim pages with any) needs no hashing and no sorting
        listed = sorted(set(listed))
    if not listed:
        return "", ""
    failing = [f for f in listed if f.severity == "fail"]
    kind = "failure" if failing else "warning"
    head = (
        f"{len(failing)} gate failure{'s' if len(failing) != 1 else ''} on this page"
        if failing
        else f"{len(listed)} gate warning{'s' if len(listed) != 1 else ''} on this page"
    )
    items = "".join(
        f"<li><code>{esc(f.where)}</code> {esc(f.claim_id + ': ' if f.claim_id else '')}"
        f"<strong>{esc(f.rule)}</strong>: {esc(f.problem)}</li>"
        for f in listed
    )
    opening = (
        f'<div class="ledger-banner"><div class="admonition {esc(kind)}"><p class="admonition-title">{esc(head)}</p>'
    )
    return opening, f"<ul>{items}</ul>"


# -- slots: our HTML goes in after Markdown has run --------------------------------------------


_SLOT = re.compile(r"(<p>)?LEDGERSLOT(\d+)X(</p>)?")
_BLOCK = re.compile(r"<(?:p|div|figure|table|ul|ol|dl|details|h[1-6]|pre|blockquote|section)\b")


@dataclass
class Slots:
    """Placeholders put into a page's Markdown, filled with HTML once Markdown is done with it.

    Markdown never sees what goes into a slot, so claim text cannot become emphasis, links or
    HTML, and a value cannot be re-read as a reference or a template.
    """

    fragments: list[str] = field(default_factory=list)
    texts: list[str] = field(default_factory=list)  # each fragment as plain text

    def add(self, fragment: str, text: str = "") -> str:
        self.fragments.append(fragment)
        self.texts.append(text)
        return f"LEDGERSLOT{len(self.fragments) - 1}X"

    def fill(self, page_html: str) -> str:
        def swap(match: re.Match) -> str:
            index = int(match.group(2))
            if index >= len(self.fragments):
                return match.group(0)
            fragment = self.fragments[index]
            opened, closed = match.group(1) or "", match.group(3) or ""
            if opened and closed and _BLOCK.match(fragment.lstrip()):
                return fragment  # a block on its own line replaces its paragraph (no <p><p>)
            return opened + fragment + closed

        return _SLOT.sub(swap, page_html)

    def plain(self, text: str) -> str:
        """Slots in plain text (a heading in the table of contents) -> the fragments' text, escaped."""
        return _SLOT.sub(
            lambda m: esc(self.texts[int(m.group(2))]) if int(m.group(2)) < len(self.texts) else m.group(0), text
        )


@dataclass
class Generated:
    """A generated page: Markdown holding fixed headings and slot tokens, and the HTML for its slots."""

    src: str  # the page's path in the docs tree, e.g. claim/moe-speedup-b16.md
    markdown: str  # headings and slot tokens only
    slots: Slots
    in_nav: bool  # index pages are navigation entries; claim and run pages are not
    title: str = ""  # its title as plain text (its first heading)


@dataclass(frozen=True, slots=True)
class Asset:
    """A file the site ships beside its pages: a packaged file copied as is, or text the build made."""

    path: str  # in the site, e.g. assets/ledger/ledger.css
    source: Path | None = None
    content: str = ""


def replace_references(
    markdown: str, report: Report, page_path: str, links: Links, slots: Slots, figures: dict[str, str] | None = None
) -> str:
    """Swap each {{ claim/table/chart(...) }} in a page for a slot holding its HTML.

    figures: "table:id" / "chart:id" -> HTML already rendered for this page. Unknown references
    are gate failures (reported by check()); here they show as a marked placeholder.
    """
    out, last = [], 0
    for ref in references.find(markdown, page_path):
        out.append(markdown[last : ref.start])
        out.append(slots.add(*reference_html(ref, markdown[ref.start : ref.end], report, links, figures or {})))
        last = ref.end
    out.append(markdown[last:])
    return "".join(out)


def reference_html(
    ref: PageRef, written: str, report: Report, links: Links, figures: dict[str, str]
) -> tuple[str, str]:
    """One reference -> (its HTML, its plain text): the plugin and the Markdown extension share this."""
    verdict = report.verdict(ref.name) if ref.kind == "claim" else None
    if verdict is not None:
        claim = verdict.claim
        return claim_inline(verdict, links), displayed(verdict) or claim.statement or claim.id
    if f"{ref.kind}:{ref.name}" in figures:
        return figures[f"{ref.kind}:{ref.name}"], ""
    what = f"unknown {ref.kind} {ref.name!r}" if ref.kind != "malformed" else "malformed reference"
    return f'<span class="ledger-missing" title="{esc(what)}">{esc(written)}</span>', ""
