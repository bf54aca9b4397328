"""Heads: an embedding split into H heads and merged back (lesson 2's answers, which later lessons' checks compute
with), and a merge done in another order, told from the output projection."""
from __future__ import annotations

import torch
import torch.nn as nn

from .engine import max_error


def split_heads(x, H):
    B, T, HD = x.shape
    return x.view(B, T, H, HD // H).transpose(1, 2)


def merge_heads(x):
    B, H, T, D = x.shape
    return x.transpose(1, 2).reshape(B, T, H * D)


def merged_out_of_order(y, layer: nn.Linear, right_y, tol: float) -> bool:
    """y is the output projection (layer) of the heads' outputs joined in another order (a transpose left out or of
    other axes): with the projection undone, it holds the same values as the right output's, elsewhere."""
    if not (isinstance(y, torch.Tensor) and y.shape == right_y.shape and torch.isfinite(y).all()):
        return False
    weight, bias = layer.weight.detach().double(), layer.bias.detach().double()
    undo = lambda z: torch.linalg.solve(weight, (z.detach().double() - bias).reshape(-1, z.size(-1)).T)  # noqa: E731
    mine, right = undo(y).flatten().sort().values, undo(right_y).flatten().sort().values
    return max_error(mine, right) <= tol and max_error(undo(y), undo(right_y)) > tol
