"""Reference for lesson 3. Lives only in autograder/: never copied into a release."""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

from attn_course.checks import (
    CheckFailed, _call, _distinct_sizes, _grading_generator, _max_error, expect_rank, expect_size, expect_tokens,
    from_scratch, hidden_compare_function, hidden_passed, resolve_head_dim,
)
from attn_course.messages import t


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


# --------------------------------------------------------------------------- hidden tests
def test_causal_mask(fn):
    g = _grading_generator()
    for T in _distinct_sizes(g, 3, low=1, high=20):
        got = _call("causal_mask", fn, T)
        if not (isinstance(got, torch.Tensor) and got.dtype == torch.bool and torch.equal(got, causal_mask(T))):
            raise CheckFailed(t("hidden_mismatch", case=f"T = {T}", err=float("nan")))
    if _call("causal_mask", fn, 3, device=torch.device("meta")).device.type != "meta":
        raise CheckFailed(t("hint_mask_device"))
    hidden_passed("causal_mask")


def test_apply_mask(fn):
    g = _grading_generator()
    b, h, t_ = _distinct_sizes(g, 3)
    scores = torch.randn(b, h, t_, t_, generator=g, dtype=torch.float64)
    keep = torch.rand(b, 1, t_, t_, generator=g) > 0.4
    got, want = _call("apply_mask", fn, scores, keep), apply_mask(scores, keep)
    if not (isinstance(got, torch.Tensor) and got.shape == want.shape and torch.equal(got, want)):
        raise CheckFailed(t("hidden_mismatch", case="apply_mask", err=float("nan")))
    hidden_passed("apply_mask")


def test_padding_keep(fn):
    g = _grading_generator()
    b, t_ = _distinct_sizes(g, 2, low=3, high=15)
    lengths = torch.randint(0, t_ + 1, (b,), generator=g)
    got = _call("padding_keep", fn, lengths, t_)
    if not (isinstance(got, torch.Tensor) and torch.equal(got, padding_keep(lengths, t_))):
        raise CheckFailed(t("hidden_mismatch", case=f"lengths = {lengths.tolist()}, T = {t_}", err=float("nan")))
    hidden_passed("padding_keep")


def test_mha_mask_to_sdpa(fn):
    g = _grading_generator()
    mask = torch.rand(4, 6, generator=g) > 0.5
    additive = torch.zeros(4, 6, dtype=torch.float64).masked_fill(mask, float("-inf"))
    for given in (mask, additive):
        got = _call("mha_mask_to_sdpa", fn, given)
        if not (isinstance(got, torch.Tensor) and got.dtype == given.dtype and torch.equal(got, mha_mask_to_sdpa(given))):
            raise CheckFailed(t("hidden_mismatch", case=str(given.dtype), err=float("nan")))
    hidden_passed("mha_mask_to_sdpa")


def test_safe_softmax(fn):
    def make(g, dtype):
        b, t_, u = _distinct_sizes(g, 3)
        s = torch.randn(b, t_, u, generator=g, dtype=dtype)
        return (s.masked_fill(torch.rand(b, t_, u, generator=g) > 0.6, float("-inf")).index_fill(1, torch.tensor([0]), float("-inf")),)
    g = _grading_generator()
    (scores,) = make(g, torch.float64)
    got = _call("safe_softmax", fn, scores)
    if not (isinstance(got, torch.Tensor) and torch.isfinite(got).all()
            and torch.allclose(got, safe_softmax(scores), atol=1e-12)):
        raise CheckFailed(t("hidden_mismatch", case="safe_softmax", err=float("nan")))
    hidden_passed("safe_softmax")


def _pair(cls, g, dropout=0.0):
    b, t_, h, d, e = _distinct_sizes(g, 5, low=2, high=14)
    mine = _call("CausalSelfAttention", cls, e, h, d, dropout=dropout, max_len=16)
    ref = CausalSelfAttention(e, h, d, dropout=dropout, max_len=16)
    ref.load_state_dict(mine.state_dict(), strict=False)
    x = torch.randn(b, t_, e, generator=g, dtype=torch.float64)
    lengths = torch.randint(0, t_ + 1, (b,), generator=g)
    lengths[0] = t_
    return mine.double(), ref.double(), x, lengths


def _close_or_fail(case, got, want, tol=1e-9):
    if not (isinstance(got, torch.Tensor) and got.shape == want.shape and torch.allclose(got, want, atol=tol, rtol=tol)):
        raise CheckFailed(t("hidden_mismatch", case=case, err=_max_error(got, want) if isinstance(got, torch.Tensor) else float("inf")))


def test_module(cls):
    g = _grading_generator()
    mine, ref, x, lengths = _pair(cls, g)
    mine.eval(), ref.eval()
    with torch.no_grad():
        for lens in (None, lengths):
            with from_scratch("CausalSelfAttention"):
                y, w = _call("CausalSelfAttention", mine, x, lens)
            want_y, want_w = ref(x, lens)
            _close_or_fail(t("case_masked_path"), y, want_y)
            _close_or_fail(t("case_masked_path"), w, want_w)
            y_sdpa, _ = _call("CausalSelfAttention", mine, x, lens, use_sdpa=True)
            _close_or_fail(t("case_sdpa_path"), y_sdpa, want_y, 1e-7)
        # Causality: changing every token after t leaves the outputs up to t as they were.
        T = x.size(1)
        for cut in range(T - 1):
            x2 = x.clone()
            x2[:, cut + 1:] = torch.randn(x2[:, cut + 1:].shape, generator=g, dtype=x.dtype)
            for sdpa in (False, True):
                a, _ = _call("CausalSelfAttention", mine, x, use_sdpa=sdpa)
                b, _ = _call("CausalSelfAttention", mine, x2, use_sdpa=sdpa)
                if not torch.allclose(a[:, :cut + 1], b[:, :cut + 1], atol=1e-10):
                    raise CheckFailed(t("hint_not_causal", t=cut))
    # Dropout: off in eval (deterministic, equal to no dropout), on in training.
    mine, ref, x, lengths = _pair(cls, g, dropout=0.5)
    mine.eval(), ref.eval()
    with torch.no_grad():
        first, second = _call("CausalSelfAttention", mine, x, lengths)[0], _call("CausalSelfAttention", mine, x, lengths)[0]
        _close_or_fail(t("case_eval_determinism"), first, second, 0.0)
        _close_or_fail(t("case_eval_determinism"), first, ref(x, lengths)[0])
        mine.train()
        if torch.allclose(_call("CausalSelfAttention", mine, x)[0], ref(x)[0], atol=1e-12):
            raise CheckFailed(t("hint_dropout_train"))
    hidden_passed("CausalSelfAttention")
