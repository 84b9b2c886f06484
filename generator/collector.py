"""How `ledger`'s verbs set Python's garbage collector: off for as long as a verb runs, then as it was.

A verb is one short process that allocates millions of short-lived objects (a report's records, each page's
pieces) and few cycles: what cycles it leaves, a few thousand objects, its exit frees, while collecting
would cost every verb a share of its time even at a raised young threshold (benchmarks/verify_time.py
--gc-default prints that share for verify-site under Python's own thresholds).
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def off() -> Iterator[None]:
    """The collector disabled, then enabled again if it was (a verb called in a process that goes on)."""
    was_on = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_on:
            _promote_survivors()
            gc.enable()


def _promote_survivors() -> None:
    """Move every tracked object to the oldest generation without walking it. With the collector off, all that
    the verb made and kept sits in the youngest generation, and its allocation count is far past the young
    threshold: the first allocation after enable() would collect that generation, walking every object the
    verb kept (13 ms after a 10,002-claim `ledger check`) for the few cycles a later full collection frees
    anyway. freeze() then unfreeze() is that move: permanent, then back into the oldest generation."""
    if gc.get_freeze_count():  # someone froze objects on purpose (before a fork): unfreeze() would free theirs too
        return
    gc.freeze()
    gc.unfreeze()
