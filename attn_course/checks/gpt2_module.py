"""The visible check of the GPT-2 attention module lessons 4 to 7 build on, which lessons 4 and 6 run on the
learner's class and lesson 7 before its own: the module's two procedures (attn_course.probes.gpt2_module) on seeds
of its own, with the module the text describes. Its right output and classic mistakes: checks.gpt2_mistakes.
"""
from __future__ import annotations

import math

import torch
import torch.nn as nn
import torch.nn.functional as F

from .engine import passed
from .gpt2_mistakes import _qkv, gpt2_expected, merge_heads, tril  # noqa: F401 - lesson 7's check reads gpt2_expected


class RightGPT2SelfAttention(nn.Module):
    """The module lesson 4's text describes: c_attn (E → 3E) and c_proj (E → E) with biases, a causal buffer of
    (max_len, max_len) not saved with the weights, dropout on the weights; forward returns (output, weights), with
    None for the weights on the SDPA path."""

    def __init__(self, embed_dim, n_head, max_len=64, dropout=0.0):
        super().__init__()
        self.embed_dim, self.n_head = embed_dim, n_head
        self.c_attn = nn.Linear(embed_dim, 3 * embed_dim)
        self.c_proj = nn.Linear(embed_dim, embed_dim)
        self.dropout = nn.Dropout(dropout)
        self.register_buffer("causal", tril(max_len), persistent=False)

    def forward(self, x, use_sdpa=False):
        q, k, v = _qkv(self, x)
        if use_sdpa:
            p = self.dropout.p if self.training else 0.0
            return self.c_proj(merge_heads(F.scaled_dot_product_attention(q, k, v, is_causal=True, dropout_p=p))), None
        T_ = x.size(1)
        scores = (q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))).masked_fill(~self.causal[:T_, :T_], float("-inf"))
        weights = torch.softmax(scores, -1)
        return self.c_proj(merge_heads(self.dropout(weights) @ v)), weights


# Each check's own seed: the probe's inputs drawn from it follow the probe's rule (no size the notebook binds).
SEEDS = {"module": 402, "module_max_len": 403}


def check_gpt2_module(cls) -> None:
    expect_gpt2_module(cls)
    passed("GPT2SelfAttention")


def expect_gpt2_module(cls) -> None:
    """Lesson 4's checks of the module, without the line saying they passed: lesson 7 adds its own after them. The
    module's two procedures (attn_course.probes.gpt2_module: lesson4.module, then lesson4.module_max_len, which
    builds it with a max_len that is not 64 and runs it past 64, as lessons 5 to 7 do), each on a seed of its own,
    with the module the text describes."""
    from ..judging import verify   # here: the probes' package imports the checks
    from ..probes import gpt2_module as probes
    for exercise in SEEDS:   # the one line saying both passed is the caller's
        verify(getattr(probes, exercise), getattr(probes, f"judge_{exercise}"), RightGPT2SelfAttention,
               SEEDS[exercise], "GPT2SelfAttention", cls, say_passed=False)
