"""Lesson 1's reference. Lives only in autograder/: never in a release, never in a kernel.

The grader imports this module in its own process and judges what the learner's kernel sent by each exercise's
procedure (attn_course/probes/lesson1.py) given this reference.
"""
import math

import torch.nn as nn
from attn_course.probes import lesson1 as probe
from attn_course.validate import expect_qkv, expect_size, expect_tokens
from attn_grader.judge import judged_by


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
# Each is the exercise's public procedure (attn_course.probes.lesson1) given this reference: the visible check runs
# the same procedure with the right answer the course's public facts give.
judged_by("lesson1.attention_scores", probe.judge_attention_scores, attention_scores)
judged_by("lesson1.softmax_last", probe.judge_softmax_last, softmax_last)
judged_by("lesson1.attention", probe.judge_attention, attention)
judged_by("lesson1.attention_module", probe.judge_attention_module, Attention)
judged_by("lesson1.variance", probe.judge_variance, (512.0, 1.0))
judged_by("lesson1.n_params", probe.judge_n_params, 4 * 768 * 64)
