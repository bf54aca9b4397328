"""Lesson 8's hidden tests, kernel side: run the learner's code on the grader's inputs and record what came back.
The exercises written for FlexAttention (1 to 3, 15 and 16) are in lesson8_flex, and reached here as the notebook
calls them (course.probes.lesson8.…).

Exercises that turn queries and keys take the rotation as an argument and get lesson 7's right RoPE with a base
drawn by name, so a mistake in exercise 0 costs exercise 0 only. FlexAttention has no backward on the CPU, so its
exercises are judged on values alone.
"""
import contextlib

import torch

from ..checks.flex import create_mask, flex, quiet_flex
from ..checks.lesson8_caches import (
    CacheHost, STREAM_BUGS, RepeatedWrites, first_turned, ring_replaced, ring_shape_hint, rolling_bug, rolling_error,
    rolling_run, stream_length_hint, streaming_error, streaming_run,
)
from ..checks.lesson8_common import all_nan, as_named, cache_pair_swapped, grid, shape_error, unmerged
from ..checks.lesson8_mla import MLAHost, SpanWatch, expands_heads
from ..checks.lesson8_mods import window_variants
from ..checks.lesson8_sink import sink_bug
from ..judging import Mismatch, expect_close, judge_function, naming, procedure
from ..checks.lesson8_lengths import batched_run, grad_run, meta_run
from ..checks.lesson8_paged import paged_decode_inputs, watched_decode
from .cases import DTYPE_CASES, backward_with_probe, function_cases
from .lesson8_common import decoding_bug, first_call, partial_end
from .lesson8_flex import (  # noqa: F401 - the notebook calls them as course.probes.lesson8.…
    FLEX_SINK_CASES, SOFTCAP_CASES, alibi_score_mod, flex_sink_attention, judge_alibi_score_mod,
    judge_flex_sink_attention, judge_mask_mods, judge_sliding_window_mod, judge_softcap_score_mod, mask_mods,
    sliding_window_mod, softcap_attention, softcap_score_mod,
)
from .recorder import _Stopped, probe
from .rope import BASES, turn_with


def draw_base(draws, name: str = "base") -> float:
    return BASES[int(draws.randint(name, 0, len(BASES), (1,)))]


# --------------------------------------------------------------------------- exercises 4 and 5
def stream_setup(draws, kind: str):
    """Heads of new tokens, the window (and sinks), the chunks they arrive in and RoPE's base."""
    b, h, d = draws.sizes("sizes", 3, low=2, high=6)
    d += d % 2                                                         # RoPE turns pairs of dimensions
    window, n_sink = draws.sizes("window", 2, low=2, high=6)
    n = 2 * window + n_sink + 6
    q, k, v = (draws.randn(x, b, h, n, d) for x in "qkv")
    if kind == "rolling":   # a prefill past the window, tokens one at a time, a chunk after the ring has turned
        first = window + 1 + int(draws.randint("prefill", 0, 3, (1,)))
        chunks = [(0, first)] + [(i, i + 1) for i in range(first, n - 3)] + [(n - 3, n - 1), (n - 1, n)]
    else:                   # a prefill within the budget, steps, two tokens, and the window's length on a full cache
        first = n_sink + window - 1
        chunks = [(0, first)] + [(i, i + 1) for i in range(first, n - window - 2)] + [(n - window - 2, n - window),
                                                                                   (n - window, n)]
    return q, k, v, window, n_sink, chunks, draw_base(draws)


def _tensor_shape(x):
    return list(x.shape) if isinstance(x, torch.Tensor) else None


def decode_steps(rec, chunks, step, parts: int, each=None):
    """Feed the chunks to step(lo, hi, cache) -> (output, cache of `parts` parts), as a decoding loop does; record
    every output and the cache's shapes after every call (`each(cache)` records more). Returns the last cache, or
    None when a call returned something else (recorded as "result": the judge says what was expected)."""
    cache, outputs, shapes = None, [], []
    try:
        with torch.no_grad():
            for lo, hi in chunks:
                result = step(lo, hi, cache)
                if not (isinstance(result, tuple) and len(result) == 2 and isinstance(result[1], tuple)
                        and len(result[1]) == parts):
                    rec.put("result", result)
                    return None
                y, cache = result
                outputs.append(y)
                shapes.append([_tensor_shape(c) for c in cache])
                if each:
                    each(cache)
    finally:   # also when a call raised: a judge with partial=True names the cause from the calls before it
        rec.put("outputs", outputs)
        rec.put("cache_shapes", shapes)
    return cache


def _cache_arg(cache) -> str:
    return "None" if cache is None else "cache"


@probe("lesson8.attend_rolling")
def attend_rolling(rec, fn):
    q, k, v, window, _, chunks, base = stream_setup(rec, "rolling")
    positions, repeated = [], []

    def step(lo, hi, cache):
        with RepeatedWrites() as watch:   # the prefill has more tokens than slots: a slot written twice shows here
            result = rec.call(f"attend_rolling(q, k, v, {_cache_arg(cache)}, {window}, rope)", fn, q[:, :, lo:hi],
                              k[:, :, lo:hi], v[:, :, lo:hi], cache, window, turn_with(base))
        repeated.append(watch.into(result))
        return result

    def each(cache):   # the ring is written in place: its positions as they are now, not as a later call leaves them
        positions.append(cache[2].clone() if isinstance(cache[2], torch.Tensor) else cache[2])
    try:
        decode_steps(rec, chunks, step, 3, each)
    finally:   # the calls before one that raised, as decode_steps records them
        rec.put("positions", positions)
        rec.put("repeated", repeated)


def ring_positions(chunks, window):
    """The absolute position each slot holds after each call (−1: empty)."""
    pos, out = torch.full((window,), -1, dtype=torch.long), []
    for lo, hi in chunks:
        for p in range(max(lo, hi - window), hi):
            pos[p % window] = p
        out.append(pos.clone())
    return out


def _rolling_bug(res, q, k, v, chunks, window, turn):
    first = chunks[0][1]
    return all_nan(res["outputs"]) or as_named(rolling_bug(
        res["outputs"], res["positions"], lambda **bug: rolling_run(q, k, v, chunks, window, turn, **bug))) \
        or first_call(res, *first_turned(q, k, v, first, turn), window_variants(window, first, 0)[None],
                      unmerged(q.size(1)))


# partial: the calls before one that raised are judged first (the ring replaced by a new tensor shows in its shape or
# positions there; the next call's error only says two sizes differ).
@procedure(on_error=rolling_error, partial=True)
def judge_attend_rolling(res, right):
    """right(q, k, v, W, rope): sliding-window attention over the whole sequence at once, RoPE at 0 … T−1."""
    q, k, v, window, _, chunks, base = stream_setup(res, "rolling")
    if "result" in res:
        raise Mismatch("rolling_not_pair", name="attend_rolling", kind=type(res["result"]).__name__,
                       hint=("hint_cache_pair_order", {"name": "attend_rolling"})
                       if cache_pair_swapped(res["result"], 3) else None)
    b, h, n, d = q.shape
    turn = turn_with(base)
    full = right(q, k, v, window, turn)
    outputs, rings, positions = res["outputs"], res["cache_shapes"], res["positions"]
    if not all(isinstance(z, list) and len(z) == len(outputs) for z in (outputs, rings, positions)) \
            or len(outputs) > len(chunks):
        raise Mismatch("hidden_mismatch", case="attend_rolling", err=float("inf"))
    with naming(lambda: _rolling_bug(res, q, k, v, chunks, window, turn)):
        sizes = f"B={b}, H={h}, D={d}, W={window}, base={base:g}"
        for index, ((lo, hi), got, ring, pos, want_pos) in enumerate(zip(chunks, outputs, rings, positions,
                                                                         ring_positions(chunks, window))):
            if ring[:2] != [[b, h, window, d]] * 2:
                hint = ring_shape_hint(ring[:2], ring, lo, hi, window)
                raise Mismatch("ring_shape_differs", hint=hint, n=hi, want=(b, h, window, d), got=ring[:2])
            case = ("case_cache_token" if hi - lo == 1 else "case_cache_tokens",
                    {"name": "attend_rolling", "sizes": sizes, "lo": lo, "last": hi - 1})
            expect_close(case, got, full[:, :, lo:hi], 1e-9)
            if not (isinstance(pos, torch.Tensor) and torch.equal(pos, want_pos)):
                raise Mismatch("rolling_positions_differ", n=hi, got=getattr(pos, "tolist", lambda: pos)(),
                               want=want_pos.tolist(),
                               hint="hint_rolling_replaced" if ring_replaced((), pos, lo, hi, window) else None)
            if "repeated" in res and index < len(res["repeated"]) and res["repeated"][index]:
                raise Mismatch("rolling_repeated_slots", hint="hint_rolling_repeated_slots", n=hi - lo,
                               window=window, name="attend_rolling")
    partial_end(res, chunks)


@probe("lesson8.attend_streaming")
def attend_streaming(rec, fn):
    q, k, v, window, n_sink, chunks, base = stream_setup(rec, "streaming")

    def step(lo, hi, cache):
        return rec.call(f"attend_streaming(q, k, v, {_cache_arg(cache)}, {n_sink}, {window}, rope)", fn,
                        q[:, :, lo:hi], k[:, :, lo:hi], v[:, :, lo:hi], cache, n_sink, window, turn_with(base))
    decode_steps(rec, chunks, step, 2)


def _streaming_bug(res, q, k, v, chunks, n_sink, window, turn):
    first = chunks[0][1]
    return all_nan(res["outputs"]) or decoding_bug(
        res, STREAM_BUGS, lambda **bug: streaming_run(q, k, v, chunks, n_sink, window, turn, **bug)[0]) \
        or first_call(res, *first_turned(q, k, v, first, turn), grid(first, first)[0] >= grid(first, first)[1],
                      unmerged(q.size(1)))


@procedure(on_error=streaming_error)
def judge_attend_streaming(res, right):
    """right(q, k, v, chunks, n_sink, window, rope): each call's output and the cache's length after it."""
    q, k, v, window, n_sink, chunks, base = stream_setup(res, "streaming")
    if "result" in res:
        raise Mismatch("returned_not_cache_pair", name="attend_streaming", kind=type(res["result"]).__name__,
                       hint=("hint_cache_pair_order", {"name": "attend_streaming"})
                       if cache_pair_swapped(res["result"], 2) else None)
    b, h, _, d = q.shape
    turn = turn_with(base)
    want, lengths = right(q, k, v, chunks, n_sink, window, turn)
    outputs, shapes = res["outputs"], res["cache_shapes"]
    if not isinstance(outputs, list) or not isinstance(shapes, list) or len(outputs) != len(chunks):
        raise Mismatch("hidden_mismatch", case="attend_streaming", err=float("inf"))
    dropped, sliced = (streaming_run(q, k, v, chunks, n_sink, window, turn, **bug)[1]
                       for bug in (dict(sinks="dropped"), dict(tail=True)))
    with naming(lambda: _streaming_bug(res, q, k, v, chunks, n_sink, window, turn)):
        for index, ((lo, hi), got, shape, w, n) in enumerate(zip(chunks, outputs, shapes, want, lengths)):
            if shape != [[b, h, n, d]] * 2:
                four = shape and isinstance(shape[0], list) and len(shape[0]) == 4
                hint = stream_length_hint(shape[0][2], index, n_sink, window, dropped, hi - lo, sliced) if four \
                    else None
                raise Mismatch("stream_cache_shape", hint=hint, name="attend_streaming", n=n, last=hi - 1,
                               want=(b, h, n, d), got=shape)
            case = ("case_cache_token" if hi - lo == 1 else "case_cache_tokens",
                    {"name": "attend_streaming", "sizes": f"n_sink={n_sink}, window={window}, base={base:g}",
                     "lo": lo, "last": hi - 1})
            expect_close(case, got, w, 1e-9)


# --------------------------------------------------------------------------- exercise 6
def sink_inputs(draws, case, dtype):
    b, h, t_q, d = draws.sizes(f"{case}.sizes", 4, low=2, high=8)
    d += d % 2                                                         # gpt-oss's config takes an even head width
    t_k = t_q + int(draws.randint(f"{case}.past", 0, 4, (1,)))
    q, k, v = (draws.randn(f"{case}.{x}", b, h, m, d, dtype=dtype) for x, m in (("q", t_q), ("k", t_k), ("v", t_k)))
    sinks = draws.randn(f"{case}.sinks", h, dtype=dtype, scale=2.0)
    keep = torch.ones(t_q, t_k, dtype=torch.bool).tril(diagonal=t_k - t_q)
    return q, k, v, sinks, keep


@probe("lesson8.sink_attention")
def sink_attention(rec, fn):
    function_cases(rec, "sink_attention", fn, sink_inputs)
    q, k, v, sinks, _ = sink_inputs(rec, "no_mask", torch.float64)
    rec.put("no_mask", rec.call("sink_attention", fn, q, k, v, sinks, None))


def _sink_bug(res):
    got = res["float64"]
    found = sink_bug(sink_inputs(res, "float64", torch.float64), got)
    if found is None and isinstance(got, tuple) and len(got) == 2 and isinstance(got[1], torch.Tensor):
        sums = got[1].detach().double().sum(-1)   # no share left to the sink: its column left out of the sum
        if torch.allclose(sums, torch.ones_like(sums), atol=1e-9, rtol=0):
            return "hint_sink_rows_sum_to_one"
    return found


@procedure(on_error=shape_error)
def judge_sink_attention(res, right):
    """right(q, k, v, sinks, keep=None): (output, weights) with one learned logit per head in the softmax."""
    with naming(lambda: _sink_bug(res)):
        got = res["float64"]
        if isinstance(got, tuple) and len(got) == 2 and isinstance(got[1], torch.Tensor) and got[1].dim() == 4:
            t_k = sink_inputs(res, "float64", torch.float64)[1].size(2)
            if got[1].size(-1) == t_k + 1:
                raise Mismatch("hidden_shape", hint="hint_sink_column_kept", case="sink_attention: weights",
                               want=(*got[1].shape[:-1], t_k), got=tuple(got[1].shape))
        judge_function(res, right, sink_inputs)
        q, k, v, sinks, _ = sink_inputs(res, "no_mask", torch.float64)
        want = right(q, k, v, sinks)
        got = res["no_mask"]
        if not (isinstance(got, tuple) and len(got) == 2):
            raise Mismatch("returned_not_pair", name="sink_attention", kind=type(got).__name__)
        for what, g, w in zip(("out", "weights"), got, want):
            expect_close(f"sink_attention(keep=None): {what}", g, w.detach(), 1e-9)


# --------------------------------------------------------------------------- exercise 7
def mla_sizes(draws, name: str = "mla") -> tuple:
    """E, H, kv_lora_rank, qk_nope_head_dim, qk_rope_head_dim (even), v_head_dim."""
    h, r, dn, dv = draws.sizes(f"{name}.dims", 4, low=2, high=8)
    dr = 2 * int(draws.randint(f"{name}.rope", 1, 3, (1,)))
    dn += dn == dr   # d_C ≠ d_R: q_C and q_R (k_C and k_R) joined on a wrong axis fail, as in the visible check
    return 2 * h * dv + 1, h, r, dn, dr, dv


def mla_input(draws, case, dtype, e):
    b, n = draws.sizes(f"{case}.sizes", 2, low=2, high=9)
    return draws.randn(f"{case}.x", b, n, e, dtype=dtype)


@probe("lesson8.mla")
def mla(rec, cls):
    sizes = mla_sizes(rec)
    module = rec.call("MultiHeadLatentAttention", cls, *sizes).double()
    rec.put("layout", rec.fill_parameters(module))
    eps = getattr(getattr(module, "kv_a_layernorm", None), "eps", None)
    rec.put("norm_eps", eps if isinstance(eps, float) else None)   # nn.RMSNorm's default, None, is the dtype's eps
    base = draw_base(rec)
    module.eval()
    for case, dtype in DTYPE_CASES:
        module.to(dtype)
        with torch.no_grad():
            rec.put(case, rec.call("MultiHeadLatentAttention.forward", module, mla_input(rec, case, dtype, sizes[0]),
                                   turn_with(base)))


# --------------------------------------------------------------------------- exercise 8
def decode_setup(draws):
    """An MLA with drawn weights (dn = dv, so swapping W_UK and W_UV is no shape error), the input, its chunks."""
    h, r, dn, dr = draws.sizes("dims", 4, low=2, high=8)
    dr += dr % 2
    host = MLAHost(2 * h * dn + 1, h, r, dn, dr, dn).double().eval()
    draws.fill_parameters(host, "host")
    b, n = draws.sizes("sizes", 2, low=2, high=6)
    n += 5
    x = draws.randn("x", b, n, host.q_proj.in_features)
    # A prefill of 2 or more: its attention shows the core's mistakes, and the next call's T_past differs from T_new.
    prefill = int(draws.randint("prefill", 2, n - 3, (1,)))
    chunks = [(0, prefill)] + [(i, i + 1) for i in range(prefill, n - 2)] + [(n - 2, n)]
    return host, x, chunks, draw_base(draws)


@probe("lesson8.mla_decode")
def mla_decode(rec, fn):
    host, x, chunks, base = decode_setup(rec)

    def step(lo, hi, cache):
        call = f"mla_decode(mla, x_new, {_cache_arg(cache)}, rope)"
        watch = SpanWatch(host, x.size(0), hi - lo, hi) if cache is not None else None
        try:
            with watch or contextlib.nullcontext():
                return rec.call(call, fn, host, x[:, lo:hi], cache, turn_with(base))
        except _Stopped:   # a shape error: the cause from the shapes' relation to T_new and T_all, as the check
            raised = rec.raised or {}
            cause = watch and watch.hint(str(raised.get("kind", "")), str(raised.get("message", "")), call)
            if cause:
                rec.put("raised_cause", cause)
                rec.put("raised_error", f"{raised.get('kind', '')}: {raised.get('message', '')}")
            raise
    cache = decode_steps(rec, chunks, step, 2)
    if cache is not None:
        rec.put("cache", cache)
        # Keys or values expanded to every head over a long cache: right numbers, not the absorbed form.
        rec.put("expands_heads", expands_heads(fn, turn_with(base), rec.call))


# --------------------------------------------------------------------------- exercise 9
def static_setup(draws):
    b, h, d = draws.sizes("sizes", 3, low=2, high=6)
    n = 6 + int(draws.randint("length", 0, 5, (1,)))
    host = CacheHost(h * d, h).double().eval()
    draws.fill_parameters(host, "host")
    x = draws.randn("x", b, n, h * d)
    prefill = int(draws.randint("prefill", 2, n - 3, (1,)))   # 2 or more, as in decode_setup
    chunks = [(0, prefill)] + [(i, i + 1) for i in range(prefill, n - 2)] + [(n - 2, n)]
    return host, x, chunks, n + 3                                      # room left over in the buffers


@probe("lesson8.attend_preallocated")
def attend_preallocated(rec, fn):
    host, x, chunks, t_max = static_setup(rec)
    b, _, e = x.shape
    h = host.n_head
    k_buf, v_buf = x.new_zeros(b, h, t_max, e // h), x.new_zeros(b, h, t_max, e // h)
    outputs = []
    try:
        with torch.no_grad():
            for lo, hi in chunks:
                outputs.append(rec.call(f"attend_preallocated(attn, x_new, k_buf, v_buf, {lo})", fn, host,
                                        x[:, lo:hi], k_buf, v_buf, lo))
    finally:   # also when a call raised: the judge (partial) reads the buffers the calls before it left
        rec.put("outputs", outputs)
        rec.put("buffers", (k_buf, v_buf))


# --------------------------------------------------------------------------- exercise 10
def paged_setup(draws):
    """Page size, heads, width, a block table (any free pages, in any order), the tokens and their chunks."""
    size, h, d = draws.sizes("sizes", 3, low=2, high=6)
    n = 2 * size + int(draws.randint("length", 1, 2 * size, (1,)))
    used = -(-n // size)
    n_pages = used + 3
    table = torch.randperm(n_pages, generator=draws.gen("table"))[:used]
    new = draws.randn("new", n, h, d)
    prefill = int(draws.randint("prefill", 1, size + 1, (1,)))
    chunks = [(0, prefill)]
    i = prefill
    while i < n:                                                       # one token, then two, then one, …
        j = min(n, i + 1 + len(chunks) % 2)
        chunks.append((i, j))
        i = j
    return size, h, d, n_pages, table, new, chunks


def gather_lengths(n: int, size: int) -> tuple:
    """The lengths paged_gather is asked for: all n tokens, one less, one page, one token, and every slot of the
    table's pages (a page count rounded up one too far then runs past the table)."""
    return tuple(dict.fromkeys((n, n - 1, size, 1, -(-n // size) * size)))


@probe("lesson8.paged_cache")
def paged_cache(rec, paged_write, paged_gather):
    size, h, d, n_pages, table, new, chunks = paged_setup(rec)
    pages = torch.zeros(n_pages, size, h, d, dtype=torch.float64)
    for lo, hi in chunks:
        rec.call(f"paged_write(pages, block_table, {lo}, k_new)", paged_write, pages, table.clone(), lo, new[lo:hi])
    rec.put("pages", pages)
    filled = rec.randn("filled", n_pages, size, h, d)
    for length in gather_lengths(new.size(0), size):
        rec.put(f"gather.{length}", rec.call(f"paged_gather(pages, block_table, {length})", paged_gather,
                                             filled.clone(), table.clone(), length))


# --------------------------------------------------------------------------- exercise 13
@probe("lesson8.paged_decode")
def paged_decode(rec, fn):
    function_cases(rec, "paged_decode", fn, paged_decode_inputs)
    largest, meta = watched_decode(rec.call, fn, rec)
    rec.put("watch", largest)
    rec.put("meta", meta)


# --------------------------------------------------------------------------- exercise 14
@probe("lesson8.decode_batched")
def decode_batched(rec, fn):
    """The visible check's procedure (attn_course.checks.lesson8_lengths), on the grader's draws: each step's
    output and the key cache after it, one step's gradients, the meta device's output."""
    for case, dtype in DTYPE_CASES:
        for i, (_, y, k_after, _) in enumerate(batched_run(rec.call, fn, rec, case, dtype)):
            rec.put(f"{case}.{i}", y)
            rec.put(f"{case}.{i}.k", k_after)
    leaves, got = grad_run(rec.call, fn, rec)
    rec.put("grad", got)
    rec.put("grad.inputs", backward_with_probe(rec, got, leaves))
    rec.put("meta", meta_run(rec.call, fn, rec))


# --------------------------------------------------------------------------- exercise 11
def packed_setup(draws):
    n_docs = 3 + int(draws.randint("docs", 0, 3, (1,)))
    lengths = draws.randint("lengths", 1, 7, (n_docs,))
    single = int(draws.randint("single", 0, n_docs, (1,)))
    lengths[single] = 1                                                  # a document of one token
    if int(lengths.max()) == 1:   # all one token: no key in a later position, so a mask without causality passed
        lengths[(single + 1) % n_docs] = 2
    cu = torch.cat([torch.zeros(1, dtype=torch.long), lengths.cumsum(0)])
    n = int(cu[-1])
    h, d = draws.sizes("heads", 2, low=2, high=5)
    q, k, v = (draws.randn(x, 1, h, n, 2 * d) for x in "qkv")
    return cu, q, k, v, draw_base(draws)


@probe("lesson8.packed")
def packed(rec, packed_positions, document_mod):
    cu, q, k, v, base = packed_setup(rec)
    n = int(cu[-1])
    positions = rec.call("packed_positions", packed_positions, cu.clone())
    rec.put("positions", positions)
    mod = rec.call("document_mod", document_mod, cu.clone())
    rec.put("mask", rec.call("document_mod(cu_seqlens)", create_mask, mod, None, n, n))
    if isinstance(positions, torch.Tensor) and positions.shape == (n,) and not positions.is_floating_point():
        qq, kk = turn_with(base)(q, k, positions.cpu())
        with quiet_flex():
            rec.put("flex", rec.call("flex_attention(…, document_mod)", flex, qq, kk, v, mod))


# --------------------------------------------------------------------------- exercise 12
DTYPES = (torch.float16, torch.bfloat16, torch.float32, torch.float8_e4m3fn)
WIDE_DTYPES = (torch.float32, torch.float8_e4m3fn)


def bytes_cases(draws) -> list:
    """(config, T, batch, dtype): every kind of layer, each with its own sizes."""
    n_layer, g, d, w = draws.sizes("sizes", 4, low=2, high=12)
    n, batch, latent = draws.sizes("more", 3, low=2, high=12)
    long = w + n                                                      # longer than the window
    dtypes = [DTYPES[int(i)] for i in draws.randint("dtypes", 0, len(DTYPES), (4,))]
    # One element size other than 2 always, as the check's cases have: 2 bytes for every dtype is then wrong.
    dtypes[1] = WIDE_DTYPES[int(draws.randint("dtypes.wide", 0, len(WIDE_DTYPES), (1,)))]
    # The latent never in 1 byte: 2 bytes per element would double it there, as the latent counted twice does.
    dtypes[3] = dtypes[3] if dtypes[3].itemsize > 1 else torch.float16
    # K without V halves every K/V answer, as 2 bytes for a 4-byte element does: one K/V case's element other than
    # 4 bytes tells the two apart.
    if all(dtype.itemsize == 4 for dtype in dtypes[:3]):
        dtypes[2] = torch.bfloat16
    return [({"n_layer": n_layer, "n_kv_head": g, "head_dim": d}, n, batch, dtypes[0]),
            ({"n_layer": n_layer, "n_kv_head": g, "head_dim": d, "window": w}, long, batch, dtypes[1]),
            ({"n_layer": 2 * n_layer, "n_kv_head": g, "head_dim": d, "window": w, "window_layers": n_layer}, long,
             batch, dtypes[2]),
            ({"n_layer": n_layer, "latent_dim": latent}, long, batch, dtypes[3]),
            # shorter than the window, as the check's last case: a window layer holds min(T, W) tokens; one sequence,
            # as in the check's second case: batch left out is then right here and K without V is not
            ({"n_layer": n_layer, "n_kv_head": g, "head_dim": d, "window": w + n}, n, 1, dtypes[0])]


@probe("lesson8.cache_bytes")
def cache_bytes(rec, fn):
    for i, (config, n, batch, dtype) in enumerate(bytes_cases(rec)):
        rec.put(f"bytes.{i}", rec.call("cache_bytes", fn, dict(config), n, batch, dtype))
