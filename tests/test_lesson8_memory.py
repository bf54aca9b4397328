"""Lesson 8, exercises 7 to 14 (MLA and its latent cache, a preallocated cache, a paged cache, packed sequences, what a
cache costs, attention over pages, rows of different lengths): each visible check is its exercise's procedure
(attn_course.probes.lesson8_mla, lesson8_memory) run on the check's own seed, so the grader with the hidden reference
reaches the very verdict the check reached with the course's right answer.
"""
import inspect

import pytest

from attn_course.checks import lesson8 as checks
from attn_course.checks.lesson8_memory import SEEDS
from attn_course.probes import lesson8 as probes
from attn_course.validate import CheckFailed
from attn_grader.verdict import hint_of
from conftest import judged, reference
from test_lesson8 import _decode, _mla, _static
from test_lesson8_layouts import _bytes, _packed, _paged
from test_lesson8_paging import _batched
from test_lesson8_paging import _paged as _paged_decode


@pytest.fixture(scope="module")
def ref():
    return reference("lesson8")


# {exercise: [(the check, the learner's objects of a wrong answer)]}
WRONG = {
    "mla": [(checks.check_mla, (_mla(bug),)) for bug in ("norm", "scale", "no_o_proj", "no_norm_layer")],
    "mla_decode": [(checks.check_mla_decode, (_decode(bug),))
                   for bug in ("restart", "mask_transposed", "parts_swapped", "expanded", "per_head")],
    "attend_preallocated": [(checks.check_attend_preallocated, (_static(bug),))
                            for bug in ("at_zero", "unsliced", "k_rebound", "cat")],
    "cache_bytes": [(checks.check_cache_bytes, (_bytes(bug),))
                    for bug in ("latent_twice", "window_all", "bits", "kv_once")],
    "paged_cache": [(checks.check_paged_cache, _paged(bug)) for bug in ("divmod", "layout", "floor")],
    "paged_decode": [(checks.check_paged_decode, (_paged_decode(bug),))
                     for bug in ("table", "rescale", "gather", "device")],
    "decode_batched": [(checks.check_decode_batched, (_batched(bug),))
                       for bug in ("longest", "unwritten", "python")],
    "packed": [(checks.check_packed, _packed(bug)) for bug in ("positions", "boundary", "no_docs")],
}
CASES = [(exercise, i) for exercise, wrong in WRONG.items() for i in range(len(wrong))]


@pytest.mark.parametrize("exercise, i", CASES)
def test_the_check_is_the_graders_procedure_on_a_seed_of_its_own(ref, lang, exercise, i):
    check, objs = WRONG[exercise][i]
    with pytest.raises(CheckFailed) as info:
        check(*objs)
    seed = SEEDS[exercise]
    source = "\n".join(inspect.getsource(o) for o in objs if callable(o))
    graded = judged(getattr(probes, exercise), *objs, seed=seed, source=source)
    seen = info.value.mismatch
    assert graded is not None
    # An error is measured against each side's right answer (transformers' MLA computes in float32 inside), as the
    # message shows it: to 3 digits.
    assert (graded.key, rounded(graded.fields), hint_of(graded)) == (seen.key, rounded(seen.fields), hint_of(seen))


def rounded(fields: dict) -> dict:
    return {k: float(f"{v:.3g}") if isinstance(v, float) else v for k, v in fields.items()}
