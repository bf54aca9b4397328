"""FlexAttention as the checks and the hidden tests run it: eager, quiet, and without the compile wrapper."""
from __future__ import annotations

import contextlib
import warnings

import torch

# flex_attention without torch.compile warns once that it runs unfused; the course runs it so on purpose.
FLEX_WARNING = "flex_attention called without torch.compile"


@contextlib.contextmanager
def quiet_flex():
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=FLEX_WARNING)
        yield


def create_mask(mod, batch, n_q: int, n_k: int, device="cpu") -> torch.Tensor:
    """The learner's mask_mod evaluated at every (b, q_idx, kv_idx), as FlexAttention does (with vmap):
    (batch or 1, 1, n_q, n_k) bool."""
    from torch.nn.attention.flex_attention import create_mask as _create
    with quiet_flex():
        return _create(mod, batch, None, n_q, n_k, device=device)


@contextlib.contextmanager
def untraced_flex():
    """flex_attention without its torch.compile wrapper. In eager mode both run the same unfused maths (vmap over
    the mods), with the same result to the bit; the wrapper first traces each new mod with dynamo, 0.3 s a call
    here against 3 ms without, and a graded lesson 8 notebook made some 20 such calls. torch names the switch in
    its own warning, for debugging mods; it would break a backward pass, which FlexAttention on the CPU and
    these checks never take."""
    import torch.nn.attention.flex_attention as fa
    saved = getattr(fa, "_FLEX_ATTENTION_DISABLE_COMPILE_DEBUG", False)
    fa._FLEX_ATTENTION_DISABLE_COMPILE_DEBUG = True
    try:
        yield
    finally:
        fa._FLEX_ATTENTION_DISABLE_COMPILE_DEBUG = saved


def flex(q, k, v, mask_mod=None, score_mod=None, batch=None):
    """flex_attention in eager mode with an optional mask_mod (made into a BlockMask) and score_mod."""
    from torch.nn.attention.flex_attention import create_block_mask, flex_attention
    with quiet_flex(), untraced_flex():
        block = None if mask_mod is None else create_block_mask(mask_mod, batch, None, q.size(-2), k.size(-2),
                                                                device=q.device)
        return flex_attention(q, k, v, score_mod=score_mod, block_mask=block)


def block_mask(mod, batch, n_q: int, n_k: int, device="cpu"):
    """The BlockMask a learner's function receives: made once from a mask_mod, as a server makes it once per batch."""
    from torch.nn.attention.flex_attention import create_block_mask
    with quiet_flex():
        return create_block_mask(mod, batch, None, n_q, n_k, device=device)


def in_eager(fn):
    """A learner's function that calls flex_attention itself, run as flex() runs it: quiet, without the compile
    wrapper (the same values; see untraced_flex)."""
    def call(*args):
        with quiet_flex(), untraced_flex():
            return fn(*args)
    return call
