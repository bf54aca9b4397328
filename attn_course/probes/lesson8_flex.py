"""Lesson 8's exercises written for FlexAttention (1 to 3, 15 and 16): each one's probe, run in the kernel, and its
procedure, the verdict on what the probe recorded given the right implementation (the grader gives it the hidden
reference, the visible check attn_course.checks.lesson8_visible the lesson's formulas, on a seed of its own).

A mask_mod is recorded as the mask FlexAttention makes of it (create_mask: the mod at every position, through
vmap, as flex_attention evaluates it) and as flex_attention's output with it. FlexAttention has no backward on the
CPU, so these exercises are judged on values alone.
"""
import torch

from ..checks.alibi import alibi_slopes
from ..checks.flex import block_mask, create_mask, flex, in_eager
from ..checks.lesson8_common import attend, control_flow_error
from ..checks.lesson8_mods import (
    alibi_variants, cache_variants, causal, causal_variants, padding_rules, padding_variants, score_slope,
    score_slope_hint, window_rules, window_variants,
)
from ..checks.lesson8_sink import flex_sink_bug, flex_sink_error
from ..checks.lesson8_softcap import softcap_bug
from ..judging import expect_close, judge_function, matching_bug, naming, procedure
from ..sizes import avoided
from .cases import DTYPE_CASES, function_cases
from .lesson8_common import expect_mask
from .recorder import probe


# --------------------------------------------------------------------------- exercise 1
def mods_setup(draws):
    n, t_new, t_past = draws.sizes("sizes", 3, low=2, high=11)
    n += 2                                                             # at least 4 tokens
    b, h, d = draws.sizes("heads", 3, low=2, high=7)
    lengths = torch.cat([torch.tensor([n]), draws.randint("lengths", 1, n, (b - 1,))])   # one row unpadded
    return n, t_new, t_past, b, h, d, lengths


def mods_qkv(draws, case, b, h, t_q, t_k, d):
    return (draws.randn(f"{case}.{x}", b, h, m, d) for x, m in (("q", t_q), ("k", t_k), ("v", t_k)))


@probe("lesson8.mask_mods")
def mask_mods(rec, causal_mod, cache_mod, causal_padding_mod):
    n, t_new, t_past, b, h, d, lengths = mods_setup(rec)
    rec.put("causal", rec.call("causal_mod", create_mask, causal_mod, None, n, n))
    mod = rec.call("cache_mod", cache_mod, t_past)
    rec.put("cache", rec.call("cache_mod(T_past)", create_mask, mod, None, t_new, t_past + t_new))
    q, k, v = mods_qkv(rec, "cache", b, h, t_new, t_past + t_new, d)
    rec.put("cache.flex", rec.call("flex_attention(…, cache_mod)", flex, q, k, v, mod))
    mod = rec.call("causal_padding_mod", causal_padding_mod, lengths.clone())
    rec.put("padding", rec.call("causal_padding_mod(lengths)", create_mask, mod, b, n, n))
    q, k, v = mods_qkv(rec, "padding", b, h, n, n, d)
    rec.put("padding.flex", rec.call("flex_attention(…, causal_padding_mod)", flex, q, k, v, mod, None, b))


@procedure(on_error=control_flow_error)
def judge_mask_mods(res, right):
    """right: (causal(n), cache(T_new, T_past), padding(n, lengths)), the masks the three mods must make, each
    (B or 1, 1, T_q, T_k) bool."""
    causal_of, cache_of, padding_of = right
    n, t_new, t_past, b, h, d, lengths = mods_setup(res)
    expect_mask("causal_mod", res["causal"], causal_of(n), causal_variants(n))
    want = cache_of(t_new, t_past)
    expect_mask(f"cache_mod({t_past})", res["cache"], want, cache_variants(t_new, t_past), t_past)
    q, k, v = mods_qkv(res, "cache", b, h, t_new, t_past + t_new, d)
    expect_close("flex_attention(…, cache_mod)", res["cache.flex"], attend(q, k, v, want), 1e-9)
    want = padding_of(n, lengths)
    expect_mask("causal_padding_mod", res["padding"], want, padding_variants(n, lengths),
                rules=padding_rules(n, lengths))
    q, k, v = mods_qkv(res, "padding", b, h, n, n, d)
    expect_close("flex_attention(…, causal_padding_mod)", res["padding.flex"], attend(q, k, v, want), 1e-9)


# --------------------------------------------------------------------------- exercise 2
def alibi_setup(draws, case, dtype):
    n, d = draws.sizes(f"{case}.sizes", 2, low=2, high=10)
    h = [2, 4, 8, 3, 6, 12][int(draws.randint(f"{case}.heads", 0, 6, (1,)))]
    # 2 ≤ B ≤ H: slopes[b] is no error, and differs from slopes[0] for every head (one row would make them one)
    b = 2 + int(draws.randint(f"{case}.batch", 0, h - 1, (1,)))
    q, k, v = (draws.randn(f"{case}.{x}", b, h, n, d, dtype=dtype) for x in "qkv")
    return q, k, v, alibi_slopes(h).to(dtype)


@probe("lesson8.alibi_score_mod")
def alibi_score_mod(rec, fn):
    for case, dtype in DTYPE_CASES:
        q, k, v, slopes = alibi_setup(rec, case, dtype)
        mod = rec.call("alibi_score_mod", fn, slopes.clone())
        rec.put(case, rec.call("flex_attention(…, score_mod)", flex, q, k, v, causal, mod))
        rec.put(f"{case}.slope", score_slope(mod))   # names a score scaled again, whatever the factor


ALIBI_TOLERANCE = {"float64": 1e-6, "float32": 1e-4}   # BLOOM computes its slopes in float32


def _alibi_bug(res, case, variants):
    got = res[case].double() if isinstance(res[case], torch.Tensor) else res[case]
    slope = res[f"{case}.slope"] if f"{case}.slope" in res else None
    return matching_bug(got, variants, 1e-6 if case == "float64" else 1e-3) or \
        score_slope_hint(slope if isinstance(slope, float) else None)


@procedure(on_error=control_flow_error)
def judge_alibi_score_mod(res, right):
    """right(q, k, v, slopes): causal attention with ALiBi's bias −m_h (i − j)."""
    for case, dtype in DTYPE_CASES:
        q, k, v, slopes = alibi_setup(res, case, dtype)
        variants = {key: val for key, val in alibi_variants(q.double(), k.double(), v.double(),
                                                            slopes.double()).items() if val is not None}
        with naming(lambda: _alibi_bug(res, case, variants)):
            expect_close(f"alibi_score_mod ({case}, H={q.size(1)})", res[case], right(q, k, v, slopes),
                         ALIBI_TOLERANCE[case])


# --------------------------------------------------------------------------- exercise 3
def window_cases(draws) -> list[tuple[int, int, int]]:
    """(W, T_new, T_past): a prefill longer than the window, one token far past it, a chunk across it."""
    w1, w2, w3 = draws.sizes("windows", 3, low=2, high=7)
    extra = draws.sizes("extra", 3, low=1, high=6)
    return [(w1, w1 + extra[0], 0), (w2, 1, w2 + extra[1]), (w3, extra[2] + 1, w3 + extra[1])]


@probe("lesson8.sliding_window_mod")
def sliding_window_mod(rec, fn):
    for i, (window, t_new, t_past) in enumerate(window_cases(rec)):
        mod = rec.call("sliding_window_mod", fn, window, t_past)
        rec.put(f"mask.{i}", rec.call(f"sliding_window_mod({window}, T_past={t_past})", create_mask, mod, None,
                                      t_new, t_past + t_new))
        if i == 2:   # flex_attention traces each mod it is given (seconds on a busy machine): once is enough here
            q, k, v = mods_qkv(rec, str(i), 2, 3, t_new, t_past + t_new, 4)
            rec.put(f"flex.{i}", rec.call("flex_attention(…, sliding_window_mod)", flex, q, k, v, mod))


@procedure(on_error=control_flow_error)
def judge_sliding_window_mod(res, right):
    """right(W, T_new, T_past): the (1, 1, T_new, T_past + T_new) bool mask of a window of W keys."""
    for i, (window, t_new, t_past) in enumerate(window_cases(res)):
        want = right(window, t_new, t_past)
        case = f"sliding_window_mod({window}, T_past={t_past})"
        expect_mask(case, res[f"mask.{i}"], want, window_variants(window, t_new, t_past), t_past,
                    window_rules(window, t_new, t_past))
        if i == 2:
            q, k, v = mods_qkv(res, str(i), 2, 3, t_new, t_past + t_new, 4)
            expect_close(f"flex_attention(…, {case})", res[f"flex.{i}"], attend(q, k, v, want), 1e-9)


# --------------------------------------------------------------------------- exercise 15
def flex_sink_inputs(draws, case, dtype, masked: bool = True):
    """Exercise 6's inputs, with the mask as flex_attention takes it: a BlockMask, right-aligned (T_k > T_q), or None.
    Sizes away from the notebook's (attn_course.sizes), an even head width as gpt-oss's config takes."""
    b, h, t_q, t_k = draws.sizes(f"{case}.sizes", 4, low=3, high=14, avoid=avoided(8))
    t_q, t_k = sorted((t_q, t_k))
    d = (6, 14)[int(draws.randint(f"{case}.width", 0, 2, (1,)))]
    q, k, v = (draws.randn(f"{case}.{x}", b, h, m, d, dtype=dtype) for x, m in (("q", t_q), ("k", t_k), ("v", t_k)))
    sinks = draws.randn(f"{case}.sinks", h, dtype=dtype, scale=2.0)
    past = t_k - t_q
    mod = (lambda b, h, q_idx, kv_idx: q_idx + past >= kv_idx) if masked else None
    return q, k, v, sinks, mod and block_mask(mod, None, t_q, t_k)


# (prefix, inputs): a right-aligned causal BlockMask, then none
FLEX_SINK_CASES = (("", flex_sink_inputs),
                   ("open.", lambda draws, case, dtype: flex_sink_inputs(draws, f"open.{case}", dtype, masked=False)))


@probe("lesson8.flex_sink_attention")
def flex_sink_attention(rec, fn):
    for prefix, inputs in FLEX_SINK_CASES:   # values alone: FlexAttention has no backward on the CPU
        function_cases(rec, "flex_sink_attention", in_eager(fn), inputs, prefix, grads=False)


@procedure(on_error=flex_sink_error)
def judge_flex_sink_attention(res, right):
    """right(q, k, v, sinks, block_mask): exercise 6's output for the keys the BlockMask lets each query see."""
    for prefix, inputs in FLEX_SINK_CASES:
        with naming(lambda: flex_sink_bug(inputs(res, "float64", torch.float64), res[prefix + "float64"])):
            judge_function(res, right, inputs, prefix, grads=False)


# --------------------------------------------------------------------------- exercise 16
def window_mod(window: int):
    def mod(b, h, q_idx, kv_idx):
        return (kv_idx <= q_idx) & (kv_idx > q_idx - window)
    return mod


def softcap_attention(fn):
    """The learner's softcap_score_mod(cap) in flex_attention, on a Gemma 2 layer of either kind: causal over every
    key (window None) or within the window (the course's sliding_window_mod rule)."""
    def attention(q, k, v, cap, window):
        mod = fn(cap)
        return flex(q, k, v, causal if window is None else window_mod(window), mod)
    return attention


def softcap_inputs(draws, case, dtype, sliding: bool):
    """Scores of tens (q and k drawn at scale 4: q · k / √D has a standard deviation of 16), which a cap of 10 to 30
    bends and some pass (where none passes, a clamp at ±cap changes nothing); T the largest size drawn, and
    a window shorter than T. Sizes away from the notebook's (attn_course.sizes), an even head width as Gemma 2's
    config takes."""
    *sizes, n = sorted(draws.sizes(f"{case}.sizes", 3, low=3, high=14, avoid=avoided(8)))
    b, h = (sizes[int(i)] for i in torch.randperm(2, generator=draws.gen(f"{case}.roles")))
    d = (6, 14)[int(draws.randint(f"{case}.width", 0, 2, (1,)))]
    q, k, v = (draws.randn(f"{case}.{x}", b, h, n, d, dtype=dtype, scale=1.0 if x == "v" else 4.0) for x in "qkv")
    cap = float((10, 20, 30)[int(draws.randint(f"{case}.cap", 0, 3, (1,)))])
    window = draws.sizes(f"{case}.window", 1, low=3, high=n, avoid=avoided(8))[0] if sliding else None
    return q, k, v, cap, window


SOFTCAP_CASES = (("global.", lambda draws, case, dtype: softcap_inputs(draws, f"global.{case}", dtype, False)),
                 ("sliding.", lambda draws, case, dtype: softcap_inputs(draws, f"sliding.{case}", dtype, True)))


@probe("lesson8.softcap_score_mod")
def softcap_score_mod(rec, fn):
    for prefix, inputs in SOFTCAP_CASES:     # Gemma 2's two kinds of layer, values alone
        function_cases(rec, "softcap_score_mod", softcap_attention(fn), inputs, prefix, grads=False)


# Gemma 2's eager path takes its softmax in float32 whatever the input's dtype (1.5e-6 from float64 measured): a
# classic mistake is off by far more.
SOFTCAP_TOLERANCE = {"float64": 1e-5, "float32": 1e-4}


@procedure(on_error=control_flow_error)
def judge_softcap_score_mod(res, right):
    """right(q, k, v, cap, window): attention with the scores capped, causal (window None) or within the window."""
    for prefix, inputs in SOFTCAP_CASES:
        with naming(lambda: softcap_bug(inputs(res, "float64", torch.float64), res[prefix + "float64"])):
            judge_function(res, right, inputs, prefix, grads=False, tolerance=SOFTCAP_TOLERANCE)
