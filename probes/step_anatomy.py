"""Step-anatomy probe: where a raw decode step's time goes -> levels.csv, level_ratios.csv, level_steps.csv,
profile.csv, kernels.csv, families.csv.

Two questions the other probes' runs leave open (issue 56):

- **levels**: whole_graph's raw mode and the independent probe (probes/raw_step.py) disagreed at B=4 by a
  quarter on the H200. They differ in the model build (model_build.py against raw_step's own), in the harness
  (decode.Raw stepped in samples of several steps, history kept, against one step per perf_counter pair) and
  in the run (separate processes, hours apart). Here, in one process, three ways of stepping are alternated
  step-group by step-group, each from a fresh cache: `independent` (raw_step's loop on raw_step's model),
  `independent-loop` (that loop on whole_graph's model) and `whole_graph` (decode.Raw on whole_graph's model,
  `per_turn` steps a sample as whole_graph times them). Every step's time is kept. Ratios of the round medians,
  paired by round, split the difference into the harness (whole_graph / independent-loop) and the model
  (independent-loop / independent); the spread of one way's round medians is the run's own wander.
- **profile**: the GPU-busy share of a raw step (kernel busy union over the unprofiled step, probes/gpu_busy.py's
  own functions), the kernels a step launches and the host calls that launch them (a CUDA graph replay is a
  `cudaGraphLaunch`/`cuGraphLaunch`; single kernels are `cudaLaunchKernel*`/`cuLaunchKernel*`), and which
  kernels the device time goes to (the 12 longest by name, the rest as one row; and by FAMILIES), with MLX's CUDA-graph setting left at its default and off (`MLX_USE_CUDA_GRAPHS=0`):
  the graph launches counted say whether the default replays graphs.
  PyTorch's profiler runs in the probing process itself (no second model), with its CUDA context made first.

Each part runs in a child process of its own (`--part`: MLX reads its CUDA-graph setting when it starts, and a
crash or hang costs that part only), which appends what it finishes to a file line by line: the parent keeps
every finished batch size when a part fails or its time runs out, and says in the run what it skipped and why
(`skipped_for_memory`, `not_started_for_time`, each part's child in `phases`).

Sized before it starts: the parent counts the bytes of each model from lazily built arrays (no memory used),
adds each batch size's caches and a reserve, and drops what will not fit the device's memory (`--memory-limit-gb`
to pretend less), largest first. Each part gets the time the probe's budget has left (`--budget-s`): past it the
part starts no new batch size (the first part's first always runs) and stops a started one after MIN_ROUNDS rounds; a child
still running the plan's `grace_s` later is stopped. What was dropped, and why, is in the run's parameters.

    python -m probes.step_anatomy --profile gpu       # the write-up's model, bf16, B = 1, 4, 16 (levels), 1..64 (profile)
    python -m probes.step_anatomy --profile quick     # the tests' tiny shape (a dry run on the CPU)
"""

from __future__ import annotations

import argparse
import collections
import json
import math
import os
import platform
import statistics
import subprocess
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

import mlx.core as mx

from generator.runs import TESTBED_PATTERN, Column, imported_code, write_run
from probes import config as configs
from probes import decode, environment, gpu_busy, model_build, raw_step, timing

ROOT = Path(__file__).resolve().parents[1]
PLANS = {  # per profile: each part's batch sizes, rounds and steps; the probe's own time budget
    "quick": {"levels": {"batches": [1, 2], "rounds": 3, "per_turn": 3, "warmup": 2},
              "profile": {"batches": [1, 2], "steps": 4}, "budget_s": 300, "grace_s": 120},
    "default": {"levels": {"batches": [1, 4], "rounds": 6, "per_turn": 3, "warmup": 2},
                "profile": {"batches": [1, 4], "steps": 5}, "budget_s": 900, "grace_s": 120},
    "gpu": {"levels": {"batches": [1, 4, 16], "rounds": 12, "per_turn": 5, "warmup": 5},
            "profile": {"batches": [1, 4, 16, 64], "steps": 10}, "budget_s": 480, "grace_s": 60},
}  # fmt: skip
VARIANTS = ("independent", "independent-loop", "whole_graph")
COMPARISONS = {  # name -> (numerator, denominator) of the paired round-median ratio
    "harness": ("whole_graph", "independent-loop"),
    "model": ("independent-loop", "independent"),
    "probes": ("whole_graph", "independent"),
}
PARTS = (("levels", None), ("profile", "default"), ("profile", "off"))  # (part, CUDA graphs); the order they run in
PROMPT_TOKENS = 4
MIN_ROUNDS = 3  # a started B's rounds however little time is left: the fewest that pair into a ratio with a spread
RESERVE = {"factor": 1.10, "bytes": 1 << 30}  # the estimate's allowance: x1.1 and 1 GiB for MLX's pool, temporaries and CUDA contexts
FAMILIES = (  # kernel name substring -> family, first match (a grouping for reading, not a measurement)
    ("qmv", "quantized matvec"), ("qmm", "quantized matmul"), ("gather", "gather"), ("gemv", "matvec"),
    ("gemm", "matmul"), ("matmul", "matmul"), ("norm", "norm"), ("softmax", "softmax"), ("scan", "scan"),
    ("reduce", "reduce"), ("copy", "copy"), ("memcpy", "copy"), ("memset", "copy"), ("binary", "elementwise"),
    ("unary", "elementwise"), ("ternary", "elementwise"), ("rope", "rope"), ("sdpa", "attention"),
    ("attention", "attention"), ("arg", "arg-reduce"), ("sort", "sort"),
)
COLUMNS = {  # table -> column -> (unit, timed or exact)
    "levels.csv": {
        "batch": ("sequences", "exact"), "steps": ("steps", "exact"), "rounds": ("rounds", "exact"),
        "step_ms": ("ms", "timed"), "step_ms_p10": ("ms", "timed"), "step_ms_p90": ("ms", "timed"),
        "step_ms_min": ("ms", "timed"), "step_ms_max": ("ms", "timed"), "cpu_ms": ("ms", "timed"),
        "round_median_ms_min": ("ms", "timed"), "round_median_ms_max": ("ms", "timed"),
        "round_spread": ("×", "timed"),
    },
    "level_ratios.csv": {
        "batch": ("sequences", "exact"), "rounds": ("rounds", "exact"), "ratio": ("×", "timed"),
        "ratio_min": ("×", "timed"), "ratio_max": ("×", "timed"),
    },
    "level_steps.csv": {
        "batch": ("sequences", "exact"), "round": ("rounds", "exact"), "step": ("steps", "exact"),
        "step_ms": ("ms", "timed"), "cpu_ms": ("ms", "timed"), "started": ("s", "exact"),
        "context_tokens": ("tokens", "exact"),
    },
    "profile.csv": {
        "batch": ("sequences", "exact"), "steps": ("steps", "exact"), "kernels_per_step": ("kernels", "exact"),
        "kernel_busy_ms": ("ms", "timed"), "kernel_busy_ms_min": ("ms", "timed"),
        "kernel_busy_ms_max": ("ms", "timed"), "kernel_sum_ms": ("ms", "timed"), "step_ms": ("ms", "timed"),
        "step_ms_min": ("ms", "timed"), "step_ms_max": ("ms", "timed"), "profiled_step_ms": ("ms", "timed"),
        "busy_share": ("", "timed"), "idle_ms": ("ms", "timed"), "busy_share_profiled": ("", "timed"),
        "busy_share_profiled_min": ("", "timed"), "busy_share_profiled_max": ("", "timed"),
        "graph_launches_per_step": ("calls", "exact"), "kernel_launches_per_step": ("calls", "exact"),
    },
    "kernels.csv": {
        "batch": ("sequences", "exact"), "rank": ("", "exact"), "calls_per_step": ("calls", "exact"),
        "ms_per_step": ("ms", "timed"), "share_of_kernel_time": ("", "timed"),
    },
    "families.csv": {
        "batch": ("sequences", "exact"), "calls_per_step": ("calls", "exact"), "ms_per_step": ("ms", "timed"),
        "share_of_kernel_time": ("", "timed"),
    },
}  # fmt: skip


# -- the plan: what fits the device's memory --------------------------------------------------------------


def model_bytes(shape: str, dtype: mx.Dtype) -> dict[str, int]:
    """Bytes of each model a part builds, counted from lazily built arrays (shapes and dtypes only)."""
    whole = model_build.build(configs.PROFILE_MODELS[shape], dtype, materialise=False)
    config = configs.PROFILE_MODELS[shape]
    # raw_step's build quantizes the same shape with mlx-lm's quantize_model: the same arrays, so the same count
    return {"whole_graph": model_build.nbytes(whole), "raw_step": model_build.nbytes(whole),
            "state": config.linear_state_bytes(dtype.size)}  # fmt: skip


def planned(plan: dict, sizes: dict[str, int], limit: int) -> tuple[dict, list[dict]]:
    """(each part's batch sizes and models that fit `limit` bytes, what was dropped and why), largest B first.
    levels keeps three ways' caches of B sequences alive, profile one."""

    def need(models: list[str], ways: int, b: int) -> int:
        return int((sum(sizes[m] for m in models) + ways * b * sizes["state"]) * RESERVE["factor"] + RESERVE["bytes"])

    skipped, kept = [], {}
    models = ["whole_graph", "raw_step"]
    smallest = min(plan["levels"]["batches"])
    if need(models, 3, smallest) > limit:  # the independent model goes first, then the part's batch sizes
        skipped.append({"part": "levels", "what": "variant independent",
                        "why": f"both models need {need(models, 3, smallest) / 1e9:.2f} GB of {limit / 1e9:.2f} GB"})
        models = ["whole_graph"]
    for part, key, ways in (("levels", models, 3), ("profile", ["whole_graph"], 1)):
        batches = []
        for b in plan[part]["batches"]:
            if need(key, ways, b) <= limit:
                batches.append(b)
            else:
                skipped.append({"part": part, "what": f"B={b}",
                                "why": f"needs {need(key, ways, b) / 1e9:.2f} GB of {limit / 1e9:.2f} GB"})
        kept[part] = {**plan[part], "batches": batches, "models": key}
    return kept, skipped


# -- the children ------------------------------------------------------------------------------------------


class Loop:
    """raw_step's loop: B sequences from a fresh cache; each step timed alone (perf_counter around model call,
    argmax, mx.eval, mx.synchronize)."""

    def __init__(self, model, vocab: int, batch: int):
        self.model, self.cache = model, model.make_cache()
        prompt = mx.random.randint(0, vocab, (batch, PROMPT_TOKENS))
        self.token = mx.argmax(model(prompt, cache=self.cache)[:, -1, :], axis=-1)
        mx.eval(self.token)
        mx.synchronize()

    def steps(self, count: int) -> list[tuple[float, float]]:
        found = []
        for _ in range(count):
            cpu, start = time.process_time(), time.perf_counter()
            self.token = mx.argmax(self.model(self.token[:, None], cache=self.cache)[:, -1, :], axis=-1)
            mx.eval(self.token)
            mx.synchronize()
            found.append(((time.perf_counter() - start) * 1e3, (time.process_time() - cpu) * 1e3))
        return found


class Sampled:
    """whole_graph's raw mode: decode.Raw stepped in one sample of `count` steps (decode.run_steps: every stream
    synchronised around the sample, the seconds between steps' returns kept); CPU time is the sample's, shared out."""

    def __init__(self, model, vocab: int, batch: int):
        prompts = mx.random.randint(0, vocab, (batch, PROMPT_TOKENS)).tolist()
        self.raw = decode.Raw(model, prompts)

    def steps(self, count: int) -> list[tuple[float, float]]:
        cpu = time.process_time()
        self.raw.run(timing.Stopwatch(), count)
        share = (time.process_time() - cpu) * 1e3 / count
        return [(seconds * 1e3, share) for seconds in self.raw.calls[-1]]


def levels(plan: dict, shape: str, out: Path, deadline: float) -> None:
    """Every B: the three ways' runners, then `rounds` rounds of `per_turn` steps each, the order rotating.

    Past the deadline (time.monotonic()) no B starts but the first, and a started B stops after MIN_ROUNDS."""
    dtype = environment.compute_dtype()
    mx.random.seed(0)
    whole = model_build.build(configs.PROFILE_MODELS[shape], dtype)
    models = {"whole_graph": whole}
    if "raw_step" in plan["models"]:
        mx.random.seed(0)
        models["raw_step"] = raw_step.build(raw_step.SHAPES[shape], dtype)
    vocab = configs.PROFILE_MODELS[shape].vocab_size
    kinds = {"independent": (Loop, "raw_step"), "independent-loop": (Loop, "whole_graph"),
             "whole_graph": (Sampled, "whole_graph")}  # fmt: skip
    for n, b in enumerate(plan["batches"]):
        if n and time.monotonic() > deadline:
            append(out, {"skipped": f"B={b}", "why": "the part's time ran out before it"})
            continue
        runners = {v: kind(models[m], vocab, b) for v, (kind, m) in kinds.items() if m in models}
        for runner in runners.values():
            runner.steps(plan["warmup"])
        names = list(runners)
        for r in range(plan["rounds"]):
            if r >= MIN_ROUNDS and time.monotonic() > deadline:
                append(out, {"skipped": f"B={b} rounds {r + 1}-{plan['rounds']}", "why": "the part's time ran out"})
                break
            for v in names[r % len(names):] + names[: r % len(names)]:
                unix = time.time()
                for i, (ms, cpu_ms) in enumerate(runners[v].steps(plan["per_turn"])):
                    append(out, {"batch": b, "variant": v, "round": r, "step": i, "step_ms": ms, "cpu_ms": cpu_ms,
                                 "started": unix, "context_tokens": PROMPT_TOKENS + plan["warmup"]
                                 + r * plan["per_turn"] + i + 1})  # fmt: skip
        del runners
        mx.clear_cache()


def family(name: str) -> str:
    low = name.lower()
    return next((f for key, f in FAMILIES if key in low), "other")


def profile(plan: dict, shape: str, graphs: str, out: Path, deadline: float) -> None:
    """Every B: warm steps, `steps` unprofiled and `steps` profiled raw steps; the busy share, launches, kernels.
    Past the deadline no B starts but the first."""
    try:
        import torch
    except ImportError as error:
        append(out, {"not_measured": f"torch is not importable here ({error})"})
        return
    if not torch.cuda.is_available() or environment.backend() != "cuda":
        append(out, {"not_measured": f"no CUDA device for torch {torch.__version__} and MLX ({environment.backend()})"})
        return
    torch.zeros(1, device="cuda")  # PyTorch's CUDA context before MLX's pool grows (MLX-NOTES.md's order)
    torch.cuda.synchronize()
    mx.random.seed(0)
    model = model_build.build(configs.PROFILE_MODELS[shape], environment.compute_dtype())
    vocab, n = configs.PROFILE_MODELS[shape].vocab_size, plan["steps"]
    cuda = torch.autograd.DeviceType.CUDA
    for i, b in enumerate(plan["batches"]):
        if i and time.monotonic() > deadline:
            append(out, {"skipped": f"B={b}", "why": "the part's time ran out before it"})
            continue
        raw = decode.Raw(model, mx.random.randint(0, vocab, (b, PROMPT_TOKENS)).tolist())
        for _ in range(3):
            raw.step()
        decode.sync()
        unprofiled = []
        for _ in range(n):
            began = time.perf_counter()
            raw.step()
            decode.sync()
            unprofiled.append((time.perf_counter() - began) * 1e3)
        with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU,
                                                torch.profiler.ProfilerActivity.CUDA]) as prof:
            for k in range(n):
                with torch.profiler.record_function(f"{gpu_busy.STEP_PREFIX}{k}"):
                    raw.step()
                    decode.sync()
        events = prof.events()
        windows, intervals = gpu_busy.kernel_events(events, cuda)
        if len(windows) != n:
            raise RuntimeError(f"the profiler recorded {len(windows)} step ranges for {n} steps")
        row = gpu_busy.summary_row(b, unprofiled, gpu_busy.per_step(windows, intervals))
        hosts = collections.Counter(e.name for e in events if e.device_type != cuda)
        row["graph_launches_per_step"] = sum(c for k, c in hosts.items() if "GraphLaunch" in k) / n
        row["kernel_launches_per_step"] = sum(c for k, c in hosts.items() if "LaunchKernel" in k) / n
        by_name: dict[str, list[float]] = collections.defaultdict(list)
        for e in events:
            if e.device_type == cuda and not e.name.startswith(gpu_busy.STEP_PREFIX):
                by_name[e.name].append(float(e.time_range.end - e.time_range.start))
        total = sum(sum(v) for v in by_name.values()) or 1.0
        top = sorted(by_name.items(), key=lambda kv: -sum(kv[1]))
        kernels = [{"batch": b, "rank": rank + 1, "family": family(name), "kernel": name[:160],
                    "calls_per_step": len(us) / n, "ms_per_step": sum(us) / n / 1e3,
                    "share_of_kernel_time": sum(us) / total} for rank, (name, us) in enumerate(top[:12])]
        rest = top[12:]
        if rest:
            kernels.append({"batch": b, "rank": 13, "family": "rest", "kernel": f"{len(rest)} other kernels",
                            "calls_per_step": sum(len(us) for _, us in rest) / n,
                            "ms_per_step": sum(sum(us) for _, us in rest) / n / 1e3,
                            "share_of_kernel_time": sum(sum(us) for _, us in rest) / total})
        families: dict[str, list[float]] = collections.defaultdict(list)
        for name, us in by_name.items():
            families[family(name)] += us
        grouped = [{"graphs": graphs, "batch": b, "family": name, "calls_per_step": len(us) / n,
                    "ms_per_step": sum(us) / n / 1e3, "share_of_kernel_time": sum(us) / total}
                   for name, us in sorted(families.items(), key=lambda kv: -sum(kv[1]))]  # fmt: skip
        append(out, {"row": {"graphs": graphs, **row}, "kernels": [{"graphs": graphs, **k} for k in kernels],
                     "families": grouped,
                     "record": {"torch": torch.__version__}})
        del raw
        mx.clear_cache()


def append(out: Path, line: dict) -> None:
    """One finished piece, flushed at once: a part that dies later keeps it."""
    with out.open("a") as f:
        f.write(json.dumps(line) + "\n")


# -- the parent ----------------------------------------------------------------------------------------------


def run_part(part: str, graphs: str | None, plan: dict, shape: str, folder: Path, seconds: float,
             grace: float) -> tuple[list, dict]:
    """(the lines the child finished, its record): never raises. The child starts nothing new after `seconds`;
    one still running `grace` seconds later is stopped, and keeps what it appended."""
    out = folder / f"{part}-{graphs or 'default'}.jsonl"
    request = folder / f"{part}-{graphs or 'default'}.json"
    request.write_text(json.dumps({"plan": plan, "shape": shape, "graphs": graphs, "seconds": seconds}))
    env = dict(os.environ)
    if graphs == "off":
        env["MLX_USE_CUDA_GRAPHS"] = "0"
    began = time.monotonic()
    record: dict[str, object] = {"part": part, "graphs": graphs or "default", "limit_s": round(seconds, 1)}
    try:
        done = subprocess.run([sys.executable, "-m", "probes.step_anatomy", "--part", str(request), str(out)],
                              cwd=ROOT, env=env, capture_output=True, text=True, timeout=seconds + grace)
        record["exit"] = done.returncode
        if done.returncode != 0:
            record["why"] = " | ".join(done.stderr.strip().splitlines()[-3:])[-600:]
    except subprocess.TimeoutExpired:
        record["exit"], record["why"] = None, f"ran past {seconds + grace:.0f} s: what it finished is kept"
    record["seconds"] = round(time.monotonic() - began, 1)
    lines = [json.loads(text) for text in out.read_text().splitlines()] if out.exists() else []
    return lines, record


def level_tables(lines: list[dict]) -> tuple[list[dict], list[dict]]:
    """levels.csv (each B and way over its steps) and level_ratios.csv (the ways' round medians, paired by round)."""
    steps = collections.defaultdict(list)
    for line in lines:
        steps[line["batch"], line["variant"]].append(line)
    rows, medians = [], {}
    for (b, v), found in sorted(steps.items()):
        ms = sorted(s["step_ms"] for s in found)
        rounds = collections.defaultdict(list)
        for s in found:
            rounds[s["round"]].append(s["step_ms"])
        medians[b, v] = {r: statistics.median(x) for r, x in rounds.items()}
        by_round = list(medians[b, v].values())
        rows.append({"batch": b, "variant": v, "steps": len(ms), "rounds": len(rounds),
                     "step_ms": statistics.median(ms), "step_ms_p10": nearest_rank(ms, 0.1),
                     "step_ms_p90": nearest_rank(ms, 0.9), "step_ms_min": ms[0], "step_ms_max": ms[-1],
                     "cpu_ms": statistics.median(s["cpu_ms"] for s in found),
                     "round_median_ms_min": min(by_round), "round_median_ms_max": max(by_round),
                     "round_spread": max(by_round) / min(by_round)})  # fmt: skip
    ratios = []
    for b in sorted({b for b, _ in medians}):
        for name, (top, bottom) in COMPARISONS.items():
            if (b, top) not in medians or (b, bottom) not in medians:
                continue
            paired = [medians[b, top][r] / medians[b, bottom][r] for r in medians[b, top] if r in medians[b, bottom]]
            if paired:
                ratios.append({"batch": b, "comparison": name, "numerator": top, "denominator": bottom,
                               "rounds": len(paired), "ratio": statistics.median(paired),
                               "ratio_min": min(paired), "ratio_max": max(paired)})
    return rows, ratios


def nearest_rank(ordered: list[float], q: float) -> float:
    return ordered[max(1, math.ceil(q * len(ordered))) - 1]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m probes.step_anatomy", description=__doc__.splitlines()[0])
    parser.add_argument("--profile", choices=sorted(PLANS), default="default")
    parser.add_argument("--testbed", help="testbed name (default: derived from OS, backend and device)")
    parser.add_argument("--out", type=Path, help="measurements folder (default: <repo>/measurements)")
    parser.add_argument("--budget-s", type=float, help="the probe's time, every part included (default: the profile's)")
    parser.add_argument("--memory-limit-gb", type=float, help="size the plan to this much memory (default: the device's)")
    parser.add_argument("--part", nargs=2, metavar=("REQUEST", "OUT"), help=argparse.SUPPRESS)  # a child's work
    args = parser.parse_args(argv)
    if args.part:
        request = json.loads(Path(args.part[0]).read_text())
        deadline = time.monotonic() + request["seconds"]
        if request["graphs"] is None:
            levels(request["plan"], request["shape"], Path(args.part[1]), deadline)
        else:
            profile(request["plan"], request["shape"], request["graphs"], Path(args.part[1]), deadline)
        return 0
    began, started = time.monotonic(), datetime.now(timezone.utc)
    env = environment.environment()
    info = env["device_info"]
    testbed = args.testbed or environment.testbed_name(
        platform.system(), env["backend"], str(info.get("device_name") or info.get("name") or ""), env["cpu_model"])
    if not TESTBED_PATTERN.match(testbed):
        sys.exit(f"step_anatomy: testbed {testbed!r}: use lower-case letters, digits and '-' (--testbed)")
    shape, plan = args.profile, PLANS[args.profile]
    budget = args.budget_s or plan["budget_s"]
    device = info.get("total_memory") if env["backend"] == "cuda" else environment.memory_available_bytes()
    limit = int(args.memory_limit_gb * 1e9) if args.memory_limit_gb else int(device or 0)
    sizes = model_bytes(shape, environment.compute_dtype())
    parts, for_memory = planned(plan, sizes, limit)
    lines: dict[tuple[str, str | None], list] = {}
    records, for_time = [], []
    folder = (args.out.resolve() if args.out else ROOT / "measurements") / ".step_anatomy"
    folder.mkdir(parents=True, exist_ok=True)
    for part, graphs in PARTS:
        left = budget - (time.monotonic() - began)
        if not parts[part]["batches"]:
            for_memory.append({"part": part, "what": f"graphs {graphs or 'default'}", "why": "no batch size fits"})
        elif left <= 0 and records:  # the first part always starts: a run records at least its first B
            for_time.append({"part": part, "what": f"graphs {graphs or 'default'}",
                             "why": f"the budget of {budget:g} s was spent before it"})
        else:
            for stale in folder.glob(f"{part}-{graphs or 'default'}.*"):
                stale.unlink()
            lines[part, graphs], record = run_part(part, graphs, parts[part], shape, folder, max(left, 0), plan["grace_s"])
            for_time += [{"part": part, "what": line["skipped"], "why": line["why"]}
                         for line in lines[part, graphs] if "skipped" in line]
            records.append(record)
            print(f"step_anatomy: {part} (graphs {graphs or 'default'}): {len(lines[part, graphs])} pieces in "
                  f"{record['seconds']} s{', ' + str(record['why']) if 'why' in record else ''}", file=sys.stderr, flush=True)
    for path in folder.iterdir():
        path.unlink()
    folder.rmdir()
    level_lines = [line for line in lines.get(("levels", None), []) if "skipped" not in line]
    level_rows, ratio_rows = level_tables(level_lines)
    profiled = [line for key, found in lines.items() if key[0] == "profile" for line in found if "skipped" not in line]
    not_measured = sorted({line["not_measured"] for line in profiled if "not_measured" in line})
    tables = {"levels.csv": level_rows, "level_ratios.csv": ratio_rows,
              "level_steps.csv": [{k: v for k, v in s.items()} for s in level_lines],
              "profile.csv": [line["row"] for line in profiled if "row" in line],
              "kernels.csv": [k for line in profiled for k in line.get("kernels", [])],
              "families.csv": [k for line in profiled for k in line.get("families", [])]}  # fmt: skip
    if not any(tables.values()):
        print(f"step_anatomy: nothing finished, nothing recorded: {records} {for_memory} {for_time}", file=sys.stderr)
        return 1
    path = write_run(
        ROOT, "step_anatomy", testbed, {name: rows for name, rows in tables.items() if rows},
        parameters={
            # what it measured: the parts and batch sizes that fit the memory, and what did not
            "profile": args.profile, "dtype": environment.dtype_name(environment.compute_dtype()),
            "model_config": configs.PROFILE_MODELS[shape].mlx_lm(), "planned": parts,
            "skipped_for_memory": for_memory, "profile_not_measured": not_measured,
            # how the run went (not defining: replicates.NOT_DEFINING): the budget and the memory it planned from,
            # each part's child process, what the time left out
            "plan": {**plan, "budget_s": budget, "memory": {
                "limit_bytes": limit, "model_bytes": sizes, "reserve": RESERVE,
                "limit_from": "--memory-limit-gb" if args.memory_limit_gb else
                ("the device's total memory" if env["backend"] == "cuda" else "the host's available memory"),
                "need": "(models + ways x B x state) x factor + bytes; ways: levels 3, profile 1"}},
            "phases": records, "not_started_for_time": for_time,
            "variants": {"independent": "raw_step's loop (Loop) on raw_step.build's model",
                         "independent-loop": "raw_step's loop (Loop) on model_build.build's model",
                         "whole_graph": "decode.Raw on model_build.build's model, per_turn steps a sample"},
            "comparisons": {name: f"{a} / {b}: median over rounds of the ratio of round medians"
                            for name, (a, b) in COMPARISONS.items()},
            "families": "kernel name substring -> family, first match: " + ", ".join(f"{k}={f}" for k, f in FAMILIES),
        },
        environment={**env, "load_average_at_end": environment.load_average(),
                     "process_cpu_s_at_end": round(time.process_time(), 3),
                     "session_wall_s_at_end": round(time.monotonic() - began, 3)},
        code=imported_code(ROOT), started=started, finished=datetime.now(timezone.utc),
        measurements=args.out.resolve() if args.out else None,
        columns={t: {c: Column(*d) for c, d in cols.items()} for t, cols in COLUMNS.items() if tables[t]},
    )
    print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
