"""A code file's text is published once per version of it (issue 31): each run page links to the page
of each file its manifest hashes, and verify-site holds every such page to the repository's text.
Each attack is made on a copy of a real built site and checked with the real CLI; a page whose stamp
is computed again over the edit (as code inside the build could) is still refused."""

import re
import shutil

import pytest
from helpers import run_ledger
from helpers_site import article

from generator.trust.stamp import BEGIN, page_digest

pytestmark = pytest.mark.site

_LINK = re.compile(r'<a class="ledger-code-link" href="\.\./\.\./\.\./(code/[0-9a-f]{16})/">its text</a>')
_STAMP = re.compile(r'<span class="ledger-stamp"[^>]*data-ledger-path="([^"]*)" data-ledger-page="([0-9a-f]{64})"')


def copy_of(site, tmp_path):
    shutil.copytree(site.parent, tmp_path / "ledger", ignore=shutil.ignore_patterns(".cache"))
    return tmp_path / "ledger" / "site"


def verify(site):
    return run_ledger("--root", str(site.parent), "verify-site", str(site), cwd=site.parent)


def restamped(text: str) -> str:
    """The page with its stamp's page digest made again over its content, as the build would make it."""
    stamp = _STAMP.search(text)
    content = text[text.index(BEGIN) + len(BEGIN) : stamp.start()]
    return text[: stamp.start(2)] + page_digest(stamp.group(1), content) + text[stamp.end(2) :]


def probe_page(site) -> tuple[str, str]:
    """(the bandwidth run's page, the site path of its probe's code page)."""
    run = next((site / "run/bandwidth").iterdir()).name
    page = article(site, f"run/bandwidth/{run}")
    return page, _LINK.search(page.split("<code>probes/bandwidth.py</code>", 1)[1]).group(1)


def test_a_run_page_links_each_file_it_ran_to_the_one_page_of_its_text(built_site):
    page, code = probe_page(built_site)
    assert "stand-in probe" not in page and "unchanged since the run" in page
    assert "stand-in probe" in article(built_site, code)  # one click away
    assert 'class="highlight"' in article(built_site, code)
    pages = sorted(p.parent.name for p in (built_site / "code").glob("*/index.html"))
    assert len(pages) == len(set(pages)) >= 1


def test_published_code_edited_after_the_build_is_refused_though_its_stamp_is_made_again(built_site, tmp_path):
    site = copy_of(built_site, tmp_path)
    _, code = probe_page(site)
    page = site / code / "index.html"
    text = page.read_text()
    assert "stand-in probe" in text
    page.write_text(restamped(text.replace("stand-in probe", "stand-in probe (edited)", 1)))
    result = verify(site)
    assert result.exit_code == 1, result.output
    assert f"{code}/index.html:" in result.output
    assert "its text of probes/bandwidth.py is not the repository's: the published code was edited" in result.output
    assert "its content is not what the ledger stamped" not in result.output  # the stamp was made again


def test_a_line_added_to_published_code_is_refused(built_site, tmp_path):
    site = copy_of(built_site, tmp_path)
    _, code = probe_page(site)
    page = site / code / "index.html"
    text = page.read_text()
    added = text.replace(
        "</code></pre>",
        '<span class="n">speedup</span> <span class="o">=</span> <span class="mi">9</span>\n</code></pre>',
        1,
    )
    assert added != text
    page.write_text(restamped(added))
    assert "its text of probes/bandwidth.py is not the repository's" in verify(site).output


def test_a_code_page_shown_in_another_form_or_missing_is_refused(built_site, tmp_path):
    site = copy_of(built_site, tmp_path)
    _, code = probe_page(site)
    page = site / code / "index.html"
    text = page.read_text()
    unmarked = text.replace('<div class="ledger-code" data-ledger-code="probes/bandwidth.py">', "<div>", 1)
    page.write_text(restamped(unmarked))
    result = verify(site)
    assert result.exit_code == 1
    assert f"{code}/index.html: does not show probes/bandwidth.py, code of the runs whose pages link here" in (
        result.output
    )
    shutil.rmtree(site / code)
    result = verify(site)
    assert f"{code}/index.html: missing: the page of a version of probe code that run pages link to" in result.output


def test_code_the_ledger_never_ran_is_refused_where_it_is_shown(built_site, tmp_path):
    site = copy_of(built_site, tmp_path)
    page = site / "index.html"
    text = page.read_text()
    block = '<div class="ledger-code" data-ledger-code="probes/other.py"><div class="highlight"><pre><span></span>'
    page.write_text(
        restamped(text.replace("</article>", f"{block}<code>x = 1\n</code></pre></div></div></article>", 1))
    )
    assert "shows code 'probes/other.py', which no run of the ledger hashes" in verify(site).output
