"""pytest-benchmark's export (`--benchmark-json=FILE`): each test's rounds, in seconds a call -> a Reading. Pure.

One entry per benchmark under `benchmarks`: `name` (the test with its parameters), `group`, `params` and
`stats`. `stats.data` holds every round's time divided by the round's `iterations` (seconds a call: the
unit of all its times; the file names none): `--benchmark-json` writes it always, a saved run
(`--benchmark-save`, `--benchmark-autosave`) only with `--benchmark-save-data`. Without it the run's row
holds pytest-benchmark's median, mean and standard deviation over `rounds`, with no rounds and no
min–max, so a claim on it has no interval and cannot carry `asserts:`.
`machine_info` gives the environment, less the host name (`node`); `commit_info` stays in the export.
"""

from __future__ import annotations

from datetime import datetime, timezone

from .reading import Benchmark, Reading, count, fail, key_value, listed, member, number, text

UNIT = "s"
SUMMARY = {"time": "median", "time_mean": "mean", "time_stddev": "stddev"}  # run column -> stats field


def recognizes(data: object) -> bool:
    return isinstance(data, dict) and isinstance(data.get("benchmarks"), list) and "machine_info" in data


def read(data: object) -> Reading:
    entries = listed(member(data, "benchmarks", ""), "benchmarks")
    grouped = any(isinstance(entry, dict) and entry.get("group") is not None for entry in entries)
    benchmarks = [_benchmark(entry, f"benchmarks[{index}]", grouped) for index, entry in enumerate(entries)]
    version = data.get("version") if isinstance(data, dict) else None
    environment = {
        **_machine(member(data, "machine_info", "")),
        "tool": f"pytest-benchmark {version}" if isinstance(version, str) else "pytest-benchmark",
    }
    return Reading(tuple(benchmarks), {name: UNIT for name in SUMMARY}, environment, _stamp(data))


def _benchmark(entry: object, where: str, grouped: bool) -> Benchmark:
    name = text(member(entry, "name", where), f"{where}.name")
    keys: list[tuple[str, object]] = [("name", name)]
    if grouped:
        group = entry.get("group") if isinstance(entry, dict) else None
        keys.append(("group", "" if group is None else key_value(group, f"{where}.group")))
    params = entry.get("params") if isinstance(entry, dict) else None
    for param, value in (params or {}).items() if isinstance(params, dict) else ():
        keys.append((str(param), key_value(value, f"{where}.params.{param}")))
    stats = member(entry, "stats", where)
    rounds = count(member(stats, "rounds", f"{where}.stats"), f"{where}.stats.rounds")
    iterations = count(member(stats, "iterations", f"{where}.stats"), f"{where}.stats.iterations")
    data = stats.get("data") if isinstance(stats, dict) else None
    if data is None:  # a run pytest-benchmark saved without --benchmark-save-data: statistics only
        summary = {
            column: number(member(stats, field, f"{where}.stats"), f"{where}.stats.{field}")
            for column, field in SUMMARY.items()
        }
        return Benchmark(tuple(keys), summary={**summary, "reps": iterations}, summary_rounds=rounds, where=where)
    times = listed(data, f"{where}.stats.data")
    if len(times) != rounds:
        fail(
            f"{where}.stats.data",
            f"holds {len(times)} rounds, stats.rounds says {rounds}: a truncated or edited export",
        )
    found = tuple({"time": number(value, f"{where}.stats.data[{i}]")} for i, value in enumerate(times))
    return Benchmark(tuple(keys), found, (iterations,) * rounds, where=where)


def _machine(info: object) -> dict[str, object]:
    """The environment as the ledger's own names it, from machine_info (never `node`, the host name)."""
    if not isinstance(info, dict):
        fail("machine_info", "is not a JSON object")
    cpu = info["cpu"] if isinstance(info.get("cpu"), dict) else {}
    found = {
        "os": info.get("system"),
        "os_release": info.get("release"),
        "machine": info.get("machine"),
        "python": info.get("python_version"),
        "python_implementation": info.get("python_implementation"),
        "cpu": cpu.get("brand_raw"),
        "cpu_count": cpu.get("count"),
    }
    return {name: value for name, value in found.items() if isinstance(value, (str, int)) and value != ""}


def _stamp(data: object) -> datetime | None:
    """When pytest-benchmark wrote the export (`datetime`, UTC; older versions write it without a zone)."""
    stamp = data.get("datetime") if isinstance(data, dict) else None
    if not isinstance(stamp, str):
        return None
    try:
        moment = datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    except ValueError:
        fail("datetime", f"{stamp[:40]!r} is not an ISO time")
    return moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)
