"""Lesson 2's visible checks: each runs its exercise's probe on a seed of its own and judges what it recorded by the
exercise's procedure (attn_course.probes.lesson2), as the grader does, with the right answer given here."""
from __future__ import annotations

import math

import torch
import torch.nn as nn

from .engine import blames_earlier, check_count_answer, linear_count
from .heads import merge_heads, split_heads

# Each check's own seed: the probe's inputs drawn from it follow the probe's rule (no size the notebook binds).
SEEDS = {"split_heads": 201, "merge_heads": 202, "module": 203, "head_as_single": 204, "to_torch_mha": 205}


class RightMultiHeadAttention(nn.Module):
    """The module the lesson describes: W_q, W_k, W_v: E → H·D and W_o: H·D → E, none with a bias; head_dim left
    out is E // H."""

    def __init__(self, embed_dim, n_head, head_dim=None):
        super().__init__()
        self.embed_dim, self.n_head, self.head_dim = embed_dim, n_head, head_dim or embed_dim // n_head
        inner = n_head * self.head_dim
        self.W_q = nn.Linear(embed_dim, inner, bias=False)
        self.W_k = nn.Linear(embed_dim, inner, bias=False)
        self.W_v = nn.Linear(embed_dim, inner, bias=False)
        self.W_o = nn.Linear(inner, embed_dim, bias=False)

    def forward(self, x):
        Q, K, V = (split_heads(f(x), self.n_head) for f in (self.W_q, self.W_k, self.W_v))
        weights = torch.softmax(Q @ K.transpose(-2, -1) / math.sqrt(self.head_dim), dim=-1)
        return self.W_o(merge_heads(weights @ V)), weights


def _verify(exercise: str, name: str, right, *objs) -> None:
    from ..judging import verify   # here: the probes' package imports the checks
    from ..probes import lesson2 as probes
    verify(getattr(probes, exercise), getattr(probes, f"judge_{exercise}"), right, SEEDS[exercise], name, *objs)


def check_split_heads(fn) -> None:
    _verify("split_heads", "split_heads", split_heads, fn)


def check_merge_heads(fn) -> None:
    _verify("merge_heads", "merge_heads", merge_heads, fn)


@blames_earlier(split_heads=(1, check_split_heads), merge_heads=(2, check_merge_heads))
def check_mha_module(cls) -> None:
    _verify("module", "MultiHeadAttention", RightMultiHeadAttention, cls)


def check_head_as_single(fn, attention_cls) -> None:
    _verify("head_as_single", "head_as_single", RightMultiHeadAttention, fn, attention_cls)


def check_to_torch_mha(fn) -> None:
    _verify("to_torch_mha", "to_torch_mha", RightMultiHeadAttention, fn)


def mha_count(E: int = 768, H: int = 12, D: int = 64) -> int:
    """MultiHeadAttention(E, H, D) counted from the lesson's facts: W_q, W_k, W_v = nn.Linear(E, H·D) and W_o =
    nn.Linear(H·D, E), none with a bias."""
    return linear_count((E, H * D), (E, H * D), (E, H * D), (H * D, E), bias=False)


def check_mha_param_answer(answer, cls) -> None:
    """Lesson 2: the parameter count of MultiHeadAttention(768, 12, 64), judged against the lesson's count as the
    grader judges it (findings.count_finding); the learner's module named only when its count differs."""
    from ..probes.lesson2_mistakes import N_PARAMS_SIZES, n_params_hint   # here: the probes import the checks
    want = mha_count(*N_PARAMS_SIZES)
    check_count_answer("answer_n_params", answer, cls, N_PARAMS_SIZES, want=want,
                       hint_of=lambda got: n_params_hint(got, want), differs="count_module_differs_text")
