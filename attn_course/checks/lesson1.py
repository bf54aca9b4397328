"""Lesson 1's visible checks: scores, softmax, attention, the Attention module, two answers."""
from __future__ import annotations

import contextlib
import math
import re

import torch

from ..messages import matches, t
from ..score_watch import MatmulWatch
from ..validate import CheckFailed, InputError
from .engine import (
    also_checks, blames_earlier, scale_variants, build_and_run, check_count_answer, close, diagnose, error_hint,
    expect_input_errors, expect_number, expect_returned_pair, expect_shape, inputs, max_error, passed, run,
)
from .invariants import expect_cases, expect_dtype, expect_module_cases, reads_globals

# Visible-test sizes: every one different from every other. Each check then runs the grader's own cases (the
# probe's inputs on the check's seed, attn_course.probes.lesson1): sizes the notebook binds nowhere, float32, and
# the gradients.
B, T_Q, T_K, D_K, D_V, E = 2, 3, 5, 4, 6, 7
LESSON = 1


def product_hint(failed, t_q: int, t_k: int, d_k: int, d_v: int) -> str | None:
    """A matrix product that raised, by the two shapes it was given (MatmulWatch): PyTorch's error reads the same
    whichever operands met, so only the shapes tell Q @ K without its transpose from V @ weights and from Kᵀ @ Q
    (which, when T_q = T_k, makes (d_k, d_k) weights that fail at weights @ V). Any other pair: None; the
    generic hint for a product's sizes, "transpose K", would name a cause the code does not have."""
    if len(failed[1]) >= 3 and tuple(failed[1][:2]) == (d_k, t_k):
        return "hint_dot_T"   # K.T reverses every axis, the batch's too: (d_k, T_k, B)
    a, b = (tuple(shape[-2:]) for shape in failed)
    if a in ((d_k, t_k), (d_k, d_k)):
        return "hint_kq_order"
    if a[-1] == b[-1] == d_k:   # Q @ K, or K with other axes swapped: its last two axes must be
        return "hint_transpose_k"
    if a == (t_k, d_v) and b == (t_q, t_k):
        return "hint_weights_v_order"
    # Weights (T_k, T_q): scores made as K @ Qᵀ (exercise 1's mistake, met again at weights @ V).
    return "hint_kq_order" if t_q != t_k and a == (t_k, t_q) else None


def generic_product_error(kind: str, message: str, on_error=None) -> bool:
    """An error the generic rules would call "transpose K" (engine.error_hint, no `.T` in the code), which the
    exercise's on_error does not name: the grader's side of products_named."""
    return error_hint(kind, message, False) == "hint_transpose_k" and not (on_error and on_error(kind, message, ""))


@contextlib.contextmanager
def products_named(t_q: int, t_k: int, d_k: int, d_v: int):
    """The learner's code run inside: a failure given the generic "transpose K" (not `.T`'s hint, not one the
    exercise's on_error named) is named by the shapes of the matrix product that raised (product_hint)."""
    with MatmulWatch() as watch:
        try:
            yield
        except CheckFailed as failure:
            if watch.failed is None or failure.hints != [t("hint_transpose_k")]:
                raise
            key = product_hint(watch.failed, t_q, t_k, d_k, d_v)
            named = CheckFailed(failure.message, t(key) if key else None)
            named.raised = getattr(failure, "raised", None)
            raise named from None


def score_variants(Q, K) -> dict:
    """The right scores and the classic wrong ones, keyed by the hint that explains them."""
    d = Q.size(-1)
    raw = Q @ K.transpose(-2, -1)
    variants = {
        None: raw / math.sqrt(d),
        "hint_no_scale": raw,
        "hint_scale_dk": raw / d,
    }
    variants.update(scale_variants(raw, d, {*Q.shape[:-1], K.size(-2)}))
    return variants


def weight_variants(Q, K) -> dict:
    scores = score_variants(Q, K)
    variants = {key: torch.softmax(s, dim=-1) for key, s in scores.items()}
    variants["hint_softmax_axis"] = torch.softmax(scores[None], dim=-2)
    variants["hint_returns_scores"] = scores[None]
    return variants


def softmax_variants(scores) -> dict:
    """softmax_last written the classic wrong ways (make mutants found them), keyed by the hint."""
    def normalised(e):
        return e / e.sum(dim=-1, keepdim=True)
    variants = {("hint_softmax_shift_axis", axis): normalised(torch.exp(scores - scores.amax(dim=axis, keepdim=True)))
                for axis in (-2, 0)}
    variants["hint_softmax_negated"] = torch.softmax(-scores, dim=-1)
    variants["hint_softmax_no_exp"] = normalised(scores - scores.amax(dim=-1, keepdim=True))
    variants["hint_softmax_flat"] = torch.full_like(scores, 1 / scores.size(-1))   # exp(scores - scores)
    return variants


# W_o(t) on a t of the wrong width: F.linear's error names t's rows × width, then W_oᵀ's (d_k × E).
W_O_INPUT = re.compile(r"mat1 and mat2 shapes cannot be multiplied \((\d+)x(\d+) and (\d+)x(\d+)\)")


def module_error(kind: str, message: str, call: str = "") -> str | None:
    """An error of the module's forward (its layers' shapes are checked first, so only what reaches them can be
    wrong): Q and K of different widths, one of them x not projected; W_o given x's width E (V = x), or a width
    that is neither d_k nor E (the weights: attention's pair unpacked the other way round). The grader's judge
    names the error the probe recorded with the same function; any other error keeps the generic rules."""
    if kind == "InputError" and matches("qk_dim_mismatch", message):
        return "hint_qk_not_projected"
    sizes = W_O_INPUT.search(message) if kind == "RuntimeError" else None
    if sizes:
        width, d_k, embed = int(sizes[2]), int(sizes[3]), int(sizes[4])
        if width == embed != d_k:
            return "hint_v_not_projected"
        if width != d_k:
            return "hint_attention_pair_order"
    return None


def kv_swapped(Q, V, d: int):
    """The weights when K and V trade places (K = W_v(x), or attention(Q, V, K))."""
    return torch.softmax(Q @ V.transpose(-2, -1) / math.sqrt(d), dim=-1)


def right_scores(Q, K):
    return score_variants(Q, K)[None]


def right_attention(Q, K, V):
    weights = torch.softmax(right_scores(Q, K), dim=-1)
    return weights @ V, weights


def right_module(module, x):
    """The Attention module's (output, weights) from its own W_q, W_k, W_v, W_o."""
    out, weights = right_attention(module.W_q(x), module.W_k(x), module.W_v(x))
    return module.W_o(out), weights


def _probe():
    from ..probes import lesson1   # here: the probes' package imports the checks
    return lesson1


@reads_globals(LESSON)
def check_attention_scores(fn) -> None:
    name = "attention_scores"
    Q, K = inputs((B, T_Q, D_K), (B, T_K, D_K), seed=1)
    with products_named(T_Q, T_K, D_K, D_V):
        got = run(name, fn, Q, K)
    expect_shape(got, (B, T_Q, T_K), ("B", "T_q", "T_k"), name,
                 t("hint_kq_order") if isinstance(got, torch.Tensor) and tuple(got.shape) == (B, T_K, T_Q) else None)
    diagnose(got, score_variants(Q, K), "what_scores")
    # A single matrix (no batch axis) must work too: attention is defined for (..., T, d).
    got2 = run(name, fn, Q[0], K[0])
    expect_shape(got2, (T_Q, T_K), ("T_q", "T_k"), name, t("hint_dot_T"))
    diagnose(got2, score_variants(Q[0], K[0]), "what_scores")
    expect_cases(name, fn, right_scores, _probe().qk_inputs, 101, ["Q", "K"])
    passed(name)


@reads_globals(LESSON)
def check_softmax(fn) -> None:
    name = "softmax_last"
    (scores,) = inputs((B, T_Q, T_K), seed=2)
    got = run(name, fn, scores)
    expect_shape(got, (B, T_Q, T_K), ("B", "T_q", "T_k"), name)
    right = torch.softmax(scores, dim=-1)
    if not close(got, right, 1e-6):
        for axis in (-2, 0):
            if close(got, torch.softmax(scores, dim=axis), 1e-6):
                raise CheckFailed(t("values_differ", what=t("what_weights"), err=max_error(got, right)),
                                  t("hint_softmax_axis", axis=axis))
        diagnose(got, {None: right, **softmax_variants(scores)}, "what_weights", 1e-6)
    big = run(name, fn, scores * 1000.0)
    if not torch.isfinite(big).all():
        raise CheckFailed(t("has_nan", what="softmax_last(1000 · scores)"), t("hint_softmax_overflow"))
    diagnose(big, {None: torch.softmax(scores * 1000.0, dim=-1)}, "what_weights", 1e-6)
    expect_cases(name, fn, lambda s: torch.softmax(s, dim=-1), _probe().large_scores, 102, ["scores"])
    passed(name)


@reads_globals(LESSON)
def check_attention(fn) -> None:
    name = "attention"
    Q, K, V = inputs((B, T_Q, D_K), (B, T_K, D_K), (B, T_K, D_V), seed=3)
    with products_named(T_Q, T_K, D_K, D_V):
        result = run(name, fn, Q, K, V)
    out, weights = expect_returned_pair(result, name, (*Q.shape[:-1], V.size(-1)))
    expect_dtype(name, (out, weights), Q.dtype)   # before weights @ V, which would raise on another dtype
    expect_shape(weights, (B, T_Q, T_K), ("B", "T_q", "T_k"), t("what_weights"))
    diagnose(weights, weight_variants(Q, K), "what_weights")
    expect_shape(out, (B, T_Q, D_V), ("B", "T_q", "d_v"), t("what_output"), t("hint_weights_v_order"))
    diagnose(out, {None: weights @ V}, "what_output")
    expect_cases(name, fn, right_attention, _probe().one_batch_axis, 103, ["Q", "K", "V"])
    passed(name)


@reads_globals(LESSON)
@blames_earlier(attention=(4, lambda fn: check_attention(fn)))
def check_attention_module(cls) -> None:
    name = "Attention"
    T = T_K
    try:
        with products_named(T, T, D_K, D_K):
            module, x, y, weights = build_and_run(name, cls, (E, D_K), D_K, (B, T, E), seed=4, on_error=module_error)
    except InputError as error:   # raised by attention() inside forward: the error says what, the hint why
        if module_error("InputError", error.message):
            raise CheckFailed(error.message, t("hint_qk_not_projected")) from None
        raise
    # The input checks do not depend on the weights: a wrong result still hears about them.
    with also_checks(lambda: expect_input_errors(module, (B, T, E))), torch.no_grad():
        Q, K, V = module.W_q(x), module.W_k(x), module.W_v(x)
        expect_shape(weights, (B, T, T), ("B", "T", "T"), t("what_weights"))
        variants = weight_variants(Q, K)
        variants["hint_wrong_projection"] = torch.softmax(K @ Q.transpose(-2, -1) / math.sqrt(D_K), dim=-1)
        variants["hint_kv_swapped"] = kv_swapped(Q, V, D_K)
        diagnose(weights, variants, "what_weights")
        expect_shape(y, (B, T, E), ("B", "T", "E"), t("what_output"),
                     t("hint_w_o_missing") if isinstance(y, torch.Tensor) and y.shape[-1] == D_K else None)
        diagnose(y, {None: module.W_o(weights @ V), "hint_wrong_projection": module.W_o(weights @ K)}, "what_output")
    expect_input_errors(module, (B, T, E))
    probe = _probe()
    expect_module_cases(name, cls, probe.module_args, probe.module_input, right_module, 104, on_error=module_error)
    passed(name)


def check_variance_answers(var_raw, var_scaled, measured_raw: float, measured_scaled: float) -> None:
    """The learner's two variances for d_k = 512, against what their own table measured."""
    # The exercise asks for the theoretical values (d_k and 1), and the hidden test grades them within 10%:
    # a check that accepted anything near the table's measurement passed answers that then lost the points.
    for label, answer, measured, theory in (("answer_var_raw", var_raw, measured_raw, 512.0),
                                            ("answer_var_scaled", var_scaled, measured_scaled, 1.0)):
        value = expect_number(label, answer)
        if measured > 4 and abs(value - math.sqrt(measured)) < 0.25 * math.sqrt(measured):
            raise CheckFailed(t("answer_std_not_var", name=label, got=answer))
        if abs(value - theory) > 0.1 * theory:
            raise CheckFailed(t("answer_not_theory", name=label, got=answer, measured=measured), t("hint_var_theory"))
    passed("answer_var_raw, answer_var_scaled")


def check_param_answer(answer, cls) -> None:
    """Lesson 1: the parameter count of Attention(768, 64)."""
    check_count_answer("answer_n_params", answer, cls, (768, 64), check_attention_module)
