"""The MkDocs plugin: runs the gate inside the build, adds the generated pages, fills references.

Event methods stay a few lines: the gate is gate.check(), the figures, generated pages and assets
come from one assembly (assemble.py, which the Markdown extension and `ledger pages` call too), the
HTML from render.py. `mkdocs build` fails on any gate failure (or a figure that
cannot be drawn); `mkdocs serve` logs them, keeps serving and shows them as banners.
"""

from __future__ import annotations

import json
import logging
import re
from dataclasses import replace
from datetime import datetime, timezone
from pathlib import Path

from mkdocs.config import config_options
from mkdocs.config.base import Config
from mkdocs.exceptions import PluginError
from mkdocs.plugins import BasePlugin, event_priority
from mkdocs.structure.files import File, InclusionLevel
from mkdocs.structure.nav import Navigation

from .. import text
from ..gate import check
from ..inputs import mkdocs_yml, reads
from ..inputs.config import OPTIONS, policy_from_options
from ..prose import readback, references
from ..records import LedgerError, Policy, Report
from ..trust import stamp
from . import assemble, frame, incremental, render, report_pages, staged

log = logging.getLogger("mkdocs.plugins.ledger")


# None means "the policy's default", so the CLI and the build share one set of defaults (config.OPTIONS).
LedgerConfig = type(
    "LedgerConfig",
    (Config,),
    {
        option.name: config_options.Optional(
            config_options.Type(option.types[0] if len(option.types) == 1 else option.types)
        )
        for option in OPTIONS
    },
)


class LedgerPlugin(BasePlugin[LedgerConfig]):  # type: ignore[valid-type]
    def __init__(self) -> None:
        super().__init__()
        self.serving = False  # until on_startup says the command is serve
        self.dirty = False  # a dirty build keeps what the site folder holds: it is written in place
        self.staged: staged.Staged | None = None  # a build's site, written beside the site folder (staged.py)
        self.memory = incremental.Memory()  # serve keeps it across builds; a one-off build starts afresh
        # on_config: the project
        self.root = Path()
        self.config_text = ""  # mkdocs.yml and what it inherits: the key of what it sets
        self.policy: Policy | None = None
        # on_files: the build's site (its report, generated pages and what they share), read by later events
        self.site: assemble.Site | None = None
        self.typed_anywhere: frozenset[str] = frozenset()  # every figure the gate saw typed on a page
        self.generated: dict[str, report_pages.Generated] = {}  # src -> generated page
        self.slots: dict[str, render.Slots] = {}  # src -> its slots (a hand-written page's: on_page_markdown)
        self.framed = False  # whether pages outside the navigation are written in frames (frame.py)
        self.outside: list[str] = []  # the srcs of the pages MkDocs does not render
        self.missed: list[str] = []  # figures on built pages that the gate did not see (prose/readback.py)
        self.reused: dict[str, incremental.Rendered] = {}  # serve: pages left in the site folder as they were
        self.in_place: frozenset[str] = frozenset()  # serve: assets left in the site folder as they were
        # on_nav, on_env: the navigation, the frame's key, the frames the pages outside it were written in
        self.nav: Navigation | None = None
        self.chrome = ""
        self.frames: frame.Frames | None = None

    @property
    def built(self) -> assemble.Site:
        """This build's site (on_files makes it; every later event reads it)."""
        if self.site is None:
            raise PluginError("the ledger's site is made in on_files: no event before it reads it")
        return self.site

    def on_startup(self, *, command, dirty):
        self.serving, self.dirty = command == "serve", dirty
        self.memory = incremental.Memory()  # kept across serve's builds (on_startup keeps the plugin instance)

    def on_config(self, config):
        config_file = Path(config.config_file_path)
        self.root = config_file.resolve().parent
        found = None  # composed once a build: its texts key what it sets, its nodes give the site settings
        try:  # MkDocs has read it and what it inherits; the texts of them all are the key of what it sets
            found = mkdocs_yml.composed(config_file)
            self.config_text = "\0".join(found.texts) if found else mkdocs_yml.text_of(config_file)
        except mkdocs_yml.Malformed:  # over the gate's size cap: its stats stand for it in the frame's key
            self.config_text = f"{config_file.stat().st_size} {config_file.stat().st_mtime_ns}"
        docs_dir = Path(config.docs_dir).resolve().relative_to(self.root).as_posix()
        try:
            policy = policy_from_options(dict(self.config), docs_dir)
        except LedgerError as error:
            raise PluginError(str(error)) from None
        site = self._memory().kept(  # serve: mkdocs.yml read again when its text changed
            "mkdocs.yml",
            (config_file.name, self.config_text),
            lambda: mkdocs_yml.site_settings(found, config_file.name),
        )
        self.policy = replace(policy, **site)
        config.extra_css.append(f"{render.ASSETS}/ledger.css")
        config.extra_javascript.append(f"{render.ASSETS}/ledger.js")
        site_dir = Path(config.site_dir)
        self.staged = None if self.serving or self.dirty or site_dir.is_symlink() else staged.beside(site_dir)
        if self.staged is not None:  # written beside it, swapped in on_post_build: a failed build loses nothing
            config.site_dir = str(self.staged.new)
        return config

    def on_pre_build(self, config):
        if self.staged is not None:
            self.staged.begin()
            log.info(f"building beside {self.staged.final.name}/: it is replaced once the build is complete")
        if self.serving:
            self._memory().hold(Path(config.site_dir))  # before MkDocs empties the site folder
            self.memory.search.built = []  # this build's pages, as the search plugin sees them

    def on_files(self, files, config):
        now = datetime.now(timezone.utc)
        self.missed = []
        memory = self._memory()
        report, changed = memory.report_for(self.root, self._policy(), now, lambda: self._check(now))
        report = self._judge(report)
        self.typed_anywhere = frozenset(text for figures in report.typed.values() for text, _ in figures)
        settings = assemble.Settings(directory_urls=config.use_directory_urls)  # MkDocs says which page it renders
        # claim and run pages skip MkDocs' page pipeline (frame.py) unless another plugin would see them; a
        # build makes them one at a time as it writes them (serve keeps them all, to reuse what it can)
        self.framed = frame.usable(config.plugins.keys())
        later = self.framed and not self.serving
        site = self.site = assemble.assemble(self.root, report, settings, memory, changed, later=later)
        self._figure_problems(site.problems)
        self.generated = {page.src: page for page in site.pages}
        self.slots = {src: page.slots for src, page in self.generated.items()}
        self.frames = None  # made in on_env, for this build's navigation
        self.outside = list(site.later) or [page.src for page in site.pages if self.framed and not page.in_nav]
        for file in self._files(config, files):
            self._in_the_way(files, file.src_uri)
            files.append(file)
        written = memory.kept(  # in MkDocs' files for the links to them (MkDocs renders none: frame.Written)
            "written",
            (tuple(self.outside), config.docs_dir, config.site_dir, config.use_directory_urls),
            lambda: [frame.written(config, src) for src in self.outside],
        )
        for file in written:
            self._in_the_way(files, file.src_uri)
            files.append(file)
        return files

    def _in_the_way(self, files, src: str) -> None:
        if src in files.src_uris:  # a generated page's src is already a posix path
            raise PluginError(f"{self._policy().docs_dir}/{src} is in the way of a generated page: rename or move it")

    def on_nav(self, nav, config, files):
        self.nav = nav

    def on_env(self, env, config, files):
        """Pages reused from the last build whose frame (mkdocs.yml, navigation) changed are rendered again."""
        if self.serving:  # templates compiled once a session (Jinja checks each one's source)
            env.bytecode_cache = self.memory.templates
        items = self.nav.items if self.nav is not None else []
        self.chrome = incremental.chrome_key(self.config_text, items, self.built.report.ok)
        stale = [src for src, done in self.reused.items() if done.chrome != self.chrome]
        for src in stale:
            del self.reused[src]
            if not self.framed:
                self._render_now(self._page_file(config, self.generated[src]), config, files)
        if self.framed:  # written now, one at a time, each in its frame
            frames = frame.Frames(config, self.nav, env, files, self._generated_content)
            made = self.built.outside() if self.built.later else (self.generated[src] for src in self.outside)
            for page in made:
                if page.src not in self.reused:
                    frames.write(page)
                    if self.serving:
                        self.memory.remember(page.src, self.chrome)
            self.frames = frames
            log.info(f"generated pages outside the navigation: {frames}")
        if self.serving:
            log.info(f"generated pages: {len(self.generated) - len(self.reused)} rendered, {len(self.reused)} reused")
            texts, kept = len(self.memory.writing), len(self.in_place)  # the text assets (copied files aside)
            log.info(f"made assets: {texts - kept} written, {kept} left in place")
        return env

    def on_page_markdown(self, markdown, page, config, files):
        if page.file.src_uri in self.generated:
            page.meta["search"] = {"exclude": True}  # compact entries instead (on_post_build)
            return markdown
        site = self.built
        links = site.links(page.file.url)
        path = f"{site.report.policy.docs_dir}/{page.file.src_uri}"
        wanted = self.memory.kept(
            f"wanted {path}",
            (markdown,),
            lambda: tuple(sorted({f"{r.kind}:{r.name}" for r in references.find(markdown, path)})),
        )
        # serve keeps what a page shows while what it is made of stands: the drawn figures, the verdicts,
        # the runs' states (a figure's caption names stale runs), the page's links and its Markdown
        made = (site.drawn, site.report.verdicts, site.report.run_states, links)
        shown = self.memory.kept(f"figures {path}", (wanted, *made), lambda: site.figures_html(wanted, links))
        replaced, self.slots[page.file.src_uri] = self.memory.kept(
            f"markdown {path}", (markdown, shown, *made), lambda: self._references(markdown, path, links, shown)
        )
        return replaced

    def _references(
        self, markdown: str, path: str, links: render.Links, shown: dict[str, str]
    ) -> tuple[str, render.Slots]:
        """A hand-written page's Markdown with a slot for each reference, and the slots' HTML."""
        slots = render.Slots()
        return render.replace_references(markdown, self.built.report, path, links, slots, shown), slots

    @event_priority(-100)  # the last to touch a page's content: its stamp binds what other plugins made of it
    def on_page_content(self, html, page, config, files):
        slots = self.slots.get(page.file.src_uri)
        if slots is None:
            return stamp.stamped(self.built.report, html, page.file.dest_uri)
        for item in _toc_items(page.toc):
            item.title = slots.plain(item.title)
        html = self._content(page.file.src_uri, slots, html, page.file.url, page.file.dest_uri)
        if self.serving:  # the search plugin parses it next, unless serve kept its entries (KeptSearch)
            self.memory.search.page(html, page, self.config_text)
        return html

    def _content(self, src: str, slots: render.Slots, html: str, url: str, dest: str, banner: bool = True) -> str:
        """A page's final content: the HTML Markdown made (after a hand-written page's banner), its slots
        filled, chart scripts, the stamp."""
        links = self.built.links(url)
        html = (self._banner(src, links) if banner else "") + slots.fill(html)
        return stamp.stamped(self.built.report, html + assemble.chart_scripts(html, links), dest)

    def _generated_content(self, page: report_pages.Generated, html: str) -> str:
        """on_page_content of a page written in its frame (frame.py)."""
        urls = self.built.settings.directory_urls
        return self._content(
            page.src, page.slots, html, render.url_of(page.src, urls), incremental.dest_of(page.src, urls), False
        )

    def on_post_page(self, output, page, config):
        if self.serving and page.file.src_uri in self.generated and not self.generated[page.file.src_uri].in_nav:
            self.memory.remember(page.file.src_uri, self.chrome)
        if page.file.src_uri not in self.generated:
            path = f"{self.built.report.policy.docs_dir}/{page.file.src_uri}"
            self.missed += self._missed(path, output, page.content or "")
        return output

    def _missed(self, path: str, output: str, content: str) -> list[str]:
        """readback.missed; serve reads a page again when its output or the figures the gate saw changed."""
        typed = self.built.report.typed
        key = (output, content, typed.get(path, ()), self.typed_anywhere)  # compared as text: faster than a digest
        return self.memory.kept(f"readback {path}", key, lambda: readback.missed(path, output, content, typed))

    def on_post_template(self, output_content, template_name, config):
        """Static pages the theme renders (404.html) carry the stamp too: every HTML file is the ledger's;
        the sitemap lists the pages written in their frames (MkDocs lists the pages it rendered)."""
        if template_name == "sitemap.xml" and self.frames is not None:
            frames = self.frames
            entries = self.memory.kept(  # serve: the same pages, the same entries
                "sitemap", frames.sitemap_key(self.outside), lambda: frames.sitemap_entries(self.outside)
            )
            return frames.sitemap(output_content, entries)
        body = re.search(r"<body\b[^>]*>", output_content)
        if template_name.endswith(".html") and body and "</body>" in output_content:
            start, end = body.end(), output_content.rindex("</body>")
            content = stamp.stamped(self.built.report, output_content[start:end], template_name)
            return output_content[:start] + content + output_content[end:]
        return output_content

    @event_priority(-100)  # after the search plugin has written its index; the site is complete
    def on_post_build(self, config):
        if self.serving:
            self.memory.completed()
        self._readback()
        index = Path(config.site_dir) / "search" / "search_index.json"
        if index.is_file():
            data = json.loads(index.read_text(encoding="utf-8"))
            report = self.built.report
            key = (report.claims, report.verdicts, report.runs, report.findings, config.use_directory_urls)
            entries = self.memory.kept(
                "search", key, lambda: report_pages.search_entries(report, config.use_directory_urls)
            )
            if self.serving:
                data["docs"] = self.memory.search.merged(data.get("docs", []))
            data.get("docs", []).extend(entries)
            index.write_text(json.dumps(data, separators=(",", ":")), encoding="utf-8")
        if self.staged is not None and not _aborting(config):  # else on_build_error drops it
            self.staged.swap()
            config.site_dir = str(self.staged.final)  # for what runs after the build (gh-deploy)
            self.staged = None

    def on_build_error(self, error):
        if self.staged is not None:
            self.staged.abandon()
            self.staged = None

    def on_shutdown(self):
        self.on_build_error(None)  # interrupted (Ctrl-C ends a build without on_build_error)

    def on_serve(self, server, config, builder):
        # What the gate reads besides the pages (MkDocs watches those): one list, reads.py's.
        code = reads.declared_code(self.site.report.runs) if self.site is not None else ()
        policy = self._policy()
        for path in (*reads.data_folders(policy), *reads.files(policy), *code):
            if (self.root / path).exists():
                server.watch(str(self.root / path))
        return server

    def _readback(self) -> None:
        """Fail the build on a figure a reader sees that `ledger check` missed (a warning if policy says so)."""
        if not self.missed:
            return
        lines = [f"unbound-number missed by ledger check: {what}" for what in self.missed]
        warned = self.built.report.policy.severity("unbound-number") == "warn"
        for line in lines:
            log.warning(line)
        if not warned and not self.serving:
            raise PluginError(
                f"{len(lines)} figure{'s' if len(lines) != 1 else ''} on built pages that `ledger check` did not "
                "see: cite a claim or mark a label (and report the page: the two scans should agree)"
            )

    def _memory(self) -> incremental.Memory:
        """serve keeps what it can between builds; a one-off build starts afresh."""
        if not self.serving:
            self.memory = incremental.Memory()
        return self.memory

    def _policy(self) -> Policy:
        """The project's policy (on_config reads it)."""
        if self.policy is None:
            raise PluginError("the ledger's policy is read in on_config: no event before it needs it")
        return self.policy

    def _check(self, now: datetime) -> Report:
        try:
            return check(self.root, self._policy(), now, every_table=True)  # run pages and figures show them
        except LedgerError as error:
            raise PluginError(str(error)) from None

    def _judge(self, report: Report) -> Report:
        """Log every finding; `mkdocs build` stops on a failure, serve keeps serving and shows banners."""
        for finding in report.findings:
            (log.warning if finding.severity == "fail" else log.info)(str(finding))
        if report.failures and not self.serving:
            raise PluginError(f"ledger gate failed: {text.summary(report)}")
        log.info(text.summary(report))
        return report

    def _figure_problems(self, problems: tuple[str, ...]) -> None:
        """Log each figure that cannot be imported or drawn; `mkdocs build` stops on them, serve shows them."""
        for problem in problems:
            log.warning(problem)
        if problems and not self.serving:
            raise PluginError(
                f"{len(problems)} figure problem{'s' if len(problems) > 1 else ''}: " + "; ".join(problems)
            )

    def _files(self, config, files) -> list[File]:
        """Generated pages (claim and run pages outside the navigation), assets and chart images."""
        candidates = {}
        for page in self.generated.values():
            done = self.memory.reusable(page) if self.serving else None
            if done is not None and page.src not in files.src_uris:
                candidates[page.src] = done
        site = self.built
        made = self.memory.kept(  # what they are made of: the figures, the runs, the verdicts
            "assets", (site.drawn, site.report.runs, site.report.verdicts, site.report.policy), site.assets
        )
        # reused pages and assets stay in the site folder as the last build wrote them; the rest are made
        folder = Path(config.site_dir)
        self.in_place = in_place = self.memory.restore_assets(folder, made) if self.serving else frozenset()
        self.reused = self.memory.restore(folder, candidates, config.use_directory_urls)
        found = [
            self._page_file(config, page)
            for page in self.generated.values()
            if page.src not in self.reused and not (self.framed and not page.in_nav)
        ]
        found += [
            InPlace(asset.path, config.docs_dir, config.site_dir, config.use_directory_urls)
            if asset.path in in_place
            else File.generated(config, asset.path, abs_src_path=str(asset.source))
            if asset.source is not None
            else File.generated(config, asset.path, content=asset.content)
            for asset in made
        ]
        found += [File.generated(config, asset.path, content=asset.content) for asset in site.for_machines()]
        return found

    def _page_file(self, config, page: report_pages.Generated) -> File:
        inclusion = InclusionLevel.UNDEFINED if page.in_nav else InclusionLevel.NOT_IN_NAV
        return File.generated(config, page.src, content=page.markdown, inclusion=inclusion)

    def _render_now(self, file: File, config, files) -> None:
        """Read and render one page as MkDocs does for every page before on_env (MkDocs 1.x has no
        public call for it; ProperDocs keeps the same function)."""
        from mkdocs.commands.build import _populate_page
        from mkdocs.structure.pages import Page

        files.append(file)
        _populate_page(Page(None, file, config), config, files)

    def _banner(self, src: str, links: render.Links) -> str:
        """Findings about a hand-written page: its unknown references and the failing claims it cites."""
        if src in self.generated:
            return ""
        report = self.built.report
        return render.page_banner(render.page_findings(report, f"{report.policy.docs_dir}/{src}"), links)


def _aborting(config) -> bool:
    """Whether MkDocs will stop the build after on_post_build: --strict, with a warning counted (its
    counter, a handler on the mkdocs logger, exists only under --strict)."""
    counters = (getattr(handler, "get_counts", None) for handler in logging.getLogger("mkdocs").handlers)
    return bool(config.strict) and any(counter() for counter in counters if counter is not None)


class InPlace(File):
    """An asset serve's last build wrote, left in the site folder (incremental.Memory.restore_assets):
    MkDocs neither reads nor copies it."""

    def copy_file(self, dirty: bool = False) -> None:
        return None


def _toc_items(toc):
    for item in toc or []:
        yield item
        yield from _toc_items(item.children)
