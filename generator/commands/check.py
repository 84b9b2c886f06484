"""`ledger check`: the gate on the project, printed as text, JSON or GitHub annotations; exit 1 on a failure."""

from __future__ import annotations

import argparse
import gc
import os
import sys
from datetime import datetime, timezone
from pathlib import Path

from .. import text
from ..gate import check_project
from ..inputs import hashcache, project, reads, stack
from ..inputs.config import config_file, project_policy


def setup_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--format",
        choices=("text", "json", "github", "bencher"),
        default="text",
        help="github: findings as GitHub Actions annotations on the pull request's lines; bencher: every "
        "measured and extrapolated claim's value and interval in Bencher Metric Format (JSON), for a dashboard",
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


def run_from_args(args: argparse.Namespace) -> int:
    """The gate; with the cache, the last verdict when nothing it reads has changed (hashcache.py)."""
    root = args.root.resolve()
    cache = hashcache.load(root, enabled=not args.no_cache and not os.environ.get(hashcache.NO_CACHE))
    code = tuple(cache.verdict.get("code", ())) if cache.path else ()  # what the runs declared last time
    key = _check_key(args, root, code) if cache.path else []
    done = cache.reusable(key) if cache.path else None
    _note_a_missing_site_stack(config_file(root, args.config))
    if done is not None:
        print(done["output"])
        return int(done["exit"])
    gc.disable()  # a short-lived process making many objects and few cycles: collection costs more than it frees
    report = check_project(root, args.config, datetime.now(timezone.utc), require_history=args.require_history)
    formats = {"json": text.as_json, "github": text.as_github, "bencher": text.as_bencher}
    output = formats.get(args.format, text.as_text)(report)
    print(output)
    exit_code = 0 if report.ok else 1
    if cache.path:
        declared = reads.declared_code(report.runs)
        # Stats taken now are safe: a file changed since this run started is racy and never reused.
        cache.save(key if declared == code else _check_key(args, root, declared), output, exit_code, declared)
    return exit_code


def _note_a_missing_site_stack(config: Path) -> None:
    """The gate needs no site stack, but a project that declares the plugin builds with it: say how to get it."""
    absent = stack.missing()
    if absent and project.declares_plugin(config):
        print(
            f"note: {config.name} declares the ledger plugin; `ledger check` runs without the site, "
            f"but `mkdocs build` needs {', '.join(absent)}: install evidence-ledger[site] ({stack.INSTALL})",
            file=sys.stderr,
        )


def _check_key(args: argparse.Namespace, root: Path, code: tuple[str, ...]) -> list:
    """What `ledger check` reads (reads.py, from the policy), git's state, the config, and the code
    files the runs declare."""
    config = config_file(root, args.config)
    policy = project_policy(root, args.config)
    folders = (*reads.folders(policy), *reads.GIT_FOLDERS)
    files = (str(config), *reads.GIT_FILES, *reads.files(policy), *code)
    context = [str(root), str(config), args.format, args.require_history, datetime.now(timezone.utc).date().isoformat()]
    return hashcache.inputs_key(root, folders, files, context)
