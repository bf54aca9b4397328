"""Lesson 3's reference, registered with its exercises' procedures. Lives only in autograder/: never in a release,
never in a kernel."""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F
from attn_course.probes import lesson3 as probe
from attn_course.validate import expect_size, expect_tokens, resolve_head_dim
from attn_grader.judge import judged_by


def causal_mask(T, device=None):
    return torch.ones(T, T, dtype=torch.bool, device=device).tril()


def apply_mask(scores, keep):
    return scores.masked_fill(~keep, float("-inf"))


def padding_keep(lengths, T):
    return torch.arange(T, device=lengths.device) < lengths[:, None]


def mha_mask_to_sdpa(mask):
    return ~mask if mask.dtype == torch.bool else mask


def safe_softmax(scores):
    weights = torch.softmax(scores, dim=-1)
    return weights.nan_to_num(0.0)


def split_heads(x, n_head):
    B, T, HD = x.shape
    return x.view(B, T, n_head, HD // n_head).transpose(1, 2)


def merge_heads(x):
    B, H, T, D = x.shape
    return x.transpose(1, 2).contiguous().view(B, T, H * D)


class CausalSelfAttention(nn.Module):
    def __init__(self, embed_dim, n_head, head_dim=None, dropout=0.0, max_len=32):
        super().__init__()
        self.embed_dim = expect_size(embed_dim, "embed_dim")
        self.n_head = expect_size(n_head, "n_head")
        self.head_dim = resolve_head_dim(embed_dim, n_head, head_dim)
        self.max_len = expect_size(max_len, "max_len")
        inner = self.n_head * self.head_dim
        self.W_q = nn.Linear(embed_dim, inner, bias=False)
        self.W_k = nn.Linear(embed_dim, inner, bias=False)
        self.W_v = nn.Linear(embed_dim, inner, bias=False)
        self.W_o = nn.Linear(inner, embed_dim, bias=False)
        self.dropout = nn.Dropout(dropout)
        self.register_buffer("causal", causal_mask(max_len), persistent=False)

    def forward(self, x, lengths=None, use_sdpa=False):
        expect_tokens(x, self.embed_dim)
        B, T, _ = x.shape
        H = self.n_head
        Q, K, V = (split_heads(f(x), H) for f in (self.W_q, self.W_k, self.W_v))
        keep = self.causal[:T, :T]                                          # (T, T)
        if lengths is not None:
            keep = keep & padding_keep(lengths, T)[:, None, None, :]        # (B, 1, T, T)
        if use_sdpa:
            p = self.dropout.p if self.training else 0.0
            y = F.scaled_dot_product_attention(Q, K, V, attn_mask=keep, dropout_p=p)
            return self.W_o(merge_heads(y.nan_to_num(0.0))), None
        scores = apply_mask(Q @ K.transpose(-2, -1) / math.sqrt(self.head_dim), keep)
        weights = safe_softmax(scores)
        y = merge_heads(self.dropout(weights) @ V)
        return self.W_o(y), weights


# --------------------------------------------------------------------------- judges
# Each is the exercise's public procedure (attn_course.probes.lesson3) given this reference: the visible check runs
# the same procedure with the right answer the course's public facts give.
judged_by("lesson3.causal_mask", probe.judge_causal_mask, causal_mask)
judged_by("lesson3.apply_mask", probe.judge_apply_mask, apply_mask)
judged_by("lesson3.padding_keep", probe.judge_padding_keep, padding_keep)
judged_by("lesson3.mha_mask_to_sdpa", probe.judge_mha_mask_to_sdpa, mha_mask_to_sdpa)
judged_by("lesson3.safe_softmax", probe.judge_safe_softmax, safe_softmax)
judged_by("lesson3.module", probe.judge_module, CausalSelfAttention)
