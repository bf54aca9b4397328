"""Lesson 8's procedures for multi-head latent attention (their probes are in lesson8.py): the module (exercise 7) and
its absorbed form with a latent cache (exercise 8). Each `judge_x(res, right)` is the verdict on what the probe
recorded, given the right implementation: the grader runs it with DeepSeek-V3's attention from transformers
(autograder/reference/lesson8.py), the visible check with the module the lesson describes, on a seed of its own.

transformers computes DeepseekV3's RMSNorm and softmax in float32 whatever the input's dtype, so it agrees with MLA
in float64 to about 2e-7 (lesson 8's tests measure it): the tolerance is 1e-5, and a classic mistake is off by 1e-2
or more.
"""
import torch

from ..checks.lesson8_common import all_nan, cache_pair_swapped, grid
from ..checks.lesson8_mla import (
    ABSORBED_BUGS, MLAHost, absorbed_run, decode_error, latent_shape_hint, mla_error, mla_layers, mla_qkv, mla_variants,
)
from ..judging import Mismatch, expect_close, expect_layout, matching_bug, naming, procedure
from .cases import DTYPE_CASES
from .lesson8 import decode_setup, draw_base, mla_input, mla_sizes
from .lesson8_common import decoding_bug, first_call, no_nan, partial_end
from .rope import turn_with

TOLERANCE = {"float64": 1e-5, "float32": 1e-4}   # transformers' float32 internals


# --------------------------------------------------------------------------- exercise 7: MLA
def _layout_hint(res, sizes):
    """A layer of DeepSeek's with other sizes (nn.Linear(out, in), say), or kv_a_layernorm missing or of another
    width: the hint the layout alone gives."""
    try:
        shapes = {name: tuple(shape) for name, shape in res["layout"]}
    except (TypeError, ValueError):
        return None
    for name, (n_in, n_out) in mla_layers(*sizes).items():
        shape = shapes.get(f"{name}.weight")
        if shape is not None and len(shape) == 2 and shape != (n_out, n_in):
            return ("hint_layer_shape", {"name": name, "want_in": n_in, "want_out": n_out, "got_in": shape[1],
                                         "got_out": shape[0], "why": ""})
    return None if shapes.get("kv_a_layernorm.weight") == (sizes[2],) else ("hint_mla_norm_layer", {"r": sizes[2]})


def _mla_bug(res, sizes, base):
    host = MLAHost(*sizes).double()
    res.fill_parameters(host)
    x = mla_input(res, "float64", torch.float64, sizes[0])
    with torch.no_grad():
        variants = mla_variants(host, x, turn_with(base))
    return all_nan([res["float64"]]) or \
        matching_bug(no_nan(res["float64"]), {key: no_nan(val) for key, val in variants.items()}, 1e-5)


# partial: a layer built nn.Linear(out, in) is named from the layout, which the probe records before any call
@procedure(on_error=mla_error, partial=True)
def judge_mla(res, right):
    """right(sizes, base) -> (a module with DeepSeek's layers, forward(x) -> its causal output for x (B, T, E) with
    RoPE at base): sizes E, H, kv_lora_rank, qk_nope_head_dim, qk_rope_head_dim, v_head_dim."""
    sizes = mla_sizes(res)
    base = draw_base(res)
    module, forward = right(sizes, base)
    with naming(lambda: _layout_hint(res, sizes)):
        expect_layout(res, module)
    norm = module.kv_a_layernorm
    if "norm_eps" in res and res["norm_eps"] != getattr(norm, "variance_epsilon", getattr(norm, "eps", None)):
        raise Mismatch("hint_mla_norm_eps", eps=res["norm_eps"])   # off by ~1e-5 on some seeds only: named here
    res.fill_parameters(module)
    with naming(lambda: _mla_bug(res, sizes, base)):
        for case, dtype in DTYPE_CASES:
            module.to(dtype)
            x = mla_input(res, case, dtype, sizes[0])
            expect_close(f"MultiHeadLatentAttention ({case})", res[case], forward(x), TOLERANCE[case])


# --------------------------------------------------------------------------- exercise 8: MLA absorbed, a latent cache
def _decode_bug(res, host, x, chunks, base):
    shapes = res["cache_shapes"]
    if any(s and isinstance(s[0], list) and len(s[0]) == 4 for s in shapes):
        return ("hint_mla_cache_expanded", {"r": host.kv_lora_rank, "dr": host.qk_rope_head_dim, "h": host.n_head})
    first = chunks[0][1]
    with torch.no_grad():
        return all_nan(res["outputs"]) or decoding_bug(res, ABSORBED_BUGS, lambda **bug: [
            y for y, _ in absorbed_run(host, x, chunks, turn_with(base), **bug)], 1e-5) or \
            first_call(res, *mla_qkv(host, x[:, :first], turn_with(base)),
                       grid(first, first)[0] >= grid(first, first)[1], host.o_proj, 1e-5)


def _latent_shape(shape, b, hi, r, dr, h):
    """A latent cache of the wrong shape after hi tokens: the Mismatch, with the hint its shapes give."""
    found = next((latent_shape_hint(s, b, hi, width, r, dr, h) for s, width in zip(shape, (r, dr))
                  if isinstance(s, list) and s != [b, hi, width]), None) if isinstance(shape, list) else None
    return Mismatch("hidden_latent_shape", hint=None if found is None else found if found[1] else found[0],
                    n=hi, want=[(b, hi, r), (b, hi, dr)], got=shape)


# partial: the calls before one that raised are judged as the whole run is; a shape error is named from the shapes
# the probe watched (mla_decode's mask the other way round, its cache not joined), whatever the sizes.
@procedure(on_error=decode_error, partial=True)
def judge_mla_decode(res, right):
    """right(mla, x, base) -> (MLA's causal output (B, T, E) for all of x, RoPE at base; its latent cache (c, k_R):
    the normalised latent (B, T, r) and the rotated shared key (B, T, d_R))."""
    host, x, chunks, base = decode_setup(res)
    if "result" in res:
        raise Mismatch("returned_not_cache_pair", name="mla_decode", kind=type(res["result"]).__name__,
                       hint=("hint_cache_pair_order", {"name": "mla_decode"})
                       if cache_pair_swapped(res["result"], 2) else None)
    b, n, _ = x.shape
    h, r, dr = host.n_head, host.kv_lora_rank, host.qk_rope_head_dim
    full, latent = right(host, x, base)
    outputs, shapes = res["outputs"], res["cache_shapes"]
    if not isinstance(outputs, list) or not isinstance(shapes, list) or len(outputs) > len(chunks) \
            or len(shapes) != len(outputs):
        raise Mismatch("hidden_mismatch", case="mla_decode", err=float("inf"))
    with naming(lambda: _decode_bug(res, host, x, chunks, base)):
        for (lo, hi), got, shape in zip(chunks, outputs, shapes):
            if shape != [[b, hi, r], [b, hi, dr]]:
                raise _latent_shape(shape, b, hi, r, dr, h)
            sizes = f"H={h}, r={r}, d_R={dr}, base={base:g}"
            case = ("case_cache_token" if hi - lo == 1 else "case_cache_tokens",
                    {"name": "mla_decode", "sizes": sizes, "lo": lo, "last": hi - 1})
            expect_close(case, got, full[:, lo:hi], TOLERANCE["float64"])
    partial_end(res, chunks, "raised_cause")
    # Right outputs from a cache holding something else (c before its norm, k_R not turned): named as such.
    with naming(lambda: _decode_bug(res, host, x, chunks, base) or "hint_mla_latent_contents"):
        for part, got, want in zip(("c", "k_R"), res["cache"], latent):
            expect_close(("case_cache_part", {"name": "mla_decode", "n": n, "part": part}), got, want,
                         TOLERANCE["float64"])
    if "expands_heads" in res and res["expands_heads"] is True:   # right numbers, per-head keys or values made
        raise Mismatch("mla_not_absorbed", hint="hint_mla_not_absorbed")
