"""Lesson 3's visible checks: causal and padding masks, the two mask conventions, NaN rows, the module."""
from __future__ import annotations

import math

import torch

from ..messages import t
from ..validate import CheckFailed
from .engine import (
    close, diagnose, expect_dropout_rules, expect_returned_pair, expect_shape, inputs, max_error, merge_heads, passed,
    run, run_forward, split_heads, tril,
)

# Sizes all different: batch, query rows, sequence, embedding, heads, head width.
B, T_Q, T, E, H, D = 2, 3, 5, 7, 3, 4

def _count_differs(name: str, got, want) -> str:
    """Masks and masked scores hold -inf, where a difference is NaN: say how many places differ instead."""
    if not (isinstance(got, torch.Tensor) and got.shape == want.shape):
        return t("mask_differs", what=name, n=want.numel(), total=want.numel())
    return t("mask_differs", what=name, n=int((got != want).sum()), total=want.numel())


def check_causal_mask(fn) -> None:
    name = "causal_mask"
    got = run(name, fn, T)
    expect_shape(got, (T, T), ("T", "T"), name)
    if got.dtype != torch.bool:
        raise CheckFailed(t("hint_mask_not_bool", dtype=got.dtype))
    want = tril(T)
    if not torch.equal(got, want):
        hint = (t("hint_upper_triangle") if torch.equal(got, want.T)
                else t("hint_inverted_mask") if torch.equal(got, ~want) else None)
        raise CheckFailed(_count_differs(name, got, want), hint)
    # The meta device stands in for a GPU: a mask made without device= stays on the CPU.
    meta = run(name, fn, T, torch.device("meta"), on_error=t("hint_mask_device"))
    if not isinstance(meta, torch.Tensor) or meta.device.type != "meta":
        raise CheckFailed(t("hint_mask_device"))
    passed(name)


def check_apply_mask(fn) -> None:
    name = "apply_mask"
    (scores,) = inputs((B, H, T, T), seed=13)
    keep = tril(T)
    got = run(name, fn, scores, keep)
    expect_shape(got, tuple(scores.shape), ("B", "H", "T", "T"), name)
    want = scores.masked_fill(~keep, float("-inf"))
    if not torch.equal(got, want):
        if torch.equal(got, scores.masked_fill(keep, float("-inf"))):
            hint = t("hint_inverted_mask")
        elif torch.equal(got, scores * keep):
            hint = t("hint_mask_multiplied")
        elif torch.equal(got, scores.masked_fill(~keep.T, float("-inf"))):
            hint = t("hint_upper_triangle")
        else:
            hint = None
        raise CheckFailed(_count_differs(name, got, want), hint)
    passed(name)


def check_padding_keep(fn) -> None:
    name = "padding_keep"
    lengths = torch.tensor([5, 2, 0])
    got = run(name, fn, lengths, 6)
    expect_shape(got, (3, 6), ("B", "T"), name)
    if got.dtype != torch.bool:
        raise CheckFailed(t("hint_mask_not_bool", dtype=got.dtype))
    want = torch.arange(6) < lengths[:, None]
    if not torch.equal(got, want):
        hint = (t("hint_padding_off_by_one") if torch.equal(got, torch.arange(6) <= lengths[:, None])
                else t("hint_padding_inverted") if torch.equal(got, ~want) else None)
        raise CheckFailed(_count_differs(name, got, want), hint)
    meta = run(name, fn, lengths.to("meta"), 6, on_error=t("hint_mask_device"))
    if meta.device.type != "meta":
        raise CheckFailed(t("hint_mask_device"))
    passed(name)


def check_mha_mask_to_sdpa(fn) -> None:
    name = "mha_mask_to_sdpa"
    hidden = ~tril(T)  # nn.MultiheadAttention: True = do not attend
    got = run(name, fn, hidden)
    expect_shape(got, (T, T), ("T", "T"), name)
    if got.dtype != torch.bool:
        raise CheckFailed(t("hint_mask_not_bool", dtype=got.dtype))
    if not torch.equal(got, ~hidden):
        raise CheckFailed(_count_differs(name, got, ~hidden),
                          t("hint_same_convention") if torch.equal(got, hidden) else None)
    additive = torch.zeros(T, T, dtype=torch.float64).masked_fill(hidden, float("-inf"))
    got = run(name, fn, additive)
    if not (isinstance(got, torch.Tensor) and got.dtype == additive.dtype and torch.equal(got, additive)):
        raise CheckFailed(_count_differs(name, got, additive), t("hint_additive_changed"))
    passed(name)


def check_safe_softmax(fn) -> None:
    name = "safe_softmax"
    (scores,) = inputs((B, T_Q, T), seed=14)
    scores = scores.masked_fill(~torch.ones(T_Q, T, dtype=torch.bool).tril(), float("-inf"))
    scores[1, 0] = float("-inf")  # a row with every key masked
    got = run(name, fn, scores)
    expect_shape(got, tuple(scores.shape), ("B", "T_q", "T_k"), name)
    if torch.isnan(got).any():
        raise CheckFailed(t("has_nan", what=name), t("hint_nan_fully_masked"))
    diagnose(got, safe_softmax_variants(scores), "what_weights", 1e-9)
    passed(name)


def safe_softmax_variants(scores) -> dict:
    """The right weights, and -inf replaced by a large negative number: a row with every key masked
    then gets 1/T everywhere instead of zeros."""
    return {None: torch.softmax(scores, -1).nan_to_num(0.0),
            "hint_safe_softmax_uniform": torch.softmax(scores.clamp(min=-1e9), -1)}


def causal_reference(module, x, lengths=None):
    """What module should compute, from its own weights (eval mode, no dropout)."""
    Bx, T, _ = x.shape
    H, D = module.n_head, module.head_dim
    Q, K, V = (split_heads(f(x), H) for f in (module.W_q, module.W_k, module.W_v))
    keep = tril(T)
    if lengths is not None:
        keep = keep & (torch.arange(T) < lengths[:, None])[:, None, None, :]
    raw = Q @ K.transpose(-2, -1) / math.sqrt(D)
    weights = torch.softmax(raw.masked_fill(~keep, float("-inf")), -1).nan_to_num(0.0)
    variants = {
        None: weights,
        "hint_mask_after_softmax": torch.softmax(raw, -1).masked_fill(~keep, 0.0),
        "hint_inverted_mask": torch.softmax(raw.masked_fill(keep, float("-inf")), -1).nan_to_num(0.0),
        "hint_upper_triangle": torch.softmax(raw.masked_fill(~keep.transpose(-2, -1), float("-inf")), -1)
        .nan_to_num(0.0),
        "hint_mask_multiplied": torch.softmax(raw * keep, -1),
    }
    if lengths is not None:
        variants["hint_padding_ignored"] = torch.softmax(raw.masked_fill(~tril(T), float("-inf")), -1)
    else:
        variants["hint_no_mask"] = torch.softmax(raw, -1)
    return variants, module.W_o(merge_heads(weights @ V))


def check_causal_module(cls) -> None:
    name = "CausalSelfAttention"
    max_len = 16
    module = run(name, cls, E, H, D, 0.0, max_len)
    buffers = dict(module.named_buffers())
    if "causal" not in buffers:
        raise CheckFailed(t("hint_buffer_missing"))
    module = module.double().eval()
    (x,) = inputs((B + 1, T, E), seed=15)
    lengths = torch.tensor([T, 3, 0])  # the last sequence is all padding: every key is masked
    with torch.no_grad():
        for lens in (None, lengths):
            y, weights = expect_returned_pair(run_forward(f"{name}.forward", module, x, lens, max_len=max_len),
                                              f"{name}.forward")
            expect_shape(weights, (B + 1, H, T, T), ("B", "H", "T", "T"), t("what_weights"))
            if torch.isnan(weights).any() or torch.isnan(y).any():
                raise CheckFailed(t("has_nan", what=f"{name}.forward"), t("hint_nan_fully_masked"))
            variants, want_y = causal_reference(module, x, lens)
            diagnose(weights, variants, "what_weights")
            expect_shape(y, (B + 1, T, E), ("B", "T", "E"), t("what_output"))
            diagnose(y, {None: want_y}, "what_output")
            y_sdpa = run(f"{name}.forward(use_sdpa=True)", module, x, lens, True)[0]
            if not close(y_sdpa, want_y, 1e-6):
                raise CheckFailed(t("values_differ", what="use_sdpa=True", err=max_error(y_sdpa, want_y)),
                                  t("hint_sdpa_mismatch"))
    noisy = run(name, cls, E, H, D, 0.5, max_len).double()
    noisy.load_state_dict(module.state_dict(), strict=False)
    forward = lambda m, use_sdpa: expect_returned_pair(run(f"{name}.forward", m, x, None, use_sdpa), f"{name}.forward")  # noqa: E731
    expect_dropout_rules(noisy, forward, causal_reference(module, x)[1], layer="W_o")
    try:
        meta = module.to("meta")
        meta(x.to("meta"))
    except RuntimeError as error:
        if "device" in str(error):
            raise CheckFailed(t("raised", name=f"{name}.forward", error=error), t("hint_mask_device")) from None
        raise
    passed(name)
