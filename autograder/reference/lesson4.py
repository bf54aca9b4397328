"""Lesson 4's reference and its judges. Lives only in autograder/: never in a release, never in a kernel.

The module judges (module, module_max_len) are also the hidden tests of the GPT2SelfAttention pasted into lessons 5
to 7.
"""
import math

import torch
import torch.nn as nn
from attn_course.checks import lesson4 as checks
from attn_course.checks.engine import output_dropped
from attn_course.hf import hf_attention, hf_forward
from attn_course.probes import lesson4 as probe
from attn_course.findings import target_finding
from attn_course.judging import (
    Mismatch, expect_close, expect_copy, expect_finding, expect_grads, expect_layout,
    matching_bug, max_error, naming,
)
from attn_grader.judge import judge, judged_by, sibling

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
        mine.c_attn.weight.copy_(hf.c_attn.weight.T)
        mine.c_attn.bias.copy_(hf.c_attn.bias)
        mine.c_proj.weight.copy_(hf.c_proj.weight.T)
        mine.c_proj.bias.copy_(hf.c_proj.bias)
    return mine


def export_to_hf(mine, hf):
    with torch.no_grad():
        hf.c_attn.weight.copy_(mine.c_attn.weight.T)
        hf.c_attn.bias.copy_(mine.c_attn.bias)
        hf.c_proj.weight.copy_(mine.c_proj.weight.T)
        hf.c_proj.bias.copy_(mine.c_proj.bias)
    return hf


# --------------------------------------------------------------------------- naming the mistake
# On a mismatch, the learner's results are compared with the visible checks' classic bugs
# (attn_course.checks.lesson4), computed here on the grader's own inputs.
def _module_bug(res):
    """Biases, then each path as the visible check names it (checks.module_hint: the output's classic variants,
    then what the returned weights say), then dropout in eval and in training."""
    for b, t, h, d in probe.configs(res):
        layout = [name for name, _ in res[f"layout.{h}.{d}"]]
        for layer in ("c_attn", "c_proj"):
            if f"{layer}.weight" in layout and f"{layer}.bias" not in layout:
                return "layer_missing_bias", {"name": layer}
        ref = _reference(res, h, d).double().eval()
        got = res[f"masked.{h}.{d}"]
        x = res.randn(f"x.{h}.{d}", b, t, h * d)
        if not (isinstance(got, tuple) and len(got) == 2 and isinstance(got[0], torch.Tensor)):
            return None
        y, weights = got
        with torch.no_grad():
            want = ref(x)[0]
            if y.shape != want.shape:
                if y.dim() == 4 and isinstance(weights, torch.Tensor) and weights.dim() == 3:
                    return "hint_returns_swapped"
                return checks.shape_hint(y, tuple(want.shape), ("B", "T", "E"))
            if not matching_bug(y, {"right": want}, 1e-9):
                return checks.module_hint(ref, x, y, weights, 1e-9)
            if not matching_bug(res[f"sdpa.{h}.{d}"], {"right": want}, 1e-9):
                return checks.sdpa_hint(ref, x, res[f"sdpa.{h}.{d}"], 1e-9)
    b, t, h, d = next(probe.configs(res))
    noisy = _reference(res, h, d, dropout=0.5).double().eval()
    x = res.randn(f"x.{h}.{d}", b, t, h * d)
    with torch.no_grad():
        want = noisy(x)[0]
    if not matching_bug(res["eval.masked"], {"right": want}, 1e-9):
        return "hint_dropout_eval"
    if not matching_bug(res["eval.sdpa"], {"right": want}, 1e-9):
        return "hint_dropout_eval_sdpa"
    got = res["train.masked"]
    if not (isinstance(got, tuple) and len(got) == 2):
        return None
    if output_dropped(got[0]):
        return "hint_dropout_output", {"layer": "c_proj"}
    if matching_bug(got[0], {"right": want}, 1e-9):
        return "hint_dropout_train"
    if isinstance(got[1], torch.Tensor):
        sums = got[1].sum(-1)
        if not matching_bug(sums, {"ones": torch.ones_like(sums)}, 1e-6):
            return "hint_weights_after_dropout"
    with torch.no_grad():
        return matching_bug(got[0], checks.train_variants(noisy, x, res.integer("dropout")), 1e-9)


# --------------------------------------------------------------------------- judges
def _reference(res, h, d, dropout=0.0, key=None):
    ref = GPT2SelfAttention(h * d, h, max_len=32, dropout=dropout)
    expect_layout(res, ref, key or f"layout.{h}.{d}")
    res.fill_parameters(ref, f"params.{h}.{d}")
    return ref


def _expect_pair(case, got, want, tol):
    if not (isinstance(got, tuple) and len(got) == 2):
        raise Mismatch("returned_not_pair", name="GPT2SelfAttention.forward", kind=type(got).__name__)
    for g, w in zip(got, want):
        expect_close(case, g, w, tol)


# The probe builds the module with max_len=32: a broadcast between T and 32 is the causal buffer used whole.
_on_module_error = checks.module_error(32)


@judge("lesson4.module", on_error=_on_module_error)
def judge_module(res):
    with naming(lambda: _module_bug(res)):
        _judge_module(res)


def _judge_module(res):
    for b, t, h, d in probe.configs(res):
        if res[f"persistent.{h}.{d}"] is not False:   # the text's persistent=False, as the check reads it
            raise Mismatch("hint_buffer_persistent")
        ref = _reference(res, h, d).double().eval()
        x = res.randn(f"x.{h}.{d}", b, t, h * d)
        case = f"H={h}, D={d}"
        with torch.no_grad():
            want = ref(x)
        _expect_pair((("case_masked_path",), case), res[f"masked.{h}.{d}"], want, 1e-9)
        expect_close(f"{case}, use_sdpa=True", res[f"sdpa.{h}.{d}"], want[0], 1e-9)
    b, t, h, d = next(probe.configs(res))
    noisy = _reference(res, h, d, dropout=0.5).double().eval()
    x = res.randn(f"x.{h}.{d}", b, t, h * d)
    with torch.no_grad():
        want = noisy(x)[0]
        expect_close(("case_eval_determinism",), res["eval.masked"], want, 1e-9)
        expect_close(("case_eval_determinism",), res["eval.sdpa"], want, 1e-9)
        noisy.train()
        torch.manual_seed(res.integer("dropout"))
        want = noisy(x)
    got = res["train.masked"]
    if not (isinstance(got, tuple) and len(got) == 2 and all(isinstance(g, torch.Tensor) for g in got)) or \
            got[0].shape != want[0].shape or got[1].shape != want[1].shape:
        raise Mismatch("hidden_dropout_train", err=float("inf"))
    err = max(max_error(got[0], want[0]), max_error(got[1], want[1]))
    if not err <= 1e-9:
        raise Mismatch("hidden_dropout_train", err=err)
    noisy.eval()   # the SDPA path's own dropout in training, by the check's rule
    with torch.no_grad():
        expect_finding(checks.sdpa_train_finding(noisy, x, res.integer("dropout.sdpa"), res["train.sdpa"], 1e-9))
    _judge_grads(res)
    device = checks.meta_problem(res["meta"])   # the meta device's case (checks.module_on_meta), last, as the check
    if device:
        raise Mismatch("module_meta_device", hint="hint_module_device", device=device)


def _judge_grads(res):
    """Both paths' gradients with respect to x and every parameter, by the visible check's rule."""
    b, t, h, d = next(probe.configs(res))
    ref = _reference(res, h, d).double().eval()
    params = [p for _, p in ref.named_parameters()]
    names = ["x", *(n for n, _ in ref.named_parameters())]
    for path, kwargs in probe.GRAD_PATHS:
        x = res.randn(f"grad.x.{h}.{d}", b, t, h * d).requires_grad_(True)
        call = "GPT2SelfAttention.forward" + ("(use_sdpa=True)" if kwargs else "")
        expect_grads(call, res[f"grad.{path}"], probe.grads_of(res, ref(x, **kwargs), [x, *params]), names)


# partial: a buffer of the wrong size is named from its recorded shape, before the error it caused, as the check does
@judge("lesson4.module_max_len", on_error=checks.max_len_error, partial=True)
def judge_module_max_len(res):
    """The module built with a max_len that is not 64 and run past 64 (lessons 5 to 7 build it with max_len=):
    as the visible check's _expect_max_len, a masked path that differs named as a buffer not sized by max_len."""
    _, _, h, d = next(probe.configs(res))
    max_len, t = probe.max_len_sizes(res)
    ref = GPT2SelfAttention(h * d, h, max_len=max_len)
    expect_layout(res, ref)
    shape = res["causal_shape"]
    if shape is not None and shape != [max_len, max_len]:
        raise Mismatch("max_len_buffer", hint="hint_max_len_buffer", max_len=max_len, got=tuple(shape))
    res.fill_parameters(ref, f"params.{h}.{d}")
    ref = ref.double().eval()
    with torch.no_grad():
        want = probe.last_rows(ref(res.randn("x", 1, t, h * d)))
    for key, path in (("masked", "GPT2SelfAttention.forward"), ("sdpa", "GPT2SelfAttention.forward(use_sdpa=True)")):
        got = res[key]
        if not (isinstance(got, tuple) and len(got) == 2):
            raise Mismatch("returned_not_pair", name=path, kind=type(got).__name__)
        if key == "sdpa" and got[1] is not None:
            raise Mismatch("sdpa_weights_not_none", hint="hint_sdpa_weights_none", kind=type(got[1]).__name__)
        try:
            expect_close(f"max_len={max_len}, T={t}", got[0], want[0], 1e-9)
            if key == "masked":
                expect_close(f"max_len={max_len}, T={t}", got[1], want[1], 1e-9)
        except Mismatch as mismatch:
            # The masked path reads the buffer; the SDPA path does not, and its cause is not named (as the check)
            mismatch.hint = "hint_max_len_buffer" if key == "masked" else None
            raise
    with naming(lambda: "hint_dropout_default"):   # built without dropout=, in training: the default is 0.0
        expect_close(f"max_len={max_len}, T={t}, train()", res["train"], want[0], 1e-9)




# Each is the exercise's public procedure (attn_course.probes.lesson4) given this reference: the visible check runs
# the same procedure with the right answer the course's public facts give.
judged_by("lesson4.split_qkv", probe.judge_split_qkv, split_qkv)
judged_by("lesson4.init", probe.judge_init, None)
judged_by("lesson4.n_params", probe.judge_n_params, 4 * 768 * 768 + 4 * 768)
judged_by("lesson4.load_from_hf", probe.judge_load_from_hf, (load_from_hf, GPT2SelfAttention))
judged_by("lesson4.export_to_hf", probe.judge_export_to_hf, (export_to_hf, GPT2SelfAttention))
