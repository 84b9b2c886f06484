"""`mkdocs serve` rebuilds only what an edit changed, and what it serves is what a full build would.

A real `mkdocs serve` runs on the test ledger; a claim (or a page) is edited under it; every page it
serves after the rebuild is compared with a second `mkdocs serve` started fresh after the edit.
"""

from __future__ import annotations

import queue
import re
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from contextlib import contextmanager
from pathlib import Path

import pytest
from helpers import _env, write_tree
from helpers_site import a_ledger

pytestmark = pytest.mark.site

BUILT = re.compile(r"Documentation built in")
COUNTS = re.compile(r"generated pages: (\d+) rendered, (\d+) reused")
IN_PLACE = re.compile(r"made assets: (\d+) written, (\d+) left in place")
SHOWN = re.compile(r'data-claim="moe-speedup-b16"><span class="ledger-value">(.*?)</span>')
ASSET = re.compile(r"(assets/ledger/[\w./-]+\.(?:csv|svg|js|css))")
LIVERELOAD = re.compile(r"<script>\s*var livereload = .*?</script>", re.DOTALL)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Serve:
    """A running `mkdocs serve`: its log lines, and its pages over HTTP."""

    def __init__(self, root: Path):
        self.port = free_port()
        self.process = subprocess.Popen(
            # a -W option keeps MkDocs from dropping a log line it printed before ("Documentation built in
            # 0.61 seconds" twice): its DuplicateFilter is set up only without one
            [
                sys.executable,
                "-W",
                "ignore::DeprecationWarning",
                "-m",
                "mkdocs",
                "serve",
                "--dev-addr",
                f"127.0.0.1:{self.port}",
            ],
            cwd=root,
            env=_env(),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.lines: queue.Queue[str] = queue.Queue()
        self.log: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        assert self.process.stderr is not None
        for line in self.process.stderr:
            self.lines.put(line)

    def built(self, timeout: float = 300) -> list[str]:
        """Wait for the next build to finish; its log lines."""
        lines, end = [], time.monotonic() + timeout
        while time.monotonic() < end:
            try:
                line = self.lines.get(timeout=1)
            except queue.Empty:
                assert self.process.poll() is None, "mkdocs serve exited:\n" + "".join(self.log)
                continue
            lines.append(line)
            self.log.append(line)
            if BUILT.search(line):
                time.sleep(0.5)  # the server swaps in the new build after the message
                return lines
        raise AssertionError("no build finished in time:\n" + "".join(self.log))

    def get(self, path: str) -> str:
        with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/{path}", timeout=30) as response:
            text = response.read().decode("utf-8")
        return LIVERELOAD.sub("", text).replace(f"127.0.0.1:{self.port}", "HOST")

    def site(self, paths: list[str]) -> dict[str, str]:
        """The pages served, their stamps' report digests left out: a page serve reuses keeps the digest
        of the build that wrote it (serve's sites are never published; verify-site would refuse them)."""
        return {path: DIGEST.sub("", self.get(path)) for path in paths}

    def stop(self):
        self.process.terminate()
        self.process.wait(timeout=30)


@contextmanager
def serving(root: Path):
    server = Serve(root)
    try:
        yield server
    finally:
        server.stop()


def pages_of(server: Serve) -> list[str]:
    """Every page of the site (the first build's sitemap lists them all), the search index, and every
    asset the ledger made that a page loads (series data, chart images, scripts: serve leaves them in
    place when they are the last build's)."""
    sitemap = server.get("sitemap.xml")
    pages = sorted(re.findall(r"<loc>http://HOST/(.*?)</loc>", sitemap))
    assets = {found for page in pages for found in ASSET.findall(server.get(page))}
    assert any(name.endswith(".svg") for name in assets)  # a chart's image: an asset the ledger made
    return pages + ["search/search_index.json", "sitemap.xml", *sorted(assets)]


DIGEST = re.compile(r' data-ledger-report="[0-9a-f]{64}"')


def counts(lines: list[str]) -> tuple[int, int]:
    found = [COUNTS.search(line) for line in lines]
    rendered, reused = next(m for m in found if m).groups()
    return int(rendered), int(reused)


def in_place(lines: list[str]) -> tuple[int, int]:
    found = next(m for m in map(IN_PLACE.search, lines) if m)
    return int(found.group(1)), int(found.group(2))


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert text.count(old) == 1, old
    path.write_text(text.replace(old, new))


def test_a_claim_edit_under_serve_changes_exactly_the_pages_a_full_build_changes(tmp_path):
    a_ledger(tmp_path)
    claims = tmp_path / "claims/moe.yaml"
    with serving(tmp_path) as server:
        rendered, reused = counts(server.built())
        assert reused == 0
        paths = pages_of(server)
        before = server.site(paths)
        edit(claims, 'value: 3.59\n    unit: "×"\n    kind: measured', 'value: 3.61\n    unit: "×"\n    kind: measured')
        lines = server.built()
        rendered_after, reused_after = counts(lines)
        after = server.site(paths)
    with serving(tmp_path) as fresh:
        fresh.built()
        expected = fresh.site(paths)
    assert {p: after[p] for p in paths} == {p: expected[p] for p in paths}  # what a full build serves
    changed = {p for p in paths if before[p] != after[p]}
    shown = {p: SHOWN.findall(after[p]) for p in paths if SHOWN.search(before[p])}
    assert shown and all(values == ["3.61×"] * len(values) for values in shown.values())  # every page showing it
    assert set(shown) <= changed
    assert {"", "claim/moe-speedup-b16/", "claims/", "search/search_index.json"} <= changed
    assert "claim/hub-batch-of-one/" not in changed and not any(p.startswith("run/bandwidth/") for p in changed)
    assert reused_after > 0 and rendered_after < rendered  # unchanged claim and run pages were not rendered again
    assert in_place(lines)[1] == 0  # the assets come from the verdicts: written again


def test_a_page_edit_under_serve_reuses_every_generated_page_outside_the_navigation(tmp_path):
    a_ledger(tmp_path)
    with serving(tmp_path) as server:
        counts(server.built())
        paths = pages_of(server)
        edit(tmp_path / "docs/index.md", "to cite a claim.", "to cite any claim.")  # no reference moves
        lines = server.built()
        rendered, reused = counts(lines)
        after = server.site(paths)
    with serving(tmp_path) as fresh:
        fresh.built()
        expected = fresh.site(paths)
    assert after == expected
    written, left = in_place(lines)
    assert written == 0 and left > 0  # the made assets stood: left in the site folder, served as a fresh build's
    assert rendered == 4  # the navigation's generated pages: claims, fell, measurements, gate
    assert "to cite any claim." in after[""]


def test_a_navigation_change_under_serve_renders_every_generated_page_again(tmp_path):
    a_ledger(tmp_path)
    with serving(tmp_path) as server:
        first, _ = counts(server.built())
        paths = pages_of(server)
        edit(tmp_path / "docs/index.md", "# Report\n", "# The report\n")  # a title in the navigation
        rendered, reused = counts(server.built())
        after = server.site(paths)
    with serving(tmp_path) as fresh:
        fresh.built()
        expected = fresh.site(paths)
    assert after == expected
    assert (rendered, reused) == (first, 0)  # the frame of every page changed: nothing reused


def test_claims_are_searchable_through_compact_entries_not_their_pages_html(tmp_path):
    import json

    from helpers import run_mkdocs

    a_ledger(tmp_path)
    assert run_mkdocs("build", "--strict", cwd=tmp_path).exit_code == 0
    docs = json.loads((tmp_path / "site/search/search_index.json").read_text())["docs"]
    by_location = {entry["location"]: entry for entry in docs}
    entry = by_location["claim/moe-speedup-b16/"]
    assert entry["title"] == "moe-speedup-b16"
    assert (
        entry["text"]
        == "MoE expert reads get faster per token at B=16 than at B=1 · 3.59× · measured · asserted · linux-cpu"
    )
    assert not any(e["location"].startswith("claim/") and "#" in e["location"] for e in docs)  # no page sections
    hostile = by_location["claim/m1max-moe-speedup-b16/"]["text"]
    assert "<script>" not in hostile and "&lt;script&gt;" in hostile
    assert any(e["location"].startswith("run/toy/") for e in docs) and "gate/" in by_location


def test_a_page_edit_that_changes_the_gate_is_judged_again_under_serve(tmp_path):
    a_ledger(tmp_path)
    write_tree(tmp_path, {"docs/more.md": '# More\n\nThe speedup again: {{ claim("moe-speedup-b16") }}.\n'})
    with serving(tmp_path) as server:
        server.built()
        paths = pages_of(server)
        edit(tmp_path / "docs/index.md", "to cite a claim.", 'to cite a claim at 42 GB/s, or {{ claim("no-such") }}.')
        edited = server.site(paths) if server.built() else {}
        edit(tmp_path / "docs/more.md", "The speedup again", "The speedup, 9.5× again")  # the other page, next
        both = server.site(paths) if server.built() else {}
    with serving(tmp_path) as fresh:
        fresh.built()
        expected = fresh.site(paths)
    assert both == expected  # a fresh serve of the same files, search index included
    for page, shown in (("", "42 GB/s"), ("more/", "9.5×")):
        assert "ledger-banner" in both[page] and shown in both[page]
    assert "no-such" in both["gate/"] and "unbound-number" in both["gate/"]
    assert "ledger-banner" in edited[""] and "ledger-banner" not in edited["more/"]  # then more.md was not read


def test_serve_compiles_a_template_once_and_again_when_its_source_changes(tmp_path):
    """KeptTemplates: a template's compiled code is reused by the next build's new Jinja environment
    (MkDocs makes one per build) only while the template's source is the same."""
    import jinja2

    from generator.site.incremental import KeptTemplates

    kept = KeptTemplates()
    compiled = []  # Jinja stores a template's code after compiling it, never after loading it
    store = kept.dump_bytecode
    kept.dump_bytecode = lambda bucket: (compiled.append(bucket.key), store(bucket))  # type: ignore[method-assign]
    (tmp_path / "main.html").write_text("<p>{{ title }}</p>")

    def build() -> str:
        env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(tmp_path)), auto_reload=False)
        env.bytecode_cache = kept
        return env.get_template("main.html").render(title="one")

    assert build() == "<p>one</p>" and len(compiled) == 1
    assert build() == "<p>one</p>" and len(compiled) == 1  # the next build's environment loaded it
    (tmp_path / "main.html").write_text("<h1>{{ title }}</h1>")
    assert build() == "<h1>one</h1>" and len(compiled) == 2  # the edited source compiled again
