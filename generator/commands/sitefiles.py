"""A built site's files -> the documents a browser would render, and the links it must not hold.

Servers decide how to show a file by its name, in any letter case (`.HTML`, `.xhtml`, `.shtml`), and
a browser by its content where the type is unclear, so a document is found both ways: by its name,
or by the first bytes of any file (markup where an image or a script should be). An HTML document is
a page (stamped, verified, scanned); an SVG, XML or plain-text document is scanned for figures. A link
anywhere in the site is refused: the Pages upload publishes what it points to (`tar --dereference`),
which is not what verify-site read. Stylesheets are read for the attributes their attr() shows.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from ..prose.reader import css_attributes

HTML_NAMES = (".html", ".htm", ".xhtml", ".xht", ".shtml", ".shtm", ".mht", ".mhtml")
MARKUP_NAMES = (".svg", ".svgz", ".xml", ".xsl", ".xslt", ".rss", ".atom", ".mathml", ".mml")
TEXT_NAMES = (".txt", ".text", ".md", ".markdown", ".csv", ".tsv")
MAX_BYTES = 256 << 20  # one document verify-site reads
_SNIFF = 1024
_HTML_START = re.compile(
    rb"^(?:\xef\xbb\xbf)?\s*(?:<!--.*?-->\s*)*<(?:!doctype\s+html|html|head|body|script|iframe|h1|div|font|table|a|"
    rb"style|title|b|br|p|meta|frameset)[\s>/]",
    re.I | re.S,
)
_MARKUP_START = re.compile(rb"^(?:\xef\xbb\xbf)?\s*<(?:\?xml|svg|math|rss|feed)[\s>/?]", re.I)


@dataclass
class Documents:
    site: Path
    pages: list[str] = field(default_factory=list)  # HTML documents, by their path in the site
    others: list[str] = field(default_factory=list)  # SVG, XML and text documents
    problems: list[tuple[str, str]] = field(default_factory=list)  # (path, what is wrong)
    css_attributes: frozenset[str] = frozenset()

    def text(self, name: str) -> str:
        return (self.site / name).read_bytes().decode("utf-8", "replace")


def documents(site: Path) -> Documents:
    """Every document of the site, sorted, and every file it refuses (links, too large, unreadable)."""
    found = Documents(site)
    attributes: set[str] = set()
    for folder, folders, files in os.walk(site):
        base = Path(folder)
        for name in sorted(folders):
            if (base / name).is_symlink():
                found.problems.append((_name(site, base / name), _LINK))
        for name in sorted(files):
            path = base / name
            relative = _name(site, path)
            if path.is_symlink():
                found.problems.append((relative, _LINK))
                continue
            kind, problem = _kind(path)
            if problem:
                found.problems.append((relative, problem))
            elif kind == "html":
                found.pages.append(relative)
            elif kind:
                found.others.append(relative)
            if name.lower().endswith(".css") and not problem:
                attributes |= css_attributes(found.text(relative))
    found.pages.sort()
    found.others.sort()
    found.css_attributes = frozenset(attributes)
    return found


_LINK = "is a link: the Pages upload publishes what it points to, which verify-site does not read"


def _kind(path: Path) -> tuple[str, str]:
    """('html' | 'markup' | 'text' | '', problem) for one regular file."""
    lower = path.name.lower()
    try:
        size = path.stat().st_size
        with open(path, "rb") as handle:
            head = handle.read(_SNIFF)
    except OSError as error:
        return "", f"cannot be read ({error.strerror})"
    kind = (
        "html"
        if lower.endswith(HTML_NAMES) or _HTML_START.match(head)
        else "markup"
        if lower.endswith(MARKUP_NAMES) or _MARKUP_START.match(head)
        else "text"
        if lower.endswith(TEXT_NAMES)
        else ""
    )
    if kind and size > MAX_BYTES:
        return "", f"is {size:,} bytes, over the {MAX_BYTES:,} verify-site reads of one document"
    return kind, ""


def _name(site: Path, path: Path) -> str:
    return path.relative_to(site).as_posix()
