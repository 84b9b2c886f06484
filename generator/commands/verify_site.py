"""`ledger verify-site SITE_DIR`: a built site and a fresh check of the ledger -> every page the ledger
did not render, or did not render from this ledger, every figure it did not re-derive, and why.

Run in its own process after the build, it imports no project code (no figures, no hooks: only the
gate) and trusts nothing the build wrote about itself. Whatever built the site (the plugin, another
builder with the Markdown extension and `ledger pages`, or a tool that skipped the ledger):

- it reads every file of the site a browser would render as a document, by name in any letter case
  or by its content whatever its name (sitefiles.py), and refuses a link anywhere in the site (the
  Pages upload publishes what a link points to), a file that is no regular file (a pipe would never
  end a read) and one it cannot read; a site with no HTML page fails;
- every HTML page must carry the ledger's stamp, passing, with a fresh `check()`'s report digest and
  a digest of its own path and content (a page edited or moved after it was rendered fails). The one
  exception is the theme's 404.html from a builder without plugin events: it passes unstamped only
  when it shows no figure and no claim;
- every claim a page shows must show the value, kind and status the fresh check gives, and have a
  claim page; every chart's rows must be rows of the runs they name (chartdata.py); a figure table's
  numbers with a unit must be claims or cells of the run their row names; on a page that forbids
  leads, no table or chart may show one (sitepage.py);
- the rendered text of every document is scanned as the prose scan reads a browser's view: a figure
  that no element it re-derived holds fails, with the page, the line, the text and the element
  (sitetext.py says what a generated page and a label may hold);
- a claim page or an index is first rendered again from the fresh Report (rendered.py): where its
  content is exactly those fragments in a skeleton that leaves each to read alone, only the skeleton
  and the theme around it are read, once for every page of that form (prose/framed.read_around); any
  page that does not read so, or shows anything refused that way, is read whole, so the problems are
  those of a whole reading; a hand-written page is read whole but for its banner's list of findings where
  that is the list the ledger renders for the page (sitepage._without_list);
- no page may hold a claim, table or chart reference outside code, an unfilled slot, or a reference
  the ledger could not resolve;
- every code block of the ledger's (a version of a probe's code, one page per digest of its files'
  texts, which each run page links to) must be the repository's text of a file a run hashes, and each
  version's page must be there and show each of its files (sitepage.py);
- every series' data the site publishes (`assets/ledger/series/*.csv`, which the claim pages'
  timelines load) must be byte for byte one the fresh check's series make;
- the site's registry of runs must be the fresh check's, and with --against, every run published
  before must have the same bytes now, or be retired explicitly (registry.py).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path

from ..gate import check_project
from ..inputs import project
from ..inputs.config import config_file
from ..records import ClaimVerdict, Report
from ..series.text import SERIES_ASSETS, asset_path
from ..trust import stamp
from ..trust.digest import registry as run_registry
from . import registry, sitefiles, sitepage, sitetext
from .rendered import Rendered
from .sitepage import Problem

__all__ = ["Problem", "verify"]


def setup_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("site_dir", metavar="SITE_DIR", type=Path, help="a built site, e.g. site/")
    parser.add_argument(
        "--against",
        metavar="REGISTRY",
        help="the registry of runs the previous site published (a folder, a file or an http(s) URL): "
        "refuse a published run whose bytes changed",
    )


def run_from_args(args: argparse.Namespace) -> int:
    if not args.site_dir.is_dir():
        print(f"ledger verify-site: {args.site_dir} is not a folder", file=sys.stderr)
        return 2
    project.find(args.root, args.config)
    report = check_project(args.root, args.config, datetime.now(timezone.utc))
    root = args.root.resolve()
    checked, problems = verify(args.site_dir, report, root, config_file(root, args.config))
    lines = [str(problem) for problem in problems] + _against(args.against, report)
    for line in lines:
        print(line)
    if lines:
        pages = {problem.page for problem in problems}
        print(f"{len(lines)} problem{'s' if len(lines) != 1 else ''} ({len(pages)} of {checked} pages)")
        return 1
    print(
        f"{checked} pages verified: every one rendered by the ledger from this ledger's report, with the gate passing"
    )
    return 0


def _against(published: str | None, report: Report) -> list[str]:
    """Problems with the runs the previous site published (--against), its notes printed."""
    if not published:
        return []
    try:
        before, note = registry.published(published)
    except registry.Unavailable as error:
        return [f"--against {published}: the published registry cannot be read: {error}"]
    if note:
        print(f"note: {note}")
    if before is None:
        return []
    problems, notes = registry.differences(before, run_registry(report), dict(report.policy.retired_runs))
    for line in notes:
        print(f"note: {line}")
    return problems


def verify(site: Path, report: Report, root: Path, config: Path) -> tuple[int, list[Problem]]:
    """(HTML pages checked, every problem found) for the site under `site`, against a fresh Report."""
    found = sitefiles.documents(site)
    problems = [Problem(path, 0, what) for path, what in found.problems]
    if not found.pages:
        problems.append(Problem(".", 0, "no HTML page: an empty site is not a report"))
    if not report.ok:
        problems.append(Problem(".", 0, "the gate fails on this ledger now (`ledger check` says why)"))
    ctx = sitetext.context(root, report, config)
    attributes = found.css_attributes
    names = frozenset(found.pages)
    charts: set[str] = set()
    rendered = Rendered(report, ctx.directory_urls)
    for name in found.pages:
        try:
            data = found.data(name)
        except OSError as error:  # (a page is opened here first: sitefiles.documents goes by its name)
            problems.append(Problem(name, 0, sitefiles.unreadable(error)))
            continue
        fragments = rendered.fragments(name)  # (a page read around them is compared as its bytes: framed.py)
        if fragments is None or not sitepage.rendered_passes(name, data, fragments, names, ctx, attributes, charts):
            banner = rendered.banner(ctx.handwritten[name]) if name in ctx.handwritten else None
            problems += sitepage.page_problems(name, sitefiles.text_of(data), names, ctx, attributes, charts, banner)
    for name in sorted(set(ctx.code_pages) - names):
        problems.append(Problem(name, 0, "missing: the page of a version of probe code that run pages link to"))
    series, series_found = series_problems(site, report, rendered.series_text)
    for name in found.others:
        if name in series:  # byte for byte the ledger's (series_problems)
            continue
        if name not in {sitepage.fallback_of(chart_id) for chart_id in charts}:  # drawn from a verified spec
            problems += sitepage.document_problems(name, found.text(name), ctx)
    problems += series_found + registry_problems(site, report)
    return len(found.pages), sorted(problems)


def series_problems(
    site: Path, report: Report, text_of: Callable[[ClaimVerdict], str]
) -> tuple[set[str], list[Problem]]:
    """(the series files that are the ledger's, problems): every file under assets/ledger/series must
    be the CSV of a series the fresh check holds, as the site writes it (text_of: a claim's series CSV)."""
    folder = site / SERIES_ASSETS
    if not folder.is_dir() or folder.is_symlink():
        return set(), []
    expected: dict[str, str] = {}
    for verdict in report.verdicts.values():
        if verdict.series is not None:
            text = text_of(verdict)
            expected[asset_path(text)] = text
    same, problems = set(), []
    for path in sorted(folder.rglob("*")):
        name = path.relative_to(site).as_posix()
        if path.is_symlink() or not path.is_file():
            continue  # a link is refused with the site's files (sitefiles.py)
        if path.read_bytes().decode("utf-8", "replace") == expected.get(name):
            same.add(name)
        else:
            problems.append(Problem(name, 0, "is no series of the ledger's: the timeline data was edited or is stale"))
    return same, problems


def registry_problems(site: Path, report: Report) -> list[Problem]:
    """The registry the site publishes must be the ledger's own."""
    path = site / stamp.REGISTRY
    if not path.is_file() or path.is_symlink():
        return [Problem(stamp.REGISTRY, 0, "missing: the site publishes no registry of its runs")]
    if path.read_text("utf-8", "replace") != stamp.registry_json(report):
        return [Problem(stamp.REGISTRY, 0, "differs from the ledger's runs: the site was built from other runs")]
    return []
