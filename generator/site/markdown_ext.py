"""A Python-Markdown extension: {{ claim("id") }}, {{ table("id") }} and {{ chart("id") }} -> the ledger's HTML.

For site builders that run Markdown extensions but not MkDocs plugins (Zensical, or MkDocs without
the plugin). It renders references with the same code as the plugin (badges, live values, figures)
and stamps every page it renders (trust/stamp.py), so `ledger verify-site` can tell its pages from pages
no ledger touched. Where the builder says which page it renders (MkDocs, ProperDocs, Zensical), links
are relative to it and the stamp carries its path. It does not fail the build: the gate runs as
`ledger check`, a CI step of its own, and the generated pages come from `ledger pages DOCS_DIR`.

    markdown_extensions:
      - generator.site.markdown_ext:
          root: .          # the project: mkdocs.yml, claims/, measurements/ (default: the current folder)
          base_url: /      # where the site is served, for builders that do not say which page is being
                           # rendered (default: the path of site_url in mkdocs.yml, else /)
"""

from __future__ import annotations

import posixpath
import re
import time
from collections.abc import Hashable
from dataclasses import dataclass, replace
from pathlib import Path

from markdown import Markdown
from markdown.extensions import Extension
from markdown.postprocessors import Postprocessor
from markdown.preprocessors import Preprocessor

from ..inputs import reads
from ..inputs.project import Project
from ..inputs.project import read as read_project
from ..prose import references
from ..records import Report
from ..trust import stamp
from . import assemble, render, watched
from .assemble import Site

PAGE = "page"  # references have no file path here; findings about them come from `ledger check`


@dataclass(frozen=True, slots=True)
class RootLinks(render.Links):
    """Links from the site's root (base): for builders that do not say which page is being rendered."""

    base: str = "/"

    def to(self, src: str, anchor: str = "") -> str:
        return self.base + render.url_of(src, self.directory_urls) + (f"#{anchor}" if anchor else "")

    def seen_from(self, *folders: str) -> Hashable:
        return ("root", self.base, self.directory_urls)  # every link starts at base


@dataclass(frozen=True, slots=True)
class Kept:
    """The site of one project, and what it was made from."""

    root: Path
    base_url: str
    project: Project
    config: tuple  # the stats of mkdocs.yml and the files it inherits (compose again when they move)
    data: tuple  # the policy, the stats of what the gate reads, the runs' code (check again when they move)
    site: Site


class Sites:
    """The extension's memo. A builder makes a Markdown, and with it an extension, for every part of every
    page (5,716 on this repository's report), so the project's site must outlive them: it lives as long as
    the process, and holds the site of the last project asked for, assembled again only when one of the
    project's files changed (size, mtime, inode), its configuration composed again only when mkdocs.yml or
    a file it inherits did (composing took half of a call that found its site unchanged). Another project
    (or base URL) replaces it: a process builds one site at a time."""

    def __init__(self) -> None:
        self.last: Kept | None = None

    def site(self, root: Path, base_url: str = "") -> Site:
        from datetime import datetime, timezone

        from ..gate import check

        root = root.resolve()
        last = self.last if self.last is not None and (self.last.root, self.last.base_url) == (root, base_url) else None
        if last is not None and last.config == _config_signature(root, last.project):
            found = last.project
        else:
            found = read_project(root)
        policy = found.policy
        folders = watched.signature(root, reads.folders(policy), reads.files(policy))
        if last is not None and last.data == (policy, folders, _code(root, last.site.report)):
            if found is not last.project:
                self.last = replace(last, project=found, config=_config_signature(root, found))
            return last.site
        started = time.time_ns()
        report = check(root, policy, datetime.now(timezone.utc), every_table=True)  # run pages and figures show them
        urls = assemble.Settings(*found.urls)
        site = assemble.assemble(root, report, replace(urls, base_url=base_url) if base_url else urls, generate=False)
        code = _code(root, report)  # the runs' code, wherever it lives, by its stats after the check
        racy = any(entry[1:] != ("missing",) and max(entry[2], entry[3]) >= started for entry in code)
        data = (policy, folders, None if racy else code)  # racy: check again next time
        self.last = Kept(root, base_url, found, _config_signature(root, found), data, site)
        return site


SITES = Sites()  # the extension's one memo, for the life of the process (Sites)


def project(root: Path, base_url: str = "") -> Site:
    """The project's site (site/assemble.py, without generated pages: `ledger pages` writes those), as the
    extension's memo keeps it (Sites)."""
    return SITES.site(root, base_url)


def _config_signature(root: Path, found: Project) -> tuple:
    files = found.composed.files if found.composed else ()
    folder = found.config_file.parent.relative_to(root).as_posix()
    return watched.signature(root, (), [posixpath.join(folder, name) for name in (*files, "mkdocs.yml")])


def _code(root: Path, report: Report) -> tuple:
    return watched.signature(root, (), reads.declared_code(report.runs))


@dataclass(frozen=True, slots=True)
class Rendered:
    """The page the builder says it renders."""

    url: str  # its URL from the site's root, as MkDocs gives it ("claim/a/"; "" or "./" for the home page)
    path: str  # the file it is written to in the site ("claim/a/index.html"): the stamp binds it
    # Zensical: how far its URL's folder lies below its Markdown file's (claim/a.md -> claim/a/: 1); None
    # under MkDocs, which rewrites nothing the extension wrote
    climbs: int | None = None


def page_of(md: Markdown) -> Rendered | None:
    """The page being rendered, where the builder says which: MkDocs and ProperDocs through their link
    rewriter's file, Zensical through the page it hands its extensions (zensical.extensions.context, since
    0.0.73: an internal interface, held by tests/test_three_builders.py). None for any other caller."""
    if "relpath" in md.treeprocessors:
        page_file = getattr(md.treeprocessors["relpath"], "file", None)
        if page_file is not None:
            return Rendered(page_file.url, page_file.dest_uri)
    if "rendering_context" in md.preprocessors:  # Zensical's ContextPreprocessor, found by its name
        page = getattr(md.preprocessors["rendering_context"], "page", None)
        url, src = getattr(page, "url", None), getattr(page, "path", None)  # "claim/a/", "claim/a.md"
        if isinstance(url, str) and isinstance(src, str):
            folder = _folder(url)
            mine, its = render.path_parts(folder or "."), render.path_parts(posixpath.dirname(src) or ".")
            if mine[: len(its)] == its:  # else a layout of Zensical's the extension does not know: no page
                return Rendered(url, folder + "index.html" if url == folder else url, len(mine) - len(its))
    return None


def _folder(url: str) -> str:
    """The folder a page URL's relative links start from: the URL itself where it names a folder."""
    return url if url == "" or url.endswith("/") else posixpath.dirname(url) + "/"


_LINK = re.compile(r'\b(href|src)="([^"]*)"')
_NOT_RELATIVE = re.compile(r"[a-zA-Z][a-zA-Z0-9+.-]*:|/|#|$")
_MARKDOWN_FILE = re.compile(r"[^#?]*\.md(?:[#?]|$)")


def for_zensical(page: Rendered, html: str) -> tuple[str, str | None]:
    """What to hand Zensical for `html` (links relative to the page's URL, as MkDocs writes them), and what
    Zensical then writes (None where the extension cannot know it). Once every extension ran, Zensical reads
    a relative href or src from the Markdown file's folder: it puts `climbs` '../' before it, and resolves a
    link to a Markdown file itself. So each relative link is handed with those '../' taken off (Zensical
    writes it back as it was), or, where it does not climb so far (a page's link to itself, "./"), handed
    from the Markdown file's folder (Zensical writes '../' and that: another text, the same target)."""
    climbs = page.climbs or 0
    prefix = "../" * climbs
    folder = _folder(page.url)
    source = posixpath.normpath(posixpath.join(folder or ".", *[".."] * climbs))
    unknown = False

    def handed(match: re.Match) -> tuple[str, str]:
        nonlocal unknown
        attribute, link = match.groups()
        if _NOT_RELATIVE.match(link):
            return match.group(0), match.group(0)
        if _MARKDOWN_FILE.match(link):
            unknown = True  # Zensical resolves it as it sees fit
            return match.group(0), match.group(0)
        if link.startswith(prefix):
            return f'{attribute}="{link[len(prefix) :]}"', match.group(0)
        path, rest = re.match(r"([^#?]*)(.*)", link, re.DOTALL).groups()  # type: ignore[union-attr]
        target = posixpath.normpath(posixpath.join(folder or ".", path))
        moved = posixpath.relpath(target, source) + ("/" if path.endswith("/") or not path else "") + rest
        return f'{attribute}="{moved}"', f'{attribute}="{prefix}{moved}"'

    given, written, last = [], [], 0
    for match in _LINK.finditer(html):
        hand, write = handed(match)
        given += [html[last : match.start()], hand]
        written += [html[last : match.start()], write]
        last = match.end()
    return "".join(given) + html[last:], None if unknown else "".join(written) + html[last:]


class ReferencePreprocessor(Preprocessor):
    """Each reference becomes a stashed HTML fragment, so Markdown never reads the claim's text."""

    def __init__(self, md: Markdown, extension: LedgerExtension):
        super().__init__(md)
        self.extension = extension

    def run(self, lines: list[str]) -> list[str]:
        text = "\n".join(lines)
        found = references.find(text, PAGE)
        if not found:
            return lines
        here = self.extension.project()
        links = self.links(here)
        shown = here.figures_html({f"{r.kind}:{r.name}" for r in found}, links)
        out, last = [], 0
        for ref in found:
            fragment, _ = render.reference_html(ref, text[ref.start : ref.end], here.report, links, shown)
            out += [text[last : ref.start], self.md.htmlStash.store(fragment)]
            last = ref.end
        out.append(text[last:])
        return "".join(out).split("\n")

    def links(self, here: Site) -> render.Links:
        found = page_of(self.md)
        if found is not None:
            return render.Links(found.url, here.settings.directory_urls)
        return RootLinks("", here.settings.directory_urls, here.settings.base_url)


class StampPostprocessor(Postprocessor):
    """Stamp the page (the gate's verdict) and load the chart scripts when it shows a chart."""

    def __init__(self, md: Markdown, extension: LedgerExtension):
        super().__init__(md)
        self.extension = extension

    def run(self, text: str) -> str:
        here = self.extension.project()
        links = ReferencePreprocessor(self.md, self.extension).links(here)
        found = page_of(self.md)
        content = text + assemble.chart_scripts(text, links)
        if found is None or found.climbs is None:
            return stamp.stamped(here.report, content, None if found is None else found.path)
        handed, written = for_zensical(found, content)  # the stamp binds what Zensical writes
        bound = content if written is None else written
        stamped = stamp.stamped(here.report, bound, None if written is None else found.path)
        return stamp.BEGIN + handed + stamped[len(stamp.BEGIN) + len(bound) :]


class LedgerExtension(Extension):
    def __init__(self, **kwargs):
        self.config = {
            "root": [".", "the project folder (mkdocs.yml, claims/, measurements/)"],
            "base_url": ["", "where the site is served (default: site_url's path in mkdocs.yml, else /)"],
        }
        super().__init__(**kwargs)

    def project(self) -> Site:
        return project(Path(self.getConfig("root")), self.getConfig("base_url"))

    def extendMarkdown(self, md: Markdown) -> None:
        # Before fenced code and raw HTML are stashed: references.find skips code itself, as the plugin does.
        md.preprocessors.register(ReferencePreprocessor(md, self), "ledger", 27)
        md.postprocessors.register(StampPostprocessor(md, self), "ledger-stamp", 5)


def makeExtension(**kwargs) -> LedgerExtension:  # the name Python-Markdown looks for
    return LedgerExtension(**kwargs)
