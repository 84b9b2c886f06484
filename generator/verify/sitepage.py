"""One built page against a fresh Report: its stamp, the claims, charts and tables it shows, and every
figure a reader sees on it -> what the ledger did not render, or did not re-derive. Pure.

The page is read once (prose/reader.py). Its stamp must pass the gate, carry the Report's digest, and
bind the page's path and the content it stamps (trust/stamp.py): a page edited or moved after the
ledger rendered it no longer gives its digest. Every claim it shows must show the Report's value,
kind and status (and, on a page that forbids leads, be no lead); every chart row must be a row of
the intact run it names, and a figure's other numbers claims' values or cells of the runs it read; a
figure table's number with a unit must be a claim or a run's cell (prose/literals.py: the rule the build
applies where it draws the figure). Then the rendered text: a figure anywhere else on the page (sitetext.py
says what a page may hold) is refused with its line, what the reader sees and the element it is in.
"""

from __future__ import annotations

import bisect
import html
import json
import re
from dataclasses import dataclass
from itertools import repeat

from ..prose import literals, numbers, reader
from ..records import Report
from ..trust import stamp
from ..trust.digest import digest
from ..wording import displayed
from . import framed, sitefiles
from .sitetext import Shown, SiteContext

_REFERENCE = re.compile(
    r"""\{\{\s*(?:claim|table|chart)\s*\(\s*(?:["'\u201c\u2018]|&[lr][sd]quo;|&#82(?:16|20);)[^}]*\}\}""",
    re.IGNORECASE,
)
_MARKS = ("{{", "LEDGERSLOT", "ledger-missing")  # what every match of _REFERENCE, _SLOT and _MISSING holds
_BRACES = re.compile(r"\{\{")  # (sought so: str.find's two-character search is slower on a page)
_CODE = re.compile(r"<(code|pre|script|style|textarea)\b.*?</\1>", re.DOTALL | re.IGNORECASE)
_SLOT = re.compile(r"LEDGERSLOT\d+X")
# A version of a probe's code as runpage.code_pages writes it: the file's path, its text highlighted.
_CODE_BLOCK = re.compile(
    r'<div class="ledger-code" data-ledger-code="([^"<>]*)"><div class="highlight"><pre><span></span><code>'
    r"([^<]*(?:<(?!/code>)[^<]*)*)</code></pre></div>\s*</div>"
)
_CODE_MARK = re.compile(r"ledger-code(?![\w-])")
_TAG = re.compile(r"<[^>]*>")
_CITES = re.compile(r'<a [^<>]*?\bdata-claim="([^"<>]*)"')  # the claims a fragment of the ledger's cites
_CHARTS = re.compile(r'<figure [^<>]*?\bdata-chart="([^"<>]*)"')
_MISSING = re.compile(r'<span class="ledger-missing" title="([^"]*)"')
THEME_404 = "404.html"  # stamped by the plugin; other builders write it from the theme alone
MAX_PER_PAGE = 50  # figures refused one by one on a page; the rest in one line


@dataclass(frozen=True, order=True, slots=True)
class Problem:
    page: str  # relative to the site folder
    line: int
    what: str
    typed: str = ""  # migration mode: where the gate warned about this figure (file:line): a warning, not a problem

    def __str__(self) -> str:
        said = f"{self.page}:{self.line}: {self.what}" if self.line else f"{self.page}: {self.what}"
        return f"{said}; typed at {self.typed} (warning: warn: [unbound-number])" if self.typed else said


def page_problems(
    name: str,
    text: str,
    site_pages: frozenset[str],
    ctx: SiteContext,
    attributes: frozenset[str] = frozenset(),
    charts: set[str] | None = None,
    banner: tuple[str, str] | None = None,
) -> list[Problem]:
    """Everything wrong with one HTML page of the site (name: its path in the site; attributes: those the
    site's stylesheets show with attr(); charts: gets the id of each chart whose spec was verified; banner:
    the banner the ledger renders atop this hand-written page, up to its list, and its list)."""
    read = framed.read(without_banner_list(text, banner) if banner else text, ctx.kept, attributes, cells_apart=True)
    found = _stamp_problems(name, text, read, ctx)
    visible = _outside_code(text)
    for match in _REFERENCE.finditer(visible):
        found.append(Problem(name, _line(text, match.start()), f"unrendered reference {html.unescape(match.group(0))}"))
    for match in _SLOT.finditer(visible):
        found.append(Problem(name, _line(text, match.start()), f"unfilled ledger slot {match.group(0)}"))
    for match in _MISSING.finditer(visible):
        found.append(
            Problem(name, _line(text, match.start()), f"unresolved reference: {html.unescape(match.group(1))}")
        )
    found += [Problem(name, line, what) for line, what in read.problems]
    if name in ctx.code_pages or _CODE_MARK.search(text):
        found += code_problems(name, text, ctx)
    forbids = name in ctx.forbid_leads
    for line, claim_id, classes, value in read.claims:
        found += _claim_problems(name, line, claim_id, classes, value, site_pages, ctx.report, forbids)
    for line, chart_id, spec, claims, runs in read.charts:
        wrong = literals.chart_problems(chart_id, spec, ctx.report, runs.split(), claims.split())
        found += [Problem(name, line, what) for what in wrong]
        if charts is not None and not wrong:
            charts.add(chart_id)
        found += _chart_leads(name, line, chart_id, claims, ctx.report) if forbids else []
        found += _figures(
            name, [reader.Piece(t, line, f"the spec of chart {chart_id!r}", True) for t in _spec_texts(spec)], ctx, name
        )
    for table in read.tables:
        found += [Problem(name, line, what) for line, what in literals.table_problems(table, ctx.report)]
    found += _figures(name, read.pieces, ctx, name, migrating(name, ctx))
    found += _label_problems(name, read.labels, ctx)
    return found


def without_banner_list(text: str, banner: tuple[str, str]) -> str:
    """The page to read: its banner's list of findings emptied (its line breaks kept) where its content
    opens with the banner the ledger renders for it from the fresh Report, the list followed by the banner's
    closing sentence; else the page as it is. Like a fragment of a generated page, the ledger's own
    rendering is not read again (site/render.banner_list says why no figure reads across its edges)."""
    opening, items = banner
    at = text.find(stamp.BEGIN) + len(stamp.BEGIN)
    start, end = at + len(opening), at + len(opening) + len(items)
    if at < len(stamp.BEGIN) or not text.startswith(opening, at) or not text.startswith(items, start):
        return text
    if not text.startswith("<p>The <a ", end):
        return text
    return f"{text[:start]}<ul>{chr(10) * items.count(chr(10))}</ul>{text[end:]}"


def rendered_passes(
    name: str,
    page: str | bytes,
    fragments: list[str],
    site_pages: frozenset[str],
    ctx: SiteContext,
    attributes: frozenset[str],
    charts: set[str],
) -> bool:
    """Whether a generated page passes without reading its fragments: its content is the fragments the
    ledger renders for it from the fresh Report (verify/expected.py), in a skeleton that passes and
    leaves each fragment to read alone (framed.read_around), the claims they cite have pages and its
    stamp holds. False: read it whole (page_problems), whatever the reason; nothing is refused here, so
    verify-site's findings are those of a whole reading. (page: its text, or its UTF-8 bytes as read.)"""
    if name in ctx.handwritten or name in ctx.forbid_leads:
        return False
    marks = (*_MARKS, "ledger-code")
    around = framed.read_around(page, ctx.kept, fragments, attributes, cells_apart=True, marks=marks)
    if around is None or around.form.labels or name == THEME_404:
        return False  # (a label's figures are refused unless an author typed them: read whole to say so)
    mark = stamp.one(around.content)  # (read_around found the page's one BEGIN and one stamp: read() finds these)
    if mark is None or _marks_problems(name, [mark], ctx):
        return False
    # what _outside_code and code_problems seek: around the content, read_around says (around.marked); in it,
    # sought here (a mark holds no '<' or '>', so none begins outside the content and ends in it)
    if around.marked or name in ctx.code_pages or "ledger-code" in around.content:
        return False  # (code_problems' mark, or one _outside_code's regular expressions seek: read whole)
    if _holds_mark(around.content):
        visible = _outside_code(sitefiles.text_of(page) if isinstance(page, bytes) else page)
        if _REFERENCE.search(visible) or _SLOT.search(visible) or _MISSING.search(visible):
            return False
    for fragment in fragments:
        for cited in _CITES.findall(fragment) if "data-claim=" in fragment else ():
            claim_id = html.unescape(cited)
            if not {f"claim/{claim_id}/index.html", f"claim/{claim_id}.html"} & site_pages:
                return False
    if not _around_figures_pass(around, ctx.shown, ctx.kept):
        return False
    charts.update(
        html.unescape(chart) for part in fragments if "data-chart=" in part for chart in _CHARTS.findall(part)
    )
    return True


def _around_figures_pass(around: framed.Around, shown: Shown, kept: framed.Kept) -> bool:
    """Whether every figure a reader sees on a page read around its fragments is one the ledger shows and
    none touches a PROBE (where a fragment's edge could join the skeleton's text): the parts of its form's
    text that hold none of the page's own strings are scanned once for the form, the rest for each page.
    kept.forms: (form, the figures shown) -> (whether the parts that hold no page's strings pass, the others
    with their probes' spans)."""
    key = (around.form, shown)
    forms = kept.forms
    known = forms.get(key)
    if known is None:
        if len(forms) >= 256:
            forms.clear()
        known = forms[key] = _form_figures(around.form, shown, kept.parts)
    passes, own = known
    if not passes:
        return False
    for part, probes in own:
        text = framed.put_back(part, around.strings)
        spans = [
            (len(framed.put_back(part[:a], around.strings)), len(framed.put_back(part[:b], around.strings)))
            for a, b in probes
        ]
        if not _figures_pass(text_figures(text, kept.parts), spans, shown):
            return False
    return True


def _form_figures(form: framed.Form, shown: Shown, known: dict[str, list[numbers.Figure]]) -> tuple[bool, tuple]:
    """(whether the parts of a form's text that hold no placeholder pass, those that do with their probes)."""
    probes = [(at, at + len(framed.PROBE)) for at in form.probes]
    own, at = [], 0
    for stretch in form.text.split(reader.CELL):
        for start, part in text_parts(stretch, fixed=True):
            begin = at + start
            inside = tuple(
                (max(a, begin) - begin, min(b, begin + len(part)) - begin)
                for a, b in probes
                if a < begin + len(part) and b > begin
            )
            if framed.MARK in part:
                own.append(trimmed(part, inside))
            elif not _figures_pass(text_figures(part, known), inside, shown):
                return False, ()
        at += len(stretch) + len(reader.CELL)
    return True, tuple(own)


def trimmed(part: str, probes: tuple[tuple[int, int], ...]) -> tuple[str, tuple[tuple[int, int], ...]]:
    """A part scanned for each page, without the white space it begins and ends with (a theme's indenting:
    most of a title's part), and its probes' spans in what is left: no figure holds an end's white space
    or reads differently without it, but where bidirectional controls reorder a line up to its end."""
    if _BIDI.search(part):
        return part, probes
    core = part.strip(framed.ASCII_SPACES)
    lead = len(part) - len(part.lstrip(framed.ASCII_SPACES))
    return core, tuple((max(a - lead, 0), min(b - lead, len(core))) for a, b in probes)


def _figures_pass(figures: list[tuple[int, numbers.Figure]], probes, shown: Shown) -> bool:
    for start, figure in figures:
        end = start + figure.end - figure.start
        if figure.text not in shown or any(start < b and end > a for a, b in probes):
            return False
    return True


def _outside_code(text: str) -> str:
    """The page with its code, scripts and styles blanked (line numbers kept), where references are sought.
    Each mark sought holds '{{', 'LEDGERSLOT' or 'ledger-missing', which blanking (spaces) never makes:
    a page without them (nearly every page) has no match either way, and is not blanked (its text
    stands for it: "" where it has none)."""
    if not _holds_mark(text):
        return ""
    return _CODE.sub(lambda m: "\n".join(" " * len(line) for line in m.group(0).split("\n")), text)


def _holds_mark(text: str) -> bool:
    """Whether the text holds one of _MARKS."""
    return _BRACES.search(text) is not None or _MARKS[1] in text or _MARKS[2] in text


def code_problems(name: str, text: str, ctx: SiteContext) -> list[Problem]:
    """A page's code of the ledger's (runpage.code_pages) must be the repository's text of a file a run
    hashes, and the page of a version of a code file must show it."""
    found, shown = [], set()
    blocks = {match.start(): match for match in _CODE_BLOCK.finditer(text)}
    for mark in _CODE_MARK.finditer(text):
        start = text.rfind("<", 0, mark.start())
        if start < 0 or text.find(">", start) < mark.start():
            continue  # in text (code that names it), not in a tag
        match = blocks.get(start)
        if match is None:
            found.append(
                Problem(name, _line(text, start), "holds ledger-code markup in a form the ledger does not write")
            )
            continue
        path = html.unescape(match.group(1))
        expected = ctx.code.get(path)
        if expected is None:
            found.append(Problem(name, _line(text, start), f"shows code {path!r}, which no run of the ledger hashes"))
        elif html.unescape(_TAG.sub("", match.group(2))) != _highlighted_text(expected):
            found.append(
                Problem(
                    name,
                    _line(text, start),
                    f"its text of {path} is not the repository's: the published code was edited",
                )
            )
        else:
            shown.add(path)
    own = ctx.code_pages.get(name)
    if own is not None and own in ctx.code and own not in shown:  # (a file not readable as text is not shown)
        found.append(Problem(name, 0, f"does not show {own}, code of the runs whose pages link here"))
    return found


def _highlighted_text(text: str) -> str:
    """What Pygments' highlighting of a text reads as (its lexers take line ends as \\n, leading and
    trailing blank lines off, and end the text with one)."""
    return text.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n").strip("\n") + "\n"


def document_problems(name: str, text: str, ctx: SiteContext) -> list[Problem]:
    """An SVG, XML or text document of the site: no figure in what a reader sees of it."""
    if name.lower().endswith(sitefiles.TEXT_NAMES):
        pieces = [
            reader.Piece(line + "\n", number, "its text", False) for number, line in enumerate(text.splitlines(), 1)
        ]
    else:
        read = reader.read(text)
        pieces = read.pieces + read.labels
    return _figures(name, pieces, ctx, name)


def fallback_of(chart_id: str) -> str:
    """A chart's SVG fallback in the site (site/drawing.py draws it from the spec the page embeds)."""
    return f"assets/ledger/charts/{chart_id}.svg"


def _stamp_problems(name: str, text: str, read: reader.PageReader, ctx: SiteContext) -> list[Problem]:
    found = stamp.read(text)
    if isinstance(found, str):
        return [Problem(name, 0, found)]
    if not found and name == THEME_404 and not read.claims and not _any_figure(read.pieces):
        return []  # a builder without plugin events writes the theme's error page itself: it shows no figure
    if not found:
        return [Problem(name, 0, "no ledger stamp: this page was not rendered by the ledger")]
    return _marks_problems(name, found, ctx)


def _marks_problems(name: str, found: list[stamp.Stamp], ctx: SiteContext) -> list[Problem]:
    """What is wrong with a page's stamps: the gate failed, another report, another page, edited content."""
    expected = digest(ctx.report)
    for mark in found:
        if mark.gate == "fail":
            return [Problem(name, 0, "built while the gate failed (`ledger check` says why)")]
        if mark.report != expected:
            return [
                Problem(
                    name,
                    0,
                    f"its stamp's report digest {mark.report[:12]}… is not the ledger's ({expected[:12]}…): "
                    "built from another state of the ledger",
                )
            ]
        if mark.path is not None and mark.path != name:
            return [Problem(name, 0, f"its stamp was made for the page {mark.path}: a page moved or copied here")]
        if mark.path is not None and stamp.page_digest(mark.path, mark.content) != mark.page:
            # (a part stamped without its page, as Zensical's parts that link a .md file are, whose links Zensical
            # resolves after every extension ran, is bound to the report alone, its text scanned like every page's)
            return [
                Problem(
                    name, 0, "its content is not what the ledger stamped: the page was edited after it was rendered"
                )
            ]
    return []


def _claim_problems(
    name: str,
    line: int,
    claim_id: str,
    classes: list[str],
    value: str,
    pages: frozenset[str],
    report: Report,
    forbids: bool,
) -> list[Problem]:
    verdict = report.verdict(claim_id)
    if verdict is None:
        return [Problem(name, line, f"shows claim {claim_id!r}, which the ledger does not hold")]
    claim, found = verdict.claim, []
    expected = displayed(verdict) or claim.statement or claim.id
    if " ".join(value.split()) != " ".join(expected.split()):
        found.append(Problem(name, line, f"shows {claim_id} as {value[:80]!r}; the ledger gives {expected[:80]!r}"))
    for what in (claim.kind, claim.status):
        if f"ledger-claim--{what}" not in classes:
            found.append(Problem(name, line, f"shows {claim_id} without its {what!r} mark"))
    if not {f"claim/{claim_id}/index.html", f"claim/{claim_id}.html"} & pages:
        found.append(Problem(name, 0, f"cites claim {claim_id!r}, which has no claim page in the site"))
    if forbids and claim.status == "lead":
        found.append(Problem(name, line, f"shows {claim_id}, a lead, on a page whose front matter forbids leads"))
    return found


def _chart_leads(name: str, line: int, chart_id: str, claims: str, report: Report) -> list[Problem]:
    leads = [
        claim_id for claim_id in claims.split() if (c := report.claim(claim_id)) is not None and c.status == "lead"
    ]
    return [
        Problem(name, line, f"chart {chart_id!r} draws {claim_id}, a lead, on a page whose front matter forbids leads")
        for claim_id in leads
    ]


def _spec_texts(spec: str) -> list[str]:
    """A chart spec's strings outside its data (titles, labels, formats): text the chart draws."""
    try:
        data = json.loads(spec)
    except (ValueError, RecursionError):
        return []
    found: list[str] = []

    def walk(node: object, depth: int) -> None:
        if depth > 64:
            return
        if isinstance(node, dict):
            for key, value in node.items():
                if key not in ("datasets", "values", "$schema", "data", "field", "usermeta", "format", "timeUnit"):
                    walk(value, depth + 1)
        elif isinstance(node, list):
            for item in node:
                walk(item, depth + 1)
        elif isinstance(node, str):
            found.append(node)

    walk(data, 0)
    return [f"\n{text}\n" for text in found]


def migrating(name: str, ctx: SiteContext) -> tuple[dict[str, list[str]], dict[str, str]] | None:
    """In migration mode (`warn: [unbound-number]`), for a hand-written page: what the gate warned about,
    which verify-site lists as warnings rather than refusing: the figures typed into the page's source,
    each where it is typed (file:line), and for the text around its content (title, navigation), those
    typed into any page or mkdocs.yml; None otherwise (every figure refused)."""
    source = ctx.handwritten.get(name)
    if source is None or ctx.report.policy.severity("unbound-number") != "warn":
        return None
    own: dict[str, list[str]] = {}
    for text, where in ctx.report.typed.get(source, ()):
        own.setdefault(text, []).append(f"{where.path}:{where.line}")
    anywhere = {text: f"{where.path}:{where.line}" for figures in ctx.report.typed.values() for text, where in figures}
    return own, anywhere


def _figures(
    name: str,
    pieces: list[reader.Piece],
    ctx: SiteContext,
    page: str,
    typed: tuple[dict[str, list[str]], dict[str, str]] | None = None,
) -> list[Problem]:
    """Each figure a reader sees in these pieces that nothing re-derived holds (typed: migrating(); such a
    figure the gate warned about, once for each time it is typed on the page, is a warning)."""
    generated = page not in ctx.handwritten and page != THEME_404 and page.endswith(".html")
    found: list[Problem] = []
    warned: list[Problem] = []
    where = _Pieces(pieces, ctx.kept.parts)
    for start, figure in where.figures():
        if generated and figure.text in ctx.shown:
            continue  # the ledger's renderer wrote it from the Report (a generated page)
        piece = where.at(start)
        if piece.content and piece.ledger and figure.text in ctx.shown:
            continue  # ... a banner, a caption
        what = (
            f"{figure.seen or figure.text!r} in {piece.element} is a figure no claim "
            "the ledger re-derived holds (cite a claim, or mark a label on its page)"
        )
        at = _typed_at(figure.text, piece, typed) if typed is not None else ""
        (warned if at else found).append(Problem(name, piece.line, what, at))
    if len(found) > MAX_PER_PAGE:
        rest = len(found) - MAX_PER_PAGE
        found = found[:MAX_PER_PAGE] + [Problem(name, found[MAX_PER_PAGE].line, f"and {rest} more such figures")]
    return warned + found  # fmt: skip


def _typed_at(text: str, piece: reader.Piece, typed: tuple[dict[str, list[str]], dict[str, str]]) -> str:
    """Where the gate warned about a figure a page shows: its page's source typed it (each time typed
    excuses one), or, around the content, any page did; '' where it did not (a hook's, a figure's, a theme's)."""
    own, anywhere = typed
    if piece.content:
        places = own.get(text)
        return places.pop(0) if places else ""
    return anywhere.get(text, "")


def _label_problems(name: str, labels: list[reader.Piece], ctx: SiteContext) -> list[Problem]:
    """A label holds only figures an author typed into a label on a hand-written page."""
    found = []
    where = _Pieces(labels, ctx.kept.parts)
    for start, figure in where.figures():
        if figure.text not in ctx.labels:
            found.append(
                Problem(
                    name,
                    where.at(start).line,
                    f"{figure.seen!r} is marked as a label in {where.at(start).element}, "
                    "but no hand-written page types that label",
                )
            )
    return found[:MAX_PER_PAGE]  # fmt: skip


class _Pieces:
    """Pieces of text read as one: its figures (where each starts in the joined text), and the piece
    a place is in (found only for a figure that is refused)."""

    def __init__(self, pieces: list[reader.Piece], known: dict[str, list[numbers.Figure]]):
        self.pieces, self.known = pieces, known
        self.starts: list[int] = []

    def figures(self) -> list[tuple[int, numbers.Figure]]:
        text = "".join(piece.text for piece in self.pieces)
        return text_figures(text, self.known) if not text.isspace() else []

    def at(self, offset: int) -> reader.Piece:
        if not self.starts:
            at = 0
            for piece in self.pieces:
                self.starts.append(at)
                at += len(piece.text)
        return self.pieces[max(0, bisect.bisect_right(self.starts, offset) - 1)]


_MAY_HOLD = re.compile(r"[0-9A-Za-z\x80-\U0010ffff]")  # a figure needs a digit or a letter (ASCII or not)
# Digits, signs and stops alone (a run's number in a cell): no unit, magnitude, currency or word, so no figure.
_DIGITS = re.compile(r"[\s0-9.,+\-]*")
_NOT_DIGITS = re.compile(r"[^\s0-9.,+\-]")
# Where a text parts in two that are read alone: a run of white space (ASCII: numbers.normalise reads
# each as a space) after a sign no figure goes on from (ASCII punctuation), or after a word of ASCII
# letters that ends no number, magnitude, suffix or ratio sign. numbers.py goes on across two spaces or
# more only after a number, a suffix or a magnitude, a number in words or a ratio sign (_skip_spaces,
# _PRODUCT), and looks back one or two characters (a space here, or the part's start); a text where
# bidirectional controls reorder a line is read whole. (Runs of RUN or more, so that parts are few.)
RUN = 6
_PART = re.compile(rf"(?<=[!-/:-@\[-`{{-~A-Za-z])[ \t\n\r\f\v]{{{RUN},}}")
# (A frame's text is cut once for all its pages, at every such run of two or more: numbers.py's rules above
# hold from two spaces on, and the parts that hold a page's own strings are scanned for each page.)
_FINE_PART = re.compile(r"(?<=[!-/:-@\[-`{-~A-Za-z])[ \t\n\r\f\v]{2,}")
_LETTERS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
GOES_ON = frozenset(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
    "seventeen eighteen nineteen twenty thirty forty fifty sixty seventy eighty ninety hundred thousand "
    "million billion trillion bn mn twice thrice x k m b g t".split()
)
_BIDI = re.compile("[\u202a-\u202e\u2066-\u2069]")


def text_figures(text: str, known: dict[str, list[numbers.Figure]] | None = None) -> list[tuple[int, numbers.Figure]]:
    """numbers.figures(text) as (where each starts, the figure, its offsets those of its part), for a text
    whose table cells are apart (reader.CELL between them): no figure reads across a CELL (a line break,
    a character no figure holds, a line break) nor across a break _PART finds, so each part between two is
    read alone, once per distinct text (known: a part's text -> its figures, kept by the caller: parts
    repeat from page to page)."""
    known = {} if known is None else known
    found: list[tuple[int, numbers.Figure]] = []
    mark = _NOT_DIGITS.search(text)
    while mark is not None:  # only the stretches holding more than digits, signs and stops (_DIGITS) are read
        before = text.rfind(reader.CELL, 0, mark.start())  # (a CELL is white space: no mark is in one)
        at = 0 if before < 0 else before + len(reader.CELL)
        end = text.find(reader.CELL, mark.start())
        end = len(text) if end < 0 else end
        found += _stretch_figures(text[at:end], at, known)
        mark = _NOT_DIGITS.search(text, end)
    return found


def _stretch_figures(stretch: str, at: int, known: dict[str, list[numbers.Figure]]) -> list[tuple[int, numbers.Figure]]:
    """text_figures of one stretch between two cells, at `at` in the text."""
    found: list[tuple[int, numbers.Figure]] = []
    for start, part in text_parts(stretch) if len(stretch) > 512 else ((0, stretch),):
        figures = known.get(part)
        if figures is None:
            figures = numbers.figures(part) if _MAY_HOLD.search(part) and not _DIGITS.fullmatch(part) else []
            if len(known) >= 1 << 16:
                known.clear()
            known[part] = figures
        if figures:
            found += [(figure.start + at + start, figure) for figure in figures]
    return found


def text_parts(text: str, fixed: bool = False) -> list[tuple[int, str]]:
    """(where it starts, a part) for each part of the text _PART and _ends_nothing cut it into (fixed: a
    frame's text, cut only where any page's own strings put in place of its placeholders cut it too)."""
    if _BIDI.search(text):
        return [(0, text)]
    found, at = [], 0
    for cut in (_FINE_PART if fixed else _PART).finditer(text):
        if (
            fixed
            and framed.MARK
            in text[max(map(text.rfind, framed.ASCII_SPACES, repeat(0), repeat(cut.start()))) + 1 : cut.start()]
        ):
            continue  # the word before the cut holds a page's own string: whether it cuts depends on the string
        if _ends_nothing(text, cut.start()):
            found.append((at, text[at : cut.end()]))
            at = cut.end()
    found.append((at, text[at:]))
    return found


def _ends_nothing(text: str, end: int) -> bool:
    """Whether no figure goes on from the character before `end`: ASCII punctuation (_PART's), or the end
    of a word of ASCII letters, after ASCII that is no letter, digit or '_' (nothing numbers.normalise
    could drop or fold into a word), that is none of GOES_ON."""
    start = end - 1
    if text[start] not in _LETTERS:
        return True
    while start and text[start - 1] in _LETTERS:
        start -= 1
    if start and not (text[start - 1].isascii() and not text[start - 1].isalnum() and text[start - 1] != "_"):
        return False
    return text[start:end].lower() not in GOES_ON


def _any_figure(pieces: list[reader.Piece]) -> bool:
    return bool(numbers.figures("".join(piece.text for piece in pieces)))


def _line(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1
