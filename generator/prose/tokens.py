"""HTML -> its tokens as the WHATWG HTML standard's tokenizer gives them, as events. Pure.

A browser decides what a reader sees by the standard's tokenizer: where a comment ends (`-->`, `--!>`,
or at once in `<!-->`), which elements hold raw text (a script's, a style's; a title's and a text
area's, with character references; an iframe's, an xmp's, a noscript's), where a CDATA section is one
(inside SVG and MathML; a comment elsewhere) and how character references decode. Tokenizer reads as
it does, so the gate, the surfaces scan and verify-site read the text a browser shows
(tests/test_tokens.py holds it to html5lib-tests' tokenizer cases and to html5lib on odd markup and on
every page of built sites). The tree builder's part in tokenizing is kept too: which start tags switch
the tokenizer to raw text, and whether SVG or MathML is open (an element of theirs closes itself with
`/>`; an HTML element's `/>` is ignored, as browsers ignore it).

A built site is tens of megabytes of machine-written HTML, so the plain forms are read with one regular
expression each (text; a start tag whose attributes are `name`, `name="value"`, `name='value'` or
`name=word`, apart by spaces; an end tag; a comment with no `--` inside; a doctype), each as the
standard reads it; any other token is read by the standard's states, one character class at a time
(_tag, _markup). A start tag seen once is not parsed again: the theme repeats the same tags on every page.
"""

from __future__ import annotations

import re
from html import unescape
from html.entities import html5 as _ENTITIES

_SPACE = "[ \t\n\r\f]"  # the standard's white space (a carriage return is a line feed once the input is read)
_START = re.compile(
    rf"<([a-zA-Z][a-zA-Z0-9-]*)((?:{_SPACE}+[a-zA-Z_:][-a-zA-Z0-9_:.]*"
    rf"""(?:="[^"]*"|='[^']*'|=[^\s"'=<>`/]+(?=[ \t\n\r\f>]))?)*){_SPACE}*(/?)>"""
)
_ATTRIBUTE = re.compile(rf"""{_SPACE}+([a-zA-Z_:][-a-zA-Z0-9_:.]*)(?:=("[^"]*"|'[^']*'|[^\s"'=<>`/]+))?""")
_END = re.compile(rf"</([a-zA-Z][a-zA-Z0-9-]*){_SPACE}*>")
_COMMENT = re.compile(r"<!--(?![->])(?:[^-]|-(?!-))*-->")
_DOCTYPE = re.compile(r"<![dD][oO][cC][tT][yY][pP][eE][^<>]*>")
_LETTERS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")

# The slow path: the standard's states, a run of characters at a time.
_WHITE = re.compile(r"[ \t\n\r\f]*")
_TAG_NAME = re.compile(r"[^ \t\n\r\f/>]*")
_ATTRIBUTE_NAME = re.compile(r"[^ \t\n\r\f/>=]*")
_UNQUOTED = re.compile(r"[^ \t\n\r\f>]*")
_COMMENT_END = re.compile(r"--!?>")
_CHARREF = re.compile(r"&(?:#[xX]([0-9a-fA-F]+);?|#([0-9]+);?|([A-Za-z0-9]+;?))")
_LONGEST_NAME = max(map(len, _ENTITIES))

# The tree builder's part: start tags that switch the tokenizer (scripting on, as in a browser).
RCDATA = frozenset({"title", "textarea"})
RAWTEXT = frozenset({"style", "xmp", "iframe", "noembed", "noframes", "noscript"})
SCRIPT = "script"
PLAINTEXT = "plaintext"
RAW_TEXT = RCDATA | RAWTEXT | {SCRIPT, PLAINTEXT}
VOID = frozenset(
    {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr", "param"}
)
_BREAKOUT = frozenset(
    "b big blockquote body br center code dd div dl dt em embed h1 h2 h3 h4 h5 h6 head hr i img li listing menu "
    "meta nobr ol p pre ruby s small span strong strike sub sup table tt u ul var".split()
)  # an HTML start tag that ends SVG or MathML content (font too, with color, face or size)
_HTML_POINTS = frozenset({("svg", "foreignobject"), ("svg", "desc"), ("svg", "title")})
_HTML_ENCODINGS = frozenset({"text/html", "application/xhtml+xml"})
_TEXT_POINTS = frozenset({"mi", "mo", "mn", "ms", "mtext"})

_PARSED: dict[str, tuple[str, list[tuple[str, str | None]], bool]] = {}  # a start tag's text -> its event
_MAX_PARSED = 1 << 16

# Initial states of the standard's tokenizer, as html5lib-tests names them (tokenize()).
STATES = ("Data state", "PLAINTEXT state", "RCDATA state", "RAWTEXT state", "Script data state", "CDATA section state")


def decoded(text: str, attribute: bool = False) -> str:
    """Text with its character references decoded as the standard decodes them (in an attribute's
    value: a named one without ';' before a letter, a digit or '=' is left as written)."""
    if "&" not in text:
        return text
    return _CHARREF.sub(lambda match: _reference(match, attribute), text)


def _reference(match: re.Match, attribute: bool) -> str:
    hexadecimal, digits, name = match.groups()
    if name is None:
        number = (hexadecimal or digits).lstrip("0")
        code = int(number or "0", 16 if hexadecimal else 10) if len(number) <= 8 else 0x110000
        if code == 0 or code > 0x10FFFF or 0xD800 <= code <= 0xDFFF:
            return "\ufffd"
        return unescape(f"&#{code};") if 0x80 <= code <= 0x9F else chr(code)  # (the windows-1252 table)
    for length in range(min(len(name), _LONGEST_NAME), 1, -1):  # the longest name the table holds
        found = _ENTITIES.get(name[:length])
        if found is None:
            continue
        after = name[length : length + 1] or match.string[match.end() : match.end() + 1]
        if attribute and not name[:length].endswith(";") and (after == "=" or after.isascii() and after.isalnum()):
            return match.group(0)
        return found + name[length:]
    return match.group(0)


def start_tag(text: str) -> tuple[str, list[tuple[str, str | None]], bool] | None:
    """A plain start tag's (name, attributes, whether it ends with '/>') as the standard reads it; None if
    it is not in a plain form. The attribute list is shared: callers read it, never change it."""
    found = _PARSED.get(text)
    if found is not None:
        return found
    match = _START.fullmatch(text)
    if match is None:
        return None
    attributes: list[tuple[str, str | None]] = []
    seen = set()
    for name, value in _ATTRIBUTE.findall(match.group(2)):
        name = name.lower()
        if name in seen:
            continue  # a second attribute of one name is dropped
        seen.add(name)
        if not value:
            value = None  # no '=' (a quoted value keeps its quotes here, a bare one is never empty)
        elif value[0] in ("'", '"'):
            value = value[1:-1]
        attributes.append((name, decoded(value.replace("\0", "\ufffd"), attribute=True) if value else value))
    found = (match.group(1).lower(), attributes, match.group(3) == "/")
    if len(_PARSED) >= _MAX_PARSED:
        _PARSED.clear()
    _PARSED[text] = found
    return found


class Tokenizer:
    """Feed it a document, in one piece or several, then close(): the handle_* methods get its tokens.

    handle_starttag(name, attributes), handle_startendtag (an element that `/>` closes: one of SVG's or
    MathML's, or a void one), handle_endtag(name), handle_data(text, references decoded),
    handle_comment(text), handle_decl(doctype); self.lineno is the line the token starts on. A subclass
    may read some markup right after a start tag named in READ_AHEAD itself (read_ahead(): the body of a
    code block it does not read, a row of plain cells): no events are given for it. One that keeps what
    an element's events did can give it again where the same markup comes in the same state (replay())."""

    READ_AHEAD: frozenset[str] = frozenset()
    SEGMENTS: frozenset[str] = frozenset()
    segment_end = -1

    def __init__(self, tree: bool = True) -> None:
        self.tree = tree  # the tree builder's part (switching to raw text, foreign content): off for tokenize()
        self.rawdata = ""  # what is not read yet (a token the input may still complete)
        self.lineno = 1
        self.cdata_elem: str | None = None  # the raw-text element whose text is being read
        self.raw_state = ""  # its state: "RCDATA", "RAWTEXT", "script", "PLAINTEXT"; "CDATA" in a section
        # SVG and MathML open, from the outermost: (namespace, name, whether HTML's rules read its content)
        self.foreign: tuple[tuple[str, str, bool], ...] = ()

    def getpos(self) -> tuple[int, int]:
        return self.lineno, 0

    def feed(self, data: str) -> None:
        self.rawdata += data
        self._read(end=False)

    def close(self) -> None:
        self._read(end=True)

    # -- what a subclass does --------------------------------------------------------------------

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

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        pass

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        pass

    def handle_endtag(self, tag: str) -> None:
        pass

    def handle_data(self, data: str) -> None:
        pass

    def handle_comment(self, data: str) -> None:
        pass

    def handle_decl(self, decl: str) -> None:
        pass

    # -- reading ---------------------------------------------------------------------------------

    def _read(self, end: bool) -> None:
        """Read self.rawdata token by token; keep what the input may still complete unless at its end."""
        rawdata, i, line = self.rawdata, 0, self.lineno
        size = len(rawdata)
        while i < size:
            if self.raw_state:
                j = self._raw_text(rawdata, i, end)
            else:
                j = rawdata.find("<", i)
                last = j < 0 or (j == size - 1 and not end)  # no tag begins before the input's end
                if last:
                    j = _text_end(rawdata, i, size if j < 0 else j, end)
                if i < j:
                    self.lineno = line
                    self.handle_data(decoded(rawdata[i:j]))
                    line += rawdata.count("\n", i, j)
                    i = j
                if last:
                    break
                self.lineno = line
                j = self._token(rawdata, j, end)
            if j < 0:
                break  # the input may still complete it
            line += rawdata.count("\n", i, j)
            i = j
        self.lineno = line
        self.rawdata = rawdata[i:]

    def _token(self, rawdata: str, at: int, end: bool) -> int:
        """The token that begins with the '<' at `at`, its events given: where it ends (or where what a
        subclass read or gave again after it ends), or -1 when the input may still complete it."""
        after = rawdata[at + 1 : at + 2]
        if after in _LETTERS:
            tag = _START.match(rawdata, at)
            parsed = start_tag(tag.group(0)) if tag is not None else None
            if tag is None or parsed is None:
                return self._tag(rawdata, at, end)
            name, attributes, closes = parsed
            if name in self.SEGMENTS and not closes and (replayed := self.replay(rawdata, at, name)) > at:
                return replayed
            self._start(name, attributes, closes)
            if not self.raw_state and name in self.READ_AHEAD and not closes:
                return max(self.read_ahead(name, rawdata, tag.end()), tag.end())
            return tag.end()
        if after == "/" and (tag := _END.match(rawdata, at)) is not None:
            name = tag.group(1)
            self._end(name if name.islower() else name.lower())
            ends = tag.end()
        elif after == "/" and rawdata[at + 2 : at + 3] in _LETTERS:
            ends = self._tag(rawdata, at, end)
        elif after == "!" and (tag := _COMMENT.match(rawdata, at) or _DOCTYPE.match(rawdata, at)) is not None:
            if tag.group(0)[2:3] != "-":
                self.handle_decl(tag.group(0)[2:-1])
            else:
                self.handle_comment(tag.group(0)[4:-3].replace("\0", "\ufffd"))
            return tag.end()
        else:
            return self._markup(rawdata, at, end)
        if ends > 0 and ends == self.segment_end:
            self.segment_read()
        return ends

    # -- the tree builder's part -----------------------------------------------------------------

    def _start(self, name: str, attributes: list[tuple[str, str | None]], closes: bool) -> None:
        """A start tag token: its event, and what the tree builder does with it."""
        if not self.tree:
            (self.handle_startendtag if closes else self.handle_starttag)(name, attributes)
            return
        if self.foreign and not self._html_here(name):
            if name in _BREAKOUT or (name == "font" and any(a in ("color", "face", "size") for a, _ in attributes)):
                while self.foreign and not self._html_here(""):
                    self.foreign = self.foreign[:-1]
                self._start(name, attributes, closes)
                return
            namespace, current, _ = self.foreign[-1]
            namespace = "svg" if name == "svg" and current == "annotation-xml" else namespace
            (self.handle_startendtag if closes else self.handle_starttag)(name, attributes)
            if not closes:
                self.foreign += ((namespace, name, _html_point(namespace, name, attributes)),)
            return
        if name in ("svg", "math") or name in VOID:
            (self.handle_startendtag if closes else self.handle_starttag)(name, attributes)
            if not closes and name not in VOID:
                self.foreign += ((name, name, False),)
            return
        self.handle_starttag(name, attributes)  # an HTML element's '/>' is ignored, as browsers ignore it
        if self.foreign:
            self.foreign += (("html", name, True),)
        if name in RAW_TEXT:
            self.cdata_elem = name
            self.raw_state = (
                "RCDATA"
                if name in RCDATA
                else "script"
                if name == SCRIPT
                else "PLAINTEXT"
                if name == PLAINTEXT
                else "RAWTEXT"
            )

    def _html_here(self, name: str) -> bool:
        """Whether a start tag `name` is read by HTML's rules where SVG or MathML is open: at an HTML element
        or an HTML integration point, or at a MathML text integration point but for mglyph and malignmark."""
        namespace, current, html = self.foreign[-1]
        return html or (namespace == "math" and current in _TEXT_POINTS and name not in ("mglyph", "malignmark"))

    def _end(self, name: str) -> None:
        """An end tag token: its event, and the open SVG or MathML element it closes."""
        self.handle_endtag(name)
        if self.tree and self.foreign:
            names = [open_name for _, open_name, _ in self.foreign]
            if name in names:
                self.foreign = self.foreign[: len(names) - 1 - names[::-1].index(name)]
            elif name in ("br", "p") and not self._html_here(""):
                while self.foreign and not self._html_here(""):
                    self.foreign = self.foreign[:-1]

    # -- the standard's states, for what is not in a plain form ----------------------------------

    def _tag(self, rawdata: str, at: int, end: bool) -> int:
        """A start or end tag at `at` ('<' then a letter, or '</' then one) read by the standard's states:
        where it ends, its event given; -1 when the input ends inside it and may go on."""
        closing = rawdata[at + 1] == "/"
        i = at + (2 if closing else 1)
        name_end = _past(_TAG_NAME, rawdata, i)
        name = rawdata[i:name_end].lower().replace("\0", "\ufffd")
        attributes: list[tuple[str, str | None]] = []
        seen: set[str] = set()
        i, size = name_end, len(rawdata)
        closes = False
        while True:
            i = _past(_WHITE, rawdata, i)
            if i >= size:
                return -1 if not end else size  # the input ends in a tag: no token
            char = rawdata[i]
            if char == ">":
                i += 1
                break
            if char == "/":
                if rawdata.startswith(">", i + 1):
                    closes, i = True, i + 2
                    break
                i += 1
                continue
            start = i
            i = _past(_ATTRIBUTE_NAME, rawdata, i + 1)  # (a name may begin with '=')
            attribute = rawdata[start:i].lower().replace("\0", "\ufffd")
            value: str | None = None
            after = _past(_WHITE, rawdata, i)
            if after < size and rawdata[after] == "=":
                i = _past(_WHITE, rawdata, after + 1)
                if i >= size:
                    return -1 if not end else size
                quote = rawdata[i]
                if quote in "\"'":
                    close = rawdata.find(quote, i + 1)
                    if close < 0:
                        return -1 if not end else size
                    value, i = rawdata[i + 1 : close], close + 1
                else:
                    value_end = _past(_UNQUOTED, rawdata, i)
                    value, i = rawdata[i:value_end], value_end
                value = decoded(value.replace("\0", "\ufffd"), attribute=True)
            else:
                i = after
            if attribute not in seen:
                seen.add(attribute)
                attributes.append((attribute, value))
        if closing:
            self._end(name)
        else:
            self._start(name, attributes, closes)
        return i

    def _markup(self, rawdata: str, at: int, end: bool) -> int:
        """'<' not before a plain tag: a comment, a doctype, a CDATA section, a bogus comment, or text.
        Where it ends, its event given; -1 when the input ends inside it and may go on."""
        size = len(rawdata)
        if size - at < 10 and not end and any(rawdata[at:].lower() == form[: size - at] for form in _PREFIXES):
            return -1  # '<!-', '<!DOC', '<![CDA': what it is depends on what comes
        after = rawdata[at + 1 : at + 2]
        if after == "!":
            if rawdata.startswith("--", at + 2):
                return self._comment(rawdata, at + 4, end)
            if rawdata[at + 2 : at + 9].lower() == "doctype":
                close = rawdata.find(">", at + 9)
                if close < 0 and not end:
                    return -1
                close = size if close < 0 else close
                self.handle_decl(rawdata[at + 2 : close])
                return min(close + 1, size)
            if rawdata.startswith("[CDATA[", at + 2) and self.tree and self.foreign and self.foreign[-1][0] != "html":
                close = rawdata.find("]]>", at + 9)
                if close < 0 and not end:
                    return -1
                close = size if close < 0 else close
                if close > at + 9:
                    self.handle_data(rawdata[at + 9 : close])
                return min(close + 3, size)
            return self._bogus(rawdata, at + 2, end)
        if after == "?":
            return self._bogus(rawdata, at + 1, end)
        if after == "/":
            if at + 2 >= size:
                if not end:
                    return -1
                self.handle_data("</")
                return size
            if rawdata[at + 2] == ">":
                return at + 3  # '</>' is nothing
            return self._bogus(rawdata, at + 2, end)
        if not after and not end:
            return -1
        self.handle_data("<")
        return at + 1

    def _comment(self, rawdata: str, at: int, end: bool) -> int:
        """A comment whose text begins at `at` (comment_end() says where it ends)."""
        text_end, after = comment_end(rawdata, at)
        if after < 0 and not end:
            return -1
        self.handle_comment(rawdata[at:text_end].replace("\0", "\ufffd"))
        return after if after >= 0 else len(rawdata)

    def _bogus(self, rawdata: str, at: int, end: bool) -> int:
        """A bogus comment whose text begins at `at`: up to the first '>', or the input's end."""
        close = rawdata.find(">", at)
        if close < 0:
            if not end:
                return -1
            close = len(rawdata)
        self.handle_comment(rawdata[at:close].replace("\0", "\ufffd"))
        return min(close + 1, len(rawdata))

    def _raw_text(self, rawdata: str, at: int, end: bool) -> int:
        """The text of a raw-text element (or a CDATA section) from `at`, up to its end tag: its event
        given, where the end tag begins; -1 when the input may still bring the end tag."""
        state, name = self.raw_state, self.cdata_elem or ""
        if state == "PLAINTEXT":
            close = -1
        elif state == "CDATA":
            found = rawdata.find("]]>", at)
            close = found
        elif state == "script":
            close = _script_end(rawdata, at, name)
        else:
            match = re.compile(rf"</{re.escape(name)}(?=[ \t\n\r\f/>])", re.I).search(rawdata, at) if name else None
            close = match.start() if match else -1
        if close < 0 and not end:
            return -1
        text = rawdata[at : close if close >= 0 else len(rawdata)]
        if text:
            if state == "RCDATA":
                text = decoded(text)
            self.handle_data(text if state == "CDATA" else text.replace("\0", "\ufffd"))
        if close < 0:
            return len(rawdata)
        self.raw_state, self.cdata_elem = "", None
        if state == "CDATA":
            return close + 3
        return close  # the end tag: read next, by the tag states


def _past(run: re.Pattern[str], text: str, at: int) -> int:
    """Where a run of the characters one of the standard's states takes (a pattern of them, `*`) ends."""
    found = run.match(text, at)
    return found.end() if found else at


def _text_end(rawdata: str, start: int, end_of_text: int, end: bool) -> int:
    """Where text from `start` that runs to the input's end (or to a '<' it ends with) may be given now:
    all of it, but for a character reference the input may still go on with."""
    if not end and "&" in rawdata[max(start, end_of_text - _LONGEST_NAME - 2) : end_of_text]:
        cut = rawdata.rfind("&", start, end_of_text)
        if not re.search(r"[\s;]", rawdata[cut:end_of_text]):
            return cut
    return end_of_text


def comment_end(text: str, at: int) -> tuple[int, int]:
    """A comment whose text begins at `at` (after '<!--'): (where its text ends, where the comment ends),
    as the standard's comment states say: at the first '-->' or '--!>', or at once ('<!-->', '<!--->');
    never closed, its text runs to the input's end less a '-', '--' or '--!' it ends with, and the
    comment's end is -1."""
    if text.startswith(">", at) or text.startswith("->", at):
        return at, text.find(">", at) + 1
    close = _COMMENT_END.search(text, at)
    if close is not None:
        return close.start(), close.end()
    for tail in ("--!", "--", "-"):
        if text.endswith(tail, at):
            return len(text) - len(tail), -1
    return len(text), -1


def _html_point(namespace: str, name: str, attributes: list[tuple[str, str | None]]) -> bool:
    """Whether an SVG or MathML element is an HTML integration point: its content read by HTML's rules."""
    if namespace == "math" and name == "annotation-xml":
        return any(key == "encoding" and (value or "").lower() in _HTML_ENCODINGS for key, value in attributes)
    return (namespace, name) in _HTML_POINTS


_PREFIXES = ("<!--", "<!doctype", "<![cdata[")
_SCRIPT_MARKS = r"<!--|-->|</({name})(?=[ \t\n\r\f/>])|</(script)(?=[ \t\n\r\f/>])|<script(?=[ \t\n\r\f/>])"
_DASHES = re.compile(r"-*>")


def _script_end(rawdata: str, at: int, name: str) -> int:
    """Where a script's text from `at` ends: at its end tag ('</' and `name`, then white space, '/' or '>')
    outside an escaped `<!--<script>…</script>` (the standard's script data states), or -1."""
    marks = re.compile(_SCRIPT_MARKS.format(name=re.escape(name) if name else "(?!)"), re.I)
    escaped = double = False
    i = at
    while (mark := marks.search(rawdata, i)) is not None:
        found = mark.group(0)
        if found == "<!--":
            if escaped:
                i = mark.start() + 1
                continue
            escaped, i = True, mark.end()
            dashes = _DASHES.match(rawdata, i)  # '<!-->', '<!--->': out again at once
            if dashes:
                escaped, i = False, dashes.end()
        elif found == "-->":
            escaped = double = False
            i = mark.end()
        elif mark.group(1) is not None and not double:
            return mark.start()
        elif mark.group(1) is not None or mark.group(2) is not None:
            double = False  # '</script' in a doubly escaped script: escaped again
            i = mark.end()
        else:  # '<script'
            double = double or escaped
            i = mark.end()
    return -1


def tokenize(text: str, state: str = "Data state", last_start_tag: str | None = None) -> list[list]:
    """The standard's tokenizer alone (no tree builder) from one of its initial STATES, as html5lib-tests
    writes tokens: ["StartTag", name, {attributes}(, True)], ["EndTag", name], ["Comment", text],
    ["Character", text] (adjacent text joined), ["DOCTYPE"]."""
    tokens: list[list] = []

    class Recorder(Tokenizer):
        def handle_starttag(self, tag, attrs):
            tokens.append(["StartTag", tag, {name: value or "" for name, value in attrs}])

        def handle_startendtag(self, tag, attrs):
            tokens.append(["StartTag", tag, {name: value or "" for name, value in attrs}, True])

        def handle_endtag(self, tag):
            tokens.append(["EndTag", tag])

        def handle_data(self, data):
            if tokens and tokens[-1][0] == "Character":
                tokens[-1][1] += data
            else:
                tokens.append(["Character", data])

        def handle_comment(self, data):
            tokens.append(["Comment", data])

        def handle_decl(self, decl):
            tokens.append(["DOCTYPE"])

    reader = Recorder(tree=False)
    raw = {"PLAINTEXT state": "PLAINTEXT", "RCDATA state": "RCDATA", "RAWTEXT state": "RAWTEXT"}
    raw |= {"Script data state": "script", "CDATA section state": "CDATA"}
    if state in raw:
        reader.raw_state, reader.cdata_elem = raw[state], last_start_tag
    reader.feed(text)
    reader.close()
    return tokens
