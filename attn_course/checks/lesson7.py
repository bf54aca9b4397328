"""Lesson 7's visible checks: the pasted module's buffer, order-blindness, sinusoidal positions, RoPE (Llama's
layout, the interleaved layout, the relative property, a KV cache), ALiBi and cross-attention. Each runs its
exercise's probe on a seed of its own and judges what it recorded by the exercise's procedure
(attn_course.probes.lesson7), as the grader does, with the right answer given here (the classic mistakes the
procedures name: lesson7_mistakes and its kin). `rope` is a right RoPE (Llama's rotate-half layout): the probes of
exercises 5 and 6 hand it to the learner's code, so those two are graded on their own."""
from __future__ import annotations

import torch

from .gpt2_module import RightGPT2SelfAttention, expect_gpt2_module
from .invariants import reads_globals
from .lesson7_alibi import right_alibi_bias
from .lesson7_cross import RightCrossAttention
from .lesson7_mistakes import _to_half, rope_cache_run
from .lesson7_sinusoid import sinusoid
from .rope import rope

# Each check's own seed: the probe's inputs drawn from it follow the probe's rule (no size the notebook binds).
# Seeds whose draws tell the classic mistakes apart: relative_score's base is not the default (code that ignores the
# rope it is given shows), and the heads are not as many as a head's width (H = D makes a view of (D, H) right).
SEEDS = {"module_buffer": 700, "permutation_error": 701, "sinusoidal_positions": 702, "apply_rope": 703,
         "interleaved_to_half": 703, "relative_score": 704, "rope_cache": 707, "alibi_bias": 707,
         "cross_attention": 708}


def _verify(exercise: str, name: str, right, obj) -> None:
    from ..judging import verify   # here: the probes import this module
    from ..probes import lesson7 as probes
    verify(getattr(probes, exercise), getattr(probes, f"judge_{exercise}"), right, SEEDS[exercise], name, obj)


def right_permutation_error(fn, x, perm) -> float:
    with torch.no_grad():
        return float((fn(x[:, perm]) - fn(x)[:, perm]).abs().max())


def right_positions(T: int, E: int, base: float = 10000.0) -> torch.Tensor:
    return sinusoid(T, E, base).float()


def right_relative_score(q, k, offset: int, turn):
    """q · R(offset) k over the last axis: the key turned by the rope it is given, at the one position offset."""
    return (q * turn(k[..., None, :], k[..., None, :], torch.tensor([offset]))[1][..., 0, :]).sum(-1)


def right_rope_attention(attn, x, turn):
    """RoPE attention over the whole sequence at once, causal: what a KV cache must reproduce."""
    return rope_cache_run(attn, x, [(0, x.size(1))], turn)[0]


def check_permutation_error(fn) -> None:
    _verify("permutation_error", "permutation_error", right_permutation_error, fn)


def check_sinusoidal_positions(fn) -> None:
    _verify("sinusoidal_positions", "sinusoidal_positions", right_positions, fn)


def check_apply_rope(fn) -> None:
    _verify("apply_rope", "apply_rope", rope, fn)


def check_interleaved_to_half(fn) -> None:
    _verify("interleaved_to_half", "interleaved_to_half", _to_half, fn)


def check_relative_score(fn) -> None:
    _verify("relative_score", "relative_score", right_relative_score, fn)


def check_rope_cache(fn) -> None:
    _verify("rope_cache", "attend_rope_with_cache", right_rope_attention, fn)


def check_alibi_bias(fn) -> None:
    _verify("alibi_bias", "alibi_bias", right_alibi_bias, fn)


def check_cross_attention(cls) -> None:
    _verify("cross_attention", "CrossAttention", RightCrossAttention, cls)


@reads_globals(4)   # the module's hidden test is lesson 4's, which names lesson 4's globals
def check_gpt2_module(cls) -> None:
    """Lesson 4's checks, then the one rule this lesson adds: forward masks with the `causal` buffer."""
    expect_gpt2_module(cls)
    _verify("module_buffer", "GPT2SelfAttention", RightGPT2SelfAttention, cls)
