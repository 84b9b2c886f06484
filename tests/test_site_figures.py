"""The figures verify-site finds in a page's text (sitepage.text_figures: the text read in parts, each
distinct part once) are the ones numbers.figures finds in each table cell's stretch of it, at the same
places: on texts where a figure, a number in words, a magnitude or a ratio sign runs on across white
space, where invisible or folded characters make a word, and where bidirectional controls reorder it."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from generator.prose import numbers, reader
from generator.verify import sitepage, sitetext

PAD = "\n      \n    " * 3  # the theme's indentation between two texts
FILL = f"Search{PAD}" * 20  # (a text is read in parts from 512 characters)
TEXTS = [
    f"Search{PAD}3{PAD}GB{PAD}Claims",
    f"Search{PAD}three{PAD}times{PAD}faster",
    f"x{PAD}twenty-one{PAD}ms{PAD}and 2 x{PAD}3{PAD}and 2 ×{PAD}3",
    f"1.2 million{PAD}rows, 4.5bn{PAD}$, 3k{PAD}req/s, 3 K{PAD}GB, 7 thousand{PAD}tokens",
    f"$ {PAD}12 and 12 €{PAD}per token and 3 %{PAD}per run, 5 GB/{PAD}s, 3.{PAD}GB, 3,{PAD}ms",
    f"twen\u200bty{PAD}percent, ſeven{PAD}ms, 3\u200b{PAD}GB, 3 G\u200bB{PAD}x, ½{PAD}GB, ３{PAD}ms",
    f"TWENTY{PAD}PERCENT, Twice{PAD}as fast, tenfold{PAD}more, a{PAD}million{PAD}rows",
    f"\u202eBG 5{PAD}\u202c and 4{PAD}ms",
    f"nothing: words{PAD}(and){PAD}signs;{PAD}here{PAD}" * 40 + f"9{PAD}GB",
    f"{reader.CELL}".join(f"cell {n}{PAD}GB{PAD}x{PAD}{n}" for n in range(40)),
    f"{reader.CELL}".join(("1.5", " -3,000.25 ", "+4", "5e3", "2E-3", "1.5\n", "7", "%", "GB", "3", "x 2", "..")),
]


def stretch_figures(text: str) -> list[tuple]:
    found, at = [], 0
    for stretch in text.split(reader.CELL):
        found += [(f.start + at, f.end + at, f.text, f.unit, f.seen) for f in numbers.figures(stretch)]
        at += len(stretch) + len(reader.CELL)
    return found


def located(text: str) -> list[tuple]:
    """sitepage.text_figures(text) as numbers.figures gives them: each figure at its place in the text."""
    return [(at, at + f.end - f.start, f.text, f.unit, f.seen) for at, f in sitepage.text_figures(text)]


@pytest.mark.parametrize("text", [FILL + text + FILL for text in TEXTS])
def test_the_figures_of_a_text_read_in_parts_are_those_of_it_read_whole(text):
    for _ in range(2):  # (the second time, every part from the cache)
        found = located(text)
        assert found == stretch_figures(text)


def fine_figures(text: str) -> list[tuple]:
    """The figures of a frame's text read in its fine parts (sitepage.text_parts(..., fixed=True): cut at every
    run of two spaces or more that ends nothing), each part alone."""
    found, at = [], 0
    for stretch in text.split(reader.CELL):
        for start, part in sitepage.text_parts(stretch, fixed=True):
            found += [(f.start + at + start, f.end + at + start, f.text, f.unit, f.seen) for f in numbers.figures(part)]
        at += len(stretch) + len(reader.CELL)
    return found


@pytest.mark.parametrize("pad", [PAD, "  ", "\n\n", " \n", "\t\n  "])
@pytest.mark.parametrize("text", TEXTS)
def test_the_figures_of_a_text_read_in_its_fine_parts_are_those_of_it_read_whole(text, pad):
    spaced = text.replace(PAD, pad)
    assert fine_figures(spaced) == stretch_figures(spaced)


WORDS = ["3", "1.5", "$", "-", "x", "×", "%", "GB", "ms", "million", "three", "twice", "as", "per", "k", "B", "(", ".",
         ",", ":", "Search", "claims", "ſ", "\u200b", "\u202e", "twenty", "fold", "a"]  # fmt: skip
GAPS = [" ", "  ", "\n\n", " \n ", "\t", "", "-"]


@settings(max_examples=800, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(WORDS), st.sampled_from(GAPS)), max_size=12))
def test_the_fine_parts_of_any_text_read_as_it_reads_whole(words):
    text = "".join(word + gap for word, gap in words)
    assert fine_figures(text) == stretch_figures(text)


def test_a_long_text_of_the_themes_parts_into_many():
    assert len(sitepage.text_parts(f"Search{PAD}Claims{PAD}(Gate){PAD}" * 20)) > 40
    assert len(sitepage.text_parts(f"3{PAD}twenty{PAD}x{PAD}ſ{PAD}a\u200bb{PAD}" * 20)) == 1


def test_no_unit_is_spelled_with_two_spaces_running():
    assert not [spelling for spelling in numbers.vocabulary().spellings if "  " in spelling]


@pytest.mark.site
def test_the_figures_of_every_page_of_a_built_site_read_in_parts_are_those_read_whole(built_site):
    for path in sorted(built_site.rglob("*.html")):
        read = reader.read(path.read_text(encoding="utf-8"), cells_apart=True)
        for pieces in (read.pieces, read.labels):
            text = "".join(piece.text for piece in pieces)
            assert located(text) == stretch_figures(text), path


def test_a_count_of_claims_is_found_alone_as_the_whole_set_of_counts_holds_it():
    """Shown answers "N claims" without making every count (sitetext.a_count): the same answer as the set
    of every count's figures, for every count a 12,000-claim ledger may give and texts near them."""
    claims = 12_000
    counts = sitetext.figures_of(sitetext.count_texts(claims))
    asked = {*sitetext.count_texts(claims), "0 claims", f"{claims} claims", f"{claims:,} claims", "01 claims"}
    asked |= {"1,0 claims", "12,00 claims", "3 claim", "3  claims", "1,000claims", "٣ claims", "1.5 claims"}
    assert [text for text in asked if sitetext.a_count(text, claims) != (text in counts)] == []
    assert sum(sitetext.a_count(text, claims) for text in asked) == 2 * (claims - 1) - 999  # (n < 1000: one text)
