"""Lesson 7, exercise 7: ALiBi's bias, its classic mistakes, and what a wrong bias says when it matches none of them.
The exercise's procedure (attn_course.probes.lesson7) names a mistake by them, in the check and the grader alike; its
probe tries H = 20, where slopes computed with `//` are wrong (the lesson's own 4 and 6 hide them)."""
from __future__ import annotations

import math

import torch

from .alibi import alibi_slopes
from .engine import close


def right_alibi_bias(n_head: int, T: int) -> torch.Tensor:
    """The bias the lesson defines, −m_h · (i − j), in float32."""
    return _bias(alibi_slopes(n_head), T).float()


def _bias(m: torch.Tensor, n: int) -> torch.Tensor:
    i = torch.arange(n, dtype=torch.float64)
    return -m[:, None, None] * (i[:, None] - i[None, :])                     # (H, T, T): −m_h · (i − j)


def alibi_variants(n_head: int, n: int) -> dict:
    """The right bias (key None) and the classic mistakes' (a key (hint, detail) where one hint has several)."""
    right = alibi_slopes(n_head)
    variants = {None: _bias(right, n), "hint_alibi_sign": -_bias(right, n),
                "hint_alibi_reversed": _bias(right.flip(0), n)}
    for rule in ("hint_alibi_start", "hint_alibi_ratio", "hint_alibi_power_of_two", "hint_alibi_odd"):
        variants[rule] = _bias(alibi_slopes(n_head, rule), n)
    variants[("hint_alibi_start", "first")] = _bias(alibi_slopes(n_head, "start_first"), n)
    for rule in ("floor_first", "floor_rest", "floor_both"):
        variants[("hint_alibi_floor_div", rule)] = _bias(alibi_slopes(n_head, rule), n)
    return variants


def lower(x: torch.Tensor) -> torch.Tensor:
    """Only keys at or before the query count: the causal mask hides the rest, whatever is there."""
    n = x.size(-1)
    return x.detach().double().cpu().masked_fill(~torch.ones(n, n, dtype=torch.bool).tril(), 0.0)


def alibi_hint(results: list, tol: float = 1e-5) -> str | None:
    """The likely mistake behind (H, T, T) biases, given as (bias, H, T) for every head count tried: the classic
    mistake whose bias every one of them equals (at some head counts two mistakes give the same slopes, as `//`
    in the other H − n slopes and j = 1, 3, 5, … do at n = 8), or, read from the first wrong bias itself, a
    distance that is not i − j (the bias is not m_h times the distance), or the first n slopes wrong, or the
    others."""
    tables = [(lower(got), alibi_variants(n_head, n)) for got, n_head, n in results]
    for key in tables[0][1]:
        if key is not None and all(close(mine, lower(variants[key]), tol) for mine, variants in tables):
            return key[0] if isinstance(key, tuple) else key
    wrong = next(((mine, n_head, n) for (mine, variants), (_, n_head, n) in zip(tables, results)
                  if not close(mine, lower(variants[None]), tol)), None)
    if wrong is None:
        return None
    mine, n_head, n = wrong
    if n < 2 or not torch.isfinite(mine).all():
        return "hint_alibi_distance"
    slopes = -mine[:, 1, 0]                                                  # m_h, one key back
    if not close(mine, lower(_bias(slopes, n)), tol):
        return "hint_alibi_distance"
    right, first = alibi_slopes(n_head), 2 ** math.floor(math.log2(n_head))
    return "hint_alibi_slopes_rest" if close(slopes[:first], right[:first], tol) else "hint_alibi_slopes_first"


def alibi_shape_hint(shape: tuple, n_head: int) -> str:
    """Not (H, T, T): H slopes that are not H (an axis 0 of another size), or slopes and distance that did not
    broadcast to (H, T, T)."""
    return "hint_alibi_count" if len(shape) == 3 and shape[0] != n_head else "hint_alibi_broadcast"


def alibi_error(kind: str, message: str, call: str = "") -> str | None:
    """A call that raised: the visible check's and the grader's alike."""
    if "device" in message or "meta" in message:
        return "hint_alibi_device"
    if "cannot be interpreted as an integer" in message:          # range(n) with n = 2 ** math.log2(H), a float
        return "hint_alibi_largest_power"
    if kind == "ZeroDivisionError" or "arg 3 must not be zero" in message:  # H − n = 0 when H is a power of 2
        return "hint_alibi_count"
    if "must match the size" in message:                          # m (H,) times distance (T, T)
        return "hint_alibi_broadcast"
    return None

