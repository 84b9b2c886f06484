"""Benchmark: the probes' model build (random packed 4-bit words, scales and biases written directly) against
mlx-lm's own path (random float weights, quantize_model), in one run, each in a fresh process per round.

    .venv/bin/python benchmarks/model_build.py [--profile default] [--rounds 3]

Prints each round's seconds (build and materialise, imports excluded) and the median ratio old / new.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHILD = """
import contextlib, sys, time
sys.path.insert(0, {root!r})
import mlx.core as mx
from mlx_lm.models import qwen3_5_moe
from mlx_lm.utils import quantize_model
from probes import config, model_build
c = config.PROFILE_MODELS[{profile!r}]
mx.random.seed(0)
began = time.perf_counter()
if {old!r}:
    cfg = c.mlx_lm()
    model = qwen3_5_moe.Model(qwen3_5_moe.ModelArgs.from_dict(cfg))
    with contextlib.redirect_stdout(sys.stderr):
        quantize_model(model, cfg, group_size=64, bits=4)
    for layer in model.layers:
        mx.eval(layer.parameters())
    mx.eval(model.parameters())
else:
    model = model_build.build(c, mx.float32)
print(time.perf_counter() - began)
"""


def seconds(profile: str, old: bool) -> float:
    code = CHILD.format(root=str(ROOT), profile=profile, old=old)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return float(done.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--profile", default="default")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    ratios = []
    for i in range(args.rounds):  # interleaved: drift in the machine hits both alike
        old, new = seconds(args.profile, True), seconds(args.profile, False)
        ratios.append(old / new)
        print(f"round {i + 1}: quantize_model path {old:.2f} s, direct 4-bit arrays {new:.2f} s, ratio {old / new:.2f}")
    print(f"model build, {args.profile} profile: direct 4-bit arrays {statistics.median(ratios):.2f}x faster (median)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
