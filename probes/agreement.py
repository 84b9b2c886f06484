"""Agreement: the tokens and first-step logits of each decode path -> agreement.csv, divergence.csv, first_step.csv.

Greedy tokens of the batched paths (BatchGenerator, raw forward) against the single-sequence path, and
each path's first-step log-probabilities against a float32 computation of the same step on the same
4-bit weights (scales, biases, norms and activations in fp32; the packed words shared), so a token that
differs can be told a near-tie (the fp32 margin between the top two is smaller than the path's error)
from a fault (a path's error far beyond the single path's, or a flip over a wide margin).
"""

from __future__ import annotations

import statistics

import mlx.core as mx
import mlx.nn as nn
import numpy as np
from mlx.utils import tree_map
from mlx_lm.generate import generate_step

from probes import config as configs
from probes import model_build


def greedy_with_margins(model, prompt: list[int], tokens: int,
                        max_tokens: int) -> tuple[list[int], list[float], mx.array]:
    """The single-sequence path's greedy tokens; per step, top-1 minus top-2 log-probability (= logit margin);
    and the first step's log-probabilities (fp32)."""
    out, margins, first = [], [], None
    for token, logprobs in generate_step(mx.array(prompt), model, max_tokens=max_tokens):
        lp = logprobs.astype(mx.float32)
        first = lp if first is None else first
        top2 = np.sort(np.array(lp))[-2:]
        out.append(int(token))
        margins.append(float(top2[1] - top2[0]))
        if len(out) == tokens:
            break
    assert first is not None
    return out, margins, first


def first_divergence(a: list[int], b: list[int]) -> int | None:
    """Index of the first differing token over the common length; None when they agree throughout."""
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return i
    return None


def token_tables(paths: dict[tuple[str, int], list[list[int]]], reference: list[tuple[list[int], list[float]]]
                 ) -> tuple[list[dict], list[dict]]:
    """Each path's tokens vs the single path's (reference: tokens and margins per prompt) -> (summary, per sequence)."""
    all_margins = [m for _, margins in reference for m in margins]
    summary, per_sequence = [], []
    for (mode, b), sequences in paths.items():
        found = []
        for i, got_all in enumerate(sequences[: len(reference)]):
            want, margins = reference[i]
            got = got_all[: len(want)]
            at = first_divergence(got, want)
            margin = margins[at] if at is not None else None
            found.append((at, margin, len(got), sum(x == y for x, y in zip(got, want))))
            per_sequence.append({
                "mode": mode, "batch": b, "sequence": i, "tokens_compared": len(got), "identical": at is None,
                "first_divergence": at, "margin_at_divergence": margin,
                "margin_rank_at_divergence": (sum(m <= margin for m in all_margins) / len(all_margins)
                                              if margin is not None else None),
                "path_token": got[at] if at is not None else None,
                "single_token": want[at] if at is not None else None,
            })
        diverged = [x for x in found if x[0] is not None]
        summary.append({
            "mode": mode, "batch": b, "sequences_compared": len(found), "tokens_compared": sum(x[2] for x in found),
            "tokens_equal": sum(x[3] for x in found), "sequences_identical": sum(x[0] is None for x in found),
            "first_divergence_min": min((x[0] for x in diverged), default=None),
            "first_divergence_median": statistics.median([x[0] for x in diverged]) if diverged else None,
            "margin_at_divergence_median": statistics.median([x[1] for x in diverged]) if diverged else None,
            "margin_all_steps_min": min(all_margins), "margin_all_steps_p10": float(np.percentile(all_margins, 10)),
            "margin_all_steps_median": statistics.median(all_margins),
        })
    return summary, per_sequence


def as_float32(model: nn.Module, config: configs.ModelConfig) -> nn.Module:
    """The same model with every floating array in fp32 (scales, biases, norms): the packed words are shared."""
    copy = model_build.build(config, mx.float32, materialise=False)  # the structure; its own arrays never evaluated
    copy.update(tree_map(lambda v: v.astype(mx.float32) if mx.issubdtype(v.dtype, mx.floating) else v,
                         model.parameters()))
    mx.eval(copy.parameters())
    return copy


def first_logprobs(model: nn.Module, prompt: list[int]) -> mx.array:
    """Log-probabilities (fp32) of the token after `prompt`, one sequence, a fresh cache."""
    logits = model(mx.array([prompt]), cache=model.make_cache())[0, -1].astype(mx.float32)
    return logits - mx.logsumexp(logits)


def first_step_rows(paths: dict[tuple[str, int], list[mx.array]], reference: list[mx.array]) -> list[dict]:
    """Each path's first-step log-probabilities (one per sequence) against the fp32 reference of that sequence.

    margin_fp32: the reference's top-1 minus top-2; margin_here: the path's own difference between
    those two tokens (negative: the path ranks them the other way); max_abs_error: the largest
    |difference| over the vocabulary. A flip with margin_fp32 below the path's error is a near-tie.
    """
    rows = []
    for (mode, b), logprobs in paths.items():
        for i, got in enumerate(logprobs[: len(reference)]):
            want = np.array(reference[i])
            here = np.array(got.astype(mx.float32))
            top1, top2 = np.argsort(want)[-1], np.argsort(want)[-2]
            error = np.abs(here - want)
            rows.append({
                "mode": mode, "batch": b, "sequence": i, "top1": int(np.argmax(here)), "top1_fp32": int(top1),
                "top2_fp32": int(top2), "same_top1": bool(np.argmax(here) == top1),
                "margin_fp32": float(want[top1] - want[top2]), "margin_here": float(here[top1] - here[top2]),
                "max_abs_error": float(error.max()), "rms_error": float(np.sqrt(np.mean(error**2))),
            })
    return rows
