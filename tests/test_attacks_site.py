"""verify-site reads everything a reader gets (issue 29, class 5): every file a browser would render as
a document, by name in any letter case or by its content; no link in the site; each page's stamp bound
to that page's path and content; no hand-written HTML page in the docs folder. Each attack is made on a
copy of a real built site (or a real project) and checked with the real CLI."""

import os
import re
import shutil

import pytest
from helpers import run_ledger, write_tree
from helpers_site import a_ledger

pytestmark = pytest.mark.site

UNSTAMPED = "<!doctype html><html><head><title>Notes</title></head><body><p>B=16 is 9.9× faster.</p></body></html>\n"


def copy_of(site, tmp_path):
    shutil.copytree(site.parent, tmp_path / "ledger", ignore=shutil.ignore_patterns(".cache"))
    return tmp_path / "ledger" / "site"


def verify(site):
    return run_ledger("--root", str(site.parent), "verify-site", str(site), cwd=site.parent)


def refused(result, *words):
    assert result.exit_code == 1, result.output + result.errors
    assert "Traceback" not in result.errors
    for word in words:
        assert word in result.output, result.output


@pytest.mark.parametrize("name", ["notes.HTML", "notes.Htm", "deep/notes.xhtml", "notes.shtml"])
def test_a_page_named_in_another_case_or_extension_is_read(built_site, tmp_path, name):
    site = copy_of(built_site, tmp_path)
    write_tree(site, {name: UNSTAMPED})
    refused(verify(site), name)


def test_a_page_is_found_by_its_content_whatever_its_name(built_site, tmp_path):
    site = copy_of(built_site, tmp_path)
    write_tree(site, {"assets/notes.page": UNSTAMPED, "summary": "<!-- a report -->\n<p>9.9 GB/s</p>\n"})
    refused(verify(site), "assets/notes.page", "summary")


def test_a_link_in_the_site_is_refused(built_site, tmp_path):
    site = copy_of(built_site, tmp_path)
    outside = tmp_path / "elsewhere"
    write_tree(outside, {"page.html": UNSTAMPED})
    os.symlink(outside / "page.html", site / "extra.html")  # the Pages upload publishes what it points to
    os.symlink(outside, site / "more")
    refused(verify(site), "extra.html", "more")


def test_a_stamped_page_copied_to_another_path_is_refused(built_site, tmp_path):
    site = copy_of(built_site, tmp_path)
    shutil.copyfile(site / "claim/moe-speedup-b16/index.html", site / "claim/byte-ratio-b16/index.html")
    refused(verify(site), "claim/byte-ratio-b16/index.html")


def test_a_page_edited_after_it_was_rendered_is_refused_though_every_value_still_matches(built_site, tmp_path):
    site = copy_of(built_site, tmp_path)
    page = site / "index.html"
    text = page.read_text()
    assert "The speedup is" in text
    page.write_text(text.replace("The speedup is", "The slowdown is", 1))
    refused(verify(site), "index.html")


def test_a_stamped_page_with_its_stamp_moved_away_from_its_content_is_refused(built_site, tmp_path):
    site = copy_of(built_site, tmp_path)
    page = site / "claims/index.html"
    text = page.read_text()
    stamp = re.search(r'<span class="ledger-stamp"[^>]*></span>', text).group(0)
    page.write_text(text.replace(stamp, "", 1).replace("</body>", "<p>9.9× faster</p>" + stamp + "</body>", 1))
    refused(verify(site), "claims/index.html")


def test_a_hand_written_html_page_in_the_docs_folder_is_refused_by_the_gate(tmp_path):
    a_ledger(tmp_path)
    write_tree(tmp_path, {"docs/notes.html": UNSTAMPED, "docs/more/old.HTM": UNSTAMPED})
    result = run_ledger("check", cwd=tmp_path)
    assert result.exit_code == 1, result.output
    assert "docs/notes.html" in result.output and "docs/more/old.HTM" in result.output
    assert "Traceback" not in result.errors
