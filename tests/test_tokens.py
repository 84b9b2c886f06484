"""The fast tokenizer gives HTMLParser's events, token for token: on odd markup (where it hands the rest
of the page to HTMLParser) and on every page of a real built site (where it reads the whole page)."""

import re
from html.parser import HTMLParser

import pytest
from hypothesis import given
from hypothesis import strategies as st

from generator.prose import tokens
from generator.prose.reader import PageReader, css_attributes, mentions_attr


def recorder(base):
    class Recorder(base):
        def __init__(self):
            super().__init__(convert_charrefs=True)
            self.events = []

        def handle_starttag(self, tag, attrs):
            self.events.append(("start", tag, tuple(attrs), self.getpos()[0]))

        def handle_startendtag(self, tag, attrs):
            self.events.append(("startend", tag, tuple(attrs), self.getpos()[0]))

        def handle_endtag(self, tag):
            self.events.append(("end", tag, self.getpos()[0]))

        def handle_data(self, data):
            self.events.append(("data", data, self.getpos()[0]))

        def handle_comment(self, data):
            self.events.append(("comment", data, self.getpos()[0]))

        def handle_decl(self, data):
            self.events.append(("decl", data, self.getpos()[0]))

    return Recorder


STDLIB, FAST = recorder(HTMLParser), recorder(tokens.FastParser)


def events(parser, text: str) -> list:
    reader = parser()
    reader.feed(text)
    reader.close()
    return reader.events


ODD = [
    '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>T &amp; 9 GB/s</title></head>',
    '<p class="a" hidden data-x=\'1 &lt; 2\' id=plain>text &#x35; GB</p>\n<br/><img src="x.png" alt="5 ms"/>',
    "<a href=x/>bare value with a slash</a>",
    '<a title="a>b">a quoted angle</a><a title=\'x"y\'>',
    '<p title = "spaced">spaces around =</p><p title=="x">two</p><p a="1"b="2">glued</p>',
    "<p>a < b and a <3 and <> and </ p> and </>",
    "<!-- a comment --><!-- a -- dash --><!--> abrupt --><!---> also --><!-- a --->x",
    "<!-- a <p>9 GB/s</p> inside --!> after",
    "<![CDATA[ 5 GB ]]><?xml version='1.0'?><!ELEMENT x>",
    "<script>if (a < b) { s = '</div>'; }</script><p>after</p><style>.x::after{content:'5 GB'}</style >",
    "<SCRIPT>var x = 1;</SCRIPT ><Style>p{}</STYLE>",
    "<script>never closed <p>9.9× faster</p>",
    "<textarea>5 GB</textarea><pre>\n7 ms\n</pre><svg viewBox='0 0 2 2'><text x=1>3×</text></svg>",
    '<div\tclass="tab"\nid="newline">lines\n\n</div>\n<p\x0bclass="vt">vertical tab</p>',
    "<p title='\u00a0x'>a non-ASCII space <b\u00a0class=x>inside a tag</b>",
    '<a href=\'#\' onclick="go()" data-claim="c"><span class="ledger-value">3.5×</span></a>',
    "text &amp unterminated &#12 entity and &",
    "<br/ ><p / ><input disabled=>",
    "<p>the end <b",
]


@pytest.mark.parametrize("text", ODD)
def test_odd_markup_gives_htmlparsers_events(text):
    assert events(FAST, text) == events(STDLIB, text)


@pytest.mark.parametrize("text", ODD)
def test_odd_markup_after_a_plain_page_gives_htmlparsers_events(text):
    page = '<!doctype html>\n<html><body class="x">\n<p>Plain <em>first</em>.</p>\n' + text + "\n</body></html>\n"
    assert events(FAST, page) == events(STDLIB, page)


def test_a_start_tag_is_read_as_htmlparser_reads_it():
    assert tokens.start_tag("<A HREF=\"x&amp;y\" Hidden data-n='3' b=c disabled/>") == (
        "a",
        [("href", "x&y"), ("hidden", None), ("data-n", "3"), ("b", "c"), ("disabled", None)],
        True,
    )
    assert tokens.start_tag('<p title="">') == ("p", [("title", "")], False)
    assert tokens.start_tag("<a href=x/>") is None  # not plain (HTMLParser reads href="x/"): its loop reads it
    assert tokens.start_tag('<p a="1"b="2">') is None


@pytest.mark.site
def test_every_page_of_a_built_site_gives_htmlparsers_events_and_is_read_whole(built_site):
    pages = sorted(built_site.rglob("*.html"))
    assert len(pages) > 10
    for page in pages:
        text = page.read_text(encoding="utf-8")
        reader = FAST()
        reader.feed(text)
        assert len(reader.rawdata) < 200, f"{page}: handed to HTMLParser at {reader.rawdata[:80]!r}"
        reader.close()
        assert reader.events == events(STDLIB, text), page


def read_both_ways(text: str) -> tuple:
    """What the page reader keeps of a text, with its shortcuts (hidden code bodies passed over, plain
    elements on a short path) and with every token read through every rule."""
    kept = []
    for shortcuts in (True, False):
        reader = PageReader(css_attributes(text), cells_apart=True)
        reader.shortcuts = shortcuts
        reader.feed(text)
        reader.close()
        kept.append((reader.pieces, reader.labels, reader.claims, reader.charts, reader.tables, reader.problems))
    return tuple(kept)


CODE_BODIES = [
    '<pre><span></span><code><span class="n">x</span> = <span class="mi">5</span> GB\n</code></pre><p>7 ms</p>',
    '<pre><code><span class="ledger-begin" hidden></span>5 GB</code></pre><p>after 7 ms</p>',
    '<pre><code><span class="n">a</span></div><p>9 GB/s out of the block</p>',
    '<div><pre><code><span class="n">a</span></div><p>9 GB/s after the div closed it</p>',
    '<pre><code><span class="n">a</span><a data-claim="c"><span class="ledger-value">5×</span></a></code></pre>',
    '<pre><code><span class="arithmatex">x</span><script>var s = "</code>"; 5 GB</script></code></pre><p>3 ms</p>',
    '<pre><code><span class="n">&#108;edger</span><span class="&#108;edger-label">5 GB</span></code></pre>',
    '<pre><code><span class="n">a</span><!-- </code> --><span>b</span></code></pre><p>1 GB</p>',
    "<p><code>inline 5 GB</code> and 6 GB</p><pre><code><span class=n>bare</span></code></pre><p>2 ms</p>",
    '<pre><code><span class="n">never closed 5 GB',
    '<span class="ledger-begin" hidden></span><pre><code><span class="n">a</span>\n\n<span class="ledger-stamp"',
    '<span class="ledger-begin" hidden></span><pre><code><span class="ledger-stamp">s</span></code></pre><p>5 GB</p>',
    '<pre><code><figure class="ledger-table"><span class="ledger-label">t</span></figure></code></pre>',
    '<div><pre><code><span class="n">x</div><p>5 GB after the div closed the block</p>',
    '<div><pre><code><span class="n"><span class="o">x</span></div><p>5 GB</p>',
    '<table><tr><td>raw</td><td style="text-align: right" data-ledger-column="batch">1</td><th>5\nGB</th></tr></table>',
    '<table><tr><td></td><td>a &amp; 5 GB</td><td class="ledger-used">3 ms</td><td>7 <b>ms</b></td></tr></table>',
    '<figure class="ledger-table" id="table-t"><table><tr><th>x (GB)</th></tr><tr data-ledger-run="r">'
    '<td data-ledger-column="x">5</td></tr></table></figure>',
    '<table><tr><td title="9 GB">1</td><td style="content: \'5 GB\'">2</td></tr><tr><td>3</td></table>',
    '<p><span class="ledger-label"><table><tr><td>5 GB</td></tr></table></span></p>',
    '<table><tr><td>1</td><td><a class="ledger-run" href="../r/"><code>r\n1</code></a></td><td>5 GB</td></tr>'
    '<tr><td colspan="6">… 6 runs</td></tr><tr><td><code>x\ny</code></td><td>\n3 ms</td></tr></table><p>7 ms</p>',
    '<table><tr class="ledger-gap"><td colspan="2">… 2 runs</td></tr><tr><td>4 GB</td></tr></tr><tr><td>2</td></table>',
    '<table><tr><td data-ledger-column="a\nb">9 GB</td><td style="text-align: right">\n\n1 ms</td></tr></table>',
    "<style>td::after { content: attr(colspan) } a::before { content: attr(href) }</style><table><tr>"
    '<td colspan="3">2 GB</td><td><a class="ledger-run" href="5 GB"><code>r</code></a></td></tr></table>',
    '<table><tr><td><a class="ledger-run" href="x"><code>r</code></a><b>6 GB</b></td></tr><tr><td>1</td></tr></table>',
]


@pytest.mark.parametrize("text", CODE_BODIES)
def test_the_readers_shortcuts_leave_what_it_keeps_as_it_was(text):
    skipped, read = read_both_ways(text)
    assert skipped == read


@pytest.mark.site
def test_every_page_of_a_built_site_is_kept_alike_with_the_readers_shortcuts(built_site):
    pages = sorted(built_site.rglob("*.html"))
    assert any("highlight" in page.read_text(encoding="utf-8") for page in pages)  # code blocks were passed over
    for page in pages:
        skipped, read = read_both_ways(page.read_text(encoding="utf-8"))
        assert skipped == read, page


@given(
    st.lists(st.sampled_from(["attr(", "ATTR(", "aTtR(", "at", "tr", "r(", "(", "A", "İ", "\u212a", " "])).map("".join)
)
def test_mentions_attr_finds_attr_in_any_letter_case_as_a_regular_expression_does(text):
    assert mentions_attr(text) == (re.search(r"attr\(", text, re.IGNORECASE) is not None)
    assert mentions_attr(text) or not css_attributes(text + "x)")  # every attribute found, found from a mention
