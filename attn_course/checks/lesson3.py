"""Lesson 3's visible checks: causal and padding masks, the two mask conventions, NaN rows, the module. Each runs its
exercise's probe on a seed of its own and judges what it recorded by the exercise's procedure
(attn_course.probes.lesson3), as the grader does, with the right answer given here."""
from __future__ import annotations

import math

import torch
import torch.nn as nn

from .engine import blames_earlier
from .heads import merge_heads, split_heads

# Each check's own seed: the probe's inputs drawn from it follow the probe's rule (no size the notebook binds).
SEEDS = {"causal_mask": 111, "apply_mask": 112, "padding_keep": 113, "safe_softmax": 114, "mha_mask_to_sdpa": 115,
         "module": 116}


def right_causal_mask(T, device=None):
    return torch.ones(T, T, dtype=torch.bool, device=device).tril()


def right_apply_mask(scores, keep):
    return scores.masked_fill(~keep, float("-inf"))


def right_padding_keep(lengths, T):
    return torch.arange(T, device=lengths.device) < lengths[:, None]


def right_mha_mask_to_sdpa(mask):
    """nn.MultiheadAttention's bool mask says True = do not attend, SDPA's True = attend; an additive mask reads
    the same in both."""
    return ~mask if mask.dtype == torch.bool else mask


def right_safe_softmax(scores):
    return torch.softmax(scores, dim=-1).nan_to_num(0.0)


def _verify(exercise: str, right, obj, name: str | None = None) -> None:
    from ..judging import verify   # here: the probes' package imports the checks
    from ..probes import lesson3 as probes
    verify(getattr(probes, exercise), getattr(probes, f"judge_{exercise}"), right, SEEDS[exercise], name or exercise,
           obj)


def check_causal_mask(fn) -> None:
    _verify("causal_mask", right_causal_mask, fn)


def check_apply_mask(fn) -> None:
    _verify("apply_mask", right_apply_mask, fn)


def check_padding_keep(fn) -> None:
    _verify("padding_keep", right_padding_keep, fn)


def check_mha_mask_to_sdpa(fn) -> None:
    _verify("mha_mask_to_sdpa", right_mha_mask_to_sdpa, fn)


def check_safe_softmax(fn) -> None:
    _verify("safe_softmax", right_safe_softmax, fn)


class RightCausalSelfAttention(nn.Module):
    """The module the text describes: W_q, W_k, W_v: E → H·D and W_o: H·D → E without biases, a causal buffer of
    (max_len, max_len) not saved with the weights, the padding joined to it by &, dropout on the weights; forward
    returns (output, weights), with None for the weights on the SDPA path and zeros where every key is masked."""

    def __init__(self, embed_dim, n_head, head_dim=None, dropout=0.0, max_len=32):
        super().__init__()
        self.embed_dim, self.n_head = embed_dim, n_head
        self.head_dim = head_dim or embed_dim // n_head
        inner = n_head * self.head_dim
        self.W_q, self.W_k, self.W_v = (nn.Linear(embed_dim, inner, bias=False) for _ in range(3))
        self.W_o = nn.Linear(inner, embed_dim, bias=False)
        self.dropout = nn.Dropout(dropout)
        self.register_buffer("causal", right_causal_mask(max_len), persistent=False)

    def forward(self, x, lengths=None, use_sdpa=False):
        T = x.size(1)
        Q, K, V = (split_heads(f(x), self.n_head) for f in (self.W_q, self.W_k, self.W_v))
        keep = self.causal[:T, :T]
        if lengths is not None:
            keep = keep & right_padding_keep(lengths, T)[:, None, None, :]
        if use_sdpa:
            p = self.dropout.p if self.training else 0.0
            y = torch.nn.functional.scaled_dot_product_attention(Q, K, V, attn_mask=keep, dropout_p=p)
            return self.W_o(merge_heads(y.nan_to_num(0.0))), None
        weights = right_safe_softmax(right_apply_mask(Q @ K.transpose(-2, -1) / math.sqrt(self.head_dim), keep))
        return self.W_o(merge_heads(self.dropout(weights) @ V)), weights


@blames_earlier(causal_mask=(1, check_causal_mask), apply_mask=(2, check_apply_mask),
                padding_keep=(4, check_padding_keep), safe_softmax=(5, check_safe_softmax))
def check_causal_module(cls) -> None:
    _verify("module", RightCausalSelfAttention, cls, "CausalSelfAttention")
