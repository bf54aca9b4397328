"""Lesson 2's reference. Lives only in autograder/: never in a release, never in a kernel.

The grader imports this module in its own process and judges what the learner's kernel sent by each exercise's
procedure (attn_course/probes/lesson2.py) given this reference.
"""
import math

import torch
import torch.nn as nn
from attn_course.probes import lesson2 as probe
from attn_course.validate import expect_rank, expect_size, expect_tokens, expect_torch_compatible, resolve_head_dim
from attn_grader.judge import judged_by


def split_heads(x, n_head):
    expect_rank(x, 3, "x", "(B, T, H·D)")
    B, T, HD = x.shape
    return x.view(B, T, n_head, HD // n_head).transpose(1, 2)


def merge_heads(x):
    expect_rank(x, 4, "x", "(B, H, T, D)")
    B, H, T, D = x.shape
    return x.transpose(1, 2).contiguous().view(B, T, H * D)


class MultiHeadAttention(nn.Module):
    def __init__(self, embed_dim, n_head, head_dim=None):
        super().__init__()
        self.embed_dim = expect_size(embed_dim, "embed_dim")
        self.n_head = expect_size(n_head, "n_head")
        self.head_dim = resolve_head_dim(embed_dim, n_head, head_dim)
        inner = self.n_head * self.head_dim
        self.W_q = nn.Linear(embed_dim, inner, bias=False)
        self.W_k = nn.Linear(embed_dim, inner, bias=False)
        self.W_v = nn.Linear(embed_dim, inner, bias=False)
        self.W_o = nn.Linear(inner, embed_dim, bias=False)

    def forward(self, x):
        expect_tokens(x, self.embed_dim)
        H = self.n_head
        Q, K, V = (split_heads(f(x), H) for f in (self.W_q, self.W_k, self.W_v))
        weights = torch.softmax(Q @ K.transpose(-2, -1) / math.sqrt(self.head_dim), dim=-1)
        return self.W_o(merge_heads(weights @ V)), weights


def to_torch_mha(mha):
    expect_torch_compatible(mha)
    torch_mha = nn.MultiheadAttention(mha.embed_dim, mha.n_head, bias=False, batch_first=True).to(mha.W_q.weight)
    with torch.no_grad():
        torch_mha.in_proj_weight.copy_(torch.cat([mha.W_q.weight, mha.W_k.weight, mha.W_v.weight], dim=0))
        torch_mha.out_proj.weight.copy_(mha.W_o.weight)
    return torch_mha


# --------------------------------------------------------------------------- judges
# Each is the exercise's public procedure (attn_course.probes.lesson2) given this reference: the visible check runs
# the same procedure with the right answer the course's public facts give.
judged_by("lesson2.split_heads", probe.judge_split_heads, split_heads)
judged_by("lesson2.merge_heads", probe.judge_merge_heads, merge_heads)
judged_by("lesson2.module", probe.judge_module, MultiHeadAttention)
judged_by("lesson2.head_as_single", probe.judge_head_as_single, MultiHeadAttention)
judged_by("lesson2.to_torch_mha", probe.judge_to_torch_mha, MultiHeadAttention)
judged_by("lesson2.n_params", probe.judge_n_params, 4 * 768 * 12 * 64)
