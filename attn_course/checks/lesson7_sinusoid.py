"""Lesson 7, exercise 2: the sinusoidal positions a right answer gives, the classic mistakes' versions of them, and
what a wrong table's own shape says when it matches none of those."""
from __future__ import annotations

import torch

from .engine import max_error


def sinusoid(n: int, e: int, base: float = 10000.0, layout: str = "interleaved", exponent: int = 2,
             start: int = 0, sign: int = -1, swap: bool = False, sin_only: bool = False) -> torch.Tensor:
    pos = torch.arange(start, start + n, dtype=torch.float64)[:, None]
    i = torch.arange(e // 2, dtype=torch.float64)
    angle = pos * base ** (sign * exponent * i / e)                                  # (T, E/2)
    a, b = (angle.cos(), angle.sin()) if swap else (angle.sin(), angle.sin() if sin_only else angle.cos())
    if layout == "halves":
        return torch.cat([a, b], dim=-1)
    return torch.stack([a, b], dim=-1).flatten(-2)                                   # sin, cos, sin, cos, …


def sinusoid_variants(n: int, e: int) -> dict:
    return {None: sinusoid(n, e), "hint_pe_halves": sinusoid(n, e, layout="halves"),
            "hint_pe_swapped": sinusoid(n, e, swap=True), "hint_pe_exponent": sinusoid(n, e, exponent=1),
            "hint_pe_sign": sinusoid(n, e, sign=1), "hint_pe_start": sinusoid(n, e, start=1),
            "hint_pe_sin_only": sinusoid(n, e, sin_only=True)}


# A positive exponent turns positions by angles up to T·base: in float32 their sines are off by up to 1e-3 here (3e-2
# at the grader's sizes), so a mistake is named at a looser tolerance than a right answer is accepted at.
PE_HINT_TOL = 0.1


def pe_hint(got: torch.Tensor, want: torch.Tensor) -> str | None:
    """The likely mistake in a (T, E) table that matches none of the variants, from where it is wrong: a value
    outside [−1, 1] is no sine or cosine; sin² + cos² = 1 in every pair with a right first row (position 0 gives
    0, 1, 0, 1, … whatever the frequencies) says both columns turn by one wrong angle; otherwise one right half
    of the columns puts the mistake in the other."""
    got, want = got.detach().double().cpu(), want.double()
    if got.abs().max() > 1 + 1e-4:
        return "hint_pe_unbounded"
    first_row = max_error(got[0], want[0]) <= 1e-4
    if first_row and max_error(got[:, 0::2] ** 2 + got[:, 1::2] ** 2, torch.ones_like(got[:, 0::2])) <= 1e-3:
        return "hint_pe_angle"
    # Right means right (float32's error is 1e-6 here), not near: where ω is wrong, the cosines of small angles
    # are all near 1.
    right = [max_error(got[:, j::2], want[:, j::2]) <= 1e-3 for j in (0, 1)]
    if right == [True, False]:
        return "hint_pe_cos_columns"
    if right == [False, True]:
        return "hint_pe_sin_columns"
    return "hint_pe_angle" if first_row else None


def pe_error(kind: str, message: str, call: str = "") -> str | None:
    """A call that raised: position and ω that do not broadcast to (T, E/2), or a tensor on another device."""
    if "'torch.dtype' object is not callable" in message:   # torch.float(…): a dtype called as a function
        return "hint_pe_float_call"
    if "device" in message or "meta" in message:
        return "hint_pe_device"
    if kind == "RuntimeError" and ("must match" in message or "expanded size" in message):
        return "hint_pe_broadcast"
    return None


def pe_shape_hint(got, n: int, e: int) -> str | None:
    """A table of (T, E/2): one half of the columns returned, `pe = torch.cos(…)` for `pe[:, 1::2] = …`."""
    return "hint_pe_half_table" if isinstance(got, torch.Tensor) and tuple(got.shape) == (n, e // 2) else None
