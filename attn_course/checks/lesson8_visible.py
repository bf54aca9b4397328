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


def right_alibi(q, k, v, slopes):
    """Causal attention with the bias −m_h (i − j) added to each head's scores."""
    n = q.size(-2)
    rows, cols = grid(n, n)
    return attend(q, k, v, rows >= cols, alibi_bias_of(slopes.to(q.dtype), n))


# Each exercise's right answer: exercise 1's three masks (causal, right-aligned under a cache, padded keys hidden),
# then each function as its procedure calls it.
RIGHT = {"mask_mods": (lambda n: _full(causal_variants(n)[None]),
                       lambda t_new, t_past: _full(cache_variants(t_new, t_past)[None]),
                       lambda n, lengths: padding_variants(n, lengths)[None]),
         "alibi_score_mod": right_alibi,
         "sliding_window_mod": lambda window, t_new, t_past: _full(window_variants(window, t_new, t_past)[None]),
         "attend_rolling": sliding_reference, "attend_streaming": streaming_run,
         "sink_attention": lambda q, k, v, sinks, keep=None: sink_variants(q, k, v, sinks, keep)[None],
         "flex_sink_attention": lambda q, k, v, sinks, block_mask: flex_sink_variants(q, k, v, sinks, block_mask)[None],
         "softcap_score_mod": lambda q, k, v, cap, window: softcap_variants(q, k, v, cap, window)[None]}


def _check(exercise: str):
    """The visible check of an exercise: its probe on the check's seed, judged by its procedure with RIGHT's answer."""
    def check(*objs) -> None:
        from ..judging import verify   # here: the probes' package imports the checks
        from ..probes import lesson8 as probes
        verify(getattr(probes, exercise), getattr(probes, f"judge_{exercise}"), RIGHT[exercise], SEEDS[exercise],
               exercise, *objs)
    check.__name__ = check.__qualname__ = f"check_{exercise}"
    return check


check_mask_mods, check_alibi_score_mod, check_sliding_window_mod = (
    _check("mask_mods"), _check("alibi_score_mod"), _check("sliding_window_mod"))
check_attend_rolling, check_attend_streaming = _check("attend_rolling"), _check("attend_streaming")
check_sink_attention, check_flex_sink_attention = _check("sink_attention"), _check("flex_sink_attention")
check_softcap_score_mod = _check("softcap_score_mod")
