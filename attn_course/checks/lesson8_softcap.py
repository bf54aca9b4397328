"""Gemma 2's logit softcap cap · tanh(score / cap) as a FlexAttention score_mod (exercise 16), on a global layer and a
sliding one, and its classic mistakes: the exercise's procedure (attn_course.probes.lesson8_flex) names a mistake by
these variants, and the visible check (lesson8_visible) takes the right answer from them."""
from __future__ import annotations

import math

import torch

from .engine import close
from .lesson8_common import attend, grid


# --------------------------------------------------------------------------- exercise 16: Gemma 2's softcap
def softcap_variants(q, k, v, cap, window) -> dict:
    """Attention whose scaled scores s pass through cap · tanh(s / cap) (Gemma 2), and the mistakes: each output."""
    n = q.size(-2)
    qi, ki = grid(n, n)
    keep = (ki <= qi) if window is None else (ki <= qi) & (ki > qi - window)
    s = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))

    def capped(f):
        return attend(q, k, v, keep, f(s) - s)
    return {None: capped(lambda x: cap * torch.tanh(x / cap)),
            "hint_softcap_outside": capped(lambda x: cap * torch.tanh(x)),
            "hint_softcap_inverted": capped(lambda x: torch.tanh(x * cap) / cap),
            "hint_softcap_not_rescaled": capped(lambda x: torch.tanh(x / cap)),
            "hint_softcap_fixed": capped(lambda x: 50.0 * torch.tanh(x / 50.0)),   # Gemma 2's cap, not the argument
            "hint_softcap_missing": capped(lambda x: x),     # before the clamp, which is this where no score passes cap
            "hint_softcap_clamp": capped(lambda x: x.clamp(-cap, cap))}


def softcap_bug(args, got):
    """The classic mistake whose output equals got on the inputs args (q, k, v, cap, window), or None: the check's
    and the grader's judge's one rule."""
    if not isinstance(got, torch.Tensor):
        return None
    q, k, v, cap, window = args
    with torch.no_grad():
        variants = softcap_variants(q.double(), k.double(), v.double(), cap, window)
    return next((key for key, val in variants.items() if key and close(got, val, 1e-4)), None)
