"""Reference for lesson 1. Lives only in autograder/: never copied into a release."""
import math

import torch
import torch.nn as nn

from attn_course.checks import expect_qkv, expect_size, expect_tokens


def attention_scores(Q, K):
    expect_qkv(Q, K)
    return Q @ K.transpose(-2, -1) / math.sqrt(Q.size(-1))


def softmax_last(scores):
    shifted = scores - scores.amax(dim=-1, keepdim=True)
    e = shifted.exp()
    return e / e.sum(dim=-1, keepdim=True)


def attention(Q, K, V):
    expect_qkv(Q, K, V)
    weights = softmax_last(attention_scores(Q, K))
    return weights @ V, weights


class Attention(nn.Module):
    def __init__(self, embed_dim, key_dim):
        super().__init__()
        self.embed_dim, self.key_dim = expect_size(embed_dim, "embed_dim"), expect_size(key_dim, "key_dim")
        self.W_q = nn.Linear(embed_dim, key_dim, bias=False)
        self.W_k = nn.Linear(embed_dim, key_dim, bias=False)
        self.W_v = nn.Linear(embed_dim, key_dim, bias=False)
        self.W_o = nn.Linear(key_dim, embed_dim, bias=False)

    def forward(self, x):
        expect_tokens(x, self.embed_dim)
        y, weights = attention(self.W_q(x), self.W_k(x), self.W_v(x))
        return self.W_o(y), weights


# --------------------------------------------------------------------------- hidden tests
# Called from the hidden part of each grade cell. Sizes and values are drawn at
# grading time; every size differs from every other so a swapped axis cannot pass.
from attn_course.checks import (  # noqa: E402
    _distinct_sizes, hidden_answer, hidden_compare_function, hidden_compare_module,
)


def _qkv(g, dtype, with_v=True, batch_axes=2):
    b, h, tq, tk, d, dv = _distinct_sizes(g, 6)
    lead = (b, h)[:batch_axes]
    make = lambda *s: torch.randn(*s, generator=g, dtype=dtype) * 1.5  # noqa: E731
    tensors = [make(*lead, tq, d), make(*lead, tk, d)]
    return tuple(tensors + [make(*lead, tk, dv)]) if with_v else tuple(tensors)


def test_attention_scores(fn):
    hidden_compare_function("attention_scores", fn, attention_scores, lambda g, dt: _qkv(g, dt, with_v=False))


def test_softmax_last(fn):
    def make(g, dtype):
        b, tq, tk = _distinct_sizes(g, 3)
        # Rows around +800: exp overflows even in float64 unless each row's max is subtracted first.
        return (torch.randn(b, tq, tk, generator=g, dtype=dtype) * 5.0 + 800.0,)
    hidden_compare_function("softmax_last", fn, softmax_last, make)


def test_attention(fn):
    hidden_compare_function("attention", fn, attention, lambda g, dt: _qkv(g, dt, batch_axes=1))


def test_attention_module(cls):
    sizes = {}

    def make_args(g):
        sizes["B"], sizes["T"], e, d = _distinct_sizes(g, 4, low=2, high=20)
        return (e, d)

    def make_input(g, args, dtype):
        return torch.randn(sizes["B"], sizes["T"], args[0], generator=g, dtype=dtype)

    hidden_compare_module("Attention", cls, Attention, make_args, make_input)


def test_variance(var_raw, var_scaled):
    hidden_answer("answer_var_raw", var_raw, 512.0, rel=0.1)
    hidden_answer("answer_var_scaled", var_scaled, 1.0, rel=0.1)


def test_n_params(n):
    hidden_answer("answer_n_params", n, 4 * 768 * 64)
