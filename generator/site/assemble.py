"""One site assembly: the gate's Report -> what a build adds to the hand-written pages, made once.

The plugin (`mkdocs build` and `mkdocs serve`), the Markdown extension and `ledger pages` each call
assemble() and differ only in where they put what it made (MkDocs' files, a page's HTML, files in a
folder), as mkdocs' serve and build both call one build(): the figures the pages want, drawn once;
the generated pages; the assets (CSS, JavaScript, the registry of runs, chart images, the series' data,
the Vega bundle); the scripts a page showing a chart loads; the site's URL settings.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from .. import text
from ..inputs.bounded import Unreadable, read_capped
from ..judging import leads
from ..records import Report
from ..runs import linked_part
from ..trust import stamp
from . import drawing, incremental, render, report_pages
from .drawing import Drawn
from .incremental import Memory
from .render import Asset, Generated
from .timeline import SeriesAssets

MAX_PAGE_BYTES = 4 << 20  # as the gate reads a page
CHART_SCRIPTS = ("vega.js", "charts.js")  # what a page showing a chart loads, in this order


@dataclass(frozen=True, slots=True)
class Settings:
    """The site's URL settings: MkDocs' own inside the plugin, mkdocs.yml's for the other builders."""

    directory_urls: bool = True
    base_url: str = "/"  # the path of site_url, for builders that do not say which page is being rendered


@dataclass(frozen=True, slots=True)
class Site:
    """What one build adds to the hand-written pages; every page reads it, nothing changes it."""

    root: Path
    report: Report
    settings: Settings
    drawn: Mapping[str, Drawn]  # "table:id" / "chart:id" -> the figure, drawn once
    problems: tuple[str, ...] = ()  # figure modules that cannot be imported, figures that cannot be drawn
    pages: tuple[Generated, ...] = ()
    series: SeriesAssets = field(default_factory=SeriesAssets)  # each series' data, made once for its pages
    later: tuple[str, ...] = ()  # the pages outside the navigation left to make (assemble(later=True)), by src
    shared: render.Shared = field(default_factory=render.Shared)  # what its pages write alike, made once
    charts: dict[str, str] = field(default_factory=dict)  # vl-convert's output by name (serve's: Memory.charts)

    def outside(self) -> Iterator[Generated]:
        """The pages left to make, one at a time, in the order of `later`."""
        if self.later:
            sources = report_pages.read_sources(self.root, self.report)
            urls = self.settings.directory_urls
            yield from report_pages.outside(self.report, sources, urls, self.series, self.shared)

    def links(self, url: str) -> render.Links:
        """Links from the page at `url` (its links found once for every page at its place)."""
        return render.Links(url, self.settings.directory_urls, shared=self.shared)

    def figures_html(self, wanted: Iterable[str], links: render.Links) -> dict[str, str]:
        """The figures a page refers to, as HTML for that page (links: from the page)."""
        return {key: drawing.figure_html(self.drawn[key], self.report, links) for key in wanted if key in self.drawn}

    def for_machines(self) -> list[Asset]:
        """claims.json (the verdicts as `ledger check --format json` gives them) and llms.txt, at the site's
        root: made from the whole report (its findings too), so made again every build."""
        return [
            Asset(text.CLAIMS_JSON, content=text.as_json(self.report)),
            Asset(text.LLMS_TXT, content=text.as_llms(self.report, self.settings.directory_urls)),
        ]

    def assets(self) -> list[Asset]:
        """ledger.css, ledger.js, charts.js and the registry of runs; with charts or timelines, each chart's
        SVG and the Vega bundle (both cached under the project's cache folder)."""
        from . import charts  # vl-convert loads only when assets are made

        cache: Path | None = self.root / render.CACHE
        if linked_part(self.root, self.root / render.CACHE) is not None:
            cache = None  # a linked cache folder would be read and written wherever it points
        found = [
            Asset(f"{render.ASSETS}/{path.name}", source=path)
            for path in sorted(render.ASSET_FILES.iterdir())
            if path.suffix in (".css", ".js")
        ]
        found.append(Asset(stamp.REGISTRY, content=stamp.registry_json(self.report)))
        specs = {d.figure.id: d.result for d in self.drawn.values() if d.figure.kind == "chart" and not d.error}
        found += [
            Asset(f"{render.ASSETS}/{drawing.svg_name(figure_id)}", content=charts.svg(spec, cache, self.charts))
            for figure_id, spec in specs.items()
        ]
        series = self.series.all(self.report.verdicts.values())
        if specs or series:
            found.append(Asset(f"{render.ASSETS}/vega.js", content=charts.bundle(cache, self.charts)))
        return found + series


def assemble(
    root: Path,
    report: Report,
    settings: Settings,
    memory: Memory | None = None,
    changed: bool = True,
    generate: bool = True,
    later: bool = False,
) -> Site:
    """The site for a report: figures drawn, pages generated (unless generate=False: the Markdown
    extension renders only the hand-written pages; later=True: only the index pages now, the pages outside
    the navigation as the caller takes them from Site.outside()). With serve's memory, figures and pages
    left from the last build are reused when only the pages changed (changed=False)."""
    wanted = wanted_figures(report)
    drawn: dict[str, Drawn] = memory.drawn if memory is not None else {}
    problems: list[str] = []
    if memory is None or changed or not wanted <= drawn.keys():
        drawn, problems = draw(root, report, wanted)
    problems += lead_figures(root, report, drawn)
    generated: list[Generated] = []
    series = SeriesAssets()
    shared = render.Shared()  # what the build's pages write alike, from here on (Site.shared)
    if memory is not None:  # serve: the last build's stands while what it was made of does
        key = (report.verdicts, report.runs, report.run_states, settings.directory_urls)
        shared = memory.kept("shared", key, render.Shared)
        memory.drawn = drawn
    if later and generate:
        generated = report_pages.index_pages(report, settings.directory_urls, shared)
    elif memory is not None and generate:
        generated = _generated(memory, root, report, changed, settings.directory_urls, series, shared)
    elif generate:
        sources = report_pages.read_sources(root, report)
        generated = report_pages.generate(report, sources, settings.directory_urls, series, shared)
    outside = tuple(report_pages.outside_srcs(report)) if later and generate else ()
    made = memory.charts if memory is not None else {}
    return Site(root, report, settings, drawn, tuple(problems), tuple(generated), series, outside, shared, made)


def _generated(
    memory: Memory,
    root: Path,
    report: Report,
    changed: bool,
    directory_urls: bool,
    series: SeriesAssets,
    shared: render.Shared,
) -> list[Generated]:
    """Serve's generated pages: all of them after a data change, else the indexes and the claim pages
    whose citations moved (a page edit), the rest as generated last time."""
    cited = incremental.citations(report)
    if changed or not memory.pages or directory_urls != memory.directory_urls:
        sources = report_pages.read_sources(root, report)
        fresh = report_pages.generate(report, sources, directory_urls, series, shared)
        memory.pages, memory.keys = {}, {}
    else:
        moved = sorted(i for i in cited.keys() | memory.cited.keys() if cited.get(i) != memory.cited.get(i))
        # the indexes read the claims, runs and policy (unchanged here), the verdicts and the findings
        key = (report.findings, tuple(report.causes.items()), report.verdicts, directory_urls)
        fresh = list(memory.kept("index pages", key, lambda: report_pages.index_pages(report, directory_urls, shared)))
        moved_pages = [i for i in moved if i in report.by_id]
        fresh += report_pages.claim_pages(report, moved_pages, directory_urls, series, shared)
    for page in fresh:
        memory.pages[page.src], memory.keys[page.src] = page, incremental.content_key(page)
    memory.cited, memory.directory_urls = cited, directory_urls
    return list(memory.pages.values())


def wanted_figures(report: Report) -> set[str]:
    """The tables and charts the hand-written pages refer to, as "table:id" / "chart:id"."""
    return {f"{r.kind}:{r.name}" for r in report.page_refs if r.kind in ("table", "chart")}


def draw(root: Path, report: Report, wanted: Iterable[str]) -> tuple[dict[str, Drawn], list[str]]:
    """Import figures/*.py once and draw every figure wanted -> (drawn, problems); a figure that fails
    is drawn as its error, and its error is a problem too."""
    figures, problems = drawing.load(root)
    drawn = {key: drawing.draw(figures[key], report) for key in sorted(wanted) if key in figures}
    return drawn, problems + [d.error for d in drawn.values() if d.error]


def lead_figures(root: Path, report: Report, drawn: Mapping[str, Drawn]) -> list[str]:
    """A table or chart that shows a lead, on a page whose front matter forbids leads (lead-premise): a
    table or chart cites every claim it reads, as a reference does."""
    found = []
    forbids: dict[str, bool] = {}
    for ref in report.page_refs:
        figure = drawn.get(f"{ref.kind}:{ref.name}")
        if figure is None:
            continue
        shown = [claim.id for claim in figure.used.claims if claim.status == "lead"]
        if shown and ref.where.path not in forbids:
            try:
                text = read_capped(root / ref.where.path, MAX_PAGE_BYTES).decode("utf-8", "replace")
            except Unreadable:
                text = ""
            forbids[ref.where.path] = leads.forbids_leads(text, ref.where.path)[0]
        found += [
            f"{ref.where}: lead-premise: {ref.kind} {ref.name!r} shows {claim_id}, a lead, on a page whose front "
            f"matter forbids leads (`{leads.FORBID}`); draw it from claims checked here, or move it to a page "
            "that allows leads"
            for claim_id in shown
            if forbids[ref.where.path]
        ]
    return found


def chart_scripts(html: str, links: render.Links) -> str:
    """The scripts a page showing a chart loads (the Vega bundle, then charts.js); '' on other pages."""
    if "ledger-chart-spec" not in html:
        return ""
    return "".join(f'<script src="{render.esc(links.asset(name))}"></script>' for name in CHART_SCRIPTS)
