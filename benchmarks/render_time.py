"""Render-time benchmark (not a test): the CPU time of the pages outside the navigation (pages.outside: claim
pages, run pages, code pages), this tree's code against another revision's, in one run.

Writes a synthetic ledger (build_time.ledger: N claims of every kind over R runs) or copies this
repository's report (build_time.this_repository), then, alternating this tree and the revision, each in a
new process: the gate (check_project, not timed), the sources run pages show, the timeline's template made
(altair imported, not timed), then one pass over pages.outside(), its CPU time (time.process_time) split by
the page each stretch made: claim pages, run pages, code pages. Prints medians and this tree's ratio to the
revision's. A build makes these pages the same way once, and `ledger verify-site` again.

With --same it first holds every generated page (pages.generate: source path, Markdown, every slot's HTML
and text) of this tree to the revision's, byte for byte, and stops at the first difference; with --sites,
both revisions' `mkdocs build` (the plugin's site, in two folders), file by file.

    .venv/bin/python benchmarks/render_time.py --against main [--claims 10000] [--runs 30] [--repeat 3] [--same]
    .venv/bin/python benchmarks/render_time.py --against main --repository --same --sites
    .venv/bin/python benchmarks/render_time.py --against main --root /tmp/k10   # the ledger kept for later runs
"""

from __future__ import annotations

import argparse
import filecmp
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
from datetime import datetime, timezone
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "benchmarks"))

from build_time import build, ledger, this_repository  # noqa: E402  (beside this script)
from check_time import unpacked  # noqa: E402

# Run in a new process with PYTHONPATH at one revision's code: argv = root, now (ISO), what ("time" or a
# file to write the pages into). Prints the CPU seconds by kind of page as JSON.
CHILD = """
import json, sys, time
from datetime import datetime
from pathlib import Path
from generator.gate import check_project
from generator.site import timeline
try:
    from generator.site import report_pages as pages
except ImportError:  # a revision from before site/pages.py was named report_pages.py
    from generator.site import pages

root, now, what = Path(sys.argv[1]), datetime.fromisoformat(sys.argv[2]), sys.argv[3]
report = check_project(root, root / "with-plugin.yml", now)
sources = pages.read_sources(root, report)
if what != "time":
    made = pages.generate(report, sources, True, timeline.SeriesAssets())
    rows = [(g.src, g.markdown, g.slots.fragments, g.slots.texts, g.in_nav, g.title) for g in made]
    Path(what).write_text(json.dumps(rows, ensure_ascii=False))
    sys.exit(0)
timeline.template()  # altair imported and the chart's template made: once per build, not per page
spent = {"claim": 0.0, "run": 0.0, "code": 0.0}
counted = {"claim": 0, "run": 0, "code": 0}
start = time.process_time()
for page in pages.outside(report, sources, True, timeline.SeriesAssets()):
    made = time.process_time()
    kind = page.src.split("/", 1)[0] if page.src.startswith(("claim/", "run/")) else "code"
    spent[kind] += made - start
    counted[kind] += 1
    start = time.process_time()
print(json.dumps({"cpu": spent, "pages": counted}))
"""
KINDS = ("claim", "run", "code")


def child(root: Path, code: Path, now: datetime, what: str = "time") -> dict:
    """One run of CHILD with the ledger package at `code`."""
    env = dict(os.environ, PYTHONPATH=str(code), NO_MKDOCS_2_WARNING="1")
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(root), now.isoformat(), what],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        sys.exit(f"rendering with {code} failed:\n{done.stdout[-2000:]}\n{done.stderr[-3000:]}")
    return json.loads(done.stdout) if what == "time" else {}


def same_pages(root: Path, before: Path, now: datetime, folder: Path) -> str:
    """Every generated page of both revisions, compared byte for byte: '' when all are the same."""
    made = {}
    for name, code in (("before", before), ("after", REPO)):
        child(root, code, now, str(folder / f"{name}.json"))
        made[name] = json.loads((folder / f"{name}.json").read_text())
    if len(made["before"]) != len(made["after"]):
        return f"{len(made['before'])} pages before, {len(made['after'])} after"
    for old, new in zip(made["before"], made["after"], strict=True):
        if old != new:
            return f"{old[0]} differs"
    return f"all {len(made['after'])} generated pages the same, byte for byte"


def same_sites(root: Path, before: Path) -> str:
    """`mkdocs build` with the plugin, with both revisions' code, into two folders, compared file by file
    (sitemap.xml aside: it holds the build's date): '' when all are the same."""
    text = re.sub(r"^site_dir:.*\n", "", (root / "with-plugin.yml").read_text(), flags=re.M)
    (root / "with-plugin-before.yml").write_text(text + "site_dir: site-before\n")
    build(root, "with-plugin-before.yml", before)
    build(root, "with-plugin.yml", REPO)
    old, new = root / "site-before", root / "site-plugin"
    files = sorted({p.relative_to(site) for site in (old, new) for p in site.rglob("*") if p.is_file()})
    dated = ("sitemap.xml", "sitemap.xml.gz")
    differ = [f for f in files if f.name not in dated and not filecmp.cmp(old / f, new / f, shallow=False)]
    if differ:
        return f"{len(differ)} of {len(files)} files differ, first {differ[0]}"
    return f"all {len(files)} files of the two sites the same, byte for byte (sitemap.xml aside)"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--against", required=True, help="a git revision of this repository (e.g. main)")
    parser.add_argument("--claims", type=int, default=10000)
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--repository", action="store_true", help="this repository's report, not a synthetic ledger")
    parser.add_argument("--root", type=Path, help="where the ledger is (made there when missing; default: temporary)")
    parser.add_argument("--same", action="store_true", help="first compare every generated page, byte for byte")
    parser.add_argument("--sites", action="store_true", help="first compare both revisions' built sites, file by file")
    args = parser.parse_args()
    now = datetime.now(timezone.utc).replace(microsecond=0)
    with tempfile.TemporaryDirectory() as folder:
        root = args.root.resolve() if args.root else Path(folder) / "ledger"
        what = "this repository's report" if args.repository else f"{args.claims} claims, {args.runs} runs"
        if not root.exists():
            root.mkdir(parents=True)
            if args.repository:
                this_repository(root)
            else:
                ledger(root, args.claims, args.runs)
        elif args.root:  # a ledger written before: --claims and --runs did not make it
            what = f"the ledger at {root}"
        (Path(folder) / "before").mkdir()
        before = unpacked(args.against, Path(folder) / "before")
        if args.same:
            compared = same_pages(root, before, now, Path(folder))
            print(f"{what}: {compared}")
            if not compared.startswith("all "):
                sys.exit(1)
        if args.sites:
            compared = same_sites(root, before)
            print(f"{what}: {compared}")
            if not compared.startswith("all "):
                sys.exit(1)
        cpu: dict[str, dict[str, list[float]]] = {name: {kind: [] for kind in KINDS} for name in ("before", "after")}
        counted: dict[str, int] = {}
        for _ in range(args.repeat):
            for name, code in (("before", before), ("after", REPO)):
                found = child(root, code, now)
                counted = found["pages"]
                for kind in KINDS:
                    cpu[name][kind].append(found["cpu"][kind])
    print(f"{what}; pages.outside() in a new process, {args.repeat} times each, alternating; CPU seconds, medians:")
    for kind in (*KINDS, "all"):
        old, new = (
            statistics.median(
                sum(cpu[name][k][i] for k in KINDS) if kind == "all" else cpu[name][kind][i] for i in range(args.repeat)
            )
            for name in ("before", "after")
        )
        pages = sum(counted.values()) if kind == "all" else counted[kind]
        label = "outside() in all" if kind == "all" else f"{kind} pages"
        print(
            f"  {label:<17} ({pages:>6} pages): {args.against} {old:7.3f} s, this tree {new:7.3f} s; "
            f"ratio {new / old:.3f} ({old / new:.2f}x cheaper)"
        )


if __name__ == "__main__":
    main()
