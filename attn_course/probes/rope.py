"""RoPE's bases the hidden tests of lessons 7 and 8 draw from, and the rotation at a base they hand the learner's
code."""
from __future__ import annotations

from ..checks.rope import rope

BASES = (10000.0, 500000.0, 100.0)  # the paper's and GPT-NeoX's, Llama 3's, and a small one


def turn_with(base):
    return lambda q, k, positions: rope(q, k, positions, base)
