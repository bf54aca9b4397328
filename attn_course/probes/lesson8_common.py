"""What lesson 8's procedures share (attn_course.probes.lesson8): a mask judged with its classic mistakes, and what the
decoding exercises (a ring, a sink cache, a latent cache) use to name a mistake from the calls the probe recorded.
The grader runs them with the hidden reference, the visible check with the course's right answer."""
import torch

from ..checks.lesson8_common import first_call_hint
from ..checks.lesson8_mods import mask_hint
from ..judging import Mismatch, matching_bug


def expect_mask(case, got, want, variants, offset=0, rules=()):
    """got: the learner's mask (create_mask of their mod), want: the right (B or 1, 1, T_q, T_k) bool mask; variants:
    the classic mistakes' masks, keyed by their hint; offset and rules: as mask_hint's."""
    if not isinstance(got, torch.Tensor) or got.dtype != torch.bool:
        raise Mismatch("flex_mask_not_bool", what=case, kind=getattr(got, "dtype", type(got).__name__))
    if got.dim() == 4 and got.size(0) == 1 and want.size(0) > 1:
        got = got.expand_as(want)
    if got.shape != want.shape:
        raise Mismatch("hidden_shape", case=case, want=tuple(want.shape), got=tuple(got.shape))
    if not torch.equal(got, want):
        full = {key: (v if v.dim() == 4 else v[None, None]).expand_as(want) for key, v in variants.items()}
        hint = matching_bug(got, full, 0.0) or mask_hint(got, want, offset, rules)
        raise Mismatch("flex_mask_differs", hint=hint, what=case, n=int((got != want).sum()),
                       total=want.numel())


def decoding_bug(res, bugs: dict, run, tol: float = 1e-9):
    """The first classic mistake whose outputs (run(**flags), one per call) equal the learner's at every call."""
    for key, flags in bugs.items():
        outs = run(**flags)
        if all(matching_bug(no_nan(g), {"x": o}, tol) for g, o in zip(res["outputs"], outs)):
            if isinstance(key, tuple):   # as matching_bug names a field, or one of a hint's variants
                return (key[0], dict(key[1])) if isinstance(key[1], tuple) else key[0]
            return key
    return None


def first_call(res, q, k, v, keep, finish, tol: float = 1e-9):
    """A mistake in the attention itself, named from the first call (no cache yet), as the visible checks do."""
    outputs = res["outputs"]
    found = first_call_hint(outputs[0] if outputs else None, q, k, v, keep, finish, tol)
    return (found[0], dict(found[1])) if isinstance(found, tuple) and isinstance(found[1], tuple) else \
        found[0] if isinstance(found, tuple) else found


def no_nan(x):
    """A row with no key to see is NaN from torch.softmax, 0 in the variants (as flex_attention gives)."""
    return torch.nan_to_num(x) if isinstance(x, torch.Tensor) else x


def partial_end(res, chunks, cause_key=None):
    """The learner's code raised on the call after those recorded (a procedure with partial=True sees only these):
    with the cause the probe's watch found (cause_key), the error is named by it, as the visible check does;
    otherwise results_unreadable hands the verdict to the error (and fails a payload cut short without one)."""
    if len(res["outputs"]) == len(chunks):
        return
    cause = res[cause_key] if cause_key and cause_key in res else None
    if cause in ("hint_mla_mask_transposed", "hint_mla_cache_not_joined", "hint_mla_positions"):
        error = res["raised_error"] if "raised_error" in res else None
        raise Mismatch("hidden_raised", hint=cause, name="mla_decode(mla, x_new, cache, rope)",
                       error=error[:300] if isinstance(error, str) else "RuntimeError")
    raise Mismatch("results_unreadable", why=("why_missing_value", {"key": "outputs"}))
