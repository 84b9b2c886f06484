"""Hash throughput: hashlib's SHA-256 and BLAKE2b over a few buffer sizes -> one run per call.

`ledger measure hashing` runs it (or `python probes/hashing.py --profile quick`). It needs only
Python's standard library and the ledger's probe API (generator.probe).
"""

from __future__ import annotations

import argparse
import hashlib
import os

from generator.probe import Stop, each, measure, time_settings

PROFILES = {  # a quick profile for tests; default is what the report cites
    "quick": {"sizes_kib": [64, 1024], "bytes_per_sample": 4 << 20, "max_rounds": 9, "max_seconds": 10.0},
    "default": {"sizes_kib": [4, 64, 1024, 8192], "bytes_per_sample": 16 << 20, "max_rounds": 30, "max_seconds": 30.0},
}
ALGORITHMS = ("sha256", "blake2b")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--profile", choices=sorted(PROFILES), default="default")
    name = parser.parse_args(argv).profile
    profile = PROFILES[name]
    # at least 9 rounds, then until the median's 99% interval is within 5% (or the caps)
    stop = Stop(target=0.05, min_rounds=9, max_rounds=profile["max_rounds"], max_seconds=profile["max_seconds"])
    parameters = {"profile": name, "algorithms": list(ALGORITHMS), "sizes_kib": profile["sizes_kib"],
                  "bytes_per_sample": profile["bytes_per_sample"], "stop": stop.record(), "warmup": 1}  # fmt: skip

    with measure("hashing", parameters=parameters) as run:
        settings, work = {}, {}
        for algorithm in ALGORITHMS:
            for size_kib in profile["sizes_kib"]:
                block = os.urandom(size_kib * 1024)  # made before the clock starts
                reps = max(1, profile["bytes_per_sample"] // len(block))

                def call(block: bytes = block, reps: int = reps, new=getattr(hashlib, algorithm)) -> None:
                    for _ in range(reps):
                        new(block).digest()

                key = f"{algorithm} {size_kib}"
                settings[key], work[key] = call, len(block) * reps
        # Settings interleaved within each round, so drift in the machine hits them all alike.
        timed = time_settings(settings, stop, warmup=1)
        for key, found in timed.items():
            algorithm, size_kib = key.split()
            # results.csv gets the median of the rounds (with the slowest and fastest round as
            # gb_per_s_min / _max); samples.csv gets every round, so the gate can judge the noise.
            # units: what each column holds, recorded in the run's manifest (gb_per_s is timed;
            # size_kib, a key, is exact)
            gb_per_s = each(found, lambda seconds, n=work[key]: n / seconds / 1e9)
            run.timed(
                "results.csv", {"algorithm": algorithm, "size_kib": int(size_kib)}, found, {"gb_per_s": gb_per_s},
                spread_of=("gb_per_s",), units={"gb_per_s": "GB/s", "size_kib": "KiB"},
            )  # fmt: skip


if __name__ == "__main__":
    main()
