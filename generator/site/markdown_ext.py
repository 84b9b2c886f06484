"""A Python-Markdown extension: {{ claim("id") }}, {{ table("id") }} and {{ chart("id") }} -> the ledger's HTML.

For site builders that run Markdown extensions but not MkDocs plugins (Zensical, or MkDocs without
the plugin). It renders references with the same code as the plugin (badges, live values, figures)
and stamps every page it renders (trust/stamp.py), so `ledger verify-site` can tell its pages from pages
no ledger touched. It does not fail the build: the gate runs as `ledger check`, a CI step of its
own, and the generated pages come from `ledger pages DOCS_DIR`.

    markdown_extensions:
      - generator.site.markdown_ext:
          root: .          # the project: mkdocs.yml, claims/, measurements/ (default: the current folder)
          base_url: /      # where the site is served, for builders that do not say which page is being
                           # rendered (default: the path of site_url in mkdocs.yml, else /)
"""

from __future__ import annotations

import time
from collections.abc import Hashable
from dataclasses import dataclass, replace
from pathlib import Path

from markdown import Markdown
from markdown.extensions import Extension
from markdown.postprocessors import Postprocessor
from markdown.preprocessors import Preprocessor

from ..inputs import reads
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


_SITES: dict[tuple[str, str], tuple[tuple, Site]] = {}  # a builder makes a Markdown per page


def project(root: Path, base_url: str = "") -> Site:
    """The project's site (site/assemble.py, without generated pages: `ledger pages` writes those),
    assembled again only when one of its files changed (size, mtime, inode)."""
    from datetime import datetime, timezone

    from ..gate import check

    root = root.resolve()
    found = read_project(root)  # mkdocs.yml composed once a call: its policy and its URL settings
    policy = found.policy
    key = (str(root), base_url)
    cached = _SITES.get(key)
    folders = watched.signature(root, reads.folders(policy), reads.files(policy))
    if cached and cached[0] == (policy, folders, _code(root, cached[1].report)):
        return cached[1]
    started = time.time_ns()
    report = check(root, policy, datetime.now(timezone.utc), every_table=True)  # run pages and figures show them
    urls = assemble.Settings(*found.urls)
    site = assemble.assemble(root, report, replace(urls, base_url=base_url) if base_url else urls, generate=False)
    code = _code(root, report)  # the runs' code, wherever it lives, by its stats after the check
    racy = any(entry[1:] != ("missing",) and max(entry[2], entry[3]) >= started for entry in code)
    _SITES[key] = ((policy, folders, None if racy else code), site)  # racy: check again next time
    return site


def _code(root: Path, report: Report) -> tuple:
    return watched.signature(root, (), reads.declared_code(report.runs))


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
        # MkDocs (and ProperDocs) run their own link rewriter beside us: it knows the page's URL.
        relpath = self.md.treeprocessors["relpath"] if "relpath" in self.md.treeprocessors else None
        page_file = getattr(relpath, "file", None)
        if page_file is not None:
            return render.Links(page_file.url, here.settings.directory_urls)
        return RootLinks("", here.settings.directory_urls, here.settings.base_url)


class StampPostprocessor(Postprocessor):
    """Stamp the page (the gate's verdict) and load the chart scripts when it shows a chart."""

    def __init__(self, md: Markdown, extension: LedgerExtension):
        super().__init__(md)
        self.extension = extension

    def run(self, text: str) -> str:
        here = self.extension.project()
        links = ReferencePreprocessor(self.md, self.extension).links(here)
        relpath = self.md.treeprocessors["relpath"] if "relpath" in self.md.treeprocessors else None
        page_file = getattr(relpath, "file", None)  # MkDocs (and ProperDocs) say which page this is
        path = getattr(page_file, "dest_uri", None)
        return stamp.stamped(here.report, text + assemble.chart_scripts(text, links), path)


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
