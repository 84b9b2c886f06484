"""Decode steps of a built model, the ways a caller can take them -> settings for the timer, and the step split.

Raw: the model called on one token per sequence with its cache, argmax, mx.eval (no generator: what an
outside reference measures). Batched: mlx-lm's BatchGenerator. Looped: generate_step sequences, one
after another (one sequence: the single-sequence path). Shared by whole_graph, prefill and context.

Each runner keeps, per timed sample, the seconds between one step's tokens reaching Python and the next's
(`calls`, one list per run() call), so a per-step latency percentile can be read from individual steps while a
sample still holds several (the generators overlap building step n+1 with the device's step n only within
a sample: one-step samples would time them without that overlap). `pipelined` says whether a sample's first
interval is a real step: Raw evaluates every step before the next (it is); the generators return at the first
call the token the previous sample left computed (it is not: only the intervals after it count).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable

import mlx.core as mx
import mlx.nn as nn
from mlx_lm.generate import BatchGenerator, generate_step, generation_stream
from mlx_lm.models.cache import KVCache

from probes import timing


def sync() -> None:
    """Wait for every stream a decode path uses (mlx-lm generates on its own stream)."""
    mx.synchronize(generation_stream)
    mx.synchronize()


def run_steps(watch: timing.Stopwatch, reps: int, step: Callable[[], object], calls: list[list[float]]) -> None:
    """`reps` steps inside the clock, every stream synchronised before it starts and before it stops; the
    seconds from the clock's start to each step's return, then between returns, appended to `calls`."""
    sync()
    watch.start()
    marks = [time.perf_counter()]
    for _ in range(reps):
        step()
        marks.append(time.perf_counter())
    sync()
    watch.stop()
    calls.append([b - a for a, b in zip(marks, marks[1:])])


class Raw:
    """B sequences stepped by calling the model: one token each with its cache, argmax, evaluated; one rep is one step.

    The prompts (all the same length) are prefilled in one call, or `cache` is given already filled
    (synthetic_cache) with `first` as the tokens to feed. Tokens stay on the device until sequences().
    first_logprobs: the prefill's log-probabilities (fp32) for the first `keep_first` sequences.
    """

    pipelined = False

    def __init__(self, model: nn.Module, prompts: list[list[int]] | None = None, cache: list | None = None,
                 first: list[int] | None = None, keep_first: int = 0):
        self.model = model
        self.calls: list[list[float]] = []
        self.first_logprobs: list[mx.array] = []
        if cache is None:
            if not prompts or len({len(p) for p in prompts}) != 1:
                raise ValueError("raw decoding prefills prompts of one length (no padding)")
            self.cache = model.make_cache()
            logits = model(mx.array(prompts), cache=self.cache)
            self.next = self._argmax(logits)
            last = logits[:keep_first, -1, :].astype(mx.float32)
            self.first_logprobs = list(last - mx.logsumexp(last, axis=-1, keepdims=True)) if keep_first else []
        else:
            self.cache, self.next = cache, mx.array(first)
        mx.eval(self.next, self.first_logprobs)
        self.history = [self.next]

    @staticmethod
    def _argmax(logits: mx.array) -> mx.array:
        return mx.argmax(logits[:, -1, :], axis=-1)

    def graph(self) -> mx.array:
        """One step's graph, not yet evaluated: the Python side of a step."""
        return self._argmax(self.model(self.next[:, None], cache=self.cache))

    def step(self) -> None:
        self.next = self.graph()
        mx.eval(self.next)
        self.history.append(self.next)

    def run(self, watch: timing.Stopwatch, reps: int) -> None:
        run_steps(watch, reps, self.step, self.calls)

    def sequences(self) -> list[list[int]]:
        """Every sequence's tokens so far, the prefill's first token included."""
        return [list(t) for t in zip(*(h.tolist() for h in self.history))]

    def decoded(self) -> int:
        return len(self.history)


class Batched:
    """B sequences decoding together in one mlx-lm BatchGenerator; one rep is one decode step of all B.

    first_logprobs: the first token's log-probabilities (fp32) for the first `keep_first` sequences.
    """

    pipelined = True

    def __init__(self, model: nn.Module, prompts: list[list[int]], max_tokens: int, keep_first: int = 0):
        b = len(prompts)
        self.calls: list[list[float]] = []
        self.gen = BatchGenerator(model, max_tokens=max_tokens, prefill_batch_size=b, completion_batch_size=b)
        self.uids = self.gen.insert(prompts, [max_tokens] * b)
        self.tokens: dict[int, list[int]] = {uid: [] for uid in self.uids}
        self.first_logprobs: list[mx.array] = []
        responses = self._step()  # prefill and the first token, untimed
        by_uid = {r.uid: r.logprobs for r in responses}
        self.first_logprobs = [by_uid[uid].astype(mx.float32) for uid in self.uids[:keep_first]]
        mx.eval(self.first_logprobs)

    def _step(self) -> list:
        responses = self.gen.next_generated()
        if len(responses) != len(self.uids) or any(r.finish_reason for r in responses):
            raise RuntimeError(f"a timed step did not decode all {len(self.uids)} sequences")
        for r in responses:
            self.tokens[r.uid].append(r.token)
        return responses

    def run(self, watch: timing.Stopwatch, reps: int) -> None:
        run_steps(watch, reps, self._step, self.calls)

    def sequences(self) -> list[list[int]]:
        return [self.tokens[uid] for uid in self.uids]

    def decoded(self) -> int:
        return len(self.tokens[self.uids[0]])


class Looped:
    """B single-sequence generations (generate_step), one after another; one rep is one token of each.

    A sample runs each sequence's reps tokens in turn, so only one sequence (the single path) has steps
    between which the clock can be read: `calls` stays empty for B > 1.
    """

    pipelined = True

    def __init__(self, model: nn.Module, prompts: list[list[int]], max_tokens: int):
        self.calls: list[list[float]] = []
        self.gens = [generate_step(mx.array(p), model, max_tokens=max_tokens) for p in prompts]
        self.tokens: list[list[int]] = [[] for _ in prompts]
        for i in range(len(self.gens)):
            self._step(i)  # prefill and the first token, untimed

    def _step(self, i: int) -> None:
        token, _ = next(self.gens[i])
        self.tokens[i].append(int(token))

    def run(self, watch: timing.Stopwatch, reps: int) -> None:
        if len(self.gens) == 1:
            run_steps(watch, reps, lambda: self._step(0), self.calls)
            return
        sync()
        watch.start()
        for i in range(len(self.gens)):
            for _ in range(reps):
                self._step(i)
        sync()
        watch.stop()

    def sequences(self) -> list[list[int]]:
        return self.tokens

    def decoded(self) -> int:
        return len(self.tokens[0])


def synthetic_cache(model: nn.Module, batch: int, context: int, dtype: mx.Dtype, slack: int = 256) -> list:
    """A decode cache as if `context` tokens had been prefilled, without the prefill.

    Full-attention layers: random keys and values of the right shape and dtype, room for `slack` more
    tokens (so a step writes in place instead of growing the buffer), offset = context. Linear-attention
    layers: a random conv window and recurrent state (fixed size, whatever the context). A decode step's
    time does not depend on these values.
    """
    cache = model.make_cache()
    for layer, c in zip(model.layers, cache):  # drawn in the cache's dtype and evaluated a layer at a time:
        if layer.is_linear:                     # 64 sequences at 32K hold 40 GiB of bf16 keys and values
            la = layer.linear_attn
            c[0] = mx.random.normal((batch, la.conv_kernel_size - 1, la.conv_dim), dtype=dtype, scale=0.1)
            c[1] = mx.random.normal((batch, la.num_v_heads, la.head_v_dim, la.head_k_dim), scale=0.1)
            mx.eval(c[0], c[1])
        else:
            at = layer.self_attn
            shape = (batch, at.num_key_value_heads, context + slack, at.head_dim)
            c.state = (mx.random.normal(shape, dtype=dtype), mx.random.normal(shape, dtype=dtype), context)
            mx.eval(c.keys, c.values)
    return cache


def rewind(cache: list, context: int) -> None:
    """Trim every attention cache back to `context` tokens, so every sample decodes at the same context."""
    for c in cache:
        if isinstance(c, KVCache) and c.offset > context:
            c.trim(c.offset - context)


def split_steps(raw: Raw, seconds: float, max_steps: int) -> list[dict[str, float]]:
    """Raw steps one after another for about `seconds`, each split where the host hands over to the device.

    build: Python builds the step's graph (the model call and argmax, nothing evaluated); launch:
    mx.async_eval (the host encodes and launches the work; on the CPU backend it hands it to the
    stream's thread); wait: mx.synchronize until the device is done. The *_cpu columns are this
    thread's CPU time (time.thread_time) over each part: a busy host thread shows cpu close to wall.
    The clock is read inside one step here, which generator.timing (whole calls) cannot do.
    """
    rows: list[dict[str, float]] = []
    sync()
    began = time.perf_counter()
    while len(rows) < max_steps and (not rows or time.perf_counter() - began < seconds):
        unix = time.time()
        w0, c0 = time.perf_counter(), time.thread_time()
        out = raw.graph()
        w1, c1 = time.perf_counter(), time.thread_time()
        mx.async_eval(out)
        w2, c2 = time.perf_counter(), time.thread_time()
        sync()
        w3, c3 = time.perf_counter(), time.thread_time()
        raw.next = out
        raw.history.append(out)
        rows.append({"started": unix, "step_ms": (w3 - w0) * 1e3, "build_ms": (w1 - w0) * 1e3,
                     "launch_ms": (w2 - w1) * 1e3, "wait_ms": (w3 - w2) * 1e3, "build_cpu_ms": (c1 - c0) * 1e3,
                     "launch_cpu_ms": (c2 - c1) * 1e3, "wait_cpu_ms": (c3 - c2) * 1e3,
                     "host_share": (w2 - w0) / (w3 - w0) if w3 > w0 else math.nan})
    return rows
