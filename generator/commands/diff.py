"""`ledger diff BASE [HEAD]`: the gate on two revisions -> what changed, as Markdown or JSON (generator/review/)."""

from __future__ import annotations

import argparse
import os
from datetime import datetime, timezone
from pathlib import Path

from ..records import LedgerError
from ..review import compare_revisions, difftext

# What it prints by default: a pull-request comment's worth (65,536 characters), whatever changed; the counts
# stay whole, each section keeps its first rows, and --full writes the whole diff to a file.
MAX_BYTES = 60_000


def setup_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("base", metavar="BASE", help="the revision to compare with, e.g. origin/main")
    parser.add_argument("head", metavar="HEAD", nargs="?", help="a revision (default: the working tree)")
    parser.add_argument("--format", choices=("markdown", "json"), default="markdown")
    parser.add_argument(
        "--max-bytes",
        type=_positive,
        metavar="N",
        help=f"print at most N bytes of Markdown (default {MAX_BYTES:,}): the counts whole, the first rows of each "
        "section (a job summary over 1 MiB is dropped, a comment over 65,536 characters refused)",
    )
    parser.add_argument(
        "--full", type=Path, metavar="FILE", help="also write the whole diff to FILE, however long (a CI artifact)"
    )


def run_from_args(args: argparse.Namespace) -> int:
    now = datetime.now(timezone.utc)
    review = compare_revisions(args.project, args.base, args.head, now)
    if args.format == "json":
        if args.max_bytes:
            raise LedgerError("--max-bytes cuts the Markdown diff; JSON is always whole (use --full for a file)")
        whole = difftext.as_json(review.diff, review.base, review.head)
        print(whole)
    else:  # the whole made only where it is written: cut, the diff makes the rows it shows
        cut = args.max_bytes or MAX_BYTES
        print(difftext.as_markdown(review.diff, review.base, review.head, cut, str(args.full or "")))
        whole = difftext.as_markdown(review.diff, review.base, review.head) if args.full else ""
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
