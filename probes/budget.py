"""A whole-model probe's time: named phases with unix timestamps -> phases.csv, and the settings that fit what is left.

A whole-model probe runs in one device call of bounded length: it logs each phase (model build,
reference checks, first calls, timing, agreement) with its start time, so a GPU log can be read against
it, and it plans its timing from the time left: settings dropped in a stated order until their rounds
fit, and every setting's time cap set to what remains.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

T = TypeVar("T")


@dataclass
class Phases:
    """Phases of one probe run: name, start (unix s), seconds; each announced through `progress` as it ends."""

    progress: Callable[[str], None]
    rows: list[dict[str, object]] = field(default_factory=list)

    @contextlib.contextmanager
    def __call__(self, name: str) -> Iterator[None]:
        unix, began = time.time(), time.perf_counter()  # a run log, not a measurement: generator.timing times those
        self.progress(f"{name} ...")
        yield
        seconds = time.perf_counter() - began
        self.rows.append({"phase": name, "started": unix, "seconds": seconds})
        self.progress(f"{name}: {seconds:.1f} s")


def fit_settings(costs: Mapping[str, float], drop_order: Sequence[str], seconds: float,
                 rounds: int) -> tuple[list[str], list[str]]:
    """(kept, dropped): settings whose `rounds` rounds (cost: seconds per round each) fit in `seconds`.

    Settings are dropped in drop_order until the rest fit; a setting not in drop_order is never dropped
    (when those alone do not fit, they are kept and the time cap stops them). Pure.
    """
    kept, dropped = list(costs), []
    for name in drop_order:
        if sum(costs[k] for k in kept) * rounds <= seconds:
            break
        if name in kept:
            kept.remove(name)
            dropped.append(name)
    return kept, dropped


def attempt(failed: list[str], what: str, fn: Callable[..., T], *args: object, default: T) -> T:
    """fn(*args), or `default` with the failure recorded in `failed`: an optional part never costs the run.

    For the parts a run can do without (the step split, agreement, the tiny-width model, one context):
    on a GPU nobody has tried these shapes on, a backend error there should leave the timings standing.
    """
    try:
        return fn(*args)
    except Exception as error:  # noqa: BLE001 - recorded with its type, and the run goes on
        failed.append(f"{what}: {type(error).__name__}: {error}")
        return default
