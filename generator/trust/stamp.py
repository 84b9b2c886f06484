"""The mark the ledger leaves on every page it renders, read back by `ledger verify-site`. Pure.

A page built by the plugin or through the Markdown extension carries one stamp saying whether the
gate passed, the digest of the gate's report it was rendered from (Report.digest), and the digest of
the page itself: its path in the site and the content between the mark BEGIN and the stamp. A page
built by any other means carries none; a page rendered from another state of the ledger carries
another report digest; a page edited after the ledger rendered it, or moved to another path, carries
a page digest that its bytes no longer give. `ledger verify-site` refuses all three. (Where a builder
does not say which page the Markdown extension renders, or changes what it stamped in a way the
extension cannot know, the stamp carries no path and is bound to the report alone. Code that runs
inside the build can compute the same digests: the stamp tells the ledger's output from what was
changed after it, not from what the build's own code wrote; the rendered-text scan covers that.)
"""

from __future__ import annotations

import hashlib
import html
import json
import re
from dataclasses import dataclass

from ..records import Report
from ..trust.digest import digest, registry

STAMP_CLASS = "ledger-stamp"
REGISTRY = "assets/ledger/runs.json"  # every run's file hashes, published with the site
# Where the stamped content begins: the page's digest covers the bytes from here to its stamp.
BEGIN = '<span class="ledger-begin" hidden></span>'
_STAMP = re.compile(
    r'<span class="ledger-stamp" data-ledger-gate="(pass|fail)" data-ledger-report="([0-9a-f]{64})"'
    r'(?: data-ledger-path="([^"<>]*)")? data-ledger-page="([0-9a-f]{64})" hidden></span>'
)
_ANY_STAMP = re.compile(r'<span class="ledger-stamp"')


@dataclass(frozen=True, slots=True)
class Stamp:
    gate: str  # pass | fail
    report: str  # the digest of the gate's report the page was rendered from
    path: str | None  # the page's path in the site, when the builder said which page it rendered
    page: str  # sha256 of the path and the content from BEGIN to the stamp
    start: int  # where the stamp starts in the page's text
    content: str  # the text between BEGIN and the stamp


def page_digest(path: str, content: str) -> str:
    """What binds a stamp to its page: its path in the site (or "") and the content it stamps."""
    return hashlib.sha256(
        path.encode("utf-8", "surrogateescape") + b"\0" + content.encode("utf-8", "surrogateescape")
    ).hexdigest()


def stamped(report: Report, content: str, path: str | None) -> str:
    """The content with BEGIN before it and the stamp after it, bound to the page's path (None: not known)."""
    gate = "pass" if report.ok else "fail"
    where = "" if path is None else f' data-ledger-path="{html.escape(path)}"'
    return (
        f'{BEGIN}{content}<span class="{STAMP_CLASS}" data-ledger-gate="{gate}" data-ledger-report="{digest(report)}"'
        f'{where} data-ledger-page="{page_digest(path or "", content)}" hidden></span>'
    )


def read(page_html: str) -> list[Stamp] | str:
    """Every stamp of a page, each with the content it binds ([] when the ledger did not stamp it), or why
    they cannot be read. A builder that converts a page in parts (Zensical) stamps each part: every
    stamp binds the content from its own BEGIN, nested or one after another."""
    marks = sorted(
        [(m.start(), m.end(), "begin") for m in re.finditer(re.escape(BEGIN), page_html)]
        + [(m.start(), m.end(), "stamp") for m in _ANY_STAMP.finditer(page_html)],
        key=lambda mark: mark[0],
    )
    found: list[Stamp] = []
    opened: list[int] = []
    for start, end, kind in marks:
        if kind == "begin":
            opened.append(end)
            continue
        match = _STAMP.match(page_html, start)
        if match is None:
            return "its ledger stamp is malformed"
        if not opened:
            return "its content has no start mark before its stamp: the stamp binds nothing"
        begin = opened.pop()
        path = html.unescape(match.group(3)) if match.group(3) is not None else None
        found.append(Stamp(match.group(1), match.group(2), path, match.group(4), start, page_html[begin:start]))
    return found


def one(content: str) -> Stamp | None:
    """The stamp of a content that begins with BEGIN and ends with its one stamp (as read() finds it in a
    page holding one of each), or None where the stamp is malformed."""
    start = content.rfind('<span class="ledger-stamp"')
    match = _STAMP.fullmatch(content, start) if content.startswith(BEGIN) and start >= len(BEGIN) else None
    if match is None:
        return None
    path = html.unescape(match.group(3)) if match.group(3) is not None else None
    return Stamp(match.group(1), match.group(2), path, match.group(4), start, content[len(BEGIN) : start])


def registry_json(report: Report) -> str:
    """The registry a site publishes: every run's files and their sha256 (verify-site --against reads it)."""
    retired = dict(report.policy.retired_runs)
    content = {"format": 1, "runs": registry(report), **({"retired": retired} if retired else {})}
    return json.dumps(content, indent=1, sort_keys=True) + "\n"
