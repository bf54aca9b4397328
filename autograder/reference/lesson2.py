"""Lesson 2's reference and its judges. Lives only in autograder/: never in a release, never in a kernel."""
import math

import torch
import torch.nn as nn
from attn_course.probes import lesson2 as probe
from attn_course.validate import expect_rank, expect_size, expect_tokens, expect_torch_compatible, resolve_head_dim
from attn_grader.judge import Mismatch, expect_answer, expect_close, judge, judge_function, judge_module


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


# --------------------------------------------------------------------------- judges
@judge("lesson2.split_heads")
def judge_split_heads(res):
    judge_function(res, split_heads, probe.split_inputs)


@judge("lesson2.merge_heads")
def judge_merge_heads(res):
    judge_function(res, merge_heads, probe.merge_inputs)


@judge("lesson2.module")
def judge_module_(res):
    judge_module(res, MultiHeadAttention, probe.module_args, probe.module_input)
    if res["default_head_dim"] != 4:
        raise Mismatch("hidden_mismatch", case="head_dim = embed_dim // n_head", err=float("inf"))
    if res["error_on_10_3"] != "ValueError":
        raise Mismatch("hint_head_dim_divides", e=10, h=3)


def _reference_weights(res, square):
    weights, x = probe.weights_and_input(res, square)
    mha = MultiHeadAttention(weights.embed_dim, weights.n_head, weights.head_dim).double()
    mha.load_state_dict(weights.state_dict())
    return mha, x


@judge("lesson2.head_as_single")
def judge_head_as_single(res):
    mha, x = _reference_weights(res, square=False)
    heads = res["heads"]
    if not isinstance(heads, list) or len(heads) != mha.n_head:
        raise Mismatch("hint_head_returns_attention")
    D = mha.head_dim
    for i, got in enumerate(heads):
        if isinstance(got, str):
            raise Mismatch("hint_head_returns_attention")
        rows = slice(i * D, (i + 1) * D)
        with torch.no_grad():
            q, k, v = (x @ w.weight[rows].T for w in (mha.W_q, mha.W_k, mha.W_v))
            weights = torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(D), dim=-1)
            want = weights @ v @ mha.W_o.weight[:, rows].T
        expect_close(f"head_as_single(mha, {i})(x)", got, want, 1e-10)


@judge("lesson2.to_torch_mha")
def judge_to_torch_mha(res):
    mha, x = _reference_weights(res, square=True)
    config, state = res["config"], res["state"]
    if not isinstance(config, dict) or config.get("type") != "MultiheadAttention" or not isinstance(state, dict):
        raise Mismatch("hint_returns_torch_mha", kind=config.get("type") if isinstance(config, dict) else "-")
    if (config.get("embed_dim"), config.get("num_heads")) != (mha.embed_dim, mha.n_head):
        raise Mismatch("hint_torch_mha_setup", what="embed_dim / num_heads")
    theirs = nn.MultiheadAttention(mha.embed_dim, mha.n_head, bias="in_proj_bias" in state,
                                   batch_first=bool(config.get("batch_first"))).double()
    try:
        theirs.load_state_dict({k: v.double() for k, v in state.items()})
    except (RuntimeError, AttributeError, TypeError):
        raise Mismatch("hint_torch_mha_setup", what="state_dict") from None
    with torch.no_grad():
        y, w = theirs(x, x, x, need_weights=True, average_attn_weights=False)
        want_y, want_w = mha(x)
    expect_close("nn.MultiheadAttention", w, want_w, 1e-6, check_dtype=False)
    expect_close("nn.MultiheadAttention", y, want_y, 1e-6, check_dtype=False)


@judge("lesson2.n_params")
def judge_n_params(res):
    expect_answer("answer_n_params", res["answer_n_params"], 4 * 768 * 12 * 64)
