"""One build of the site: explicit inputs in, explicit outputs out; the MkDocs plugin's events only call it.

Inputs: the project (its root, the text of mkdocs.yml and what it inherits, the policy they set), the
gate's Report, MkDocs' URL settings and site folder, each hand-written page's Markdown and HTML. Outputs:
the Site (assemble.py: figures, generated pages, what they share), the pages and assets to hand MkDocs,
each hand-written page's Markdown with its slots, the figures a reader sees that the gate missed, the
sitemap's and the search index's entries of the generated pages.

A build owns its caches. What it may keep for the next build lives in serve's Memory (incremental.py),
under keys made here and nowhere else: a one-off build's Memory starts empty and ends with it; `mkdocs
serve` hands the same Memory from build to build, so an edit makes again only what it changed.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from dataclasses import replace
from datetime import datetime
from pathlib import Path

import jinja2
from mkdocs.structure.files import File

from ..gate import check
from ..inputs import mkdocs_yml
from ..inputs.config import policy_from_options
from ..prose import readback, references
from ..records import LedgerError, Policy, Report
from . import assemble, frame, incremental, render, report_pages
from .incremental import Memory, Rendered
from .render import Asset, Generated


class Build:
    """One build of one project. Made before MkDocs reads the pages (configured()); assemble() makes its
    Site from the gate's Report; every later call reads that Site (LedgerError before it is made)."""

    def __init__(self, root: Path, config_text: str, policy: Policy, memory: Memory, serving: bool = False):
        self.root = root
        self.config_text = config_text  # mkdocs.yml and what it inherits: the key of what they set
        self.policy = policy
        self.memory = memory  # serve's, kept from build to build; a one-off build's own, empty
        self.serving = serving
        self.site: assemble.Site | None = None
        self.generated: dict[str, Generated] = {}  # src -> generated page
        self.slots: dict[str, render.Slots] = {}  # src -> its slots (a hand-written page's: page_markdown())
        self.outside: list[str] = []  # the srcs of the pages written in frames, outside MkDocs' page pipeline
        self.typed_anywhere: frozenset[str] = frozenset()  # every figure the gate saw typed on a page
        self.reused: dict[str, Rendered] = {}  # serve: pages left in the site folder as the last build wrote them
        self.in_place: frozenset[str] = frozenset()  # serve: assets left there the same way
        self.chrome = ""  # the key of every page's frame (framed_anew())

    @classmethod
    def configured(
        cls, config_file: Path, docs_dir: Path, options: Mapping[str, object], memory: Memory, serving: bool
    ) -> Build:
        """The build of the project whose mkdocs.yml is config_file: its policy from the plugin's options
        (LedgerError on a bad one) and the site settings mkdocs.yml gives, read again when its text changed."""
        root = config_file.resolve().parent
        found = None  # composed once a build: its texts key what it sets, its nodes give the site settings
        try:
            found = mkdocs_yml.composed(config_file)
            config_text = "\0".join(found.texts) if found else mkdocs_yml.text_of(config_file)
        except mkdocs_yml.Malformed:  # over the gate's size cap: its stats stand for it in the frame's key
            info = config_file.stat()
            config_text = f"{info.st_size} {info.st_mtime_ns}"
        policy = policy_from_options(dict(options), docs_dir.resolve().relative_to(root).as_posix())
        site = memory.kept(
            "mkdocs.yml", (config_file.name, config_text), lambda: mkdocs_yml.site_settings(found, config_file.name)
        )
        return cls(root, config_text, replace(policy, **site), memory, serving)

    @property
    def built(self) -> assemble.Site:
        if self.site is None:
            raise LedgerError("the ledger's site is made from the gate's report first (Build.assemble)")
        return self.site

    # -- the gate and the site ---------------------------------------------------------------------

    def report(self, now: datetime) -> tuple[Report, bool]:
        """The gate's Report, and whether the data changed (serve checks again only the pages otherwise)."""
        return self.memory.report_for(
            self.root, self.policy, now, lambda: check(self.root, self.policy, now, every_table=True)
        )

    def assemble(self, report: Report, changed: bool, directory_urls: bool, framed: bool) -> assemble.Site:
        """The Site of the report. framed: pages outside the navigation are written in frames (frame.py),
        a one-off build making them one at a time as it writes them (serve keeps them all to reuse them)."""
        settings = assemble.Settings(directory_urls=directory_urls)
        later = framed and not self.serving
        site = self.site = assemble.assemble(self.root, report, settings, self.memory, changed, later=later)
        self.typed_anywhere = frozenset(text for figures in report.typed.values() for text, _ in figures)
        self.generated = {page.src: page for page in site.pages}
        self.slots = {src: page.slots for src, page in self.generated.items()}
        self.outside = list(site.later) or [page.src for page in site.pages if framed and not page.in_nav]
        return site

    def written(self, config) -> list[File]:
        """MkDocs' files of the pages outside its page pipeline, for the links to them (frame.Written),
        made again when those pages or the folders and URL settings change."""
        key = (tuple(self.outside), config.docs_dir, config.site_dir, config.use_directory_urls)
        return self.memory.kept("written", key, lambda: [frame.written(config, src) for src in self.outside])

    def restore(self, folder: Path, taken: Collection[str], directory_urls: bool) -> list[Asset]:
        """After MkDocs emptied the site folder: serve puts back the pages and assets its last build wrote
        there that stand (reused, in_place; none of `taken`, the srcs MkDocs has). Returns the assets this
        build ships, made again only when the figures, runs, verdicts or policy they come from changed."""
        candidates: dict[str, Rendered] = {}
        for page in self.generated.values() if self.serving else ():
            done = self.memory.reusable(page)
            if done is not None and page.src not in taken:
                candidates[page.src] = done
        site = self.built
        key = (site.drawn, site.report.runs, site.report.verdicts, site.report.policy)
        made = self.memory.kept("assets", key, site.assets)
        self.in_place = self.memory.restore_assets(folder, made) if self.serving else frozenset()
        self.reused = self.memory.restore(folder, candidates, directory_urls)
        return made

    # -- serve's session -----------------------------------------------------------------------------

    def begin(self, site_dir: Path) -> None:
        """Before MkDocs empties the site folder: serve holds what its last build wrote."""
        if self.serving:
            self.memory.hold(site_dir)
            self.memory.search.built = []  # this build's pages, as the search plugin sees them

    def templates(self) -> jinja2.BytecodeCache | None:
        """serve compiles the theme's templates once a session (Jinja checks each one's source)."""
        return self.memory.templates if self.serving else None

    def framed_anew(self, nav_items: Iterable) -> list[str]:
        """The reused pages whose frame changed (mkdocs.yml, the navigation, the gate's verdict): they are
        rendered again, and no longer reused."""
        self.chrome = incremental.chrome_key(self.config_text, nav_items, self.built.report.ok)
        stale = [src for src, done in self.reused.items() if done.chrome != self.chrome]
        for src in stale:
            del self.reused[src]
        return stale

    def remember(self, src: str) -> None:
        """A generated page outside the navigation is written: serve may reuse it next build."""
        if self.serving:
            self.memory.remember(src, self.chrome)

    def completed(self) -> None:
        """The build is complete: what it wrote is what the next one may reuse."""
        if self.serving:
            self.memory.completed()

    def search_docs(self, docs: list[dict]) -> list[dict]:
        """The search index's entries, with those serve kept of each page the search plugin did not parse
        again (searched()) put back where a full build puts them."""
        return self.memory.search.merged(docs) if self.serving else docs

    # -- pages ---------------------------------------------------------------------------------------

    def page_markdown(self, markdown: str, src: str, url: str) -> str:
        """A hand-written page's Markdown with a slot for each reference (its slots: self.slots[src]).
        serve keeps what a page shows while what it is made of stands: the drawn figures, the verdicts, the
        runs' states (a figure's caption names stale runs), the page's links and its Markdown."""
        site = self.built
        links = site.links(url)
        path = f"{site.report.policy.docs_dir}/{src}"
        kept = self.memory.kept
        wanted = kept(
            f"wanted {path}",
            (markdown,),
            lambda: tuple(sorted({f"{r.kind}:{r.name}" for r in references.find(markdown, path)})),
        )
        made = (site.drawn, site.report.verdicts, site.report.run_states, links)
        shown = kept(f"figures {path}", (wanted, *made), lambda: site.figures_html(wanted, links))

        def replaced() -> tuple[str, render.Slots]:
            slots = render.Slots()
            return render.replace_references(markdown, site.report, path, links, slots, shown), slots

        text, self.slots[src] = kept(f"markdown {path}", (markdown, shown, *made), replaced)
        return text

    def searched(self, html: str, page) -> None:
        """A hand-written page's final HTML: serve keeps it out of the search plugin's parse if unchanged."""
        if self.serving:
            self.memory.search.page(html, page, self.config_text)

    def missed(self, path: str, output: str, content: str) -> list[str]:
        """readback.missed: the figures on a built page the gate did not see; serve reads a page again
        when its output or the figures the gate saw changed."""
        typed = self.built.report.typed
        key = (output, content, typed.get(path, ()), self.typed_anywhere)  # compared as text: faster than a digest
        return self.memory.kept(f"readback {path}", key, lambda: readback.missed(path, output, content, typed))

    def sitemap_entries(self, frames) -> str:
        """The sitemap's entries of the pages written in frames (frame.Frames), kept while they stand."""
        outside = self.outside
        return self.memory.kept("sitemap", frames.sitemap_key(outside), lambda: frames.sitemap_entries(outside))

    def search_entries(self, directory_urls: bool) -> list[dict]:
        """The compact search entries of the claims and runs (their pages are not parsed)."""
        report = self.built.report
        key = (report.claims, report.verdicts, report.runs, report.findings, directory_urls)
        return self.memory.kept("search", key, lambda: report_pages.search_entries(report, directory_urls))
