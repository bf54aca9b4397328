"""Lesson 6's exercises: each one's probe and procedure (docs/authoring.md, "One exercise, one procedure"); the
visible checks are attn_course.checks.lesson6. The classic mistakes each procedure names are built in
attn_course.checks.lesson6_mistakes (tiling, GQA, the cache), lesson6_counts and lesson6_tiles."""
import copy

import torch
import torch.nn as nn

from ..checks import lesson6_mistakes as mistakes
from ..checks import lesson6_counts as counts
from ..checks import lesson6_tiles as tiles
from ..checks.engine import pair_swapped
from ..judging import (
    Mismatch, cache_step, expect_close, expect_device, expect_finding, judge_function, judge_module, matching_bug,
    naming, procedure,
)
from ..score_watch import ScoreWatch
from .cases import function_cases, module_cases
from .recorder import probe


def flops_sizes(draws):
    return [tuple(draws.sizes(f"flops.{i}", 4, low=2, high=40)) for i in range(3)]


def kv_sizes(draws):
    return [(*draws.sizes(f"kv.{dtype}", 5, low=2, high=30), dtype) for dtype in counts.KV_DTYPES]


def tiled_sizes(draws):
    b, h = draws.sizes("batch_heads", 2, low=1, high=4)
    t, d, block = draws.sizes("sizes", 3, low=2, high=14)
    # Two whole blocks and more, and never a multiple of one: a last, short block that is not the second (with two
    # blocks, only the first one and all but the short one are the same mistake).
    t += 2 * block + 1
    return b, h, t + (t % block == 0), d, block


def tiled_inputs(causal):
    def make(draws, case, dtype):
        b, h, t, d, block = tiled_sizes(draws)
        q, k, v = (draws.randn(f"{causal}.{case}.{n}", b, h, t, d, dtype=dtype) for n in "qkv")
        return q, k, v, block, causal
    return make


def gqa_args(draws):
    kv, group, d = draws.sizes("args", 3, low=2, high=6)
    return kv * group * d, kv * group, kv


def gqa_input(draws, args, case, dtype):
    b, t = draws.sizes("input", 2, low=2, high=9)
    return draws.randn(f"{case}.x", b, t + 1, args[0], dtype=dtype)


class CacheHost(nn.Module):
    """GPT-2's attention weights (c_attn, c_proj) and n_head, with no forward of its own."""

    def __init__(self, embed_dim, n_head):
        super().__init__()
        self.embed_dim, self.n_head, self.head_dim = embed_dim, n_head, embed_dim // n_head
        self.c_attn = nn.Linear(embed_dim, 3 * embed_dim)
        self.c_proj = nn.Linear(embed_dim, embed_dim)


def cache_setup(draws):
    """The attention weights, the whole input, and the chunks it is fed in: a prefill, then a token at a time."""
    b, h, d, t = draws.sizes("sizes", 4, low=2, high=9)
    t += 6
    host = CacheHost(h * d, h).double().eval()
    draws.fill_parameters(host, "host")
    x = draws.randn("x", b, t, h * d)
    # Two tokens at least: a one-token prefill has no masked key, where adding (~keep) * -inf (NaN) and an inverted
    # mask give the same NaN row, and the first chunk judged could not tell them apart (39 seeds in 300).
    prefill = int(draws.randint("prefill", 2, t - 2, (1,)))
    chunks = [(0, prefill)] + [(i, i + 1) for i in range(prefill, t - 2)] + [(t - 2, t)]
    return host, x, chunks


@probe("lesson6.attention_flops")
def attention_flops(rec, fn):
    for i, (b, t, h, d) in enumerate(flops_sizes(rec)):
        rec.put(f"flops.{i}", rec.call("attention_flops", fn, b, t, h * d, h))


@probe("lesson6.kv_cache_bytes")
def kv_cache_bytes(rec, fn):
    for *sizes, dtype in kv_sizes(rec):
        rec.put(f"bytes.{dtype}", rec.call("kv_cache_bytes", fn, *sizes, dtype))


@probe("lesson6.tiled_attention")
def tiled_attention(rec, fn):
    for causal in (False, True):
        function_cases(rec, "tiled_attention", fn, tiled_inputs(causal), prefix=f"causal={causal}.")
    # What the values cannot show, recorded for the grader to judge: the shape of any (T, T)-like tensor made, or
    # of scores over all the keys (tiles.ScoreWatch), and what comes back for meta-device float16 inputs (a GPU's
    # stand-in).
    for causal in (False, True):
        q, k, v = (rec.randn(f"watch.{causal}.{n}", tiles.WATCH_B, tiles.WATCH_H, tiles.WATCH_T, tiles.WATCH_D)
                   for n in "qkv")
        with ScoreWatch(tiles.WATCH_BLOCK, keys=k) as watch:
            rec.call("tiled_attention", fn, q, k, v, tiles.WATCH_BLOCK, causal)
        rec.put(f"widest.{causal}", list(watch.widest) if watch.widest else None)
    rec.put("meta", rec.call("tiled_attention (meta, float16)", fn, *tiles.meta_inputs(), tiles.WATCH_BLOCK, True))


def gqa_bad_args(args):
    """Sizes that do not divide (n_kv_head not dividing n_head, embed_dim not dividing by n_head): a ValueError."""
    e, h, g = args
    return [(e, h, h + 1), (e + 1, h, g)]


@probe("lesson6.gqa")
def gqa(rec, cls):
    errors = []
    for bad in gqa_bad_args(gqa_args(rec)):
        try:
            cls(*bad)
            errors.append("none")
        except ValueError:
            errors.append("ValueError")
        except Exception as error:  # noqa: BLE001 - any other failure is not the clear error asked for
            errors.append(type(error).__name__)
    rec.put("errors", errors)
    module_cases(rec, "GroupedQueryAttention", cls, gqa_args, gqa_input)
    # The meta device stands in for a GPU: a mask made without device=x.device stays on the CPU and fails there.
    args = gqa_args(rec)
    module = rec.call("GroupedQueryAttention", cls, *args).to("meta")
    y = rec.call("GroupedQueryAttention.forward (meta)", module, gqa_input(rec, args, "meta", torch.float32).to("meta"))
    rec.put("meta", y[0] if isinstance(y, tuple) else y)


def cache_on_meta(call, fn, host, x):
    """The meta device's case (a GPU's stand-in): a prefill of two tokens, then one more, with host and x moved
    there. call(name, fn, *args): the probe's rec.call. Returns the last output, which must be on meta: a mask made
    without device=x_new.device stays on the CPU and fails there."""
    name = "attend_with_cache (meta)"
    host, x = copy.deepcopy(host).to("meta"), x[:, :3].to("meta")
    with torch.no_grad():
        result = call(name, fn, host, x[:, :2], None)
        cache = result[1] if isinstance(result, tuple) and len(result) == 2 else None
        result = call(name, fn, host, x[:, 2:3], cache)
    return result[0] if isinstance(result, tuple) and len(result) == 2 else result


@probe("lesson6.attend_with_cache")
def attend_with_cache(rec, fn):
    host, x, chunks = cache_setup(rec)
    cache, outputs, shapes, caches = None, [], [], []
    try:   # what the steps before an error returned is recorded too: a wrong output there names the cause
        with torch.no_grad():
            for lo, hi in chunks:
                result = rec.call("attend_with_cache", fn, host, x[:, lo:hi], cache)
                if not (isinstance(result, tuple) and len(result) == 2):
                    rec.put("result", result)
                    return
                y, cache = result
                outputs.append(y)
                shapes.append([list(c.shape) if isinstance(c, torch.Tensor) else None for c in cache]
                              if isinstance(cache, tuple) else None)
                caches.append(tuple(cache) if isinstance(cache, tuple) and len(cache) == 2 else None)
        rec.put("calls", len(outputs))   # every chunk called without an error: the grader wants all their results
    finally:
        rec.put("outputs", outputs)
        rec.put("cache_shapes", shapes)
        rec.put("caches", caches)
    rec.put("meta", cache_on_meta(rec.call, fn, host, x))


# --------------------------------------------------------------------------- naming the mistake
def _hint(hint):
    """A classic mistake's key as a Mismatch's hint: (key, ((field, value), …)) gives its fields as a dict."""
    return (hint[0], dict(hint[1])) if isinstance(hint, tuple) else hint


def _kind(x) -> str:
    return getattr(x, "kind", type(x).__name__)


def _tiled_bug(res):
    for causal in (False, True):
        q, k, v, block, _ = tiled_inputs(causal)(res, "float64", torch.float64)
        got = res[f"causal={causal}.float64"]
        if isinstance(got, torch.Tensor) and not torch.isfinite(got).all():
            return "hint_tiled_nan"
        variants = mistakes.tiled_variants(q, k, v, block, causal)
        if not matching_bug(got, {"right": variants[None]}, 1e-9):
            return matching_bug(got, variants, 1e-9)
    return None


def _gqa_bug(res, right):
    args = gqa_args(res)
    ref = right(*args).double()
    res.fill_parameters(ref)
    got = res["float64"]
    with torch.no_grad():
        variants = mistakes.gqa_expected(ref, gqa_input(res, args, "float64", torch.float64))
    if pair_swapped(got, variants[None].shape):
        return ("hint_pair_order", {"name": "GroupedQueryAttention.forward"})
    weights = got[1] if isinstance(got, tuple) and len(got) == 2 else None
    if isinstance(weights, torch.Tensor) and weights.dim() == 4 and weights.size(1) == args[2] != args[1]:
        return "hint_gqa_weights_heads"   # one weight per KV head, not per query head
    return _hint(mistakes.gqa_output_hint(got, ref, variants, 1e-9))


def _gqa_layout(res, right):
    """Each projection's nn.Linear sizes, named (judge_module's layout names only W_q, W_k, W_v, W_o's)."""
    want = [(n, tuple(p.shape)) for n, p in right(*gqa_args(res)).named_parameters()]
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
    """(output, variants) of the chunks after chunk index, as the probe recorded them."""
    for chunk, y in zip(chunks[index + 1:], res["outputs"][index + 1:]):
        yield y, mistakes.cache_variants(host, x, *chunk)


def _cache_bug(res):
    host, x, chunks = cache_setup(res)
    b, _, _ = x.shape
    h, d = host.n_head, host.head_dim
    with torch.no_grad():
        for index, ((lo, hi), got, shape, cache) in enumerate(zip(chunks, res["outputs"], res["cache_shapes"],
                                                                 res["caches"])):
            if isinstance(got, torch.Tensor) and tuple(got.shape) == (hi - lo, b, x.size(-1)) and hi - lo != b:
                return ("swapped_axes", {"a": 0, "b": 1, "name_a": "B", "name_b": "T_new"})
            if isinstance(got, (tuple, list)) and shape is None:   # (cache, output)
                return "hint_cache_return_order"
            if mistakes.fewer_tokens(got, (b, hi - lo, x.size(-1))):   # y[:, -1:]
                return "hint_cache_output_tokens"
            if shape != [[b, h, hi, d], [b, h, hi, d]]:
                return "hint_cache_concat"
            content = mistakes.cache_content_bug(cache, host, x, hi)
            if content:
                return content
            variants = mistakes.cache_variants(host, x, lo, hi)
            if not mistakes.same(got, variants[None], 1e-9):
                return _hint(mistakes.cache_output_hint(got, host, variants,
                                                        lambda: _later(res, host, x, chunks, index)))
    return None


# --------------------------------------------------------------------------- the procedures
# res: what the probe recorded (attn_course.judging.Results); right: the right implementation.
@procedure()
def judge_attention_flops(res, right):
    cases = [((b, t, h * d, h), res[f"flops.{i}"]) for i, (b, t, h, d) in enumerate(flops_sizes(res))]
    for (b, t, e, h), got in cases:
        want = right(b, t, e, h)
        if not isinstance(got, dict) or set(got) != set(want):
            raise Mismatch("flops_keys", name="attention_flops", want=", ".join(want),
                           got=", ".join(map(str, got)) if isinstance(got, dict) else _kind(got))
        for step, count in want.items():
            value = got[step]
            if isinstance(value, bool) or not isinstance(value, (int, float)):   # np.int64, a tensor: no `/`
                raise Mismatch("count_not_python_int", hint=counts.flops_hint(cases), step=step, kind=_kind(value))
            if isinstance(value, float) and value == count:
                raise Mismatch("flops_not_int", hint=counts.flops_hint(cases), step=step, kind="float")
            if value != count:
                raise Mismatch("flops_differs", hint=counts.flops_hint(cases), step=step, got=value, want=count,
                               sizes=f"B={b}, T={t}, E={e}, H={h}")


@procedure(on_error=counts.kv_error)
def judge_kv_cache_bytes(res, right):
    expect_finding(counts.kv_finding([(tuple(sizes), dtype, res[f"bytes.{dtype}"], right(*sizes, dtype))
                                      for *sizes, dtype in kv_sizes(res)]))


# partial: an error in the last, meta-device call is judged after the values recorded before it
@procedure(on_error=mistakes.tiled_error, partial=True)
def judge_tiled_attention(res, right):
    with naming(lambda: _tiled_bug(res)):
        for causal in (False, True):
            judge_function(res, right, tiled_inputs(causal), prefix=f"causal={causal}.")
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


# partial: a projection built the wrong size is named from the layout, recorded before forward raised
@procedure(on_error=mistakes.gqa_error, partial=True)
def judge_gqa(res, right):
    """right: the module class. The layers' sizes first, then the errors asked for, then the outputs."""
    _gqa_layout(res, right)
    for bad, error in zip(gqa_bad_args(gqa_args(res)), res["errors"]):
        if error != "ValueError":   # the text asks for a ValueError on sizes that do not divide
            raise Mismatch("gqa_no_error", hint="hint_gqa_error", args=bad)
    with naming(lambda: _gqa_bug(res, right)):
        judge_module(res, right, gqa_args, gqa_input, "GroupedQueryAttention")
    expect_device("GroupedQueryAttention (meta)", res["meta"], "meta", hint="hint_mask_device")


# partial: the steps before an error are judged first: they name the cause
@procedure(on_error=mistakes.cache_error, partial=True)
def judge_attend_with_cache(res, right):
    host, x, chunks = cache_setup(res)
    if "result" in res:
        raise Mismatch("returned_not_cache_pair", name="attend_with_cache", kind=_kind(res["result"]))
    b, t, e = x.shape
    h, d = host.n_head, host.head_dim
    with torch.no_grad():
        full, _ = right(host, x)
    outputs, shapes = res["outputs"], res["cache_shapes"]
    if not isinstance(outputs, list) or not isinstance(shapes, list) or len(outputs) > len(chunks) \
            or len(shapes) != len(outputs):
        raise Mismatch("hidden_mismatch", case="attend_with_cache", err=float("inf"))
    with naming(lambda: _cache_bug(res)), torch.no_grad():
        for (lo, hi), got, shape in zip(chunks, outputs, shapes):
            if isinstance(got, torch.Tensor) and tuple(got.shape) != (b, hi - lo, e):   # the output first
                raise Mismatch("hidden_shape", case=f"attend_with_cache（B={b}, H={h}, D={d}, T={t}）",
                               want=(b, hi - lo, e), got=tuple(got.shape))
            if isinstance(got, (tuple, list)) and shape is None:   # (cache, output)
                raise Mismatch("hidden_cache_shape", hint="hint_cache_return_order", name="attend_with_cache", n=hi,
                               want=(b, h, hi, d), got=None)
            case = cache_step("attend_with_cache", f"B={b}, H={h}, D={d}, T={t}", lo, hi, shape, (b, h, hi, d))
            expect_close(case, got, full[:, lo:hi], 1e-9)
        if len(outputs) == len(chunks):   # right outputs, but a cache the next call would misread
            for (lo, hi), cache in zip(chunks, res["caches"]):
                content = mistakes.cache_content_bug(cache, host, x, hi)
                if content:
                    raise Mismatch("cache_contents_differ", hint=content, hi=hi)
    if len(outputs) < len(chunks):
        if "calls" not in res:   # a later call raised: its error speaks (decide() reads this as no verdict)
            raise Mismatch("results_unreadable", why=("why_missing_value", {"key": "outputs"}))
        # The probe went through every chunk without an error, yet fewer results came: they must all be judged.
        raise Mismatch("cache_steps_missing", hint="hint_cache_steps", n=len(outputs), total=len(chunks))
    meta = res["meta"]   # the meta device's case (cache_on_meta), after the values
    if isinstance(meta, torch.Tensor) and meta.device.type != "meta":
        raise Mismatch("cache_meta_device", hint="hint_cache_device", device=meta.device.type)
