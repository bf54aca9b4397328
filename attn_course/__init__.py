"""Helpers for the course "Attention, head by head".

    import attn_course as course
    device = course.setup("ja")      # or "ko"

One module per concern: messages (every learner-visible string, ja/ko), fonts
(CJK in matplotlib), device (CPU or CUDA), checks (validation, visible and
hidden tests), widgets (the attention explorer) and views (its figures), plots
(each lesson's static figures), data (a tiny sample sentence), hf (Hugging Face's
GPT-2 attention, built locally).
"""
import torch

from . import checks, data, device as _device, fonts, hf, messages, plots, widgets
from .checks import CheckFailed, InputError, expect_qkv, expect_size, expect_tokens
from .data import sentence, sentence_embeddings
from .device import device_name
from .messages import t
from .plots import draw_fused_weight, show, show_table
from .widgets import AttentionExplorer, draw_weights, entropy, temper

__version__ = "0.1.0"


def setup(lang: str) -> torch.device:
    """Choose the language, register CJK fonts, pick the device; return the device."""
    messages.set_language(lang)
    fonts.use_cjk_fonts(lang)
    dev = _device.pick_device()
    torch.set_printoptions(precision=4, sci_mode=False)
    print(t("setup_done", device=dev, torch=torch.__version__))
    return dev
