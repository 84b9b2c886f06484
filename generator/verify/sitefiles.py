"""A built site's files -> the documents a browser would render, and the links it must not hold.

Servers decide how to show a file by its name, in any letter case (`.HTML`, `.xhtml`, `.shtml`), and
a browser by its content where the type is unclear, so a document is found both ways: by its name,
or by the first bytes of any file (markup where an image or a script should be). An HTML document is
a page (stamped, verified, scanned); an SVG, XML or plain-text document is scanned for figures. A link
anywhere in the site is refused: the Pages upload publishes what it points to (`tar --dereference`),
which is not what verify-site read, and so is a file that is no regular file (a pipe or a device, whose
read might never end). A file named as a page is not opened here: it is read once, when verified.
Stylesheets are read for the attributes their attr() shows.
"""

from __future__ import annotations

import os
import re
import stat
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
        """The document's text (OSError where it cannot be read: an HTML page is opened first here)."""
        return text_of(self.data(name))

    def data(self, name: str) -> bytes:
        """The document's bytes (OSError where it cannot be read)."""
        with open(os.path.join(self.site, name), "rb", buffering=0) as handle:  # (one read: no buffer to fill)
            return handle.read()


def text_of(data: bytes) -> str:
    """A document's text as verify-site reads it: UTF-8, any byte that is none replaced."""
    return data.decode("utf-8", "replace")


def documents(site: Path) -> Documents:
    """Every document of the site, sorted, and every file it refuses (links, too large, unreadable)."""
    found = Documents(site)
    attributes: set[str] = set()
    folders = [("", str(site))]  # (its path in the site and a "/", or "" for the site; where it is)
    while folders:
        within, folder = folders.pop()
        try:
            with os.scandir(folder) as listed:
                entries = list(listed)
        except OSError as error:
            found.problems.append((within.rstrip("/") or ".", unreadable(error)))
            continue
        for entry in entries:  # (what a folder lists is known without a call per entry: links, folders)
            relative = within + entry.name
            if entry.is_symlink():
                found.problems.append((relative, _LINK))
            elif entry.is_dir(follow_symlinks=False):
                folders.append((relative + "/", entry.path))
            else:
                kind, problem = _kind(entry)
                if problem:
                    found.problems.append((relative, problem))
                elif kind == "html":
                    found.pages.append(relative)
                elif kind:
                    found.others.append(relative)
                if entry.name.lower().endswith(".css") and not problem:
                    attributes |= css_attributes(found.text(relative))
    found.pages.sort()
    found.others.sort()
    found.problems.sort()
    found.css_attributes = frozenset(attributes)
    return found


_LINK = "is a link: the Pages upload publishes what it points to, which verify-site does not read"


def _kind(entry: os.DirEntry) -> tuple[str, str]:
    """('html' | 'markup' | 'text' | '', problem) for one file that is no link."""
    lower = entry.name.lower()
    named = lower.endswith(HTML_NAMES)  # a page by its name alone: not opened here (read once, when verified)
    head = b""
    try:
        status = entry.stat(follow_symlinks=False)
        if not stat.S_ISREG(status.st_mode):
            return "", "is not a regular file: verify-site reads files (a pipe or a device would never end)"
        size = status.st_size
        if not named:
            with open(entry.path, "rb") as handle:
                head = handle.read(_SNIFF)
    except OSError as error:
        return "", unreadable(error)
    kind = (
        "html"
        if named or _HTML_START.match(head)
        else "markup"
        if lower.endswith(MARKUP_NAMES) or _MARKUP_START.match(head)
        else "text"
        if lower.endswith(TEXT_NAMES)
        else ""
    )
    if kind and size > MAX_BYTES:
        return "", f"is {size:,} bytes, over the {MAX_BYTES:,} verify-site reads of one document"
    return kind, ""


def unreadable(error: OSError) -> str:
    return f"cannot be read ({error.strerror})"
