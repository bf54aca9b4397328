"""Reference for lesson 4. Lives only in autograder/: never copied into a release."""
import contextlib
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

from attn_course.checks import (
    CheckFailed, _call, _distinct_sizes, _grading_generator, _max_error, expect_size, expect_tokens, from_scratch,
    hidden_answer, hidden_passed,
)
from attn_course.hf import hf_attention, hf_forward
from attn_course.messages import t


def split_qkv(qkv, n_head):
    B, T, three_e = qkv.shape
    q, k, v = qkv.split(three_e // 3, dim=2)                                  # (B, T, E) each
    return tuple(z.view(B, T, n_head, -1).transpose(1, 2) for z in (q, k, v))  # (B, H, T, D) each


class GPT2SelfAttention(nn.Module):
    def __init__(self, embed_dim, n_head, max_len=64, dropout=0.0):
        super().__init__()
        self.embed_dim = expect_size(embed_dim, "embed_dim")
        self.n_head = expect_size(n_head, "n_head")
        if embed_dim % n_head:
            raise ValueError(t("embed_not_divisible", e=embed_dim, h=n_head))
        self.head_dim = embed_dim // n_head
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


def gpt2_init(module, n_layer=12):
    for name, p in module.named_parameters():
        if name.endswith("bias"):
            nn.init.zeros_(p)
        elif name.startswith("c_proj"):
            nn.init.normal_(p, mean=0.0, std=0.02 / math.sqrt(2 * n_layer))
        else:
            nn.init.normal_(p, mean=0.0, std=0.02)
    return module


def load_from_hf(mine, hf):
    with torch.no_grad():
        mine.c_attn.weight.copy_(hf.c_attn.weight.T)
        mine.c_attn.bias.copy_(hf.c_attn.bias)
        mine.c_proj.weight.copy_(hf.c_proj.weight.T)
        mine.c_proj.bias.copy_(hf.c_proj.bias)
    return mine


def export_to_hf(mine, hf):
    with torch.no_grad():
        hf.c_attn.weight.copy_(mine.c_attn.weight.T)
        hf.c_attn.bias.copy_(mine.c_attn.bias)
        hf.c_proj.weight.copy_(mine.c_proj.weight.T)
        hf.c_proj.bias.copy_(mine.c_proj.bias)
    return hf


# --------------------------------------------------------------------------- hidden tests
def _configs(g):
    b, t_, h, d = _distinct_sizes(g, 4, low=2, high=10)
    yield b, t_, h, d
    yield 1, 7, 12, 8  # GPT-2 small's 12 heads, narrower


def test_split_qkv(fn):
    g = _grading_generator()
    for b, t_, h, d in _configs(g):
        qkv = torch.randn(b, t_, 3 * h * d, generator=g, dtype=torch.float64)
        got, want = _call("split_qkv", fn, qkv, h), split_qkv(qkv, h)
        if not (isinstance(got, tuple) and len(got) == 3 and all(
                isinstance(a, torch.Tensor) and a.shape == w.shape and torch.equal(a, w) for a, w in zip(got, want))):
            raise CheckFailed(t("hidden_mismatch", case=f"B={b}, T={t_}, H={h}, D={d}", err=float("nan")))
    hidden_passed("split_qkv")


def test_module(cls):
    g = _grading_generator()
    for b, t_, h, d in _configs(g):
        hf = hf_attention(h * d, h, seed=int(torch.randint(0, 2**31, (1,), generator=g)))
        mine = load_from_hf(cls(h * d, h, max_len=32), hf).eval()
        x = torch.randn(b, t_, h * d, generator=g)
        with torch.no_grad():
            want = hf_forward(hf, x)
            for sdpa in (False, True):
                with from_scratch("GPT2SelfAttention") if not sdpa else contextlib.nullcontext():
                    y, _ = _call("GPT2SelfAttention", mine, x, use_sdpa=sdpa)
                if not (isinstance(y, torch.Tensor) and y.shape == want.shape and torch.allclose(y, want, atol=1e-5)):
                    raise CheckFailed(t("hidden_mismatch", case=f"GPT2Attention, H={h}, D={d}, use_sdpa={sdpa}",
                                        err=_max_error(y, want) if isinstance(y, torch.Tensor) else float("inf")))
    hidden_passed("GPT2SelfAttention")


def test_init(fn, cls):
    torch.manual_seed(int(_grading_generator().seed() % 2**31))
    module = fn(cls(768, 12), n_layer=12)
    w, p = module.c_attn.weight.detach(), module.c_proj.weight.detach()
    # A module without biases is the module exercise's fault, not this one's.
    biases = [layer.bias.detach() for layer in (module.c_attn, module.c_proj) if layer.bias is not None]
    ok = (abs(float(w.std()) - 0.02) < 0.001 and abs(float(w.mean())) < 0.001
          and abs(float(p.std()) - 0.02 / math.sqrt(24)) < 0.0005
          and all(float(b.abs().max()) == 0.0 for b in biases))
    if not ok:
        raise CheckFailed(t("hidden_mismatch", case="gpt2_init", err=float("nan")))
    hidden_passed("gpt2_init")


def test_load_from_hf(fn, cls):
    g = _grading_generator()
    b, t_, h, d = next(_configs(g))
    hf = hf_attention(h * d, h, seed=int(torch.randint(0, 2**31, (1,), generator=g)))
    mine = _call("load_from_hf", fn, cls(h * d, h), hf)
    x = torch.randn(b, t_, h * d, generator=g)
    with torch.no_grad():
        y, want = _call("load_from_hf", mine.eval(), x)[0], hf_forward(hf, x)
    if not torch.allclose(y, want, atol=1e-5):
        raise CheckFailed(t("hidden_mismatch", case="load_from_hf", err=_max_error(y, want)))
    hidden_passed("load_from_hf")


def test_export_to_hf(fn, cls):
    g = _grading_generator()
    b, t_, h, d = next(_configs(g))
    torch.manual_seed(int(torch.randint(0, 2**31, (1,), generator=g)))
    mine = gpt2_init(cls(h * d, h)).eval()
    with torch.no_grad():
        for p in mine.parameters():
            p.add_(torch.randn(p.shape, generator=g) * 0.1)
    hf = _call("export_to_hf", fn, mine, hf_attention(h * d, h, seed=0))
    if type(hf) is not type(hf_attention(2, 1, seed=0)):  # a look-alike could compute anything
        raise CheckFailed(t("hidden_mismatch", case="export_to_hf: GPT2Attention", err=float("nan")))
    x = torch.randn(b, t_, h * d, generator=g)
    with torch.no_grad():
        y, got = _call("export_to_hf", mine, x)[0], hf_forward(hf, x)
    if not torch.allclose(y, got, atol=1e-5):
        raise CheckFailed(t("hidden_mismatch", case="export_to_hf", err=_max_error(y, got)))
    hidden_passed("export_to_hf")


def test_n_params(n):
    hidden_answer("answer_n_params", n, 4 * 768 * 768 + 4 * 768)
