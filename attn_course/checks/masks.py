"""Masks as the checks build them: the causal mask, and scores masked as a variant says (lessons 6 and 7)."""
from __future__ import annotations

import torch


def tril(T: int) -> torch.Tensor:
    return torch.ones(T, T, dtype=torch.bool).tril()


def masked(s, keep, fill: str = "-inf"):
    """The scores masked as a variant says: filled with `fill` where keep is False, "inverted" (filled where it
    is True), or "additive" (scores + (~keep) * -inf: 0 * -inf is NaN where keep is True)."""
    if fill == "additive":
        return s + (~keep) * float("-inf")
    if fill == "inverted":
        return s.masked_fill(keep, float("-inf"))
    return s.masked_fill(~keep, float(fill))
