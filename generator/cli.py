"""`ledger check | accept`: parse arguments, call check(), print, exit (0 clean, 1 gate failed, 2 usage)."""

from __future__ import annotations

import argparse
import sys
from datetime import datetime, timezone
from pathlib import Path

from . import accept, text
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


COMMANDS = {"check": run_check, "accept": run_accept}

if __name__ == "__main__":
    sys.exit(main())
