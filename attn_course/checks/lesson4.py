"""Lesson 4's visible checks: the fused QKV split, the GPT-2 module (its check in gpt2_module: lessons 5 to 7 build on
the module), its init, loading from and exporting to HF."""
from __future__ import annotations

import torch

from ..validate import CheckFailed  # noqa: F401 - the lesson's tests catch it here
from .engine import check_count_answer, linear_count
from .gpt2_mistakes import module_on_meta  # noqa: F401 - the lesson's tests reach it here
from .gpt2_module import SEEDS as MODULE_SEEDS, RightGPT2SelfAttention, check_gpt2_module  # noqa: F401 - its notebook
from .heads import split_heads


def right_split(qkv, n_head) -> tuple:   # q, k, v, each (B, H, T, D)
    return tuple(split_heads(z, n_head) for z in qkv.split(qkv.size(-1) // 3, dim=-1))


# Each check's own seed: the probe's inputs drawn from it follow the probe's rule (no size the notebook binds).
SEEDS = {**MODULE_SEEDS, "split_qkv": 401, "init": 404, "load_from_hf": 405, "export_to_hf": 406}


def _verify(exercise: str, name: str, right, *objs) -> None:
    from ..judging import verify   # here: the probes' package imports the checks
    from ..probes import lesson4 as probes
    verify(getattr(probes, exercise), getattr(probes, f"judge_{exercise}"), right, SEEDS[exercise], name, *objs)


def check_split_qkv(fn) -> None:
    _verify("split_qkv", "split_qkv", right_split, fn)


def check_gpt2_init(fn, cls) -> None:
    _verify("init", "gpt2_init", None, fn, cls)


def right_load(mine, hf):
    """The text's copy: Conv1D keeps its weights (in, out), nn.Linear (out, in); the biases as they are."""
    with torch.no_grad():
        for layer in ("c_attn", "c_proj"):
            getattr(mine, layer).weight.copy_(getattr(hf, layer).weight.T)
            getattr(mine, layer).bias.copy_(getattr(hf, layer).bias)
    return mine


def right_export(mine, hf):
    right_load(hf, mine)   # the same copy the other way: Conv1D's (in, out) from nn.Linear's (out, in)
    return hf


def check_load_from_hf(fn, cls) -> None:
    _verify("load_from_hf", "load_from_hf", (right_load, RightGPT2SelfAttention), fn, cls)


def check_export_to_hf(fn, cls) -> None:
    _verify("export_to_hf", "export_to_hf", (right_export, RightGPT2SelfAttention), fn, cls)


def gpt2_attention_count(E: int = 768) -> int:
    """GPT-2 small's attention counted from the lesson's facts: c_attn = nn.Linear(E, 3E) and c_proj =
    nn.Linear(E, E), both with biases (the causal buffer is no parameter)."""
    return linear_count((E, 3 * E), (E, E), bias=True)


def check_gpt2_param_answer(answer, cls) -> None:
    """Lesson 4: the parameter count of GPT-2 small's attention, judged against the lesson's count as the grader
    judges it (findings.count_finding); the learner's GPT2SelfAttention(768, 12) only named when it disagrees."""
    from ..probes.lesson4 import count_hint   # here: the probes' package imports the checks
    check_count_answer("answer_n_params", answer, cls, (768, 12), want=gpt2_attention_count(),
                       hint_of=count_hint, differs="count_module_differs")
