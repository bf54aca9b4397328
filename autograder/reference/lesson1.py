"""Lesson 1's reference and its judges. Lives only in autograder/: never in a release, never in a kernel.

The grader imports this module in its own process and calls a judge with what the
learner's kernel sent (attn_course/probes/lesson1.py draws the same inputs).
"""
import math

import torch
import torch.nn as nn
from attn_course.probes import lesson1 as probe
from attn_course.validate import expect_qkv, expect_size, expect_tokens
from attn_grader.judge import expect_answer, judge, judge_function, judge_module


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


# --------------------------------------------------------------------------- judges
# Sizes and values are drawn from the grader's seed; every size differs from every other,
# so a swapped axis cannot pass.
@judge("lesson1.attention_scores")
def judge_attention_scores(res):
    judge_function(res, attention_scores, probe.qk_inputs)


@judge("lesson1.softmax_last")
def judge_softmax_last(res):
    judge_function(res, softmax_last, probe.large_scores)


@judge("lesson1.attention")
def judge_attention(res):
    judge_function(res, attention, probe.one_batch_axis)


@judge("lesson1.attention_module")
def judge_attention_module(res):
    judge_module(res, Attention, probe.module_args, probe.module_input)


@judge("lesson1.variance")
def judge_variance(res):
    expect_answer("answer_var_raw", res["answer_var_raw"], 512.0, rel=0.1)
    expect_answer("answer_var_scaled", res["answer_var_scaled"], 1.0, rel=0.1)


@judge("lesson1.n_params")
def judge_n_params(res):
    expect_answer("answer_n_params", res["answer_n_params"], 4 * 768 * 64)
