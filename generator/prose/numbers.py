"""Figures in plain text: a number with a unit, ×, or % as a reader reads it -> where it is. Pure.

normalise() turns text into what the eye sees: Unicode compatibility forms folded (full-width
digits, ％, ㎳), digits of any script as ASCII, look-alike signs as one sign (✕ ⨯ and Cyrillic х as ×
and x, − as -, μ as µ), invisible characters (zero-width spaces, soft hyphens) dropped and every
kind of space as a space. It keeps, for each character it returns, the offset of the character
it came from. figures() then finds each figure: signed (-15%), glued (64GB), with a magnitude
(1.2 million rows, 3k req/s, $4.5M), with a currency sign before it ($12, €3.50) or after it
(12 €), spelled out (15 percent, 3.7 times, 2 milliseconds, three times, twenty percent, twice as
fast, tenfold), or standing alone with a magnitude word (1.2 million, two billion).

Its units are the unit table's (units.py): every spelling of every unit the claims accept, built-in
(with their prefixes, spelled-out names and abbreviations) and the project's own (`units:`), and the
words a reader reads as one (units.PROSE_ONLY: times, fold, per cent, FLOPs); a rate is a unit,
then `/` and a word or `per` and a unit. Labels are not figures (B=16, 4-bit, 8192×2048, a 9B model,
256K context, 2 x 3). A number is found by one regular expression over the text (a lookahead and a
back-reference make it atomic, so a number once read is never read again shorter) and its unit by
looking up the words after it, a bounded number of characters, so the scan is linear in the text.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

from ..lang import units

RATIO_SIGNS = ("×", "x", "X")
# Unicode's currency symbols (category Sc) as normalise() leaves them ($ ＄ ﹩ all read as $).
CURRENCY_SIGNS = "$¢£¤¥֏؋߾߿৲৳৻૱௹฿៛\u20a0-\u20c0꠸﷼"
# A magnitude written after a number: glued (3k, 1.2M, 4.5bn: only with a unit after it, or a currency
# sign before it, since 256K context and a 9B model are labels) or as a word (1.2 million: always).
SUFFIXES = ("k", "K", "M", "B", "G", "T", "bn", "mn")
MAGNITUDE_WORDS = (*units.SCALE_WORDS, "bn", "mn")
_SUFFIX_STARTS = frozenset(suffix[0] for suffix in SUFFIXES)
_MAGNITUDE_STARTS = frozenset(word[0] for word in MAGNITUDE_WORDS)
# Numbers spelled out: "one" and "a" count only before a magnitude (a hundred, one million): alone they
# are articles far more often than figures ("one sequence at a time").
_SMALL = (
    "zero two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
    "seventeen eighteen nineteen"
).split()
_TENS = "twenty thirty forty fifty sixty seventy eighty ninety".split()
_SCALES = ("hundred", *units.SCALE_WORDS)
_ONES = "one two three four five six seven eight nine".split()
_WORD_NUMBER = (
    rf"(?:(?:{'|'.join(_TENS)})(?:-(?:{'|'.join(_ONES)}))?|{'|'.join(_SMALL)}|(?:one|a)(?= (?:{'|'.join(_SCALES)})))"
    rf"(?:[ -](?:{'|'.join(_SCALES)}))*"
)
# Multipliers and fractions spelled in words: two and a half times, doubled, three-quarters, one third, an
# order of magnitude ("halves" and "double" alone are left out: the two halves, double precision).
_PARTS = "half|thirds?|quarters?|fifths?|sixths?|sevenths?|eighths?|ninths?|tenths?"
_SPELLED = re.compile(
    rf"(?<![\w-])(?:(?:{_WORD_NUMBER}|one|an?) and an? (?:half|third|quarter) times"
    r"|(?:doubl|tripl|quadrupl)(?:ed|es|ing)|halv(?:ed|ing)"
    rf"|(?:one|{'|'.join(_SMALL[1:9])})[- ](?:{_PARTS})"
    rf"|(?:an|one|{_WORD_NUMBER}) orders? of magnitude)(?![\w-])",
    re.IGNORECASE,
)
_WORDS = re.compile(rf"(?<![\w-])(?P<number>{_WORD_NUMBER})(?![\w])", re.IGNORECASE)
_MULTIPLIER = re.compile(
    rf"(?<![\w-])(?:(?:twice|thrice)(?= (?:as|the)\b)|(?:{_WORD_NUMBER})-?fold|\d+(?:\.\d+)?-fold)(?![\w-])",
    re.IGNORECASE,
)
# A number starts a figure unless glued to a word, a decimal point, '=', '/', '^' or '×' before it, or
# to a '-' that follows a letter (35B-A3B, top-8); a '-' after a digit or a space is a range or a sign.
# Digits grouped by thousands (1,234; 1'234; 1_234; 1 234 with a thin or no-break space, which figures()
# reads as ' between digits) are one number, quoted whole: one separator throughout, groups of three.
_NUMBER = re.compile(
    rf"(?<![\w.=/^×])(?<![A-Za-z]-)(?P<sign>[+±-]?)(?P<currency>[{CURRENCY_SIGNS}] ?)?"
    rf"(?=(?P<number>\d{{1,3}}(?P<group>[,'’_])\d{{3}}(?:(?P=group)\d{{3}})*(?:\.\d+)?(?![,'’_]?\d)"
    rf"|\d+(?:[.,]\d+)?(?:[eE][+-]?\d+)?|\.\d+))(?P=number)"
)
# A space a typesetter puts between digit groups (no-break, figure, thin, narrow no-break): a separator.
_GROUP_SPACES = frozenset("\u00a0\u2007\u2009\u202f")
_RATE_WORD = re.compile(r"/[A-Za-zµ]+")  # 20 MB/frame, 3 KB/token: a rate over any counted thing
_LOOK_ALIKE = {
    "−": "-", "‐": "-", "‑": "-", "‒": "-", "–": "-", "﹣": "-", "－": "-",
    "✕": "×", "✖": "×", "⨯": "×", "⨉": "×", "╳": "×", "⤫": "×", "⤬": "×",
    "х": "x", "Х": "X", "ⅹ": "x",
    "٪": "%", "⁒": "%", "﹪": "%", "％": "%",
    "٫": ".", "٬": ",",
    "μ": "µ",
}  # fmt: skip


_SPACES = re.compile(" +")
_PRODUCT = re.compile(r" *\d")  # "2 x 3": a number after the sign
_NON_ASCII = re.compile(r"[^\x00-\x7f]")


@dataclass(frozen=True, slots=True)
class Figure:
    start: int  # offsets in the text given to figures() (not the normalised one)
    end: int
    text: str  # as normalised: "3.71×", "-15%", "42 GB/s"
    unit: str = ""  # its unit as written, with any rate: "×", "GB/s", "B per token"; a lone magnitude: "million"
    seen: str = ""  # as a reader sees it, for messages: "3,5 %", "½ GB", "٣٫٥٪" (invisible characters left out)


def normalise(text: str) -> tuple[str, Sequence[int]]:
    """What a reader sees, and for each of its characters the offset it came from in text.

    ASCII whitespace becomes a space one for one (C speed); only non-ASCII characters are visited.
    """
    spaced = text.replace("\n", " ").replace("\t", " ").replace("\r", " ").replace("\x0b", " ").replace("\x0c", " ")
    if spaced.isascii():
        return spaced, range(len(spaced))
    out: list[str] = []
    origin: list[int] = []
    last = 0
    for match in _NON_ASCII.finditer(spaced):
        index = match.start()
        out.append(spaced[last:index])
        origin.extend(range(last, index))
        pieces = _fold(match.group(0))
        out.append(pieces)
        origin.extend([index] * len(pieces))
        last = index + 1
    out.append(spaced[last:])
    origin.extend(range(last, len(spaced)))
    return "".join(out), origin


def _fold(char: str) -> str:
    category = unicodedata.category(char)
    if category in ("Cf", "Mn", "Me"):
        return ""  # zero-width space and joiner, soft hyphen, byte-order mark, bidi controls; combining marks
    if category == "No" and "\u2044" in unicodedata.normalize("NFKC", char):
        return f"{unicodedata.numeric(char):.3g}".removeprefix("0")  # ½ -> .5: 3½ reads 3.5, ½ GB .5 GB
    if char.isspace() or category == "Zs":
        return " "
    if char in _LOOK_ALIKE:
        return _LOOK_ALIKE[char]
    if category == "Nd":
        return str(unicodedata.decimal(char))
    folded = unicodedata.normalize("NFKC", char)
    return "".join(_LOOK_ALIKE.get(piece, piece) for piece in folded)


@dataclass(frozen=True, slots=True)
class Vocabulary:
    """Every spelling a figure's unit can have, from the unit table, and the longest one's length."""

    spellings: frozenset[str]
    longest: int
    starts: frozenset[str] = frozenset()  # the first character of every spelling


@functools.lru_cache(maxsize=8)
def vocabulary(table: units.UnitTable = units.BUILT_IN) -> Vocabulary:
    """The table's terms (built-in and the project's own), its ratio spellings, the words a reader reads as
    units (units.PROSE_ONLY) and the currency signs."""
    found = {*table.terms, *(text for text in units.RATIOS if text), *units.PROSE_ONLY, *_sign_characters()}
    return Vocabulary(frozenset(found), max(len(text) for text in found), frozenset(text[0] for text in found))


def _sign_characters() -> list[str]:
    """CURRENCY_SIGNS as characters: the class's one range (₠-⃀) spelled out, its '-' no sign."""
    single = CURRENCY_SIGNS.replace("\u20a0-\u20c0", "")
    return [*single, *(chr(c) for c in range(0x20A0, 0x20C1))]


# A text with none of these words (nor "fold") has no number in words: most claim statements, so the
# passes for words are skipped on one look at its words.
_SPELLED_WORDS = (
    "half", "third", "thirds", "quarter", "quarters", "fifth", "fifths", "sixth", "sixths", "seventh", "sevenths",
    "eighth", "eighths", "ninth", "ninths", "tenth", "tenths", "magnitude", "halved", "halving", *(f"{stem}{end}" for stem in ("doubl", "tripl", "quadrupl") for end in ("ed", "es", "ing"))
)  # fmt: skip
_NUMBER_WORDS = frozenset((*_SMALL, *_TENS, *_SCALES, *_SPELLED_WORDS, "twice", "thrice"))
_LETTERS = re.compile(r"[a-z]+")
# The words every match of _MULTIPLIER holds, read as it reads them (IGNORECASE: its 'i' is also İ and ı)
_MULTIPLIED = re.compile("fold|twice|thrice", re.IGNORECASE)
_DIGIT = re.compile(r"\d")


def figures(text: str, table: units.UnitTable = units.BUILT_IN) -> list[Figure]:
    """Every figure in plain text (already free of markup), in order, units from `table` (the project's):
    as stored, and where bidirectional controls reorder it, as a reader sees it (an override reverses its
    characters, an embedding its runs)."""
    found = _figures(text, table)
    if _BIDI.search(text):
        at = {(figure.start, figure.end) for figure in found}
        for start, end, shown in _reordered(text):
            for figure in _figures(shown, table):
                place = (start, end)
                if place not in at:
                    at.add(place)
                    found.append(Figure(start, end, figure.text, figure.unit, _seen(shown[figure.start : figure.end])))
        found.sort(key=lambda figure: figure.start)
    return found


def _figures(text: str, table: units.UnitTable) -> list[Figure]:
    if not text:
        return []
    seen, origin = normalise(text)
    if not _GROUP_SPACES.isdisjoint(text):
        seen = _grouped(seen, origin, text)
    words = vocabulary(table)
    found = [_at(origin, seen, *span, text) for span in _digit_figures(seen, words)] if _DIGIT.search(seen) else []
    lowered = seen.lower()
    if "fold" in lowered or not _NUMBER_WORDS.isdisjoint(_LETTERS.findall(lowered)):
        found += [_at(origin, seen, *span, text) for span in _word_figures(seen, words)]
        if _MULTIPLIED.search(seen):  # the words _MULTIPLIER needs: a pass over the text saved where none is
            found += [
                _at(origin, seen, m.start(), m.end(), "fold", text)
                for m in tried_matches(_MULTIPLIER_START, _MULTIPLIER, seen)
            ]
        found += [_at(origin, seen, m.start(), m.end(), "fold", text) for m in _SPELLED.finditer(seen)]
        found.sort(key=lambda figure: figure.start)
    return found


def _grouped(seen: str, origin: Sequence[int], text: str) -> str:
    """seen with each typesetter's space between two digits (1 234 ms with a thin space) read as the group
    separator ' (a plain space between numbers still parts them: batch 16 256 tokens)."""
    chars = list(seen)
    for at in range(1, len(chars) - 1):
        if (
            chars[at] == " "
            and text[origin[at]] in _GROUP_SPACES
            and chars[at - 1].isdigit()
            and chars[at + 1].isdigit()
        ):
            chars[at] = "'"
    return "".join(chars)


def _at(origin: Sequence[int], seen: str, start: int, end: int, unit: str, text: str) -> Figure:
    first, last = origin[start], origin[end - 1] + 1
    return Figure(first, last, _SPACES.sub(" ", seen[start:end]), unit, _seen(text[first:last]))


def _seen(source: str) -> str:
    """What a reader sees of a figure's characters: invisible ones left out, any run of spaces one space."""
    kept = (" " if char.isspace() else char for char in source if unicodedata.category(char) != "Cf")
    return _SPACES.sub(" ", "".join(kept))


# Bidirectional controls: embeddings and isolates (RLE, RLI, FSI; their left-to-right twins), overrides
# (RLO, LRO), each ended by PDF or PDI or the end of the line.
_BIDI = re.compile("[\u202a-\u202e\u2066-\u2069]")
_RTL = {"\u202b": "runs", "\u2067": "runs", "\u2068": "runs", "\u202e": "chars"}
_RUN = re.compile(r"[\w.,%×/µ]+|[^\w.,%×/µ]+")


def _reordered(text: str) -> list[tuple[int, int, str]]:
    """(start, end, the segment as displayed) for each right-to-left embedding, isolate or override."""
    found = []
    for match in re.finditer("([\u202b\u202e\u2067\u2068])([^\u202c\u2069\n]*)", text):
        body = match.group(2)
        if _RTL[match.group(1)] == "chars":
            shown = body[::-1]
        else:
            shown = "".join(reversed(_RUN.findall(body)))
        found.append((match.start(), match.end(), shown))
    return found


Span = tuple[int, int, str]  # (start, end, unit text) in the normalised text

# Where a match of _NUMBER, _WORDS or _MULTIPLIER can start: a character class first (the engine skips
# ahead to it at C speed), then each pattern's own lookbehind, as a superset. A letter that begins a
# number word as IGNORECASE reads it (ſ is an s: tests/test_numbers.py tries every character).
_WORD_LETTERS = "ztfsenoaZTFSENOA\u017f"
_NUMBER_START = re.compile(rf"[+±\-{CURRENCY_SIGNS}\d.](?<![\w.=/^×].)")
_WORD_START = re.compile(rf"[{_WORD_LETTERS}](?<![\w-].)")
_MULTIPLIER_START = re.compile(rf"[{_WORD_LETTERS}\d](?<![\w-].)")


def tried_matches(starts: re.Pattern, pattern: re.Pattern, seen: str) -> list[re.Match]:
    """pattern.finditer(seen), tried only where `starts` finds a place a match can start."""
    found, end = [], 0
    for start in starts.finditer(seen):
        if start.start() >= end and (match := pattern.match(seen, start.start())) is not None:
            found.append(match)
            end = match.end()
    return found


# A setting's name right before a number makes the number its label, as B=16 and -O2 are: "config 4 runs 3×
# slower" is configuration 4, not four runs ("we made 9 runs" is a figure).
_SETTING = re.compile(
    r"(?<![\w-])(?:level|preset|config|configuration|profile|mode|setting|tier|variant|option|scenario)"
    r" ?(?:no\. ?|#)?$",
    re.IGNORECASE,
)
SETTING_REACH = 24  # characters before a number where its setting's name is looked for


def _digit_figures(seen: str, words: Vocabulary) -> list[Span]:
    found = []
    for match in tried_matches(_NUMBER_START, _NUMBER, seen):
        span = _after_number(seen, match.end(), words, bool(match.group("currency")))
        if (
            span is not None
            and not _modifier(match.group("number") == "1", span[1])
            and not _label(seen, match, span[1])
        ):
            found.append((match.start(), *span))
    return found


_COUNTED = frozenset(spelling for plural, others in units.COUNTS.items() for spelling in (plural, *others))


def _label(seen: str, match: re.Match, unit: str) -> bool:
    """A plain number right after a setting's name and before a counted thing ('config 4 runs', 'preset #2
    steps'): the setting's label. Before any other unit it stays a figure ('level 3 GB/s')."""
    if match.group("currency") or match.group("sign") or unit.strip() not in _COUNTED:
        return False
    return bool(_SETTING.search(seen, max(0, match.start() - SETTING_REACH), match.start()))


def _modifier(one: bool, unit: str) -> bool:
    """A counted thing in the singular after a number other than one modifies the noun after it (the two
    call times, per 256K sequence): no count, so no figure."""
    return not one and unit in units.SINGULAR_COUNTS


def _after_number(seen: str, at: int, words: Vocabulary, currency: bool) -> tuple[int, str] | None:
    """Where a figure whose number ends at `at` ends, and its unit; None when the number is no figure."""
    first = seen[at : at + 1]
    suffix = (
        next((s for s in SUFFIXES if seen.startswith(s, at) and not _glued(seen, at + len(s))), "")
        if (first and first in _SUFFIX_STARTS)
        else ""
    )
    if suffix:  # 3k req/s, 1.2M rows, $4.5M; alone (256K context, a 9B model) a label
        unit = _unit(seen, _skip_spaces(seen, at + len(suffix)), words)
        if unit is not None:
            return unit
        return (at + len(suffix), suffix) if currency else None
    gap = _skip_spaces(seen, at)
    magnitude = (
        ""
        if seen[gap : gap + 1] not in _MAGNITUDE_STARTS
        else next((w for w in MAGNITUDE_WORDS if seen.startswith(w, gap) and not _glued(seen, gap + len(w))), "")
    )
    if magnitude:  # 1.2 million, 3 billion rows
        end = gap + len(magnitude)
        return _unit(seen, _skip_spaces(seen, end), words) or (end, magnitude)
    unit = _unit(seen, gap, words)
    if unit is None:
        return (at, "") if currency else None
    text = seen[gap : unit[0]]
    if text in RATIO_SIGNS and gap > at and _PRODUCT.match(seen, gap + 1):
        return None  # "2 x 3", "4 × 8": a product of two numbers, not a ratio
    if text == "B" and gap == at:
        return None  # "9B", "35B": a model's size in parameters, a label
    return unit


def _word_figures(seen: str, words: Vocabulary) -> list[Span]:
    """Numbers spelled out with a unit (three times, twenty percent, two milliseconds) or a magnitude (two million)."""
    found = []
    for match in tried_matches(_WORD_START, _WORDS, seen):
        number = match.group("number").lower()
        unit = _unit(seen, _skip_spaces(seen, match.end()), words)
        if unit is not None and not _modifier(False, unit[1]):
            found.append((match.start(), *unit))
        elif unit is None and any(w in number for w in units.SCALE_WORDS) and not number.startswith(("a ", "one ")):
            found.append((match.start(), match.end(), number.rsplit(" ", 1)[-1]))  # two million; not "a thousand"
    return found


def _unit(seen: str, at: int, words: Vocabulary) -> tuple[int, str] | None:
    """The longest unit spelling at `at` that ends a word, with its rate (/s, per token) and the text of both:
    (end, unit); None when none starts there or the figure runs on into a word, '/', '×' or '-'."""
    if at >= len(seen) or seen[at] not in words.starts or seen[at].isdigit() or seen[at] == " ":
        return None
    spellings = words.spellings
    for end in range(min(len(seen), at + words.longest), at, -1):  # the longest spelling that ends a word
        if seen[at:end] in spellings and (not _glued(seen, end) or _sign_before_word(seen, at, end)):
            break
    else:
        return None
    rate = _RATE_WORD.match(seen, end)
    if rate:
        end = rate.end()
    elif seen.startswith(" per ", end):
        per = _unit(seen, end + 5, words)
        end = per[0] if per else end
    if end < len(seen) and (seen[end] in "/×-" or _glued(seen, end)) and not _sign_before_word(seen, at, end):
        return None
    return end, seen[at:end]


def _sign_before_word(seen: str, at: int, end: int) -> bool:
    """A × glued to a word in lower case (3.7×faster): a multiplier; before a capital (8×H100) or a digit, a label."""
    return seen[at:end] == "×" and end < len(seen) and seen[end].islower()


def _glued(seen: str, at: int) -> bool:
    """Whether the character at `at` continues a word (a letter, a digit or '_')."""
    return at < len(seen) and (seen[at].isalnum() or seen[at] == "_")


_SPACE_RUN = re.compile(" *")


def _skip_spaces(seen: str, at: int) -> int:
    spaces = _SPACE_RUN.match(seen, at)
    return spaces.end() if spaces else at


def kind(unit: str, table: units.UnitTable = units.BUILT_IN) -> str:
    """What a figure's unit measures, as its dimension ('bytes/seconds'; '' for a ratio), so a figure that
    restates a claim's own kind of quantity (a throughput in a throughput's statement) is told from a
    condition (the buffer size it ran at); the unit's own text when the table has no such term. Looked up
    in the table's terms (a term, or a rate of two), never parsed: the gate reads units once, at load."""
    text = unit.strip()
    text = units.PROSE_ONLY.get(text, text).replace(" per ", "/")
    terms = table.terms
    if text in units.RATIOS:
        return ""
    if text in terms:
        return str(terms[text][1])
    top, slash, bottom = text.partition("/")
    if slash and (top in terms or top == "1") and bottom in terms:
        over = terms[top][1] if top in terms else units.DIMENSIONLESS
        return str(over / terms[bottom][1])
    return text
