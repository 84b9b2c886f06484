"""Build-time benchmark (not a test): the ledger plugin's `mkdocs build` against a plain MkDocs build.

Writes a synthetic ledger into a temporary folder (N claims of every kind over R runs written by the
real run writer, a few hand-written pages citing them, one chart and one table), then times, in the
same run and alternating, `mkdocs build` with the plugin and with the plugin removed (the same
hand-written pages; their references stay plain text). Prints each build's median and the ratio,
and the cost per generated page (claim, run and index pages are most of the difference).

    .venv/bin/python benchmarks/build_time.py [--claims 300] [--runs 30] [--repeat 3]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from generator.runs import write_run  # noqa: E402

BATCHES = (1, 2, 4, 8, 16)
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


def ledger(root: Path, n_claims: int, n_runs: int) -> None:
    """A synthetic ledger: runs, claims of every kind, pages citing them, a chart and a table."""
    (root / "probes").mkdir(parents=True)
    (root / "probes/synthetic.py").write_text("# a synthetic probe for the benchmark\n")
    start = datetime.now(timezone.utc).replace(microsecond=0) - timedelta(days=1)
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
    lines = ["claims:"]
    measured = []
    for i in range(n_claims):
        kind = (
            "measured",
            "measured",
            "extrapolated",
            "borrowed",
            "measured",
            "borrowed",
            "measured",
            "extrapolated",
            "measured",
            "refuted",
        )[i % 10]
        cid = f"claim-{i:05d}"
        if kind == "measured":
            run, rows = runs[i % n_runs]
            row = rows[i % len(BATCHES)]
            lines += [
                f"  - id: {cid}",
                f"    statement: synthetic speedup {i} at B={row['batch']}",
                f"    value: {row['speedup']}",
                '    unit: "×"',
                "    kind: measured",
                "    testbed: linux-cpu",
                f"    evidence: {{run: {run}, file: results.csv, where: {{batch: {row['batch']}}}, column: speedup}}",
            ]
            measured.append((cid, row["speedup"]))
        elif kind == "extrapolated" and len(measured) >= 2:
            (a, va), (b, vb) = measured[-1], measured[-2]
            lines += [
                f"  - id: {cid}",
                f"    statement: synthetic product {i}",
                f"    value: {va * vb!r}",
                "    kind: extrapolated",
                "    formula: x * y",
                f"    inputs: {{x: {a}, y: {b}}}",
            ]
        elif kind in ("borrowed", "extrapolated") and measured:
            a, va = measured[-1]
            lines += [
                f"  - id: {cid}",
                f"    statement: a borrowed figure {i}",
                f"    value: {va}",
                '    unit: "×"',
                "    kind: borrowed",
                "    testbed: apple-m1-max",
                f"    source: {{title: synthetic source {i}, quote: '{va}x'}}",
                f"    checked_by: [{a}]",
            ]
        elif measured:
            a, _ = measured[-1]
            lines += [
                f"  - id: {cid}",
                f"    statement: a fallen figure {i}",
                "    value: 1.0",
                '    unit: "×"',
                "    kind: borrowed",
                f"    source: {{title: old note {i}, quote: '1x'}}",
                "    status: refuted",
                f"    refuted_by: {a}",
            ]
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


def build_seconds(root: Path, config: str) -> float:
    env = dict(os.environ, PYTHONPATH=str(REPO), NO_MKDOCS_2_WARNING="1")
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "-q", "-f", config], cwd=root, env=env, capture_output=True, text=True
    )
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        sys.exit(f"mkdocs build -f {config} failed:\n{done.stderr}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--claims", type=int, default=300)
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        ledger(root, args.claims, args.runs)
        cold = build_seconds(root, "with-plugin.yml")  # fills .cache/ledger (Vega bundle, SVGs) once
        times: dict[str, list[float]] = {"plugin": [], "plain": []}
        for _ in range(args.repeat):
            times["plugin"].append(build_seconds(root, "with-plugin.yml"))
            times["plain"].append(build_seconds(root, "plain.yml"))
        pages = sum(1 for _ in (root / "site-plugin").rglob("index.html"))
        plain_pages = sum(1 for _ in (root / "site-plain").rglob("index.html"))
    plugin, plain = statistics.median(times["plugin"]), statistics.median(times["plain"])
    print(
        f"ledger: {args.claims} claims, {args.runs} runs, 11 hand-written pages, 1 chart, 1 table; "
        f"{args.repeat} builds each, alternating"
    )
    print(
        f"mkdocs build with the ledger plugin: median {plugin:.2f} s  "
        f"({', '.join(f'{t:.2f}' for t in times['plugin'])}; {pages} pages)"
    )
    print(
        f"mkdocs build without it (plain):     median {plain:.2f} s  "
        f"({', '.join(f'{t:.2f}' for t in times['plain'])}; {plain_pages} pages)"
    )
    print(f"ratio plugin / plain: {plugin / plain:.2f}")
    extra = pages - plain_pages
    print(
        f"the plugin adds {extra} generated pages: {1000 * (plugin - plain) / max(extra, 1):.1f} ms each; "
        f"first (cold-cache) build {cold:.2f} s"
    )


if __name__ == "__main__":
    main()
