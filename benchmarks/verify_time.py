"""Where `ledger verify-site`'s CPU time goes on a built site (not a test): its stages in the order it runs
them, each page's reading by the kind of page (its first path part) and how it was read.

    .venv/bin/python benchmarks/verify_time.py ROOT [--config mkdocs.yml] [--site site] [--gc-default]

ROOT is a built ledger (e.g. one `benchmarks/build_time.py` wrote, or this repository after `make site`).
Each page is read the way verify-site reads it: rendered again and read around its fragments (claim pages
and indexes: "render" then "around"), and read whole where that does not hold ("whole"). The same calls as
generator/verify/whole.verify, timed one by one with time.process_time (CPU seconds of this process), with
the collector set as `ledger` sets it (collector.off: none run; --gc-default: Python's default thresholds) and
the CPU time spent in its collections, which the stages include, printed apart.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import sys
import time
from collections import Counter
from datetime import datetime, timezone
from pathlib import Path

START = time.process_time()
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from generator import collector  # noqa: E402
from generator.gate import check_project  # noqa: E402
from generator.inputs import project  # noqa: E402
from generator.verify import sitefiles, sitepage, sitetext, whole  # noqa: E402
from generator.verify.expected import Rendered  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("root", type=Path)
    parser.add_argument("--config", default="mkdocs.yml")
    parser.add_argument("--site", default="site")
    parser.add_argument("--gc-default", action="store_true", help="Python's collector thresholds, not ledger's")
    args = parser.parse_args()
    with contextlib.nullcontext() if args.gc_default else collector.off():
        _stages(args)


def _stages(args: argparse.Namespace) -> None:
    collecting = _collections()
    root, spent = args.root.resolve(), Counter({"imports": time.process_time() - START})
    config, site = root / args.config, root / args.site

    def timed(stage: str, work, *args):
        began = time.process_time()
        found = work(*args)
        spent[stage] += time.process_time() - began
        return found

    report = timed("check (a fresh gate)", lambda: check_project(root, config, datetime.now(timezone.utc)))
    ctx = timed(
        "what pages may show (sitetext.context)",
        lambda: sitetext.context(root, report, project.read(root, config).urls[0]),
    )
    found = timed("the site's files (sitefiles.documents)", lambda: sitefiles.documents(site))
    rendered = timed("rendered: set up", lambda: Rendered(report, ctx.directory_urls))
    names, charts, pages = frozenset(found.pages), set(), Counter()
    for name in found.pages:
        kind = name.split("/")[0] if "/" in name else name
        data = timed("pages: read from disk", found.data, name)
        fragments = timed(f"render {kind}", rendered.fragments, name)
        around = (name, data, fragments, names, ctx, found.css_attributes, charts)
        passed = fragments is not None and timed(f"around {kind}", sitepage.rendered_passes, *around)
        if not passed:
            text = timed("pages: decoded to read whole", sitefiles.text_of, data)
            banner = (
                timed("rendered: banners", rendered.banner, ctx.handwritten[name]) if name in ctx.handwritten else None
            )
            timed(f"whole {kind}", sitepage.page_problems, name, text, names, ctx, found.css_attributes, charts, banner)
        pages[f"{'around' if passed else 'whole'} {kind}"] += 1
    timed("series data", lambda: whole.series_problems(site, report, rendered.series_text))
    timed("registry", lambda: whole.registry_problems(site, report))
    total = time.process_time() - START
    print(f"verify-site's stages on {site} ({len(found.pages)} pages), CPU seconds:")
    for stage, seconds in sorted(spent.items(), key=lambda item: -item[1]):
        count = pages.get(stage)
        if seconds < 0.001 and not count:
            continue
        print(f"  {stage:<44} {seconds:8.3f} s{f'  ({count} pages)' if count else ''}")
    print(f"  {'total':<44} {total:8.3f} s")
    print(
        f"  {'of which in garbage collections':<44} {collecting[0]:8.3f} s  ({collecting[1]} collections, "
        f"young threshold {gc.get_threshold()[0]}, collector {'on' if gc.isenabled() else 'off'})"
    )


def _collections() -> list:
    """[CPU seconds in the collector, collections], kept up to date by a gc callback."""
    spent: list = [0.0, 0, 0.0]

    def callback(phase: str, info: dict) -> None:
        if phase == "start":
            spent[2] = time.process_time()
        else:
            spent[0] += time.process_time() - spent[2]
            spent[1] += 1

    gc.callbacks.append(callback)
    return spent


if __name__ == "__main__":
    main()
