"""The unit of every value column the probes write, and whether it was timed or is exact -> each run's declarations.

One table of column names, read by every probe through Session.write, so a name means one thing in every
run (`ms` is milliseconds per call wherever it appears); a probe adds a table's own entries where one name
needs another unit there (fit_bytes.csv's slope is ms per MB, fit.csv's ms per sequence). A column X_min,
X_max, X_p90, X_interval_low or X_interval_high has X's declaration. Units are spelled as claims spell them
(generator/lang/units.py reads both); "" is a plain number (a share, a ratio of like things, an index).

timed: measured, so it varies from run to run (medians of timed rounds, ratios formed from them, readings,
decisions made from them such as which_b's largest_b); exact: counted or computed from the settings, the
same in every run of the same parameters (bytes, counts, closed forms, a seeded Monte Carlo).
"""

from __future__ import annotations

import numbers
from collections.abc import Mapping, Sequence

TIMED, EXACT = "timed", "exact"
Declaration = tuple[str, str]  # (unit, kind)

_T = {  # timed columns
    "ms": "ms", "ms_per_token": "ms/token", "step_ms": "ms", "over_raw_ms": "ms", "fixed_ms": "ms",
    "gb_per_s": "GB/s", "aggregate_tok_per_s": "tok/s", "per_sequence_tok_per_s": "tok/s", "tok_per_s": "tok/s",
    "prefill_tok_per_s": "tok/s", "decode_tok_per_s": "tok/s",
    "speedup": "×", "speedup_vs_single": "×", "speedup_vs_looped": "×", "bandwidth_ratio": "×",
    "predicted_speedup": "×", "over_ceiling": "×", "prefill_over_decode": "×", "r2": "",
    "build_ms": "ms", "launch_ms": "ms", "wait_ms": "ms", "build_cpu_ms": "ms", "launch_cpu_ms": "ms",
    "wait_cpu_ms": "ms", "host_share": "",
    "prefill_s": "s", "first_step_s": "s", "second_step_s": "s", "seconds": "s", "started": "s",
    "largest_b": "sequences", "largest_b_p90": "sequences",
    # the GPU log and the GPU-busy share
    "unix_s": "s", "gpu_util_pct": "%", "mem_util_pct": "%", "sm_clock_mhz": "MHz", "mem_clock_mhz": "MHz",
    "power_w": "W", "temperature_c": "°C", "clock_event_reasons": "",
    "kernel_busy_ms": "ms", "kernel_sum_ms": "ms", "profiled_step_ms": "ms", "busy_share": "",
    "busy_share_profiled": "", "idle_ms": "ms",
}  # fmt: skip
_E = {  # exact columns
    "rounds": "rounds", "reps": "calls", "decode_steps": "steps", "steps": "steps", "p90_steps": "steps",
    "tokens_per_sample": "tokens", "batch": "sequences", "points": "", "interval_level": "", "target_ms": "ms",
    "memory_limit_b": "sequences", "round": "", "step": "", "sequence": "", "trials": "", "bits": "bit",
    "calls": "calls", "max_rel_error": "", "tolerance": "",
    # sizes
    "size_mib": "MiB", "ceiling_size_mib": "MiB", "rows": "rows", "rows_full": "rows", "sweep_rows": "rows",
    "k": "elements", "matrix_over_cache": "", "bytes_moved": "B", "bytes_per_call": "B", "weight_bytes": "B",
    "activation_bytes": "B", "expert_bytes": "B", "matrix_bytes": "B", "cache_bytes": "B",
    "cache_bytes_formula": "B", "active_bytes": "B", "step_peak_bytes": "B", "model_bytes": "B",
    "state_bytes_per_sequence": "B", "bytes_per_step": "B", "weight_bytes_per_step": "B",
    "shared_weight_bytes": "B", "expert_bytes_per_step": "B", "state_bytes_per_step": "B",
    "kv_bytes_per_step": "B", "bytes_per_token": "B/token",
    "byte_ratio": "×", "byte_ratio_expected": "×", "byte_ratio_by_construction": "×",
    "byte_ratio_closed_form": "×", "byte_ratio_mc_mean": "×", "byte_ratio_mc_stderr": "×",
    "byte_ratio_timed_routing": "×",
    # experts
    "experts_read": "experts", "touched_experts": "experts", "timed_routing_touched": "experts",
    "closed_form": "experts", "mc_mean": "experts", "mc_std": "experts", "mc_stderr": "experts",
    "touched_experts_per_layer_mean": "experts",
    # context and memory
    "context_tokens": "tokens", "mean_context_tokens": "tokens", "prompt_tokens": "tokens",
    "tokens_per_call": "tokens", "context_tokens_first": "tokens", "context_tokens_last": "tokens",
    "full_attention_layers": "layers", "linear_attention_layers": "layers", "kv_bytes_per_token": "B/token",
    "kv_bytes_per_token_mlx_lm": "B/token", "kv_bytes_per_sequence": "B", "kv_gb_per_sequence": "GB",
    "kv_gib_per_sequence": "GiB", "linear_state_bytes_per_sequence": "B",
    "linear_state_bytes_per_sequence_mlx_lm": "B", "total_bytes_per_sequence": "B",
    # the model's counts
    "layers": "layers", "layers_linear_attention": "layers", "layers_full_attention": "layers",
    "experts_per_layer": "experts", "experts_per_token": "experts", "vocab_size": "tokens", "hidden_size": "elements",
    "parameters_total": "parameters", "parameters_experts": "parameters",
    "parameters_active_per_token": "parameters/token", "bytes_total": "B", "bytes_embedding": "B",
    "bytes_lm_head": "B", "bytes_full_attention": "B", "bytes_linear_attention": "B", "bytes_router": "B",
    "bytes_shared_expert": "B", "bytes_experts": "B", "bytes_one_expert": "B", "bytes_norms": "B",
    "bytes_active_per_token": "B/token",
    # agreement: tokens compared, log-probability margins and errors (natural log units)
    "sequences_compared": "sequences", "sequences_identical": "sequences", "tokens_compared": "tokens",
    "tokens_equal": "tokens", "first_divergence": "steps", "first_divergence_min": "steps",
    "first_divergence_median": "steps", "margin_at_divergence": "", "margin_at_divergence_median": "",
    "margin_rank_at_divergence": "", "margin_all_steps_min": "", "margin_all_steps_p10": "",
    "margin_all_steps_median": "", "path_token": "", "single_token": "", "top1": "", "top1_fp32": "",
    "top2_fp32": "", "margin_fp32": "", "margin_here": "", "max_abs_error": "", "rms_error": "",
    "kernels_per_step": "kernels/step",
}  # fmt: skip
UNITS: dict[str, Declaration] = {**{c: (u, TIMED) for c, u in _T.items()}, **{c: (u, EXACT) for c, u in _E.items()}}
SUFFIXES = ("_min", "_max", "_p90", "_interval_low", "_interval_high")


def declaration(column: str, own: Mapping[str, Declaration] | None = None) -> Declaration | None:
    """A column's (unit, kind): the table's own entry, else the shared table's, else its base column's
    (X_min, X_max, X_p90, X_interval_low/high); None when nothing declares it."""
    for table in (own or {}, UNITS):
        if column in table:
            return table[column]
    for suffix in SUFFIXES:
        if column.endswith(suffix):
            return declaration(column.removesuffix(suffix), own)
    return None


def is_number(value: object) -> bool:
    """A cell that holds a number (numpy's too; bools are flags, not values)."""
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def numeric_columns(rows: Sequence[Mapping[str, object]]) -> list[str]:
    """Columns with a number in some row and nothing but numbers and blanks (None, "") in every row."""
    numeric: dict[str, None] = {}
    other: set[str] = set()
    for row in rows:
        for column, value in row.items():
            if is_number(value):
                numeric[column] = None
            elif value is not None and value != "":
                other.add(column)  # text or a flag somewhere: not a value column
    return [column for column in numeric if column not in other]


def declare(tables: Mapping[str, Sequence[Mapping[str, object]]],
            own: Mapping[str, Mapping[str, Declaration]] | None = None,
            ) -> tuple[dict[str, dict[str, Declaration]], list[str]]:
    """(declarations per table, 'table: column' for each numeric column nothing declares); samples files share
    their table's declarations and are not declared themselves."""
    declared: dict[str, dict[str, Declaration]] = {}
    missing: list[str] = []
    for name, rows in tables.items():
        if name == "samples.csv" or name.endswith(".samples.csv"):
            continue
        mine = (own or {}).get(name, {})
        for column in numeric_columns(rows):
            found = declaration(column, mine)
            if found is None:
                missing.append(f"{name}: {column}")
            else:
                declared.setdefault(name, {})[column] = found
    return declared, missing
