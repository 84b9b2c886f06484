"""hyperfine's export (`--export-json FILE`): every timed run of each command, in seconds -> a Reading. Pure.

One entry per command under `results`: `command` (its `-n` name, else the command line), `times` (every
timed run after the warm-up), `exit_codes` (one a run) and, with `--parameter-scan`/`-L`, `parameters`.
hyperfine's JSON holds seconds whatever `--time-unit` shows on the terminal (its export format's unit;
it names none in the file). Its mean, standard deviation, user and system times stay in the export.
"""

from __future__ import annotations

from .reading import Benchmark, Reading, fail, key_value, listed, member, number, text

UNIT = "s"


def recognizes(data: object) -> bool:
    return isinstance(data, dict) and isinstance(data.get("results"), list) and "benchmarks" not in data


def read(data: object) -> Reading:
    results = listed(member(data, "results", ""), "results")
    benchmarks = []
    for index, entry in enumerate(results):
        where = f"results[{index}]"
        command = text(member(entry, "command", where), f"{where}.command")
        times = listed(member(entry, "times", where), f"{where}.times")
        rounds = tuple({"time": number(value, f"{where}.times[{i}]")} for i, value in enumerate(times))
        codes = entry.get("exit_codes", [])
        failed = [(i, code) for i, code in enumerate(codes if isinstance(codes, list) else []) if code != 0]
        if failed:
            run, code = failed[0]
            fail(
                f"{where}.exit_codes[{run}]",
                f"run {run + 1} of {command!r} exited {code}: its time measures a failure; fix the command "
                "(hyperfine -i times failing commands)",
            )
        if isinstance(codes, list) and codes and len(codes) != len(times):
            fail(f"{where}.times", f"{len(times)} times but {len(codes)} exit codes: a truncated or edited export")
        scan = entry.get("parameters") or {}
        if not isinstance(scan, dict):
            fail(f"{where}.parameters", "must map each scanned parameter to its value")
        keys = (("command", command), *((str(k), key_value(v, f"{where}.parameters.{k}")) for k, v in scan.items()))
        benchmarks.append(Benchmark(keys, rounds, where=where))
    return Reading(tuple(benchmarks), {"time": UNIT}, {})
