"""One ledger, three builders: MkDocs and ProperDocs with the plugin, Zensical through the Markdown extension
and `ledger pages`. The same values on every page, the same bytes from the two MkDocs, and every link of the
Zensical site resolving to a file of that site."""

import re
from html.parser import HTMLParser
from pathlib import Path
from posixpath import dirname, join, normpath

import pytest
from helpers import run_ledger, run_mkdocs
from helpers_site import a_ledger
from test_builders import builder, run
from test_markdown_ext import SHOWN, extension_build

from generator.site import markdown_ext
from generator.trust import stamp

pytestmark = pytest.mark.site

BUILDERS = ("mkdocs", "properdocs", "zensical")


@pytest.fixture(scope="module")
def sites(tmp_path_factory) -> dict[str, Path]:
    """The example ledger built once by each builder, from one project folder (one report)."""
    zensical, properdocs = builder("zensical"), builder("properdocs")
    root = tmp_path_factory.mktemp("three")
    a_ledger(root)
    extension_build(root)  # other-builder.yml (the extension, no plugin) and built-docs/ (`ledger pages`)
    (root / "zensical.yml").write_text((root / "other-builder.yml").read_text() + "site_dir: zensical-site\n")
    done = run([zensical, "build", "--clean", "-f", "zensical.yml"], root)
    assert done.returncode == 0, done.stdout + done.stderr
    built = run_mkdocs("build", "--strict", "--site-dir", "mkdocs-site", cwd=root)
    assert built.exit_code == 0, built.errors
    done = run([properdocs, "build", "--strict", "--site-dir", "properdocs-site"], root)
    assert done.returncode == 0, done.stderr
    return {name: root / f"{name}-site" for name in BUILDERS}


def pages(site: Path) -> list[str]:
    return sorted(p.relative_to(site).as_posix() for p in site.rglob("*.html"))


@pytest.mark.parametrize("name", BUILDERS)
def test_verify_site_passes_each_builders_site(sites, name):
    verified = run_ledger("verify-site", str(sites[name]), cwd=sites[name].parent)
    assert verified.exit_code == 0, verified.output
    assert f"{len(pages(sites['mkdocs']))} pages verified" in verified.output


def test_the_three_sites_show_the_same_value_for_every_claim_reference_on_every_page(sites):
    assert pages(sites["zensical"]) == pages(sites["properdocs"]) == pages(sites["mkdocs"])
    shown = 0
    for page in pages(sites["mkdocs"]):
        values = {name: sorted(SHOWN.findall((sites[name] / page).read_text())) for name in BUILDERS}
        assert values["properdocs"] == values["mkdocs"], page
        assert values["zensical"] == values["mkdocs"], page
        shown += len(values["mkdocs"])
    assert shown == 8  # the report's own references (helpers_site.REPORT), each shown once per site


GENERATOR = re.compile(rb'<meta name="generator" content="[^"]*">')


def test_mkdocs_and_properdocs_give_the_same_bytes_apart_from_the_generator_tag(sites):
    # (the stamps are the same bytes too: one report, and each page bound to the same path and content)
    mkdocs, properdocs = sites["mkdocs"], sites["properdocs"]
    files = sorted(p.relative_to(mkdocs).as_posix() for p in mkdocs.rglob("*") if p.is_file())
    assert files == sorted(p.relative_to(properdocs).as_posix() for p in properdocs.rglob("*") if p.is_file())
    differ = []
    for name in files:
        ours, theirs = (mkdocs / name).read_bytes(), (properdocs / name).read_bytes()
        if name.endswith(".html"):
            ours, theirs = (GENERATOR.sub(b"<generator>", page) for page in (ours, theirs))
        if ours != theirs:
            differ.append(name)
    assert differ == []


class Links(HTMLParser):
    def __init__(self):
        super().__init__()
        self.found: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.found += [value for name, value in attrs if name in ("href", "src") and value is not None]


def test_every_link_of_the_zensical_site_resolves_to_a_file_of_that_site(sites):
    site = sites["zensical"]
    followed, broken = 0, []
    for page in pages(site):
        parser = Links()
        parser.feed((site / page).read_text())
        for link in parser.found:
            if re.match(r"[a-zA-Z][a-zA-Z0-9+.-]*:|//|#|$", link):
                continue  # another site, or this page
            path = re.sub(r"[#?].*", "", link, flags=re.DOTALL)
            target = normpath(path.lstrip("/") if path.startswith("/") else join(dirname(page), path))
            followed += 1
            if target.startswith("..") or not (
                (site / target).is_file() or (site / target / "index.html").is_file() or target == "."
            ):
                broken.append(f"{page}: {link}")
    assert broken == []
    assert followed > 300  # navigation, claim, run, code and asset links on every page


def test_zensical_says_which_page_the_extension_renders_and_every_stamp_carries_it(sites):
    from zensical.extensions.context import ContextPreprocessor, Page

    # The interface is Zensical's own (0.0.73) and internal: the extension finds it by this name and reads these.
    assert ContextPreprocessor.name == "rendering_context"
    page = Page(url="claim/a/", path="claim/a.md")
    assert (page.url, page.path) == ("claim/a/", "claim/a.md")
    site = sites["zensical"]
    carried = 0
    for name in pages(site):
        marks = stamp.read((site / name).read_text())
        assert isinstance(marks, list), name
        assert [mark.path for mark in marks] == [name] * len(marks), name  # each part Zensical converts
        carried += len(marks)
    assert carried >= len(pages(site)) - 1  # the theme's 404 page is written by Zensical alone


@pytest.mark.parametrize(
    ("link", "handed", "written"),
    [
        ("../b/", "b/", "../b/"),  # from claim/a/ to claim/b/: Zensical puts the '../' back
        ("../../run/x/#data", "../run/x/#data", "../../run/x/#data"),
        ("./", "a/", "../a/"),  # the page itself: the same target, another text
        ("#evidence", "#evidence", "#evidence"),
        ("/claims/", "/claims/", "/claims/"),
        ("https://example.org/x/", "https://example.org/x/", "https://example.org/x/"),
    ],
)
def test_a_link_is_handed_to_zensical_so_that_it_writes_the_page_mkdocs_writes(link, handed, written):
    page = markdown_ext.Rendered("claim/a/", "claim/a/index.html", climbs=1)
    html = f'<a href="{link}">x</a>'
    assert markdown_ext.for_zensical(page, html) == (f'<a href="{handed}">x</a>', f'<a href="{written}">x</a>')


def test_a_link_to_a_markdown_file_is_left_to_zensical_and_the_page_is_not_bound_to_its_path():
    page = markdown_ext.Rendered("report/a/", "report/a/index.html", climbs=1)
    given, written = markdown_ext.for_zensical(page, '<a href="b.md#x">b</a> <a href="../c/">c</a>')
    assert given == '<a href="b.md#x">b</a> <a href="c/">c</a>' and written is None
