"""ALiBi's slopes (Press et al.), right and as the classic mistakes compute them: lesson 7 builds the bias from them,
lesson 8 a score_mod."""
from __future__ import annotations

import math

import torch


def alibi_slopes(n_head: int, rule: str = "right") -> torch.Tensor:
    n = 2 ** math.floor(math.log2(n_head))
    if rule == "hint_alibi_power_of_two":
        return torch.tensor([2 ** (-8 * (h + 1) / n_head) for h in range(n_head)], dtype=torch.float64)
    if rule == "hint_alibi_ratio":
        return torch.tensor([2.0 ** -(h + 1) for h in range(n_head)], dtype=torch.float64)
    first = 0 if rule in ("hint_alibi_start", "start_first") else 1   # start_first: h in the first n only
    odd = 1 if rule == "hint_alibi_odd" else 0   # j = 1, 3, 5, …: the first n slopes over again
    # `//` in the first n slopes' exponent, in the other H − n's, or in both: Python floors −8(h+1)/n.
    floor_first, floor_rest = rule in ("floor_first", "floor_both"), rule in ("floor_rest", "floor_both")
    slopes = [2 ** (-8 * (h + first) // n if floor_first else -8 * (h + first) / n) for h in range(n)]
    rest = 1 if rule == "start_first" else first
    slopes += [2 ** (-8 * (j + rest) // (2 * n) if floor_rest else -8 * (j + rest) / (2 * n))
               for j in range(odd, 2 * (n_head - n), 2)]
    return torch.tensor(slopes, dtype=torch.float64)
