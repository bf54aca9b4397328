"""Lesson 6's hidden tests, kernel side: run the learner's code on the grader's inputs and record it."""
import torch
import torch.nn as nn

from ..checks import lesson6_tiles as tiles
from ..checks.lesson6 import KV_DTYPES, cache_on_meta
from ..score_watch import ScoreWatch
from .cases import function_cases, module_cases
from .recorder import probe



def flops_sizes(draws):
    return [tuple(draws.sizes(f"flops.{i}", 4, low=2, high=40)) for i in range(3)]


def kv_sizes(draws):
    return [(*draws.sizes(f"kv.{dtype}", 5, low=2, high=30), dtype) for dtype in KV_DTYPES]


def tiled_sizes(draws):
    b, h = draws.sizes("batch_heads", 2, low=1, high=4)
    t, d, block = draws.sizes("sizes", 3, low=2, high=14)
    # Two whole blocks and more, and never a multiple of one: a last, short block that is not the second (with two
    # blocks, only the first one and all but the short one are the same mistake, and the grader named the other).
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
