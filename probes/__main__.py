"""Runner: `python -m probes [--probe NAME] [--profile P] [--testbed X] [--out DIR]` -> one run per probe.

Each probe runs in its own Python process so that libc reads the allocator settings at start:
MLX's CPU allocator keeps no buffer cache, and without them every large fresh output is page-faulted
(the bandwidth and copy figures would measure the kernel's page-fault path, not memory).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

PROBES = ("memory", "model", "bandwidth", "matvec", "moe", "recurrent", "whole_graph", "prefill", "context", "raw_step",
          "step_anatomy")
MALLOC_ENV = {"MALLOC_MMAP_MAX_": "0", "MALLOC_TRIM_THRESHOLD_": str(1 << 46)}
ROOT = Path(__file__).resolve().parents[1]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m probes", description="run the MLX probes, one process each")
    parser.add_argument("--probe", choices=PROBES, action="append", help="run only this probe (repeatable)")
    parser.add_argument("--profile", default="default",
                        help="quick, default, gpu (every probe), or a probe's own variant (whole_graph: gpu-replicate)")
    parser.add_argument("--testbed", help="testbed name (default: derived from OS, backend and device)")
    parser.add_argument("--out", type=Path, help="measurements folder (default: <repo>/measurements)")
    args = parser.parse_args(argv)

    passed = ["--profile", args.profile]
    if args.testbed:
        passed += ["--testbed", args.testbed]
    if args.out:
        passed += ["--out", str(args.out.resolve())]
    env = {**os.environ, **MALLOC_ENV}
    failed = []
    for probe in args.probe or PROBES:
        print(f"== probes.{probe} ({args.profile})", file=sys.stderr, flush=True)
        result = subprocess.run([sys.executable, "-m", f"probes.{probe}", *passed], cwd=ROOT, env=env)
        if result.returncode != 0:
            failed.append(probe)
    if failed:
        print(f"{len(failed)} probe(s) failed: {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
