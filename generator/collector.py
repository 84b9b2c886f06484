"""How `ledger`'s verbs set Python's garbage collector, for as long as a verb runs.

A verb allocates millions of short-lived objects (a report's records, each page's pieces) and few cycles,
so the collector's default (a young collection every 700 allocations) costs it a share of its time that
benchmarks/verify_time.py measures (its --gc-default runs Python's own threshold).
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

YOUNG = 50_000  # allocations between two young collections while a verb runs


@contextmanager
def young_threshold_raised() -> Iterator[None]:
    """The young collection's threshold at YOUNG, then put back as it was."""
    thresholds = gc.get_threshold()
    gc.set_threshold(YOUNG, *thresholds[1:])
    try:
        yield
    finally:
        gc.set_threshold(*thresholds)
