"""Generated pages outside the navigation written straight into the site folder, through the theme's frame.

The claim and run pages are most of a site, and each looks the same around its content: its URL has
the depth of every other page in its folder, none is in the navigation, and their headings are fixed.
So MkDocs' page pipeline (Python-Markdown over Markdown we generated, the theme's templates) runs once
per kind of page, not once per page: a real MkDocs Page with placeholders for its title, its URL's
parts and its content is converted by MkDocs' own Markdown and rendered by the theme's own main.html
through MkDocs' own context, and each page of that kind is the frame with its own title, URL parts
and content put in. The header, palette, search, navigation, footer and scripts are the bytes the
theme made. The first page of each frame is also rendered whole, as MkDocs renders it, and compared:
a theme or extension that does more with a title or URL than print it renders every page of that kind
whole (so does a page whose title or URL is not plain: letters, digits, '.', '_', '-').

MkDocs-specific, as the plugin is: the generated pages themselves come from report_pages.py (no MkDocs).
"""

from __future__ import annotations

import logging
import os
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

from markdown.extensions import toc as toc_extension
from mkdocs.commands.build import get_context
from mkdocs.structure.files import File, InclusionLevel
from mkdocs.structure.pages import Page
from mkdocs.utils import get_build_date, write_file

from .incremental import dest_of
from .render import Generated
from .report_pages import md_text

log = logging.getLogger("mkdocs.plugins.ledger")

TITLE = "LEDGERTITLEX"  # the frame's title; what the toc extension makes of it stands for the page's id
CONTENT = "<h1>LEDGERCONTENTX</h1>"  # the frame's content ('<h1': the theme then adds no title of its own)
PART = "ledgerpart{}x"  # the frame's URL parts after the folder: claim/ledgerpart1x.md
PLAIN = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")
ALONE = frozenset({"search", "material/search", "ledger"})  # plugins whose page events do nothing to these pages
OFF = "LEDGER_FRAMES"  # set to "off": every generated page goes through MkDocs' page pipeline (tests compare)


def usable(plugins: Iterable[str]) -> bool:
    """Whether pages may skip MkDocs' page events: no plugin but search and the ledger's own would see them."""
    return os.environ.get(OFF, "") != "off" and set(plugins) <= ALONE


class Written(File):
    """A page written in its frame, as MkDocs' files hold it: a Markdown link to it resolves and is
    checked as before, and MkDocs neither reads, renders nor copies it."""

    def is_documentation_page(self) -> bool:
        return False

    def copy_file(self, dirty: bool = False) -> None:
        return None  # written by Frames.write


def written(config, src: str) -> File:
    urls = config.use_directory_urls
    return Written(
        src, config.docs_dir, config.site_dir, urls, dest_uri=dest_of(src, urls), inclusion=InclusionLevel.NOT_IN_NAV
    )


@dataclass(frozen=True, slots=True)
class Frame:
    """A kind of page rendered once: its content's HTML and the page around it, split at placeholders."""

    content: list[str]  # the skeleton's HTML: text, placeholder, text, ...
    before: list[str]  # the theme's page up to the content, the same way
    after: list[str]
    ids: frozenset[str]  # the heading ids besides the title's (the title's id must not be one of them)


class Frames:
    """Writes generated pages into the site folder; fill(page, html) makes a page's final content of the
    HTML Markdown made of its skeleton (slots filled, stamped), as the plugin's on_page_content does."""

    def __init__(self, config, nav, env, files, fill: Callable[[Generated, str], str]):
        self.config, self.nav, self.env, self.fill = config, nav, env, fill
        self.files = files
        self.pages = files.documentation_pages()
        self.frames: dict[tuple[str, str], Frame | None] = {}
        self.written = self.rendered_whole = 0
        options = (config.get("mdx_configs") or {}).get("toc", {})
        slugify = options.get("slugify") or toc_extension.slugify
        separator = options.get("separator", "-")
        self.slug = lambda text: slugify(text, separator)
        self.tokens = {TITLE, self.slug(TITLE), *(PART.format(n) for n in range(1, 4))}
        self.split = re.compile("(" + "|".join(re.escape(t) for t in sorted(self.tokens, key=len, reverse=True)) + ")")

    def write(self, page: Generated) -> None:
        output = self.render(page)
        self.written += 1
        if output.strip():
            path = os.path.join(self.config.site_dir, dest_of(page.src, self.config.use_directory_urls))
            write_file(output.encode("utf-8", errors="xmlcharrefreplace"), path)

    def render(self, page: Generated) -> str:
        """The page as MkDocs would write it: in its frame, or whole where no frame fits it."""
        key = self._key(page)
        if key is None:
            return self.whole(page)
        if key not in self.frames:
            frame = self._frame(*key)
            whole = self.whole(page)
            framed = self._framed(frame, page) if frame is not None else None
            if framed != whole:
                log.info(f"ledger: {page.src} renders whole (its frame differs from MkDocs' own page)")
                frame = None
            self.frames[key] = frame
            self.rendered_whole -= frame is not None  # the check of a frame that fits, not a page rendered whole
            return whole
        frame = self.frames[key]
        framed = self._framed(frame, page) if frame is not None else None
        return framed if framed is not None else self.whole(page)

    def whole(self, page: Generated) -> str:
        """The page through MkDocs' page pipeline (its Markdown, the theme's template), no plugin events."""
        self.rendered_whole += 1
        found = self._converted(page.src, page.markdown)
        for item in _toc_items(found.toc):
            item.title = page.slots.plain(item.title)
        found.content = self.fill(page, found.content or "")
        return self._template(found)

    def __str__(self) -> str:
        framed = sum(frame is not None for frame in self.frames.values())
        return (
            f"{self.written} written in {framed} frame{'s' if framed != 1 else ''}, {self.rendered_whole} of them whole"
        )

    def sitemap_entries(self, srcs: Iterable[str]) -> str:
        """The theme's sitemap.xml entries of the pages written here (as MkDocs lists pages: in the order
        of its files, where the generated pages come last); sitemap() puts them in."""
        pages = (Page(None, File.generated(self.config, src, content=""), self.config).file for src in srcs)
        context = get_context(self.nav, [], self.config)
        context["pages"] = pages  # type: ignore[typeddict-item]  # a generator: one Page at a time
        more = self.env.get_template("sitemap.xml").render(context)
        start = _entries(more)
        return "" if start is None else more[start[0] : start[1]]

    def sitemap_key(self, srcs: Iterable[str]) -> tuple:
        """What sitemap_entries() depends on: the template's text, the pages, the site's URL and the day
        (each entry's lastmod is the build date)."""
        source = self.env.loader.get_source(self.env, "sitemap.xml")[0] if self.env.loader else ""
        return (source, tuple(srcs), self.config.site_url or "", self.config.use_directory_urls, get_build_date())

    @staticmethod
    def sitemap(output: str, entries: str) -> str:
        """MkDocs' sitemap.xml with the entries of the pages written here after those it lists."""
        end = _entries(output)
        if not entries or end is None:
            return output
        return output[: end[1]] + entries + output[end[1] :]

    def _key(self, page: Generated) -> tuple[str, str] | None:
        """(the frame's src, its Markdown): the page's with placeholders for its title and URL parts."""
        top, *parts = page.src[: -len(".md")].split("/")
        line = f"# {md_text(page.title)}\n"
        if not (page.title and PLAIN.fullmatch(page.title) and page.markdown.startswith(line)):
            return None
        if not 1 <= len(parts) <= 3 or not all(PLAIN.fullmatch(part) for part in parts):
            return None
        if self.slug(TITLE) == TITLE and self.slug(page.title) != page.title:
            return None  # a slugify that keeps the case: one placeholder cannot stand for both
        src = "/".join([top, *(PART.format(n) for n in range(1, len(parts) + 1))]) + ".md"
        return src, f"# {TITLE}\n" + page.markdown[len(line) :]

    def _frame(self, src: str, markdown: str) -> Frame | None:
        found = self._converted(src, markdown)
        content = found.content or ""
        titles = [item.title for item in _toc_items(found.toc)]
        if "LEDGERSLOT" in "".join(titles) or found.title != TITLE:
            return None
        found.content = CONTENT
        output = self._template(found)
        if output.count(CONTENT) != 1:
            return None
        before, after = output.split(CONTENT)
        ids = frozenset(item.id for item in _toc_items(found.toc)) - {self.slug(TITLE)}
        return Frame(self.split.split(content), self.split.split(before), self.split.split(after), ids)

    def _framed(self, frame: Frame, page: Generated) -> str | None:
        slug = self.slug(page.title)
        if slug in frame.ids or not slug:
            return None  # the toc extension would number one of the two ids
        parts = page.src[: -len(".md")].split("/")[1:]
        values = {TITLE: page.title, self.slug(TITLE): slug}
        values.update({PART.format(n): part for n, part in enumerate(parts, 1)})
        content = self.fill(page, "".join(_filled(frame.content, values)))
        return "".join(_filled(frame.before, values)) + content + "".join(_filled(frame.after, values))

    def _converted(self, src: str, markdown: str) -> Page:
        """A MkDocs Page of the Markdown, read and converted as MkDocs converts a page."""
        found = Page(None, File.generated(self.config, src, content=markdown), self.config)
        found.read_source(self.config)
        found.meta["search"] = {"exclude": True}  # as the plugin marks a generated page (on_page_markdown)
        found.render(self.config, self.files)
        return found

    def _template(self, page: Page) -> str:
        """The theme's template for the page, as MkDocs' _build_page renders it."""
        self.config._current_page = page
        page.active = True
        try:
            context = get_context(self.nav, self.pages, self.config, page)
            return self.env.get_template(page.meta.get("template", "main.html")).render(context)
        finally:
            page.active = False
            self.config._current_page = None


def _entries(sitemap: str) -> tuple[int, int] | None:
    """Where a sitemap's entries start and end (after <urlset ...>, before the space ahead of </urlset>)."""
    opened, closed = re.search(r"<urlset\b[^>]*>", sitemap), re.search(r"\s*</urlset>\s*$", sitemap)
    if opened is None or closed is None:
        return None
    return opened.end(), closed.start()


def _filled(pieces: list[str], values: dict[str, str]) -> Iterator[str]:
    """Text pieces as split at the placeholders (odd places), each placeholder its value."""
    for index, piece in enumerate(pieces):
        yield values.get(piece, piece) if index % 2 else piece


def _toc_items(items):
    for item in items or []:
        yield item
        yield from _toc_items(item.children)
