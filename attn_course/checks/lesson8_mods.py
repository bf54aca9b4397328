"""The classic mistakes of lesson 8's FlexAttention mask_mods and score_mods (exercises 1 to 3): causal, cache and
padding masks, ALiBi as a score_mod, and a sliding window.

Each classic mistake is a variant: a function of the same inputs that makes that mistake. The exercises' procedures
(attn_course.probes.lesson8_flex) name the variant the learner's result equals (matching_bug), in the grader and in
the visible check alike.
"""
from __future__ import annotations

import math

import torch

from .lesson8_common import attend, grid


def causal_variants(n: int) -> dict:
    q, k = grid(n, n)
    return {None: q >= k, "hint_flex_strict": q > k, "hint_flex_upper": q <= k}


def cache_variants(t_new: int, t_past: int) -> dict:
    q, k = grid(t_new, t_past + t_new)
    return {None: q + t_past >= k, "hint_flex_top_left": q >= k, "hint_flex_offset_kv": q >= k + t_past}


def padding_variants(n: int, lengths: torch.Tensor) -> dict:
    """(B, 1, n, n) masks: causal and the keys before each row's length; and the mistakes."""
    q, k = grid(n, n)
    q, k, length = q[None, None], k[None, None], lengths[:, None, None, None]
    causal = q >= k
    return {None: causal & (k < length), "hint_flex_padding_queries": causal & (q < length),
            "hint_flex_padding_off_by_one": causal & (k <= length), "hint_flex_padding_no_causal": k < length,
            "hint_flex_padding_ignored": causal.expand(len(lengths), 1, n, n)}


def mask_hint(got, right, offset: int = 0, rules=()) -> str | None:
    """A mask that is no classic mistake's: which kind of key it gets wrong. A future key seen comes first, then
    each of rules ((hint, forbidden region) seen), then a query that does not see itself. got and right have one
    shape; offset is the first query's true position (T_past with a cache)."""
    if not (isinstance(got, torch.Tensor) and got.dtype == torch.bool and got.shape == right.shape):
        return None
    q, k = grid(right.size(-2), right.size(-1), offset)
    extra, missing = got & ~right, right & ~got
    if (extra & (k > q)).any():
        return "hint_mask_future"
    for key, region in rules:
        if (extra & region).any():
            return key
    if (missing & (k == q)).any():
        return "hint_mask_self_hidden"
    return None


def padding_rules(n: int, lengths: torch.Tensor) -> tuple:
    return (("hint_mask_padding_keys", grid(n, n)[1][None, None] >= lengths[:, None, None, None]),)


def window_rules(window: int, t_new: int, t_past: int) -> tuple:
    q, k = grid(t_new, t_past + t_new, t_past)
    return (("hint_mask_too_old", k <= q - window),)


# --------------------------------------------------------------------------- exercise 2: ALiBi as a score_mod
def alibi_bias_of(slopes: torch.Tensor, n: int, bug: str | None = None) -> torch.Tensor:
    """(H or B, 1, n, n)-broadcastable bias −m_h (i − j), or a mistake's."""
    q, k = grid(n, n)
    distance = (q - k).to(slopes.dtype)
    m = slopes[:, None, None]
    return {None: -m * distance, "hint_alibi_mod_sign": m * distance}.get(bug, -m * distance)


def alibi_variants(q, k, v, slopes) -> dict:
    n = q.size(-2)
    keep = grid(n, n)[0] >= grid(n, n)[1]
    bias = alibi_bias_of(slopes.to(q.dtype), n)                                   # (H, n, n)
    by_batch = alibi_bias_of(slopes[:q.size(0)].to(q.dtype), n)[:, None]          # (B, 1, n, n): slopes[b]
    # slopes[0] for every head; with one row in the batch slopes[b] is that too, and this names both (its fix).
    return {None: attend(q, k, v, keep, bias),
            "hint_alibi_mod_sign": attend(q, k, v, keep, -bias),
            "hint_alibi_mod_score_dropped": attend(torch.zeros_like(q), k, v, keep, bias),
            "hint_alibi_mod_one_slope": attend(q, k, v, keep, bias[:1]),
            "hint_alibi_mod_batch": attend(q, k, v, keep, by_batch) if 2 <= q.size(0) <= len(slopes) else None}


def causal(b, h, q_idx, kv_idx):
    return q_idx >= kv_idx


def score_slope(mod) -> float | None:
    """How much the learner's score_mod changes its output when the score it is given grows by 1: 1 when it only
    adds a bias, 0 when it drops the score, 1/√D when it scales the score again (None when the mod cannot run on
    single values)."""
    try:
        index = [torch.tensor(i) for i in (0, 0, 3, 1)]
        low, high = (mod(torch.tensor(s, dtype=torch.float64), *index) for s in (0.0, 1.0))
        return float(high - low)
    except Exception:  # noqa: BLE001 - a mod that needs flex_attention's own call: no slope, no hint from it
        return None


def score_slope_hint(slope) -> str | None:
    """The score multiplied or divided again inside the mod (it already is q·k/√D)."""
    ok = slope is None or not math.isfinite(slope) or abs(slope - 1) < 1e-6 or abs(slope) < 1e-6
    return None if ok else "hint_alibi_mod_score_scaled"


# --------------------------------------------------------------------------- exercise 3: sliding window
def window_variants(window: int, t_new: int, t_past: int) -> dict:
    """Mistral's rule: a query at position p sees keys p − W < j ≤ p, W keys with itself."""
    q, k = grid(t_new, t_past + t_new, t_past)
    causal_ = k <= q
    return {None: causal_ & (k > q - window), "hint_window_plus_one": causal_ & (k >= q - window),
            "hint_window_minus_one": causal_ & (k > q - window + 1), "hint_window_no_causal": k > q - window,
            "hint_window_shifted": (k < q) & (k >= q - window),
            "hint_window_top_left": (k <= q - t_past) & (k > q - t_past - window)}
