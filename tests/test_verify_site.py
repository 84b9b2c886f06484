"""`ledger verify-site`: a built site is refused unless the ledger rendered every page, whatever built it."""

import shutil

from helpers import run_ledger, run_mkdocs, write_tree
from helpers_site import a_ledger

from generator.site import stamp


def copy_of(site, tmp_path):
    target = tmp_path / "site"
    shutil.copytree(site, target)
    return target


def test_a_site_built_by_the_plugin_passes(built_site, tmp_path):
    result = run_ledger("verify-site", str(built_site), cwd=tmp_path)
    assert result.exit_code == 0, result.output
    assert "pages verified: every one rendered by the ledger, with the gate passing" in result.output


def test_a_page_without_the_ledger_stamp_is_refused(built_site, tmp_path):
    site = copy_of(built_site, tmp_path)
    page = site / "index.html"
    page.write_text(page.read_text().replace(stamp.stamp(True), ""))
    result = run_ledger("verify-site", str(site), cwd=tmp_path)
    assert result.exit_code == 1
    assert "index.html: no ledger stamp: this page was not rendered by the ledger" in result.output.splitlines()
    assert result.output.splitlines()[-1].startswith("1 problem on 1 of ")


def test_an_unrendered_reference_is_refused_with_its_line_but_code_may_show_the_syntax(built_site, tmp_path):
    site = copy_of(built_site, tmp_path)
    page = site / "index.html"
    text = page.read_text()
    assert "<code>{{ claim(&quot;id&quot;) }}</code>" in text or '<code>{{ claim("id") }}</code>' in text
    page.write_text(text.replace("</article>", '\n<p>plain {{ claim("moe-speedup-b16") }}</p>\n</article>', 1))
    line = page.read_text().splitlines().index('<p>plain {{ claim("moe-speedup-b16") }}</p>') + 1
    result = run_ledger("verify-site", str(site), cwd=tmp_path)
    assert result.exit_code == 1
    assert f'index.html:{line}: unrendered reference {{{{ claim("moe-speedup-b16") }}}}' in result.output


def test_a_cited_claim_without_a_claim_page_is_refused(built_site, tmp_path):
    site = copy_of(built_site, tmp_path)
    shutil.rmtree(site / "claim/moe-speedup-b16")
    result = run_ledger("verify-site", str(site), cwd=tmp_path)
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
