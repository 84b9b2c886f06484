"""A built page read as a frame around its content: the theme's markup read once for every page it
frames, the content once for each page. Pure, but for what it keeps between pages.

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

from ..trust.stamp import BEGIN, STAMP_CLASS
from . import reader
from .reader import Piece

OFF = "LEDGER_VERIFY_FRAMES"  # "off": every page read whole (tests compare the two)
_STAMP = f'<span class="{STAMP_CLASS}"'
_STAMP_END = "></span>"  # the stamp's own end (stamp.py writes no '>' inside it)
_HEADING = re.compile(
    r'<h1 id="([A-Za-z0-9][A-Za-z0-9._-]*)">([A-Za-z0-9][A-Za-z0-9._-]*)<'
)  # (a permalink may follow)
_MARK = "LEDGERFRAME"  # every placeholder starts so (the tokenizer lowers tag and attribute names)
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
    rest: str  # the rest, as written
    strings: tuple[tuple[str, str], ...]  # (placeholder, the page's string), in the order put in


@dataclass(slots=True)
class Frame:
    """What reading a frame's outside kept: before the content, and after it for each state it ends in."""

    pieces: tuple[tuple, ...]  # (text, line, element, content, ledger), placeholders in
    labels: tuple[tuple, ...]
    state: tuple  # PageReader.outside() where the content begins
    line: int  # the line it begins on
    after: dict[tuple, tuple | None] = field(default_factory=dict)  # outside() where it ends -> added


_FRAMES: dict[tuple, Frame | None] = {}  # (reader's settings, before, after) -> the frame, None: read whole
_SEEN: set[bytes] = set()  # digests of the outsides seen once


def read(
    page: str, shown_attributes: frozenset[str] = frozenset(), skip_ledger: bool = False, cells_apart: bool = False
) -> reader.PageReader:
    """reader.read(page, ...) as it would read the page whole, read in its frame where one is kept."""
    split = None if os.environ.get(OFF, "") == "off" else split_page(page)
    if split is None:
        return reader.read(page, shown_attributes, skip_ledger, cells_apart)
    attributes = shown_attributes | reader.css_attributes(page)
    settings = (attributes, skip_ledger, cells_apart)
    key = (settings, split.before, split.after)
    if key not in _FRAMES:
        digest = hashlib.blake2b(repr(key).encode("utf-8", "surrogatepass"), digest_size=16).digest()
        if digest not in _SEEN:  # once: read whole (an outside no other page has costs nothing more)
            if len(_SEEN) >= _MAX_SEEN:
                _SEEN.clear()
            _SEEN.add(digest)
            return reader.read(page, shown_attributes, skip_ledger, cells_apart)
        if len(_FRAMES) >= _MAX_FRAMES:
            _FRAMES.clear()
        _FRAMES[key] = _kept_before(split.before, settings)
    frame = _FRAMES[key]
    if frame is None:
        return reader.read(page, shown_attributes, skip_ledger, cells_apart)
    return _framed(frame, split, settings)


def split_page(page: str) -> Split | None:
    """The page's outside and content, its own strings replaced in the outside; None when it has not one
    BEGIN, then one stamp, then the rest, its content opening with a plain heading, or when the
    placeholders cannot be told from what the page holds."""
    begin = page.find(BEGIN)
    stamp = page.find(_STAMP, begin)
    if begin < 0 or stamp < 0 or page.count(BEGIN) != 1 or page.count(_STAMP) != 1:
        return None
    end = page.find(_STAMP_END, stamp)
    heading = _HEADING.match(page, begin + len(BEGIN))
    if end < 0 or heading is None:
        return None
    end += len(_STAMP_END)
    own = sorted({heading.group(2), heading.group(1)}, key=lambda text: (-len(text), text))
    strings = tuple(zip(_PLACES[: len(own)], own, strict=True))
    before, after = page[:begin], page[end:]
    for place, text in strings:
        before, after = before.replace(text, place), after.replace(text, place)
    if put_back(before, strings) != page[:begin] or put_back(after, strings) != page[end:]:
        return None  # a placeholder's text was on the page already
    return Split(before, page[begin:end], after, page[end:], strings)


def put_back(text: str, strings: tuple[tuple[str, str], ...]) -> str:
    """The text with the page's own strings in place of the placeholders."""
    if _MARK in text:
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
            if _holds(name) or (value is not None and _holds(value) and name not in SHOWN_AS_WRITTEN):
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
            or (self._stack and self._stack[-1][1] == "raw")
        ):
            self.safe = False
        super().handle_data(data)

    def handle_comment(self, data):
        self.safe = self.safe and not _holds(data)

    def handle_decl(self, decl):
        self.safe = self.safe and not _holds(decl)

    def handle_pi(self, data):
        self.safe = self.safe and not _holds(data)

    def unknown_decl(self, data):
        self.safe = self.safe and not _holds(data)


def _holds(text: str) -> bool:
    return _MARK in text or _MARK.lower() in text


_ENTITY_BEFORE = re.compile(rf"(?:[A-Za-z0-9&]|&#){_MARK}")  # an entity could run on into the string


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
