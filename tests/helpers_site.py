"""A small but complete ledger for the site tests: every kind, every status, a chart, a table,
and a claim whose text tries to be HTML, Markdown and a template. Built once per test session."""

from __future__ import annotations

import functools
import http.server
import threading
from contextlib import contextmanager
from datetime import datetime, timedelta, timezone
from pathlib import Path

from helpers import MEASURED, RUN, TOY_PROBE, a_run, run_ledger, write_tree

from generator.verify import framed

NOW = datetime.now(timezone.utc).replace(microsecond=0)
BANDWIDTH_ROWS = [
    {"size_mib": 2**k, "op": op, "gb_per_s": (20.0 if op == "read" else 30.0) / (1 + 8 / 2**k), "rounds": 3}
    for k in range(0, 11, 2)
    for op in ("read", "copy")
]
HOSTILE = (
    'Danger <script>alert("x")</script> {{ claim("moe-speedup-b16") }} {% if 1 %}yes{% endif %} '
    "*em* __strong__ [link](https://example.com) `code` & <b>bold</b>"
)

MKDOCS = """
site_name: site test
theme:
  name: material
  font: false
  features: [navigation.tabs, navigation.sections, navigation.indexes]
  palette:
    - {scheme: default, toggle: {icon: material/weather-night, name: Dark mode}}
    - {scheme: slate, toggle: {icon: material/weather-sunny, name: Light mode}}
plugins: [search, ledger]
markdown_extensions: [admonition, attr_list, md_in_html, tables, pymdownx.details, toc]
nav:
  - Report: [index.md]
  - Claims: [claims/index.md, claims/fell.md]
  - Measurements: [measurements/index.md]
  - Gate: [gate/index.md]
"""

CLAIMS = (
    MEASURED
    + f"""
  - id: byte-ratio-b16
    statement: Bytes per token at B=1 over bytes per token at B=16
    value: 1.8
    unit: "×"
    kind: measured
    testbed: linux-cpu
    evidence:
      run: {RUN}
      file: results.csv
      where: {{batch: 16}}
      column: byte_ratio

  - id: moe-speedup-predicted-b16
    statement: The byte model's prediction of the B=16 speedup
    kind: extrapolated
    formula: byte_ratio * 2
    inputs: {{byte_ratio: byte-ratio-b16}}
    value: 3.6
    unit: "×"
    testbed: linux-cpu

  - id: m1max-moe-speedup-b16
    kind: borrowed
    statement: {HOSTILE!r}
    value: 3.59
    unit: "×"
    testbed: apple-m1-max
    source:
      title: "What is batching <i>actually</i> saving?"
      quote: "MoE coverage <script>x</script> 3.59x"
      url: "javascript:alert(1)"
    checked_by: [{{claim: moe-speedup-b16, expects: "within 1.05x"}}]

  - id: batching-not-worth-it
    kind: borrowed
    statement: Batching saves nothing on this machine
    value: 1.0
    unit: "×"
    testbed: apple-m1-max
    source: {{title: "the byte ledger", quote: "not worth it"}}
    status: refuted
    refuted_by: moe-speedup-b16

  - id: hub-batch-of-one
    kind: borrowed
    statement: Most requests to a household serving hub arrive alone
    value: 97
    unit: "%"
    source: {{title: "hub statistics", quote: "97% single"}}
    status: lead
"""
)

FIGURES = '''
import altair as alt
from generator.site.figure_api import chart, table


@chart("bandwidth-sweep")
def bandwidth_sweep(data):
    """Read bandwidth against buffer size
    Small buffers fit in the caches."""
    frame = data.frame("bandwidth")
    return alt.Chart(frame).mark_line(point=True).encode(
        x=alt.X("size_mib:Q", scale=alt.Scale(type="log")), y="gb_per_s:Q", color="op:N")


@table("speedups")
def speedups(data):
    """Measured against predicted"""
    frame = data.claims(["moe-speedup-b16", "moe-speedup-predicted-b16", "m1max-moe-speedup-b16"])
    out = frame[["claim", "testbed"]].copy()
    out["bytes_moved"] = [1048576, 2097152, 4194304]  # no unit: labels of the rows
    return out


@table("read-bandwidth")
def read_bandwidth(data):
    """Read bandwidth by buffer size"""
    frame = data.frame("bandwidth")
    out = frame[frame["op"] == "read"][["run", "testbed", "size_mib", "gb_per_s"]]
    out.attrs["units"] = {"gb_per_s": "GB/s"}
    return out
'''

REPORT = """# Report

The speedup is {{ claim("moe-speedup-b16") }}; the write-up said {{ claim("m1max-moe-speedup-b16") }}.
The byte model predicts {{ claim("moe-speedup-predicted-b16") }}.
Once we believed {{ claim("batching-not-worth-it") }}; a lead says {{ claim("hub-batch-of-one") }}.

{{ chart("bandwidth-sweep") }}

{{ table("speedups") }}

{{ table("read-bandwidth") }}

Write `{{ claim("id") }}` to cite a claim.
"""


def a_ledger(root: Path, report: str = REPORT) -> None:
    """The ledger above, with real runs written by the run writer."""
    a_run(
        root,
        [{"batch": 1, "speedup": 1.0, "byte_ratio": 1.0}, {"batch": 16, "speedup": 3.6, "byte_ratio": 1.8}],
        when=NOW - timedelta(days=2),
    )
    a_run(root, BANDWIDTH_ROWS, probe="bandwidth", when=NOW - timedelta(days=1))
    write_tree(
        root, {"mkdocs.yml": MKDOCS, "claims/moe.yaml": CLAIMS, "figures/example.py": FIGURES, "docs/index.md": report}
    )
    # the run above used TOY_PROBE: keep the file as the manifest hashed it
    assert (root / "probes/toy.py").read_text() == TOY_PROBE
    # the toy RUN constant names a fixed time; point the claims at the run actually written
    written = sorted((root / "measurements/toy").iterdir())[-1].relative_to(root).as_posix()
    claims = root / "claims/moe.yaml"
    claims.write_text(claims.read_text().replace(RUN, written))


def verify_both_ways(site) -> str:
    """verify-site's output on the site, read in frames and around what it need not read, and read whole (LEDGER_VERIFY_FRAMES=off): the same."""
    found = [
        run_ledger("--root", str(site.parent), "verify-site", str(site), cwd=site.parent, env={framed.OFF: mode})
        for mode in ("on", "off")
    ]
    assert "Traceback" not in found[0].errors + found[1].errors
    assert (found[0].exit_code, found[0].output) == (found[1].exit_code, found[1].output)
    return found[0].output


def read(site: Path, page: str) -> str:
    return (site / page / "index.html").read_text(encoding="utf-8")


def article(site: Path, page: str) -> str:
    """A page's main content, without Material's navigation and chrome."""
    text = read(site, page)
    return text[text.index("<article") : text.index("</article>")]


@contextmanager
def serving(folder: Path):
    """Serve a folder over http on a free local port; yields the base URL."""

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(folder)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
