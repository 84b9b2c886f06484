"""Hash throughput: hashlib's SHA-256 and BLAKE2b over a few buffer sizes -> one run per call.

`ledger measure hashing` runs it (or `python probes/hashing.py --profile quick`). It needs only
Python's standard library and the ledger's probe API (generator.probe).
"""

from __future__ import annotations

import argparse
import hashlib
import os

from generator.probe import measure, time_rounds

PROFILES = {  # a quick profile for tests; default is what the report cites
    "quick": {"sizes_kib": [64, 1024], "rounds": 3, "bytes_per_sample": 4 << 20},
    "default": {"sizes_kib": [4, 64, 1024, 8192], "rounds": 7, "bytes_per_sample": 16 << 20},
}
ALGORITHMS = ("sha256", "blake2b")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--profile", choices=sorted(PROFILES), default="default")
    name = parser.parse_args(argv).profile
    profile = PROFILES[name]
    parameters = {"profile": name, "algorithms": list(ALGORITHMS), **profile, "warmup": 1}

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
        timed = time_rounds(settings, rounds=profile["rounds"], warmup=1)
        for key, spread in timed.items():
            algorithm, size_kib = key.split()
            run.row(
                "results.csv",
                algorithm=algorithm,
                size_kib=int(size_kib),
                rounds=spread.rounds,
                gb_per_s=work[key] / spread.median / 1e9,
                gb_per_s_min=work[key] / spread.high / 1e9,  # the slowest round
                gb_per_s_max=work[key] / spread.low / 1e9,  # the fastest round
            )


if __name__ == "__main__":
    main()
