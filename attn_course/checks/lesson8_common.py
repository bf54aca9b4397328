"""What lesson 8's exercises share, on the check's side and the grader's alike (the judges reach these through
attn_course.checks.lesson8): the sizes, attention written out and its classic mistakes, the (query, key) grid, an
error that says a length was a tensor or a cache None, a pair returned the other way round, outputs NaN everywhere,
the classic mistake whose outputs equal every output so far, and what a first call's output tells.
"""
from __future__ import annotations

import math
import re

import torch

from ..messages import t
from .engine import close, error_hint, scale_variants
from .heads import merge_heads


# Batch, heads, sequence, head width: all different, so a mixed-up axis shows as a wrong size.
B, H, T, D = 3, 2, 7, 6


def attend(q, k, v, keep=None, bias=None, scale=None):
    """Attention written out: softmax(q kᵀ / √D + bias, masked) v. keep broadcasts to (…, T_q, T_k)."""
    s = q @ k.transpose(-2, -1) * (scale if scale is not None else 1 / math.sqrt(q.size(-1)))
    if bias is not None:
        s = s + bias
    if keep is not None:
        s = s.masked_fill(~keep, float("-inf"))
    return torch.softmax(s, -1).nan_to_num(0.0) @ v   # a row with no key: 0, as flex_attention gives


# Each message for a span of tokens, and its form for one token ("position 5", not "5 to 5").
ONE_TOKEN = {"cache_differs": "cache_differs_one"}


def cache_none_error(kind: str, message: str, call: str) -> bool:
    """The first call of a cache exercise (its cache argument None) failed on None itself: the cache unpacked or
    indexed before `if cache is None` (or with that test the wrong way round)."""
    return ", None," in call and "NoneType" in message and (
        "cannot unpack" in message or "not subscriptable" in message or "has no attribute" in message)


def control_flow_error(kind: str, message: str, call: str = "") -> str | None:
    """What a mod's error says, in the learner's terms: `and`, `or`, `if` or `min` on the index tensors (vmap cannot
    follow Python's branches); `.item()`, int() or float() on them; a mask function (4 arguments) where a score_mod
    (5) is called; a factory (cache_mod(T_past) …) written as the mask function itself; lengths indexed past the
    batch (lengths[h], lengths[q_idx]: the same cause its mask shows where the index stays in range)."""
    if "data-dependent control flow" in message or "Boolean value of Tensor" in message:
        return "hint_flex_control_flow"
    if "must only return Tensors" in message:
        return "hint_flex_python_bool"
    if ".item()" in message:
        return "hint_flex_item"
    if kind == "TypeError" and re.search(r"takes 4 positional arguments but 5 were given", message):
        return "hint_flex_score_mod_args"
    if kind == "TypeError" and re.search(r"missing 3 required positional arguments: 'h', 'q_idx', and 'kv_idx'",
                                         message):
        return "hint_flex_mod_factory"
    if "causal_padding_mod" in call and "out of bounds" in message:
        return "hint_flex_padding_ignored"
    return None


def shape_error(kind: str, message: str, call: str = "") -> str | bool | None:
    """A shape error in code that writes attention out over a cache or a sink column: lesson 1's hint for it (K not
    transposed) names a cause these shapes rarely have, and which axis went wrong the error's text cannot tell, so
    no hint (False). A torch.cat's error keeps its own (which axis it joins on), unless it joins on the sequence
    axis, the right one: then a part's shape is wrong, not the axis, and no hint either."""
    key = error_hint(kind, message, False)
    return False if key == "hint_transpose_k" or (key == "hint_cat_dim" and "except in dimension 2" in message) \
        else None


def _masked(q, k, keep, fill=float("-inf"), hide=None):
    s = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
    return s.masked_fill(~keep if hide is None else hide, fill)


# The attention core's classic mistakes, for every exercise that writes it out: fn(q, k, v, keep) -> each head's
# output, NaN where the mistake gives NaN (a check compares both with NaN as 0).
CORE_MISTAKES = {
    "hint_mask_not_used": lambda q, k, v, keep: torch.softmax(_masked(q, k, keep, hide=torch.zeros_like(keep)), -1) @ v,
    "hint_inverted_mask": lambda q, k, v, keep: torch.softmax(_masked(q, k, keep, hide=keep), -1) @ v,
    # Before softmax's axes: with -inf left in the weights every output is NaN, and so is softmax over the batch where
    # the mask hides a key in every row (a ring's empty slots): all-NaN outputs are the missing softmax, on both sides.
    "hint_no_softmax": lambda q, k, v, keep: _masked(q, k, keep) @ v,
    ("hint_softmax_axis", (("axis", 0),)): lambda q, k, v, keep: torch.softmax(_masked(q, k, keep), 0) @ v,
    ("hint_softmax_axis", (("axis", 1),)): lambda q, k, v, keep: torch.softmax(_masked(q, k, keep), 1) @ v,
    ("hint_softmax_axis", (("axis", -2),)): lambda q, k, v, keep: torch.softmax(_masked(q, k, keep), -2) @ v,
    "hint_mask_fill_zero": lambda q, k, v, keep: torch.softmax(_masked(q, k, keep, 0.0), -1) @ v,
    "hint_weights_times_keys": lambda q, k, v, keep: torch.softmax(_masked(q, k, keep), -1) @ (   # inf: no such case
        k if k.shape == v.shape else v.new_full(v.shape, float("inf"))),
}


# Not among the core's mistakes everywhere: where another width is the divisor (MLA's √(d_C − d_R) with
# d_C − d_R = 1) it would name this for the wrong width; the rolling cache's scores have one width.
UNSCALED = {"hint_no_scale": lambda q, k, v, keep: torch.softmax(_masked(q * math.sqrt(q.size(-1)), k, keep), -1) @ v}


# --------------------------------------------------------------------------- exercise 1: mask_mods
def grid(n_q: int, n_k: int, offset: int = 0):
    """Each query's absolute position (offset + row) and each key's: (n_q, 1) and (1, n_k)."""
    return torch.arange(offset, offset + n_q)[:, None], torch.arange(n_k)[None, :]


def core_variants(q, k, v, keep) -> dict:
    """Attention written out, (B, T, H·d_v) before the output layer, with one of lessons 1 to 4's classic mistakes
    each: the scale, the causal mask's triangle, diagonal and fill, softmax's axis, heads merged without the
    transpose, and CORE_MISTAKES (the mask not used or inverted, softmax on another axis or left out)."""
    d, (b, h, n, dv) = q.size(-1), v.shape
    raw = q @ k.transpose(-2, -1)

    def out(scores, keep_=keep, fill=float("-inf"), dim=-1, merge=merge_heads):
        return merge(torch.softmax(scores.masked_fill(~keep_, fill), dim) @ v)

    right = raw / math.sqrt(d)
    found = {key: merge_heads(wrong(q, k, v, keep)) for key, wrong in CORE_MISTAKES.items()}
    found.update({key: out(scaled) for key, scaled in scale_variants(raw, d, (b, h, n)).items()})
    found.update({"hint_scale_dk": out(raw / d), "hint_upper_triangle": out(right, keep.mT),
                  "hint_causal_diagonal": out(right, keep | torch.ones_like(keep).tril(1)),
                  ("hint_causal_diagonal", "-1"): out(right, keep & torch.ones_like(keep).tril(-1)),
                  "hint_mask_fill_zero": out(right, fill=0.0),
                  ("hint_softmax_axis", (("axis", -2),)): out(right, dim=-2),
                  "hint_merge_without_transpose": out(right, merge=lambda y: y.reshape(b, n, h * dv))})
    for axes in ((2, 3), (0, 2), (1, 3)):   # transpose(1, 2) with another pair of axes before the reshape
        found[("hint_merge_wrong_axes", f"{axes}")] = out(
            right, merge=lambda y, a=axes: y.transpose(*a).reshape(b, n, h * dv))
    return found


def first_call_hint(y0, q, k, v, keep, finish=lambda y: y, tol: float = 1e-9):
    """The first call of a cache exercise has no cache yet: it is plain attention over its own tokens, so an
    output there equal to one of core_variants' names that mistake (finish: what the exercise does after the heads
    are merged: the output layer, or splitting them again)."""
    if not isinstance(y0, torch.Tensor):
        return None
    # Every value that is not finite as 0: -inf in the weights (softmax left out) gives inf or NaN in an output
    # depending on the order of the sums, which differs between the learner's form and the variant's.
    finite = lambda z: torch.where(torch.isfinite(z), z, torch.zeros_like(z))  # noqa: E731
    y0 = finite(y0.detach().double())
    right = finish(merge_heads(attend(q, k, v, keep))).double()
    if right.shape == y0.shape and close(y0, right, tol):
        return None   # right on the first call (one token alone cannot show these mistakes): the cache is wrong
    found = []
    for key, y in core_variants(q, k, v, keep).items():
        try:
            out = finite(finish(y).double())
        except RuntimeError:
            continue
        if out.shape == y0.shape and close(y0, out, tol) and not close(out, right, tol):
            found.append(key)
    # Two mistakes alike on these tokens (no mask and the diagonal moved, on a prefill of two) name neither.
    return found[0] if len({key[0] if isinstance(key, tuple) else key for key in found}) == 1 else None


def unmerged(h: int):
    """(B, T, H·d) back to (B, H, T, d): for the exercises that return each head's output."""
    return lambda y: y.view(y.size(0), y.size(1), h, -1).transpose(1, 2)


def length_error(kind: str, message: str) -> str | None:
    """A tensor where a length was meant (k.size(2) written k): arange given a tensor for a bound, or a comparison
    of a whole tensor in an `if`. The attention's own: softmax taken of the bool mask, torch.tril without its
    tensor."""
    if kind == "TypeError" and "arange() received an invalid combination" in message and "Tensor," in message:
        return "hint_length_is_tensor"
    if "Boolean value of Tensor with more than one value" in message:
        return "hint_length_is_tensor"
    if "softmax" in message and "not implemented for 'Bool'" in message:
        return "hint_softmax_of_mask"
    if kind == "TypeError" and "tril() missing 1 required positional argument" in message:
        return "hint_tril_no_tensor"
    return None


def cache_pair_swapped(result, parts: int) -> bool:
    """(cache, output) returned for (output, cache): a tuple of `parts` first, a tensor second."""
    return (isinstance(result, (tuple, list)) and len(result) == 2 and isinstance(result[0], (tuple, list))
            and len(result[0]) == parts and isinstance(result[1], torch.Tensor))


def all_nan(outputs: list) -> str | None:
    """The first call's output NaN everywhere: -inf reached arithmetic (a row with every key hidden, 0 × -inf from a
    mask multiplied in, softmax over another axis or left out). Which one, the outputs cannot tell: the sizes decide
    which variants are NaN too, so the check and the grader name this, not a variant that happens to match."""
    first = outputs[0] if outputs else None
    return "hint_output_all_nan" if isinstance(first, torch.Tensor) and first.numel() and \
        bool(torch.isnan(first).all()) else None


def matched_so_far(got: list, variants: dict, tol: float = 1e-9):
    """The first variant whose outputs equal every output so far (a NaN as the variants' 0), as the grader asks of
    all the calls: one call alone can match a mistake by chance."""
    for key, outs in variants.items():
        if all(isinstance(g, torch.Tensor) and close(torch.nan_to_num(g), o, tol) for g, o in zip(got, outs)):
            return key
    return None


def hint_text(key) -> str:
    """A variant's key as its hint: "hint_x", (hint, "detail") or (hint, (("field", value), …))."""
    if isinstance(key, tuple):
        return t(key[0], **dict(key[1])) if isinstance(key[1], tuple) else t(key[0])
    return t(key)


def as_named(key):
    """A variant's key as the grader's matching_bug names it: the hint, or (hint, {field: value})."""
    return ((key[0], dict(key[1])) if isinstance(key[1], tuple) else key[0]) if isinstance(key, tuple) else key
