"""Reference for lesson 2. Lives only in autograder/: never copied into a release."""
import math

import torch
import torch.nn as nn

from attn_course.checks import (
    CheckFailed, _call, _distinct_sizes, _grading_generator, expect_torch_compatible, expect_rank, expect_size, expect_tokens, hidden_answer,
    hidden_compare_function, hidden_compare_module, resolve_head_dim, hidden_passed,
)
from attn_course.messages import t


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


def head_as_single(mha, i):
    """Weights of head i as lesson-1 tensors: (W_q_i, W_k_i, W_v_i, W_o_i)."""
    D = mha.head_dim
    rows = slice(i * D, (i + 1) * D)
    return (mha.W_q.weight[rows], mha.W_k.weight[rows], mha.W_v.weight[rows], mha.W_o.weight[:, rows])


def to_torch_mha(mha):
    expect_torch_compatible(mha)
    torch_mha = nn.MultiheadAttention(mha.embed_dim, mha.n_head, bias=False, batch_first=True)
    with torch.no_grad():
        torch_mha.in_proj_weight.copy_(torch.cat([mha.W_q.weight, mha.W_k.weight, mha.W_v.weight], dim=0))
        torch_mha.out_proj.weight.copy_(mha.W_o.weight)
    return torch_mha.to(mha.W_q.weight.device, mha.W_q.weight.dtype)


# --------------------------------------------------------------------------- hidden tests
def test_split_heads(fn):
    def make(g, dtype):
        b, t_, h, d = _distinct_sizes(g, 4)
        return torch.randn(b, t_, h * d, generator=g, dtype=dtype), h
    _compare_with_int(fn, split_heads, make, "split_heads")


def _compare_with_int(fn, ref, make, name):
    # hidden_compare_function differentiates every argument; n_head is an int, so close over it.
    store = {}

    def make_tensors(g, dtype):
        x, h = make(g, dtype)
        store["h"] = h
        return (x,)
    hidden_compare_function(name, lambda x: fn(x, store["h"]), lambda x: ref(x, store["h"]), make_tensors)


def test_merge_heads(fn):
    def make(g, dtype):
        b, h, t_, d = _distinct_sizes(g, 4)
        return (torch.randn(b, h, t_, d, generator=g, dtype=dtype),)
    hidden_compare_function("merge_heads", fn, merge_heads, make)


def test_module(cls):
    sizes = {}

    def make_args(g):
        sizes["B"], sizes["T"], h, d, e = _distinct_sizes(g, 5, low=2, high=16)
        return (e, h, d)

    def make_input(g, args, dtype):
        return torch.randn(sizes["B"], sizes["T"], args[0], generator=g, dtype=dtype)

    hidden_compare_module("MultiHeadAttention", cls, MultiHeadAttention, make_args, make_input)
    # head_dim left out: embed_dim // n_head, and a clear error when it does not divide.
    m = cls(12, 3)
    if getattr(m, "head_dim", None) != 4:
        raise CheckFailed(t("hidden_mismatch", case="head_dim = embed_dim // n_head", err=float("inf")))
    try:
        cls(10, 3)
    except ValueError:
        pass
    else:
        raise CheckFailed(t("hint_head_dim_divides", e=10, h=3))


def test_head_as_single(fn, attention_cls):
    g = _grading_generator()
    b, t_, h, d, e = _distinct_sizes(g, 5, low=2, high=12)
    mha = MultiHeadAttention(e, h, d).double()
    x = torch.randn(b, t_, e, generator=g, dtype=torch.float64)
    with torch.no_grad():
        want, _ = mha(x)
        total = torch.zeros_like(want)
        for i in range(h):
            single = _call("head_as_single", fn, mha, i)
            if not isinstance(single, attention_cls):
                raise CheckFailed(t("hint_head_returns_attention"))
            total = total + single.double()(x)[0]
    if not torch.allclose(total, want, atol=1e-10):
        raise CheckFailed(t("hidden_mismatch", case="Σ head_as_single(mha, i)(x)", err=float((total - want).abs().max())))
    hidden_passed("head_as_single")


def test_to_torch_mha(fn):
    g = _grading_generator()
    b, t_, h, d = _distinct_sizes(g, 4, low=2, high=10)
    mha = MultiHeadAttention(h * d, h).double()
    x = torch.randn(b, t_, h * d, generator=g, dtype=torch.float64)
    theirs = _call("to_torch_mha", fn, mha)
    if type(theirs) is not nn.MultiheadAttention:  # a look-alike could compute anything
        raise CheckFailed(t("hint_returns_torch_mha", kind=type(theirs).__name__))
    with torch.no_grad():
        y, w = theirs(x, x, x, need_weights=True, average_attn_weights=False)
        want_y, want_w = mha(x)
    err = max(float((y - want_y).abs().max()), float((w - want_w).abs().max()))
    if err > 1e-6:
        raise CheckFailed(t("hidden_mismatch", case="nn.MultiheadAttention", err=err))
    hidden_passed("to_torch_mha")


def test_n_params(n):
    hidden_answer("answer_n_params", n, 4 * 768 * 12 * 64)
