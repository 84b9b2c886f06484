"""`ledger diff BASE [HEAD]`: the gate on two revisions -> what changed, as Markdown or JSON (compare.py)."""

from __future__ import annotations

import argparse
from datetime import datetime, timezone

from ..gate import check_project
from . import buildcode, compare, difftext, revisions


def setup_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("base", metavar="BASE", help="the revision to compare with, e.g. origin/main")
    parser.add_argument("head", metavar="HEAD", nargs="?", help="a revision (default: the working tree)")
    parser.add_argument("--format", choices=("markdown", "json"), default="markdown")


def run_from_args(args: argparse.Namespace) -> int:
    root, now = args.root.resolve(), datetime.now(timezone.utc)
    config = revisions.config_path(root, args.config)
    base = revisions.at_revision(root, args.base, config, now)
    head = (
        revisions.at_revision(root, args.head, config, now)
        if args.head
        else revisions.working_tree(root, check_project(root, args.config, now), root / config)
    )
    policy = head.report.policy
    changed = revisions.changed_files(root, base.commit, head.commit)
    code = buildcode.build_code(changed, base.config, head.config, config, policy.docs_dir, policy.probes_dir)
    changes = compare.compare(base.report, head.report, base.run_blobs, head.run_blobs, code)
    print((difftext.as_json if args.format == "json" else difftext.as_markdown)(changes, base, head))
    return 0
