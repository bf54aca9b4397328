"""Lesson 6's pasted GPT2SelfAttention: lesson 4's checks, then what this lesson's own code relies on.

Section 3 builds the module with `max_len=max(lengths)` (1024 on a CPU) and runs sequences longer than the
default 64, and the text says the SDPA path returns None for the weights. Lesson 4's checks build the module
with the default and run short sequences, so a constructor that ignores max_len (a buffer of a hard-coded 64,
or the keyword named block_size) passed them and then failed in section 3. Here the module is built with a
max_len that is not 64 and run on a sequence longer than 64, as the hidden test (lesson6.module_max_len) does.
"""
from __future__ import annotations

import torch

from ..messages import t
from ..validate import CheckFailed
from . import lesson4
from .engine import close, expect_returned_pair, inputs, max_error, passed, run

MAX_LEN, T_LONG = 80, 72   # not the default 64, and a sequence longer than it


def max_len_error(kind: str, message: str, call: str = "") -> str | None:
    """A constructor without the max_len keyword, or a forward whose buffer is shorter than the sequence:
    the check's and the grader's alike."""
    if lesson4.max_len_keyword_missing(message):
        return "hint_max_len_keyword"
    if "must match the size" in message or "out of bounds" in message or "shape mismatch" in message:
        return "hint_max_len_buffer"
    return None


def buffer_shape(module) -> tuple | None:
    causal = dict(module.named_buffers()).get("causal") if isinstance(module, torch.nn.Module) else None
    return tuple(causal.shape) if isinstance(causal, torch.Tensor) else None


def check_gpt2_module(cls) -> None:
    lesson4.expect_gpt2_module(cls)
    name = "GPT2SelfAttention"
    module = run(f"{name}(…, max_len={MAX_LEN})", cls, lesson4.E, lesson4.H, max_len=MAX_LEN, on_error=max_len_error)
    shape = buffer_shape(module)
    if shape is not None and shape != (MAX_LEN, MAX_LEN):
        raise CheckFailed(t("max_len_buffer", max_len=MAX_LEN, got=shape), t("hint_max_len_buffer"))
    module = module.double().eval()
    (x,) = inputs((2, T_LONG, lesson4.E), seed=66)
    with torch.no_grad():
        y, _ = expect_returned_pair(run(f"{name}.forward", module, x, on_error=max_len_error), f"{name}.forward")
        right = lesson4.gpt2_expected(module, x)[None]
        if not close(y, right, 1e-6):
            raise CheckFailed(t("max_len_differs", max_len=MAX_LEN, T=T_LONG, err=max_error(y, right)),
                              t("hint_max_len_buffer"))
        y_sdpa, weights = expect_returned_pair(run(f"{name}.forward(use_sdpa=True)", module, x, True,
                                                   on_error=max_len_error), f"{name}.forward(use_sdpa=True)")
        if weights is not None:
            raise CheckFailed(t("sdpa_weights_not_none", kind=type(weights).__name__), t("hint_sdpa_weights_none"))
        if not close(y_sdpa, right, 1e-6):
            raise CheckFailed(t("max_len_differs", max_len=MAX_LEN, T=T_LONG, err=max_error(y_sdpa, right)))
    passed(name)
