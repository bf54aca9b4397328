"""Lesson 7, exercise 7: ALiBi's bias, its classic mistakes, and what a wrong bias says when it matches none of them.
Shared by the visible check and the grader's judge, so both name a mistake alike (make mutants, issue 29: slopes
computed with `//` passed the visible check, whose H = 4 and 6 make −8(h+1)/n whole, and lost points in grading;
20 of the exercise's 30 generated mistakes failed with no hint)."""
from __future__ import annotations

import math

import torch

from ..messages import t
from ..validate import CheckFailed
from .alibi import alibi_slopes
from .engine import close, expect_shape, max_error, passed, run
from .invariants import reads_globals

# H = 4 and 6 are the lesson's; 12 and 20 are where `//` in a slope's exponent changes it (−8(j+1)/(2n) at n = 8,
# −8(h+1)/n at n = 16 are not whole numbers).
CHECK_HEADS = (4, 6, 12, 20)
T = 7


def _bias(m: torch.Tensor, n: int) -> torch.Tensor:
    i = torch.arange(n, dtype=torch.float64)
    return -m[:, None, None] * (i[:, None] - i[None, :])                     # (H, T, T): −m_h · (i − j)


def alibi_variants(n_head: int, n: int) -> dict:
    """The right bias (key None) and the classic mistakes' (a key (hint, detail) where one hint has several)."""
    right = alibi_slopes(n_head)
    variants = {None: _bias(right, n), "hint_alibi_sign": -_bias(right, n), "hint_alibi_reversed": _bias(right.flip(0), n)}
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
    distance that is not i − j (the bias is not m_h times the distance), or the first n slopes wrong, or the others."""
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


@reads_globals(7)   # lesson 7's notebook sizes (checks.lesson7.LESSON)
def check_alibi_bias(fn) -> None:
    name = "alibi_bias"
    results = []
    for n_head in CHECK_HEADS:
        got = run(name, fn, n_head, T, on_error=alibi_error)
        shape_hint = alibi_shape_hint(tuple(got.shape), n_head) if isinstance(got, torch.Tensor) else None
        expect_shape(got, (n_head, T, T), ("H", "T", "T"), t("what_bias"), t(shape_hint) if shape_hint else None)
        if got.dtype != torch.float32:
            raise CheckFailed(t("alibi_dtype", got=got.dtype), t("hint_alibi_dtype"))
        results.append((got, n_head, T))
    for got, n_head, _ in results:
        want = alibi_variants(n_head, T)[None]
        if not close(lower(got), lower(want), 1e-6):
            hint = alibi_hint(results)
            raise CheckFailed(t("alibi_differs", h=n_head, err=max_error(lower(got), lower(want)),
                                slopes=", ".join(f"{float(m):.4g}" for m in alibi_slopes(n_head))), t(hint) if hint else None)
    meta = run(name, fn, 2, 3, device=torch.device("meta"), on_error=t("hint_alibi_device"))
    if not isinstance(meta, torch.Tensor) or meta.device.type != "meta":
        raise CheckFailed(t("hint_alibi_device"))
    passed(name)
