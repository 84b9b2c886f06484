"""Memos of frozen records: a pure function of one record -> the same, remembered by the record's identity.

Imports nothing of the package, so any module may use it.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TypeVar

Made = TypeVar("Made")
Result = TypeVar("Result")


def by_identity(kept: int) -> Callable[[Callable[[Made], Result]], Callable[[Made], Result]]:
    """A pure function of one frozen record, remembered by the record's identity: a page asks it of the same
    record again (a claim's badges on its own page and beside every link to it). At most `kept` records at a
    time; each is held beside what was made of it, so an id is never another record's."""

    def remembering(make: Callable[[Made], Result]) -> Callable[[Made], Result]:
        made: dict[int, tuple[Made, Result]] = {}

        def remembered(record: Made) -> Result:
            found = made.get(id(record))
            if found is None or found[0] is not record:
                if len(made) >= kept:
                    made.clear()
                found = made[id(record)] = (record, make(record))
            return found[1]

        return functools.update_wrapper(remembered, make)

    return remembering
