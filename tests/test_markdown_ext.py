"""The Markdown extension and `ledger pages`: the ledger's references and pages without MkDocs plugin events."""

import re
from pathlib import Path

import markdown
import pytest
from helpers import run_ledger, run_mkdocs, write_tree
from helpers_site import a_ledger, article

from generator.site import export, markdown_ext

pytestmark = pytest.mark.site

SHOWN = re.compile(r'data-claim="([^"]+)"><span class="ledger-value">(.*?)</span>')


def convert(root, text: str) -> str:
    return markdown.markdown(text, extensions=["tables", markdown_ext.makeExtension(root=str(root))])


def test_a_claim_renders_with_value_badges_and_a_link_and_the_page_is_stamped(tmp_path):
    a_ledger(tmp_path)
    html = convert(tmp_path, 'The speedup is {{ claim("moe-speedup-b16") }}.')
    assert html.startswith(
        '<span class="ledger-begin" hidden></span><p>The speedup is <a class="ledger-claim ledger-claim--measured ledger-claim--asserted"'
    )
    assert 'href="/claim/moe-speedup-b16/"' in html  # from the site's root: no page URL without MkDocs
    assert SHOWN.findall(html) == [("moe-speedup-b16", "3.59×")]
    assert '<span class="ledger-badge ledger-badge--measured">measured</span>' in html
    # no page path outside MkDocs: the stamp binds the content alone (trust/stamp.py)
    assert re.search(
        r'<span class="ledger-stamp" data-ledger-gate="pass" data-ledger-report="[0-9a-f]{64}" '
        r'data-ledger-page="[0-9a-f]{64}" hidden></span>$',
        html,
    )


def test_code_keeps_the_syntax_and_claim_text_stays_text(tmp_path):
    a_ledger(tmp_path)
    html = convert(tmp_path, 'Write `{{ claim("id") }}`.\n\nThe write-up: {{ claim("m1max-moe-speedup-b16") }}\n')
    assert '<code>{{ claim("id") }}</code>' in html
    assert "<script>" not in html and "<em>" not in html and "<b>" not in html


def test_a_table_reference_renders_the_figure_as_a_block(tmp_path):
    a_ledger(tmp_path)
    html = convert(tmp_path, '# T\n\n{{ table("speedups") }}\n')
    assert '<figure class="ledger-figure ledger-table" id="table-speedups" ' in html  # then its data-* attributes
    assert "<p><figure" not in html


def test_an_unknown_reference_shows_as_missing(tmp_path):
    a_ledger(tmp_path)
    html = convert(tmp_path, 'Gone: {{ claim("gone") }}')
    assert '<span class="ledger-missing" title="unknown claim &#x27;gone&#x27;">' in html


def extension_build(root):
    """The ledger built by MkDocs with the plugin removed (another builder's config beside the ledger's
    mkdocs.yml, which keeps the policy and docs/): the extension plus `ledger pages`."""
    config = (root / "mkdocs.yml").read_text()
    config = config.replace("plugins: [search, ledger]", "plugins: [search]\ndocs_dir: built-docs")
    config = config.replace("markdown_extensions: [", "markdown_extensions: [generator.site.markdown_ext, ")
    config += "extra_css: [assets/ledger/ledger.css]\nextra_javascript: [assets/ledger/ledger.js]\n"
    write_tree(root, {"other-builder.yml": config})
    pages = run_ledger("pages", "built-docs", cwd=root)
    assert pages.exit_code == 0, pages.output + pages.errors
    built = run_mkdocs("build", "--strict", "-f", "other-builder.yml", cwd=root)
    assert built.exit_code == 0, built.errors
    return root / "site"


def test_the_extension_and_ledger_pages_build_the_same_values_and_pass_verify_site(built_site, tmp_path):
    a_ledger(tmp_path)
    site = extension_build(tmp_path)
    verified = run_ledger("verify-site", str(site), cwd=tmp_path)
    assert verified.exit_code == 0, verified.output
    for page in ("", "claims", "claim/moe-speedup-predicted-b16", "gate"):
        assert SHOWN.findall(article(site, page)) == SHOWN.findall(article(built_site, page)), page
    assert "The gate passes" in article(site, "gate")
    assert (site / "assets/ledger/charts/bandwidth-sweep.svg").is_file() and (site / "assets/ledger/vega.js").is_file()

    # One assembly: `ledger pages` ships what the plugin adds to a build, byte for byte.
    def assets(root: Path) -> list[str]:
        return sorted(p.relative_to(root).as_posix() for p in (root / "assets/ledger").rglob("*") if p.is_file())

    assert assets(site) == assets(built_site)
    assert [name for name in assets(site) if (site / name).read_bytes() != (built_site / name).read_bytes()] == []


def test_ledger_pages_never_overwrites_a_hand_written_page(tmp_path):
    a_ledger(tmp_path)
    write_tree(tmp_path, {"out/claims/index.md": "# mine\n"})
    result = run_ledger("pages", "out", cwd=tmp_path)
    assert result.exit_code == 2
    assert (
        "out/claims/index.md is in the way of a generated page and was not written by `ledger pages`" in result.errors
    )
    assert (tmp_path / "out/claims/index.md").read_text() == "# mine\n"


@pytest.mark.parametrize("fragment", ['<p>{{ claim("x") }}</p>', '<script>{"a": 1}</script>'])
def test_written_pages_hold_no_braces_outside_scripts(fragment):
    inert = export.inert(fragment)
    assert ("{" in inert) == fragment.startswith("<script>")


def test_the_extension_checks_again_when_code_under_the_policys_probes_dir_changes(tmp_path):
    from test_check_cache import TOOLS_CONFIG, ledger_with_probe_code_at

    ledger_with_probe_code_at(tmp_path, ["tools/toy.py"], TOOLS_CONFIG)
    assert markdown_ext.project(tmp_path).report.ok
    probe = tmp_path / "tools/toy.py"
    probe.write_text(probe.read_text() + "# changed\n")
    report = markdown_ext.project(tmp_path).report
    assert [f.rule for f in report.findings if f.severity == "fail"] == ["probe-changed"]


def test_the_extension_reads_the_policy_again_when_mkdocs_yml_or_a_file_it_inherits_changes(tmp_path):
    root = tmp_path / "p"
    assert run_ledger("init", str(root), cwd=tmp_path).exit_code == 0
    config = root / "mkdocs.yml"
    assert markdown_ext.project(root).report.policy.max_run_age_days == 365
    config.write_text(config.read_text().replace("max_run_age_days: 365", "max_run_age_days: 7", 1))
    assert markdown_ext.project(root).report.policy.max_run_age_days == 7
    # the same setting moved into a file mkdocs.yml inherits, then changed there alone
    text = config.read_text().replace("      max_run_age_days: 7", "      max_run_age_days: 30", 1)
    (root / "base.yml").write_text(text)
    config.write_text("INHERIT: base.yml\n")
    assert markdown_ext.project(root).report.policy.max_run_age_days == 30
    base = root / "base.yml"
    base.write_text(base.read_text().replace("max_run_age_days: 30", "max_run_age_days: 40", 1))
    assert markdown_ext.project(root).report.policy.max_run_age_days == 40
