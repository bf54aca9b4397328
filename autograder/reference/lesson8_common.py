"""Lesson 8's reference, the helpers its judges share: transformers' masks, gpt-oss's attention (exercises 6 and 15),
and what the decoding exercises (a ring, a latent cache) use to name a mistake from the calls recorded. Lives only in
autograder/, as lesson8.py, which loads it (lesson8.py alone would be over 600 lines)."""
import contextlib
import warnings

import torch
import torch.nn.functional as F
from attn_course.checks import lesson8 as checks
from attn_course.judging import Mismatch, matching_bug


@contextlib.contextmanager
def quiet():
    """transformers' masks and flex_attention, without their one-off warnings in the grader's log."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


# --------------------------------------------------------------------------- reference: masks (transformers)
def hf_mask(mask_function, n_q: int, n_k: int, q_offset: int = 0, batch: int = 1, attention_mask=None):
    from transformers.masking_utils import sdpa_mask
    return sdpa_mask(batch, n_q, n_k, q_offset=q_offset, mask_function=mask_function, attention_mask=attention_mask,
                     allow_is_causal_skip=False)                                           # (B, 1, n_q, n_k) bool


def causal_mask(n):
    from transformers.masking_utils import causal_mask_function
    return hf_mask(causal_mask_function, n, n)


def cache_mask(t_new, t_past):
    from transformers.masking_utils import causal_mask_function
    return hf_mask(causal_mask_function, t_new, t_past + t_new, q_offset=t_past)


def padding_mask(n, lengths):
    from transformers.masking_utils import causal_mask_function
    attention_mask = torch.arange(n)[None, :] < lengths[:, None]                           # 1 = a real token
    return hf_mask(causal_mask_function, n, n, batch=len(lengths), attention_mask=attention_mask)


def window_mask(window, t_new, t_past):
    from transformers.masking_utils import sliding_window_causal_mask_function
    return hf_mask(sliding_window_causal_mask_function(window), t_new, t_past + t_new, q_offset=t_past)


def sdpa(q, k, v, keep=None, bias=None):
    mask = keep if bias is None else bias.masked_fill(~keep, float("-inf"))
    return F.scaled_dot_product_attention(q, k, v, attn_mask=mask)


# --------------------------------------------------------------------------- reference: gpt-oss's learned sink
def gpt_oss_attention(q, k, v, sinks, keep=None):
    """GptOssAttention's eager path (transformers' gpt_oss eager_attention_forward), on a module built from a tiny
    config whose sinks are these: (output (B, H, T_q, D), weights (B, H, T_q, T_k))."""
    from transformers import GptOssConfig
    from transformers.models.gpt_oss.modeling_gpt_oss import GptOssAttention, eager_attention_forward
    h, d = q.size(1), q.size(-1)
    config = GptOssConfig(hidden_size=h * d, num_attention_heads=h, num_key_value_heads=h, head_dim=d,
                          num_hidden_layers=1, layer_types=["full_attention"])
    module = GptOssAttention(config, layer_idx=0).to(q.dtype)
    del module.sinks
    module.sinks = sinks   # the drawn tensor itself, not a copy in a Parameter: gradients reach the drawn leaf
    mask = None if keep is None else torch.zeros(keep.shape, dtype=q.dtype).masked_fill(~keep, float("-inf"))
    out, weights = eager_attention_forward(module, q, k, v, mask, scaling=d ** -0.5)
    return out.transpose(1, 2), weights


def expect_mask(case, got, want, variants, offset=0, rules=()):
    if not isinstance(got, torch.Tensor) or got.dtype != torch.bool:
        raise Mismatch("flex_mask_not_bool", what=case, kind=getattr(got, "dtype", type(got).__name__))
    if got.dim() == 4 and got.size(0) == 1 and want.size(0) > 1:
        got = got.expand_as(want)
    if got.shape != want.shape:
        raise Mismatch("hidden_shape", case=case, want=tuple(want.shape), got=tuple(got.shape))
    if not torch.equal(got, want):
        full = {key: (v if v.dim() == 4 else v[None, None]).expand_as(want) for key, v in variants.items()}
        hint = matching_bug(got, full, 0.0) or checks.mask_hint(got, want, offset, rules)
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
    found = checks.first_call_hint(outputs[0] if outputs else None, q, k, v, keep, finish, tol)
    return (found[0], dict(found[1])) if isinstance(found, tuple) and isinstance(found[1], tuple) else \
        found[0] if isinstance(found, tuple) else found


def no_nan(x):
    """A row with no key to see is NaN from torch.softmax, 0 in the variants (as flex_attention gives)."""
    return torch.nan_to_num(x) if isinstance(x, torch.Tensor) else x


def partial_end(res, chunks, cause_key=None):
    """The learner's code raised on the call after those recorded (a judge with partial=True sees only these): with
    the cause the probe's watch found (cause_key), the error is named by it, as the visible check does; otherwise
    results_unreadable hands the verdict to the error (and fails a payload cut short without one)."""
    if len(res["outputs"]) == len(chunks):
        return
    cause = res[cause_key] if cause_key and cause_key in res else None
    if cause in ("hint_mla_mask_transposed", "hint_mla_cache_not_joined", "hint_mla_positions"):
        error = res["raised_error"] if "raised_error" in res else None
        raise Mismatch("hidden_raised", hint=cause, name="mla_decode(mla, x_new, cache, rope)",
                       error=error[:300] if isinstance(error, str) else "RuntimeError")
    raise Mismatch("results_unreadable", why=("why_missing_value", {"key": "outputs"}))
