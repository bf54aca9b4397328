"""Lesson 4's visible checks: the fused QKV split, the GPT-2 module (its check in gpt2_module: lessons 5 to 7 build on
the module), its init, loading from and exporting to HF."""
from __future__ import annotations

import math

import torch

from ..messages import t
from ..sizes import avoided
from ..validate import CheckFailed  # noqa: F401 - the lesson's tests catch it here
from .engine import check_count_answer, linear_count, passed, run
from .gpt2_module import (  # noqa: F401 - lesson notebooks, probes and the grader reach them here
    B, D, H, LESSON, MAX_LEN, T, RightGPT2SelfAttention, _size_error, buffer_persistent, buffer_shape,
    check_gpt2_module, expect_gpt2_module, gpt2_expected, hint_text, keys_only, max_len_error, meta_problem,
    module_error, module_hint, module_on_meta, output_of, qkv_variants, sdpa_hint, sdpa_train_finding,
    train_variants,
)
from .heads import split_heads


def right_split(qkv, n_head) -> tuple:   # q, k, v, each (B, H, T, D)
    return tuple(split_heads(z, n_head) for z in qkv.split(qkv.size(-1) // 3, dim=-1))


# Each check's own seed: the probe's inputs drawn from it follow the probe's rule (no size the notebook binds).
SEEDS = {"split_qkv": 401, "module": 402, "module_max_len": 403, "init": 404, "load_from_hf": 405,
         "export_to_hf": 406}


def _verify(exercise: str, name: str, right, *objs) -> None:
    from ..judging import verify   # here: the probes' package imports the checks
    from ..probes import lesson4 as probes
    verify(getattr(probes, exercise), getattr(probes, f"judge_{exercise}"), right, SEEDS[exercise], name, *objs)


def check_split_qkv(fn) -> None:
    _verify("split_qkv", "split_qkv", right_split, fn)


def split_error(kind: str, message: str, call: str = "") -> str | None:
    """The hint for an error split_qkv raised (the grader names it with the same function)."""
    if "values to unpack" in message or "split_size can only be 0" in message:
        return "hint_split_three"
    return _size_error(message)


def init_error(kind: str, message: str, call: str = "") -> str | None:
    """named_parameters() yields (name, parameter) pairs: unpacked the other way, or the module iterated."""
    if "'Parameter' object has no attribute" in message or "object is not iterable" in message:
        return "hint_named_parameters"
    return None


# A normal sample's kurtosis is 3 (its standard error at 2,304 draws about 0.1), a uniform one's 1.8.
UNIFORM_KURTOSIS = 2.4


def init_n_layer(draw) -> int:
    """The n_layer both sides pass: far from 12 (c_proj's std then differs by more than a third, well past either
    tolerance) and from every size the notebook binds. draw(name, n, low, high, avoid) -> sizes."""
    return draw("n_layer", 1, 30, 100, avoided(LESSON))[0]


def init_problem(state: dict, tol: float, n_layer: int):
    """The hint of the first weight or bias not initialised as GPT-2 does (a normal sample, std within tol of it,
    mean within tol of 0), or None. state: parameter name -> tensor; the grader reads its own draw with it too.
    c_proj's std named apart when it is n_layer = 12's (the argument ignored) or 0.02/√n_layer (the 2 left out)."""
    proj = 0.02 / math.sqrt(2 * n_layer)
    for layer, want in (("c_attn", 0.02), ("c_proj", proj)):
        weight = state.get(f"{layer}.weight")
        if isinstance(weight, torch.Tensor):
            # The std first: a std too large also moves the sample mean past a tolerance scaled to the right std.
            weight = weight.detach().double()
            std = float(weight.std())
            centred = weight - weight.mean()
            if std > 0 and float((centred ** 4).mean() / (centred ** 2).mean() ** 2) < UNIFORM_KURTOSIS:
                return "hint_init_uniform", {"name": f"{layer}.weight"}
            if abs(std - want) > tol * want:
                # Each named std within tol of itself (a sample's std at 2,304 draws errs by about 1.5%).
                if layer == "c_proj" and abs(std - 0.02 / math.sqrt(24)) <= tol * 0.02 / math.sqrt(24):
                    return "hint_init_n_layer", {"n": n_layer}
                if layer == "c_proj" and abs(std - 0.02 / math.sqrt(n_layer)) <= tol * 0.02 / math.sqrt(n_layer):
                    return "hint_init_missing_two"
                return "hint_init_std", {"name": f"{layer}.weight", "got": std, "want": want}
            if abs(float(weight.mean())) > tol * want:
                return "hint_init_mean", {"name": f"{layer}.weight", "got": float(weight.mean())}
        bias = state.get(f"{layer}.bias")
        if isinstance(bias, torch.Tensor) and float(bias.detach().abs().max()) != 0.0:
            return "hint_init_bias", {"name": f"{layer}.bias"}
    return None


def check_gpt2_init(fn, cls) -> None:
    _verify("init", "gpt2_init", None, fn, cls)


def hf_pair_problem(mine: dict, hf: dict) -> str | None:
    """The hint key of the classic loading bug that makes mine differ from hf (parameters by name), if any."""
    def same(a, b, transposed=False):
        if not (isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor)):
            return False
        b = b.T if transposed else b  # Conv1D keeps (in, out), nn.Linear (out, in)
        return a.shape == b.shape and torch.equal(a.detach().to(b.dtype), b.detach())
    if not all(same(mine.get(f"{n}.weight"), hf.get(f"{n}.weight"), True) for n in ("c_attn", "c_proj")):
        return "hint_conv1d_transpose"
    if not all(isinstance(mine.get(f"{n}.bias"), torch.Tensor) for n in ("c_attn", "c_proj")):
        return "hint_bias_from_module"   # nothing to copy into: exercise 2's module was built without biases
    if not all(same(mine.get(f"{n}.bias"), hf.get(f"{n}.bias")) for n in ("c_attn", "c_proj")):
        return "hint_missing_bias"
    return None


def hf_copy_error(kind: str, message: str, call: str = "") -> str:
    """The hint key for an error raised while copying between the two modules, or while running the module
    they were copied into (call: the name of what raised; the grader uses this function too).

    Assigning a tensor to a parameter and copy_ outside no_grad are mistakes in how to copy,
    not in the layout, so "transpose" would send the learner the wrong way. A bias that is None is
    exercise 2's module built without biases (named so, not "copy the bias too"); an error from the module's own
    forward is exercise 2's too.
    """
    if call == "GPT2SelfAttention":
        return "hint_module_cascade"
    if kind == "TypeError" and "as parameter" in message:   # mine.c_attn.weight = hf.c_attn.weight.T
        return "hint_param_assign"
    if "leaf Variable" in message:                          # .copy_ outside torch.no_grad()
        return "hint_copy_no_grad"
    if "NoneType" in message:                               # mine.c_attn.bias is None: exercise 2's module
        return "hint_bias_from_module"
    return "hint_conv1d_transpose"


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


def count_hint(got: int, E: int = 768):
    """The classic miscount of GPT-2's attention a count names (the check's and the judge's): the biases left out
    (both, or one layer's), the causal buffer counted as a parameter (the default max_len 64, or GPT-2's 1024)."""
    weights, biases = 4 * E * E, 4 * E
    if got in (weights, weights + E, weights + 3 * E):
        return "hint_count_no_bias"
    if got - weights - biases in (64 * 64, 1024 * 1024):
        return "hint_count_buffer"
    return None


def check_gpt2_param_answer(answer, cls) -> None:
    """Lesson 4: the parameter count of GPT-2 small's attention, judged against the lesson's count as the grader
    judges it (findings.count_finding); the learner's GPT2SelfAttention(768, 12) only named when it disagrees."""
    check_count_answer("answer_n_params", answer, cls, (768, 12), want=gpt2_attention_count(),
                       hint_of=count_hint, differs="count_module_differs")


def shape_hint(got, want: tuple, names: tuple):
    """("swapped_axes", fields) when got is want with two axes swapped, as expect_shape names it; else None."""
    if not isinstance(got, torch.Tensor) or got.dim() != len(want):
        return None
    for a in range(len(want)):
        for b in range(a + 1, len(want)):
            swapped = list(want)
            swapped[a], swapped[b] = swapped[b], swapped[a]
            if tuple(got.shape) == tuple(swapped) and tuple(got.shape) != tuple(want):
                return "swapped_axes", {"a": a, "b": b, "name_a": names[a], "name_b": names[b]}
    return None
