"""The GPT-2 attention module's reference: lesson 4's answer, which lessons 5 and 7 build on (and lesson 4's judges
run). Lives only in autograder/: never in a release, never in a kernel.
"""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

from attn_course.validate import expect_size, expect_tokens, resolve_head_dim


def split_qkv(qkv, n_head):
    B, T, three_e = qkv.shape
    q, k, v = qkv.split(three_e // 3, dim=2)                                  # (B, T, E) each
    return tuple(z.view(B, T, n_head, -1).transpose(1, 2) for z in (q, k, v))  # (B, H, T, D) each


class GPT2SelfAttention(nn.Module):
    def __init__(self, embed_dim, n_head, max_len=64, dropout=0.0):
        super().__init__()
        self.embed_dim = expect_size(embed_dim, "embed_dim")
        self.n_head = expect_size(n_head, "n_head")
        self.head_dim = resolve_head_dim(embed_dim, n_head)
        self.c_attn = nn.Linear(embed_dim, 3 * embed_dim)
        self.c_proj = nn.Linear(embed_dim, embed_dim)
        self.dropout = nn.Dropout(dropout)
        self.register_buffer("causal", torch.ones(max_len, max_len, dtype=torch.bool).tril(), persistent=False)

    def forward(self, x, use_sdpa=False):
        expect_tokens(x, self.embed_dim)
        B, T, E = x.shape
        q, k, v = split_qkv(self.c_attn(x), self.n_head)
        if use_sdpa:
            p = self.dropout.p if self.training else 0.0
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True, dropout_p=p)
            return self.c_proj(y.transpose(1, 2).contiguous().view(B, T, E)), None
        scores = (q @ k.transpose(-2, -1) / math.sqrt(self.head_dim)).masked_fill(~self.causal[:T, :T], float("-inf"))
        weights = torch.softmax(scores, dim=-1)
        y = (self.dropout(weights) @ v).transpose(1, 2).contiguous().view(B, T, E)
        return self.c_proj(y), weights
