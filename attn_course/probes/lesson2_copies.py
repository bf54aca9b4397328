"""Lesson 2's copies, diagnosed: why head i's copied weights (exercise 5) or nn.MultiheadAttention's (exercise 6) are
not mha's. Pure functions of what was copied and the source module, which those exercises' procedures
(attn_course.probes.lesson2) call."""
from __future__ import annotations

import torch

from ..checks.engine import close


def head_error(kind: str, message: str, call: str) -> str | None:
    """An error in head_as_single: a copy_ into a parameter outside torch.no_grad(), or a copy_ between two shapes
    (a slice of the wrong size; hint_head_slice gives the new Attention's shapes too). Any other error: no hint."""
    if "leaf Variable" in message:
        return "hint_copy_no_grad"
    if kind == "RuntimeError" and "must match the size of tensor" in message:
        return "hint_head_slice"
    return None


HEAD_LAYERS = ("W_q", "W_k", "W_v", "W_o")


def head_slices(mha, i: int) -> dict:
    """Head i's part of each of mha's weight matrices: rows of W_q, W_k, W_v, columns of W_o."""
    rows = slice(i * mha.head_dim, (i + 1) * mha.head_dim)
    return {name: getattr(mha, name).weight.detach()[(slice(None), rows) if name == "W_o" else rows]
            for name in HEAD_LAYERS}


def head_weights_hint(layers: dict, mha, i: int) -> tuple | None:
    """(hint, fields) naming why head i's copied weights (layers: {"W_q": tensor, …}, as the new Attention holds
    them) are not mha's slices, or None when they are. The first layer that differs is named: of another dtype
    or device than mha (the template's .to(mha.W_q.weight) left out), interleaved rows, another layer's slice,
    no row of mha's at all (never copied), or another slice."""
    want = head_slices(mha, i)
    W = {name: getattr(mha, name).weight.detach() for name in HEAD_LAYERS}
    for name in HEAD_LAYERS:
        got, right = layers.get(name), want[name]
        if isinstance(got, torch.Tensor) and got.is_floating_point() and got.shape == right.shape and \
                (got.dtype, got.device.type) != (right.dtype, right.device.type) and close(got.to(right), right, 1e-6):
            return "hint_head_dtype", {"got": f"{got.dtype} / {got.device.type}",
                                       "want": f"{right.dtype} / {right.device.type}"}
    if all(_holds_none_of(layers.get(name), W[name], name == "W_o") for name in HEAD_LAYERS):
        return "hint_head_not_copied", {}
    for name in HEAD_LAYERS:
        got = layers.get(name)
        right = want[name]
        if isinstance(got, torch.Tensor) and got.shape == right.shape and got.dtype == right.dtype \
                and got.device.type == right.device.type and torch.equal(got.detach(), right):
            continue
        if not isinstance(got, torch.Tensor) or not got.is_floating_point():
            return "hint_head_layer_not_copied", {"layer": name}
        got = got.detach().to(right)
        if name != "W_o" and got.shape == W[name][i::mha.n_head].shape and torch.equal(got, W[name][i::mha.n_head]):
            return "hint_interleaved", {}
        other = next((o for o in HEAD_LAYERS if o != name and want[o].shape == got.shape
                      and torch.equal(got, want[o])), None)
        if other is not None:
            return "hint_head_layer_other", {"layer": name, "other": other}
        if _holds_none_of(got, W[name], name == "W_o"):
            return "hint_head_layer_not_copied", {"layer": name}
        other = next((j for j in range(mha.n_head) if j != i and torch.equal(got, head_slices(mha, j)[name])), None)
        if other is not None:   # the head's number counted otherwise (H − 1 − i, i + 1)
            return "hint_head_other_index", {"i": i, "j": other}
        return "hint_head_slice", {}
    return None


def _holds_none_of(got, weight, by_columns: bool) -> bool:
    """Whether got (a copied weight) holds no row of mha's weight (no column, for W_o): its own random weights."""
    if not isinstance(got, torch.Tensor) or not got.is_floating_point() or got.dim() != 2:
        return True
    got = got.detach().to(weight)
    mine, lines = (got.T, weight.T) if by_columns else (got, weight)
    return mine.shape[-1] != lines.shape[-1] or not any(torch.equal(row, line) for row in mine for line in lines)


def torch_mha_error(kind: str, message: str, call: str) -> str | None:
    """nn.MultiheadAttention's own assertion that num_heads divides embed_dim: mha's sizes pass
    expect_torch_compatible first, so only its two arguments the other way round meet it. A "must match" is a
    copy_ between two shapes (torch.cat on another axis, or a module of another size), not "transpose K"."""
    if "embed_dim must be divisible by num_heads" in message:
        return "hint_torch_mha_args"
    if kind == "RuntimeError" and "must match the size of tensor b" in message:
        return "hint_torch_mha_copy_shape"
    return None


def in_proj_hint(got, mha) -> tuple:
    """(hint, fields) naming why in_proj_weight is not W_q, W_k, W_v's weights stacked in this order: transposed,
    in another order, or one block that holds none of them (not copied: the module's own random weights)."""
    w = [mha.W_q.weight.detach(), mha.W_k.weight.detach(), mha.W_v.weight.detach()]
    got = got.detach().to(w[0])
    if close(got, torch.cat([m.T for m in w]), 1e-6):
        return "hint_in_proj_transposed", {}
    blocks = got.chunk(3) if got.shape == torch.cat(w).shape else ()
    for name, block, right in zip(("W_q", "W_k", "W_v"), blocks, w):
        if not close(block, right, 1e-6) and not any(close(block, other, 1e-6) for other in w):
            e = right.shape[0]
            start = ("W_q", "W_k", "W_v").index(name) * e
            return "hint_in_proj_block", {"layer": name, "lo": start, "hi": start + e - 1}
    return "hint_in_proj_order", {}


def torch_mha_setup(embed_dim, num_heads, bias: bool, batch_first, mha) -> str | None:
    """Every argument nn.MultiheadAttention was built with otherwise than the text's
    nn.MultiheadAttention(mha.embed_dim, mha.n_head, bias=False, batch_first=True), named together
    ("bias / batch_first": " / " reads alike in both languages), or None."""
    wrong = [name for name, ok in (("embed_dim", embed_dim == mha.embed_dim), ("num_heads", num_heads == mha.n_head),
                                   ("bias", not bias), ("batch_first", bool(batch_first))) if not ok]
    return " / ".join(wrong) or None


def out_proj_hint(got, mha) -> str:
    """Why out_proj.weight is not W_o's weight: W_o.weight transposed, or anything else (not copied)."""
    w_o = mha.W_o.weight.detach()
    return "hint_out_proj_transposed" if close(got.detach().to(w_o), w_o.T, 1e-6) else "hint_out_proj"


def torch_mha_dropout(p, training) -> tuple | None:
    """(hint, fields) for an nn.MultiheadAttention returned with dropout on: in training mode (a new module's) its
    weights and output differ from mha's on every call. The text builds it without (dropout=0, the default); one
    with dropout put in eval mode computes what mha does."""
    return ("hint_torch_mha_dropout", {"p": p}) if isinstance(p, (int, float)) and p and training else None
