"""The MkDocs plugin: runs the gate inside the build, adds the generated pages, fills references.

Event methods stay a few lines: each hands MkDocs' objects to the build (build.py: one object a build,
explicit inputs and outputs, the owner of the build's caches and of every key they are kept under) and
takes its results back; the figures, generated pages and assets come from one assembly (assemble.py,
which the Markdown extension and `ledger pages` call too), the HTML from render.py. `mkdocs build` fails on any gate failure (or a figure that
cannot be drawn); `mkdocs serve` logs them, keeps serving and shows them as banners.
"""

from __future__ import annotations

import json
import logging
import re
from datetime import datetime, timezone
from pathlib import Path

from mkdocs.config import config_options
from mkdocs.config.base import Config
from mkdocs.exceptions import PluginError
from mkdocs.plugins import BasePlugin, event_priority
from mkdocs.structure.files import File, InclusionLevel
from mkdocs.structure.nav import Navigation

from .. import text
from ..inputs import reads
from ..inputs.config import OPTIONS
from ..records import LedgerError, Report
from ..trust import stamp
from . import assemble, frame, incremental, render, report_pages, staged
from .build import Build

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
        self.build: Build | None = None  # on_config makes one a build; every later event calls it
        self.framed = False  # whether pages outside the navigation are written in frames (frame.py)
        self.missed: list[str] = []  # figures on built pages that the gate did not see (prose/readback.py)
        # on_nav, on_env: the navigation, the frames the pages outside it were written in
        self.nav: Navigation | None = None
        self.frames: frame.Frames | None = None

    @property
    def built(self) -> assemble.Site:
        """This build's site (on_files makes it; every later event reads it)."""
        return self._build().built

    def on_startup(self, *, command, dirty):
        self.serving, self.dirty = command == "serve", dirty
        self.memory = incremental.Memory()  # kept across serve's builds (on_startup keeps the plugin instance)

    def on_config(self, config):
        if not self.serving:  # serve keeps what it can between builds; a one-off build starts afresh
            self.memory = incremental.Memory()
        config_file, docs_dir = Path(config.config_file_path), Path(config.docs_dir)
        try:
            self.build = Build.configured(config_file, docs_dir, self.config, self.memory, self.serving)
        except LedgerError as error:
            raise PluginError(str(error)) from None
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
        self._build().begin(Path(config.site_dir))  # before MkDocs empties the site folder

    def on_files(self, files, config):
        build = self._build()
        self.missed = []
        try:
            report, changed = build.report(datetime.now(timezone.utc))
        except LedgerError as error:
            raise PluginError(str(error)) from None
        self._judge(report)
        self.framed = frame.usable(config.plugins.keys())  # claim and run pages skip MkDocs' page pipeline
        site = build.assemble(report, changed, config.use_directory_urls, self.framed)
        self._figure_problems(site.problems)
        self.frames = None  # made in on_env, for this build's navigation
        for file in [*self._files(config, files), *build.written(config)]:
            self._in_the_way(files, file.src_uri)
            files.append(file)
        return files

    def _in_the_way(self, files, src: str) -> None:
        if src in files.src_uris:  # a generated page's src is already a posix path
            docs_dir = self._build().policy.docs_dir
            raise PluginError(f"{docs_dir}/{src} is in the way of a generated page: rename or move it")

    def on_nav(self, nav, config, files):
        self.nav = nav

    def on_env(self, env, config, files):
        """Pages reused from the last build whose frame (mkdocs.yml, navigation) changed are rendered again."""
        build = self._build()
        if build.templates() is not None:  # serve: the theme's templates compiled once a session
            env.bytecode_cache = build.templates()
        for src in build.framed_anew(self.nav.items if self.nav is not None else []):
            if not self.framed:
                self._render_now(self._page_file(config, build.generated[src]), config, files)
        if self.framed:  # written now, one at a time, each in its frame
            frames = frame.Frames(config, self.nav, env, files, self._generated_content)
            made = build.built.outside() if build.built.later else (build.generated[src] for src in build.outside)
            for page in made:
                if page.src not in build.reused:
                    frames.write(page)
                    build.remember(page.src)
            self.frames = frames
            log.info(f"generated pages outside the navigation: {frames}")
        if self.serving:
            reused = len(build.reused)
            log.info(f"generated pages: {len(build.generated) - reused} rendered, {reused} reused")
            texts, kept = len(build.memory.writing), len(build.in_place)  # the text assets (copied files aside)
            log.info(f"made assets: {texts - kept} written, {kept} left in place")
        return env

    def on_page_markdown(self, markdown, page, config, files):
        if page.file.src_uri in self._build().generated:
            page.meta["search"] = {"exclude": True}  # compact entries instead (on_post_build)
            return markdown
        return self._build().page_markdown(markdown, page.file.src_uri, page.file.url)

    @event_priority(-100)  # the last to touch a page's content: its stamp binds what other plugins made of it
    def on_page_content(self, html, page, config, files):
        build = self._build()
        slots = build.slots.get(page.file.src_uri)
        if slots is None:
            return stamp.stamped(build.built.report, html, page.file.dest_uri)
        for item in _toc_items(page.toc):
            item.title = slots.plain(item.title)
        html = self._content(page.file.src_uri, slots, html, page.file.url, page.file.dest_uri)
        build.searched(html, page)  # the search plugin parses it next, unless serve kept its entries
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
        build = self._build()
        generated = build.generated.get(page.file.src_uri)
        if generated is not None and not generated.in_nav:
            build.remember(page.file.src_uri)
        if generated is None:
            path = f"{build.built.report.policy.docs_dir}/{page.file.src_uri}"
            self.missed += build.missed(path, output, page.content or "")
        return output

    def on_post_template(self, output_content, template_name, config):
        """Static pages the theme renders (404.html) carry the stamp too: every HTML file is the ledger's;
        the sitemap lists the pages written in their frames (MkDocs lists the pages it rendered)."""
        if template_name == "sitemap.xml" and self.frames is not None:
            return self.frames.sitemap(output_content, self._build().sitemap_entries(self.frames))
        body = re.search(r"<body\b[^>]*>", output_content)
        if template_name.endswith(".html") and body and "</body>" in output_content:
            start, end = body.end(), output_content.rindex("</body>")
            content = stamp.stamped(self.built.report, output_content[start:end], template_name)
            return output_content[:start] + content + output_content[end:]
        return output_content

    @event_priority(-100)  # after the search plugin has written its index; the site is complete
    def on_post_build(self, config):
        build = self._build()
        build.completed()
        self._readback()
        index = Path(config.site_dir) / "search" / "search_index.json"
        if index.is_file():
            data = json.loads(index.read_text(encoding="utf-8"))
            data["docs"] = build.search_docs(data.get("docs", []))
            data["docs"].extend(build.search_entries(config.use_directory_urls))
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
        build = self._build()
        code = reads.declared_code(build.site.report.runs) if build.site is not None else ()
        for path in (*reads.data_folders(build.policy), *reads.files(build.policy), *code):
            if (build.root / path).exists():
                server.watch(str(build.root / path))
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

    def _build(self) -> Build:
        """This build (on_config makes it)."""
        if self.build is None:
            raise PluginError("the ledger's build is made in on_config: no event before it needs it")
        return self.build

    def _judge(self, report: Report) -> None:
        """Log every finding; `mkdocs build` stops on a failure, serve keeps serving and shows banners."""
        for finding in report.findings:
            (log.warning if finding.severity == "fail" else log.info)(str(finding))
        if report.failures and not self.serving:
            raise PluginError(f"ledger gate failed: {text.summary(report)}")
        log.info(text.summary(report))

    def _figure_problems(self, problems: tuple[str, ...]) -> None:
        """Log each figure that cannot be imported or drawn; `mkdocs build` stops on them, serve shows them."""
        for problem in problems:
            log.warning(problem)
        if problems and not self.serving:
            raise PluginError(
                f"{len(problems)} figure problem{'s' if len(problems) > 1 else ''}: " + "; ".join(problems)
            )

    def _files(self, config, files) -> list[File]:
        """Generated pages (claim and run pages outside the navigation), assets and chart images; serve's
        reused pages and assets stay in the site folder as the last build wrote them."""
        build = self._build()
        made = build.restore(Path(config.site_dir), files.src_uris, config.use_directory_urls)
        found = [
            self._page_file(config, page)
            for page in build.generated.values()
            if page.src not in build.reused and not (self.framed and not page.in_nav)
        ]
        found += [
            InPlace(asset.path, config.docs_dir, config.site_dir, config.use_directory_urls)
            if asset.path in build.in_place
            else File.generated(config, asset.path, abs_src_path=str(asset.source))
            if asset.source is not None
            else File.generated(config, asset.path, content=asset.content)
            for asset in made
        ]
        found += [File.generated(config, asset.path, content=asset.content) for asset in build.built.for_machines()]
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
        if src in self._build().generated:
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
