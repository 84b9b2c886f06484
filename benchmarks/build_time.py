"""Build-time benchmark (not a test): the ledger plugin against a plain MkDocs build, in one run.

Writes a synthetic ledger into a temporary folder (N claims of every kind over R runs written by the
real run writer, ten hand-written pages citing them, one chart and one table), then measures, in
the same run:

1. `mkdocs build` with the plugin, with it removed (the same hand-written pages; their references
   stay plain text), and without it but with as many plain Markdown pages as the plugin generates,
   outside the navigation (the pruned navigation the generated pages have), alternating: medians, the
   cost per generated page against the cost per plain Material page, each build's peak memory
   (resource.getrusage in the build's own process), the size of the claim pages' HTML against the plain
   pages' (claim and run pages are written through the theme's frame, frame.py: not MkDocs' page
   pipeline one by one); the cost per page in CPU time as well (on a shared machine wall time counts the
   waits for a core), each process's own from its start to its exit, as verify-site's is;
   with --verify, `ledger verify-site` on the site each plugin build wrote, against that build;
2. `mkdocs serve`: a one-line edit of a hand-written page, rebuilt by a real `mkdocs serve` with the
   plugin and by one without it, both running at once on two copies of the pages, the same edit
   alternating between them (MkDocs' own "Documentation built in" time): medians, and the median and
   range of each edit's ratio (issue 27's target: at most 1.5, over 7 edits or more);
3. with --profile, a cProfile of one plugin build: where the time goes.

    .venv/bin/python benchmarks/build_time.py [--claims 300] [--runs 30] [--repeat 3] [--edits 7] [--verify] [--profile]
    .venv/bin/python benchmarks/build_time.py --repeat 0 --edits 9                # the serve edits alone
    .venv/bin/python benchmarks/build_time.py --repository --repeat 0 --edits 9   # on this repository's report
    .venv/bin/python benchmarks/build_time.py --claims 10000 --runs 300 --repeat 2 --edits 0 --verify
    .venv/bin/python benchmarks/build_time.py --claims 10000 --runs 300 --fewer-runs 30 --repeat 2 --edits 0
    .venv/bin/python benchmarks/build_time.py --repository --repeat 3 --edits 0 --verify

--baseline DIR (e.g. `git archive main | tar -x -C DIR`) times the plugin build with that revision's code
as well, alternating with this one on the same ledger, and prints the ratio: a change's cost, one session.
--fewer-runs R writes the same claims and pages over R runs as well and builds them alternating with the
rest: the cost per generated page against theirs (how a page's cost grows with its history), one run.
"""

from __future__ import annotations

import argparse
import json
import os
import pstats
import queue
import re
import resource
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from peak import timed  # noqa: E402  (benchmarks/peak.py, beside this script)

from generator.runs import write_run  # noqa: E402

BATCHES = (1, 2, 4, 8, 16)
RUN_AGE_MARGIN = timedelta(hours=6)  # from a day: no run turns 2 days old in a benchmark under 18 h - n_runs min
THEME = """
theme: {name: material, font: false, features: [navigation.tabs, navigation.sections, navigation.indexes]}
markdown_extensions: [admonition, attr_list, md_in_html, tables, toc]
"""
FIGURES = '''
import altair as alt
from generator.site.figure_api import chart, table


@chart("speedup-by-batch")
def speedup_by_batch(data):
    """Speedup against batch size, every run"""
    frame = data.frame("synthetic", latest=False)
    return alt.Chart(frame).mark_line().encode(x="batch:Q", y="speedup:Q", detail="run:N")


@table("measured-claims")
def measured_claims(data):
    """The measured claims"""
    return data.claims(kind="measured")[["claim", "testbed", "statement"]]
'''


KINDS = "measured measured extrapolated borrowed measured borrowed measured extrapolated measured refuted".split()


def synthetic_runs(root: Path, n_runs: int) -> list[tuple[str, list[dict]]]:
    """n_runs runs of the synthetic probe a minute apart: (run folder, its rows). The newest is a day and
    RUN_AGE_MARGIN old, so no run's age in whole days (the claims index shows it) changes while the
    benchmark runs: a run that turned a day old between a build and its verify-site, as one did after
    most builds of the first n_runs minutes, made verify-site read the claims index whole (it differs from
    the fresh rendering): at 10,000 claims, 6 of its 28 CPU seconds."""
    (root / "probes").mkdir(parents=True)
    (root / "probes/synthetic.py").write_text("# a synthetic probe for the benchmark\n")
    newest = datetime.now(timezone.utc).replace(microsecond=0) - timedelta(days=1) - RUN_AGE_MARGIN
    start = newest - timedelta(minutes=n_runs - 1)
    runs = []
    for r in range(n_runs):
        rows = [{"batch": b, "speedup": round(1 + 0.1 * r + 0.17 * b, 4), "rounds": 3} for b in BATCHES]
        when = start + timedelta(minutes=r)
        path = write_run(
            root,
            "synthetic",
            "linux-cpu",
            {"results.csv": rows},
            parameters={"rounds": 3},
            environment={"backend": "cpu"},
            code=["probes/synthetic.py"],
            started=when,
            finished=when,
        )
        runs.append((path.relative_to(root).as_posix(), rows))
    return runs


def claim_lines(i: int, runs: list, measured: list[tuple[str, float]]) -> list[str]:
    """Claim i's YAML lines, kinds mixed as KINDS; a measured claim joins `measured`, which later ones cite."""
    kind, cid = KINDS[i % 10], f"claim-{i:05d}"
    if kind == "measured":
        run, rows = runs[i % len(runs)]
        row = rows[i % len(BATCHES)]
        measured.append((cid, row["speedup"]))
        return [
            f"  - id: {cid}",
            f"    statement: synthetic speedup {i} at B={row['batch']}",
            f"    value: {row['speedup']}",
            '    unit: "×"',
            "    kind: measured",
            "    testbed: linux-cpu",
            f"    evidence: {{run: {run}, file: results.csv, where: {{batch: {row['batch']}}}, column: speedup}}",
        ]
    if kind == "extrapolated" and len(measured) >= 2:
        (a, va), (b, vb) = measured[-1], measured[-2]
        return [
            f"  - id: {cid}",
            f"    statement: synthetic product {i}",
            f"    value: {va * vb!r}",
            "    kind: extrapolated",
            "    formula: x * y",
            f"    inputs: {{x: {a}, y: {b}}}",
        ]
    if kind in ("borrowed", "extrapolated") and measured:
        a, va = measured[-1]
        return [
            f"  - id: {cid}",
            f"    statement: a borrowed figure {i}",
            f"    value: {va}",
            '    unit: "×"',
            "    kind: borrowed",
            "    testbed: apple-m1-max",
            f"    source: {{title: synthetic source {i}, quote: '{va}x'}}",
            f'    checked_by: [{{claim: {a}, expects: "within 1.05x"}}]',  # across testbeds: a stated relation
        ]
    if measured:
        a, _ = measured[-1]
        return [
            f"  - id: {cid}",
            f"    statement: a fallen figure {i}",
            "    value: 1.0",
            '    unit: "×"',
            "    kind: borrowed",
            f"    source: {{title: old note {i}, quote: '1x'}}",
            "    status: refuted",
            f"    refuted_by: {a}",
        ]
    return []


# A plain Markdown page about the size of a claim page's content: a table of facts, three sections.
PLAIN_PAGE = """# plain-{i:05d}

A plain page, for the cost of a page through MkDocs and Material's templates.

| field | value |
| --- | --- |
| statement | synthetic speedup {i} at B=4 |
| value | **1.8×** |
| kind | measured |
| testbed | `linux-cpu` |

## Evidence

Column `speedup` of `results.csv`, row where `batch = 4`, in run `synthetic/2026-01-01T00-{i:05d}Z`.

| batch | speedup | rounds |
| ---: | ---: | ---: |
| 4 | 1.8 | 3 |

## Lineage

No other claim names this one, and it names none.

## Where it is written

Defined at `claims/synthetic.yaml:{i}`; cited on `docs/report/page-2.md`.
"""


def plain_pages(root: Path, config: str, count: int) -> None:
    """plain-pages.yml: the plain build of the same hand-written pages and `count` plain pages beside
    them (docs-pages/extra/), outside the navigation as the generated pages are."""
    docs = root / "docs-pages"
    shutil.copytree(root / "docs", docs)
    (docs / "extra").mkdir()
    for i in range(count):
        (docs / "extra" / f"plain-{i:05d}.md").write_text(PLAIN_PAGE.format(i=i))
    text = re.sub(r"^(docs_dir|site_dir):.*\n", "", (root / config).read_text(), flags=re.M)
    if not re.search(r"^nav:", text, flags=re.M):  # the navigation MkDocs makes of the hand-written pages
        pages = sorted(p.relative_to(root / "docs").as_posix() for p in (root / "docs").rglob("*.md"))
        text += "nav:\n" + "".join(f"  - {page}\n" for page in pages)
    (root / "plain-pages.yml").write_text(
        text + "docs_dir: docs-pages\nsite_dir: site-pages\nnot_in_nav: |\n  /extra/\n"
    )


def ledger(root: Path, n_claims: int, n_runs: int) -> None:
    """A synthetic ledger: runs, claims of every kind, pages citing them, a chart and a table."""
    runs = synthetic_runs(root, n_runs)
    measured: list[tuple[str, float]] = []
    lines = ["claims:", *(line for i in range(n_claims) for line in claim_lines(i, runs, measured))]
    (root / "claims").mkdir()
    (root / "claims/synthetic.yaml").write_text("\n".join(lines) + "\n")
    (root / "figures").mkdir()
    (root / "figures/synthetic.py").write_text(FIGURES)
    docs = root / "docs"
    (docs / "report").mkdir(parents=True)
    (docs / "index.md").write_text(
        '# Synthetic report\n\n{{ chart("speedup-by-batch") }}\n\n{{ table("measured-claims") }}\n'
    )
    ids = [line.split("id: ")[1] for line in lines if line.startswith("  - id: ")]
    for page in range(10):
        cited = " ".join(f'{{{{ claim("{cid}") }}}}' for cid in ids[page::10])
        (docs / "report" / f"page-{page}.md").write_text(f"# Page {page}\n\nThe figures: {cited}\n")
    (root / "with-plugin.yml").write_text(
        "site_name: bench\nsite_dir: site-plugin\nplugins: [search, ledger]\n" + THEME
    )
    (root / "plain.yml").write_text("site_name: bench\nsite_dir: site-plain\nplugins: [search]\n" + THEME)


def this_repository(root: Path) -> str:
    """A copy of this repository's report, with the plugin (with-plugin.yml) and without it (plain.yml)."""
    for name in ("docs", "claims", "measurements", "probes", "figures", "guide"):  # guide/: a surface too
        shutil.copytree(REPO / name, root / name, ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("README.md", ".gitattributes"):  # README.md: one of the policy's surfaces
        shutil.copy(REPO / name, root / name)
    for manifest in (root / "measurements").glob("*/*/manifest.json"):  # the code the runs hash, where it lives
        for path in json.loads(manifest.read_text())["probe"]["code"]:
            if not (root / path).exists() and (REPO / path).is_file():
                (root / path).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy(REPO / path, root / path)
    config = (REPO / "mkdocs.yml").read_text()
    (root / "with-plugin.yml").write_text(config + "site_dir: site-plugin\n")
    plain = re.sub(r"^  - ledger:\n(?:      .*\n)*", "", config, flags=re.M)  # the plugin and its options
    plain = re.sub(r"^  - (Claims|Measurements|Gate):\n(?:      .*\n)*", "", plain, flags=re.M)  # its pages
    (root / "plain.yml").write_text(plain + "site_dir: site-plain\n")
    return "docs/report/batching.md"


ENV = dict(os.environ, PYTHONPATH=str(REPO), NO_MKDOCS_2_WARNING="1")
# Runs `mkdocs build` and reports its own peak memory (the child's ru_maxrss, KiB on Linux).
MEASURED_BUILD = """
import resource, sys
from mkdocs.__main__ import cli
try:
    cli(sys.argv[1:])
    code = 0
except SystemExit as stop:
    code = stop.code
used = resource.getrusage(resource.RUSAGE_SELF)
print("peak-rss-kib", used.ru_maxrss, file=sys.stderr)
print("cpu-s", used.ru_utime + used.ru_stime, file=sys.stderr)
sys.exit(code)
"""


def build(root: Path, config: str, code: Path = REPO) -> tuple[float, float, float]:
    """(seconds, peak MiB, CPU seconds) of `mkdocs build -f config` in a new process, with the ledger from
    `code`."""
    command = [sys.executable, "-c", MEASURED_BUILD, "build", "-q", "-f", config]
    return timed(command, root, dict(ENV, PYTHONPATH=str(code)), f"mkdocs build -f {config}", whole=True)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


SERVE = [sys.executable, "-W", "ignore::DeprecationWarning", "-m", "mkdocs", "serve"]


class Serve:
    """A real `mkdocs serve` and its log: MkDocs' own time for each build."""

    def __init__(self, root: Path, config: str):
        self.config = config
        self.process = subprocess.Popen(
            # any -W option keeps MkDocs from filtering repeated log lines (its DuplicateFilter is set up only
            # without one): a rebuild as long as an earlier one, to the 10 ms, logged no "built in" line at all
            [*SERVE, "-f", config, "--dev-addr", f"127.0.0.1:{free_port()}"],
            cwd=root,
            env=ENV,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.lines: queue.Queue[str] = queue.Queue()
        self.missed = 0  # edits written again because no rebuild followed (rebuild_after)
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stderr is not None
        for line in self.process.stderr:
            self.lines.put(line)

    def built(self, timeout: float = 1800) -> tuple[float, list[str]] | None:
        seen, end = [], time.monotonic() + timeout
        while time.monotonic() < end:
            try:
                line = self.lines.get(timeout=1)
            except queue.Empty:
                if self.process.poll() is not None:
                    sys.exit(f"mkdocs serve -f {self.config} exited:\n{''.join(seen)}")
                continue
            seen.append(line)
            found = re.search(r"Documentation built in ([0-9.]+) seconds", line)
            if found:
                return float(found.group(1)), seen
        return None

    def rebuild_after(self, page: Path, text: str) -> tuple[float, list[str]]:
        # should no rebuild follow in 15 s (the watcher polls every 0.5 s), the same text is written again
        # (counted in .missed)
        while not self.lines.empty():  # a late line of the last build is not this edit's
            self.lines.get()
        for _ in range(8):
            page.write_text(text)
            done = self.built(timeout=15)
            if done is not None:
                return done
            self.missed += 1
        sys.exit(f"mkdocs serve -f {self.config} did not rebuild after an edit, written 8 times")

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=60)


def serve_rebuilds(root: Path, edits: int, edited: str) -> dict[str, tuple[list[float], list[str]]]:
    """One-line edits of a page under two real `mkdocs serve`s, the plugin's and a plain one (its own
    copy of the pages), alternating edit by edit so that the machine's load hits both alike."""
    shutil.copytree(root / "docs", root / "docs-plain")
    plain = re.sub(r"^docs_dir:.*\n", "", (root / "plain.yml").read_text(), flags=re.M)
    (root / "plain-serve.yml").write_text(plain + "docs_dir: docs-plain\n")
    servers = {"plugin": Serve(root, "with-plugin.yml"), "plain": Serve(root, "plain-serve.yml")}
    pages = {"plugin": root / edited, "plain": root / "docs-plain" / Path(edited).relative_to("docs")}
    original = pages["plugin"].read_text()
    results: dict[str, tuple[list[float], list[str]]] = {name: ([], []) for name in servers}
    try:
        for server in servers.values():
            server.built()
        for edit in range(edits):
            for name, server in servers.items():
                time.sleep(1.0)  # past the watcher's debounce, and a distinct mtime
                seconds, seen = server.rebuild_after(pages[name], original + f"\nA one-line edit, number {edit}.\n")
                results[name][0].append(seconds)
                results[name][1].extend(
                    line.split("-  ", 1)[-1].strip()
                    for line in seen
                    if "generated pages:" in line or "made assets:" in line
                )
        missed = ", ".join(f"{name} {server.missed}" for name, server in servers.items())
        print(f"edits written again, no rebuild seen in 15 s: {missed}")
        return results
    finally:
        for server in servers.values():
            server.stop()
        pages["plugin"].write_text(original)


def profile(root: Path, config: str, top: int = 14) -> None:
    """One plugin build under cProfile: the stages' cumulative time, then the largest own times."""
    out = root / "build.prof"
    subprocess.run(
        [sys.executable, "-m", "cProfile", "-o", str(out), "-m", "mkdocs", "build", "-q", "-f", config],
        cwd=root,
        env=ENV,
        check=True,
        capture_output=True,
    )
    stats = pstats.Stats(str(out))
    table = stats.stats  # type: ignore[attr-defined]
    total = max(ct for (_, _, _, ct, _) in table.values())
    stages = [
        ("the gate: check()", "generator/gate.py", "check"),
        ("plugin on_files (gate, figures, generated pages, files)", "generator/site/plugin.py", "on_files"),
        (
            "  generated pages made up front (report_pages.generate: serve, no frames)",
            "generator/site/report_pages.py",
            "generate",
        ),
        ("  index pages (report_pages.index_pages)", "generator/site/report_pages.py", "index_pages"),
        ("  figures drawn (altair)", "generator/site/assemble.py", "draw"),
        ("plugin on_env: claim and run pages written in frames (frame.py)", "generator/site/plugin.py", "on_env"),
        ("  claim pages (claimpage.build)", "generator/site/claimpage.py", "build"),
        ("  Markdown + theme for a frame or a page rendered whole", "generator/site/frame.py", "_converted"),
        ("  slots filled and stamped (plugin._content)", "generator/site/plugin.py", "_content"),
        ("MkDocs reads + Markdown for every page (_populate_page)", "mkdocs/commands/build.py", "_populate_page"),
        ("MkDocs templates + page events (_build_page)", "mkdocs/commands/build.py", "_build_page"),
        ("  Material search parsing page HTML", "material/plugins/search/plugin.py", "on_page_context"),
        ("  Jinja templates (environment.render)", "jinja2/environment.py", "render"),
        ("static files written (copy_static_files)", "mkdocs/structure/files.py", "copy_static_files"),
        ("search index written", "material/plugins/search/plugin.py", "on_post_build"),
    ]
    print(f"profile of one plugin build ({total:.2f} s under cProfile):")
    for label, path, name in stages:
        found = [v for (f, _, n), v in table.items() if f.endswith(path) and n == name]
        seconds = sum(v[3] for v in found)
        print(f"  {label:<62} {seconds:7.2f} s  {100 * seconds / total:5.1f}%")
    print(f"  largest own times (top {top}):")
    own = sorted(table.items(), key=lambda item: item[1][2], reverse=True)[:top]
    for (path, line, name), (_, _, tottime, _, _) in own:
        where = "/".join(Path(path).parts[-2:]) if path != "~" else "built-in"
        print(f"    {tottime:7.2f} s  {name} ({where}:{line})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--claims", type=int, default=300)
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--edits", type=int, default=7, help="one-line page edits under serve (0: skip)")
    parser.add_argument("--profile", action="store_true", help="print a cProfile summary of one plugin build")
    parser.add_argument(
        "--repository", action="store_true", help="this repository's own report instead of a synthetic ledger"
    )
    parser.add_argument("--baseline", type=Path, help="another revision's code: its plugin build, alternating")
    parser.add_argument("--verify", action="store_true", help="time `ledger verify-site` on each plugin build's site")
    parser.add_argument(
        "--plain-pages", type=int, default=0, help="plain pages in the baseline (default: as many as generated)"
    )
    parser.add_argument(
        "--fewer-runs",
        type=int,
        metavar="R",
        help="also build the same claims over R runs, alternating: the cost per generated page against it",
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder, tempfile.TemporaryDirectory() as other:
        root = Path(folder)
        if args.repository:
            edited = this_repository(root)
            what = "this repository's report"
        else:
            ledger(root, args.claims, args.runs)
            edited = "docs/report/page-0.md"
            what = f"ledger: {args.claims} claims, {args.runs} runs, 11 hand-written pages, 1 chart, 1 table"
        cold, _, _ = build(root, "with-plugin.yml")  # fills .cache/ledger (Vega bundle, SVGs) once
        generated = _generated(root)
        plain_pages(root, "plain.yml", args.plain_pages or generated)
        builds = [
            ("plugin", "with-plugin.yml", REPO, root),
            ("plain", "plain.yml", REPO, root),
            ("pages", "plain-pages.yml", REPO, root),
        ]
        if args.baseline:
            build(root, "with-plugin.yml", args.baseline.resolve())  # its own first build, as this one's above
            builds.append(("baseline", "with-plugin.yml", args.baseline.resolve(), root))
        if args.fewer_runs and not args.repository:  # the same claims and pages over fewer runs
            ledger(Path(other), args.claims, args.fewer_runs)
            build(Path(other), "with-plugin.yml")
            builds.append(("fewer", "with-plugin.yml", REPO, Path(other)))
        times: dict[str, list[float]] = {name: [] for name, *_ in builds}
        peaks: dict[str, list[float]] = {name: [] for name, *_ in builds}
        cpus: dict[str, list[float]] = {name: [] for name, *_ in builds}
        verified: list[tuple[float, float]] = []  # (seconds, CPU seconds) of each verify-site
        verified_before: list[tuple[float, float]] = []
        for _ in range(args.repeat):
            for name, config, code, where in builds:
                seconds, peak, cpu = build(where, config, code)
                times[name].append(seconds)
                peaks[name].append(peak)
                cpus[name].append(cpu)
                if name == "plugin" and args.verify:  # the site this build wrote
                    verified.append(verify_site(root, "with-plugin.yml", "site-plugin"))
                    if args.baseline:  # the same site, verified by the baseline's code
                        verified_before.append(verify_site(root, "with-plugin.yml", "site-plugin", args.baseline))
        sizes = page_sizes(root)
        fewer = _generated(Path(other)) if "fewer" in times else 0
        rebuilds = serve_rebuilds(root, args.edits, edited) if args.edits else {}
        if args.profile:
            profile(root, "with-plugin.yml")
    report(args, what, edited, times, peaks, sizes, verified, rebuilds, cold, cpus)
    if fewer:
        fewer_runs(args, times, cpus, sizes, fewer)
    if verified_before:
        before, now = (statistics.median(wall for wall, _ in found) for found in (verified_before, verified))
        spent_before, spent = (statistics.median(cpu for _, cpu in found) for found in (verified_before, verified))
        print(
            f"ledger verify-site with {args.baseline}'s code on the same sites: median {before:.2f} s "
            f"({_list([wall for wall, _ in verified_before])}); CPU {spent_before:.2f} s; ratio to the build it "
            f"verifies {before / statistics.median(times['plugin']):.2f} wall, "
            f"{spent_before / statistics.median(cpus['plugin']):.2f} CPU; "
            f"this / baseline {now / before:.3f} wall, {spent / spent_before:.3f} CPU"
        )


def _generated(root: Path) -> int:
    """The pages the plugin generated in the site it last built at root (not the hand-written ones)."""
    return sum(1 for _ in (root / "site-plugin").rglob("index.html")) - sum(1 for _ in (root / "docs").rglob("*.md"))


def fewer_runs(args, times, cpus, sizes, fewer: int) -> None:
    """The cost per generated page against the same claims over fewer runs (issue 31: within 1.2x from 30 runs
    to 300), both builds' cost above the plain build of the same hand-written pages, measured in this run."""
    pages, plain_count, _ = sizes["pages"]
    extra = max(pages - plain_count, 1)
    found = {}
    for label, measured in (("CPU", cpus), ("wall", times)):
        plain = statistics.median(measured["plain"])
        these = 1000 * (statistics.median(measured["plugin"]) - plain) / extra
        those = 1000 * (statistics.median(measured["fewer"]) - plain) / max(fewer, 1)
        found[label] = (these, those)
    (cpu, cpu_fewer), (wall, wall_fewer) = found["CPU"], found["wall"]
    print(
        f"per generated page, {args.runs} runs against {args.fewer_runs} (the same claims and pages; {fewer} "
        f"generated pages there; builds {_list(times['fewer'])}): {cpu:.2f} ms against {cpu_fewer:.2f} ms CPU, "
        f"{wall:.2f} against {wall_fewer:.2f} ms wall; ratio {cpu / cpu_fewer:.2f} CPU, {wall / wall_fewer:.2f} wall  "
        "(target: at most 1.2)"
    )


def verify_site(root: Path, config: str, site: str, code: Path = REPO) -> tuple[float, float]:
    """(seconds, CPU seconds) of `ledger verify-site` on a built site, in a new process (it must find no
    problem), with the ledger from `code`; its CPU time is its own user + system time (the children's
    usage grows by exactly this child's once it is waited for)."""
    command = [sys.executable, "-m", "generator", "--config", config, "verify-site", site]
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(command, cwd=root, env=dict(ENV, PYTHONPATH=str(code)), capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        sys.exit(f"ledger verify-site {site} failed:\n{done.stdout[-3000:]}\n{done.stderr[-2000:]}")
    return elapsed, (after.ru_utime + after.ru_stime) - (used.ru_utime + used.ru_stime)


def page_sizes(root: Path) -> dict[str, list[int]]:
    """Bytes of HTML of each claim page, each run page and each plain page, and the pages counted."""
    site = root / "site-plugin"
    return {
        "claim": sorted(p.stat().st_size for p in (site / "claim").rglob("index.html")),
        "run": sorted(p.stat().st_size for p in (site / "run").rglob("index.html")),
        "plain page": sorted(p.stat().st_size for p in (root / "site-pages/extra").rglob("index.html")),
        "pages": [
            sum(1 for _ in site.rglob("index.html")),
            sum(1 for _ in (root / "site-plain").rglob("index.html")),
            sum(1 for _ in (root / "site-pages").rglob("index.html")),
        ],
    }


def _list(values: list[float], unit: str = "s") -> str:
    return ", ".join(f"{v:.2f}{unit}" for v in values)


def report(args, what, edited, times, peaks, sizes, verified, rebuilds, cold, cpus) -> None:
    """Every figure of the run, each ratio against its baseline measured in the same run."""
    if args.repeat:
        builds(args, what, edited, times, peaks, sizes, verified, cold, cpus)
        per_page_cpu(times, cpus, sizes)
    else:
        print(f"{what}; no full builds (--repeat 0); edits under serve to {edited}")
    if rebuilds:
        served, bare = statistics.median(rebuilds["plugin"][0]), statistics.median(rebuilds["plain"][0])
        print(
            f"mkdocs serve, one-line page edit, rebuild (MkDocs' own timer), {args.edits} edits each, alternating: "
            f"plugin median {served:.3f} s ({_list(rebuilds['plugin'][0], '')}), "
            f"plain median {bare:.3f} s ({_list(rebuilds['plain'][0], '')})"
        )
        ratios = sorted(a / b for a, b in zip(rebuilds["plugin"][0], rebuilds["plain"][0], strict=True))
        print(
            f"ratio serve rebuild plugin / plain: {served / bare:.2f} of the medians; each edit's ratio: median "
            f"{statistics.median(ratios):.2f}, range {ratios[0]:.2f}–{ratios[-1]:.2f}  (target: at most 1.5)"
        )
        if rebuilds["plugin"][1]:
            print(f"  the plugin's log: {'; '.join(rebuilds['plugin'][1][-2:])}")


def per_page_cpu(times, cpus, sizes) -> None:
    """The cost per generated page in CPU time (user + system of each build's process): on a machine
    others share, wall time also counts the waits for a core, CPU time far less."""
    plugin, plain, many = (statistics.median(cpus[name]) for name in ("plugin", "plain", "pages"))
    pages, plain_count, many_count = sizes["pages"]
    per_generated = 1000 * (plugin - plain) / max(pages - plain_count, 1)
    per_plain = 1000 * (many - plain) / max(many_count - plain_count, 1)
    print(
        f"CPU time: plugin build {plugin:.2f} s, plain {plain:.2f} s, plain + plain pages {many:.2f} s; per "
        f"generated page {per_generated:.2f} ms, per plain page {per_plain:.2f} ms; ratio {per_generated / per_plain:.2f}"
    )


def builds(args, what, edited, times, peaks, sizes, verified, cold, cpus) -> None:
    """The full builds' figures (part 1)."""
    plugin, plain, many = (statistics.median(times[name]) for name in ("plugin", "plain", "pages"))
    pages, plain_count, many_count = sizes["pages"]
    print(f"{what}; {args.repeat} builds each, alternating; edits under serve to {edited}")
    for name, label, count in (
        ("plugin", "with the ledger plugin", pages),
        ("plain", "without it (plain)", plain_count),
        ("pages", "plain + plain pages", many_count),
    ):
        print(
            f"mkdocs build {label + ':':<24} median {statistics.median(times[name]):7.2f} s  "
            f"({_list(times[name])}; {count} pages; peak {max(peaks[name]):.0f} MiB)"
        )
    print(f"ratio plugin / plain (full builds): {plugin / plain:.2f}")
    if args.baseline:
        base = statistics.median(times["baseline"])
        print(
            f"the plugin build with {args.baseline}'s code: median {base:.2f} s "
            f"({_list(times['baseline'])}); this / baseline {plugin / base:.3f}"
        )
        # on a shared machine the wall clock carries the others' load; CPU time and peak memory do not
        cpu, cpu_base = statistics.median(cpus["plugin"]), statistics.median(cpus["baseline"])
        peak, peak_base = max(peaks["plugin"]), max(peaks["baseline"])
        print(
            f"  CPU median {cpu:.2f} s, with its code {cpu_base:.2f} s: this / baseline {cpu / cpu_base:.3f}; "
            f"peak memory {peak:.0f} MiB, with its code {peak_base:.0f} MiB: this / baseline {peak / peak_base:.3f}"
        )
    extra, plains = pages - plain_count, many_count - plain_count
    per_generated = 1000 * (plugin - plain) / max(extra, 1)
    per_plain = 1000 * (many - plain) / max(plains, 1)
    print(
        f"cost per generated page: {per_generated:.2f} ms ({extra} generated pages); "
        f"per plain Material page outside the navigation: {per_plain:.2f} ms ({plains} pages); "
        f"ratio generated / plain page: {per_generated / per_plain:.2f}  (target: at most 0.5)"
    )
    print(f"peak memory of the plugin build: {max(peaks['plugin']):.0f} MiB; first (cold-cache) build {cold:.2f} s")
    for kind in ("claim", "run", "plain page"):
        found = sizes[kind]
        if found:
            print(
                f"{kind} pages' HTML: median {statistics.median(found) / 1000:.1f} KB, largest {found[-1] / 1000:.1f} KB"
                f" ({len(found)} pages)"
            )
    if verified:
        checked = statistics.median(wall for wall, _ in verified)
        spent, built = statistics.median(cpu for _, cpu in verified), statistics.median(cpus["plugin"])
        print(
            f"ledger verify-site on the site each plugin build wrote: median {checked:.2f} s "
            f"({_list([wall for wall, _ in verified])}); CPU {spent:.2f} s against the build's {built:.2f} s; "
            f"ratio verify-site / the build it verifies: {checked / plugin:.2f} wall, {spent / built:.2f} CPU  "
            "(target: at most 0.5)"
        )


if __name__ == "__main__":
    main()
