"""Helpers for the course "Attention, head by head".

    import attn_course as course
    device = course.setup("ja")      # or "ko"

One module per concern: validate (errors and the expect_* checks exercises call),
checks (visible checks, one module per lesson), probes (what a hidden test runs in
the kernel: the learner's code on inputs drawn from the grader's seed; the verdict
is the grader's), messages (every learner-visible string, ja/ko, one module per
lesson), widgets (the attention explorer) and views (its figures), plots (each
lesson's own figures), diagrams (the course's pictures of shapes and masks), fonts
(CJK in matplotlib), device (CPU or CUDA), data (the sample sentence and the lesson-5
task), hf (Hugging Face's GPT-2 attention, built locally).
"""
import torch

from . import checks, data, device as _device, diagrams, fonts, hf, messages, plots, probes, validate, widgets
from .data import sentence, sentence_embeddings
from .device import device_name
from .messages import t
from .plots import draw_fused_weight, show, show_table
from .validate import (
    CheckFailed, InputError, dtype_bytes, expect_even, expect_qkv, expect_size, expect_tokens, expect_torch_compatible,
    previous_token_weight, resolve_head_dim, resolve_kv_groups,
)
from .widgets import AttentionExplorer, draw_weights, entropy, temper

__version__ = "0.2.0"


def setup(lang: str) -> torch.device:
    """Choose the language, register CJK fonts, pick the device; return the device."""
    messages.set_language(lang)
    fonts.use_cjk_fonts(lang)
    dev = _device.pick_device()
    torch.set_printoptions(precision=4, sci_mode=False)
    print(t("setup_done", device=dev, torch=torch.__version__))
    return dev
