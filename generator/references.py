"""Find {{ claim("id") }}, {{ table("id") }} and {{ chart("id") }} in Markdown, and the unknown ones. Pure.

References inside fenced code blocks and inline code are left alone, so a page can show the syntax.
Anything that starts like one of ours but does not parse is returned as kind "malformed".
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from collections.abc import Set as AbstractSet

from .records import Finding, PageRef, Policy, Source

KINDS = ("claim", "table", "chart")
_CANDIDATE = re.compile(r"\{\{\s*(claim|table|chart)\b.*?\}\}")
_EXACT = re.compile(r"""\{\{\s*(claim|table|chart)\(\s*(["'])([a-z0-9][a-z0-9-]*)\2\s*\)\s*\}\}""")
_FENCE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")
_INLINE_CODE = re.compile(r"(`+)(?!`).+?(?<!`)\1")


def find(text: str, path: str) -> list[PageRef]:
    """Every reference in a page, with its line and character span in text."""
    found: list[PageRef] = []
    fence = ""
    offset = 0
    for number, line in enumerate(text.splitlines(keepends=True), start=1):
        opener = _FENCE.match(line)
        if fence:
            if opener and opener.group(1)[0] == fence[0] and len(opener.group(1)) >= len(fence):
                fence = ""
        elif opener:
            fence = opener.group(1)
        else:
            visible = _INLINE_CODE.sub(lambda m: " " * len(m.group(0)), line)
            for match in _CANDIDATE.finditer(visible):
                exact = _EXACT.fullmatch(match.group(0))
                kind, name = (exact.group(1), exact.group(3)) if exact else ("malformed", match.group(0))
                found.append(
                    PageRef(
                        Source(path, number, match.start() + 1),
                        kind,
                        name,
                        offset + match.start(),
                        offset + match.end(),
                    )
                )
        offset += len(line)
    return found


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
