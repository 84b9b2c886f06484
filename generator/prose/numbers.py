"""Figures in plain text: a number with a unit, ×, or % as a reader reads it -> where it is. Pure.

normalise() turns text into what the eye sees: Unicode compatibility forms folded (full-width
digits, ％, ㎳), digits of any script as ASCII, look-alike signs as one sign (✕ ⨯ and Cyrillic х as ×
and x, − as -, μ as µ), invisible characters (zero-width spaces, soft hyphens) dropped and every
kind of space as a space. It keeps, for each character it returns, the offset of the character
it came from. figures() then finds each figure: signed (-15%), glued (64GB) or spelled out (15
percent, 3.7 times, 2 milliseconds). Labels are not figures (B=16, 4-bit, 8192×2048, a 9B model,
2 x 3). One regular expression over the text; a number, once read, is never read again shorter (a
lookahead and a back-reference make it atomic), so the scan is linear in the text's length.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

# Units a figure can carry. Counts ("40 layers", "256 tokens") and bits ("at 4 bits") are not here: they read as labels far
# more often than as measured figures.
_BYTES = "B KB kB MB GB TB PB KiB MiB GiB TiB PiB kb mb gb tb kib mib gib tib Kbit Mbit Gbit Tbit"
_SPELLED_BYTES = "byte bytes kilobytes megabytes gigabytes terabytes kibibytes mebibytes gibibytes tebibytes"
_TIME = "s ms µs us ns sec secs min mins h hr hrs"
_SPELLED_TIME = (
    "second seconds millisecond milliseconds microsecond microseconds nanosecond nanoseconds minute minutes hour hours"
)
_RATES = "tok/s tokens/s token/s it/s Gbps Mbps GB/s FLOP FLOPs FLOPS flop flops GFLOPS TFLOPS PFLOPS TOPS Hz kHz MHz GHz W kW"
_SPELLED = "percent per cent pct times fold watts"
RATIO_SIGNS = ("×", "x", "X")
UNITS = sorted(
    {*"% ‰".split(), *RATIO_SIGNS, *(_BYTES + " " + _SPELLED_BYTES + " " + _TIME + " " + _SPELLED_TIME).split()}
    | {*_RATES.split(), *_SPELLED.replace("per cent", "per_cent").split()},
    key=len,
    reverse=True,
)
UNITS = [unit.replace("per_cent", "per cent") for unit in UNITS]
_UNIT = "|".join(re.escape(unit) for unit in UNITS)
_RATE = r"(?P<per>/[A-Za-zµ]+| per (?:second|token|step|sequence|call|byte)\b)?"
# A number starts a figure unless glued to a word, a decimal point, '=', '/', '^' or '×' before it, or
# to a '-' that follows a letter (35B-A3B, top-8); a '-' after a digit or a space is a range or a sign.
_FIGURE = re.compile(
    rf"(?<![\w.=/^×])(?<![A-Za-z]-)(?P<sign>[+±-]?)"
    rf"(?=(?P<number>\d{{1,3}}(?:,\d{{3}})+(?:\.\d+)?(?![,\d])|\d+(?:[.,]\d+)?(?:[eE][+-]?\d+)?|\.\d+))(?P=number)"
    rf"(?P<gap> *)(?P<unit>{_UNIT}){_RATE}(?![\w/×-])"
)
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
_ASCII_SPACE = str.maketrans("\t\n\r\x0b\x0c", "     ")
_NON_ASCII = re.compile(r"[^\x00-\x7f]")


@dataclass(frozen=True, slots=True)
class Figure:
    start: int  # offsets in the text given to figures() (not the normalised one)
    end: int
    text: str  # as normalised: "3.71×", "-15%", "42 GB/s"
    unit: str = ""  # its unit as written, with any rate: "×", "GB/s", "B per token"
    seen: str = ""  # as a reader sees it, for messages: "3,5 %", "½ GB", "٣٫٥٪" (invisible characters left out)


def normalise(text: str) -> tuple[str, Sequence[int]]:
    """What a reader sees, and for each of its characters the offset it came from in text.

    ASCII whitespace becomes a space one for one (C speed); only non-ASCII characters are visited.
    """
    spaced = text.translate(_ASCII_SPACE)
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


def figures(text: str) -> list[Figure]:
    """Every figure in plain text (already free of markup), in order: as stored, and where bidirectional
    controls reorder it, as a reader sees it (an override reverses its characters, an embedding its runs)."""
    found = _figures(text)
    if _BIDI.search(text):
        at = {(figure.start, figure.end) for figure in found}
        for start, end, shown in _reordered(text):
            for figure in _figures(shown):
                place = (start, end)
                if place not in at:
                    at.add(place)
                    found.append(Figure(start, end, figure.text, figure.unit, _seen(shown[figure.start : figure.end])))
        found.sort(key=lambda figure: figure.start)
    return found


def _figures(text: str) -> list[Figure]:
    seen, origin = normalise(text)
    found = []
    for match in _FIGURE.finditer(seen):
        unit, gap = match.group("unit"), match.group("gap")
        if unit in RATIO_SIGNS and gap and _PRODUCT.match(seen, match.end()):
            continue  # "2 x 3", "4 × 8": a product of two numbers, not a ratio
        if unit == "B" and not gap:
            continue  # "9B", "35B": a model's size in parameters, a label
        start, end = origin[match.start()], origin[match.end() - 1] + 1
        unit_text = unit + (match.group("per") or "")
        found.append(Figure(start, end, _SPACES.sub(" ", match.group(0)), unit_text, _seen(text[start:end])))
    return found


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


# What kind of quantity a unit measures, coarsely: enough to tell a figure restating a claim's own
# quantity (a throughput in a throughput's statement) from a condition (the buffer size it ran at).
_KINDS = {
    "ratio": "× x X % ‰ percent pct times fold",
    "bytes": _BYTES + " " + _SPELLED_BYTES,
    "time": _TIME + " " + _SPELLED_TIME,
    "flop": "FLOP FLOPs FLOPS flop flops",
    "frequency": "Hz kHz MHz GHz",
    "power": "W kW watts",
}
_KIND_OF = {word: kind for kind, words in _KINDS.items() for word in words.split()}
_RATE_WORDS = {"tok/s": "count:tok/time", "tokens/s": "count:tok/time", "token/s": "count:tok/time"}


def kind(unit: str) -> str:
    """'bytes', 'time', 'ratio' (also for no unit), 'bytes/time', 'count:token', ... for a unit's text."""
    text = unit.strip().replace(" per ", "/").replace("per cent", "percent")
    if text in _RATE_WORDS or text in ("Gbps", "Mbps", "GFLOPS", "TFLOPS", "PFLOPS", "TOPS", "it/s"):
        return _RATE_WORDS.get(text, "rate")
    terms = [term.strip() for term in text.split("/")]
    return "/".join(_term_kind(term) for term in terms)


def _term_kind(term: str) -> str:
    if term in _KIND_OF:
        return _KIND_OF[term]
    if not term:
        return "ratio"
    words = term.split()
    last = words[-1].lower() if words else term
    if last in _KIND_OF:
        return _KIND_OF[last]
    if last in ("tok", "token", "tokens"):
        return "count:tok"
    return "count:" + (last[:-1] if last.endswith("s") and len(last) > 3 else last)
