"""A run's stability: its settings' rounds and its machine record -> a Stability verdict, with each sign of
noise and where it was seen. Pure: no I/O, no clock; the standard library only.

A sign names its source: the machine (other processes, other virtual machines, heat) or the rounds
themselves (a program whose rounds vary while the machine was quiet is noisy on its own). The limits are
one table (LIMITS), each row with its default and its source:

- **load**: other processes took more than 10% of all cores' time while the probe ran (the machine record's
  `other_cpu_share`, from /proc/stat less the runner's own process tree: CPU time, not the load average,
  which is damped over a minute and counts waiting, not work). 10%: runs of `ledger init`'s example probe on
  this repository's 2-core machine, at moments no one else worked on it, read 1% and 2%;
  a tenth of a two-core machine is a fifth of a core kept from the probe.
- **steal**: the hypervisor gave more than 10% of all cores' time to other machines (`steal_share`).
- **thermal**: macOS reported its thermal state serious or critical, above fair (Apple's
  ProcessInfo.ThermalState: the system throttles the cores from serious on).
- **cv**: a setting's rounds have a coefficient of variation above 10% (pyperf's `check`: "the standard
  deviation is N% of the mean", from 10%).
- **extreme**: a setting's farthest round lies more than 1.5× from its median, either way (pyperf's `check`
  warns when the minimum or maximum is 50% from the mean; the ledger's value is the median).
- **outliers**: more than 10% of a setting's rounds, and two or more, lie outside Tukey's fences,
  Q1 − 1.5·IQR and Q3 + 1.5·IQR (Tukey, *Exploratory Data Analysis*, 1977; pyperf's `stats` and criterion.rs
  count outliers so), quartiles as `statistics.quantiles` takes them (Hyndman & Fan's type 6). Seeded,
  4,000 samples of quiet normal rounds each: 0% of 5-round samples, 1.3% of 7, 0.4% of 9, 3.8% of 15, 1.4% of
  20 and 0.25% of 50 show it (`tests/test_stability.py` holds these figures, each under 5%).

A setting's rounds are judged when it has at least MIN_ROUNDS of them, and a rounds' sign is the run's when
more than SETTINGS_SHARE of the settings judged show it (one setting's chance outliers among fifty are not
a run's noise; one of two is). The verdict is *unstable* when any sign is seen, *stable* when none is and
something was judged (a machine record or a setting's rounds), and not judged otherwise.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

MIN_ROUNDS = 5  # a setting with fewer rounds is not judged: quartiles of four values say little
SETTINGS_SHARE = 0.10  # a rounds' sign is the run's when more than this share of its judged settings show it
MIN_OUTSIDE = 2  # rounds outside Tukey's fences before a setting shows the outliers sign


@dataclass(frozen=True, slots=True)
class Limit:
    """One sign of noise: its name, its default limit, what it reads and where the limit comes from."""

    name: str
    default: float
    reads: str
    source: str
    machine: bool  # a sign of the machine (True) or of the rounds


LIMITS = (
    Limit("load", 0.10, "the share of all cores' time other processes took", "quiet runs here read 1-2%", True),
    Limit("steal", 0.10, "the share of all cores' time the hypervisor gave to other machines", "as `load`", True),
    Limit("thermal", 1.0, "macOS's thermal state: 0 nominal, 1 fair, 2 serious, 3 critical", "Apple's docs", True),
    Limit("cv", 0.10, "a setting's rounds' standard deviation over their mean", "pyperf check", False),
    Limit("extreme", 1.5, "a setting's farthest round from its median, as a ratio", "pyperf check (50%)", False),
    Limit("outliers", 0.10, "the share of a setting's rounds outside Tukey's fences", "Tukey 1977", False),
)
LIMIT = {limit.name: limit for limit in LIMITS}
THERMAL_LEVELS = {"nominal": 0, "fair": 1, "serious": 2, "critical": 3}  # macOS's NSProcessInfoThermalState

Rounds = tuple[str, tuple[float, ...]]  # (the setting and its column, in words; its rounds' values)


@dataclass(frozen=True, slots=True)
class Sign:
    """One sign of noise: its kind (a LIMITS name), the worst figure seen and its limit; for the rounds'
    signs, how many settings show it and which setting showed the worst."""

    kind: str
    value: float
    limit: float
    settings: int = 0
    where: str = ""


@dataclass(frozen=True, slots=True)
class Stability:
    """The verdict on one run's stability, decided once; displays word it (trust/verdicts.py)."""

    signs: tuple[Sign, ...] = ()
    settings: int = 0  # settings (one timed column each) whose rounds were judged
    rounds: str = ""  # why no setting's rounds were judged ("" when some were)
    recorded: bool = False  # the run carries a machine record (`ledger measure` made it)
    other_cpu_share: float | None = None  # the record's, when it could be read
    thermal_state: str = ""  # macOS's worst state while it ran, when reported

    @property
    def stable(self) -> bool | None:
        """True: no sign; False: a sign; None: nothing to judge (no record and no rounds)."""
        if self.signs:
            return False
        return True if self.recorded or self.settings else None

    @property
    def loaded(self) -> bool:
        """Whether the machine itself was busy (other processes or machines took its cores)."""
        return any(LIMIT[sign.kind].machine for sign in self.signs)


def judge(rounds: Sequence[Rounds], machine: Mapping[str, object] | None, no_rounds: str = "") -> Stability:
    """The run's verdict from its settings' rounds and its machine record (None: not recorded).
    no_rounds: why its rounds could not be read, when they could not."""
    judged = [(where, figures(values)) for where, values in rounds if len(values) >= MIN_ROUNDS]
    signs = [*_machine_signs(machine)] if machine is not None else []
    for kind in ("cv", "extreme", "outliers"):
        over = [(figure, where) for where, found in judged if (figure := found[kind] or 0.0) > LIMIT[kind].default]
        if over and len(over) > SETTINGS_SHARE * len(judged):
            worst = max(over, key=lambda pair: pair[0])
            signs.append(Sign(kind, worst[0], LIMIT[kind].default, len(over), worst[1]))
    why = no_rounds or ("" if judged else f"no setting has {MIN_ROUNDS} rounds or more" if rounds else "no rounds")
    other = machine.get("other_cpu_share") if machine is not None else None
    state = machine.get("thermal_state") if machine is not None else None
    return Stability(
        tuple(signs),
        len(judged),
        why,
        machine is not None,
        float(other) if isinstance(other, (int, float)) else None,
        state if isinstance(state, str) else "",
    )


def _machine_signs(machine: Mapping[str, object]) -> list[Sign]:
    found = []
    for kind, field in (("load", "other_cpu_share"), ("steal", "steal_share")):
        share = machine.get(field)
        if isinstance(share, (int, float)) and share > LIMIT[kind].default:
            found.append(Sign(kind, float(share), LIMIT[kind].default))
    level = THERMAL_LEVELS.get(str(machine.get("thermal_state")), 0)
    if level > LIMIT["thermal"].default:
        found.append(Sign("thermal", float(level), LIMIT["thermal"].default))
    return found


def figures(values: Sequence[float]) -> dict[str, float | None]:
    """A setting's figure for each rounds' sign (None: not computable from these values), from one sort:
    a check reads thousands of settings."""
    xs = sorted(values)
    n = len(xs)
    mean = math.fsum(xs) / n
    sd = math.sqrt(math.fsum([(x - mean) * (x - mean) for x in xs]) / (n - 1))
    middle = xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2
    q1, q3 = _quartile(xs, 0.25), _quartile(xs, 0.75)
    low, high = q1 - 1.5 * (q3 - q1), q3 + 1.5 * (q3 - q1)
    outside = len(xs) - bisect.bisect_right(xs, high) + bisect.bisect_left(xs, low)  # sorted: the tails
    return {
        "cv": sd / abs(mean) if mean else None,
        "extreme": max(xs[-1] / middle, middle / xs[0]) if xs[0] > 0 else None,
        "outliers": outside / n if outside >= MIN_OUTSIDE else 0.0,
    }


def _quartile(xs: Sequence[float], p: float) -> float:
    """The p-quantile of sorted values by Hyndman & Fan's type 6, as statistics.quantiles' default takes it:
    position (n + 1)·p, interpolated between its neighbours, clamped to the ends."""
    position = (len(xs) + 1) * p
    below = math.floor(position)
    if below < 1:
        return xs[0]
    if below >= len(xs):
        return xs[-1]
    return xs[below - 1] + (position - below) * (xs[below] - xs[below - 1])
