"""A built page read as a frame around its content: the theme's markup read once for every page it
frames, the content once for each page. Pure, but for what it keeps between pages (Kept: one per
verify() call).

The ledger writes each kind of generated page through one frame (site/frame.py): every byte of the
page outside its stamped content is the theme's but the page's own title and heading id. verify-site
trusts nothing the build wrote about itself, so the frame is found in the pages alone: read() splits
a page where its content begins (the stamp's BEGIN mark) and ends (its stamp), takes the page's own
strings from the heading its content opens with (`<h1 id="ID">TITLE`, both plain: letters,
digits, '.', '_', '-'), and puts a placeholder for each wherever it occurs outside the content.

The first page whose outside reads so is read whole. At the second, the outside is read once, by
itself, with its placeholders, every token through every rule (no shortcut), and kept only when it
adds pieces of text alone (no claim, chart, table or problem) and every placeholder fell where any
plain string reads as another: in text that is no claim's value, cell, chart spec, math or script,
or in the value of an attribute only shown or not read at all (href, content, title, alt, ...), and
never right after a character an entity could run on from. From then on, a page with the same
outside, byte for byte, is read as: the pieces kept of what comes before its content (its own strings
put back in place of the placeholders), its content read, then what comes after it given again from
what reading it added, where the reader stands in the same state there (else read). So the reader
keeps what it keeps of the whole page, piece for piece (tests/test_framed.py holds the two readings of
every page of built sites, and of attacked copies, equal). A page in any other form, or whose outside
is kept nowhere, is read whole; LEDGER_VERIFY_FRAMES=off reads every page whole.
"""

from __future__ import annotations

import hashlib
import os
import re
from dataclasses import dataclass, field

from ..prose import reader
from ..prose.reader import Piece
from ..trust.stamp import BEGIN, STAMP_CLASS

OFF = "LEDGER_VERIFY_FRAMES"  # "off": every page read whole (tests compare the two)
_STAMP = f'<span class="{STAMP_CLASS}"'
_STAMP_END = "></span>"  # the stamp's own end (stamp.py writes no '>' inside it)
_HEADING = re.compile(
    r'<h1 id="([A-Za-z0-9][A-Za-z0-9._-]*)">([A-Za-z0-9][A-Za-z0-9._-]*)<'
)  # (a permalink may follow)
MARK = "LEDGERFRAME"  # every placeholder starts so (the tokenizer lowers tag and attribute names)
_PLACES = ("LEDGERFRAMEAX", "LEDGERFRAMEBX")
# Attributes whose value the reader shows as it is written, or does not read: a placeholder there reads
# as the string it stands for. (Any other, such as class, type, id, style, src, is read for what it says.)
SHOWN_AS_WRITTEN = frozenset({"href", "content", *reader.SHOWN_ATTRIBUTES})
_MAX_FRAMES, _MAX_SEEN, _MAX_STATES = 64, 1 << 16, 16


@dataclass(slots=True)
class Split:
    """A page in three parts, its outside with a placeholder for each of its own strings."""

    before: str  # up to BEGIN, placeholders in
    content: str  # from BEGIN to the end of the stamp, as written
    after: str  # the rest, placeholders in
    strings: tuple[tuple[str, str], ...]  # (placeholder, the page's string), in the order put in
    page: str | bytes  # the page as written (its text, or its UTF-8 bytes as read)
    begin: int  # where its content begins in it
    end: int  # ... and ends

    @property
    def outside(self) -> str:
        """Up to BEGIN, as written (cut when asked: most pages never need it)."""
        return _text(self.page[: self.begin])

    @property
    def rest(self) -> str:
        """The rest, as written."""
        return _text(self.page[self.end :])


def _text(page: str | bytes) -> str:
    """A page's text (its bytes decoded as verify-site reads every page: sitefiles.Documents.text)."""
    return page.decode("utf-8", "replace") if isinstance(page, bytes) else page


@dataclass(slots=True)
class Frame:
    """What reading a frame's outside kept: before the content, and after it for each state it ends in."""

    pieces: tuple[tuple, ...]  # (text, line, element, content, ledger), placeholders in
    labels: tuple[tuple, ...]
    state: tuple  # PageReader.outside() where the content begins
    line: int  # the line it begins on
    after: dict[tuple, tuple | None] = field(default_factory=dict)  # outside() where it ends -> added


class Kept:
    """What one verify-site reading keeps from page to page (SiteContext holds one, made in verify(); nothing
    outlives it): the frames read, the outsides seen once and split before, each form's reading, what
    outsides hold; for sitepage.py, what it found of each form's figures and each part's."""

    def __init__(self) -> None:
        self.frames: dict[tuple, Frame | None] = {}  # (reader's settings, before, after) -> the frame, None: read whole
        self.seen: set[bytes] = set()  # digests of the outsides seen once
        self.templates: list[Template] = []  # outsides split before, newest first (split_as_before)
        self.around: dict[tuple, Form | None] = {}  # (reader's settings, outside, skeleton) -> its form, None: read
        self.outsides: dict[tuple, tuple[bool, bool, tuple[str, ...]]] = {}  # (before, after, marks) -> outside_holds'
        self.forms: dict[tuple, tuple] = {}  # (form, figures shown) -> what sitepage found of its figures
        self.parts: dict[str, list] = {}  # a part of a page's text -> its figures (sitepage.text_figures)


def read(
    page: str,
    kept: Kept,
    shown_attributes: frozenset[str] = frozenset(),
    skip_ledger: bool = False,
    cells_apart: bool = False,
) -> reader.PageReader:
    """reader.read(page, ...) as it would read the page whole, read in its frame where one is kept."""
    split = None if os.environ.get(OFF, "") == "off" else split_page(page, kept)
    if split is None:
        return reader.read(page, shown_attributes, skip_ledger, cells_apart)
    attributes = shown_attributes | reader.css_attributes(page)
    settings = (attributes, skip_ledger, cells_apart)
    key = (settings, split.before, split.after)
    frames, seen = kept.frames, kept.seen
    if key not in frames:
        digest = hashlib.blake2b(repr(key).encode("utf-8", "surrogatepass"), digest_size=16).digest()
        if digest not in seen:  # once: read whole (an outside no other page has costs nothing more)
            if len(seen) >= _MAX_SEEN:
                seen.clear()
            seen.add(digest)
            return reader.read(page, shown_attributes, skip_ledger, cells_apart)
        if len(frames) >= _MAX_FRAMES:
            frames.clear()
        frames[key] = _kept_before(split.before, settings)
    frame = frames[key]
    if frame is None:
        return reader.read(page, shown_attributes, skip_ledger, cells_apart)
    return _framed(frame, split, settings)


def split_page(page: str | bytes, kept: Kept, alone: bool = False) -> Split | None:
    """The page's outside and content (page: its text, or its UTF-8 bytes as read), its own strings
    replaced in the outside; None when it has not one BEGIN, then one stamp, then the rest, its content
    opening with a plain heading (alone: or any, the page then holding no strings of its own), or when the
    placeholders cannot be told from what the page holds. A page of one string of its own is remembered
    in `kept` for split_as_before."""
    split = split_as_before(page, kept)
    if split is not None:
        return split
    if isinstance(page, bytes):
        page = _text(page)
    begin = page.find(BEGIN)
    stamp = page.find(_STAMP, begin)
    end = page.find(_STAMP_END, stamp) if begin >= 0 and stamp >= 0 else -1
    heading = _HEADING.match(page, begin + len(BEGIN)) if end >= 0 else None
    if end < 0 or (heading is None and not alone):
        return None
    end += len(_STAMP_END)
    # one BEGIN, one stamp: counted in the three parts (the theme's are ASCII, quick to search; neither mark
    # can begin in one part and end in the next, which begin and end with a tag's '<' and '>')
    outside, content, rest = page[:begin], page[begin:end], page[end:]
    if outside.count(_STAMP) or content.count(BEGIN) != 1 or content.count(_STAMP) != 1:
        return None
    if rest.count(BEGIN) or rest.count(_STAMP):
        return None
    if heading is None:
        return Split(outside, content, rest, (), page, begin, end)
    own = sorted({heading.group(2), heading.group(1)}, key=lambda text: (-len(text), text))
    strings = tuple(zip(_PLACES[: len(own)], own, strict=True))
    before, after = outside, rest
    for place, text in strings:
        before, after = before.replace(text, place), after.replace(text, place)
    if put_back(before, strings) != outside or put_back(after, strings) != rest:
        return None  # a placeholder's text was on the page already
    if len(strings) == 1:
        _remember(kept.templates, before, after)
    return Split(before, content, after, strings, page, begin, end)


# The outsides of pages split before that held one string of their own (a claim page's id), each as the
# pieces between its placeholders, newest first: a page of the same form is split by comparing it with
# these pieces, its own string between each two, nothing searched for or replaced in its outside. A page
# read from disk is compared as its bytes with the pieces' UTF-8 (a C memcmp: a page's text is most often
# UCS-2 for one dash in its content, the theme's ASCII, and str compares two kinds a character at a time),
# and only its content is decoded.
Template = tuple[tuple[str, ...], tuple[bytes, ...], tuple[str, ...], tuple[bytes, ...], str, str]
_MAX_TEMPLATES = 8
_OWN = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")  # a heading's string (_HEADING's)
_LONGEST_MARK = max(len(BEGIN), len(_STAMP))
_AS_TEXT = (BEGIN, _STAMP, _STAMP_END, _OWN, _HEADING)  # what a page's text is split by; its bytes, by these:
_AS_BYTES = (
    BEGIN.encode(),
    _STAMP.encode(),
    _STAMP_END.encode(),
    re.compile(_OWN.pattern.encode()),
    re.compile(_HEADING.pattern.encode()),
)


def _remember(templates: list[Template], before: str, after: str) -> None:
    if any(kept[4] == before and kept[5] == after for kept in templates):
        return
    ahead, behind = tuple(before.split(_PLACES[0])), tuple(after.split(_PLACES[0]))
    templates.insert(0, (ahead, _utf8(ahead), behind, _utf8(behind), before, after))
    del templates[_MAX_TEMPLATES:]


def _utf8(pieces: tuple[str, ...]) -> tuple[bytes, ...]:
    return tuple(piece.encode("utf-8", "surrogatepass") for piece in pieces)


def split_as_before(page: str | bytes, kept: Kept) -> Split | None:
    """The Split of a page (its text, or its UTF-8 bytes as read) whose outside and rest are a remembered
    before and after with its own string put back in each placeholder's place, or None: split it as
    split_page does. What a Split is read for is that put_back(before) and put_back(after) are the page's
    own outside and rest, which this compares exactly (where the string is also in a piece, split_page
    would have put a placeholder there too: the same text either way; bytes equal to the pieces' UTF-8 are
    the pieces' text, and each boundary is at an ASCII character). Its marks are checked as split_page
    checks them: the pieces held no BEGIN or stamp (split_page refused such a page), nor can its string
    ([A-Za-z0-9._-], no '<' a mark begins with), so a mark outside its content would begin in a piece and
    run into a string: only there is it sought."""
    raw = isinstance(page, bytes)
    begin_mark, stamp_mark, stamp_end, own_pattern, heading_pattern = _AS_BYTES if raw else _AS_TEXT
    for ahead, ahead_bytes, behind, behind_bytes, before, after in kept.templates:
        pieces, rest_pieces = (ahead_bytes, behind_bytes) if raw else (ahead, behind)
        if not page.startswith(pieces[0]):  # type: ignore[arg-type]
            continue
        if len(pieces) > 1:  # the string is the first placeholder's (the page's title)
            own = own_pattern.match(page, len(pieces[0]))  # type: ignore[arg-type]
            string = own.group() if own is not None else None
        else:  # no placeholder before the content: its heading names the string
            heading = heading_pattern.match(page, len(pieces[0]) + len(begin_mark))  # type: ignore[arg-type]
            string = heading.group(1) if heading is not None else None
        if string is None:
            continue
        begin, outside_places = _pieces_at(page, 0, pieces, string)
        if begin < 0 or not page.startswith(begin_mark, begin):  # type: ignore[arg-type]
            continue
        heading = heading_pattern.match(page, begin + len(begin_mark))  # type: ignore[arg-type]
        if heading is None or heading.group(1) != string or heading.group(2) != string:
            continue
        stamp = page.find(stamp_mark, begin)  # type: ignore[arg-type]
        end = page.find(stamp_end, stamp) if stamp >= 0 else -1  # type: ignore[arg-type]
        if end < 0:
            continue
        end += len(stamp_end)
        if page.find(begin_mark, begin + 1, end) >= 0 or page.find(stamp_mark, stamp + 1, end) >= 0:  # type: ignore[arg-type]
            return None  # (split_page refuses it)
        finish, rest_places = _pieces_at(page, end, rest_pieces, string)
        if finish != len(page):
            continue
        marks = (begin_mark, stamp_mark)
        if _marks_near(page, marks, outside_places, len(string), 0, begin) or _marks_near(
            page, marks, rest_places, len(string), end, len(page)
        ):
            return None
        text = string.decode("ascii") if isinstance(string, bytes) else string
        if MARK in text:
            return None
        content = _text(page[begin:end])
        return Split(before, content, after, ((_PLACES[0], text),), page, begin, end)
    return None


def _pieces_at(page, at: int, pieces: tuple, string) -> tuple[int, list[int]]:
    """(where they end, where each copy of the string begins) where the page holds the pieces from `at`
    with the string between each two; (-1, []) where it does not."""
    places = []
    for index, piece in enumerate(pieces):
        if index:
            if not page.startswith(string, at):
                return -1, []
            places.append(at)
            at += len(string)
        if not page.startswith(piece, at):
            return -1, []
        at += len(piece)
    return at, places


def _marks_near(page, marks: tuple, places: list[int], length: int, start: int, end: int) -> bool:
    """Whether a mark (BEGIN or a stamp) is in the page between start and end where one could run into a
    string of this length at one of these places."""
    for at in places:
        low, high = max(start, at - _LONGEST_MARK + 1), min(end, at + length + _LONGEST_MARK - 1)
        if any(page.find(mark, low, high) >= 0 for mark in marks):
            return True
    return False


def put_back(text: str, strings: tuple[tuple[str, str], ...]) -> str:
    """The text with the page's own strings in place of the placeholders."""
    if MARK in text:
        for place, own in reversed(strings):
            text = text.replace(place, own)
    return text


def _framed(frame: Frame, split: Split, settings: tuple) -> reader.PageReader:
    """The page read in its frame: the kept pieces, its content read, what comes after given or read."""
    attributes, skip_ledger, cells_apart = settings
    found = reader.PageReader(attributes, skip_ledger=skip_ledger, cells_apart=cells_apart)
    strings = split.strings
    pieces = [Piece(put_back(text, strings), *rest) for text, *rest in frame.pieces]
    labels = [Piece(put_back(text, strings), *rest) for text, *rest in frame.labels]
    found.resume(frame.state, pieces, labels, frame.line)
    found.feed(split.content)
    state = found.outside()
    if state is not None and state not in frame.after:
        if len(frame.after) >= _MAX_STATES:
            frame.after.clear()
        frame.after[state] = _kept_after(state, split.after, settings)
    added = frame.after[state] if state is not None else None
    if added is None:
        found.feed(split.rest)
        found.close()
    else:
        _give(found, added, strings)
    return found


def _give(found: reader.PageReader, added: tuple, strings: tuple[tuple[str, str], ...]) -> None:
    """What reading after the content added, given to a reader that stands where it began."""
    line = found.lineno
    for kept, (more, new) in ((found.pieces, added[0]), (found.labels, added[1])):
        if more:
            kept[-1].text += put_back(more, strings)
        kept.extend(Piece(put_back(text, strings), line + at, *rest) for text, at, *rest in new)


class _Recorder(reader.PageReader):
    """A reader of a frame's outside, every token through every rule: .safe while every placeholder falls
    where any plain string reads as another."""

    def __init__(self, attributes: frozenset[str], skip_ledger: bool, cells_apart: bool):
        super().__init__(attributes, skip_ledger=skip_ledger, cells_apart=cells_apart)
        self.shortcuts = False
        self.safe = True

    def handle_starttag(self, tag, attrs):
        for name, value in attrs:
            shown = name in SHOWN_AS_WRITTEN or (name == "id" and tag != "figure")  # (a figure table's id is read)
            if _holds(name) or (value is not None and _holds(value) and not shown):
                self.safe = False
        self.safe = self.safe and not _holds(tag)
        super().handle_starttag(tag, attrs)

    def handle_endtag(self, tag):
        self.safe = self.safe and not _holds(tag)
        super().handle_endtag(tag)

    def handle_data(self, data):
        if _holds(data) and (
            self._claim is not None
            or self._value
            or self._spec is not None
            or self._math is not None
            or self._cell is not None
            or (self._stack and (self._stack[-1][1] == "raw" or self._stack[-1][0] == "noscript"))
        ):
            self.safe = False
        super().handle_data(data)

    def handle_comment(self, data):
        self.safe = self.safe and not _holds(data)

    def handle_decl(self, decl):
        self.safe = self.safe and not _holds(decl)


def _holds(text: str) -> bool:
    return MARK in text or MARK.lower() in text


_ENTITY_BEFORE = re.compile(rf"(?:[A-Za-z0-9&]|&#){MARK}")  # an entity could run on into the string


def _kept_before(before: str, settings: tuple) -> Frame | None:
    """The frame of an outside: what reading up to the content kept, or None where it cannot be kept."""
    if _ENTITY_BEFORE.search(before):
        return None
    recorder = _Recorder(*settings)
    recorder.feed(before)
    state = recorder.outside()
    if state is None or not recorder.safe or recorder.claims or recorder.charts or recorder.tables:
        return None
    if recorder.problems:
        return None
    return Frame(
        tuple((p.text, p.line, p.element, p.content, p.ledger) for p in recorder.pieces),
        tuple((p.text, p.line, p.element, p.content, p.ledger) for p in recorder.labels),
        state,
        recorder.lineno,
    )


def _kept_after(state: tuple, after: str, settings: tuple) -> tuple | None:
    """What reading the outside after the content adds from `state`: (text joined to the last piece, new
    pieces with lines from where it begins) for the pieces and the labels; None where it cannot be kept."""
    if _ENTITY_BEFORE.search(after):
        return None
    recorder = _Recorder(*settings)
    _, has_pieces, has_labels = state
    pieces = [Piece("", 1, "", False)] if has_pieces else []
    labels = [Piece("", 1, "", False)] if has_labels else []
    recorder.resume(state, pieces, labels, 1)
    recorder.feed(after)
    recorder.close()
    if not recorder.safe or recorder.claims or recorder.charts or recorder.tables or recorder.problems:
        return None
    return tuple(
        (
            kept[0].text if had else "",
            tuple((p.text, p.line - 1, p.element, p.content, p.ledger) for p in kept[1 if had else 0 :]),
        )
        for kept, had in ((recorder.pieces, has_pieces), (recorder.labels, has_labels))
    )


# -- a generated page around the ledger's own fragments ------------------------------------------------
#
# A claim page's content is its builder's skeleton (the headings Markdown made, the chart scripts) with
# the fragments the ledger rendered for the claim in it. verify-site renders them again from its fresh
# Report (verify/expected.py) and passes them here: where the content is exactly those fragments, in
# order, in a skeleton, the skeleton and the frame around it are read once for every page of that form,
# with every rule, and the fragments are not read at all. What a page reads as is then the skeleton's
# pieces and labels; what its fragments read as is the ledger's own rendering (tests/test_around.py
# reads every page of built sites and attacked copies both ways: verify-site finds the same problems).
# A fragment reads alone only where the skeleton leaves it so: at each one the reader stands where the
# content began (every token read, nothing open but what was open there, no label, claim or hidden
# element around it), and no figure reads across its edges: the fragment opens and closes with a block
# (a line break each side) and the skeleton's text on each side ends in white space, so two spaces or
# more with a line break run there (numbers.py goes on across such a run only into a unit or a
# magnitude, and a line break ends a bidirectional run), and a PROBE piece stands for the fragment
# in what the page is scanned for: "GB" is a unit any figure ending the text before would take, "1" a
# number any unit or magnitude beginning the text after would follow. A figure that touches the probe
# means an edge could join: the caller reads the page whole (sitepage.page_problems).

STAMP_ATTRIBUTES = frozenset(
    {"data-ledger-gate", "data-ledger-report", "data-ledger-path", "data-ledger-page", "hidden"}
)
_STAMP_FORM = re.compile(r'<span class="ledger-stamp"(?: data-ledger-[a-z]+="[^"<>&]*")* hidden></span>')
_CANONICAL_STAMP = f'<span class="{STAMP_CLASS}" hidden></span>'  # read as every stamp of _STAMP_FORM reads
HOLE = "a fragment the ledger rendered"  # the element of a PROBE piece
PROBE = "\nGB" + reader.CELL + "1\n"  # a fragment's block edges add a line break before and after it
_BLOCKS = "|".join(sorted(reader.BLOCK))
_BLOCK_START = re.compile(rf"<(?:{_BLOCKS})[ \t\n\r\f>]")
_BLOCK_END = re.compile(rf"</(?:{_BLOCKS})>")
_SPACES = re.compile(r"[ \t\n\r\f\v]*")
ASCII_SPACES = " \t\n\r\f\v"  # what numbers.normalise reads as a space one for one


def read_around(
    page: str | bytes,
    kept: Kept,
    fragments: list[str],
    shown_attributes: frozenset[str] = frozenset(),
    cells_apart: bool = False,
    marks: tuple[str, ...] = (),
) -> Around | None:
    """The page (its text, or its UTF-8 bytes as read) read as reader.read(page, ...) reads its text, but
    for `fragments` in its content, not read and a PROBE piece in place of each; None where the content is
    not those fragments in a skeleton read once for its form (or LEDGER_VERIFY_FRAMES=off): then read it
    with read(). Around.marked: whether the page around its content may hold one of `marks` (strings of
    no '<' or '>'; the caller seeks them in the content)."""
    split = None if os.environ.get(OFF, "") == "off" else split_page(page, kept, alone=True)
    if split is None or not all(f[:1] == "<" and f[-1:] == ">" for f in fragments):
        return None
    content, at = split.content, len(BEGIN)
    mentions, marked = outside_holds(split, kept, marks)
    attributes = shown_attributes | reader.css_attributes(content)
    if mentions:  # (the outside's are found as written, where some attr( may be)
        attributes |= reader.css_attributes(split.outside) | reader.css_attributes(split.rest)
    end = content.rfind(_STAMP)
    if not attributes.isdisjoint(STAMP_ATTRIBUTES) or not _STAMP_FORM.fullmatch(content, end):
        return None
    between: list[str] = []
    for fragment in fragments:
        found = content.find(fragment[:64], at, end)  # (a short needle: a long one costs its length to set up)
        if found >= 0 and not content.startswith(fragment, found):
            found = content.find(fragment, at, end)
        if found < 0 or not (_BLOCK_START.match(fragment) and _BLOCK_END.fullmatch(fragment, fragment.rfind("</"))):
            return None
        if not between or not _SPACES.fullmatch(content, at, found):  # (fragments apart by white space alone
            between.append(content[at:found])  # read as one: a block's edges add line breaks around each)
        at = found + len(fragment)
    between.append(content[at:end])
    skeleton = []
    for text in between:
        placed = text
        for place, own in split.strings:
            placed = placed.replace(own, place)
        if put_back(placed, split.strings) != text:
            return None  # a placeholder's text was on the page already
        skeleton.append(placed)
    settings = (attributes, False, cells_apart)
    key = (settings, split.before, tuple(skeleton), split.after)
    around = kept.around
    if key not in around:
        if len(around) >= _MAX_FRAMES:
            around.clear()
        around[key] = _kept_around(split.before, skeleton, split.after, settings)
    form = around[key]
    return None if form is None else Around(form, split.strings, content, marked)


@dataclass(frozen=True, eq=False, slots=True)
class Form:
    """What reading a page of one form keeps (every page whose outside and skeleton are these, but for its
    own strings), placeholders in; compared and hashed as itself."""

    pieces: tuple[tuple, ...]  # (text, line, element, content, ledger)
    labels: tuple[tuple, ...]
    text: str  # the pieces' text, joined
    probes: tuple[int, ...]  # where each PROBE starts in it


@dataclass(frozen=True, slots=True)
class Around:
    """A page read around its fragments: its form's reading, with the page's own strings."""

    form: Form
    strings: tuple[tuple[str, str], ...]  # (placeholder, the page's string)
    content: str  # the page as written from BEGIN to the end of its one stamp
    marked: bool = True  # whether its outside (before BEGIN and after the stamp) may hold one of read_around's marks

    def pieces(self) -> list[Piece]:
        return [Piece(put_back(text, self.strings), *rest) for text, *rest in self.form.pieces]


def outside_holds(split: Split, kept: Kept, marks: tuple[str, ...]) -> tuple[bool, bool]:
    """(whether the page's outside mentions "attr(", whether it holds one of the marks), each found once for
    every page whose outside reads so with placeholders, and around each placeholder with the page's own
    strings put back (a string of letters, digits, '.', '_', '-' may complete a word of either): True may
    be spurious, False is not."""
    key = (split.before, split.after, marks)
    outsides = kept.outsides
    found = outsides.get(key)
    if found is None:
        if len(outsides) >= _MAX_FRAMES:
            outsides.clear()
        outside = (split.before, split.after)
        windows = tuple(
            text[max(0, at - _WINDOW) : at + len(place) + _WINDOW]
            for text in outside
            for place, _ in split.strings
            for at in _places(text, place)
        )
        mentions = any(map(reader.mentions_attr, outside))
        found = outsides[key] = (mentions, any(mark in text for text in outside for mark in marks), windows)
    mentions, marked, windows = found
    if windows and not (mentions and marked):
        near = [put_back(window, split.strings) for window in windows]
        mentions = mentions or any(map(reader.mentions_attr, near))
        marked = marked or any(mark in text for text in near for mark in marks)
    return mentions, marked


_WINDOW = 16  # characters each side of a placeholder: more than "attr(" and any mark is long


def _places(text: str, place: str) -> list[int]:
    found, at = [], text.find(place)
    while at >= 0:
        found.append(at)
        at = text.find(place, at + 1)
    return found


def _kept_around(before: str, skeleton: list[str], after: str, settings: tuple) -> Form | None:
    """What reading a page of this form keeps, a PROBE piece at each fragment, or None where a fragment
    would not read alone there (the skeleton opens something around it, or its text runs up to it)."""
    if any(_ENTITY_BEFORE.search(text) for text in (before, *skeleton, after)):
        return None
    recorder = _Recorder(*settings)
    recorder.feed(before)
    recorder.feed(BEGIN)
    start = recorder.outside()
    if start is None or any(start[0][1:5]):  # hidden, the ledger's own, a label or a claim around the content
        return None
    probes = []
    for index, text in enumerate(skeleton):
        if index:
            now = recorder.outside()
            if now is None or now[0] != start[0]:
                return None
            recorder.pieces.append(Piece(PROBE, recorder.lineno, HOLE, True, False))
            probes.append(len(recorder.pieces) - 1)
        recorder.feed(text)
    recorder.feed(_CANONICAL_STAMP)
    recorder.feed(after)
    recorder.close()
    if not recorder.safe or recorder.claims or recorder.charts or recorder.tables or recorder.problems:
        return None
    pieces = recorder.pieces
    for index in probes:
        tail = "".join(piece.text for piece in pieces[max(0, index - 8) : index])
        head = pieces[index].text[len(PROBE) :] + (pieces[index + 1].text if index + 1 < len(pieces) else "")
        if not (tail[-1:] and tail[-1] in ASCII_SPACES and head[:1] and head[0] in ASCII_SPACES):
            return None  # (with a block's line break, two spaces or more on each side)
    starts, at = {}, 0
    for index, piece in enumerate(pieces):
        starts[index] = at
        at += len(piece.text)
    return Form(
        tuple((p.text, p.line, p.element, p.content, p.ledger) for p in pieces),
        tuple((p.text, p.line, p.element, p.content, p.ledger) for p in recorder.labels),
        "".join(piece.text for piece in pieces),
        tuple(starts[index] for index in probes),
    )
