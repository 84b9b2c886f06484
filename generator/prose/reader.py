"""One built page read in one pass, as a reader's browser shows it: HTML -> what verify-site re-derives.

The reader collects what the ledger can check against a fresh Report: the claims a page shows (a
`data-claim` link and the value inside), its charts (the embedded spec; the claims its figure read,
`data-claims`), its figure tables (header, each row's run, each cell and whether it holds a claim),
and every other piece of text a reader sees, with its line, the element it is in, and whether it
lies in the page's stamped content or around it. Text a reader sees includes the attributes browsers
show (title, alt, aria-label, placeholder, a button's or a text field's value), the documents
embedded in attributes (`srcdoc`, `data:` URLs of frames and objects), the strings a script or a
style can write (a CSS `content:`, and the attributes its `attr()` shows), text areas and form
options, and math a Markdown math extension leaves for the browser to typeset (read as the text it
becomes). Code and the ledger's own claim links are not prose; the rest is scanned by verify/sitetext.py.
"""

from __future__ import annotations

import base64
import re
import urllib.parse
from dataclasses import dataclass, field

from . import math
from .tokens import Tokenizer

LABEL = "ledger-label"
# A figure's caption as its author typed it (its function's docstring): an author's text, though the ledger
# writes it, so read as prose; a figure in it is no number the ledger rendered (site/drawing.caption_html).
CAPTIONS = frozenset({"ledger-caption-title", "ledger-caption-text"})
CAPTION = "the caption of a figure"
CODE = frozenset({"code", "pre", "template"})
RAW = frozenset({"script", "style"})
UNSHOWN = frozenset({"iframe", "noembed", "noframes"})  # raw text no browser shows (a fallback for what it does)
VOID = frozenset(
    {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr", "param"}
)
BLOCK = frozenset(
    {
        "address", "article", "aside", "blockquote", "br", "caption", "dd", "details", "dialog", "div", "dl", "dt",
        "fieldset", "figcaption", "figure", "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6", "header", "hr",
        "li", "main", "nav", "ol", "p", "section", "summary", "table", "td", "th", "tr", "ul", "title", "option",
        "img", "button", "label", "input", "select", "textarea", "body", "head", "html", "text", "g",
    }
)  # fmt: skip
SHOWN_ATTRIBUTES = ("title", "alt", "aria-label", "aria-description", "placeholder", "label")
SHOWN_META = frozenset({"description", "author", "og:title", "og:description", "twitter:title", "twitter:description"})
_VALUE_NOT_SHOWN = frozenset({"hidden", "password", "checkbox", "radio", "file", "image", "color", "range"})
_EMBEDDING = {"iframe": ("srcdoc", "src"), "frame": ("src",), "object": ("data",), "embed": ("src",)}
_DOCUMENT_URL = re.compile(
    r"^\s*data:(?:text/html|image/svg\+xml|application/xhtml\+xml|text/plain|text/xml)[^,]*?(;base64)?,", re.I
)
# Every attribute _attributes() reads (a meta's name or property says whether its content is shown).
READ_ATTRIBUTES = frozenset(
    {
        *SHOWN_ATTRIBUTES,
        "value",
        "name",
        "property",
        "style",
        *(name for names in _EMBEDDING.values() for name in names),
    }
)
CELL = "\n\x1e\n"  # between two table cells (with cells_apart): a break no figure reads across
MAX_DEPTH = 4  # documents inside documents inside attributes: read this deep, then refused
_JS_STRING = re.compile(r""""(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|`(?:[^`\\]|\\.)*`""", re.S)
_CSS_STRING = re.compile(r""""(?:[^"\\\n]|\\.|\\\n)*"|'(?:[^'\\\n]|\\.|\\\n)*'""", re.S)
_CSS_ESCAPE = re.compile(r"\\(?:([0-9a-fA-F]{1,6})\s?|\n|(.))")
_JS_ESCAPE = re.compile(r"\\(?:u\{([0-9a-fA-F]{1,6})\}|u([0-9a-fA-F]{4})|x([0-9a-fA-F]{2})|(.))", re.S)
_ATTR = re.compile(r"\battr\(\s*([A-Za-z_][\w:-]*)", re.I)
# What a hidden code block's body may hold and still be passed over unread (tokens.py): text and flat
# spans (Pygments' highlighting) whose class names no role (no "ledger-", no "arithmatex", no entity
# that could spell one): inside hidden code such markup changes nothing the reader keeps.
_FLAT_CODE = re.compile(
    r"""(?:[^<]+|<span(?: class="(?:[^"<>&la]|l(?!edger-)|a(?!rithmatex))*")?>[^<]*</span>)*(?=<)"""
)
# A table cell with no markup inside, no entity and no attribute but these (tables.py and the ledger's
# pages write them), or holding only code (a run's link in a history's row, its name in code: no text a
# reader is shown): in a row outside a figure table its events add its text alone (PageReader.read_ahead).
_PLAIN_CELL = re.compile(
    r"""<(td|th)(?: style="text-align: (?:left|right|center)")?(?: data-ledger-column="[^"<>&]*")?"""
    r"""(?: colspan="[0-9]{1,4}")?>(?:([^<&]*)|<code>[^<]*</code>|<a class="ledger-run" href="[^"<>&]*">"""
    r"""<code>[^<]*</code></a>)</\1>"""
)
_ELEMENT = {"td": "<td>", "th": "<th>"}
_NEXT_ROW = "</tr><tr>"  # a plain row ended and the next begun: two line breaks
_CELL_ATTRIBUTES = ("style", "data-ledger-column", "colspan", "class", "href")  # those _PLAIN_CELL's may hold

# Elements the theme and the ledger's pages repeat whole from page to page (the navigation, the footer, a
# run's manifest on each of its claims' pages): read once, given again where the same markup comes in the
# same state (PageReader.replay). Each with the marks its end is sought by.
_SEGMENT_MARKS = {name: re.compile(rf"<{name}[\s>]|</{name}>") for name in ("details", "nav", "footer")}
_SEGMENTS_READ: dict[tuple, tuple] = {}  # (reader's settings, state, markup) -> the text it added
_MAX_SEGMENTS, _MAX_SEGMENT_BYTES = 1 << 12, 64 << 20  # kept at most (then forgotten, and kept again)
_segment_bytes = 0
_JS_SIMPLE = {"n": "\n", "t": "\t", "r": "", "b": "", "f": "", "v": "", "0": ""}


def css_strings(css: str) -> list[str]:
    """The strings of a stylesheet (what `content:` can show), escapes decoded: "\\35 GB" -> "5 GB"."""
    return [_CSS_ESCAPE.sub(_css_char, match.group(0)[1:-1]) for match in _CSS_STRING.finditer(css)] if css else []


def _css_char(match: re.Match) -> str:
    if match.group(1):
        code = int(match.group(1), 16)
        return chr(code) if 0 < code < 0x110000 and not 0xD800 <= code < 0xE000 else "\ufffd"
    return match.group(2) or ""


def script_strings(code: str) -> list[str]:
    """The string literals of a script (what it can write into the page), escapes decoded."""
    return [_JS_ESCAPE.sub(_js_char, match.group(0)[1:-1]) for match in _JS_STRING.finditer(code)] if code else []


def _js_char(match: re.Match) -> str:
    digits = match.group(1) or match.group(2) or match.group(3)
    if digits:
        code = int(digits, 16)
        return chr(code) if code < 0x110000 and not 0xD800 <= code < 0xE000 else "\ufffd"
    return _JS_SIMPLE.get(match.group(4), match.group(4))


def css_attributes(css: str) -> frozenset[str]:
    """The attributes a stylesheet shows with attr(NAME) (in a `content:` value)."""
    if not css or not mentions_attr(css):
        return frozenset()
    return frozenset(name.lower() for name in _ATTR.findall(css))


def mentions_attr(css: str) -> bool:
    """Whether 'attr(' is in the text in any letter case, as every match of _ATTR is (sought from each
    '(' with C calls, a character rarer than 'r': a page is not lowered whole)."""
    at = css.find("(", 4)
    while at >= 0:
        if css[at - 4 : at].lower() == "attr":
            return True
        at = css.find("(", at + 1)
    return False


@dataclass(slots=True)
class Piece:
    """A piece of text a reader sees."""

    text: str
    line: int
    element: str  # the element it is in, as written: "<td>", '<p class="x">', "title of <a>"
    content: bool  # inside the page's stamped content (else around it: title, navigation, theme)
    ledger: bool = False  # inside an element of the ledger's own (a ledger-* class: a banner, a caption)


@dataclass(slots=True)
class TableCell:
    text: str
    claim: bool  # it holds a claim link
    column: str  # data-ledger-column: the run table's column a number came from ('' if none)
    header: bool = False  # a <th>


@dataclass(slots=True)
class TableRow:
    line: int
    run: str  # data-ledger-run / data-ledger-testbed: the run the row came from ('' if none)
    testbed: str
    cells: list[TableCell] = field(default_factory=list)


@dataclass(slots=True)
class FigureTable:
    line: int
    id: str
    runs: tuple[str, ...] = ()  # data-ledger-runs: the runs the figure read
    claims: tuple[str, ...] = ()  # data-claims: the claims it read
    header: list[str] = field(default_factory=list)
    rows: list[TableRow] = field(default_factory=list)


class PageReader(Tokenizer):
    """Feed it a page; read .claims, .charts, .tables, .pieces, .labels and .problems."""

    READ_AHEAD = frozenset({*CODE, "tr"})
    SEGMENTS = frozenset(_SEGMENT_MARKS)

    def __init__(
        self,
        shown_attributes: frozenset[str] = frozenset(),
        depth: int = 0,
        skip_ledger: bool = False,
        cells_apart=False,
    ):
        super().__init__()
        self.cells_apart = cells_apart  # a table's cells apart: no figure reads across two cells
        self.shortcuts = True  # hidden code passed over (skippable()), plain elements read on a short path (_quiet())
        self._settings = (cells_apart, skip_ledger, shown_attributes, depth)
        self._cells_plain = shown_attributes.isdisjoint(_CELL_ATTRIBUTES)  # none a stylesheet shows
        self._recording: tuple | None = None
        self.skip_ledger = skip_ledger  # the built page read back: the ledger's own elements are its output
        self.claims: list[tuple[int, str, list[str], str]] = []  # line, id, classes, value shown
        self.charts: list[tuple[int, str, str, str, str]] = []  # line, chart id, spec JSON, the claims and runs it read
        self.tables: list[FigureTable] = []
        self.pieces: list[Piece] = []
        self.labels: list[Piece] = []  # text inside an author's <span class="ledger-label">
        self.problems: list[tuple[int, str]] = []
        self.shown_attributes = shown_attributes  # attributes a stylesheet's attr() shows
        self._read_attributes = READ_ATTRIBUTES | shown_attributes  # an element with none of them shows none
        self.depth = depth
        self._stack: list[tuple[str, str, bool]] = []  # (tag, what it does: "hide", "claim", ..., the ledger's own)
        self._hidden = 0
        self._open: dict[str, int] = {}  # open elements by tag
        self._labels = 0  # open labels
        self._claims = 0  # open claim links
        self._ledger = 0  # open elements of the ledger's own
        self._content = 0  # open stamped regions (BEGIN seen, its stamp not yet)
        self._claim: list | None = None
        self._value = 0
        self._chart: list | None = None
        self._spec: list[str] | None = None
        self._table: FigureTable | None = None
        self._row: TableRow | None = None
        self._cell: TableCell | None = None
        self._math: list[str] | None = None

    def read_ahead(self, name: str, rawdata: str, at: int) -> int:
        """Inside hidden code, with no claim value, chart spec or claim being read, a code block's text
        and flat spans are nothing the reader keeps: passed over. In a row outside a figure table, plain
        cells (text, no markup, no attribute a reader is shown; or code alone, in a run's link or not) add
        their text as their events would, and so do plain rows after it, one after another.
        (tests/test_tokens.py reads every page of a built site both ways.)"""
        if name != "tr":
            if self.shortcuts and self._hidden and self._claim is None and self._spec is None and not self._value:
                found = _FLAT_CODE.match(rawdata, at)
                return found.end() if found else at
            return at
        if self._hidden or self._math is not None or not self._quiet() or not self._cells_plain:
            return at
        line, end, apart = self.lineno, at, CELL if self.cells_apart else "\n"
        content, ledger = self._content > 0, self._ledger > 0  # (cells and rows change neither)
        kept = self.labels if self._labels else self.pieces  # what _add does, three times a cell
        next_break = rawdata.find("\n", at)  # cells that end before it hold no line break to count
        while True:
            cell = _PLAIN_CELL.match(rawdata, end)
            if cell is None:
                if not (rawdata.startswith(_NEXT_ROW, end) and self._stack[-1] == ("tr", "", False)):
                    return end
                self._add("\n", line, "tr")  # the row's end and the next one's start, as their events add
                self._add("\n", line, "tr")
                end += len(_NEXT_ROW)
                continue
            tag, text, start, end = cell.group(1), cell.group(2), cell.start(), cell.end()
            if kept:
                kept[-1].text += apart
            else:
                kept.append(Piece(apart, line, tag, content, ledger))
            counted = 0 <= next_break < end
            if text and text.isspace():
                kept[-1].text += text
            elif text:
                at_text = line + rawdata.count("\n", start, cell.start(2)) if counted else line
                kept.append(Piece(text, at_text, _ELEMENT[tag], content, ledger))
            if counted:
                line += rawdata.count("\n", start, end)  # (its end tag holds none)
                next_break = rawdata.find("\n", end)
            kept[-1].text += apart

    # -- elements read before, given again ---------------------------------------------------------

    def _state(self) -> tuple:
        """What reading an element depends on beyond its markup, in a quiet state (_quiet())."""
        return (tuple(self._stack), self._hidden, self._ledger, self._labels, self._claims, self._content, self.foreign)

    def replay(self, rawdata: str, start: int, name: str) -> int:
        if not self._quiet() or self._chart is not None or self._math is not None:
            return -1
        end = _segment_end(rawdata, start, name)
        if end < 0:
            return -1
        state = (self._state(), bool(self.pieces), bool(self.labels))
        key = (self._settings, state, rawdata[start:end])
        done = _SEGMENTS_READ.get(key)
        if done is not None:
            self._give_again(*done)
            return end
        if self.segment_end < 0:  # (one recorded at a time; those inside it may still be given again)
            self.segment_end = end
            self._recording = (key, *self._marks())
        return -1

    def _marks(self) -> tuple:
        pieces, labels = self.pieces, self.labels
        return (
            len(pieces),
            len(pieces[-1].text) if pieces else 0,
            len(labels),
            len(labels[-1].text) if labels else 0,
            (len(self.claims), len(self.charts), len(self.tables), len(self.problems)),
            self.lineno,
        )

    def segment_read(self) -> None:
        """An element recorded: kept when it added text alone and left the state as it kept it."""
        assert self._recording is not None  # (set with segment_end)
        key, pieces, piece_length, labels, label_length, kept, line = self._recording
        self.segment_end, self._recording = -1, None
        if self._marks()[4] != kept or not self._quiet() or self._chart is not None or self._math is not None:
            return
        if self._state() != key[1][0]:
            return
        global _segment_bytes
        _segment_bytes += len(key[2])
        if len(_SEGMENTS_READ) >= _MAX_SEGMENTS or _segment_bytes > _MAX_SEGMENT_BYTES:
            _SEGMENTS_READ.clear()
            _segment_bytes = len(key[2])
        _SEGMENTS_READ[key] = (
            *_added(self.pieces, pieces, piece_length, line),
            *_added(self.labels, labels, label_length, line),
        )

    def _give_again(self, suffix: str, added: tuple, label_suffix: str, labels_added: tuple) -> None:
        line = self.lineno
        for kept, more, new in ((self.pieces, suffix, added), (self.labels, label_suffix, labels_added)):
            if more:
                kept[-1].text += more
            kept.extend(Piece(text, line + at, element, content, ledger) for text, at, element, content, ledger in new)

    # -- a frame's reading stopped and resumed (verify/framed.py) ---------------------------------------------

    def outside(self) -> tuple | None:
        """Where a reading may stop and resume from what it kept alone: every token read (none held back,
        no script's or style's body open), no claim, value, chart, spec, table, row, cell or math being
        read and no element being recorded. Then the state reading on depends on (whether pieces and
        labels are kept decides whether a space joins the last one), else None."""
        if (
            self.rawdata
            or self.cdata_elem
            or self._claim is not None
            or self._value
            or self._chart is not None
            or self._spec is not None
            or self._table is not None
            or self._row is not None
            or self._cell is not None
            or self._math is not None
            or self._recording is not None
            or self.segment_end >= 0
        ):
            return None
        return (self._state(), bool(self.pieces), bool(self.labels))

    def resume(self, state: tuple, pieces: list[Piece], labels: list[Piece], line: int) -> None:
        """A new reader set to where another stopped (outside() gave `state`), with the pieces and labels
        it kept, at `line`: what it reads next it reads as that one would have."""
        (stack, self._hidden, self._ledger, self._labels, self._claims, self._content, self.foreign), _, _ = state
        self._stack = list(stack)
        self._open = {}
        for tag, _, _ in stack:
            self._open[tag] = self._open.get(tag, 0) + 1
        self.pieces, self.labels = pieces, labels
        self.lineno = line

    # -- what each element does --------------------------------------------------------------------

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values, classes, plain = _values(attrs)
        if plain and tag not in _ROLE_TAGS and self._quiet() and self.shown_attributes.isdisjoint(values):
            # what _role and _attributes would find: nothing
            if tag in BLOCK and not self._hidden:
                self._add(CELL if self.cells_apart and tag in ("td", "th") else "\n", self.lineno, tag)
            if tag not in VOID:
                self._stack.append((tag, "", False))
                self._open[tag] = self._open.get(tag, 0) + 1
            return
        line = self.lineno
        if tag == "span" and "ledger-begin" in classes:
            self._content += 1
        elif tag == "span" and "ledger-stamp" in classes:
            self._content = max(0, self._content - 1)
        role = self._role(tag, values, classes, line)
        if not self._hidden and role not in ("hide", "claim") and not self._read_attributes.isdisjoint(values):
            self._attributes(tag, values, line)
        if tag in BLOCK:
            self._add(CELL if self.cells_apart and tag in ("td", "th") else "\n", line, tag)
        if tag not in VOID:
            ours = role not in ("label", "caption") and "ledger-" in values.get("class", "")
            self._stack.append((tag, role, ours))
            self._open[tag] = self._open.get(tag, 0) + 1
            self._hidden += role in ("hide", "claim")
            self._ledger += ours
            self._labels += role == "label"
            self._claims += role == "claim"

    def _role(self, tag: str, values: dict[str, str], classes: list[str], line: int) -> str:
        if tag == "a" and "data-claim" in values:
            if self._claim is None:
                self._claim = [line, values["data-claim"], list(classes), ""]
            if self._cell is not None:
                self._cell.claim = True
            return "claim"
        if self._claim is not None and tag == "span" and "ledger-value" in classes:
            self._value = 1
        elif self._value and tag not in VOID:
            self._value += 1
        if tag == "figure" and "data-chart" in values:
            self._chart = [
                line,
                values["data-chart"],
                values.get("data-claims", ""),
                values.get("data-ledger-runs", ""),
            ]
        if tag == "script" and "ledger-chart-spec" in classes and self._chart is not None:
            self._spec = []
            return "hide"
        if tag == "figure" and "ledger-table" in classes:
            self._table = FigureTable(
                line,
                values.get("id", "").removeprefix("table-"),
                tuple(values.get("data-ledger-runs", "").split()),
                tuple(values.get("data-claims", "").split()),
            )
            self.tables.append(self._table)
        if self._table is not None and tag == "tr" and not self._hidden:
            self._row = TableRow(line, values.get("data-ledger-run", ""), values.get("data-ledger-testbed", ""))
            self._table.rows.append(self._row)
        if self._row is not None and tag in ("td", "th"):
            self._cell = TableCell("", False, values.get("data-ledger-column", ""), tag == "th")
        if tag in CODE or (self.skip_ledger and any(c.startswith("ledger-") for c in classes)):
            return "hide"
        if LABEL in classes:
            return "label"
        if not CAPTIONS.isdisjoint(classes):
            return "caption"
        if (tag == "script" and values.get("type", "").lower().startswith("math/")) or "arithmatex" in classes:
            self._math = []
            return "math"
        if tag in RAW:  # in SVG or MathML a script's children are elements, but no browser shows them either
            return "hide" if self.foreign else "raw"
        return ""

    def _attributes(self, tag: str, values: dict[str, str], line: int) -> None:
        """What a reader is shown of an element's attributes, and the documents they embed."""
        where = f"{_attribute_of(tag)}"
        for name in SHOWN_ATTRIBUTES:
            if values.get(name):
                self._add(f"\n{values[name]}\n", line, f"{name} of {where}")
        if tag == "input" and values.get("value") and values.get("type", "text").lower() not in _VALUE_NOT_SHOWN:
            self._add(f"\n{values['value']}\n", line, f"value of {where}")
        if tag == "meta" and (values.get("name") or values.get("property")) in SHOWN_META:
            self._add(f"\n{values.get('content', '')}\n", line, f"content of {where}")
        for name in self.shown_attributes & set(values):
            self._add(f"\n{values[name]}\n", line, f"{name} of {where} (a stylesheet's attr() shows it)")
        for text in css_strings(values.get("style", "")):
            self._add(f"\n{text}\n", line, f"style of {where}")
        for name in _EMBEDDING.get(tag, ()):
            if values.get(name):
                self._embedded(values[name], name == "srcdoc", line, f"{name} of {where}")

    def _embedded(self, value: str, is_document: bool, line: int, where: str) -> None:
        """A document inside an attribute (srcdoc, a data: URL): read as a page of its own, at this line."""
        if not is_document:
            found = _DOCUMENT_URL.match(value)
            if not found:
                return
            body = value[found.end() :]
            try:
                value = (
                    base64.b64decode(urllib.parse.unquote(body)).decode("utf-8", "replace")
                    if found.group(1)
                    else urllib.parse.unquote(body)
                )
            except ValueError:
                self.problems.append((line, f"{where} embeds a document that cannot be decoded"))
                return
        if self.depth >= MAX_DEPTH:
            self.problems.append((line, f"{where} embeds documents {MAX_DEPTH} deep; not read further"))
            return
        inner = PageReader(self.shown_attributes, self.depth + 1, self.skip_ledger, self.cells_apart)
        inner.feed(value)
        inner.close()
        inside = self._content > 0
        self.pieces += [Piece(piece.text, line, f"{where}: {piece.element}", inside) for piece in inner.pieces]
        self.labels += [Piece(piece.text, line, f"{where}: {piece.element}", inside) for piece in inner.labels]
        self.claims += [(line, *claim[1:]) for claim in inner.claims]  # a claim inside one is checked too
        self.problems += [(line, what) for _, what in inner.problems]

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)
        if tag not in VOID:
            self.handle_endtag(tag)

    def _quiet(self) -> bool:
        """No claim, claim value, figure table or row being read: a plain element (_values, with no
        attribute a stylesheet shows) then has no role, and closing one changes nothing but the stack."""
        return self._claim is None and not self._value and self._table is None and self._row is None and self.shortcuts

    def handle_endtag(self, tag: str) -> None:
        stack = self._stack
        if stack and stack[-1] == (tag, "", False) and tag not in ("figure", "script") and self._quiet():
            if tag in BLOCK and not self._hidden:
                self._add(CELL if self.cells_apart and tag in ("td", "th") else "\n", self.lineno, tag)
            stack.pop()
            self._open[tag] -= 1
            return
        line = self.lineno
        if tag in BLOCK:
            self._add(CELL if self.cells_apart and tag in ("td", "th") else "\n", line, tag)
        if not self._open.get(tag):
            return  # a stray end tag: browsers ignore it
        while self._stack:
            open_tag, role, ours = self._stack.pop()
            self._open[open_tag] -= 1
            self._ledger -= ours
            self._hidden -= role in ("hide", "claim")
            self._labels -= role == "label"
            self._claims -= role == "claim"
            self._closed(open_tag, role, line)
            if open_tag == tag:
                break

    def _closed(self, tag: str, role: str, line: int) -> None:
        if self._value:
            self._value -= 1
        if role == "claim" and self._claim is not None and not self._claims:
            self.claims.append((self._claim[0], self._claim[1], self._claim[2], self._claim[3]))
            self._claim = None
        if role == "math" and self._math is not None:
            self._add(f"\n{math.as_text(''.join(self._math))}\n", line, f"math in <{tag}>")
            self._math = None
        if tag == "script" and self._spec is not None and self._chart is not None:
            self.charts.append((self._chart[0], self._chart[1], "".join(self._spec), self._chart[2], self._chart[3]))
            self._spec = None
        if tag == "figure":
            self._chart = None
            self._table = None
        if tag == "tr":
            self._row = None
        if tag in ("td", "th") and self._cell is not None and self._row is not None:
            self._row.cells.append(self._cell)
            if tag == "th" and self._table is not None and len(self._table.rows) == 1:
                self._table.header.append(self._cell.text.strip())
            self._cell = None

    def handle_data(self, data: str) -> None:
        if self._value and self._claim is not None:
            self._claim[3] += data
        if self._spec is not None:
            self._spec.append(data)
            return
        if self._hidden:
            return
        if self._cell is not None:
            self._cell.text += data
        if self._math is not None:
            self._math.append(data)
            return
        line, tag = self.lineno, self._stack[-1][0] if self._stack else "html"
        if self._stack and self._stack[-1][1] == "raw":
            strings = css_strings(data) if tag == "style" else script_strings(data)
            for text in strings:
                self._add(f"\n{text}\n", line, f"a string of <{tag}>")
            return
        if tag in UNSHOWN:
            return
        if self._stack and self._stack[-1][1] == "caption":  # the author's text, inside the ledger's figure
            (self.labels if self._labels else self.pieces).append(Piece(data, line, CAPTION, self._content > 0))
            return
        if tag == "noscript":  # raw text to a browser that runs scripts; a document to one that does not
            self._embedded(data, True, line, "<noscript>")
            return
        self._add(data, line, f"<{tag}>")

    def _add(self, text: str, line: int, element: str) -> None:
        if self._hidden:
            return
        found = self.labels if self._labels else self.pieces
        if found and (text.isspace() or not text):  # a space or a break: part of the piece before it
            found[-1].text += text
        else:
            found.append(Piece(text, line, element, self._content > 0, self._ledger > 0))


_VALUES: dict[int, tuple[list, dict[str, str], list[str], bool]] = {}  # id(attrs) -> (attrs, values, classes, plain)
# Elements whose role _role reads from the tag itself, or whose attributes _attributes reads by their tag
# (rows and cells have a role only in a figure table; a link or a figure only with the attributes that
# _values' plain refuses).
_ROLE_TAGS = frozenset({"script", "input", "meta", *CODE, *RAW, *_EMBEDDING})
_ROLE_ATTRIBUTES = frozenset({*SHOWN_ATTRIBUTES, "data-claim", "data-chart"})


def _values(attrs: list[tuple[str, str | None]]) -> tuple[dict[str, str], list[str], bool]:
    """A start tag's attributes by name, its classes, and whether they are plain (no attribute a reader
    is shown, no claim or chart, no string in a style, no class of the ledger's or of math), made once for each list of attributes (the tokenizer
    gives a tag seen before the same list: tokens.py); read, never changed."""
    seen = _VALUES.get(id(attrs))
    if seen is not None and seen[0] is attrs:
        return seen[1], seen[2], seen[3]
    values = {name: value or "" for name, value in attrs}
    classes = values.get("class", "").split()
    plain = (
        _ROLE_ATTRIBUTES.isdisjoint(values)
        and not any(quote in values.get("style", "") for quote in "\"'")  # no string a stylesheet shows
        and not any("ledger" in c or "arithmatex" in c for c in classes)
    )
    if len(_VALUES) >= 1 << 16:
        _VALUES.clear()
    _VALUES[id(attrs)] = (attrs, values, classes, plain)
    return values, classes, plain


def _segment_end(rawdata: str, start: int, name: str) -> int:
    """Where the element whose start tag is at `start` ends, by its marks (its own start and end tags
    counted), or -1. A guess: what replay() keeps is what reading exactly these characters did."""
    depth = 0
    for mark in _SEGMENT_MARKS[name].finditer(rawdata, start):
        depth += -1 if mark.group(0)[1] == "/" else 1
        if depth == 0:
            return mark.end()
    return -1


def _added(found: list[Piece], before: int, length: int, line: int) -> tuple[str, tuple]:
    """What reading an element added to a list of pieces: text joined to the piece before, new pieces
    (their lines from the element's)."""
    more = found[before - 1].text[length:] if before else ""
    return more, tuple((p.text, p.line - line, p.element, p.content, p.ledger) for p in found[before:])


def _attribute_of(tag: str) -> str:
    return f"<{tag}>"


def read(
    page: str, shown_attributes: frozenset[str] = frozenset(), skip_ledger: bool = False, cells_apart: bool = False
) -> PageReader:
    """A page read once: its claims, charts, figure tables, text pieces, labels and problems."""
    reader = PageReader(shown_attributes | css_attributes(page), skip_ledger=skip_ledger, cells_apart=cells_apart)
    reader.feed(page)
    reader.close()
    return reader


def visible(html: str, skip_ledger: bool = False) -> str:
    """The text of an HTML page or fragment as a reader sees it; blocks and attributes on lines of their own."""
    return "".join(piece.text for piece in read(html, skip_ledger=skip_ledger).pieces)
