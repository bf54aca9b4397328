"""Lesson 8's visible checks, sections 1 to 3: FlexAttention's mask_mod and score_mod, sliding windows,
a rolling (ring-buffer) KV cache, StreamingLLM's kept first tokens and gpt-oss's learned sink.
Sections 4 to 7 (MLA, caches that do not copy, packed sequences, cache sizes) are in lesson8_caches.

Each classic mistake is a variant: a function of the same inputs that makes that mistake. The visible checks
name the variant the learner's result equals; the grader's judges compute the same variants on their own
inputs (matching_bug), so both name a mistake alike.
"""
from __future__ import annotations

import math

import torch

from ..messages import t
from ..validate import CheckFailed
from .engine import close, expect_shape, inputs, max_error, pair_swapped, passed, run
from .lesson7 import alibi_slopes, rope
from .lesson8_common import (  # noqa: F401 - the grader's too
    all_nan, as_named, cache_pair_swapped, hint_text, length_error, matched_so_far, rolling_bug,
)

# Batch, heads, sequence, head width: all different, so a mixed-up axis shows as a wrong size.
B, H, T, D = 3, 2, 7, 6

from .flex import FLEX_WARNING, create_mask, flex, quiet_flex  # noqa: F401 - lesson 8's checks and probes use them


def attend(q, k, v, keep=None, bias=None, scale=None):
    """Attention written out: softmax(q kᵀ / √D + bias, masked) v. keep broadcasts to (…, T_q, T_k)."""
    s = q @ k.transpose(-2, -1) * (scale if scale is not None else 1 / math.sqrt(q.size(-1)))
    if bias is not None:
        s = s + bias
    if keep is not None:
        s = s.masked_fill(~keep, float("-inf"))
    return torch.softmax(s, -1).nan_to_num(0.0) @ v   # a row with no key: 0, as flex_attention gives


# Each message for a span of tokens, and its form for one token ("position 5", not "5 to 5").
ONE_TOKEN = {"rolling_differs": "rolling_differs_one", "stream_differs": "stream_differs_one",
             "cache_differs": "cache_differs_one"}


def one_or_span(key: str, lo: int, hi: int) -> str:
    """The message for tokens lo … hi − 1: its "_one" form when that is one token."""
    return ONE_TOKEN[key] if hi - lo == 1 else key


def cache_none_error(kind: str, message: str, call: str) -> bool:
    """The first call of a cache exercise (its cache argument None) failed on None itself: the cache unpacked or
    indexed before `if cache is None` (or with that test the wrong way round)."""
    return ", None," in call and "NoneType" in message and (
        "cannot unpack" in message or "not subscriptable" in message or "has no attribute" in message)


def streaming_error(kind: str, message: str, call: str = "") -> str | None:
    return "hint_cache_none" if cache_none_error(kind, message, call) else length_error(kind, message)


def control_flow_error(kind: str, message: str, call: str = "") -> str | None:
    """`and`, `or`, `if` or `min` on the index tensors inside a mod: vmap cannot follow Python's branches."""
    if "data-dependent control flow" in message or "Boolean value of Tensor" in message:
        return "hint_flex_control_flow"
    if "must only return Tensors" in message:
        return "hint_flex_python_bool"
    return None


def _masked(q, k, keep, fill=float("-inf"), hide=None):
    s = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
    return s.masked_fill(~keep if hide is None else hide, fill)


# The attention core's classic mistakes, for every exercise that writes it out: fn(q, k, v, keep) -> each head's
# output, NaN where the mistake gives NaN (a check compares both with NaN as 0).
CORE_MISTAKES = {
    "hint_mask_not_used": lambda q, k, v, keep: torch.softmax(_masked(q, k, keep, hide=torch.zeros_like(keep)), -1) @ v,
    "hint_inverted_mask": lambda q, k, v, keep: torch.softmax(_masked(q, k, keep, hide=keep), -1) @ v,
    # Before softmax's axes: with -inf left in the weights every output is NaN, and so is softmax over the batch where
    # the mask hides a key in every row (a ring's empty slots): all-NaN outputs are the missing softmax, on both sides.
    "hint_no_softmax": lambda q, k, v, keep: _masked(q, k, keep) @ v,
    ("hint_softmax_axis", (("axis", 0),)): lambda q, k, v, keep: torch.softmax(_masked(q, k, keep), 0) @ v,
    ("hint_softmax_axis", (("axis", 1),)): lambda q, k, v, keep: torch.softmax(_masked(q, k, keep), 1) @ v,
    ("hint_softmax_axis", (("axis", -2),)): lambda q, k, v, keep: torch.softmax(_masked(q, k, keep), -2) @ v,
    "hint_mask_fill_zero": lambda q, k, v, keep: torch.softmax(_masked(q, k, keep, 0.0), -1) @ v,
    "hint_weights_times_keys": lambda q, k, v, keep: torch.softmax(_masked(q, k, keep), -1) @ (   # inf: no such case
        k if k.shape == v.shape else v.new_full(v.shape, float("inf"))),
}
# Not among the core's mistakes everywhere: where another width is the divisor (MLA's √(d_C − d_R) with d_C − d_R = 1)
# it would name this for the wrong width; the rolling cache's scores have one width.
UNSCALED = {"hint_no_scale": lambda q, k, v, keep: torch.softmax(_masked(q * math.sqrt(q.size(-1)), k, keep), -1) @ v}


# --------------------------------------------------------------------------- exercise 1: mask_mods
def grid(n_q: int, n_k: int, offset: int = 0):
    """Each query's absolute position (offset + row) and each key's: (n_q, 1) and (1, n_k)."""
    return torch.arange(offset, offset + n_q)[:, None], torch.arange(n_k)[None, :]


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


def _expect_mask(got, variants: dict, what: str, offset: int = 0, rules=()) -> None:
    right = variants[None]
    right = right if right.dim() == 4 else right[None, None]
    if not isinstance(got, torch.Tensor) or got.dtype != torch.bool:
        raise CheckFailed(t("flex_mask_not_bool", what=what, kind=getattr(got, "dtype", type(got).__name__)))
    if got.shape != right.shape:
        got = got.expand_as(right) if got.dim() == 4 and got.size(0) == 1 else got
    if torch.equal(got, right):
        return
    hint = next((t(key) for key, v in variants.items()
                 if key and torch.equal(got, (v if v.dim() == 4 else v[None, None]).expand_as(got))), None)
    if hint is None:
        key = mask_hint(got, right, offset, rules)
        hint = t(key) if key else None
    wrong = int((got != right).sum())
    raise CheckFailed(t("flex_mask_differs", what=what, n=wrong, total=right.numel()), hint)


def check_mask_mods(causal_mod, cache_mod, causal_padding_mod) -> None:
    name = "mask_mods"
    got = run("causal_mod", create_mask, causal_mod, None, T, T, on_error=control_flow_error)
    _expect_mask(got, causal_variants(T), "causal_mod")
    t_new, t_past = 3, 4
    mod = run("cache_mod", cache_mod, t_past)
    got = run("cache_mod(T_past)", create_mask, mod, None, t_new, t_past + t_new, on_error=control_flow_error)
    _expect_mask(got, cache_variants(t_new, t_past), f"cache_mod({t_past})", t_past)
    lengths = torch.tensor([T, 3, 5])
    mod = run("causal_padding_mod", causal_padding_mod, lengths)
    got = run("causal_padding_mod(lengths)", create_mask, mod, B, T, T, on_error=control_flow_error)
    _expect_mask(got, padding_variants(T, lengths), "causal_padding_mod", rules=padding_rules(T, lengths))
    # The same mods in flex_attention: the lesson-6 cache's output, without writing a mask tensor.
    q, k, v = inputs((B, H, t_new, D), (B, H, t_past + t_new, D), (B, H, t_past + t_new, D), seed=81)
    y = run("flex_attention(…, cache_mod)", flex, q, k, v, cache_mod(t_past))
    want = attend(q, k, v, cache_variants(t_new, t_past)[None])
    if not close(y, want, 1e-9):
        raise CheckFailed(t("values_differ", what=t("what_output"), err=max_error(y, want)))
    passed(name)


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
    return {None: attend(q, k, v, keep, bias),
            "hint_alibi_mod_sign": attend(q, k, v, keep, -bias),
            "hint_alibi_mod_score_dropped": attend(torch.zeros_like(q), k, v, keep, bias),
            "hint_alibi_mod_batch": attend(q, k, v, keep, by_batch) if q.size(0) <= len(slopes) else None}


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


def check_alibi_score_mod(fn) -> None:
    name = "alibi_score_mod"
    heads = 4
    slopes = alibi_slopes(heads).float()
    q, k, v = inputs((B - 1, heads, T, D), (B - 1, heads, T, D), (B - 1, heads, T, D), seed=82)
    mod = run(name, fn, slopes.double())
    y = run("flex_attention(…, score_mod)", flex, q, k, v, causal, mod, on_error=control_flow_error)
    expect_shape(y, tuple(q.shape), ("B", "H", "T", "D"), t("what_output"))
    variants = {key: val for key, val in alibi_variants(q, k, v, slopes.double()).items() if val is not None}
    if not close(y, variants[None], 1e-9):
        hint = next((t(key) for key, val in variants.items() if key and close(y, val, 1e-9)), None)
        scaled = score_slope_hint(score_slope(mod))
        raise CheckFailed(t("values_differ", what=t("what_output"), err=max_error(y, variants[None])),
                          hint or (t(scaled) if scaled else None))
    passed(name)


# --------------------------------------------------------------------------- exercise 3: sliding window
def window_variants(window: int, t_new: int, t_past: int) -> dict:
    """Mistral's rule: a query at position p sees keys p − W < j ≤ p, W keys with itself."""
    q, k = grid(t_new, t_past + t_new, t_past)
    causal_ = k <= q
    return {None: causal_ & (k > q - window), "hint_window_plus_one": causal_ & (k >= q - window),
            "hint_window_minus_one": causal_ & (k > q - window + 1), "hint_window_no_causal": k > q - window,
            "hint_window_shifted": (k < q) & (k >= q - window),
            "hint_window_top_left": (k <= q - t_past) & (k > q - t_past - window)}


WINDOW_CASES = ((3, 6, 0), (3, 1, 8), (4, 3, 5))   # (W, T_new, T_past): a prefill longer than W, a step, a chunk


def check_sliding_window_mod(fn) -> None:
    name = "sliding_window_mod"
    for window, t_new, t_past in WINDOW_CASES:
        mod = run(name, fn, window, t_past)
        got = run(f"{name}({window}, T_past={t_past})", create_mask, mod, None, t_new, t_past + t_new,
                  on_error=control_flow_error)
        _expect_mask(got, window_variants(window, t_new, t_past), f"{name}({window}, T_past={t_past})", t_past,
                     window_rules(window, t_new, t_past))
    passed(name)


# --------------------------------------------------------------------------- exercise 4: a rolling cache
def sliding_reference(q, k, v, window, turn):
    """Full sliding-window attention with RoPE at positions 0 … T−1: what decoding with a rolling cache gives."""
    n = q.size(-2)
    q, k = turn(q, k, torch.arange(n))
    keep = window_variants(window, n, 0)[None]
    return attend(q, k, v, keep)


def rolling_run(q, k, v, chunks, window, turn, restart=False, plus_one=False, empty=True, write_first=False,
                grow=False, turn_at=None, core=None, swap_qk=False, swap_kv=False, swap_ring=False, new_first="",
                strict=False, seen_off=False, write_join=False) -> tuple[list, list]:
    """What a rolling cache returns for each chunk (outputs, and the ring's (k, v, pos) after each call):
    right with the defaults, or one classic mistake. turn_at: RoPE alone at the wrong positions ("restart": from 0
    on every call; "slots": at p % window), the ring and the mask at the right ones. core: one of CORE_MISTAKES in
    the attention itself; swap_qk: rope's two results taken the other way round; swap_kv: keys and values swapped
    where the ring and the new tokens are joined; swap_ring: the ring unpacked or returned as (v_ring, k_ring, pos);
    new_first: some of "k", "v", "p", the new keys, values or positions joined before the ring's, the others
    after; strict: key_pos < p, a token not seeing itself; seen_off: T_seen = pos.max() without + 1; write_join: the
    new tokens written into the ring first, then the ring and the new tokens joined."""
    b, h, _, d = q.shape
    ring_k, ring_v = q.new_zeros(b, h, window, d), v.new_zeros(b, h, window, v.size(-1))
    pos = torch.full((window,), -1, dtype=torch.long)
    outputs, rings = [], []
    for lo, hi in chunks:
        n = hi - lo
        if swap_ring:
            ring_k, ring_v = ring_v, ring_k
        seen = int(pos.max()) + (0 if seen_off else 1)
        positions = torch.arange(n) if restart else torch.arange(seen, seen + n)
        turned = {"restart": torch.arange(n), "slots": positions % window}.get(turn_at, positions)
        qq, kk = turn(q[:, :, lo:hi], k[:, :, lo:hi], turned)
        if swap_qk:
            kk, qq = qq, kk
        last = min(n, window)
        slots = positions[-last:] % window
        def write():
            ring_k[:, :, slots], ring_v[:, :, slots] = kk[:, :, -last:], v[:, :, hi - last:hi]
            pos[slots] = positions[-last:]
        if write_first:   # the new tokens written into the ring first, then only the ring attended
            write()
            keys, values, key_pos = ring_k, ring_v, pos
        else:
            if write_join:
                ring_k, ring_v, pos = ring_k.clone(), ring_v.clone(), pos.clone()
                write()

            def join(part, ring, new, dim=2):
                return torch.cat([new, ring] if part in new_first else [ring, new], dim)
            keys, values = join("k", ring_k, kk), join("v", ring_v, v[:, :, lo:hi])
            key_pos = join("p", pos, positions, 0)
            if swap_kv:
                keys, values = values, keys
        keep = (key_pos < positions[:, None] if strict else key_pos <= positions[:, None]) & (key_pos >= positions[:, None] - window if plus_one
                                                  else key_pos > positions[:, None] - window)
        if empty:
            keep = keep & (key_pos >= 0)
        outputs.append(attend(qq, keys, values, keep) if core is None else
                       torch.nan_to_num({**CORE_MISTAKES, **UNSCALED}[core](qq, keys, values, keep)))
        if grow:
            rings.append((keys, values, key_pos))
            ring_k, ring_v, pos = keys, values, key_pos
            continue
        if not write_first:
            ring_k, ring_v, pos = ring_k.clone(), ring_v.clone(), pos.clone()
            write()
        rings.append((ring_k.clone(), ring_v.clone(), pos.clone()))
    return outputs, rings


def first_turned(q, k, v, n: int, turn) -> tuple:
    """The first call's q and k turned at positions 0 … n−1, and its v: plain attention's inputs."""
    qq, kk = turn(q[:, :, :n], k[:, :, :n], torch.arange(n))
    return qq, kk, v[:, :, :n]


def first_call_hint(*args, **kwargs):
    from .lesson8_caches import first_call_hint as find   # the caches module imports this one
    return find(*args, **kwargs)


def unmerged(h: int):
    from .lesson8_caches import unmerged as split
    return split(h)


ROLLING_BUGS = {"hint_rolling_positions": dict(restart=True), "hint_rolling_window": dict(plus_one=True),
                "hint_rolling_empty": dict(empty=False), "hint_rolling_write_first": dict(write_first=True),
                "hint_rolling_rope_restart": dict(turn_at="restart"), "hint_rolling_rope_slots": dict(turn_at="slots"),
                "hint_rope_qk_swapped": dict(swap_qk=True), "hint_keys_values_swapped": dict(swap_kv=True),
                "hint_cache_kv_swapped": dict(swap_ring=True), "hint_mask_self_hidden": dict(strict=True),
                **{("hint_rolling_join_order", part): dict(new_first=part) for part in ("k", "v", "p", "kv", "kp", "vp")},
                **{key: dict(core=key) for key in {**CORE_MISTAKES, **UNSCALED}},
                "hint_rolling_seen_off": dict(seen_off=True), "hint_rolling_write_then_join": dict(write_join=True)}


def rolling_error(kind: str, message: str, call: str = "") -> str | None:
    """A slot past the ring's end: the position used as the slot without % window. A ring of another dtype than
    the keys (torch.zeros without dtype=: float32): writing float64 keys into it fails."""
    if "out of bounds" in message:   # not "Dimension out of range"
        return "hint_rolling_modulo"
    if "cannot be broadcast to indexing result" in message:
        return "hint_rolling_write"   # slots and the tokens written to them are not as many
    if cache_none_error(kind, message, call):
        return "hint_cache_none"
    if "for the destination and Long for the source" in message:   # pos made with -1.0: a float pos given positions
        return "hint_rolling_pos_dtype"
    if "dtypes match" in message or "expected scalar type" in message.lower() or "same dtype" in message:
        return "hint_rolling_ring_dtype"
    return length_error(kind, message)


def ring_replaced(shapes, pos, lo: int, hi: int, window: int) -> bool:
    """The ring's names bound to a new tensor (k_ring = k, k_ring = k[:, :, -last:]) where it is written into
    (k_ring[:, :, slots] = …), after the call given tokens lo … hi − 1: a K or V ring (shapes) with last = min(T_new,
    W) < W slots or all T_new > W new tokens, or pos holding those tokens' positions in their order, not at their
    slots p % W."""
    last = min(hi - lo, window)
    rebound = any(isinstance(s, (list, tuple)) and len(s) == 4 and s[2] != window and s[2] in (last, hi - lo)
                  for s in shapes)
    return rebound or (isinstance(pos, torch.Tensor) and pos.dim() == 1
                       and pos.tolist() in (list(range(hi - last, hi)), list(range(lo, hi))))


def ring_shape_hint(rings, parts, lo: int, hi: int, window: int) -> str | None:
    """A ring of the wrong shape after the call given tokens lo … hi − 1 (rings: the K and V rings' shapes; parts: all
    three parts'): its names bound to the new tokens (k_ring = k: T_new slots, more than W on the prefill, with no
    torch.cat), then grown past W (what torch.cat joined returned as the cache), then its parts in another order."""
    if ring_replaced(rings, None, lo, hi, window):
        return "hint_rolling_replaced"
    if any(isinstance(s, (list, tuple)) and len(s) == 4 and s[2] > window for s in rings):
        return "hint_rolling_grows"
    return "hint_rolling_ring_order" if ring_order_wrong(parts) else None


def ring_order_wrong(shapes) -> bool:
    """The ring returned with its parts in another order than (k_ring, v_ring, pos): shapes of the three parts."""
    dims = [len(s) if isinstance(s, (list, tuple)) else None for s in shapes]
    return sorted(d for d in dims if d) == [1, 4, 4] and dims != [4, 4, 1]


def _ring(result, name):
    if not (isinstance(result, tuple) and len(result) == 2 and isinstance(result[1], tuple) and len(result[1]) == 3):
        raise CheckFailed(t("rolling_not_pair", name=name, kind=type(result).__name__),
                          t("hint_cache_pair_order", name=name) if cache_pair_swapped(result, 3) else None)
    return result


ROLLING_CHUNKS = ((0, 5), (5, 6), (6, 7), (7, 9), (9, 10), (10, 11))   # W = 4: a prefill past W, steps, a chunk


def check_attend_rolling(fn) -> None:
    name = "attend_rolling"
    window, n = 4, 11
    q, k, v = inputs((B, H, n, D), (B, H, n, D), (B, H, n, D), seed=83)
    turn = lambda a, b_, p: rope(a, b_, p, 100.0)  # noqa: E731 - a small base: positions matter a lot
    want, rings = rolling_run(q, k, v, ROLLING_CHUNKS, window, turn)
    full = sliding_reference(q, k, v, window, turn)
    cache, so_far, pos_so_far = None, [], []
    for index, (lo, hi) in enumerate(ROLLING_CHUNKS):
        call = f"{name}(q, k, v, {'None' if cache is None else 'cache'}, {window}, rope)"
        y, cache = _ring(run(call, fn, q[:, :, lo:hi], k[:, :, lo:hi], v[:, :, lo:hi], cache, window, turn,
                             on_error=rolling_error), name)
        expect_shape(y, (B, H, hi - lo, D), ("B", "H", "T_new", "D"), t("what_output"))
        so_far.append(y)
        pos_so_far.append(cache[2].clone() if isinstance(cache[2], torch.Tensor) else cache[2])
        for part, ring in zip("KV", cache[:2]):
            shape = [tuple(ring.shape)] if isinstance(ring, torch.Tensor) else []
            parts = [tuple(z.shape) if isinstance(z, torch.Tensor) else None for z in cache]
            hint = ring_shape_hint(shape, parts, lo, hi, window)
            expect_shape(ring, (B, H, window, D), ("B", "H", "W", "D"), t("what_ring", part=part),
                         t(hint) if hint else None)
        if not close(y, full[:, :, lo:hi], 1e-9):
            # A query left with no key (NaN from torch.softmax) compares as the variants' 0.
            key = all_nan(so_far) or rolling_bug(so_far, pos_so_far, lambda **bug: rolling_run(
                q, k, v, ROLLING_CHUNKS, window, turn, **bug))
            hint = hint_text(key) if key else None
            if hint is None and index == 0:
                key = first_call_hint(y, *first_turned(q, k, v, hi, turn), window_variants(window, hi, 0)[None],
                                      unmerged(H))
                hint = hint_text(key) if key else None
            raise CheckFailed(t(one_or_span("rolling_differs", lo, hi), lo=lo, last=hi - 1,
                                err=max_error(y, full[:, :, lo:hi])), hint)
        pos = cache[2]
        if not (isinstance(pos, torch.Tensor) and torch.equal(pos.cpu(), rings[index][2])):
            raise CheckFailed(t("rolling_positions_differ", n=hi, got=getattr(pos, "tolist", lambda: pos)(),
                                want=rings[index][2].tolist()),
                              t("hint_rolling_replaced") if ring_replaced((), pos, lo, hi, window) else None)
    passed(name)


# --------------------------------------------------------------------------- exercise 5: StreamingLLM
def streaming_run(q, k, v, chunks, n_sink, window, turn, sinks=True, rotated=False, late=False,
                  budget_slack=False, top_left=False, swap_cache=False, swap_join=False, new_first="",
                  sink_order="", mask_sign=False, tail=False, turned_cache=False, q_zero=False,
                  diag_less=0) -> tuple[list, list]:
    """StreamingLLM (Xiao et al., their StartRecentKVCache and position shift): before a call, evict so that
    the cache holds at most n_sink + window tokens with the new ones; keys are cached before rotation and
    turned at their positions in the cache. Outputs and cache lengths per call, or one classic mistake's
    (sinks="dropped": only the last window − T_new kept; top_left: is_causal=True's mask; swap_cache: the cache
    unpacked or returned as (v, k); swap_join: old and new values joined as the keys and keys as the values;
    new_first / sink_order: "k", "v" or "kv", the new tokens joined before the cache / the kept recent tokens
    before the sinks; mask_sign: the diagonal shifted left, tril(diagonal=T_new − L_all); tail: the recent tokens
    kept as x[:, :, -(window − T_new):], all of them when T_new = window; turned_cache: the rotated keys returned as
    the cache, turned again on every call; q_zero: queries turned at 0 …; diag_less: tril(diagonal=L_all − T_new − 1))."""
    cache_k = cache_v = None
    outputs, lengths = [], []
    for lo, hi in chunks:
        n = hi - lo
        kk, vv = k[:, :, lo:hi], v[:, :, lo:hi]
        if swap_cache and cache_k is not None:
            cache_k, cache_v = cache_v, cache_k
        if rotated:   # keys turned once, at their cache position on arrival, and never again
            start = 0 if cache_k is None else cache_k.size(2)
        if cache_k is not None and not late:
            cache_k, cache_v = evict(cache_k, cache_v, n_sink, window - (0 if budget_slack else n), sinks, sink_order,
                                     tail)
            start = cache_k.size(2)
        if rotated:
            kk = turn(kk, kk, torch.arange(start, start + n))[1]
        if cache_k is None:
            cache_k, cache_v = kk, vv
        elif swap_join:
            cache_k, cache_v = torch.cat([cache_v, vv], 2), torch.cat([cache_k, kk], 2)
        else:
            cache_k = torch.cat([kk, cache_k] if "k" in new_first else [cache_k, kk], 2)
            cache_v = torch.cat([vv, cache_v] if "v" in new_first else [cache_v, vv], 2)
        total = cache_k.size(2)
        positions = torch.arange(total)
        qq = turn(q[:, :, lo:hi], q[:, :, lo:hi], torch.arange(n) if q_zero else positions[total - n:])[0]
        keys = cache_k if rotated else turn(cache_k, cache_k, positions)[1]
        cache_k = keys if turned_cache else cache_k
        diagonal = 0 if top_left else n - total if mask_sign else total - n - diag_less
        keep = torch.ones(n, total, dtype=torch.bool).tril(diagonal=diagonal)
        outputs.append(attend(qq, keys, cache_v, keep))
        if late:
            cache_k, cache_v = evict(cache_k, cache_v, n_sink, window, sinks)
        lengths.append(cache_k.size(2))
    return outputs, lengths


def evict(k, v, n_sink: int, recent: int, sinks: bool = True, order: str = "", tail: bool = False):
    """Keep the first n_sink tokens and the last `recent` (all when there are no more); without sinks, the last
    n_sink + recent. order: "k", "v" or "kv", the recent tokens joined before the sinks in those."""
    n = k.size(2)
    if n <= n_sink + recent:
        return k, v
    if sinks == "dropped":
        return k[:, :, n - recent:], v[:, :, n - recent:]
    if not sinks:
        return k[:, :, n - n_sink - recent:], v[:, :, n - n_sink - recent:]
    start = 0 if tail and not recent else n - recent   # tail: x[:, :, -recent:], which keeps all when recent is 0
    return tuple(torch.cat([x[:, :, start:], x[:, :, :n_sink]] if part in order
                           else [x[:, :, :n_sink], x[:, :, start:]], 2) for part, x in zip("kv", (k, v)))


STREAM_BUGS = {"hint_stream_no_sink": dict(sinks=False), "hint_stream_rotated_cache": dict(rotated=True),
               "hint_stream_evict_late": dict(late=True), "hint_stream_budget": dict(budget_slack=True),
               "hint_stream_is_causal": dict(top_left=True),
               "hint_cache_kv_swapped": dict(swap_cache=True), ("hint_cache_kv_swapped", "joined"): dict(swap_join=True),
               **{("hint_cache_cat_order", part): dict(new_first=part) for part in ("kv", "k", "v")},
               **{("hint_stream_sink_order", part): dict(sink_order=part) for part in ("kv", "k", "v")},
               "hint_cache_mask_sign": dict(mask_sign=True), "hint_stream_cache_turned": dict(turned_cache=True),
               "hint_stream_query_from_zero": dict(q_zero=True), "hint_stream_diagonal_minus_one": dict(diag_less=1),
               "hint_stream_tail_slice": dict(tail=True)}


def stream_length_hint(length: int, index: int, n_sink: int, window: int, dropped: list,
                       t_new: int | None = None, sliced: list | None = None) -> str | None:
    """A cache of the wrong length: past the budget, or only the last window − T_new kept (the first n_sink
    evicted with the rest), or after the first call only the new tokens (the old cache never joined). sliced: the
    lengths with the recent tokens kept as x[:, :, -(window − T_new):] (all of them when T_new = window)."""
    if sliced and length == sliced[index] > n_sink + window:
        return "hint_stream_tail_slice"
    if length > n_sink + window:
        return "hint_stream_budget"
    if length == dropped[index]:
        return "hint_stream_no_sink"
    return "hint_cache_concat" if index and length == t_new else None


# n_sink = 2, window = 4: the last chunk as long as the window, on a full cache (T_new ≤ window is allowed)
STREAM_CHUNKS = ((0, 4), (4, 6), (6, 7), (7, 8), (8, 9), (9, 11), (11, 15))


def check_attend_streaming(fn) -> None:
    name = "attend_streaming"
    n_sink, window, n = 2, 4, 15
    q, k, v = inputs((B, H, n, D), (B, H, n, D), (B, H, n, D), seed=84)
    turn = lambda a, b_, p: rope(a, b_, p, 100.0)  # noqa: E731
    want, lengths = streaming_run(q, k, v, STREAM_CHUNKS, n_sink, window, turn)
    variants = {key: streaming_run(q, k, v, STREAM_CHUNKS, n_sink, window, turn, **flags)[0]
                for key, flags in STREAM_BUGS.items()}
    dropped = streaming_run(q, k, v, STREAM_CHUNKS, n_sink, window, turn, sinks="dropped")[1]
    sliced = streaming_run(q, k, v, STREAM_CHUNKS, n_sink, window, turn, tail=True)[1]
    cache, so_far = None, []
    for index, (lo, hi) in enumerate(STREAM_CHUNKS):
        call = f"{name}(q, k, v, {'None' if cache is None else 'cache'}, {n_sink}, {window}, rope)"
        result = run(call, fn, q[:, :, lo:hi], k[:, :, lo:hi], v[:, :, lo:hi], cache, n_sink, window, turn,
                     on_error=streaming_error)
        if not (isinstance(result, tuple) and len(result) == 2 and isinstance(result[1], tuple)
                and len(result[1]) == 2):
            raise CheckFailed(t("returned_not_cache_pair", name=name, kind=type(result).__name__),
                              t("hint_cache_pair_order", name=name) if cache_pair_swapped(result, 2) else None)
        y, cache = result
        expect_shape(y, (B, H, hi - lo, D), ("B", "H", "T_new", "D"), t("what_output"))
        for part, c in zip("KV", cache):
            hint = stream_length_hint(c.size(2), index, n_sink, window, dropped, hi - lo, sliced) \
                if isinstance(c, torch.Tensor) and c.dim() == 4 else None
            expect_shape(c, (B, H, lengths[index], D), ("B", "H", "T", "D"), t("what_cache", part=part),
                         t(hint) if hint else None)
        so_far.append(y)
        if not close(y, want[index], 1e-9):
            key = all_nan(so_far) or matched_so_far(so_far, variants)
            hint = hint_text(key) if key else None
            if hint is None and index == 0:
                key = first_call_hint(y, *first_turned(q, k, v, hi, turn), grid(hi, hi)[0] >= grid(hi, hi)[1],
                                      unmerged(H))
                hint = hint_text(key) if key else None
            raise CheckFailed(t(one_or_span("stream_differs", lo, hi), lo=lo, last=hi - 1,
                                err=max_error(y, want[index])), hint)
    passed(name)


# Exercise 6 and sections 4 to 7 live in their own modules; a notebook reaches every check as
# course.checks.lesson8.check_…, and the grader every variant as lesson8.…_variants.
from .lesson8_sink import check_sink_attention, sink_variants  # noqa: E402,F401
from .lesson8_caches import (  # noqa: E402,F401
    check_attend_preallocated, check_cache_bytes, check_mla, check_mla_decode, check_packed, check_paged_cache,
)