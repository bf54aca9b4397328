"""Lesson 6's reference, which the grader gives each exercise's procedure (attn_course/probes/lesson6.py).
Lives only in autograder/: never in a release, never in a kernel."""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F
from attn_course.probes import lesson6 as probe
from attn_course.validate import dtype_bytes, expect_size, expect_tokens, resolve_head_dim, resolve_kv_groups
from attn_grader.judge import judged_by, sibling

_kv_cache = sibling(__file__, "kv_cache")
_merge, attend_with_cache = _kv_cache.merge_heads, _kv_cache.attend_with_cache


def attention_flops(B, T, E, H):
    # FLOPs count a multiply and an add as two: the seed's "ops" are multiply-adds, half of this.
    return {
        "qkv": 2 * B * T * E * 3 * E,
        "scores": 2 * B * H * T * T * (E // H),
        "weighted_sum": 2 * B * H * T * T * (E // H),
        "out_proj": 2 * B * T * E * E,
    }


def kv_cache_bytes(n_layer, batch, T, n_kv_head, head_dim, dtype):
    return 2 * n_layer * batch * T * n_kv_head * head_dim * dtype_bytes(dtype)


def tiled_attention(q, k, v, block_size, causal=False):
    B, H, T, D = q.shape
    m = torch.full((B, H, T, 1), float("-inf"), dtype=q.dtype, device=q.device)
    l = torch.zeros((B, H, T, 1), dtype=q.dtype, device=q.device)
    acc = torch.zeros_like(q)
    rows = torch.arange(T, device=q.device).unsqueeze(1)
    for start in range(0, k.size(2), block_size):
        kb, vb = k[:, :, start:start + block_size], v[:, :, start:start + block_size]
        s = q @ kb.transpose(-2, -1) / math.sqrt(D)
        if causal:
            cols = torch.arange(start, start + kb.size(2), device=q.device)
            s = s.masked_fill(cols > rows, float("-inf"))
        m_new = torch.maximum(m, s.amax(dim=-1, keepdim=True))
        p = torch.exp(s - m_new)
        scale = torch.exp(m - m_new)
        l = l * scale + p.sum(dim=-1, keepdim=True)
        acc = acc * scale + p @ vb
        m = m_new
    return acc / l


class GroupedQueryAttention(nn.Module):
    def __init__(self, embed_dim, n_head, n_kv_head):
        super().__init__()
        self.embed_dim = expect_size(embed_dim, "embed_dim")
        self.n_head = expect_size(n_head, "n_head")
        self.n_kv_head = expect_size(n_kv_head, "n_kv_head")
        self.head_dim = resolve_head_dim(embed_dim, n_head)
        resolve_kv_groups(n_head, n_kv_head)
        self.q_proj = nn.Linear(embed_dim, embed_dim)
        self.kv_proj = nn.Linear(embed_dim, 2 * n_kv_head * self.head_dim)
        self.c_proj = nn.Linear(embed_dim, embed_dim)

    def forward(self, x):
        expect_tokens(x, self.embed_dim)
        B, T, E = x.shape
        q = self.q_proj(x).view(B, T, self.n_head, self.head_dim).transpose(1, 2)
        k, v = (z.view(B, T, self.n_kv_head, self.head_dim).transpose(1, 2)
                for z in self.kv_proj(x).split(self.n_kv_head * self.head_dim, dim=2))
        group = self.n_head // self.n_kv_head
        k, v = k.repeat_interleave(group, dim=1), v.repeat_interleave(group, dim=1)
        keep = torch.ones(T, T, dtype=torch.bool, device=x.device).tril()
        scores = (q @ k.transpose(-2, -1) / math.sqrt(self.head_dim)).masked_fill(~keep, float("-inf"))
        weights = torch.softmax(scores, dim=-1)
        return self.c_proj(_merge(weights @ v)), weights


def _sdpa(q, k, v, block_size, causal=False):
    """What tiling must reproduce: the library's attention over the whole scores."""
    return F.scaled_dot_product_attention(q, k, v, is_causal=causal)


# --------------------------------------------------------------------------- judges
judged_by("lesson6.attention_flops", probe.judge_attention_flops, attention_flops)
judged_by("lesson6.kv_cache_bytes", probe.judge_kv_cache_bytes, kv_cache_bytes)
judged_by("lesson6.tiled_attention", probe.judge_tiled_attention, _sdpa)
judged_by("lesson6.gqa", probe.judge_gqa, GroupedQueryAttention)
judged_by("lesson6.attend_with_cache", probe.judge_attend_with_cache, attend_with_cache)
