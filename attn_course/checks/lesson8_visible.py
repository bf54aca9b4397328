"""Lesson 8's visible checks for FlexAttention's mods, the rolling and StreamingLLM caches, gpt-oss's sink and Gemma 2's
softcap (exercises 1 to 6, 15 and 16): each runs its exercise's probe on a seed of its own and judges what it recorded
by the exercise's procedure (attn_course.probes.lesson8), as the grader does, with the right answer given here from
the lesson's formulas. Apart from the modules the probes import (they hold the classic mistakes both sides name):
this one imports the probes."""
from __future__ import annotations

from .lesson8_caches import sliding_reference, streaming_run
from .lesson8_common import attend, grid
from .lesson8_mods import alibi_bias_of, cache_variants, causal_variants, padding_variants, window_variants
from .lesson8_sink import flex_sink_variants, sink_variants
from .lesson8_softcap import softcap_variants

# Each check's own seed: the probe's inputs drawn from it follow the probe's rule.
SEEDS = {"mask_mods": 181, "alibi_score_mod": 182, "sliding_window_mod": 183, "attend_rolling": 184,
         "attend_streaming": 185, "sink_attention": 186, "flex_sink_attention": 187, "softcap_score_mod": 188}


def _full(mask):
    """A (T_q, T_k) mask as create_mask gives it: (1, 1, T_q, T_k)."""
    return mask if mask.dim() == 4 else mask[None, None]


# The masks the three mods of exercise 1 must make: causal, right-aligned under a cache, and padded keys hidden.
RIGHT_MASKS = (lambda n: _full(causal_variants(n)[None]),
               lambda t_new, t_past: _full(cache_variants(t_new, t_past)[None]),
               lambda n, lengths: padding_variants(n, lengths)[None])


def right_window(window: int, t_new: int, t_past: int):
    return _full(window_variants(window, t_new, t_past)[None])


def right_alibi(q, k, v, slopes):
    """Causal attention with the bias −m_h (i − j) added to each head's scores."""
    n = q.size(-2)
    rows, cols = grid(n, n)
    return attend(q, k, v, rows >= cols, alibi_bias_of(slopes.to(q.dtype), n))


def right_sink(q, k, v, sinks, keep=None):
    return sink_variants(q, k, v, sinks, keep)[None]


def right_flex_sink(q, k, v, sinks, block_mask):
    return flex_sink_variants(q, k, v, sinks, block_mask)[None]


def right_softcap(q, k, v, cap, window):
    return softcap_variants(q, k, v, cap, window)[None]


RIGHT = {"mask_mods": RIGHT_MASKS, "alibi_score_mod": right_alibi, "sliding_window_mod": right_window,
         "attend_rolling": sliding_reference, "attend_streaming": streaming_run, "sink_attention": right_sink,
         "flex_sink_attention": right_flex_sink, "softcap_score_mod": right_softcap}


def _verify(exercise: str, *objs) -> None:
    from ..judging import verify   # here: the probes' package imports the checks
    from ..probes import lesson8 as probes
    verify(getattr(probes, exercise), getattr(probes, f"judge_{exercise}"), RIGHT[exercise], SEEDS[exercise],
           exercise, *objs)


def check_mask_mods(causal_mod, cache_mod, causal_padding_mod) -> None:
    _verify("mask_mods", causal_mod, cache_mod, causal_padding_mod)


def check_alibi_score_mod(fn) -> None:
    _verify("alibi_score_mod", fn)


def check_sliding_window_mod(fn) -> None:
    _verify("sliding_window_mod", fn)


def check_attend_rolling(fn) -> None:
    _verify("attend_rolling", fn)


def check_attend_streaming(fn) -> None:
    _verify("attend_streaming", fn)


def check_sink_attention(fn) -> None:
    _verify("sink_attention", fn)


def check_flex_sink_attention(fn) -> None:
    _verify("flex_sink_attention", fn)


def check_softcap_score_mod(fn) -> None:
    _verify("softcap_score_mod", fn)
