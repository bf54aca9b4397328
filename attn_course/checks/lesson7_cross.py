"""Lesson 7, exercise 8: cross-attention, the right module, its classic mistakes, and the errors that name one. The
exercise's procedure (attn_course.probes.lesson7) names a mistake by them, in the check and the grader alike."""
from __future__ import annotations

import math

import torch
import torch.nn as nn

from .engine import scale_variants
from .heads import merge_heads, split_heads


class RightCrossAttention(nn.Module):
    """The module the lesson describes: q_proj, k_proj, v_proj, out_proj = nn.Linear(E, E) with a bias, in that
    order; forward(x, memory, key_padding_mask=None) returns (output, weights (B, H, T_q, T_k))."""

    def __init__(self, embed_dim, n_head):
        super().__init__()
        self.embed_dim, self.n_head = embed_dim, n_head
        self.q_proj, self.k_proj, self.v_proj, self.out_proj = (nn.Linear(embed_dim, embed_dim) for _ in range(4))

    def forward(self, x, memory, key_padding_mask=None):
        pad = key_padding_mask if key_padding_mask is not None else \
            torch.zeros(memory.shape[:2], dtype=torch.bool, device=memory.device)
        return cross_variants(self, x, memory, pad)[None]


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


# The call without a mask, as the check and the probe name it: what fails there only, fails on the None.
NO_MASK_CALL = "CrossAttention.forward(x, memory)"


def cross_error(kind: str, message: str, call: str = "") -> str | None:
    """What a forward that raised says, the visible check's and the grader's alike."""
    # key_padding_mask=None used as a mask (indexed, inverted or handed to masked_fill); only the calls without a
    # mask pass a None
    if call == NO_MASK_CALL or "NoneType" in message and any(
            s in message for s in ("subscriptable", "masked_fill", "unary ~")):
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

