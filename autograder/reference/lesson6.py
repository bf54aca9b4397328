"""Lesson 6's reference and its judges. Lives only in autograder/: never in a release, never in a kernel."""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F
from attn_course.probes import lesson6 as probe
from attn_course.validate import dtype_bytes, expect_size, expect_tokens, resolve_head_dim, resolve_kv_groups
from attn_grader.judge import Mismatch, expect_close, judge, judge_function, judge_module


def _merge(x):
    B, H, T, D = x.shape
    return x.transpose(1, 2).reshape(B, T, H * D)


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


def attend_with_cache(attn, x_new, cache=None):
    B, T_new, E = x_new.shape
    H = attn.n_head
    q, k, v = (z.view(B, T_new, H, E // H).transpose(1, 2) for z in attn.c_attn(x_new).split(E, dim=2))
    if cache is not None:
        k, v = torch.cat([cache[0], k], dim=2), torch.cat([cache[1], v], dim=2)
    past = k.size(2) - T_new
    keep = torch.ones(T_new, k.size(2), dtype=torch.bool, device=x_new.device).tril(diagonal=past)
    scores = (q @ k.transpose(-2, -1) / math.sqrt(E // H)).masked_fill(~keep, float("-inf"))
    return attn.c_proj(_merge(torch.softmax(scores, dim=-1) @ v)), (k, v)


# --------------------------------------------------------------------------- judges
@judge("lesson6.attention_flops")
def judge_attention_flops(res):
    for i, (b, t, h, d) in enumerate(probe.flops_sizes(res)):
        got, want = res[f"flops.{i}"], attention_flops(b, t, h * d, h)
        if not isinstance(got, dict) or {k: got.get(k) for k in want} != want or \
                any(isinstance(got.get(k), bool) for k in want):
            raise Mismatch("hidden_mismatch", case=f"attention_flops(B={b}, T={t}, E={h * d}, H={h})", err=float("inf"))


@judge("lesson6.kv_cache_bytes")
def judge_kv_cache_bytes(res):
    for *sizes, dtype in probe.kv_sizes(res):
        got, want = res[f"bytes.{dtype}"], kv_cache_bytes(*sizes, dtype)
        if isinstance(got, bool) or not isinstance(got, int) or got != want:
            raise Mismatch("hidden_mismatch", case=f"kv_cache_bytes{(*sizes, dtype)}", err=float("inf"))


def _sdpa(q, k, v, block, causal):
    return F.scaled_dot_product_attention(q, k, v, is_causal=causal)


@judge("lesson6.tiled_attention")
def judge_tiled_attention(res):
    for causal in (False, True):
        judge_function(res, _sdpa, probe.tiled_inputs(causal), prefix=f"causal={causal}.")


@judge("lesson6.gqa")
def judge_gqa(res):
    judge_module(res, GroupedQueryAttention, probe.gqa_args, probe.gqa_input)


@judge("lesson6.attend_with_cache")
def judge_attend_with_cache(res):
    host, x, chunks = probe.cache_setup(res)
    if "result" in res:
        raise Mismatch("returned_not_cache_pair", name="attend_with_cache", kind=type(res["result"]).__name__)
    b, t, e = x.shape
    h, d = host.n_head, host.head_dim
    with torch.no_grad():
        full, _ = attend_with_cache(host, x)
    outputs, shapes = res["outputs"], res["cache_shapes"]
    if not isinstance(outputs, list) or not isinstance(shapes, list) or len(outputs) != len(chunks):
        raise Mismatch("hidden_mismatch", case="attend_with_cache", err=float("inf"))
    for (lo, hi), got, shape in zip(chunks, outputs, shapes):
        if shape != [[b, h, hi, d], [b, h, hi, d]]:
            raise Mismatch("hidden_mismatch", case=f"attend_with_cache: cache after {hi} tokens", err=float("inf"))
        tokens = f"token {lo}" if hi - lo == 1 else f"tokens {lo}..{hi - 1}"
        expect_close(f"attend_with_cache B={b}, H={h}, D={d}, T={t}, {tokens}", got,
                     full[:, lo:hi], 1e-9)
