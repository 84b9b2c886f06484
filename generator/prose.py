"""Prose: a page's Markdown -> the figures typed into it outside a claim reference. Pure.

A figure is a number with a unit, ×, or %: "3.71× faster", "42 GB/s", "15% slower". Such a number
belongs in a claim, cited with {{ claim("id") }}, so the gate can keep it true. Not figures:
labels (B=16, 4-bit, 2048-row, 8192×2048, 256K context, 35B-A3B), list numbers, anything in code
spans or code blocks, inside a reference, in an HTML tag or a link's address, and anything an author
marks as a label with <span class="ledger-label">…</span>.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .records import Finding, Policy, Source

# Units a figure can carry (longest first so "GB/s" wins over "GB"). Counts ("40 layers") are not
# here: they read as labels far more often than as measured figures.
UNITS = sorted(
    [
        "×", "x", "%",
        "B", "KB", "kB", "MB", "GB", "TB", "KiB", "MiB", "GiB", "TiB", "bytes",
        "B/s", "KB/s", "MB/s", "GB/s", "TB/s", "MiB/s", "GiB/s", "tok/s", "tokens/s", "token/s",
        "s", "ms", "µs", "us", "ns", "seconds", "milliseconds", "microseconds",
    ],
    key=len,
    reverse=True,
)  # fmt: skip
_ATTACHED_ONLY = {"×", "x", "%"}  # written against the number: "3.7×", "15%"
_UNIT = "|".join(re.escape(unit) for unit in UNITS)
# A number not glued to a word, a decimal point, '=', '/', '^', '-' or '×' before it (B=16, 1/B, 8192×2048),
# then its unit, then no letter, digit, '-', '/' or '×' after the unit (4-bit, 35B-A3B, 9B-param).
_FIGURE = re.compile(
    rf"(?<![\w.=/^×-])(?P<number>\d{{1,3}}(?:,\d{{3}})+(?:\.\d+)?|\d+(?:\.\d+)?)"
    rf"(?P<gap> ?)(?P<unit>{_UNIT})(?![\w/×-])"
)
_FENCE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")
_SKIPPED = [
    re.compile(r"(`+)(?!`).+?(?<!`)\1"),  # inline code
    re.compile(r"\{\{.*?\}\}"),  # a reference: {{ claim("id") }}
    re.compile(r'<span class="ledger-label">.*?</span>'),  # an author's label
    re.compile(r"<!--.*?-->"),  # an HTML comment on one line
    re.compile(r"<[^>]*>"),  # an HTML tag and its attributes
    re.compile(r"\]\([^)]*\)"),  # a link's address
]
MARK_LABEL = '<span class="ledger-label">…</span>'


@dataclass(frozen=True)
class TypedFigure:
    where: Source  # file, line and column of the number
    text: str  # as written: "3.71×"


def typed_figures(text: str, path: str) -> list[TypedFigure]:
    """Every figure typed into a page's prose (not in code, a reference, a tag or a label)."""
    found: list[TypedFigure] = []
    fence = ""
    lines = text.splitlines()
    start = _front_matter_end(lines)
    for number, line in enumerate(lines[start:], start=start + 1):
        opener = _FENCE.match(line)
        if fence:
            if opener and opener.group(1)[0] == fence[0] and len(opener.group(1)) >= len(fence):
                fence = ""
            continue
        if opener:
            fence = opener.group(1)
            continue
        if line.startswith(("    ", "\t")) and not line.strip().startswith(("-", "*", "+", "|")):
            continue  # an indented code block (list continuations are indented too, but start with prose)
        visible = line
        for pattern in _SKIPPED:
            visible = pattern.sub(lambda m: " " * len(m.group(0)), visible)
        for match in _FIGURE.finditer(visible):
            if match.group("unit") in _ATTACHED_ONLY and match.group("gap"):
                continue  # "3 x 4" or "50 %": not written as a figure
            if match.group("unit") == "B" and not match.group("gap"):
                continue  # "9B", "35B": a model's size in parameters, a label
            found.append(TypedFigure(Source(path, number, match.start() + 1), match.group(0)))
    return found


def _front_matter_end(lines: list[str]) -> int:
    if lines and lines[0].strip() == "---":
        for index, line in enumerate(lines[1:], start=1):
            if line.strip() in ("---", "..."):
                return index + 1
    return 0


def unbound_numbers(pages: dict[str, str], policy: Policy) -> list[Finding]:
    """A figure typed into a page instead of cited from a claim."""
    return [
        Finding(
            typed.where,
            "",
            "unbound-number",
            f"{typed.text!r} is typed into the page; the gate cannot keep it true",
            f'cite the claim that holds it with {{{{ claim("some-id") }}}}, or mark a label: {MARK_LABEL}',
            severity=policy.severity("unbound-number"),
        )
        for path, text in pages.items()
        for typed in typed_figures(text, path)
    ]
