"""Lesson 8's references and judges for what fused kernels do around FlexAttention: gpt-oss's learned sink applied to
flex_attention's output through its log-sum-exp (exercise 15), judged against GptOssAttention's eager path, and
Gemma 2's logit softcap as a score_mod (exercise 16), judged against Gemma2Attention's eager path on a tiny config.
Lives only in autograder/; lesson8.py loads it, and its judges (the exercises' procedures, attn_course.probes.lesson8,
given these references) register then.

FlexAttention has no backward on the CPU in this torch, so both are judged on values alone (float64 and float32).
Gemma 2's eager path takes its softmax in float32 whatever the input's dtype (1.5e-6 from float64 measured here):
judged at 1e-5 there (the procedure's SOFTCAP_TOLERANCE), as MLA is; a classic mistake is off by far more.
"""
import torch
from attn_course.checks import lesson8 as checks
from attn_course.probes import lesson8 as probe
from attn_grader.judge import judged_by, sibling

_common = sibling(__file__, "lesson8_common")


# --------------------------------------------------------------------------- exercise 15: gpt-oss's sink, after flex
def gpt_oss_output(q, k, v, sinks, block_mask):
    """GptOssAttention's output for the keys the BlockMask lets each query see (none hidden when it is None)."""
    keep = checks.mask_of(block_mask, q.size(-2), k.size(-2))
    return _common.gpt_oss_attention(q, k, v, sinks, keep)[0]


judged_by("lesson8.flex_sink_attention", probe.judge_flex_sink_attention, gpt_oss_output)


# --------------------------------------------------------------------------- exercise 16: Gemma 2's softcap
def gemma2_attention(q, k, v, cap, window):
    """Gemma2Attention's eager path (transformers' gemma2 eager_attention_forward) with attn_logit_softcapping = cap,
    on a module built from a tiny config: a global layer (window None, the causal mask) or a sliding one (masking_utils'
    sliding-window mask of that window). query_pre_attn_scalar is D here, so its scale is flex_attention's 1/√D."""
    from transformers import Gemma2Config
    from transformers.models.gemma2.modeling_gemma2 import Gemma2Attention, eager_attention_forward
    h, n, d = q.size(1), q.size(2), q.size(-1)
    kind = "full_attention" if window is None else "sliding_attention"
    config = Gemma2Config(hidden_size=h * d, num_attention_heads=h, num_key_value_heads=h, head_dim=d,
                          num_hidden_layers=1, layer_types=[kind], sliding_window=window or n,
                          query_pre_attn_scalar=d, attn_logit_softcapping=cap)
    module = Gemma2Attention(config, layer_idx=0).to(q.dtype).eval()
    keep = (_common.causal_mask(n) if window is None else _common.window_mask(window, n, 0))[0, 0]
    mask = torch.zeros(keep.shape, dtype=q.dtype).masked_fill(~keep, float("-inf"))
    out, _ = eager_attention_forward(module, q, k, v, mask, scaling=module.scaling,
                                     softcap=module.attn_logit_softcapping)
    return out.transpose(1, 2)


def quiet_gemma2(q, k, v, cap, window):
    """gemma2_attention without transformers' one-off warnings in the grader's log."""
    with _common.quiet():
        return gemma2_attention(q, k, v, cap, window)


judged_by("lesson8.softcap_score_mod", probe.judge_softcap_score_mod, quiet_gemma2)
