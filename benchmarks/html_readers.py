"""HTML readers' cost (not a test): the tokenizer under verify-site's reader against html5lib, in one run.

Reads every HTML page of a built site (default: this repository's report, built first into a temporary
folder) with each reader in turn, alternating, and prints each one's CPU seconds and throughput, and its
cost against the ledger's tokenizer: the measurement behind generator/prose/tokens.py (issue 45: a
conformant tokenizer of our own, or html5lib, whichever keeps verify-site within 0.6x the build).

    .venv/bin/python benchmarks/html_readers.py [--site DIR] [--repeat 3] [--every 1]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import html5lib  # noqa: E402  (the test oracle: pip install html5lib, or the test extra)

from generator.prose import reader, tokens  # noqa: E402


def _tokens_only(text: str) -> None:
    found = tokens.Tokenizer()
    found.feed(text)
    found.close()


def _html5lib_tokens(text: str) -> None:
    from html5lib._tokenizer import HTMLTokenizer  # (html5lib's own tokenizer: no public name)

    for _ in HTMLTokenizer(text):
        pass


READERS = {
    "ledger tokenizer (events only)": _tokens_only,
    "ledger page reader (verify-site's reading)": lambda text: reader.read(text, cells_apart=True),
    "html5lib tokenizer (tokens only)": _html5lib_tokens,
    "html5lib parser (a tree)": lambda text: html5lib.parse(text),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--site", type=Path, help="a built site (default: build this repository's report)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--every", type=int, default=1, help="read every Nth page only (html5lib is slow)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        site = args.site
        if site is None:
            site = Path(folder) / "site"
            subprocess.run([sys.executable, "-m", "mkdocs", "build", "-q", "-d", str(site)], cwd=REPO, check=True)
        texts = [page.read_text(encoding="utf-8") for page in sorted(site.rglob("*.html"))[:: args.every]]
    megabytes = sum(map(len, texts)) / 1e6
    seconds: dict[str, list[float]] = {name: [] for name in READERS}
    for _ in range(args.repeat):
        for name, read in READERS.items():  # alternating: a busy machine slows every reader alike
            start = time.process_time()
            for text in texts:
                read(text)
            seconds[name].append(time.process_time() - start)
    print(f"{len(texts)} pages, {megabytes:.1f} MB of HTML; CPU seconds, median of {args.repeat}")
    ours = statistics.median(seconds[next(iter(READERS))])
    for name, found in seconds.items():
        median = statistics.median(found)
        print(f"  {name:45s} {median:7.2f} s  {megabytes / median:6.1f} MB/s  {median / ours:5.1f}x the tokenizer")


if __name__ == "__main__":
    main()
