"""A whole built site against a fresh Report -> (the pages checked, every problem): verify-site's reading,
each page by sitepage.py, the claim pages and indexes around what expected.py renders again."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from .. import text
from ..records import ClaimVerdict, Report
from ..series.words import SERIES_ASSETS, asset_path
from ..trust import stamp
from . import sitefiles, sitepage, sitetext
from .expected import Rendered
from .sitepage import Problem


def verify(site: Path, report: Report, root: Path, directory_urls: bool) -> tuple[list[str], list[Problem]]:
    """(the HTML pages checked, every problem found) for the site under `site`, against a fresh Report
    (directory_urls: mkdocs.yml's use_directory_urls, as the verb read it)."""
    found = sitefiles.documents(site)
    problems = [Problem(path, 0, what) for path, what in found.problems]
    if not found.pages:
        problems.append(Problem(".", 0, "no HTML page: an empty site is not a report"))
    if not report.ok:
        problems.append(Problem(".", 0, "the gate fails on this ledger now (`ledger check` says why)"))
    ctx = sitetext.context(root, report, directory_urls)
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
    published, published_found = machine_problems(site, report, ctx.directory_urls)
    for name in found.others:
        if name in series or name in published:  # held byte for byte to the ledger's (the two calls above)
            continue
        if name not in {sitepage.fallback_of(chart_id) for chart_id in charts}:  # drawn from a verified spec
            problems += sitepage.document_problems(name, found.text(name), ctx)
    problems += series_found + published_found + registry_problems(site, report)
    return found.pages, sorted(problems)


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


def machine_problems(site: Path, report: Report, directory_urls: bool) -> tuple[set[str], list[Problem]]:
    """(the files read here, problems): claims.json and llms.txt must be, byte for byte, what the ledger
    makes of the fresh report (one problem for an edited one, not one per figure in it)."""
    read, problems = set(), []
    for name, expected in (
        (text.CLAIMS_JSON, text.as_json(report)),
        (text.LLMS_TXT, text.as_llms(report, directory_urls)),
    ):
        path = site / name
        if not path.is_file() or path.is_symlink():  # (a link is refused with the site's files: sitefiles.py)
            problems += [] if path.is_symlink() else [Problem(name, 0, "missing: the site publishes no verdicts here")]
            continue
        read.add(name)
        if path.read_bytes().decode("utf-8", "replace") != expected:
            problems.append(
                Problem(
                    name, 0, "differs from the ledger's verdicts: edited after the build, or built from another state"
                )
            )
    return read, problems


def registry_problems(site: Path, report: Report) -> list[Problem]:
    """The registry the site publishes must be the ledger's own."""
    path = site / stamp.REGISTRY
    if not path.is_file() or path.is_symlink():
        return [Problem(stamp.REGISTRY, 0, "missing: the site publishes no registry of its runs")]
    if path.read_text("utf-8", "replace") != stamp.registry_json(report):
        return [Problem(stamp.REGISTRY, 0, "differs from the ledger's runs: the site was built from other runs")]
    return []
