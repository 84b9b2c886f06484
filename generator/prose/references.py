"""Find {{ claim("id") }}, {{ table("id") }} and {{ chart("id") }} in Markdown, and the unknown ones. Pure.

References inside closed fenced code blocks and inline code are left alone, so a page can show the
syntax. A fence that is never closed is not code (Python-Markdown renders it as prose), so references
after it are found. Anything that starts like one of ours but does not parse (another letter case,
a look-alike letter, a reference split across lines, one never closed) is returned as kind
"malformed", so nothing that reads as a reference is skipped silently.

Linear in the page's length: every scan moves forward only (no pattern restarts from each opener).
"""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_right
from collections.abc import Iterable, Mapping
from collections.abc import Set as AbstractSet

from ..records import Finding, PageRef, Policy, Source

KINDS = ("claim", "table", "chart")
_EXACT = re.compile(r"""\{\{[ \t]*(claim|table|chart)\([ \t]*(["'])([a-z0-9][a-z0-9-]*)\2[ \t]*\)[ \t]*\}\}""")
_FENCE_LINE = re.compile(r"^[ \t]*(`{3,}|~{3,})([^\n]*)$", re.M)
_TWO_RUNS = re.compile(r"^[^`\n]*`[^\n]*[^`\n]`[^\n]*$", re.M)  # a line with two backtick runs or more
_OPENER = re.compile(r"\{\{[ \t]*")
MAX_REFERENCE = 400  # characters: a candidate longer than this is reported cut, never matched against
_ATX = re.compile(r" {0,3}#{1,6}(?:[ \t]|$)")  # a line that is a heading
_SETEXT = re.compile(r" {0,3}(?:=+|-+)[ \t]*$")  # the line under a heading's text


def find(text: str, path: str) -> list[PageRef]:
    """Every reference in a page, with its line, column and character span in text."""
    visible = mask_code(text)
    starts = line_starts(text)
    found: list[PageRef] = []
    closers = _positions(visible, "}}")
    next_closer = 0
    position = 0
    while True:
        opener = visible.find("{{", position)
        if opener < 0:
            break
        head = _OPENER.match(visible, opener)
        word_at = head.end() if head else opener + 2
        kind = _kind_word(visible[word_at : word_at + 16])
        if not kind:
            position = opener + 1  # "{{{ claim(...) }}": the reference may start one brace later
            continue
        while next_closer < len(closers) and closers[next_closer] < word_at:
            next_closer += 1
        end = closers[next_closer] + 2 if next_closer < len(closers) else -1
        line, column = locate(starts, opener)
        where = Source(path, line, column)
        if end < 0:
            found.append(_malformed(where, visible, opener, len(text), "is never closed with }}"))
            break
        written = text[opener:end]
        exact = _EXACT.fullmatch(written) if end - opener <= MAX_REFERENCE else None
        if exact:
            found.append(PageRef(where, exact.group(1), exact.group(3), opener, end))
        elif "\n" in written:
            found.append(_malformed(where, visible, opener, end, "spans lines: write a reference on one line"))
        elif kind != visible[word_at : word_at + len(kind)]:
            found.append(
                _malformed(where, visible, opener, end, f"is not lower-case ASCII: write {kind}(...) as shown")
            )
        else:
            found.append(PageRef(where, "malformed", _shown(written), opener, end))
        position = end
    return found


def _malformed(where: Source, visible: str, start: int, end: int, why: str) -> PageRef:
    return PageRef(where, "malformed", f"{_shown(visible[start:end])} ({why})", start, end)


def _shown(written: str) -> str:
    first = written.split("\n", 1)[0]
    return first if len(first) <= 80 else first[:79] + "…"


def _kind_word(head: str) -> str:
    """'claim', 'table' or 'chart' when head starts with one in any case or look-alike form; else ''."""
    folded = unicodedata.normalize("NFKC", head).casefold()
    for kind in KINDS:
        after = folded[len(kind) : len(kind) + 1]
        if folded.startswith(kind) and not (after.isalnum() or after == "_"):
            return kind
    return ""


def _positions(text: str, needle: str) -> list[int]:
    found, at = [], text.find(needle)
    while at >= 0:
        found.append(at)
        at = text.find(needle, at + len(needle))
    return found


def line_starts(text: str) -> list[int]:
    """Offsets where each line begins (for offset -> line and column by bisection)."""
    return [0, *(match.end() for match in re.finditer("\n", text))]


def locate(starts: list[int], offset: int) -> tuple[int, int]:
    """(1-based line, 1-based column) of a character offset."""
    line = bisect_right(starts, offset)
    return line, offset - starts[line - 1] + 1


def mask_code(text: str) -> str:
    """The text with closed fenced blocks and inline code spans blanked (newlines and offsets kept).

    Only fence lines and backtick runs are visited (found by one pattern each over the whole text).
    """
    blanked = _fenced_blocks(text)
    blanked += _code_spans(text, blanked)
    if not blanked:
        return text
    out, last = [], 0
    for start, end in sorted(blanked):
        out += [text[last:start], re.sub(r"[^\n]", " ", text[start:end])]
        last = end
    out.append(text[last:])
    return "".join(out)


def _fenced_blocks(text: str) -> list[tuple[int, int]]:
    """(start, end) of each fenced block that is closed; a fence never closed is not code."""
    fences = [(m.start(), m.end(), m.group(1), not m.group(2).strip()) for m in _FENCE_LINE.finditer(text)]
    longest = {"`": [0] * (len(fences) + 1), "~": [0] * (len(fences) + 1)}  # longest closer at or after each
    for index in range(len(fences) - 1, -1, -1):
        for after in longest.values():
            after[index] = after[index + 1]
        _, _, fence, closes = fences[index]
        if closes:
            longest[fence[0]][index] = max(longest[fence[0]][index], len(fence))
    blocks = []
    index = 0
    while index < len(fences):
        start, _, fence, _ = fences[index]
        if longest[fence[0]][index + 1] < len(fence):
            index += 1
            continue
        close = index + 1  # a closer is known to exist: the lines passed over become code
        while not (fences[close][2][0] == fence[0] and fences[close][3] and len(fences[close][2]) >= len(fence)):
            close += 1
        blocks.append((start, fences[close][1]))
        index = close + 1
    return blocks


def _code_spans(text: str, fenced: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Code spans as CommonMark pairs them, line by line: a run of n backticks up to the next run of
    exactly n on the line. Only lines with two runs or more are visited, each run a bounded number of times."""
    spans = []
    fence_at = 0
    for line in _TWO_RUNS.finditer(text):
        while fence_at < len(fenced) and fenced[fence_at][1] <= line.start():
            fence_at += 1
        if fence_at < len(fenced) and fenced[fence_at][0] <= line.start():
            continue  # inside a fenced block: code already
        runs = [(line.start() + m.start(), line.start() + m.end()) for m in re.finditer(r"`+", line.group(0))]
        spans += _pair(runs)
    return spans


def _pair(runs: list[tuple[int, int]]) -> list[tuple[int, int]]:
    by_length: dict[int, list[int]] = {}
    for number, (start, end) in enumerate(runs):
        by_length.setdefault(end - start, []).append(number)
    pointer = dict.fromkeys(by_length, 0)
    spans = []
    number = 0
    while number < len(runs):
        start, end = runs[number]
        same = by_length[end - start]
        while pointer[end - start] < len(same) and same[pointer[end - start]] <= number:
            pointer[end - start] += 1
        if pointer[end - start] == len(same):
            number += 1  # no closing run of this length: literal backticks
            continue
        closing = same[pointer[end - start]]
        spans.append((start, runs[closing][1]))
        number = closing + 1
    return spans


def unknown(
    refs: Iterable[PageRef],
    claim_ids: AbstractSet[str],
    tables: AbstractSet[str],
    charts: AbstractSet[str],
    policy: Policy,
) -> list[Finding]:
    """A page that refers to a claim, table or chart that does not exist."""
    known = {"claim": claim_ids, "table": tables, "chart": charts}
    findings = []
    for ref in refs:
        if ref.kind == "malformed":
            findings.append(
                Finding(
                    ref.where,
                    "",
                    "unknown-reference",
                    f"malformed reference {ref.name}",
                    'write {{ claim("some-id") }}, {{ table("some-id") }} or {{ chart("some-id") }}',
                    severity=policy.severity("unknown-reference"),
                )
            )
        elif ref.name not in known[ref.kind]:
            findings.append(
                Finding(
                    ref.where,
                    "",
                    "unknown-reference",
                    f"page refers to unknown {ref.kind} {ref.name!r}",
                    f"define the {ref.kind} or fix the id",
                    severity=policy.severity("unknown-reference"),
                )
            )
    return findings


def in_headings(pages: Mapping[str, str], refs: Iterable[PageRef], policy: Policy) -> list[Finding]:
    """A claim cited in a heading: the table of contents, the navigation and the page's title repeat a
    heading as plain text, where the value would stand without the claim's badge and link (and where
    verify-site refuses every figure)."""
    found = []
    lines: dict[str, list[str]] = {}  # the lines of each page that cites a claim, split once
    for ref in refs:
        if ref.kind != "claim" or ref.where.path not in pages:
            continue
        text = lines.setdefault(ref.where.path, pages[ref.where.path].splitlines())
        if ref.where.line > len(text):
            continue
        line = text[ref.where.line - 1]
        under = text[ref.where.line] if ref.where.line < len(text) else ""
        if _ATX.match(line) or (line.strip() and _SETEXT.match(under)):
            found.append(
                Finding(
                    ref.where,
                    "",
                    "unbound-number",
                    f'{{{{ claim("{ref.name}") }}}} in a heading: the table of contents and the navigation repeat '
                    "a heading as plain text, where its value would stand without the claim's badge and link",
                    "cite the claim in the text under the heading",
                    severity=policy.severity("unbound-number"),
                )
            )
    return found
