"""Lesson 7: the visible check is the grader's procedure on a seed of its own, for a few wrong answers of each
exercise (the answers are test_lesson7.py's)."""
import inspect

import pytest
import torch

from attn_course.checks import lesson7 as checks
from attn_course.checks import lesson7_mistakes as mistakes
from attn_course.probes import lesson7 as probes
from attn_course.validate import CheckFailed
from attn_grader.verdict import hint_of
from conftest import judged, reference
from test_lesson7 import (
    _alibi, _cross, _layout_columns, _own_mask, _pe, _pe_float32, _perm_error, _relative, _rope, _rope_cache,
)


@pytest.fixture(scope="module")
def ref():
    return reference("lesson7")


def _wrong_answers(ref) -> dict:
    """A few wrong answers of each exercise the check and the grader judge by one procedure: (exercise, answer)."""
    tensor = lambda fn, x, perm: torch.tensor(ref.permutation_error(fn, x, perm))  # noqa: E731
    return {
        "own_mask": ("module_buffer", _own_mask(reference("lesson4"))),
        "perm_inverse": ("permutation_error", _perm_error(compare="inverse")),
        "perm_tensor": ("permutation_error", tensor),
        "pe_halves": ("sinusoidal_positions", _pe(layout="halves")),
        "pe_sign": ("sinusoidal_positions", _pe_float32(1)),
        "rope_pairing": ("apply_rope", _rope("hint_rope_pairing")),
        "rope_device": ("apply_rope", _rope(device_aware=False)),
        "layout_inverse": ("interleaved_to_half", lambda w, h: mistakes.layout_variants(w, h)["hint_layout_inverse"]),
        "layout_columns": ("interleaved_to_half", _layout_columns),
        "relative_sign": ("relative_score", _relative(sign=-1)),
        "relative_rope": ("relative_score", _relative(own_rope=True)),
        "cache_restart": ("rope_cache", _rope_cache(restart=True)),
        "cache_v": ("rope_cache", _rope_cache(v_not_joined=True)),
        "alibi_odd": ("alibi_bias", _alibi("hint_alibi_odd")),
        "alibi_dtype": ("alibi_bias", _alibi(dtype=torch.float64)),
        "cross_causal": ("cross_attention", _cross(ref, "causal")),
        "cross_no_input_check": ("cross_attention", _cross(ref, check_inputs=False)),
    }


WRONG = ["own_mask", "perm_inverse", "perm_tensor", "pe_halves", "pe_sign", "rope_pairing", "rope_device",
         "layout_inverse", "layout_columns", "relative_sign", "relative_rope", "cache_restart", "cache_v", "alibi_odd",
         "alibi_dtype", "cross_causal", "cross_no_input_check"]


CHECKS = {"module_buffer": "check_gpt2_module"}   # the pasted module's check runs lesson 4's first


@pytest.mark.parametrize("wrong", WRONG)
def test_the_check_is_the_graders_procedure_on_a_seed_of_its_own(ref, lang, wrong):
    """The visible check and the grader run one procedure: on the check's seed, the grader with the hidden reference
    reaches the very verdict the check reached with the course's right answer (its message key, fields and hint)."""
    exercise, answer = _wrong_answers(ref)[wrong]
    with pytest.raises(CheckFailed) as info:
        getattr(checks, CHECKS.get(exercise, f"check_{exercise}"))(answer)
    seed = checks.SEEDS[exercise]
    try:   # the grader reads the learner's cell too: here, the answer's source
        source = inspect.getsource(answer)
    except (OSError, TypeError):
        source = ""
    graded = judged(getattr(probes, exercise), answer, seed=seed, source=source)
    seen = info.value.mismatch
    # apply_rope's hidden reference is transformers' own, whose float32 angles move an error by about 1e-8.
    fields = lambda m: {k: round(v, 6) if isinstance(v, float) else v for k, v in m.fields.items()}  # noqa: E731
    assert (graded.key, fields(graded), hint_of(graded)) == (seen.key, fields(seen), hint_of(seen))
    assert hint_of(graded)[0], wrong   # each of these is a classic mistake, named
