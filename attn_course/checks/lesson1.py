"""Lesson 1's visible checks: each runs its exercise's probe on a seed of its own and judges what it recorded by the
exercise's procedure (attn_course.probes.lesson1), as the grader does, with the right answer given here."""
from __future__ import annotations

import math

import torch
import torch.nn as nn

from ..messages import t
from ..validate import CheckFailed
from .engine import blames_earlier, check_count_answer, expect_number, linear_count, passed

# Each check's own seed: the probe's inputs drawn from it follow the probe's rule (no size the notebook binds).
SEEDS = {"attention_scores": 101, "softmax_last": 102, "attention": 103, "attention_module": 104}


def right_scores(Q, K):
    return Q @ K.transpose(-2, -1) / math.sqrt(Q.size(-1))


def right_softmax(scores):
    return torch.softmax(scores, dim=-1)


def right_attention(Q, K, V):
    weights = torch.softmax(right_scores(Q, K), dim=-1)
    return weights @ V, weights


class RightAttention(nn.Module):
    """The module the lesson describes: W_q, W_k, W_v: E → d_k and W_o: d_k → E, none with a bias."""

    def __init__(self, embed_dim, key_dim):
        super().__init__()
        self.W_q = nn.Linear(embed_dim, key_dim, bias=False)
        self.W_k = nn.Linear(embed_dim, key_dim, bias=False)
        self.W_v = nn.Linear(embed_dim, key_dim, bias=False)
        self.W_o = nn.Linear(key_dim, embed_dim, bias=False)

    def forward(self, x):
        y, weights = right_attention(self.W_q(x), self.W_k(x), self.W_v(x))
        return self.W_o(y), weights


def _verify(exercise: str, name: str, right, obj) -> None:
    from ..judging import verify   # here: the probes' package imports the checks
    from ..probes import lesson1 as probes
    verify(getattr(probes, exercise), getattr(probes, f"judge_{exercise}"), right, SEEDS[exercise], name, obj)


def check_attention_scores(fn) -> None:
    _verify("attention_scores", "attention_scores", right_scores, fn)


def check_softmax(fn) -> None:
    _verify("softmax_last", "softmax_last", right_softmax, fn)


def check_attention(fn) -> None:
    _verify("attention", "attention", right_attention, fn)


@blames_earlier(attention=(4, lambda fn: check_attention(fn)))
def check_attention_module(cls) -> None:
    _verify("attention_module", "Attention", RightAttention, cls)


def check_variance_answers(var_raw, var_scaled, measured_raw: float, measured_scaled: float) -> None:
    """The learner's two variances for d_k = 512, against what their own table measured."""
    # The exercise asks for the theoretical values (d_k and 1), and the hidden test grades them within 10%:
    # a check that accepted anything near the table's measurement passed answers that then lost the points.
    for label, answer, measured, theory in (("answer_var_raw", var_raw, measured_raw, 512.0),
                                            ("answer_var_scaled", var_scaled, measured_scaled, 1.0)):
        value = expect_number(label, answer)
        if measured > 4 and abs(value - math.sqrt(measured)) < 0.25 * math.sqrt(measured):
            raise CheckFailed(t("answer_std_not_var", name=label, got=answer))
        if abs(value - theory) > 0.1 * theory:
            raise CheckFailed(t("answer_not_theory", name=label, got=answer, measured=measured), t("hint_var_theory"))
    passed("answer_var_raw, answer_var_scaled")


def attention_count(E: int = 768, d_k: int = 64) -> int:
    """Attention(E, d_k) counted from the lesson's facts: W_q, W_k, W_v = nn.Linear(E, d_k) and W_o = nn.Linear(d_k,
    E), none with a bias."""
    return linear_count((E, d_k), (E, d_k), (E, d_k), (d_k, E), bias=False)


def check_param_answer(answer, cls) -> None:
    """Lesson 1: the parameter count of Attention(768, 64), judged against the lesson's count as the grader judges
    it (findings.count_finding): a learner's module that is still wrong neither gives nor costs the point, and is
    named when its count differs."""
    check_count_answer("answer_n_params", answer, cls, (768, 64), want=attention_count(),
                       differs="count_module_differs_text")
