"""Reference for lesson 6. Lives only in autograder/: never copied into a release."""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

from attn_course.checks import (
    CheckFailed, _call, _distinct_sizes, _grading_generator, _max_error, _merge, dtype_bytes, expect_size,
    expect_tokens, from_scratch, hidden_compare_function, hidden_compare_module, hidden_passed, reference,
)
from attn_course.messages import t

GPT2SelfAttention = reference("lesson4").GPT2SelfAttention


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
        if embed_dim % n_head:
            raise ValueError(t("embed_not_divisible", e=embed_dim, h=n_head))
        if n_head % n_kv_head:
            raise ValueError(t("gqa_groups_divide", h=n_head, g=n_kv_head))
        self.head_dim = embed_dim // n_head
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


# --------------------------------------------------------------------------- hidden tests
def test_attention_flops(fn):
    g = _grading_generator()
    for _ in range(3):
        b, t_, h, d = _distinct_sizes(g, 4, low=2, high=40)
        got = _call("attention_flops", fn, b, t_, h * d, h)
        want = attention_flops(b, t_, h * d, h)
        if not isinstance(got, dict) or {k: got.get(k) for k in want} != want:
            raise CheckFailed(t("hidden_mismatch", case=f"attention_flops(B={b}, T={t_}, E={h * d}, H={h})",
                                err=float("inf")))
    hidden_passed("attention_flops")


def test_kv_cache_bytes(fn):
    g = _grading_generator()
    for dtype in (torch.float32, torch.float16, torch.float64, torch.int8):
        sizes = _distinct_sizes(g, 5, low=2, high=30)
        got, want = _call("kv_cache_bytes", fn, *sizes, dtype), kv_cache_bytes(*sizes, dtype)
        if isinstance(got, bool) or not isinstance(got, int) or got != want:
            raise CheckFailed(t("hidden_mismatch", case=f"kv_cache_bytes{(*sizes, dtype)}", err=float("inf")))
    hidden_passed("kv_cache_bytes")


def test_tiled_attention(fn):
    g = _grading_generator()
    b, h, t_, d, block = _distinct_sizes(g, 5, low=2, high=14)
    t_ += 11  # longer than a block, and not always a multiple of it
    for causal in (False, True):
        def make(g, dtype):
            return tuple(torch.randn(b, h, t_, d, generator=g, dtype=dtype) for _ in range(3))

        def ref(q, k, v, causal=causal):
            return F.scaled_dot_product_attention(q, k, v, is_causal=causal)

        hidden_compare_function("tiled_attention", lambda q, k, v, c=causal: fn(q, k, v, block, c), ref, make)


def test_gqa(cls):
    def make_args(g):
        kv, group, d = _distinct_sizes(g, 3, low=2, high=6)
        return kv * group * d, kv * group, kv

    def make_input(g, args, dtype):
        b, t_ = _distinct_sizes(g, 2, low=2, high=9)
        return torch.randn(b, t_ + 1, args[0], generator=g, dtype=dtype)

    hidden_compare_module("GroupedQueryAttention", cls, GroupedQueryAttention, make_args, make_input)


def test_attend_with_cache(fn):
    g = _grading_generator()
    b, h, d, t_ = _distinct_sizes(g, 4, low=2, high=9)
    t_ += 6
    torch.manual_seed(int(torch.randint(0, 2**31, (1,), generator=g)))
    attn = GPT2SelfAttention(h * d, h, max_len=t_).double().eval()
    x = torch.randn(b, t_, h * d, generator=g, dtype=torch.float64)
    with torch.no_grad():
        full = attn(x)[0]
        prefill = int(torch.randint(1, t_ - 2, (1,), generator=g))
        chunks = [(0, prefill)] + [(i, i + 1) for i in range(prefill, t_ - 2)] + [(t_ - 2, t_)]
        cache, outs = None, []
        for lo, hi in chunks:
            result = _call("attend_with_cache", fn, attn, x[:, lo:hi], cache)
            if not (isinstance(result, tuple) and len(result) == 2):
                raise CheckFailed(t("returned_not_cache_pair", name="attend_with_cache", kind=type(result).__name__))
            y, cache = result
            outs.append(y)
            if not (isinstance(cache, tuple) and len(cache) == 2 and all(isinstance(c, torch.Tensor) for c in cache)
                    and cache[0].shape == (b, h, hi, d) and cache[1].shape == (b, h, hi, d)):
                raise CheckFailed(t("hidden_mismatch", case=f"attend_with_cache: cache after {hi} tokens",
                                    err=float("inf")))
        got = torch.cat(outs, dim=1)
    if got.shape != full.shape or not torch.allclose(got, full, atol=1e-9, rtol=1e-9):
        raise CheckFailed(t("hidden_mismatch", case=f"attend_with_cache B={b}, H={h}, D={d}, T={t_}, prefill={prefill}",
                            err=_max_error(got, full) if got.shape == full.shape else float("inf")))
    hidden_passed("attend_with_cache")
