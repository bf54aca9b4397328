"""What lesson 8's cache exercises share, on the check's side and the grader's alike (the judges reach these through
attn_course.checks.lesson8): an error that says a length was a tensor, a pair returned the other way round, outputs
NaN everywhere, and the classic mistake whose outputs equal every output so far.
"""
from __future__ import annotations

import torch

from ..messages import t
from .engine import close


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


def rolling_bug(outputs: list, positions: list, run, tol: float = 1e-9):
    """The first of the rolling cache's mistakes (ROLLING_BUGS) whose outputs equal every output so far (a NaN as 0)
    and whose ring positions equal the learner's pos after each of those calls: its own evidence, as outputs alone
    can agree by chance (the ring written first and T_seen = pos.max() without + 1 both leave a first token with no
    key). run(**flags) -> (outputs, rings) of rolling_run."""
    from .lesson8 import ROLLING_BUGS
    for key, flags in ROLLING_BUGS.items():
        outs, rings = run(**flags)
        if all(isinstance(g, torch.Tensor) and close(torch.nan_to_num(g), o, tol) for g, o in zip(outputs, outs)) and \
                all(isinstance(p, torch.Tensor) and p.tolist() == ring[2].tolist() for p, ring in zip(positions, rings)):
            return key
    return None


def as_named(key):
    """A variant's key as the grader's matching_bug names it: the hint, or (hint, {field: value})."""
    return ((key[0], dict(key[1])) if isinstance(key[1], tuple) else key[0]) if isinstance(key, tuple) else key
