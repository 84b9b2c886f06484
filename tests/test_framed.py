"""A page read in its frame (generator/verify/framed.py) is read as it is whole: the reader keeps the same
pieces, labels, claims, charts, tables and problems, on pages written by hand into frames whose outside
puts the page's own strings in every kind of place, and on every page of a real built site; and
verify-site reports the same problems both ways (LEDGER_VERIFY_FRAMES=off reads every page whole) on a
built site and on attacked copies: an edited title, an edited theme byte, a figure planted in the
header, footer or navigation of one page, a page whose outside differs, strings of each page's own in
places a frame cannot keep."""

from __future__ import annotations

import re
import shutil

import pytest
from helpers_site import verify_both_ways

from generator.prose import reader
from generator.verify import framed

BEGIN = '<span class="ledger-begin" hidden></span>'
STAMP = '<span class="ledger-stamp" data-ledger-gate="pass" hidden></span>'
PAGE = (
    "<!doctype html>\n<html><head><title>{t} - site</title>{head}</head>\n<body>\n"
    '<header><a href="#{i}" class="skip">Skip</a>\n  <div class="topic">\n    {t}\n  </div>{header}</header>\n'
    '<nav><ul><li><a href="../other/">Other 2</a></li></ul></nav>\n<main><article>\n\n'
    '{begin}<h1 id="{i}">{t}{permalink}</h1>\n<p>{body}</p><table><tr><td>{t}</td><td>1.5 GB</td></tr></table>{stamp}\n\n'
    "</article></main>\n<footer><p>Made with care{footer}</p></footer>\n</body></html>\n"
)
TITLES = [
    ("claim-001", "claim-001"), ("Run-2026T10Z", "run-2026t10z"), ("claim-002", "claim-002"), ("x.y_z", "x.y_z"),
    ("ledger-note", "ledger-note"), ("not", "not"),
]  # fmt: skip


def page(title: str, slug: str, **parts: str) -> str:
    values = {"head": "", "header": "", "footer": "", "body": "The value is 3.5 GB/s.", "begin": BEGIN, "stamp": STAMP}
    values["permalink"] = ""
    values.update(parts)
    return PAGE.format(t=title, i=slug, **{k: v.format(t=title, i=slug) for k, v in values.items()})


def kept(found: reader.PageReader) -> tuple:
    return (found.pieces, found.labels, found.claims, found.charts, found.tables, found.problems)


# (what the outside holds, whether a frame is kept for it)
OUTSIDES = [
    ({}, True),
    ({"permalink": '<a class="headerlink" href="#{i}" title="Permanent link">&para;</a>'}, True),
    ({"head": '<meta property="og:title" content="{t}"><meta name="description" content="{t} 5 GB">'}, True),
    ({"header": '<span title="{t} is 2 ms" aria-label="{t}">{t}</span>'}, True),
    ({"header": '<span class="ledger-label">{t} 7 GB</span>'}, True),
    ({"footer": " in 4 ms for {t}"}, True),
    ({"header": '<span class="x-{t}">9 GB</span>'}, False),  # a class: read for what it says
    ({"header": "<{i}-tag>8 GB</{i}-tag>"}, False),  # a tag's name
    ({"header": "<script>var t = '{t} 6 GB';</script>"}, False),  # a script's strings
    ({"header": "<p>&amp{t} &{t} &#{t}</p>"}, False),  # an entity could run on into it
    ({"header": '<iframe srcdoc="<p>{t} 3 GB</p>"></iframe>'}, False),  # a document in an attribute
    ({"header": "<!-- {t} --><p>5 ms</p>"}, False),  # a comment
    ({"header": '<input type="text" value="{t} 2 GB">'}, False),  # a value read by its type
    ({"footer": '<a data-claim="{i}"><span class="ledger-value">5 GB</span></a>'}, False),  # a claim outside
    ({"footer": "<p>LEDGERFRAMEAX 5 GB</p>"}, False),  # a placeholder's text on the page: not split
]


@pytest.mark.parametrize(("parts", "frames"), OUTSIDES)
def test_a_page_in_its_frame_is_read_as_it_is_whole(parts, frames):
    reading = framed.Kept()
    for _ in range(3):
        for title, slug in TITLES:
            text = page(title, slug, **parts)
            assert kept(framed.read(text, reading, cells_apart=True)) == kept(reader.read(text, cells_apart=True)), (
                title
            )
    assert whole_frames(reading) == frames


def whole_frames(reading: framed.Kept) -> bool:
    """Whether a frame is kept both before and after the content."""
    return any(f is not None and any(a is not None for a in f.after.values()) for f in reading.frames.values())


@pytest.mark.parametrize(
    "parts",
    [
        {"body": '<span class="ledger-label">3 GB'},  # content that ends inside a label
        {"body": "<pre><code>5 GB"},  # ... inside code
        {"body": "<div>3 GB"},  # ... with an element left open
        {"stamp": '<span class="ledger-stamp" data-ledger-gate="pass">x</span>'},  # a stamp that is not one
        {"begin": BEGIN + BEGIN},  # two content marks
        {"footer": STAMP},  # two stamps
        {"body": "<script>var s = '"},  # a script left open across the stamp
        {"body": "&amp"},  # text cut at an entity
    ],
)
def test_a_page_whose_content_leaves_the_reader_elsewhere_is_still_read_as_it_is_whole(parts):
    reading = framed.Kept()
    for _ in range(3):
        for title, slug in TITLES:
            text = page(title, slug, **parts)
            assert kept(framed.read(text, reading, cells_apart=True)) == kept(reader.read(text, cells_apart=True)), (
                title
            )


@pytest.mark.site
def test_every_page_of_a_built_site_is_read_in_its_frame_as_it_is_whole(built_site):
    pages = sorted(built_site.rglob("*.html"))
    reading = framed.Kept()
    assert sum(framed.split_page(p.read_text(encoding="utf-8"), framed.Kept()) is not None for p in pages) > 10
    for _ in range(2):
        for path in pages:
            text = path.read_text(encoding="utf-8")
            assert kept(framed.read(text, reading, cells_apart=True)) == kept(reader.read(text, cells_apart=True)), path
    assert whole_frames(reading)


def claim_pages(site) -> list:
    return sorted((site / "claim").glob("*/index.html"))


def edit(path, old: str, new: str, count: int = 1) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, (path, old)
    path.write_text(text.replace(old, new, count), encoding="utf-8")


def title_of(path) -> str:
    return re.search(r'<h1 id="[^"]*">([^<]*)</h1>', path.read_text(encoding="utf-8")).group(1)


ATTACKS = {
    "a figure in one page's title": lambda pages: edit(pages[2], " - site test</title>", " 9.9 GB/s - site test</title>"),
    "another page's title": lambda pages: edit(pages[2], f"<title>{title_of(pages[2])}", f"<title>{title_of(pages[3])}"),
    "an edited theme byte in one page's header": lambda pages: edit(pages[2], 'aria-label="Header"', 'aria-label="Header 5 GB"'),
    "a figure in one page's footer": lambda pages: edit(pages[1], "Made with", "Made in 12 ms with"),
    "a figure in one page's navigation": lambda pages: edit(pages[3], 'md-nav__link">', 'md-nav__link">3.5× ', 3),
    "a page whose outside differs": lambda pages: edit(pages[2], "</article>", "</article><p>7 ms</p>"),
    "each page's own title in a label": lambda pages: [
        edit(p, "</header>", f'<span class="ledger-label">{title_of(p)} 7 GB</span></header>') for p in pages
    ],
    "each page's own title in a class": lambda pages: [
        edit(p, "</header>", f'<span class="a-{title_of(p)}">{title_of(p)} 7 GB</span></header>') for p in pages
    ],
}  # fmt: skip


@pytest.mark.site
@pytest.mark.parametrize("attack", sorted(ATTACKS))
def test_verify_site_reports_the_same_problems_read_in_frames_and_whole(built_site, tmp_path, attack):
    shutil.copytree(built_site.parent, tmp_path / "ledger", ignore=shutil.ignore_patterns(".cache"))
    site = tmp_path / "ledger" / "site"
    pages = claim_pages(site)
    assert len(pages) >= 4
    ATTACKS[attack](pages)
    output = verify_both_ways(site)
    assert attack == "another page's title" or "problem" in output, output


@pytest.mark.site
def test_verify_site_passes_a_built_site_read_in_frames_and_whole(built_site):
    assert "pages verified" in verify_both_ways(built_site)
