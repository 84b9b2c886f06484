"""The machine record: what the operating system says while a probe runs -> the `machine` object of its run's
manifest. Standard library only (runs.py imports it, and probes import runs.py).

`ledger measure` samples the machine around each probe's process (Sampling): a reading before the probe
starts, then one a second, each written to a file the probe's process finds through LEDGER_MACHINE_RECORD.
The run writer (runs.write_run) takes one last reading when the run is written and keeps the summary of
all of them (summary()): the window is the probe's own, from its start to its run. Nothing here is hashed
into runs (the probes' code and generator/timing.py are), so it may change without making runs stale.

What each reading holds, where the system says it (Linux; a Mac gives the load and its thermal state):

- the CPU time every core spent busy, idle and stolen by the hypervisor since boot (/proc/stat);
- the CPU time of the runner's process tree: the runner and every process below it, the probe's included
  (/proc/PID/stat: a live process's own time, and its waited children's); what the machine spent busy
  beyond that, over the window, is **the CPU time other processes took**;
- the load average (os.getloadavg), the cores' frequencies and governor (/sys/devices/system/cpu/*/cpufreq,
  else /proc/cpuinfo's "cpu MHz"), the hottest thermal zone (/sys/class/thermal), and on a Mac the thermal
  state macOS reports (NSProcessInfo.thermalState). A value the system does not give is null: not readable.

Nothing about who runs it is read or kept: no user, host, command line or process name.
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path

ENV = "LEDGER_MACHINE_RECORD"  # names the file the runner keeps writing while the probe runs
EVERY_S = 1.0  # seconds between readings while a probe runs
SAMPLED_BY = "ledger measure"
THERMAL_STATES = ("nominal", "fair", "serious", "critical")  # macOS's NSProcessInfoThermalState, in order

# The record's fields, one row each: (name, JSON type, meaning). The manifest's shape check, the run page
# and guide/probes.md (a test holds them to it) read this table.
FIELDS: tuple[tuple[str, str, str], ...] = (
    ("sampled_by", "text", "what sampled the machine: ledger measure"),
    ("seconds", "number", "the window sampled: from the probe's start to its run being written (s)"),
    ("readings", "integer", "readings of the machine in that window, the first before the probe started"),
    ("cpus", "integer", "the cores the operating system counts"),
    ("load_1m_before", "number", "the 1-minute load average just before the probe started"),
    ("load_1m_during", "number", "the highest 1-minute load average while it ran (damped: it lags the load)"),
    ("other_cpu_share", "number", "the share of all cores' time that other processes took while it ran (0-1)"),
    ("probe_cpu_share", "number", "the share of all cores' time the probe's processes took (0-1)"),
    ("steal_share", "number", "the share of all cores' time the hypervisor gave to other machines (0-1)"),
    ("cpu_mhz_min", "number", "the lowest core frequency read while it ran (MHz)"),
    ("cpu_mhz_max", "number", "the highest core frequency read while it ran (MHz)"),
    ("governor", "text", "the cores' frequency governor(s), e.g. performance, powersave"),
    ("temperature_c_max", "number", "the hottest thermal zone's highest temperature while it ran (°C)"),
    ("temperature_zone", "text", "that zone's type, e.g. x86_pkg_temp"),
    ("thermal_state", "text", "macOS's worst thermal state while it ran: nominal, fair, serious or critical"),
)
NAMES = tuple(name for name, _, _ in FIELDS)
MAX_TEXT = 80  # a text field's characters: a governor's or a zone's name, not a sentence


def problems(record: object) -> list[str]:
    """What is wrong with a manifest's `machine` object (none when it is a record FIELDS describes)."""
    if not isinstance(record, dict):
        return ["`machine` is not an object"]
    found = [f"`machine` has no field {name!r}" for name in NAMES if name not in record]
    found += [
        f"`machine` has a field {str(name)[:40]!r} the record does not have" for name in record if name not in NAMES
    ]
    for name, kind, _ in FIELDS:
        value = record.get(name)
        if value is None or name not in record:
            continue
        if kind == "text":
            good = isinstance(value, str) and len(value) <= MAX_TEXT and value.isprintable()
        elif kind == "integer":
            good = isinstance(value, int) and not isinstance(value, bool) and value >= 0
        else:
            good = isinstance(value, (int, float)) and not isinstance(value, bool) and value >= 0
        if not good:
            what = f"text of at most {MAX_TEXT} printable characters" if kind == "text" else f"a {kind} >= 0"
            found.append(f"`machine.{name}` is {str(value)[:40]!r}, not {what} or null")
    return found


# -- readings ---------------------------------------------------------------------------------------------


def reading(runner: int) -> dict[str, object]:
    """One reading of the machine, as JSON-able values (None: not readable): runner is the pid whose process
    tree is ours (the runner's, the probe's below it)."""
    busy, total, steal = _cpu_times()
    tree, own = _tree_cpu(runner)
    mhz, governors = _frequencies()
    zone, celsius = _hottest_zone()
    return {
        "at": time.time(),
        "busy_s": busy,
        "total_s": total,
        "steal_s": steal,
        "tree_cpu_s": tree,  # the runner and every process below it
        "runner_cpu_s": own,  # the runner's own process (its waited children's time left out)
        "load_1m": _load(),
        "mhz": mhz,
        "governors": governors,
        "zone": zone,
        "celsius": celsius,
        "thermal_state": _thermal_state(),
        "cpus": _cpus(),
    }


def _ticks() -> float:
    try:
        return float(os.sysconf("SC_CLK_TCK"))
    except (ValueError, OSError, AttributeError):
        return 100.0


def _read(path: str) -> str | None:
    try:
        with open(path, encoding="ascii", errors="replace") as handle:
            return handle.read(1 << 16)
    except OSError:
        return None


def _cpu_times() -> tuple[float | None, float | None, float | None]:
    """(busy, total, steal) seconds of every core since boot, from /proc/stat's first line."""
    text = _read("/proc/stat")
    if not text or not text.startswith("cpu "):
        return None, None, None
    try:
        fields = [int(word) for word in text.split("\n", 1)[0].split()[1:9]]
    except ValueError:
        return None, None, None
    fields += [0] * (8 - len(fields))
    user, nice, system, idle, iowait, irq, softirq, steal = fields
    tick = _ticks()
    busy = user + nice + system + irq + softirq  # guest time is counted in user already
    return busy / tick, (busy + idle + iowait + steal) / tick, steal / tick


def _process_cpu(pid: int) -> tuple[float, float, list[int]] | None:
    """(own, own + waited children's) CPU seconds of a live process and its children's pids; None: gone."""
    text = _read(f"/proc/{pid}/stat")
    if not text or ")" not in text:
        return None
    fields = text.rsplit(")", 1)[1].split()
    try:
        utime, stime, cutime, cstime = (int(fields[index]) for index in (11, 12, 13, 14))
    except (ValueError, IndexError):
        return None
    tick = _ticks()
    return (utime + stime) / tick, (utime + stime + cutime + cstime) / tick, _children(pid)


def _children(pid: int) -> list[int]:
    """A process's children, from each of its threads' `children` file; where the kernel has none
    (CONFIG_PROC_CHILDREN off), from every process's parent in /proc/*/stat."""
    try:
        threads = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return []
    texts = [_read(f"/proc/{pid}/task/{thread}/children") for thread in threads]
    if texts and all(text is None for text in texts):
        return _children_by_parent(pid)
    return [int(word) for text in texts for word in (text or "").split() if word.isdigit()]


def _children_by_parent(pid: int) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        text = _read(f"/proc/{entry}/stat") if entry.isdigit() else None
        fields = text.rsplit(")", 1)[1].split() if text and ")" in text else []
        if len(fields) > 1 and fields[1] == str(pid):
            found.append(int(entry))
    return found


def _tree_cpu(root: int) -> tuple[float | None, float | None]:
    """(the whole tree's, the root's own) CPU seconds: each live process's own and its waited children's."""
    first = _process_cpu(root)
    if first is None:
        return None, None
    total, pending, seen = first[1], list(first[2]), {root}
    while pending:
        pid = pending.pop()
        if pid in seen:
            continue
        seen.add(pid)
        found = _process_cpu(pid)
        if found is not None:  # a child that ended meanwhile is in its parent's waited time, or lost (rare)
            total += found[1]
            pending += found[2]
    return total, first[0]


def _load() -> float | None:
    try:
        return os.getloadavg()[0]
    except (OSError, AttributeError):
        return None


def _cpus() -> int | None:
    text = _read("/proc/stat")
    if text:
        counted = sum(1 for line in text.splitlines() if line.startswith("cpu") and line[3:4].isdigit())
        if counted:
            return counted
    return os.cpu_count()


def _frequencies() -> tuple[list[float], list[str]]:
    """Every core's current frequency (MHz) and the governors in use, where the system gives them."""
    base = Path("/sys/devices/system/cpu")
    mhz: list[float] = []
    governors: set[str] = set()
    try:
        cores = sorted(path for path in base.glob("cpu[0-9]*") if (path / "cpufreq").is_dir())
    except OSError:
        cores = []
    for core in cores:
        khz = _read(str(core / "cpufreq" / "scaling_cur_freq"))
        if khz and khz.strip().isdigit():
            mhz.append(int(khz.strip()) / 1000)
        governor = _read(str(core / "cpufreq" / "scaling_governor"))
        if governor and governor.strip():
            governors.add(governor.strip()[:MAX_TEXT])
    if not mhz:
        for line in (_read("/proc/cpuinfo") or "").splitlines():
            if line.lower().startswith("cpu mhz"):
                try:
                    mhz.append(float(line.split(":", 1)[1]))
                except (ValueError, IndexError):
                    pass
    return mhz, sorted(governors)


def _hottest_zone() -> tuple[str | None, float | None]:
    """(type, °C) of the hottest thermal zone the system lists, or (None, None)."""
    best: tuple[str | None, float | None] = (None, None)
    try:
        zones = sorted(Path("/sys/class/thermal").glob("thermal_zone*"))
    except OSError:
        return best
    for zone in zones:
        millidegrees = (_read(str(zone / "temp")) or "").strip()
        if not millidegrees.lstrip("-").isdigit():
            continue
        celsius = int(millidegrees) / 1000
        if celsius > 0 and (best[1] is None or celsius > best[1]):
            kind = (_read(str(zone / "type")) or "").strip()[:MAX_TEXT]
            best = (kind if kind.isprintable() else "", celsius)
    return best


def _thermal_state() -> str | None:
    """macOS's thermal state (NSProcessInfo.thermalState) through the Objective-C runtime; None elsewhere."""
    if sys.platform != "darwin":
        return None
    try:
        import ctypes
        import ctypes.util

        objc = ctypes.cdll.LoadLibrary(ctypes.util.find_library("objc") or "libobjc.dylib")
        ctypes.cdll.LoadLibrary(ctypes.util.find_library("Foundation") or "Foundation.framework/Foundation")
        objc.objc_getClass.restype = ctypes.c_void_p
        objc.objc_getClass.argtypes = [ctypes.c_char_p]
        objc.sel_registerName.restype = ctypes.c_void_p
        objc.sel_registerName.argtypes = [ctypes.c_char_p]
        send = ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p)(("objc_msgSend", objc))
        info = send(objc.objc_getClass(b"NSProcessInfo"), objc.sel_registerName(b"processInfo"))
        state = ctypes.CFUNCTYPE(ctypes.c_long, ctypes.c_void_p, ctypes.c_void_p)(("objc_msgSend", objc))
        found = state(info, objc.sel_registerName(b"thermalState"))
    except (OSError, AttributeError, TypeError, ValueError):
        return None
    return THERMAL_STATES[found] if 0 <= found < len(THERMAL_STATES) else None


# -- the record --------------------------------------------------------------------------------------------


def summary(readings: Sequence[Mapping[str, object]]) -> dict[str, object]:
    """The manifest's `machine` record from the readings of one window, the first taken before the probe
    started (pure): every field of FIELDS, null where no reading could say."""
    first, last = readings[0], readings[-1]
    during = readings[1:] or readings
    total = _delta(first, last, "total_s")
    busy, tree, own, steal = (_delta(first, last, key) for key in ("busy_s", "tree_cpu_s", "runner_cpu_s", "steal_s"))
    share = lambda part: _share(part / total) if part is not None and total else None  # noqa: E731
    other = busy - tree if busy is not None and tree is not None else None
    probe = tree - own if tree is not None and own is not None else None
    loads = [x for x in (r.get("load_1m") for r in during) if isinstance(x, (int, float))]
    mhz = [x for r in during for x in _numbers(r.get("mhz"))]
    governors = sorted({g for r in during for g in _texts(r.get("governors"))})
    heat = [(float(c), r.get("zone")) for r in during if isinstance(c := r.get("celsius"), (int, float))]
    hottest = max(heat, key=lambda found: found[0]) if heat else (None, None)
    states = [s for s in (r.get("thermal_state") for r in during) if s in THERMAL_STATES]
    return {
        "sampled_by": SAMPLED_BY,
        "seconds": round(max(0.0, _number(last.get("at")) - _number(first.get("at"))), 3),
        "readings": len(readings),
        "cpus": last.get("cpus") if isinstance(last.get("cpus"), int) else None,
        "load_1m_before": _rounded(first.get("load_1m")),
        "load_1m_during": _rounded(max(loads)) if loads else None,
        "other_cpu_share": share(other),
        "probe_cpu_share": share(probe),
        "steal_share": share(steal),
        "cpu_mhz_min": _rounded(min(mhz)) if mhz else None,
        "cpu_mhz_max": _rounded(max(mhz)) if mhz else None,
        "governor": ", ".join(governors)[:MAX_TEXT] if governors else None,
        "temperature_c_max": _rounded(hottest[0]),
        "temperature_zone": hottest[1] if isinstance(hottest[1], str) and hottest[1] else None,
        "thermal_state": max(states, key=THERMAL_STATES.index) if states else None,
    }


def _delta(first: Mapping[str, object], last: Mapping[str, object], key: str) -> float | None:
    before, after = first.get(key), last.get(key)
    if not isinstance(before, (int, float)) or not isinstance(after, (int, float)):
        return None
    return float(after) - float(before)


def _share(value: float) -> float:
    return round(min(1.0, max(0.0, value)), 4)


def _rounded(value: object) -> float | None:
    return round(float(value), 2) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _number(value: object) -> float:
    return float(value) if isinstance(value, (int, float)) else 0.0


def _numbers(value: object) -> list[float]:
    return [float(x) for x in value if isinstance(x, (int, float))] if isinstance(value, list) else []


def _texts(value: object) -> list[str]:
    return [x for x in value if isinstance(x, str)] if isinstance(value, list) else []


# -- the runner's side and the writer's side ----------------------------------------------------------------


class Sampling:
    """Readings of the machine around a probe's process, kept in `path` (JSON: the runner's pid and every
    reading so far), one now and one every EVERY_S seconds until stop(); record() is their summary."""

    def __init__(self, path: Path, every_s: float = EVERY_S) -> None:
        self.path, self.every_s, self.runner = path, every_s, os.getpid()
        self.readings: list[dict[str, object]] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, name="ledger-machine", daemon=True)

    def start(self) -> Sampling:
        self._take()  # before the probe starts
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()

    def record(self) -> dict[str, object]:
        """The summary of the window so far, with one reading more taken now."""
        return summary([*self.readings, reading(self.runner)])

    def _sample(self) -> None:
        while not self._stop.wait(self.every_s):
            self._take()

    def _take(self) -> None:
        self.readings.append(reading(self.runner))
        temporary = self.path.with_name(self.path.name + ".new")
        temporary.write_text(json.dumps({"runner": self.runner, "readings": self.readings}), encoding="utf-8")
        os.replace(temporary, self.path)  # the probe's process reads a whole file, never half of one


@contextmanager
def sampled(path: Path) -> Iterator[Sampling]:
    """Sampling of the machine while the block runs; the file is removed after it."""
    sampling = Sampling(path).start()
    try:
        yield sampling
    finally:
        sampling.stop()
        for leftover in (path, path.with_name(path.name + ".new")):
            try:
                leftover.unlink()
            except OSError:
                pass


def from_environment() -> dict[str, object] | None:
    """The record of the window the runner is sampling (LEDGER_MACHINE_RECORD), closed by a reading now;
    None when no runner samples this process (a probe run by hand: its run says "not recorded")."""
    named = os.environ.get(ENV)
    if not named:
        return None
    try:
        found = json.loads(Path(named).read_text(encoding="utf-8"))
        runner, readings = found["runner"], found["readings"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if not isinstance(runner, int) or not isinstance(readings, list) or not readings:
        return None
    if not all(isinstance(item, dict) for item in readings):
        return None
    return summary([*readings, reading(runner)])
