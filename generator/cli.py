"""`ledger VERB`: parse arguments, call check(), print, exit (0 clean, 1 gate failed, 2 usage).

Each verb is one row of VERBS; its module is imported only when it runs, so `ledger check` (and
the pre-commit hook) loads the core alone, never the site stack.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import sys
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from . import hashcache, text
from .config import read_policy
from .gate import check
from .records import LedgerError, Policy, Report


@dataclass(frozen=True)
class Verb:
    name: str
    help: str
    arguments: Callable[[argparse.ArgumentParser], None]
    run: str  # "module:function" under generator, imported when the verb runs


def _check_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--format", choices=("text", "json"), default="text")
    parser.add_argument(
        "--no-cache",
        action="store_true",
        help="ignore and keep no check cache (.cache/ledger/check.json); CI uses this",
    )


def _accept_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("ids", nargs="+", metavar="ID")
    parser.add_argument("--dry-run", action="store_true", help="print the changes, write nothing")


def _diff_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("base", metavar="BASE", help="the revision to compare with, e.g. origin/main")
    parser.add_argument("head", metavar="HEAD", nargs="?", help="a revision (default: the working tree)")
    parser.add_argument("--format", choices=("markdown", "json"), default="markdown")


def _show_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("id", metavar="ID")


def _pages_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("out_dir", metavar="OUT_DIR", type=Path, help="the docs folder another builder reads")


def _verify_site_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("site_dir", metavar="SITE_DIR", type=Path, help="a built site, e.g. site/")


VERBS = (
    Verb("check", "run the gate; exit 1 on any failure", _check_arguments, "cli:run_check"),
    Verb("accept", "write computed values into drifted claims", _accept_arguments, "commands.verbs:run_accept"),
    Verb("diff", "what changed in the ledger between two git revisions", _diff_arguments, "commands.verbs:run_diff"),
    Verb("show", "one claim's lineage as a tree, with freshness", _show_arguments, "commands.verbs:run_show"),
    Verb(
        "pages",
        "write the generated pages as Markdown, for builders without MkDocs plugins",
        _pages_arguments,
        "commands.verbs:run_pages",
    ),
    Verb(
        "verify-site",
        "refuse a built site whose pages the ledger did not render",
        _verify_site_arguments,
        "commands.verbs:run_verify_site",
    ),
)


def parser() -> argparse.ArgumentParser:
    found = argparse.ArgumentParser(prog="ledger", description="Evidence-tracked claims: the gate and its tools.")
    found.add_argument("--root", type=Path, default=Path("."), help="project root (default: .)")
    found.add_argument("--config", type=Path, help="mkdocs.yml holding the policy (default: ROOT/mkdocs.yml)")
    commands = found.add_subparsers(dest="command", required=True)
    for verb in VERBS:
        verb.arguments(commands.add_parser(verb.name, help=verb.help))
    return found


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    verb = next(v for v in VERBS if v.name == args.command)
    module, function = verb.run.split(":")
    try:
        return getattr(importlib.import_module(f"generator.{module}"), function)(args)
    except LedgerError as error:
        print(f"ledger: {error}", file=sys.stderr)
        return 2


def gate_report(args: argparse.Namespace, hash_file=None) -> Report:
    """The gate's Report for the project the arguments name."""
    root = args.root.resolve()
    config = args.config or root / "mkdocs.yml"
    policy = read_policy(config) if args.config or config.exists() else Policy()
    return check(root, policy, datetime.now(timezone.utc), *([hash_file] if hash_file else []))


def run_check(args: argparse.Namespace) -> int:
    """The gate; with the cache, the last verdict when nothing it reads has changed (hashcache.py)."""
    root = args.root.resolve()
    cache = hashcache.load(root, enabled=not args.no_cache)
    key = _check_key(args, root) if cache.path else []
    done = cache.reusable(key) if cache.path else None
    if done is not None:
        print(done["output"])
        return int(done["exit"])
    gc.disable()  # a short-lived process making many objects and few cycles: collection costs more than it frees
    report = gate_report(args, cache.sha256)
    output = text.as_json(report) if args.format == "json" else text.as_text(report)
    print(output)
    code = 0 if report.ok else 1
    cache.save(key, output, code)
    return code


def _check_key(args: argparse.Namespace, root: Path) -> list:
    """What `ledger check` reads: the policy's folders, the pages, figures, probes, git's state, the config."""
    config = args.config or root / "mkdocs.yml"
    policy = read_policy(config) if args.config or config.exists() else Policy()
    folders = (policy.claims_dir, policy.measurements_dir, policy.docs_dir, "figures", "probes", ".git/refs")
    git = (".git/HEAD", ".git/index", ".git/packed-refs")
    context = [str(root), str(config), args.format, datetime.now(timezone.utc).date().isoformat()]
    return hashcache.inputs_key(root, folders, (str(config), *git), context)


if __name__ == "__main__":
    sys.exit(main())
