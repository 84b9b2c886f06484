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

from ..gate import check_project
from ..inputs import project
from ..inputs.config import config_file
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
    project.find(args.root, args.config)
    report = check_project(args.root, args.config, datetime.now(timezone.utc))
    root = args.root.resolve()
    checked, found = verify(args.site_dir, report, root, config_file(root, args.config))
    problems = [problem for problem in found if not problem.typed]
    warned = [problem for problem in found if problem.typed]  # migration mode: what the gate warned about
    lines = [str(problem) for problem in problems] + _against(args.against, report)
    for line in [str(problem) for problem in warned] + lines:
        print(line)
    also = f"; {_warnings(warned)}" if warned else ""
    if lines:
        pages = {problem.page for problem in problems}
        print(f"{len(lines)} problem{'s' if len(lines) != 1 else ''} ({len(pages)} of {checked} pages){also}")
        return 1
    print(
        f"{checked} pages verified: every one rendered by the ledger from this ledger's report, with the gate "
        f"passing{also}"
    )
    return 0


def _warnings(warned: list) -> str:
    return (
        f"{len(warned)} figure{'s' if len(warned) != 1 else ''} typed into pages listed as warnings "
        "(migration mode: `warn: [unbound-number]`)"
    )


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
