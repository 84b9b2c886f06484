"""The word table: words a reader takes as a claim about a ratio -> the relations they imply. Pure data.

One row per word, with every spelling a page may use and the `asserts:` relations that say what it says,
as relations.py reads them (any one of them will do). A ratio is written either way round (3× faster,
or 0.6× the time), so a word of direction implies that the ratio is away from one on either side; a
word of no change implies that it is close to one. A new word is a row here; tests/test_word_table.py
generates its cases from this table.
"""

from __future__ import annotations

from dataclasses import dataclass

AWAY = ("> 1", "< 1")  # a change, one way or the other
NEAR = ("between 0.9 and 1.1",)  # no change worth a word: within ten percent of one


@dataclass(frozen=True, slots=True)
class Word:
    name: str  # as the table and the guide show it
    spellings: tuple[str, ...]  # lower case, as a page may write it: each is matched as whole words
    implies: tuple[str, ...]  # `asserts:` relations, any one of which says what the word says


WORD_TABLE = (
    # (not "speedup" or "slowdown": nouns that name the quantity, as in "a speedup of 0.8×", imply no direction)
    Word("faster", ("faster", "quicker", "speeds up"), AWAY),
    Word("slower", ("slower", "slows", "slows down"), AWAY),
    Word("more", ("more",), AWAY),
    Word("fewer", ("fewer", "less"), AWAY),
    Word("higher", ("higher", "larger", "greater"), AWAY),
    Word("lower", ("lower", "smaller"), AWAY),
    Word("gains", ("gain", "gains", "gained"), AWAY),
    Word("no gain", ("no gain", "no speedup", "no benefit"), NEAR),
    Word("buys nothing", ("buys nothing", "buy nothing", "bought nothing"), NEAR),
    Word("barely moves", ("barely moves", "barely move", "barely moved", "hardly moves"), NEAR),
    Word("flat", ("flat",), NEAR),
    Word("unchanged", ("unchanged", "no change", "stays the same", "stay the same"), NEAR),
    Word("close to", ("close to one", "close to 1", "near one", "about even"), NEAR),
    Word("nearly free", ("nearly free", "almost free", "costs nothing"), NEAR),
    Word("doubles", ("doubles", "doubled", "doubling"), ("between 1.5 and 2.5", "between 0.4 and 0.67")),
    Word("halves", ("halves", "halved", "halving"), ("between 0.4 and 0.67", "between 1.5 and 2.5")),
    Word("twice", ("twice",), ("between 1.5 and 2.5", "between 0.4 and 0.67")),
    Word("an order of magnitude", ("an order of magnitude", "orders of magnitude", "tenfold"), (">= 5", "<= 0.2")),
)
