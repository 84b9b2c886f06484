"""`ledger verify-site SITE_DIR`: a built site and a fresh check of the ledger -> every page the ledger
did not render, or did not render from this ledger, every figure it did not re-derive, and why.

Run in its own process after the build, it imports no project code (no figures, no hooks: only the
gate) and trusts nothing the build wrote about itself. What it refuses, and how it reads a site, is
guide/builders.md's `ledger verify-site` section; the reading is generator/verify/ (verify.verify).
"""

from __future__ import annotations

import argparse
import sys
from datetime import datetime, timezone
from pathlib import Path

from ..gate import check
from ..inputs import project
from ..records import Report
from ..trust.digest import registry as run_registry
from ..verify import registry, verify


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
    found_project = project.find(args.root, args.config)  # its configuration composed once, here
    root = found_project.root
    report = check(root, found_project.policy, datetime.now(timezone.utc), every_table=True)  # as the site read them
    directory_urls, _ = found_project.urls
    pages, found = verify(args.site_dir, report, root, directory_urls)
    problems = [problem for problem in found if not problem.typed]
    warned = [problem for problem in found if problem.typed]  # migration mode: what the gate warned about
    lines = [str(problem) for problem in problems] + _against(args.against, report)
    for line in [str(problem) for problem in warned] + lines:
        print(line)
    also = f"; {_warnings(warned)}" if warned else ""
    if lines:
        checked = set(pages)
        on_pages = [problem.page for problem in problems if problem.page in checked]
        print(f"{_counted(len(lines), on_pages, len(pages))}{also}")
        return 1
    print(
        f"{len(pages)} pages verified: every one rendered by the ledger from this ledger's report, with the gate "
        f"passing{also}"
    )
    return 0


def _warnings(warned: list) -> str:
    return (
        f"{len(warned)} figure{'s' if len(warned) != 1 else ''} typed into pages listed as warnings "
        "(migration mode: `warn: [unbound-number]`)"
    )


def _counted(problems: int, on_pages: list[str], checked: int) -> str:
    """'3 problems (2 of 40 pages; 1 elsewhere: ...)': the pages with problems counted among the pages checked
    (on_pages: the page of each problem on one), the rest (the site's other files, --against's) apart."""
    where = f"{len(set(on_pages))} of {checked} page{'s' if checked != 1 else ''}"
    if problems > len(on_pages):
        where += f"; {problems - len(on_pages)} elsewhere: the site's other files, or the runs it published before"
    return f"{problems} problem{'s' if problems != 1 else ''} ({where})"


def _against(published: str | None, report: Report) -> list[str]:
    """Problems with the runs the previous site published (--against), its notes printed."""
    if published is None:
        return []
    try:
        before, note = registry.published(published)
    except registry.Unavailable as error:
        named = published or "''"  # an empty value, shown as one
        return [f"--against {named}: the published registry cannot be read: {error}"]
    except registry.Empty as empty:
        if not report.runs:
            return []
        return [
            f"--against {published}: the published registry {empty.where} lists no run, while this ledger holds "
            f"{len(report.runs):,}: a site publishes every run it holds, so there is nothing to hold them to (if the "
            "previous site truly published none, publish once without --against)"
        ]
    if note:
        print(f"note: {note}")
    if before is None:
        return []
    problems, notes = registry.differences(before, run_registry(report), dict(report.policy.retired_runs))
    for line in notes:
        print(f"note: {line}")
    return problems
