"""Independent references: MLX arrays and 4-bit packed weights -> fp32 numpy results, and the error check.

Nothing here calls MLX's own kernels for the arithmetic: the 4-bit unpacker reads the bit layout alone
(not mx.dequantize) and every product is numpy's.
"""

from __future__ import annotations

import math

import mlx.core as mx
import numpy as np


class ReferenceMismatch(Exception):
    """A kernel disagreed with its numpy reference: the probe aborts and records nothing."""


TOLERANCE = {"float32": 1e-4, "float16": 1e-2, "bfloat16": 3e-2}


def unpack(wq: np.ndarray, scales: np.ndarray, biases: np.ndarray, group_size: int, bits: int) -> np.ndarray:
    """Affine-quantized weights -> fp32 matrix, from the bit layout alone (not mx.dequantize).

    wq: uint32 (..., N, K*bits/32), value j of a word in bits [j*bits, (j+1)*bits), low bits first;
    scales, biases: (..., N, K/group_size); w = scale * q + bias within each group along K.
    """
    per_word = 32 // bits
    shifts = np.arange(per_word, dtype=np.uint32) * bits
    q = (wq[..., None] >> shifts) & np.uint32((1 << bits) - 1)
    q = q.reshape(*wq.shape[:-1], -1).astype(np.float32)
    groups = q.reshape(*q.shape[:-1], -1, group_size)
    w = groups * scales[..., None].astype(np.float32) + biases[..., None].astype(np.float32)
    return w.reshape(q.shape)


def to_numpy(a: mx.array) -> np.ndarray:
    """An MLX array as numpy: floating types as fp32 (exact for bf16/fp16), integers unchanged."""
    if mx.issubdtype(a.dtype, mx.floating):
        a = a.astype(mx.float32)
    return np.array(a)


def quantized_matmul_reference(
    x: np.ndarray, wq: mx.array, scales: mx.array, biases: mx.array, group_size: int, bits: int
) -> np.ndarray:
    """x @ W.T in fp32 numpy, W (N, K) unpacked by this module's unpack(), a block of rows at a time."""
    wq_np, scales_np, biases_np = to_numpy(wq), to_numpy(scales), to_numpy(biases)
    x = x.astype(np.float32)
    step = 16384
    blocks = [
        x @ unpack(wq_np[i : i + step], scales_np[i : i + step], biases_np[i : i + step], group_size, bits).T
        for i in range(0, wq_np.shape[0], step)
    ]
    return np.concatenate(blocks, axis=-1)


def relative_error(got: np.ndarray, want: np.ndarray) -> float:
    """max |got - want| / max |want| (inf when got has non-finite values or shapes differ)."""
    if got.shape != want.shape or not np.all(np.isfinite(got)):
        return math.inf
    scale = float(np.max(np.abs(want))) or 1.0
    return float(np.max(np.abs(got.astype(np.float64) - want.astype(np.float64)))) / scale
