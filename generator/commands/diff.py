"""`ledger diff BASE [HEAD]`: the gate on two revisions -> what changed, as Markdown or JSON (generator/review/)."""

from __future__ import annotations

import argparse
import os
from datetime import datetime, timezone
from pathlib import Path

from ..records import LedgerError
from ..review import compare_revisions, difftext


def setup_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("base", metavar="BASE", help="the revision to compare with, e.g. origin/main")
    parser.add_argument("head", metavar="HEAD", nargs="?", help="a revision (default: the working tree)")
    parser.add_argument("--format", choices=("markdown", "json"), default="markdown")
    parser.add_argument(
        "--max-bytes",
        type=_positive,
        metavar="N",
        help="print at most N bytes of Markdown: the counts whole, the first rows of each section (a job summary "
        "over 1 MiB is dropped, a comment over 65,536 characters refused)",
    )
    parser.add_argument("--full", type=Path, metavar="FILE", help="also write the whole diff to FILE (a CI artifact)")


def run_from_args(args: argparse.Namespace) -> int:
    root, now = args.root.resolve(), datetime.now(timezone.utc)
    review = compare_revisions(root, args.base, args.head, args.config, now)
    if args.format == "json":
        if args.max_bytes:
            raise LedgerError("--max-bytes cuts the Markdown diff; JSON is always whole (use --full for a file)")
        whole = difftext.as_json(review.diff, review.base, review.head)
        print(whole)
    else:
        whole = difftext.as_markdown(review.diff, review.base, review.head)
        print(difftext.as_markdown(review.diff, review.base, review.head, args.max_bytes, str(args.full or "")))
    if args.full:
        _write(args.full, whole + "\n")
    return 0


def _positive(text: str) -> int:
    try:
        number = int(text)
    except ValueError:
        number = 0
    if number < 1000:
        raise argparse.ArgumentTypeError(f"{text!r}: give a whole number of bytes, at least 1000")
    return number


def _write(path: Path, text: str) -> None:
    """The whole diff to a file, never through a link in its place (a pull request can commit one there)."""
    try:
        handle = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0), 0o644)
    except OSError as error:
        raise LedgerError(f"--full {path}: {error.strerror} (a link in its place is never followed)") from None
    with os.fdopen(handle, "w", encoding="utf-8") as out:
        out.write(text)
