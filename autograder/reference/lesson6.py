"""Lesson 6's reference and its judges. Lives only in autograder/: never in a release, never in a kernel."""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F
from attn_course.checks import lesson6 as checks
from attn_course.checks import lesson6_tiles as tiles
from attn_course.checks.engine import pair_swapped
from attn_course.probes import lesson6 as probe
from attn_course.validate import dtype_bytes, expect_size, expect_tokens, resolve_head_dim, resolve_kv_groups
from attn_course.judging import (
    Mismatch, cache_step, expect_close, expect_device, judge_function, judge_module, matching_bug, naming,
)
from attn_grader.judge import judge, sibling

_kv_cache = sibling(__file__, "kv_cache")
_merge, attend_with_cache = _kv_cache.merge_heads, _kv_cache.attend_with_cache


def attention_flops(B, T, E, H):
    # FLOPs count a multiply and an add as two: the seed's "ops" are multiply-adds, half of this.
    return {
        "qkv": 2 * B * T * E * 3 * E,
        "scores": 2 * B * H * T * T * (E // H),
        "weighted_sum": 2 * B * H * T * T * (E // H),
        "out_proj": 2 * B * T * E * E,
    }


def kv_cache_bytes(n_layer, batch, T, n_kv_head, head_dim, dtype):
    return 2 * n_layer * batch * T * n_kv_head * head_dim * dtype_bytes(dtype)


def tiled_attention(q, k, v, block_size, causal=False):
    B, H, T, D = q.shape
    m = torch.full((B, H, T, 1), float("-inf"), dtype=q.dtype, device=q.device)
    l = torch.zeros((B, H, T, 1), dtype=q.dtype, device=q.device)
    acc = torch.zeros_like(q)
    rows = torch.arange(T, device=q.device).unsqueeze(1)
    for start in range(0, k.size(2), block_size):
        kb, vb = k[:, :, start:start + block_size], v[:, :, start:start + block_size]
        s = q @ kb.transpose(-2, -1) / math.sqrt(D)
        if causal:
            cols = torch.arange(start, start + kb.size(2), device=q.device)
            s = s.masked_fill(cols > rows, float("-inf"))
        m_new = torch.maximum(m, s.amax(dim=-1, keepdim=True))
        p = torch.exp(s - m_new)
        scale = torch.exp(m - m_new)
        l = l * scale + p.sum(dim=-1, keepdim=True)
        acc = acc * scale + p @ vb
        m = m_new
    return acc / l


class GroupedQueryAttention(nn.Module):
    def __init__(self, embed_dim, n_head, n_kv_head):
        super().__init__()
        self.embed_dim = expect_size(embed_dim, "embed_dim")
        self.n_head = expect_size(n_head, "n_head")
        self.n_kv_head = expect_size(n_kv_head, "n_kv_head")
        self.head_dim = resolve_head_dim(embed_dim, n_head)
        resolve_kv_groups(n_head, n_kv_head)
        self.q_proj = nn.Linear(embed_dim, embed_dim)
        self.kv_proj = nn.Linear(embed_dim, 2 * n_kv_head * self.head_dim)
        self.c_proj = nn.Linear(embed_dim, embed_dim)

    def forward(self, x):
        expect_tokens(x, self.embed_dim)
        B, T, E = x.shape
        q = self.q_proj(x).view(B, T, self.n_head, self.head_dim).transpose(1, 2)
        k, v = (z.view(B, T, self.n_kv_head, self.head_dim).transpose(1, 2)
                for z in self.kv_proj(x).split(self.n_kv_head * self.head_dim, dim=2))
        group = self.n_head // self.n_kv_head
        k, v = k.repeat_interleave(group, dim=1), v.repeat_interleave(group, dim=1)
        keep = torch.ones(T, T, dtype=torch.bool, device=x.device).tril()
        scores = (q @ k.transpose(-2, -1) / math.sqrt(self.head_dim)).masked_fill(~keep, float("-inf"))
        weights = torch.softmax(scores, dim=-1)
        return self.c_proj(_merge(weights @ v)), weights


# --------------------------------------------------------------------------- naming the mistake
# On a mismatch, the learner's results are compared with the visible checks' classic bugs
# (attn_course.checks.lesson6), computed here on the grader's own inputs.
def _flops_bug(res):
    """The visible check's rule (a wrong step's value equals that step in a bug's counts, else a factor of the
    sizes explains it), kept to the causes that explain every wrong step of all three sizes: with H = 2,
    "one head" and "multiply-adds" give the same scores."""
    candidates, floats = None, False
    for i, (b, t, h, d) in enumerate(probe.flops_sizes(res)):
        got, variants = res[f"flops.{i}"], checks.flops_variants(b, t, h * d, h)
        if isinstance(got, dict) and any(isinstance(v, bool) or not isinstance(v, (int, float)) for v in got.values()):
            return "hint_count_python_int"   # np.int64 (sent as Opaque), a tensor: as the check says
        for key, want in variants[None].items():
            value = got.get(key) if isinstance(got, dict) else None
            floats = floats or (isinstance(value, float) and value == want)   # the check's flops_not_int
            if value != want:
                divided = checks.divided_fits(value, want, checks.flops_sizes_named(b, t, h * d, h))
                fits = ([k for k, v in variants.items() if k and v[key] == value]
                        + [checks.divided_hint([n]) for n in divided] + _factors(value, want, b, t, h * d, h))
                candidates = fits if candidates is None else [k for k in candidates if k in fits]
    if floats and candidates is None:   # every step the count, some of them floats: a `/` that divides exactly
        return "hint_count_float"
    if not candidates:
        return None
    hint = candidates[0]
    return (hint[0], dict(hint[1])) if isinstance(hint, tuple) else hint


def _factors(value, want, *sizes):
    """Every factor explanation of value (checks.factor_hint's, in its order), not only the first."""
    named = checks.flops_sizes_named(*sizes)
    found = []
    for n in (1, 2):
        for combo in __import__("itertools").combinations_with_replacement(list(named), n):
            one = {"·".join(combo): math.prod(named[c] for c in combo)}
            if n == 2 and all(c.isdigit() for c in combo):
                continue
            hint = checks.factor_hint(value, want, {"·".join(combo): one["·".join(combo)]})
            if hint and hint not in found:
                found.append(hint)
    return found


def _tiled_bug(res):
    for causal in (False, True):
        q, k, v, block, _ = probe.tiled_inputs(causal)(res, "float64", torch.float64)
        got = res[f"causal={causal}.float64"]
        if isinstance(got, torch.Tensor) and not torch.isfinite(got).all():
            return "hint_tiled_nan"
        variants = checks.tiled_variants(q, k, v, block, causal)
        if not matching_bug(got, {"right": variants[None]}, 1e-9):
            return matching_bug(got, variants, 1e-9)
    return None


def _gqa_bug(res):
    args = probe.gqa_args(res)
    ref = GroupedQueryAttention(*args).double()
    res.fill_parameters(ref)
    got = res["float64"]
    with torch.no_grad():
        variants = checks.gqa_expected(ref, probe.gqa_input(res, args, "float64", torch.float64))
    if pair_swapped(got, variants[None].shape):   # as the check's expect_returned_pair
        return ("hint_pair_order", {"name": "GroupedQueryAttention.forward"})
    hint = checks.gqa_output_hint(got, ref, variants, 1e-9)
    return (hint[0], dict(hint[1])) if isinstance(hint, tuple) else hint


def _gqa_layout(res):
    """The visible check's first comparison: each projection's nn.Linear sizes (named, where the grader's own
    layout check names only W_q, W_k, W_v, W_o)."""
    ref = GroupedQueryAttention(*probe.gqa_args(res)).double()
    want = [(n, tuple(p.shape)) for n, p in ref.named_parameters()]
    try:
        got = dict((n, tuple(s)) for n, s in res["layout"])
    except (TypeError, ValueError):
        return
    for name, shape in want:
        layer = name.removesuffix(".weight")
        if name.endswith(".weight") and name in got and got[name] != shape and len(got[name]) == 2:
            show = ", ".join(f"{n} {s}" for n, s in want), ", ".join(f"{n} {s}" for n, s in got.items())
            raise Mismatch("hidden_layout", hint=("hint_layer_shape", {
                "name": layer, "want_in": shape[1], "want_out": shape[0], "got_in": got[name][1],
                "got_out": got[name][0], "why": ("why_kv_proj",) if layer == "kv_proj" else ""}),
                want=show[0], got=show[1])


def _later(res, host, x, chunks, index: int):
    """(output, variants) of the chunks after chunk index, from what the probe recorded (the check calls on)."""
    for chunk, y in zip(chunks[index + 1:], res["outputs"][index + 1:]):
        yield y, checks.cache_variants(host, x, *chunk)


def _cache_bug(res):
    host, x, chunks = probe.cache_setup(res)
    b, _, _ = x.shape
    h, d = host.n_head, host.head_dim
    with torch.no_grad():
        for index, ((lo, hi), got, shape, cache) in enumerate(zip(chunks, res["outputs"], res["cache_shapes"],
                                                                 res["caches"])):
            if isinstance(got, torch.Tensor) and tuple(got.shape) == (hi - lo, b, x.size(-1)) and hi - lo != b:
                return ("swapped_axes", {"a": 0, "b": 1, "name_a": "B", "name_b": "T_new"})   # as expect_shape says
            if isinstance(got, (tuple, list)) and shape is None:   # (cache, output), as the check names it
                return "hint_cache_return_order"
            if checks.fewer_tokens(got, (b, hi - lo, x.size(-1))):   # y[:, -1:]: as the check's expect_shape says
                return "hint_cache_output_tokens"
            if shape != [[b, h, hi, d], [b, h, hi, d]]:
                return "hint_cache_concat"
            content = checks.cache_content_bug(cache, host, x, hi)
            if content:
                return content
            variants = checks.cache_variants(host, x, lo, hi)
            if not checks.same(got, variants[None], 1e-9):
                hint = checks.cache_output_hint(got, host, variants, lambda: _later(res, host, x, chunks, index))
                return (hint[0], dict(hint[1])) if isinstance(hint, tuple) else hint
    return None


# --------------------------------------------------------------------------- judges
@judge("lesson6.attention_flops")
def judge_attention_flops(res):
    for i, (b, t, h, d) in enumerate(probe.flops_sizes(res)):
        got, want = res[f"flops.{i}"], attention_flops(b, t, h * d, h)
        if not isinstance(got, dict) or {k: got.get(k) for k in want} != want or \
                any(type(got.get(k)) is not int for k in want):   # a count is an int, as the check says
            raise Mismatch("hidden_mismatch", case=f"attention_flops(B={b}, T={t}, E={h * d}, H={h})",
                           err=float("inf"), hint=_flops_bug(res))


@judge("lesson6.kv_cache_bytes", on_error=checks.kv_error)
def judge_kv_cache_bytes(res):
    finding = checks.kv_finding([(sizes, dtype, res[f"bytes.{dtype}"]) for *sizes, dtype in probe.kv_sizes(res)])
    if finding:
        key, fields, hint = finding
        raise Mismatch(key, hint=hint, **fields)


def _sdpa(q, k, v, block, causal):
    return F.scaled_dot_product_attention(q, k, v, is_causal=causal)


# partial: an error in the last, meta-device call is judged after the values recorded before it, as the check does
@judge("lesson6.tiled_attention", on_error=checks.tiled_error, partial=True)
def judge_tiled_attention(res):
    with naming(lambda: _tiled_bug(res)):
        for causal in (False, True):
            judge_function(res, _sdpa, probe.tiled_inputs(causal), prefix=f"causal={causal}.")
    # Decided here from what the kernel's watch recorded (a probe that sent no record fails: res[…] raises).
    for causal in (False, True):
        widest = res[f"widest.{causal}"]
        failure = tiles.watch_failure(tuple(widest) if isinstance(widest, (list, tuple)) else widest)
        if failure:
            raise Mismatch(failure[0], hint=failure[1], shape=tuple(widest), T=tiles.WATCH_T, block=tiles.WATCH_BLOCK)
    meta = res["meta"]
    expect_device("tiled_attention (meta, float16)", meta, "meta", hint="hint_tiled_device")
    if tiles.meta_problem(meta):
        raise Mismatch("tiled_meta", hint=tiles.meta_problem(meta), device=meta.device.type,
                       dtype=str(meta.dtype).replace("torch.", ""))


@judge("lesson6.gqa", on_error=checks.gqa_error, partial=True)   # a projection built the wrong size is named from the layout, as the check does
def judge_gqa(res):
    _gqa_layout(res)   # in the visible check's order: the layers' sizes, then the errors, then the outputs
    for bad, error in zip(probe.gqa_bad_args(probe.gqa_args(res)), res["errors"]):
        if error != "ValueError":   # the text asks for a ValueError on sizes that do not divide, as the check tries
            raise Mismatch("gqa_no_error", hint="hint_gqa_error", args=bad)
    with naming(lambda: _gqa_bug(res)):
        judge_module(res, GroupedQueryAttention, probe.gqa_args, probe.gqa_input)
    expect_device("GroupedQueryAttention (meta)", res["meta"], "meta", hint="hint_mask_device")


@judge("lesson6.attend_with_cache", on_error=checks.cache_error, partial=True)   # the steps before an error are judged first: they name the cause
def judge_attend_with_cache(res):
    host, x, chunks = probe.cache_setup(res)
    if "result" in res:
        raise Mismatch("returned_not_cache_pair", name="attend_with_cache", kind=type(res["result"]).__name__)
    b, t, e = x.shape
    h, d = host.n_head, host.head_dim
    with torch.no_grad():
        full, _ = attend_with_cache(host, x)
    outputs, shapes = res["outputs"], res["cache_shapes"]
    if not isinstance(outputs, list) or not isinstance(shapes, list) or len(outputs) > len(chunks) \
            or len(shapes) != len(outputs):
        raise Mismatch("hidden_mismatch", case="attend_with_cache", err=float("inf"))
    with naming(lambda: _cache_bug(res)):
        for (lo, hi), got, shape in zip(chunks, outputs, shapes):
            if isinstance(got, torch.Tensor) and tuple(got.shape) != (b, hi - lo, e):   # the output first, as the check
                raise Mismatch("hidden_shape", case=f"attend_with_cache（B={b}, H={h}, D={d}, T={t}）",
                               want=(b, hi - lo, e), got=tuple(got.shape))
            if isinstance(got, (tuple, list)) and shape is None:   # (cache, output): named as the check names it
                raise Mismatch("hidden_cache_shape", hint="hint_cache_return_order", name="attend_with_cache", n=hi,
                               want=(b, h, hi, d), got=None)
            case = cache_step("attend_with_cache", f"B={b}, H={h}, D={d}, T={t}", lo, hi, shape, (b, h, hi, d))
            expect_close(case, got, full[:, lo:hi], 1e-9)
        if len(outputs) == len(chunks) and _cache_bug(res):   # right outputs, but a cache the next call would misread
            raise Mismatch("hidden_mismatch", case="attend_with_cache", err=float("inf"))
    if len(outputs) < len(chunks):
        if "calls" not in res:   # a later call raised: its error speaks (decide() reads this as no verdict)
            raise Mismatch("results_unreadable", why=("why_missing_value", {"key": "outputs"}))
        # The probe went through every chunk without an error, yet fewer results came: they must all be judged.
        raise Mismatch("cache_steps_missing", hint="hint_cache_steps", n=len(outputs), total=len(chunks))
    meta = res["meta"]   # the meta device's case (checks.cache_on_meta), after the values, as the check
    if isinstance(meta, torch.Tensor) and meta.device.type != "meta":
        raise Mismatch("cache_meta_device", hint="hint_cache_device", device=meta.device.type)
