"""`ledger verify-site`: a built site is refused unless the ledger rendered every page from this ledger,
whatever built it, and every value and chart row it shows is the ledger's."""

import json
import os
import re
import shutil
import subprocess
import sys
from datetime import datetime, timezone

import pytest
from helpers import _env, run_ledger, run_mkdocs, write_tree
from helpers_site import a_ledger, serving

from generator import verify as verify_reader
from generator.gate import check_project
from generator.inputs import project
from generator.verify import sitefiles, sitetext

pytestmark = pytest.mark.site

STAMP = re.compile(
    r'<span class="ledger-stamp" data-ledger-gate="pass" data-ledger-report="[0-9a-f]{64}"'
    r'(?: data-ledger-path="[^"]*")? data-ledger-page="[0-9a-f]{64}" hidden></span>'
)


def verify(site, *args):
    """verify-site on a copy of the example site, against the ledger it was built from."""
    return run_ledger("--root", str(site.parent), "verify-site", str(site), *args, cwd=site.parent)


def copy_of(site, tmp_path):
    """The example ledger and its built site, copied: the site can be edited and checked against it."""
    shutil.copytree(site.parent, tmp_path / "ledger", ignore=shutil.ignore_patterns(".cache"))
    return tmp_path / "ledger" / "site"


def test_a_site_built_by_the_plugin_passes(built_site, tmp_path):
    result = run_ledger("--root", str(built_site.parent), "verify-site", str(built_site), cwd=tmp_path)
    assert result.exit_code == 0, result.output
    assert "pages verified: every one rendered by the ledger from this ledger's report, with the gate passing" in (
        result.output
    )


def test_a_page_without_the_ledger_stamp_is_refused(built_site, tmp_path):
    site = copy_of(built_site, tmp_path)
    page = site / "index.html"
    page.write_text(STAMP.sub("", page.read_text()))
    result = verify(site)
    assert result.exit_code == 1
    assert "index.html: no ledger stamp: this page was not rendered by the ledger" in result.output.splitlines()
    assert result.output.splitlines()[-1].startswith("1 problem (1 of ")


def test_an_unrendered_reference_is_refused_with_its_line_but_code_may_show_the_syntax(built_site, tmp_path):
    site = copy_of(built_site, tmp_path)
    page = site / "index.html"
    text = page.read_text()
    assert "<code>{{ claim(&quot;id&quot;) }}</code>" in text or '<code>{{ claim("id") }}</code>' in text
    page.write_text(text.replace("</article>", '\n<p>plain {{ claim("moe-speedup-b16") }}</p>\n</article>', 1))
    line = page.read_text().splitlines().index('<p>plain {{ claim("moe-speedup-b16") }}</p>') + 1
    result = verify(site)
    assert result.exit_code == 1
    assert f'index.html:{line}: unrendered reference {{{{ claim("moe-speedup-b16") }}}}' in result.output


def test_a_cited_claim_without_a_claim_page_is_refused(built_site, tmp_path):
    site = copy_of(built_site, tmp_path)
    shutil.rmtree(site / "claim/moe-speedup-b16")
    result = verify(site)
    assert result.exit_code == 1
    assert "index.html: cites claim 'moe-speedup-b16', which has no claim page in the site" in result.output


def test_a_site_built_without_the_ledger_is_refused_page_by_page(tmp_path):
    a_ledger(tmp_path)
    config = (tmp_path / "mkdocs.yml").read_text().replace("plugins: [search, ledger]", "plugins: [search]")
    config = config.replace(
        "  - Claims: [claims/index.md, claims/fell.md]\n  - Measurements: [measurements/index.md]\n", ""
    )
    write_tree(tmp_path, {"mkdocs.yml": config.replace("  - Gate: [gate/index.md]\n", "")})
    assert run_mkdocs("build", cwd=tmp_path).exit_code == 0
    result = run_ledger("verify-site", "site", cwd=tmp_path)
    assert result.exit_code == 1
    assert "index.html: no ledger stamp: this page was not rendered by the ledger" in result.output
    assert 'unrendered reference {{ claim("moe-speedup-b16") }}' in result.output


def test_a_site_built_while_the_gate_failed_is_refused(tmp_path):
    from test_site import serve_build

    a_ledger(tmp_path)
    claims = tmp_path / "claims/moe.yaml"
    claims.write_text(
        claims.read_text().replace(
            'value: 3.59\n    unit: "×"\n    kind: measured', 'value: 2.5\n    unit: "×"\n    kind: measured'
        )
    )
    site = serve_build(tmp_path)
    result = run_ledger("verify-site", str(site), cwd=tmp_path)
    assert result.exit_code == 1
    assert "index.html: built while the gate failed (`ledger check` says why)" in result.output


def test_verify_site_on_a_missing_folder_is_a_usage_error(tmp_path):
    result = run_ledger("verify-site", "nowhere", cwd=tmp_path)
    assert result.exit_code == 2
    assert "nowhere is not a folder" in result.errors


def test_a_value_edited_in_a_built_page_is_refused_with_the_ledgers_value(built_site, tmp_path):
    site = copy_of(built_site, tmp_path)
    page = site / "index.html"
    page.write_text(
        page.read_text().replace(
            '<span class="ledger-value">3.59×</span>', '<span class="ledger-value">9.59×</span>', 1
        )
    )
    result = verify(site)
    assert result.exit_code == 1
    assert re.search(r"index.html:\d+: shows moe-speedup-b16 as '9.59×'; the ledger gives '3.59×'", result.output)


def test_a_site_built_from_another_state_of_the_ledger_is_refused_by_its_digest(built_site, tmp_path):
    site = copy_of(built_site, tmp_path)
    claims = site.parent / "claims/moe.yaml"
    claims.write_text(claims.read_text().replace("value: 3.59\n", "value: 3.6\n", 1))  # still passes the gate
    assert run_ledger("check", cwd=site.parent).exit_code == 0
    result = verify(site)
    assert result.exit_code == 1
    assert "index.html: its stamp's report digest" in result.output
    assert "is not the ledger's" in result.output and "built from another state of the ledger" in result.output


def test_any_html_file_the_ledger_did_not_render_and_an_empty_site_are_refused(built_site, tmp_path):
    site = copy_of(built_site, tmp_path)
    write_tree(site, {"extra/page.html": "<html><body><p>3.59× faster</p></body></html>"})
    result = verify(site)
    assert "extra/page.html: no ledger stamp: this page was not rendered by the ledger" in result.output
    assert STAMP.search((site / "404.html").read_text())  # the theme's own page is stamped too
    empty = tmp_path / "ledger" / "empty"
    empty.mkdir()
    result = verify(empty)
    assert result.exit_code == 1
    assert ".: no HTML page: an empty site is not a report" in result.output


def test_a_chart_row_that_is_not_in_its_run_is_refused(built_site, tmp_path):
    site = copy_of(built_site, tmp_path)
    page = site / "index.html"
    text = page.read_text()
    spec_text = re.search(r'<script type="application/json" class="ledger-chart-spec">(.*?)</script>', text).group(1)
    spec = json.loads(spec_text)
    rows = next(iter(spec["datasets"].values()))
    rows[0]["gb_per_s"] = rows[0]["gb_per_s"] * 2  # a figure that doubles a measured value
    page.write_text(text.replace(spec_text, json.dumps(spec)))
    result = verify(site)
    assert result.exit_code == 1
    assert "chart 'bandwidth-sweep': a row (" in result.output and "is in no table of run measurements/bandwidth/" in (
        result.output
    )


PATCH = """
import generator.site.render as render

_real = render.claim_inline


def _shown(verdict, links):
    return _real(verdict, links).replace("3.59×", "9.59×")


render.claim_inline = _shown
"""


def test_project_code_that_changes_what_the_renderer_writes_is_caught_after_the_build(tmp_path):
    a_ledger(tmp_path)
    write_tree(tmp_path, {"figures/patch.py": PATCH})  # imported by the build with the figures
    assert run_mkdocs("build", "--strict", cwd=tmp_path).exit_code == 0
    assert "9.59×" in (tmp_path / "site/index.html").read_text()
    result = run_ledger("verify-site", "site", cwd=tmp_path)
    assert result.exit_code == 1
    assert re.search(r"index.html:\d+: shows moe-speedup-b16 as '9.59×'; the ledger gives '3.59×'", result.output)


@pytest.mark.parametrize("fixture", ["built_site", "series_site"])  # (the second draws timelines)
def test_verify_site_imports_no_project_code(fixture, request):
    """Nor MkDocs, Altair or pandas: it renders the claim pages again (verify/expected.py) without them."""
    built_site = request.getfixturevalue(fixture)
    built_site = built_site[0] if isinstance(built_site, tuple) else built_site
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "generator", "verify-site", str(built_site)],
        cwd=built_site.parent,
        capture_output=True,
        text=True,
        env=_env(),
    )
    assert done.returncode == 0, done.stdout + done.stderr
    imported = {line.split("|")[-1].strip() for line in done.stderr.splitlines() if line.startswith("import time:")}
    assert "generator.commands.verify_site" in imported
    assert sorted(m for m in imported if m.startswith(("ledger_figures", "mkdocs", "altair", "pandas"))) == []


def test_publish_refuses_a_run_rewritten_since_the_published_registry(built_site, tmp_path):
    published = tmp_path / "published"
    shutil.copytree(built_site, published)
    site = copy_of(built_site, tmp_path)
    (tmp_path / "pages").mkdir()
    with serving(tmp_path / "pages") as base:  # no site at its address yet: a first publish
        note = verify(site, "--against", base + "site/")
    assert note.exit_code == 0 and "note: no site published at" in note.output, note.output
    run = sorted((site.parent / "measurements/bandwidth").iterdir())[0]
    data = (run / "results.csv").read_bytes().replace(b"20.0", b"21.0", 1)
    (run / "results.csv").write_bytes(data)
    manifest = json.loads((run / "manifest.json").read_text())
    import hashlib

    manifest["files"]["results.csv"]["sha256"] = hashlib.sha256(data).hexdigest()
    (run / "manifest.json").write_text(json.dumps(manifest, indent=2))
    assert run_mkdocs("build", "--strict", cwd=site.parent).exit_code == 0  # no git here: a force-push's view
    result = verify(site, "--against", str(published))
    assert result.exit_code == 1
    path = run.relative_to(site.parent).as_posix()
    assert f"{path}/results.csv: sha256 " in result.output and "the published registry says" in result.output
    assert "(a published run was rewritten)" in result.output


def test_a_published_registry_that_cannot_be_read_fails(built_site, tmp_path):
    site = copy_of(built_site, tmp_path)
    result = verify(site, "--against", "http://127.0.0.1:9/site/")
    assert result.exit_code == 1
    assert "--against http://127.0.0.1:9/site/: the published registry cannot be read: " in result.output


def test_the_ledgers_own_interval_words_and_figure_captions_pass(tmp_path):
    """A claim's interval as the ledger writes it ('(min–max of 7 rounds; no raw rounds)', 'one run: …') and a
    figure caption's count of the claims it drew are the ledger's words: verify-site re-derives them (with
    counted units, '7 rounds' and '2 claims' are figures, and this repository's own site failed on them)."""
    from helpers import a_run

    a_ledger(tmp_path)
    run = a_run(
        tmp_path,
        [{"batch": 1, "tok_per_s": 28.5, "tok_per_s_min": 26.1, "tok_per_s_max": 44.4, "rounds": 7}],
        probe="decode",
    )
    write_tree(
        tmp_path,
        {
            "claims/decode.yaml": "claims:\n  - id: b1-decode\n    statement: decode at B=1\n    kind: measured\n"
            f"    value: 28.5\n    unit: tok/s\n    testbed: linux-cpu\n    evidence: {{run: {run}, file: results.csv, "
            "where: {batch: 1}, column: tok_per_s}\n",
            "figures/drawn.py": "import altair as alt\nfrom generator.site.figure_api import chart\n\n\n"
            '@chart("drawn")\ndef drawn(data):\n    """Claims drawn"""\n'
            "    frame = data.claims()[['id', 'value']]\n"
            "    return alt.Chart(frame).mark_bar().encode(x='id:N', y='value:Q')\n",
        },
    )
    index = tmp_path / "docs/index.md"
    index.write_text(index.read_text() + '\nDecode: {{ claim("b1-decode") }}\n\n{{ chart("drawn") }}\n')
    built = run_mkdocs("build", "--strict", cwd=tmp_path)
    assert built.exit_code == 0, built.errors
    page = (tmp_path / "site/index.html").read_text()
    assert "min–max of 7 rounds; no raw rounds" in page and re.search(r"\d+ claims \(\d+ measured, ", page)
    result = verify(tmp_path / "site")
    assert result.exit_code == 0, result.output


def test_a_file_that_is_no_regular_file_is_refused_and_a_page_that_cannot_be_read_is_named(
    built_site, tmp_path, monkeypatch
):
    """A pipe would never end a read (refused by its kind); a page is first opened when it is verified, and
    one that cannot be read then is a problem of its own, not a crash."""
    site = copy_of(built_site, tmp_path)
    os.mkfifo(site / "stray.html")
    result = verify(site)
    assert result.exit_code == 1
    assert "stray.html: is not a regular file: verify-site reads files (a pipe or a device would never end)" in (
        result.output.splitlines()
    )
    (site / "stray.html").unlink()
    report = check_project(site.parent, site.parent / "mkdocs.yml", datetime.now(timezone.utc), every_table=True)
    listed = sitefiles.documents(site)
    listed.pages.append("gone/index.html")  # listed, then gone before it is read
    monkeypatch.setattr(sitefiles, "documents", lambda _site: listed)
    _, problems = verify_reader.verify(site, report, site.parent, project.read(site.parent).urls[0])
    assert [str(problem) for problem in problems] == ["gone/index.html: cannot be read (No such file or directory)"]


def test_shown_answers_a_count_of_claims_without_making_every_count(built_site):
    report = check_project(built_site.parent, None, datetime.now(timezone.utc))
    shown, claims = sitetext.Shown(report), len(report.claims)
    assert claims > 2 and f"{claims - 1} claims" in shown and "1 claims" in shown
    assert shown._counts is None  # (each read alone: sitetext._a_count)
    assert f"{claims} claims" in shown  # the indexes' own count, among the rest
    assert f"{claims + 1} claims" not in shown and shown._counts is not None
