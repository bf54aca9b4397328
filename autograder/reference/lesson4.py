"""Lesson 4's reference, which the grader gives each exercise's procedure (attn_course/probes/lesson4.py, the
module's in probes/gpt2_module.py). Lives only in autograder/: never in a release, never in a kernel."""
import math

import torch
import torch.nn as nn
from attn_course.probes import lesson4 as probe
from attn_grader.judge import judged_by, sibling

_gpt2 = sibling(__file__, "gpt2_module")
split_qkv, GPT2SelfAttention = _gpt2.split_qkv, _gpt2.GPT2SelfAttention


def gpt2_init(module, n_layer=12):
    for name, p in module.named_parameters():
        if name.endswith("bias"):
            nn.init.zeros_(p)
        elif name.startswith("c_proj"):
            nn.init.normal_(p, mean=0.0, std=0.02 / math.sqrt(2 * n_layer))
        else:
            nn.init.normal_(p, mean=0.0, std=0.02)
    return module


def load_from_hf(mine, hf):
    with torch.no_grad():
        for a, b in ((mine.c_attn, hf.c_attn), (mine.c_proj, hf.c_proj)):
            a.weight.copy_(b.weight.T)
            a.bias.copy_(b.bias)
    return mine


def export_to_hf(mine, hf):
    with torch.no_grad():
        for a, b in ((hf.c_attn, mine.c_attn), (hf.c_proj, mine.c_proj)):
            a.weight.copy_(b.weight.T)
            a.bias.copy_(b.bias)
    return hf


judged_by("lesson4.split_qkv", probe.judge_split_qkv, split_qkv)
judged_by("lesson4.init", probe.judge_init, None)
judged_by("lesson4.n_params", probe.judge_n_params, 4 * 768 * 768 + 4 * 768)
judged_by("lesson4.load_from_hf", probe.judge_load_from_hf, (load_from_hf, GPT2SelfAttention))
judged_by("lesson4.export_to_hf", probe.judge_export_to_hf, (export_to_hf, GPT2SelfAttention))
judged_by("lesson4.module", probe.judge_module, GPT2SelfAttention)
judged_by("lesson4.module_max_len", probe.judge_module_max_len, GPT2SelfAttention)
