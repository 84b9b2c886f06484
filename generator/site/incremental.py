"""Serve's memory between builds: what the gate read, and the generated pages already rendered.

MkDocs 1.x renders every page it is given and empties the site folder before each build, so under
`mkdocs serve` a generated page whose Markdown and HTML fragments did not change is kept out of
MkDocs' page pipeline altogether: the folders holding the claim and run pages are moved aside
before MkDocs empties the site folder and moved back after (a rename each), keeping only the
finished pages that are reused. A page is reused only when its own content and the site's frame
(mkdocs.yml and the navigation) are unchanged and the last build completed; anything else is
rendered again. The assets the ledger made are kept the same way while they are the very assets the
last build wrote (restore_assets). The gate's reading of each hand-written page is kept (KeptPages): a
one-line edit reads, scans and links again the page edited, and what the edit changes downstream.
"""

from __future__ import annotations

import hashlib
import operator
import os
import shutil
import tempfile
import time
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path
from typing import TypeVar, cast

import jinja2
import jinja2.bccache

from ..gate import PageReading, check_pages
from ..inputs import figures, reads
from ..inputs.hashcache import files_under
from ..prose import references
from ..prose import scan as prose
from ..records import Claim, Finding, PageRef, Policy, Report, Source
from ..trust.digest import CODE_PAGES
from .render import ASSETS, Asset, Generated, Links, claim_src, run_src, url_of
from .watched import signature

T = TypeVar("T")

FOLDERS = (claim_src("x").split("/")[0], run_src("p/r").split("/")[0], CODE_PAGES)  # pages outside the navigation
HELD_ASSETS = "assets"  # where the made assets' folder (render.ASSETS) waits, beside the held page folders


def digest(*parts: str) -> str:
    """A short content key."""
    hashed = hashlib.sha256()
    for part in parts:
        hashed.update(part.encode("utf-8", "surrogatepass"))
        hashed.update(b"\0")
    return hashed.hexdigest()


@dataclass(frozen=True, slots=True)
class Rendered:
    content: str  # content_key() of the generated page
    chrome: str  # chrome key of the build that rendered it (mkdocs.yml and the navigation)


@dataclass
class Memory:
    """What one `mkdocs serve` session keeps from build to build (the plugin holds one)."""

    data: tuple | None = None  # data_key() of the last full check
    report: Report | None = None
    drawn: dict = field(default_factory=dict)  # figures drawn from that report
    pages: dict[str, Generated] = field(default_factory=dict)  # the generated pages (assemble.py makes them)
    keys: dict[str, str] = field(default_factory=dict)  # src -> content_key(page)
    cited: dict[str, tuple] = field(default_factory=dict)  # claim id -> where the pages cite it
    rendered: dict[str, Rendered] = field(default_factory=dict)  # pages in the site folder after the last build
    building: dict[str, Rendered] = field(default_factory=dict)  # pages of the build under way
    held: Path | None = None  # where the pages wait while MkDocs empties the site folder
    complete: bool = True  # whether the last build finished (else nothing it left is trusted)
    directory_urls: bool = True
    read: KeptPages = field(default_factory=lambda: KeptPages())  # the gate's reading of each page
    search: KeptSearch = field(default_factory=lambda: KeptSearch())  # the search plugin's entries of each page
    made: dict[str, tuple[tuple, object]] = field(default_factory=dict)  # what else a build made: name -> (key, it)
    assets: tuple[Asset, ...] = ()  # the made assets (text, under ASSETS) the last build left in the site folder
    writing: tuple[Asset, ...] = ()  # those of the build under way
    templates: KeptTemplates = field(default_factory=lambda: KeptTemplates())  # the theme's, compiled
    charts: dict[str, str] = field(default_factory=dict)  # vl-convert's output this session, by name (charts.py)

    def report_for(
        self, root: Path, policy: Policy, now: datetime, check_all: Callable[[], Report]
    ) -> tuple[Report, bool]:
        """The gate's Report, and whether the data changed (a full check) or only the pages did."""
        before = data_key(root, policy, now)  # taken before reading, so an edit during the check is seen next time
        if self.report is not None and (before, code_key(root, self.report)) == self.data:
            self.report = check_pages(self.report, root, self.read)
            return self.report, False
        self.report = check_all()
        self.data = (before, code_key(root, self.report))
        self.read = KeptPages()  # read with other claims, runs, figures or mkdocs.yml: nothing kept stands
        return self.report, True

    def kept(self, name: str, key: tuple, make: Callable[[], T]) -> T:
        """make()'s value, made again only when its key changed (same(): values equal, records identical)."""
        done = self.made.get(name)
        if done is None or not same(done[0], key):
            done = self.made[name] = (key, make())
        return cast(T, done[1])  # stored under this name by this make

    def reusable(self, page: Generated) -> Rendered | None:
        """What the last build left of a page outside the navigation whose content is unchanged, if any."""
        done = self.rendered.get(page.src)
        if page.in_nav or done is None or done.content != self.keys.get(page.src):
            return None
        return done

    def hold(self, site: Path) -> None:
        """Before MkDocs empties the site folder: move the generated pages' folders aside."""
        if not self.complete:  # the last build stopped half way: trust nothing it left
            self.rendered, self.assets = {}, ()
        if self.held is not None:
            shutil.rmtree(self.held, ignore_errors=True)
            self.held = None
        self.complete, self.building = False, {}
        if not (self.rendered or self.assets) or not site.is_dir():
            return
        self.held = Path(tempfile.mkdtemp(prefix=".ledger-held-", dir=site.parent))
        for name in FOLDERS:
            if (site / name).is_dir():
                (site / name).rename(self.held / name)
        if (site / ASSETS).is_dir():
            (site / ASSETS).rename(self.held / HELD_ASSETS)

    def restore_assets(self, site: Path, made: Sequence[Asset]) -> frozenset[str]:
        """After MkDocs emptied the site folder (before restore()): the made assets' folder back when this
        build made the very assets the last one wrote (serve keeps them while the figures, runs and
        verdicts they come from stand). Returns the paths of those found there: they need no writing.
        Anything else in the folder goes; copied files (Asset.source) are always copied again."""
        self.writing = tuple(asset for asset in made if asset.source is None and asset.path.startswith(ASSETS + "/"))
        held = self.held / HELD_ASSETS if self.held is not None else None
        same = len(self.writing) == len(self.assets) and all(map(operator.is_, self.writing, self.assets))
        if held is None or not held.is_dir() or not same or (site / ASSETS).exists():
            return frozenset()
        (site / ASSETS).parent.mkdir(parents=True, exist_ok=True)
        held.rename(site / ASSETS)
        return frozenset(_pruned(site, ASSETS, {asset.path for asset in self.writing}))

    def restore(self, site: Path, keep: dict[str, Rendered], directory_urls: bool) -> dict[str, Rendered]:
        """After MkDocs emptied the site folder: the held folders back, with only the kept pages in them.

        Returns the kept pages whose file is there (a page not found is rendered again)."""
        held, self.held = self.held, None
        if held is None:
            return {}
        wanted = {dest_of(src, directory_urls): src for src in keep}
        for name in FOLDERS:
            if (held / name).is_dir() and not (site / name).exists():
                (held / name).rename(site / name)
        if keep.keys() == self.rendered.keys():  # every page held is kept (a page edit): none to take out
            folder = str(site)
            found = {src: keep[src] for dest, src in wanted.items() if os.path.isfile(os.path.join(folder, dest))}
        else:
            found = {wanted[dest]: keep[wanted[dest]] for name in FOLDERS for dest in _pruned(site, name, wanted)}
        shutil.rmtree(held, ignore_errors=True)
        self.building.update(found)
        return found

    def remember(self, src: str, chrome: str) -> None:
        self.building[src] = Rendered(self.keys[src], chrome)

    def completed(self) -> None:
        """The build finished: what it wrote is what the next one may reuse."""
        self.rendered, self.building, self.complete = self.building, {}, True
        self.assets, self.writing = self.writing, ()


def _pruned(site: Path, folder: str, wanted: Collection[str]) -> list[str]:
    """Deletes each file under site/folder whose path in the site is not wanted; the paths of those kept."""
    kept = []
    for path in list(files_under(site / folder)):
        name = path.relative_to(site).as_posix()
        if name in wanted:
            kept.append(name)
        else:
            path.unlink()
    return kept


def data_key(root: Path, policy: Policy, now: datetime) -> tuple:
    """Everything the gate reads but the hand-written pages: files by (size, mtime, inode), the day, git."""
    files = (*reads.files(policy), *reads.GIT_FILES)
    return (policy, now.date(), signature(root, reads.data_folders(policy), files))


def code_key(root: Path, report: Report) -> tuple:
    """The probe code runs declare, wherever it lives (most is under probes_dir, already in data_key)."""
    return _stats(root, reads.declared_code(report.runs))


def _stats(root: Path, paths: Iterable[str]) -> tuple:
    found: list[tuple] = []
    for path in paths:
        try:
            info = (root / path).stat()
            found.append((path, info.st_size, info.st_mtime_ns, info.st_ino))
        except (OSError, ValueError):
            found.append((path, None))
    return tuple(found)


def citations(report: Report) -> dict[str, tuple]:
    """claim id -> where hand-written pages cite it (a claim's page lists those places)."""
    found: dict[str, list] = {}
    for ref in report.page_refs:
        if ref.kind == "claim":
            found.setdefault(ref.name, []).append(ref.where)
    return {claim_id: tuple(places) for claim_id, places in found.items()}


def same(before: tuple, now: tuple) -> bool:
    """Two keys alike: each part the same object, or an equal value (records and mappings, such as a
    report's verdicts or the drawn figures, count only as the same object)."""
    return len(before) == len(now) and all(
        a is b or (isinstance(a, (str, int, float, tuple, frozenset, Links)) and a == b)
        for a, b in zip(before, now, strict=True)
    )


class KeptPages(PageReading):
    """The gate's reading of the hand-written pages under serve, kept from build to build while claims,
    runs, probes, figures and mkdocs.yml are unchanged (Memory starts a new one on a full check): a
    page's references and its prose scan are read again only when its text changed. A page that
    includes other files (pymdownx.snippets) is read every time, as is every page when snippets are
    appended to all; a page whose reading failed is not kept. Kept pages' render time counts against
    the check's render budget as if they were read again; when it runs out, every page is (check())."""

    def __init__(self) -> None:
        self.refs: dict[str, tuple[str, tuple[PageRef, ...]]] = {}  # page -> (its text, its references)
        self.scans: dict[str, tuple[str, prose.Scan, float]] = {}  # page -> (its text, its scan, seconds)
        self.rest: tuple[Sequence[Claim], Policy, prose.Scan] | None = None  # claims' and site texts' figures
        self.figures: figures.Defined | None = None

    def references(self, path: str, text: str) -> Sequence[PageRef]:
        done = self.refs.get(path)
        if done is None or done[0] != text:
            done = self.refs[path] = (text, tuple(references.find(text, path)))
        return done[1]

    def defined(self, root: Path) -> figures.Defined:
        if self.figures is None:  # figures/ is data: a change there is a full check
            self.figures = figures.defined(root)
        return self.figures

    def scan(
        self, pages: Mapping[str, str], refs: Sequence[PageRef], policy: Policy, root: Path, claims: Sequence[Claim]
    ) -> prose.Scan:
        if _appends_snippets(policy):
            return prose.scan(pages, refs, policy, root, claims)
        by_page: dict[str, list[PageRef]] = {}
        for ref in refs:
            by_page.setdefault(ref.where.path, []).append(ref)
        spent = sum(done[2] for path, done in self.scans.items() if pages.get(path) == done[0])
        findings: list[Finding] = []
        typed: dict[str, tuple[tuple[str, Source], ...]] = {}
        for path, text in pages.items():
            done = self.scans.get(path)
            if done is None or done[0] != text:
                left = replace(policy, site_texts=(), max_render_seconds=policy.max_render_seconds - spent)
                start = time.monotonic()
                read = prose.scan({path: text}, by_page.get(path, []), left, root)
                done = (text, read, time.monotonic() - start)
                spent += done[2]
                if any(f.fix == prose.SPENT_FIX for f in read.findings):  # as check() would say it, every page read
                    return prose.scan(pages, refs, policy, root, claims)
                if "8<" not in text and not any(f.rule == "invalid" for f in read.findings):
                    self.scans[path] = done
            findings += done[1].findings
            typed.update(done[1].typed)
        for path in self.scans.keys() - pages.keys():
            del self.scans[path]
        if self.rest is None or self.rest[0] is not claims or self.rest[1] is not policy:
            self.rest = (claims, policy, prose.scan({}, (), policy, root, claims))
        return prose.Scan((*findings, *self.rest[2].findings), {**typed, **self.rest[2].typed})


class KeptTemplates(jinja2.BytecodeCache):
    """The theme's templates compiled once per serve session: MkDocs makes a new Jinja environment for
    every build, which parses and compiles each template again (benchmarks/build_time.py's serve edits
    measure what that costs). Jinja keys each template's code by its name, file and a checksum of its source, so a template
    edited under serve compiles again."""

    def __init__(self) -> None:
        self.code: dict[str, bytes] = {}

    def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        code = self.code.get(bucket.key)
        if code is not None:
            bucket.bytecode_from_string(code)

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        self.code[bucket.key] = bucket.bytecode_to_string()


class KeptSearch:
    """The search plugin's entries for each hand-written page under serve. A page whose HTML, URL,
    title, table of contents, metadata and mkdocs.yml (the search plugin's settings) are as at the last build is kept out of the search
    plugin's parse (its metadata says search: exclude) and its last entries are put back in its place
    in the index: what a full build indexes, without parsing again the pages an edit left alone."""

    def __init__(self) -> None:
        self.entries: dict[str, tuple[tuple, list[dict]]] = {}  # page URL -> (its key, its entries)
        self.built: list[tuple[str, tuple, bool]] = []  # this build's pages in order: (URL, key, kept)

    def page(self, html: str, page, config_text: str) -> None:
        """One hand-written page's final HTML (on_page_content): kept out of the parse if unchanged."""
        toc = repr([(item.title, item.url, item.level) for item in _toc(page.toc)])
        key = (html, page.title, toc, repr(page.meta), config_text)
        done = self.entries.get(page.url)
        kept = done is not None and done[0] == key
        self.built.append((page.url, key, kept))
        if kept:
            page.meta = {**page.meta, "search": {**(page.meta.get("search") or {}), "exclude": True}}

    def merged(self, docs: list[dict]) -> list[dict]:
        """The index's entries with each kept page's own put back where a full build puts them (pages in
        the order built); the entries of the pages parsed are remembered for the next build."""
        built, self.built = self.built, []
        parsed: dict[str, list[dict]] = {}
        rest: list[dict] = []
        urls = {url for url, _, kept in built if not kept}
        for entry in docs:
            url = str(entry.get("location", "")).split("#", 1)[0]
            (parsed.setdefault(url, []) if url in urls else rest).append(entry)
        found = []
        for url, key, kept in built:
            entries = self.entries[url][1] if kept else parsed.get(url, [])
            self.entries[url] = (key, entries)
            found += entries
        return found + rest if any(kept for _, _, kept in built) else docs


def _toc(items):
    for item in items or []:
        yield item
        yield from _toc(item.children)


def _appends_snippets(policy: Policy) -> bool:
    """Whether pymdownx.snippets puts other files into every page (its auto_append option)."""
    return any(name.endswith(".snippets") and "auto_append" in options for name, options in policy.markdown_extensions)


def content_key(page: Generated) -> str:
    return digest(page.src, page.markdown, *page.slots.fragments, *page.slots.texts)


def chrome_key(config_text: str, nav_items: Iterable, gate_ok: bool) -> str:
    """What a page's frame depends on besides its content: mkdocs.yml, the navigation's titles and URLs,
    and whether the gate passes (every page's stamp says so: a page edit can make it fail)."""
    return digest(config_text, repr(list(_nav(nav_items))), str(gate_ok))


def _nav(items: Iterable):
    for item in items:
        yield (type(item).__name__, str(item.title), getattr(item, "url", None))
        yield from _nav(getattr(item, "children", None) or [])


def dest_of(src: str, directory_urls: bool) -> str:
    """Where MkDocs writes a page: claim/a.md -> claim/a/index.html (or claim/a.html)."""
    url = url_of(src, directory_urls)
    return url + "index.html" if url.endswith("/") or not url else url
