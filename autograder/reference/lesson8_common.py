"""Lesson 8's reference, the helpers its judges share: transformers' masks and gpt-oss's attention (exercises 6 and
15). Lives only in autograder/, as lesson8.py, which loads it (lesson8.py alone would be over 600 lines)."""
import contextlib
import warnings

import torch
import torch.nn.functional as F


@contextlib.contextmanager
def quiet():
    """transformers' masks and flex_attention, without their one-off warnings in the grader's log."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


# --------------------------------------------------------------------------- reference: masks (transformers)
def hf_mask(mask_function, n_q: int, n_k: int, q_offset: int = 0, batch: int = 1, attention_mask=None):
    from transformers.masking_utils import sdpa_mask
    with quiet():
        return sdpa_mask(batch, n_q, n_k, q_offset=q_offset, mask_function=mask_function,
                         attention_mask=attention_mask, allow_is_causal_skip=False)        # (B, 1, n_q, n_k) bool


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
