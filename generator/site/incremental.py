"""Serve's memory between builds: what the gate read, and the generated pages already rendered.

MkDocs 1.x renders every page it is given and empties the site folder before each build, so under
`mkdocs serve` a generated page whose Markdown and HTML fragments did not change is kept out of
MkDocs' page pipeline altogether: the folders holding the claim and run pages are moved aside
before MkDocs empties the site folder and moved back after (a rename each), keeping only the
finished pages that are reused. A page is reused only when its own content and the site's frame
(mkdocs.yml and the navigation) are unchanged and the last build completed; anything else is
rendered again.
"""

from __future__ import annotations

import hashlib
import shutil
import tempfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from ..gate import check_pages
from ..inputs import reads
from ..inputs.hashcache import files_under
from ..records import Policy, Report
from .render import Generated, claim_src, run_src, url_of
from .watched import signature

FOLDERS = (claim_src("x").split("/")[0], run_src("p/r").split("/")[0])  # where pages outside the navigation go


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

    def report_for(
        self, root: Path, policy: Policy, now: datetime, check_all: Callable[[], Report]
    ) -> tuple[Report, bool]:
        """The gate's Report, and whether the data changed (a full check) or only the pages did."""
        before = data_key(root, policy, now)  # taken before reading, so an edit during the check is seen next time
        if self.report is not None and (before, code_key(root, self.report)) == self.data:
            self.report = check_pages(self.report, root)
            return self.report, False
        self.report = check_all()
        self.data = (before, code_key(root, self.report))
        return self.report, True

    def reusable(self, page: Generated) -> Rendered | None:
        """What the last build left of a page outside the navigation whose content is unchanged, if any."""
        done = self.rendered.get(page.src)
        if page.in_nav or done is None or done.content != self.keys.get(page.src):
            return None
        return done

    def hold(self, site: Path) -> None:
        """Before MkDocs empties the site folder: move the generated pages' folders aside."""
        if not self.complete:  # the last build stopped half way: trust nothing it left
            self.rendered = {}
        if self.held is not None:
            shutil.rmtree(self.held, ignore_errors=True)
            self.held = None
        self.complete, self.building = False, {}
        if not self.rendered or not site.is_dir():
            return
        self.held = Path(tempfile.mkdtemp(prefix=".ledger-held-", dir=site.parent))
        for name in FOLDERS:
            if (site / name).is_dir():
                (site / name).rename(self.held / name)

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
        found = {}
        for name in FOLDERS:
            for path in list(files_under(site / name)):
                src = wanted.get(path.relative_to(site).as_posix())
                if src is None:
                    path.unlink()
                else:
                    found[src] = keep[src]
        shutil.rmtree(held, ignore_errors=True)
        self.building.update(found)
        return found

    def remember(self, src: str, chrome: str) -> None:
        self.building[src] = Rendered(self.keys[src], chrome)

    def completed(self) -> None:
        """The build finished: what it wrote is what the next one may reuse."""
        self.rendered, self.building, self.complete = self.building, {}, True


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


def content_key(page: Generated) -> str:
    return digest(page.src, page.markdown, *page.slots.fragments, *page.slots.texts)


def chrome_key(config_text: str, nav_items: Iterable) -> str:
    """What a page's frame depends on besides its content: mkdocs.yml and the navigation's titles and URLs."""
    return digest(config_text, repr(list(_nav(nav_items))))


def _nav(items: Iterable):
    for item in items:
        yield (type(item).__name__, str(item.title), getattr(item, "url", None))
        yield from _nav(getattr(item, "children", None) or [])


def dest_of(src: str, directory_urls: bool) -> str:
    """Where MkDocs writes a page: claim/a.md -> claim/a/index.html (or claim/a.html)."""
    url = url_of(src, directory_urls)
    return url + "index.html" if url.endswith("/") or not url else url
