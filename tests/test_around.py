"""A generated page read around the ledger's own fragments (verify/framed.read_around, verify/expected.py)
is judged as it is read whole: verify-site renders every claim page and index page again from its fresh
Report; where a built page's content is exactly those fragments in a skeleton, the skeleton is read once
for its form and the fragments not at all. Every claim page and index page of a built site is read so;
verify-site reports the same problems both ways (LEDGER_VERIFY_FRAMES=off reads every page whole) on the
site and on copies whose claim pages were attacked where a fragment meets its skeleton, each attacked
page stamped again as code inside the build could; and no figure reads across a fragment's edge where
the probe finds none (numbers.py, on random texts)."""

from __future__ import annotations

import re
import shutil
from datetime import datetime, timezone

import pytest
from helpers_site import verify_both_ways
from hypothesis import given, settings
from hypothesis import strategies as st

from generator.gate import check_project
from generator.inputs import project
from generator.prose import numbers, reader
from generator.trust import stamp
from generator.verify import framed, sitefiles, sitepage, sitetext
from generator.verify.expected import Rendered, claim_of


def test_claim_of_reads_a_claim_pages_path_either_way():
    assert claim_of("claim/moe-b16/index.html", True) == "moe-b16"
    assert claim_of("claim/moe-b16.html", False) == "moe-b16"
    assert [claim_of(name, True) for name in ("claim/x.html", "claim/x/y/index.html", "run/x/index.html")] == [
        None, None, None
    ]  # fmt: skip


@pytest.mark.site
def test_every_claim_page_and_index_of_a_built_site_passes_read_around_its_fragments(built_site):
    root = built_site.parent
    report = check_project(root, None, datetime.now(timezone.utc))
    ctx = sitetext.context(root, report, project.read(root).urls[0])
    found = sitefiles.documents(built_site)
    rendered, names, charts = Rendered(report, ctx.directory_urls), frozenset(found.pages), set()
    made = {name: rendered.fragments(name) for name in found.pages}
    passed = [
        name
        for name, fragments in made.items()
        if fragments is not None
        and sitepage.rendered_passes(name, found.text(name), fragments, names, ctx, found.css_attributes, charts)
    ]
    claims = [name for name in found.pages if name.startswith("claim/")]
    assert len(claims) >= 4 and set(claims) <= set(passed)
    assert {"claims/index.html", "gate/index.html", "measurements/index.html"} <= set(passed)
    assert not any(name.startswith(("run/", "code/", "report/")) for name in made if made[name] is not None)


def restamped(path, site) -> None:
    """The page's stamp made again for its edited content, as code inside the build could make it."""
    text = path.read_text(encoding="utf-8")
    (mark,) = stamp.read(text)
    name = path.relative_to(site).as_posix()
    start = text.index(stamp.BEGIN) + len(stamp.BEGIN)
    fresh = stamp.page_digest(name, text[start : mark.start])
    path.write_text(text.replace(mark.page, fresh), encoding="utf-8")


def edit_content(site, path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, (path, old)
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    restamped(path, site)


EVIDENCE = '<h2 id="evidence">'
ATTACKS = {
    "a figure in a heading": lambda site, p: edit_content(site, p, EVIDENCE, EVIDENCE + "5 GB "),
    "a unit right after a fragment": lambda site, p: edit_content(site, p, "\n" + EVIDENCE, "GB\n" + EVIDENCE),
    "a number right before a fragment": lambda site, p: edit_content(site, p, "</h1>\n", "</h1>\n16"),
    "a fragment inside a label": lambda site, p: edit_content(
        site, p, "</h1>\n", '</h1>\n<span class="ledger-label">'
    ),
    "a fragment inside code": lambda site, p: edit_content(site, p, "</h1>\n", "</h1>\n<code>"),
    "a fragment inside an attribute": lambda site, p: edit_content(site, p, "</h1>\n", '</h1>\n<p data-x="'),
    "an edited value": lambda site, p: edit_content(site, p, "</strong>", " 3 GB</strong>"),
    "a figure in the chart scripts": lambda site, p: edit_content(
        site, p, '<span class="ledger-stamp"', '<p>2 ms</p><span class="ledger-stamp"'
    ),
    "a skeleton between fragments": lambda site, p: edit_content(site, p, "\n" + EVIDENCE, "\n<p>4 GB/s</p>\n" + EVIDENCE),
}  # fmt: skip
REFUSED = {"a figure in a heading", "a fragment inside a label", "an edited value", "a figure in the chart scripts",
           "a skeleton between fragments"}  # fmt: skip


@pytest.mark.site
@pytest.mark.parametrize("attack", sorted(ATTACKS))
def test_verify_site_reports_the_same_problems_read_around_fragments_and_whole(built_site, tmp_path, attack):
    shutil.copytree(built_site.parent, tmp_path / "ledger", ignore=shutil.ignore_patterns(".cache"))
    site = tmp_path / "ledger" / "site"
    pages = sorted((site / "claim").glob("*/index.html"))
    for page in pages[1:3]:
        ATTACKS[attack](site, page)
    output = verify_both_ways(site)
    assert ("problem" in output) == (attack in REFUSED), output


# Texts a figure could be made of, or cut by: numbers, units, magnitudes, signs, words, spaces.
TOKENS = ["3", "1.5", "16", "$", "-", "x", "×", "%", "GB", "ms", "million", "three", "twice", "as", "per", "B",
          "run", "runs", "k", "claim-16", "Evidence", "(", ")", ".", ",", ":", "/", "\u200b", "\u202e", " ", "  ",
          "\n", "\t"]  # fmt: skip
texts = st.lists(st.sampled_from(TOKENS), max_size=8).map("".join)


@settings(max_examples=600, deadline=None)
@given(tail=texts, inside=texts, head=texts, before=st.sampled_from([" ", "\n", "  ", "\t\n"]))
def test_no_figure_reads_across_a_fragments_edge_where_the_probe_finds_none(tail, inside, head, before):
    """The skeleton's text before a fragment ends with white space, and after it begins with some; a
    fragment's block edges add a line break on each side. Where no figure of the text with a PROBE in
    the fragment's place touches the probe, every figure of the text with any fragment there is the
    skeleton's own or the fragment's own: reading them apart misses nothing a whole reading sees. (The
    whole reading may see fewer: a fragment ending in 'x' before a skeleton's number reads as '3 x 3', a
    product and no figure, where apart the fragment's '3 x' is a figure of its own.)"""
    tail, head = tail + before, before + head
    probed = tail + framed.PROBE + head
    touching = [
        (at, f)
        for at, f in sitepage.text_figures(probed)
        if at < len(tail) + len(framed.PROBE) and at + f.end - f.start > len(tail)
    ]
    if touching:
        return
    whole = tail + "\n" + inside + "\n" + head
    apart = [(at, f.text) for at, f in sitepage.text_figures(tail + reader.CELL + inside + reader.CELL + head)]
    shift = len(reader.CELL) - 1
    placed = {
        (
            at - (shift if at > len(tail) else 0) - (shift if at > len(tail) + len(inside) + len(reader.CELL) else 0),
            text,
        )
        for at, text in apart
    }
    assert {(at, f.text) for at, f in sitepage.text_figures(whole)} <= placed


def test_a_fragment_ending_in_x_before_a_number_is_read_apart_as_its_own_figure():
    """The case Hypothesis found: whole, '3 x' then ' 3' is a product and no figure; apart, the fragment's '3 x'."""
    assert [f.text for _, f in sitepage.text_figures(" \n3 x\n 3")] == []
    assert [f.text for _, f in sitepage.text_figures(" " + reader.CELL + "3 x" + reader.CELL + " 3")] == ["3 x"]


def test_the_probe_finds_a_number_before_a_fragment_and_a_unit_after_one():
    touches = lambda text: any(  # noqa: E731
        at < text.index(framed.PROBE) + len(framed.PROBE) and at + f.end - f.start > text.index(framed.PROBE)
        for at, f in sitepage.text_figures(text)
    )
    assert touches("claim 16 " + framed.PROBE + " Evidence")
    assert touches("Evidence " + framed.PROBE + " GB of data")
    assert touches("three " + framed.PROBE + " x")
    assert not touches("claim-16 " + framed.PROBE + " Evidence")
    assert not touches("Evidence\n" + framed.PROBE + "\nHistory")
    assert re.fullmatch(r"\nGB\n\x1e\n1\n", framed.PROBE) and numbers.figures("GB") == []


FRAGMENT = '<div class="ledger-facts"><p>1.5 GB</p></div>'
FRAMED_STAMP = '<span class="ledger-stamp" data-ledger-gate="pass" hidden></span>'


def around_page(title: str, header: str = "") -> str:
    """A page whose outside holds its title, and whose content is one fragment under its heading."""
    return (
        f"<!doctype html>\n<html><head><title>{title} - site</title></head>\n<body><header>{title}{header}"
        f'</header>\n<main>{stamp.BEGIN}<h1 id="{title}">{title}</h1>\n{FRAGMENT}\n{FRAMED_STAMP}</main></body></html>\n'
    )


@pytest.mark.parametrize(
    ("title", "header", "marked", "mentions"),
    [
        ("claim-1", "", False, False),
        ("claim-1", " (y)", False, False),
        ("ledger-code", "", True, False),  # the page's own title is a mark: only there, put back, is it seen
        ("x-ledger", "-missing", True, False),  # ... or completes one
        ("xattr", "(y)", False, True),  # ... or an attr( that a stylesheet's content: could show
        ("claim-2", " ledger-code", True, False),
    ],
)
def test_what_a_pages_outside_holds_is_seen_with_its_own_strings_put_back(title, header, marked, mentions):
    page = around_page(title, header)
    reading = framed.Kept()
    for _ in range(2):  # (the second time from what was kept)
        split = framed.split_page(page, reading, alone=True)
        assert split is not None and split.strings
        assert framed.outside_holds(split, reading, ("ledger-code", "ledger-missing")) == (mentions, marked)
    marks = ("ledger-code", "ledger-missing")
    found = framed.read_around(page, framed.Kept(), [FRAGMENT], cells_apart=True, marks=marks)
    assert found is not None and found.marked == marked
    whole = reader.read(page, cells_apart=True)
    assert "".join(p.text for p in whole.pieces).count("1.5 GB") == 1  # the fragment, read whole
    assert "1.5 GB" not in "".join(p.text for p in found.pieces())  # ... and not around it


# A hand-written page's banner: its list of findings, where it is the ledger's rendering from the fresh
# Report between the banner's title and its closing sentence, is not read (sitepage.without_banner_list).
BANNER_END = "</p></div></div><h1"
BANNER_ATTACKS = {
    "a figure after the banner": (BANNER_END, "</p></div></div><p>7.77 GB/s</p><h1"),
    "a unit right after the banner": (BANNER_END, "</p></div></div>GB<h1"),
    "a figure in the banner's list": ("</li></ul><p>The <a ", "</li><li>9.99× faster</li></ul><p>The <a "),
    "a figure for words of the list's length": ("<strong>unbound-number</strong>", "<strong>9.99 GB/s more</strong>"),
    "a figure between the list and its sentence": ("</ul><p>The <a ", "</ul><p>5 GB</p><p>The <a "),
    "a figure before the banner": (stamp.BEGIN, stamp.BEGIN + "<p>5 GB</p>"),
    "a number in the banner's title": ("gate warning on this page", "gate warning on this page 16"),
}
BANNER_REFUSED = {"a figure after the banner", "a figure in the banner's list", "a figure between the list and its sentence",
                  "a figure before the banner", "a figure for words of the list's length"}  # fmt: skip


@pytest.mark.site
def test_a_hand_written_pages_banner_list_is_not_read_where_it_is_the_ledgers(built_site):
    root = built_site.parent
    report = check_project(root, None, datetime.now(timezone.utc))
    ctx = sitetext.context(root, report, project.read(root).urls[0])
    text = (built_site / "index.html").read_text(encoding="utf-8")
    banner = Rendered(report, ctx.directory_urls).banner(ctx.handwritten["index.html"])
    assert banner is not None and banner[1].startswith("<ul><li>") and banner[0] + banner[1] in text
    assert sitepage.without_banner_list(text, banner) == text.replace(banner[0] + banner[1], banner[0] + "<ul></ul>")
    other = (banner[0], banner[1].replace("</li>", "</li><li>x</li>"))  # not the ledger's list: read as it is
    assert sitepage.without_banner_list(text, other) == text
    apart = text.replace("</ul><p>The <a ", "</ul><p>1</p><p>The <a ")  # the list not then the closing sentence
    assert sitepage.without_banner_list(apart, banner) == apart


@pytest.mark.site
@pytest.mark.parametrize("attack", sorted(BANNER_ATTACKS))
def test_verify_site_reports_the_same_problems_with_a_banners_list_unread_and_read(built_site, tmp_path, attack):
    shutil.copytree(built_site.parent, tmp_path / "ledger", ignore=shutil.ignore_patterns(".cache"))
    site = tmp_path / "ledger" / "site"
    edit_content(site, site / "index.html", *BANNER_ATTACKS[attack])
    output = verify_both_ways(site)
    assert ("problem" in output) == (attack in BANNER_REFUSED), output


# A page split as one split before (framed.split_as_before): compared with a remembered outside, its own
# string in each placeholder's place, from its text or its bytes; split_page's checks of its marks kept.
TITLES = st.sampled_from(["claim-1", "claim-22", "stamp", "begin", "LEDGERFRAMEAX", "x", "a.b_c-d"])
AROUND_TOKENS = st.lists(
    st.sampled_from(['<span class="ledger-', '"', " hidden></span>", "x", " ", "<", ">", "stamp", "begin", "-1"]),
    max_size=4,
).map("".join)


def framed_page(title: str, lead: str = "", tail: str = "") -> str:
    return (
        f"<!doctype html>\n<html><head><title>{title} - site</title></head>\n<body><header>{lead}{title}{tail}"
        f'</header>\n<main>{stamp.BEGIN}<h1 id="{title}">{title}</h1>\n{FRAGMENT}\n{FRAMED_STAMP}</main>'
        f"<footer>{lead}{title}{tail}</footer></body></html>\n"
    )


def split_afresh(page):
    """split_page as it splits a page no outside remembered matches."""
    return framed.split_page(page, framed.Kept())


def test_a_page_of_a_remembered_outside_is_split_by_comparing_it_from_its_text_or_its_bytes():
    reading = framed.Kept()
    assert framed.split_page(framed_page("claim-1"), reading) is not None  # remembered
    for page in (framed_page("claim-22"), framed_page("claim-22").encode()):
        fast = framed.split_as_before(page, reading)
        assert fast is not None and fast.strings == (("LEDGERFRAMEAX", "claim-22"),)
        assert framed.put_back(fast.before, fast.strings) == fast.outside
    assert framed.split_as_before(framed_page("claim-22").replace("site", "sitf"), reading) is None  # one byte apart
    assert framed.split_as_before(framed_page("claim-22"), framed.Kept()) is None  # remembered by one reading only


@settings(max_examples=400, deadline=None)
@given(first=TITLES, title=TITLES, lead=AROUND_TOKENS, tail=AROUND_TOKENS, bytes_=st.booleans())
def test_a_page_split_by_comparing_is_split_as_split_page_splits_it(first, title, lead, tail, bytes_):
    reading = framed.Kept()
    framed.split_page(framed_page(first, lead, tail), reading)
    page = framed_page(title, lead, tail)
    fast = framed.split_as_before(page.encode() if bytes_ else page, reading)
    slow = split_afresh(page)
    if fast is not None:
        assert slow is not None, page
        assert (fast.outside, fast.content, fast.rest, fast.strings) == (
            slow.outside,
            slow.content,
            slow.rest,
            slow.strings,
        )
        assert framed.put_back(fast.before, fast.strings) == fast.outside
        assert framed.put_back(fast.after, fast.strings) == fast.rest


@pytest.mark.site
def test_every_claim_page_of_a_built_site_splits_by_comparing_as_split_page_splits_it(built_site):
    pages = sorted((built_site / "claim").glob("*/index.html"))
    reading = framed.Kept()
    fast = 0
    for path in pages:
        data = path.read_bytes()
        slow = split_afresh(data.decode("utf-8"))
        found = framed.split_page(data, reading)
        assert slow is not None and found is not None
        assert (found.outside, found.content, found.rest, found.strings) == (
            slow.outside,
            slow.content,
            slow.rest,
            slow.strings,
        )
        fast += framed.split_as_before(data, reading) is not None
    assert fast == len(pages) >= 4


@pytest.mark.parametrize(
    ("first", "page"),
    [
        (framed_page("claim-1", '<span class="ledger-', '"'), framed_page("stamp", '<span class="ledger-', '"')),
        (
            framed_page("claim-1", '<span class="ledger-', '" hidden></span>'),
            framed_page("begin", '<span class="ledger-', '" hidden></span>'),
        ),
        (framed_page("claim-1"), framed_page("claim-2") + "<p>5 GB</p>"),  # more after the outside's rest
        (framed_page("claim-1"), framed_page("claim-2").replace(FRAGMENT, FRAGMENT + stamp.BEGIN)),
        (framed_page("claim-1"), framed_page("claim-2").replace(FRAGMENT, FRAGMENT + FRAMED_STAMP)),
    ],
    ids=["a stamp made with the string", "a BEGIN made with it", "more after", "two BEGINs", "two stamps"],
)
def test_a_page_that_is_not_its_remembered_outside_as_split_page_reads_it_is_not_split_by_comparing(first, page):
    reading = framed.Kept()
    assert framed.split_page(first, reading) is not None
    assert framed.split_as_before(page, reading) is None and framed.split_as_before(page.encode(), reading) is None
    slow = split_afresh(page)
    assert slow is None or framed.put_back(slow.after, slow.strings) == slow.rest != reading.templates[0][5]


ENDS = st.lists(st.sampled_from([" ", "\n", "\t", "\r", "\x0c", "\x0b"]), max_size=5).map("".join)


@settings(max_examples=3000, deadline=None)
@given(text=texts, before=ENDS, after=ENDS)
def test_a_texts_figures_are_the_same_without_the_white_space_it_begins_and_ends_with(text, before, after):
    """What sitepage.trimmed relies on: a form's part scanned for each page may lose the white space at its
    ends (but where a bidirectional control reorders a line up to its end: there it is kept)."""
    core = text.strip(framed.ASCII_SPACES)
    part, probes = sitepage.trimmed(before + core + after, ((0, len(before) + len(core) + len(after)),))
    found = [(at, f.text, f.end - f.start) for at, f in sitepage.text_figures(part)]
    shift = len(before) if part == core else 0
    assert found == [(at - shift, f.text, f.end - f.start) for at, f in sitepage.text_figures(before + core + after)]
    assert probes == ((0, len(part)),)
