"""`ledger check | accept`: parse arguments, call check(), print, exit (0 clean, 1 gate failed, 2 usage)."""

from __future__ import annotations

import argparse
import sys
from datetime import datetime, timezone
from pathlib import Path

from . import accept, diff, difftext, revisions, show, text
from .config import read_policy
from .gate import check
from .records import LedgerError, Policy, Report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="ledger", description="Evidence-tracked claims: the gate and its tools.")
    parser.add_argument("--root", type=Path, default=Path("."), help="project root (default: .)")
    parser.add_argument("--config", type=Path, help="mkdocs.yml holding the policy (default: ROOT/mkdocs.yml)")
    commands = parser.add_subparsers(dest="command", required=True)
    check_parser = commands.add_parser("check", help="run the gate; exit 1 on any failure")
    check_parser.add_argument("--format", choices=("text", "json"), default="text")
    accept_parser = commands.add_parser("accept", help="write computed values into drifted claims")
    accept_parser.add_argument("ids", nargs="+", metavar="ID")
    accept_parser.add_argument("--dry-run", action="store_true", help="print the changes, write nothing")
    diff_parser = commands.add_parser("diff", help="what changed in the ledger between two git revisions")
    diff_parser.add_argument("base", metavar="BASE", help="the revision to compare with, e.g. origin/main")
    diff_parser.add_argument("head", metavar="HEAD", nargs="?", help="a revision (default: the working tree)")
    diff_parser.add_argument("--format", choices=("markdown", "json"), default="markdown")
    show_parser = commands.add_parser("show", help="one claim's lineage as a tree, with freshness")
    show_parser.add_argument("id", metavar="ID")
    args = parser.parse_args(argv)
    try:
        return COMMANDS[args.command](args)
    except LedgerError as error:
        print(f"ledger: {error}", file=sys.stderr)
        return 2


def gate_report(args: argparse.Namespace) -> Report:
    root = args.root.resolve()
    config = args.config or root / "mkdocs.yml"
    policy = read_policy(config) if args.config or config.exists() else Policy()
    return check(root, policy, datetime.now(timezone.utc))


def run_check(args: argparse.Namespace) -> int:
    report = gate_report(args)
    print(text.as_json(report) if args.format == "json" else text.as_text(report))
    return 0 if report.ok else 1


def run_accept(args: argparse.Namespace) -> int:
    report = gate_report(args)
    changes = accept.plan(report, args.ids)
    if not args.dry_run:
        accept.apply(args.root.resolve(), changes, report.by_id)
    for change in changes:
        print(("would change " if args.dry_run else "") + str(change))
    return 0


def run_diff(args: argparse.Namespace) -> int:
    root, now = args.root.resolve(), datetime.now(timezone.utc)
    config = revisions.config_path(root, args.config)
    base = revisions.at_revision(root, args.base, config, now)
    head = (revisions.at_revision(root, args.head, config, now) if args.head
            else revisions.Revision("", "", gate_report(args)))
    changes = diff.compare(base.report, head.report)
    print((difftext.as_json if args.format == "json" else difftext.as_markdown)(changes, base, head))
    return 0


def run_show(args: argparse.Namespace) -> int:
    print(show.tree(gate_report(args), args.id))
    return 0


COMMANDS = {"check": run_check, "accept": run_accept, "diff": run_diff, "show": run_show}

if __name__ == "__main__":
    sys.exit(main())
