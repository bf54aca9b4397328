"""Lesson 2's classic mistakes: split_heads, merge_heads and the module's results written the classic wrong ways,
and the errors that name a cause. The exercises' procedures (attn_course.probes.lesson2) compare the learner's results
with these, computed on the same draws, in the kernel (the visible check) and in the grader alike."""
from __future__ import annotations

import itertools
import math
import re

import torch

from ..checks.engine import close, scale_variants
from ..checks.heads import merge_heads, split_heads
from ..findings import float32_rounded


def split_variants(x, H) -> dict:
    B, T, HD = x.shape
    D = HD // H
    right = split_heads(x, H)
    variants = {None: right, "hint_view_without_transpose": x.reshape(B, H, T, D),
                "hint_interleaved": x.reshape(B, T, D, H).permute(0, 3, 1, 2), "hint_heads_order": right.flip(1),
                "hint_missing_transpose": x.reshape(B, T, H, D)}
    # Of another shape than (B, H, T, D) (make mutants).
    heads = x.reshape(B, T, H, D)
    variants.update({("hint_split_transpose_axes", f"transpose({a}, {b})"): heads.transpose(a, b)
                     for a, b in itertools.combinations(range(4), 2) if (a, b) != (1, 2)})
    variants["hint_split_no_view"] = x.transpose(1, 2)
    variants[("hint_view_without_transpose", "then transposed")] = x.reshape(B, H, T, D).transpose(1, 2)
    # (B, D, T, H): D heads of H components, as x.split(H, -1) stacked on axis 1 or view(B, T, D, H) transposed.
    variants["hint_split_size"] = x.reshape(B, T, D, H).transpose(1, 2)
    variants["hint_view_order"] = x.reshape(T, B, H, D).transpose(1, 2)
    # B and T flattened together, (B·T, H, D) transposed to (H, B·T, D), read back as (B, H, T, D): heads and
    # sentences mixed (reshape keeps the order H, B, T).
    variants["hint_split_mixes_batch"] = heads.permute(2, 0, 1, 3).reshape(B, H, T, D)
    # Any other order of (B, T, H, D)'s axes (permute(0, 2, 3, 1): (B, H, D, T)), named by the order it gives.
    names = "BTHD"
    for order in itertools.permutations(range(4)):
        if order not in ((0, 1, 2, 3), (0, 2, 1, 3)):
            shown = "(" + ", ".join(names[a] for a in order) + ")"
            variants.setdefault(("hint_split_permute", (("order", shown),)), heads.permute(*order))
    return variants


def merge_variants(x) -> dict:
    """(B, T, H·D) only: the module's procedure applies W_o to each."""
    B, H, T, D = x.shape
    variants = {None: merge_heads(x), "hint_merge_without_transpose": x.reshape(B, T, H * D),
                "hint_merge_interleaved": x.permute(0, 2, 3, 1).reshape(B, T, H * D),
                "hint_heads_order": merge_heads(x.flip(1))}
    variants.update({("hint_merge_transpose_axes", f"transpose({a}, {b})"): x.transpose(a, b).reshape(B, T, H * D)
                     for a, b in itertools.combinations(range(4), 2) if (a, b) != (1, 2)})
    return variants


def merge_shape_variants(x) -> dict:
    """merge_heads' classic mistakes of another shape than (B, T, H·D) (make mutants)."""
    B, H, T, D = x.shape
    back = x.transpose(1, 2)
    return {"hint_merge_no_view": back, ("hint_view_order", "T, B"): back.reshape(T, B, H * D),
            ("hint_view_order", "B, H·D, T"): back.reshape(B, H * D, T),
            # the heads x[:, h], each (B, T, D), joined along another axis than the last
            ("hint_merge_cat_axis", (("dim", 1),)): x.reshape(B, H * T, D),
            ("hint_merge_cat_axis", (("dim", 0),)): x.transpose(0, 1).reshape(H * B, T, D)}


def heads_error(kind: str, message: str, call: str) -> str | None:
    """split_heads' and merge_heads' errors: an in-place method on the input (transpose_) raises on an x that records
    gradients, as the gradient case passes it; split_heads' view after a transpose. Any other error: as error_hint
    names it."""
    if kind == "RuntimeError" and "leaf Variable that requires grad is being used in an in-place operation" in message:
        return "hint_input_in_place"
    if call == "split_heads" and kind == "RuntimeError" and "view size is not compatible" in message:
        return "hint_split_view_after_transpose"   # "use reshape" (hint_contiguous) would mix the axes here
    return None


# Lesson 1's scaling hints name its d_k; from lesson 2 the text calls a head's width D (self.head_dim).
HEAD_SCALE_HINTS = {"hint_scale_mul": "hint_scale_d_mul", "hint_scale_floor": "hint_scale_d_floor",
                    "hint_scale_inverted": "hint_scale_d_inverted", "hint_scale_wrong_dim": "hint_scale_by_heads"}


def _in_heads(key):
    """A key of scale_variants as lesson 2 names it (a (hint, detail) key keeps its detail)."""
    if isinstance(key, tuple):
        return (HEAD_SCALE_HINTS.get(key[0], key[0]), *key[1:])
    return HEAD_SCALE_HINTS.get(key, key)


def wide_weights_hint(weights, module, x, H: int, D: int) -> str | None:
    """Why a module's weights are (B, T, T), not (B, H, T, T): averaged over the heads, one head's taken, or the
    scores computed on the whole width without split_heads. Anything else: None (a hint would only guess)."""
    right = mha_weight_variants(module, x, H, D)[None]
    if close(weights, right.mean(1), 1e-4):
        return "hint_weights_averaged"
    if any(close(weights, right[:, h], 1e-4) for h in range(H)):
        return "hint_weights_one_head"
    raw = module.W_q(x) @ module.W_k(x).transpose(-2, -1)
    if any(close(weights, torch.softmax(raw / s, -1), 1e-4) for s in {1.0, math.sqrt(D), math.sqrt(H * D), D}):
        return "hint_not_split"
    return None


def dropped_weights(got, right) -> bool:
    """Weights with dropout on them (torch.dropout, F.dropout, nn.Dropout in training mode): each either 0 or the
    right weight times one factor 1 / (1 − p) > 1. The rows then sum to anything but 1, and "check the
    softmax" would name a cause the code does not have."""
    if not isinstance(got, torch.Tensor) or got.shape != right.shape or not got.is_floating_point():
        return False
    got, right = got.detach().to(right), right.detach()
    kept = (got != 0) & (right > 1e-6)
    if not (got == 0).any() or not kept.any():
        return False
    ratio = got[kept] / right[kept]
    return float(ratio.mean()) > 1.0 + 1e-6 and close(ratio, torch.full_like(ratio, float(ratio.mean())), 1e-6)


def mha_weight_variants(module, x, H: int, D: int) -> dict:
    """The right attention weights of a multi-head module (W_q, W_k) on x, and the classic wrong ones."""
    B, T, E = x.shape
    q, k = module.W_q(x), module.W_k(x)
    variants = {}
    for split_key, split in (("", lambda z: split_heads(z, H)),
                             ("hint_view_without_transpose", lambda z: z.reshape(B, H, T, D)),
                             ("hint_interleaved", lambda z: z.reshape(B, T, D, H).permute(0, 3, 1, 2)),
                             ("hint_split_mixes_batch",
                              lambda z: z.reshape(B * T, H, D).transpose(0, 1).reshape(B, H, T, D))):
        Q, K = split(q), split(k)
        raw = Q @ K.transpose(-2, -1)
        if not split_key:
            variants[None] = torch.softmax(raw / math.sqrt(D), -1)
            variants.update(_width_from_e(raw, E // H, D, H))
            variants["hint_no_scale_d"] = torch.softmax(raw, -1)
            variants["hint_scale_by_d"] = torch.softmax(raw / D, -1)
            variants[("hint_scale_head_dim", "HD")] = torch.softmax(raw / math.sqrt(H * D), -1)
            variants[("hint_scale_head_dim", "E")] = torch.softmax(raw / math.sqrt(E), -1)
            variants["hint_softmax_axis"] = torch.softmax(raw / math.sqrt(D), -2)
            variants["hint_scale_after_softmax"] = torch.softmax(raw, -1) / math.sqrt(D)
            variants["hint_scores_transposed"] = torch.softmax(raw.transpose(-2, -1) / math.sqrt(D), -1)
            variants.update({_in_heads(k): torch.softmax(v, -1) for k, v in scale_variants(raw, D, {H}).items()})
        else:
            variants[split_key] = torch.softmax(raw / math.sqrt(D), -1)
    Q, K = (z.reshape(B, T, D, H).transpose(1, 2) for z in (q, k))   # split_heads(z, self.head_dim): D heads of H
    variants["hint_head_count"] = torch.softmax(Q @ K.transpose(-2, -1) / math.sqrt(D), -1)
    # Q or K projected by another layer (a line copied and left unchanged: K = split_heads(self.W_q(x), H))
    for what, right_layer, others in (("Q", "W_q", ("W_k", "W_v")), ("K", "W_k", ("W_q", "W_v"))):
        for layer in others:
            z = {"Q": q, "K": k} | {what: getattr(module, layer)(x)}
            Q, K = split_heads(z["Q"], H), split_heads(z["K"], H)
            variants[_layer_key(what, layer, right_layer)] = torch.softmax(Q @ K.transpose(-2, -1) / math.sqrt(D), -1)
    return variants


def _width_from_e(raw, width: int, D: int, H: int) -> dict:
    """The scores divided by √(E // H), a head's width taken as E / H where head_dim is given: E // H = 0 divides by
    0 (NaN weights), E // H = 1 by 1 (no scaling: either cause is named). Where √(E // H) is another classic
    divisor (√H, D, √(H·D)), that one's hint stands."""
    if width in (D, H, D * D, H * D):
        return {}
    if width == 1:
        return {"hint_no_scale_or_width_from_e": torch.softmax(raw, -1)}
    return {"hint_head_dim_from_e": torch.softmax(raw / math.sqrt(width), -1)}


def width_from_e(layout, E: int, H: int, D: int) -> bool:
    """Whether a module's layers (layout: [(name, shape)]) are sized by a head width of E // H where head_dim = D
    was given: W_q, W_k, W_v of H·(E // H) outputs."""
    shapes = {name: tuple(shape) for name, shape in layout}
    inner = H * (E // H)
    return E // H != D and all(shapes.get(f"{w}.weight", (None,))[0] == inner for w in ("W_q", "W_k", "W_v"))


def _layer_key(what: str, layer: str, right_layer: str) -> tuple:
    return "hint_projection_layer", (("what", what), ("layer", layer), ("want", right_layer))


def output_variants(module, x, weights, H: int) -> dict:
    """forward's output from the right weights, merged the classic wrong ways, or with V projected by another layer."""
    heads = weights @ split_heads(module.W_v(x), H)
    variants = {key: module.W_o(value) for key, value in merge_variants(heads).items()}
    for layer in ("W_q", "W_k"):
        wrong = weights @ split_heads(getattr(module, layer)(x), H)
        variants[_layer_key("V", layer, "W_v")] = module.W_o(merge_heads(wrong))
    return variants


def module_error(kind: str, message: str, call: str) -> str | None:
    """forward's errors that name split_heads' input: a view of x itself (W_q forgotten or applied after the
    split, or H taken from another size), or its arguments the other way round. The layers' shapes are checked
    first and x's by expect_tokens, so a Linear that raises is W_o given another width than H·D (merge_heads left
    out, or given a split that went wrong), and a "must match" is Q, K, V or the weights without their (B, H)
    axes in common: "transpose K", the generic hint for both, would name a cause the code does not have."""
    if kind == "ZeroDivisionError":   # 1 / math.sqrt(embed_dim // n_head) with E < H: E // H = 0
        return "hint_head_dim_from_e"
    if kind == "RuntimeError" and re.search(r"shape '\[.*\]' is invalid for input of size", message):
        return "hint_split_input"
    if kind == "AttributeError" and "'int' object has no attribute" in message:
        return "hint_split_args"
    if kind == "RuntimeError" and "mat1 and mat2 shapes cannot be multiplied" in message:
        return "hint_w_o_input"
    if kind == "RuntimeError" and re.search(r"must match the size of tensor b \(\d+\) at non-singleton", message):
        return "hint_heads_axes"
    if kind == "RuntimeError" and re.search(r"(mat1 and mat2|m1 and m2) (must )?(to )?have the same dtype", message):
        return "hint_keep_dtype"   # a float32 tensor (.float(), one made without dtype=) meets a float64 layer
    return None


def matmul_hint(failed, t_len: int, d: int) -> str | None:
    """forward's matrix product that raised, by the shapes it was given (MatmulWatch; the error's text is the same for
    all three): Q @ K, two (T, D), is K not transposed; V @ weights, (T, D) @ (T, T), the weighted average's operands
    the other way round; weights of (D, D), made by Kᵀ @ Q, the scores' operands. Any other pair: None, no hint
    ("transpose K", the generic hint for a product's sizes, would name a cause the code does not have)."""
    if len(failed[1]) == 2 and failed[0][-1] == failed[1][-1] != failed[1][0]:
        return "hint_weight_not_transposed"   # x @ layer.weight: an (out, in) weight used as (in, out)
    a, b = (tuple(shape[-2:]) for shape in failed)
    if a == b == (t_len, d):
        return "hint_transpose_k"
    if a[-1:] == (d,) and b == (t_len, t_len):
        return "hint_weights_v_order"
    return "hint_scores_operand_order" if a == (d, d) else None


def precision_hint(got, want) -> str | None:
    """The hint for float64 results (got, as returned) right only to float32's precision: computed in float32."""
    gots = got if isinstance(got, (tuple, list)) else (got,)
    return "hint_float32_inside" if any(float32_rounded(g, w) for g, w in zip(gots, want)) else None


def squeezed(got, want) -> bool:
    """got is want with axes of size 1 dropped (a squeeze() on forward's results): what B = 1 or T = 1 shows."""
    return isinstance(got, torch.Tensor) and got.dim() < want.dim() and got.numel() == want.numel() and \
        [s for s in got.shape if s != 1] == [s for s in want.shape if s != 1]


def size_one_hint(got, want) -> str | None:
    """The hint for forward's results (got, as returned) on an input with B = 1 or T = 1 whose shapes lost axes."""
    gots = got if isinstance(got, (tuple, list)) else (got,)
    return "hint_squeeze" if any(squeezed(g, w) for g, w in zip(gots, want)) else None


# Exercise 4's module, as the text gives it: MultiHeadAttention(768, 12, 64).
N_PARAMS_SIZES = (768, 12, 64)


def n_params_hint(got: int, want: int) -> str | None:
    """The classic miscounts of MultiHeadAttention(E, H, D)'s parameters (N_PARAMS_SIZES), named by their cause and
    never by the right count: W_o left out, the biases counted (the layers have none), one head's width D counted
    where each projection has H·D outputs."""
    E, H, D = N_PARAMS_SIZES
    if 4 * got == 3 * want:
        return "hint_n_params_no_w_o"
    if got - want in (3 * H * D, 3 * H * D + E):
        return "hint_n_params_bias"
    if got * H == want or 4 * got * H == 3 * want:
        return "hint_n_params_one_head"
    return None
