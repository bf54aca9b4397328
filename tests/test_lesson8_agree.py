"""Lesson 8, exercises 1 to 6, 15 and 16: the visible check is the grader's procedure on a seed of its own, for a few
wrong answers of each (the answers are test_lesson8.py's and test_lesson8_fused.py's; exercises 7 to 14 are in
test_lesson8_memory.py)."""
import inspect

import pytest

import attn_course as course
from attn_course.checks import lesson8 as checks
from attn_course.checks import lesson8_visible as visible
from attn_course.probes import lesson8 as probes
from attn_grader.verdict import hint_of
from conftest import judged
from test_lesson8 import _alibi, _mods, _rolling, _sink, _streaming, _window


def _answer(exercise: str, bug: str) -> tuple:
    """A wrong answer to one of the exercises whose check is their procedure (checks.lesson8_visible)."""
    from test_lesson8_fused import _flex_sink, _softcap
    makers = {"mask_mods": _mods, "alibi_score_mod": _alibi, "sliding_window_mod": _window,
              "attend_rolling": _rolling, "attend_streaming": _streaming, "sink_attention": _sink,
              "flex_sink_attention": _flex_sink, "softcap_score_mod": _softcap}
    made = makers[exercise](bug)
    return made if isinstance(made, tuple) else (made,)


AGREE = [("mask_mods", "top_left"), ("mask_mods", "and"), ("alibi_score_mod", "scaled"),
         ("sliding_window_mod", "plus_one"), ("attend_rolling", "restart"), ("attend_rolling", "grow"),
         ("attend_rolling", "every_slot"),
         ("attend_streaming", "budget"), ("sink_attention", "kept"), ("sink_attention", "scaled"),
         ("flex_sink_attention", "unsqueeze"), ("flex_sink_attention", "log2"), ("softcap_score_mod", "clamp")]


@pytest.mark.parametrize("exercise, bug", AGREE)
def test_the_check_is_the_graders_procedure_on_a_seed_of_its_own(lang, exercise, bug):
    """The visible check and the grader run one procedure: on the check's seed, the grader with the hidden reference
    reaches the very verdict the check reached with the lesson's formulas (its message key, fields and hint). An error
    is compared as the message shows it, to 3 digits: BLOOM's slopes and Gemma 2's softmax are float32 inside."""
    def shown(mismatch):
        fields = {k: float(f"{v:.3g}") if isinstance(v, float) else v for k, v in mismatch.fields.items()}
        return mismatch.key, fields, hint_of(mismatch)

    answer = _answer(exercise, bug)
    with pytest.raises(course.CheckFailed) as info:
        getattr(checks, f"check_{exercise}")(*answer)
    seed = visible.SEEDS[exercise]
    graded = judged(getattr(probes, exercise), *answer, seed=seed, source="\n".join(map(inspect.getsource, answer)))
    assert shown(graded) == shown(info.value.mismatch)
