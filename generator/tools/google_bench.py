"""Google Benchmark's export (`--benchmark_out=FILE --benchmark_out_format=json`, with
`--benchmark_repetitions=N`): one row per repetition, in the row's own `time_unit` -> a Reading. Pure.

Each repetition (`run_type` "iteration") is a round: its `real_time` and `cpu_time` a call, averaged over
its `iterations` (the round's reps), and `bytes_per_second` and `items_per_second` where the benchmark sets
them. The aggregates the tool adds (mean, median, stddev, cv) stay in the export, and so do user counters,
which name no unit. A benchmark's `time_unit` is its own (`->Unit(benchmark::kMillisecond)`); a run's
column holds one, so times in another unit are converted to the finest the export uses.
`context` gives the environment, less the host name and the executable's path.
"""

from __future__ import annotations

from datetime import datetime

from .reading import Benchmark, Reading, count, fail, listed, member, number, text

TIME_UNITS = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}  # time_unit as the export writes it
TIMES = ("real_time", "cpu_time")
RATES = {"bytes_per_second": "B/s", "items_per_second": "items/s"}  # counters whose unit the tool fixes
CONTEXT = {  # the environment's name -> context's field
    "cpu_count": "num_cpus",
    "cpu_mhz": "mhz_per_cpu",
    "cpu_scaling_enabled": "cpu_scaling_enabled",
    "library_build_type": "library_build_type",
    "load_avg": "load_avg",
}


def recognizes(data: object) -> bool:
    return isinstance(data, dict) and isinstance(data.get("benchmarks"), list) and "context" in data


def read(data: object) -> Reading:
    rows = listed(member(data, "benchmarks", ""), "benchmarks")
    units = {f"benchmarks[{i}].time_unit": _time_unit(row, f"benchmarks[{i}]") for i, row in enumerate(rows)}
    unit = min(units.values(), key=TIME_UNITS.__getitem__)
    kept: dict[tuple, list[tuple[dict[str, float], int]]] = {}
    places: dict[tuple, str] = {}
    aggregated = set()
    for index, row in enumerate(rows):
        where = f"benchmarks[{index}]"
        if row.get("error_occurred"):
            fail(f"{where}.error_message", f"{str(row.get('error_message'))[:80]!r}: the benchmark failed; fix it")
        name = text(row.get("run_name", member(row, "name", where)), f"{where}.run_name")
        keys = (("name", name), ("threads", count(row.get("threads", 1), f"{where}.threads")))
        if row.get("run_type", "iteration") != "iteration":
            aggregated.add(keys)
            continue
        scale = TIME_UNITS[units[f"{where}.time_unit"]] / TIME_UNITS[unit]
        found = {column: number(member(row, column, where), f"{where}.{column}") * scale for column in TIMES}
        found |= {column: number(row[column], f"{where}.{column}") for column in RATES if column in row}
        kept.setdefault(keys, []).append((found, count(member(row, "iterations", where), f"{where}.iterations")))
        places.setdefault(keys, where)
    alone = sorted(aggregated - set(kept))
    if alone or not kept:
        named = alone[0][0][1] if alone else "every benchmark"
        fail(
            "benchmarks",
            f"{named} has only aggregates: run it without --benchmark_report_aggregates_only, so that every repetition is kept",
        )
    benchmarks = tuple(
        Benchmark(keys, tuple(r for r, _ in found), tuple(n for _, n in found), where=places[keys])
        for keys, found in kept.items()
    )
    context = member(data, "context", "")
    version = context.get("library_version") if isinstance(context, dict) else None
    environment = {
        name: context[field] for name, field in CONTEXT.items() if isinstance(context, dict) and field in context
    }
    if isinstance(version, str):
        environment["tool"] = f"Google Benchmark {version}"
    return Reading(benchmarks, {**dict.fromkeys(TIMES, unit), **RATES}, environment, _date(context))


def _time_unit(row: object, where: str) -> str:
    if isinstance(row, dict) and "time_unit" not in row:
        fail(f"{where}.time_unit", "is missing: the export names no unit for real_time and cpu_time")
    found = member(row, "time_unit", where)
    if found not in TIME_UNITS:
        fail(
            f"{where}.time_unit", f"{str(found)[:20]!r} is not a unit Google Benchmark writes ({', '.join(TIME_UNITS)})"
        )
    return str(found)


def _date(context: object) -> datetime | None:
    """When the benchmarks started (`context.date`, with its offset), if the export says."""
    stamp = context.get("date") if isinstance(context, dict) else None
    if not isinstance(stamp, str):
        return None
    try:
        moment = datetime.fromisoformat(stamp)
    except ValueError:
        fail("context.date", f"{stamp[:40]!r} is not an ISO time")
    return moment if moment.tzinfo else None
