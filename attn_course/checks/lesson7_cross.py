"""Lesson 7, exercise 8: cross-attention, its classic mistakes, and the errors that name one. Shared by the visible
check and the grader's judge, so both name a mistake alike (make mutants, issue 29: 29 of the exercise's generated
mistakes failed with no hint; a view before the transpose and a mask applied only when there is none were named
apart by the check and the grader)."""
from __future__ import annotations

import copy
import math

import torch
import torch.nn as nn

from ..messages import t
from ..validate import CheckFailed, InputError
from .engine import (
    close, expect_returned_pair, expect_shape, inputs, linear_problem, max_error, passed, raised, run, scale_variants,
)
from .heads import merge_heads, merged_out_of_order, split_heads
from .invariants import expect_dtype, expect_grads, expect_same, reads_globals, shapes_text

B, T, H, D = 3, 7, 2, 6
E = H * D


def to_torch_mha(module) -> nn.MultiheadAttention:
    """nn.MultiheadAttention with the module's weights: in_proj is Q, K and V stacked in that order."""
    e = module.q_proj.in_features
    mha = nn.MultiheadAttention(e, module.n_head, batch_first=True).to(module.q_proj.weight.dtype)
    with torch.no_grad():
        mha.in_proj_weight.copy_(torch.cat([module.q_proj.weight, module.k_proj.weight, module.v_proj.weight]))
        mha.in_proj_bias.copy_(torch.cat([module.q_proj.bias, module.k_proj.bias, module.v_proj.bias]))
        mha.out_proj.weight.copy_(module.out_proj.weight)
        mha.out_proj.bias.copy_(module.out_proj.bias)
    return mha.eval()


def heads_averaged(w, shape) -> bool:
    """Weights (B, T_q, T_k): averaged over the heads (nn.MultiheadAttention's default) or one head's."""
    b, _, t_q, t_k = shape
    return isinstance(w, torch.Tensor) and tuple(w.shape) == (b, t_q, t_k)


def none_mask_error(message: str) -> bool:
    """key_padding_mask=None used as a mask: indexed, inverted or handed to masked_fill."""
    return "NoneType" in message and any(s in message for s in ("subscriptable", "masked_fill", "unary ~"))


# The call without a mask, as the check and the probe name it: what fails there only, fails on the None.
NO_MASK_CALL = "CrossAttention.forward(x, memory)"


def cross_error(kind: str, message: str, call: str = "") -> str | None:
    """What a forward that raised says, the visible check's and the grader's alike."""
    if none_mask_error(message) or call == NO_MASK_CALL:   # only the calls without a mask pass a None
        return "hint_cross_none_mask"
    if kind == "InputError" and ".forward" in call:   # the course's own input check refused right inputs
        return "hint_cross_expect_tokens"
    if "object has no attribute" in message and any(f"'{a}'" in message for a in ("embed_dim", "n_head", "head_dim")):
        return "hint_cross_attributes"
    if "view size is not compatible" in message:  # a view of a transposed tensor: split or merge out of order
        return "hint_cross_view"
    if any(s in message for s in ("must match", "invalid for input", "cannot be multiplied")):
        return "hint_cross_lengths"              # T_q ≠ T_k everywhere: a shape error is the two mixed up
    return None


def cross_variants(module, x, memory, pad) -> dict:
    """(output, weights) right (key None) and for each classic mistake; a key (hint, detail) where one hint has
    several, (hint, (("field", value),)) where its text takes fields."""
    h = module.n_head
    q = split_heads(module.q_proj(x), h)
    k, v = split_heads(module.k_proj(memory), h), split_heads(module.v_proj(memory), h)
    d = q.size(-1)
    t_q, t_k = q.size(2), k.size(2)
    raw = q @ k.transpose(-2, -1)

    def finish(scores, mask="pad", fill=float("-inf"), project=True, axis=-1, values=v):
        if mask == "pad":
            scores = scores.masked_fill(pad[:, None, None, :], fill)
        elif mask == "inverted":
            scores = scores.masked_fill(~pad[:, None, None, :], fill)
        elif mask in ("causal", "causal_lower_right"):   # top-left as tril() is, or bottom-right as a KV cache's
            scores = scores.masked_fill(pad[:, None, None, :], fill)
            shift = t_k - t_q if mask == "causal_lower_right" else 0
            scores = scores.masked_fill(~torch.ones(t_q, t_k, dtype=torch.bool).tril(diagonal=shift), fill)
        w = torch.softmax(scores, axis)
        y = merge_heads(w @ values)
        return (module.out_proj(y) if project else y), w

    scaled = raw / math.sqrt(d)
    variants = {
        None: finish(scaled), "hint_cross_causal": finish(scaled, "causal"),
        "hint_cross_causal_lower_right": finish(scaled, "causal_lower_right"),
        "hint_cross_mask_inverted": finish(scaled, "inverted"), "hint_cross_mask_zero": finish(scaled, fill=0.0),
        "hint_cross_no_mask": finish(scaled, None), "hint_no_scale": finish(raw),
        "hint_cross_scale_e": finish(raw / math.sqrt(h * d)), "hint_scale_dk": finish(raw / d),
        "hint_cross_out_proj": finish(scaled, project=False),
        # a projection left out: x or memory split into heads as they are
        ("hint_cross_in_proj", "q"): finish(split_heads(x, h) @ k.transpose(-2, -1) / math.sqrt(d)),
        ("hint_cross_in_proj", "k"): finish(q @ split_heads(memory, h).transpose(-2, -1) / math.sqrt(d)),
        ("hint_cross_in_proj", "v"): finish(scaled, values=split_heads(memory, h)),
    }
    variants.update({key: finish(scores) for key, scores in scale_variants(raw, d).items() if isinstance(key, str)})
    for axis in (0, 1, 2):
        variants[("hint_softmax_axis", (("axis", axis),))] = finish(scaled, axis=axis)
    return variants


def cross_hint(got, variants: dict, what: int, tol: float = 1e-6):
    """The classic mistake whose output (what = 0) or weights (what = 1) got equals: a key, or (key, fields)."""
    for key, value in variants.items():
        if key is not None and same(got, value[what], tol):
            if isinstance(key, tuple):
                return (key[0], dict(key[1])) if isinstance(key[1], tuple) else key[0]
            return key
    return None


def same(a: torch.Tensor, b: torch.Tensor, tol: float = 1e-6) -> bool:
    """Equal within tol, NaN where the other has NaN: an inverted padding mask hides whole rows."""
    return a.shape == b.shape and bool(torch.allclose(a.detach().double(), b.detach().double(), atol=tol,
                                                      rtol=tol, equal_nan=True))


def _cross_compare(got, variants, what: int, module) -> None:
    right = variants[None][what]
    label = ("what_output", "what_weights")[what]
    if same(got, right):
        return
    hint = cross_hint(got, variants, what)
    if hint is None and what == 0 and merged_out_of_order(got, module.out_proj, right, 1e-6):
        hint = "hint_cross_merge"
    text = (t(hint[0], **hint[1]) if isinstance(hint, tuple) else t(hint)) if hint else None
    if not torch.isfinite(got).all():
        raise CheckFailed(t("has_nan", what=t(label)), text or t("hint_cross_nan"))
    raise CheckFailed(t("values_differ", what=t(label), err=max_error(got, right)), text)


def _forward(call: str, module, *args):
    """module(*args), with the errors the exercise's own mistakes raise named (cross_error)."""
    try:
        return run(call, module, *args, on_error=cross_error)
    except InputError as error:   # course.expect_tokens refused right inputs: its arguments or the attributes
        raise CheckFailed(error.message, t("hint_cross_expect_tokens")) from None


@reads_globals(7)   # lesson 7's notebook sizes (checks.lesson7.LESSON)
def check_cross_attention(cls) -> None:
    name = "CrossAttention"
    t_q, t_k = T - 2, T
    module = run(name, cls, E, H)
    for layer in ("q_proj", "k_proj", "v_proj", "out_proj"):
        problem = linear_problem(module, layer, E, E, "", bias=True)
        if problem:
            raise problem
    module = module.double().eval()
    x, memory = inputs((B, t_q, E), (B, t_k, E), seed=79)
    lengths = torch.tensor([t_k, 4, t_k - 1])
    pad = torch.arange(t_k)[None, :] >= lengths[:, None]                       # (B, T_k): True = padding
    with torch.no_grad():
        y, w = expect_returned_pair(_forward(f"{name}.forward", module, x, memory, pad), f"{name}.forward")
        expect_shape(y, (B, t_q, E), ("B", "T_q", "E"), t("what_output"), t("hint_cross_q_from_memory"))
        expect_shape(w, (B, H, t_q, t_k), ("B", "H", "T_q", "T_k"), t("what_weights"),
                     t("hint_cross_heads_averaged") if heads_averaged(w, (B, H, t_q, t_k)) else t("hint_cross_kv_from_x"))
        expect_dtype(f"{name}.forward", (y, w), torch.float64)   # the grader's float64 case keeps its dtype too
    with torch.no_grad():
        variants = cross_variants(module, x, memory, pad)
        _cross_compare(w, variants, 1, module)
        _cross_compare(y, variants, 0, module)
        mha_y, mha_w = to_torch_mha(module)(x, memory, memory, key_padding_mask=pad, need_weights=True,
                                            average_attn_weights=False)
        if not (close(y, mha_y, 1e-6) and close(w, mha_w, 1e-6)):  # the same weights must give the same numbers
            raise CheckFailed(t("values_differ", what="nn.MultiheadAttention", err=max_error(y, mha_y)))
        y_all, _ = expect_returned_pair(_forward(NO_MASK_CALL, module, x, memory), f"{name}.forward")
        if not close(y_all, cross_variants(module, x, memory, torch.zeros_like(pad))[None][0], 1e-6):
            raise CheckFailed(t("cross_no_mask_differs"), t("hint_cross_none_mask"))
    _float32_case(module, x, memory, pad)
    for bad in ((x, memory[..., :-1]), (x[0], memory)):
        if raised(module, *bad) != "ValueError":  # a torch error is not the clear message asked for
            raise CheckFailed(t("hint_cross_no_input_check", x=tuple(bad[0].shape), memory=tuple(bad[1].shape)))
    if raised(cls, 10, 3) != "ValueError":  # E = 10 does not split into 3 heads: the course's error, as the probe asks
        raise CheckFailed(t("hint_cross_head_dim", e=10, h=3))
    _grad_case(module, x, memory, pad)
    passed(name)


def _float32_case(module, x, memory, pad) -> None:
    """The grader's float32 case: the module and its inputs in float32, the output and weights kept in float32."""
    call = "CrossAttention.forward (float32)"
    single, (x32, memory32) = copy.deepcopy(module).float(), (x.float(), memory.float())
    with torch.no_grad():
        got = expect_returned_pair(_forward(call, single, x32, memory32, pad), call)
        expect_dtype("CrossAttention.forward", got, torch.float32)
        expect_same(call, got, cross_variants(single, x32, memory32, pad)[None], shapes_text([x32, memory32]), 1e-4,
                    differs="case_differs")


def _grad_case(module, x, memory, pad) -> None:
    """The grader's gradient case: with respect to x, memory and every parameter, by its rule (findings)."""
    call = "CrossAttention.forward"
    ref = copy.deepcopy(module)
    leaves, ref_leaves = ([z.detach().clone().requires_grad_(True) for z in (x, memory)] for _ in range(2))
    got = _forward(call, module, *leaves, pad)
    names = [n for n, _ in module.named_parameters()]
    refs = dict(ref.named_parameters())
    expect_grads(call, got, [*leaves, *module.parameters()], cross_variants(ref, *ref_leaves, pad)[None],
                 [*ref_leaves, *(refs[n] for n in names)], ["x", "memory", *names], 80)
