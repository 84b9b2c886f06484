"""HTML -> the events html.parser.HTMLParser gives for it, faster where the markup is plain. Pure.

A built site is tens of megabytes of machine-written HTML, and HTMLParser's loop (a few regular
expressions and method calls per tag) was most of `ledger verify-site`'s time. FastParser reads the
plain forms itself, one regular expression each: text; a start tag whose attributes are `name`,
`name="value"`, `name='value'` or `name=word`, apart by ASCII spaces; an end tag; a comment with no
`--` inside; a doctype; the body of a script or a style up to its end tag. The first token in any
other form, and everything after it, is HTMLParser's own loop's. Each plain form is one HTMLParser
reads to the same event (the same tag, attributes, values and line), so the events are HTMLParser's,
token for token (tests/test_tokens.py holds them equal on odd markup and on every page of a built
site). A start tag seen once is not parsed again: the theme repeats the same tags on every page.
"""

from __future__ import annotations

import re
from html import unescape
from html.parser import HTMLParser

_SPACE = "[ \t\n\r\f]"
_START = re.compile(
    rf"<([a-zA-Z][a-zA-Z0-9-]*)((?:{_SPACE}+[a-zA-Z_:][-a-zA-Z0-9_:.]*"
    rf"""(?:="[^"]*"|='[^']*'|=[^\s"'=<>`/]+(?=[ \t\n\r\f>]))?)*){_SPACE}*(/?)>"""
)
_ATTRIBUTE = re.compile(rf"""{_SPACE}+([a-zA-Z_:][-a-zA-Z0-9_:.]*)(?:=("[^"]*"|'[^']*'|[^\s"'=<>`/]+))?""")
_END = re.compile(rf"</([a-zA-Z][a-zA-Z0-9-]*){_SPACE}*>")
_COMMENT = re.compile(r"<!--(?![->])(?:[^-]|-(?!-))*-->")
_DOCTYPE = re.compile(r"<![dD][oO][cC][tT][yY][pP][eE][^<>]*>")
_LETTERS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
_PARSED: dict[str, tuple[str, list[tuple[str, str | None]], bool]] = {}  # a start tag's text -> its event
_MAX_PARSED = 1 << 16


def start_tag(text: str) -> tuple[str, list[tuple[str, str | None]], bool] | None:
    """A plain start tag's (name, attributes, whether it closes itself) as HTMLParser reads it; None if
    it is not in a plain form. The attribute list is shared: callers read it, never change it."""
    found = _PARSED.get(text)
    if found is not None:
        return found
    match = _START.fullmatch(text)
    if match is None:
        return None
    attributes = []
    for name, value in _ATTRIBUTE.findall(match.group(2)):
        if not value:
            value = None  # no '=' (a quoted value keeps its quotes here, a bare one is never empty)
        elif value[0] in ("'", '"'):
            value = value[1:-1]
        attributes.append((name.lower(), unescape(value) if value else value))
    found = (match.group(1).lower(), attributes, match.group(3) == "/")
    if len(_PARSED) >= _MAX_PARSED:
        _PARSED.clear()
    _PARSED[text] = found
    return found


class FastParser(HTMLParser):
    """HTMLParser, fed one whole document: plain markup read here, the rest by HTMLParser from there on.

    A subclass may read some markup right after a start tag named in READ_AHEAD itself (read_ahead():
    the body of a code block it does not read, a row of plain cells): no events are given for it. One that keeps what an
    element's events did can give it again where the same markup comes in the same state (replay())."""

    READ_AHEAD: frozenset[str] = frozenset()
    SEGMENTS: frozenset[str] = frozenset()
    segment_end = -1

    def read_ahead(self, name: str, rawdata: str, at: int) -> int:
        """Right after a start tag named in READ_AHEAD (self.lineno is its line): where the subclass has
        read the markup from `at` to itself (what its events would have done, done), or `at`."""
        return at

    def replay(self, rawdata: str, start: int, name: str) -> int:
        """Before a start tag named in SEGMENTS: where the element read before from the same markup and
        state ends, its events' effects applied (nothing read), or -1 to read it. To record one, set
        segment_end to the offset where it ends: segment_read() is called when an end tag ends there."""
        return -1

    def segment_read(self) -> None:
        pass

    def goahead(self, end: bool) -> None:  # type: ignore[override]
        if not end and self.convert_charrefs:
            self._plain()
        super().goahead(end)

    def _plain(self) -> None:
        """Read self.rawdata from its start while its markup is plain; leave the rest to HTMLParser."""
        rawdata, i, line = self.rawdata, 0, self.lineno
        while True:
            if self.cdata_elem:  # a script's or a style's body, up to its end tag (HTMLParser's own pattern)
                close = self.interesting.search(rawdata, i)
                if close is None:
                    break  # never closed: HTMLParser reads no more of the page either
                j = close.start()
                if i < j:
                    self.lineno = line
                    self.handle_data(rawdata[i:j])
                    line += rawdata.count("\n", i, j)
                self.lineno = line
                self.handle_endtag(self.cdata_elem)
                self.clear_cdata_mode()
                line += rawdata.count("\n", j, close.end())
                i = close.end()
                continue
            j = rawdata.find("<", i)
            if j < 0:
                break  # the text after the last tag: HTMLParser's (it may hold a reference cut short)
            if i < j:
                self.lineno = line
                self.handle_data(unescape(rawdata[i:j]))
                line += rawdata.count("\n", i, j)
                i = j
            self.lineno = line
            after = rawdata[j + 1 : j + 2]
            if after in _LETTERS:
                tag = _START.match(rawdata, j)
                parsed = start_tag(tag.group(0)) if tag is not None else None
                if tag is None or parsed is None:
                    break
                name, attributes, closes = parsed
                if name in self.SEGMENTS and not closes and (replayed := self.replay(rawdata, j, name)) > j:
                    line += rawdata.count("\n", j, replayed)
                    i = replayed
                    continue
                if closes:
                    self.handle_startendtag(name, attributes)
                else:
                    self.handle_starttag(name, attributes)
                    if name in self.CDATA_CONTENT_ELEMENTS:
                        self.set_cdata_mode(name)
                    elif name in self.READ_AHEAD and (ahead := self.read_ahead(name, rawdata, tag.end())) > tag.end():
                        line += rawdata.count("\n", j, ahead)
                        i = ahead
                        continue
            elif after == "/":
                tag = _END.match(rawdata, j)
                if tag is None:
                    break
                name = tag.group(1)
                self.handle_endtag(name if name.islower() else name.lower())
                if tag.end() == self.segment_end:
                    self.segment_read()
            elif after == "!":
                tag = _COMMENT.match(rawdata, j) or _DOCTYPE.match(rawdata, j)
                if tag is None:
                    break
                if tag.group(0)[2:3] != "-":
                    self.handle_decl(tag.group(0)[2:-1])
                else:
                    self.handle_comment(tag.group(0)[4:-3])
            else:
                break
            line += rawdata.count("\n", j, tag.end())
            i = tag.end()
        if i:
            self.lineno = line
            self.offset = i - (rawdata.rfind("\n", 0, i) + 1)
            self.rawdata = rawdata[i:]
