"""`ledger check`: the gate on the project, printed as text, JSON or GitHub annotations; exit 1 on a failure.

Two paths. The warm one (`cached`, which the entry point asks first) answers from the check cache when
nothing the last check read has changed, having imported only the cache module: the cache keeps the
list of what it read, so neither the policy, nor YAML, nor the gate is loaded to decide. The cold one
(`run_from_args`) runs the gate, prints its report and keeps it, with that list, for the next run.
"""

from __future__ import annotations

import argparse
import os
import sys
from datetime import datetime, timezone
from pathlib import Path

from ..inputs import hashcache, stack


def setup_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--format",
        choices=("text", "json", "github", "bencher"),
        default="text",
        help="github: findings as GitHub Actions annotations on the pull request's lines; bencher: every "
        "measured and extrapolated claim's value and interval in Bencher Metric Format (JSON), for a dashboard",
    )
    parser.add_argument(
        "--full",
        action="store_true",
        help="text: every finding on its own lines (findings alike but for their place otherwise print once, counted)",
    )
    parser.add_argument(
        "--no-cache",
        action="store_true",
        help=f"ignore and keep no check cache ({hashcache.FOLDER}/{hashcache.NAME}); CI uses this",
    )
    parser.add_argument(
        "--require-history",
        action="store_true",
        help="fail when the runs' git history cannot be read (a shallow clone, no git); CI uses this",
    )


def cached(args: argparse.Namespace) -> int | None:
    """The last verdict, printed, when nothing it was reached on has changed (hashcache.py); else None."""
    if args.no_cache or os.environ.get(hashcache.NO_CACHE):
        return None
    root = args.root.resolve()
    done = hashcache.load(root).answer(root, _context(args, root))
    if done is None:
        return None
    _note_a_missing_site_stack(done.get("plugin", ""))
    print(done["output"])
    return int(done["exit"])


def run_from_args(args: argparse.Namespace) -> int:
    """The gate, its report printed; kept in the check cache with what it read (unless --no-cache)."""
    from .. import text
    from ..gate import check
    from ..inputs import reads

    project = args.project  # composed once, by the entry point
    root = project.root
    cache = hashcache.load(root, enabled=not args.no_cache and not os.environ.get(hashcache.NO_CACHE))
    config = project.config_file
    plugin = config.name if project.declares_plugin else ""  # the config is in the key: kept with the verdict
    _note_a_missing_site_stack(plugin)
    report = check(root, project.policy, datetime.now(timezone.utc), require_history=args.require_history)
    formats = {"json": text.as_json, "github": text.as_github, "bencher": text.as_bencher}
    output = formats[args.format](report) if args.format in formats else text.as_text(report, full=args.full)
    print(output)
    exit_code = 0 if report.ok else 1
    if cache.path:
        # What it read: reads.py's list from the policy, git's state, the config, the code the runs declare.
        # Stats taken now are safe: a file changed since this run started is racy and never reused.
        policy, declared = report.policy, reads.declared_code(report.runs)
        folders = [*reads.folders(policy), *reads.GIT_FOLDERS]
        files = [str(config), *reads.GIT_FILES, *reads.files(policy), *declared]
        key = hashcache.inputs_key(root, folders, files, _context(args, root))
        cache.save(key, output, exit_code, declared, reads={"folders": folders, "files": files}, plugin=plugin)
    return exit_code


def _context(args: argparse.Namespace, root: Path) -> list:
    """What the verdict depends on besides the files: the root, the arguments, the day."""
    day = datetime.now(timezone.utc).date().isoformat()
    return [str(root), str(args.config or ""), args.format, args.full, args.require_history, day]


def _note_a_missing_site_stack(plugin: str) -> None:
    """The gate needs no site stack, but a project whose config (named `plugin`, '' when it does not)
    declares the plugin builds with it: say how to get it."""
    absent = stack.missing() if plugin else ()
    if absent:
        print(
            f"note: {plugin} declares the ledger plugin; `ledger check` runs without the site, "
            f"but `mkdocs build` needs {', '.join(absent)}: install evidence-ledger[site] ({stack.INSTALL})",
            file=sys.stderr,
        )
