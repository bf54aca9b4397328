"""Checks that teach: input validation, visible tests with hints, hidden comparisons.

A visible check runs the learner's code on small inputs whose sizes all differ
(B != T_q != T_k != d_k != d_v != E), so a mixed-up axis shows as a wrong size
rather than passing by luck. When the result is wrong it is compared with the
results of the classic bugs, and the matching hint is shown in the learner's
language. Hidden checks compare with the reference in autograder/reference on
inputs drawn at grading time.
"""
from __future__ import annotations

import contextlib
import copy
import importlib.util
import inspect
import io
import math
import os
import re
import secrets
import sys
import warnings
from pathlib import Path

import torch
import torch.nn as nn
import torch.nn.functional as F

from .messages import t


# --------------------------------------------------------------------------- errors
class CourseError(Exception):
    """An error shown to the learner as one localized message, without a stack."""

    headline = "check_failed"

    def __init__(self, message: str, *hints: str):
        self.message = message
        self.hints = [h for h in hints if h]
        super().__init__("\n".join([message, *(f"{t('hint')}: {h}" for h in self.hints)]))

    def _render_traceback_(self):
        # IPython shows these lines instead of a traceback (see InteractiveShell.showtraceback).
        lines = [f"\x1b[1;31m✘ {t(self.headline)}\x1b[0m: {self.message}"]
        lines += [f"\x1b[1;33m{t('hint')}\x1b[0m: {h}" for h in self.hints]
        return lines


class CheckFailed(CourseError, AssertionError):
    pass


class InputError(CourseError, ValueError):
    headline = "bad_input"


# --------------------------------------------------------------------------- input validation
def expect_tensor(x, name: str) -> torch.Tensor:
    if not isinstance(x, torch.Tensor):
        raise InputError(t("not_tensor", name=name, kind=type(x).__name__))
    return x


def expect_rank(x, ndim: int, name: str, layout: str) -> torch.Tensor:
    expect_tensor(x, name)
    if x.dim() != ndim:
        raise InputError(t("wrong_rank", name=name, want=ndim, got=x.dim(), layout=layout, shape=tuple(x.shape)))
    return x


def expect_size(value, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise InputError(t("bad_size", name=name, value=value))
    return value


def expect_tokens(x, embed_dim: int) -> torch.Tensor:
    """x must be (B, T, E) with E == embed_dim."""
    expect_rank(x, 3, "x", "(B, T, E)")
    if x.size(-1) != embed_dim:
        raise InputError(t("embed_mismatch", want=embed_dim, got=x.size(-1), shape=tuple(x.shape)))
    return x


def expect_qkv(Q, K, V=None) -> None:
    """Q (..., T_q, d_k), K (..., T_k, d_k), V (..., T_k, d_v), with equal leading axes."""
    expect_tensor(Q, "Q")
    expect_tensor(K, "K")
    tensors = {"Q": Q, "K": K} if V is None else {"Q": Q, "K": K, "V": expect_tensor(V, "V")}
    for name, x in tensors.items():
        if x.dim() < 2:
            raise InputError(t("wrong_rank", name=name, want="2+", got=x.dim(), layout="(…, T, d)", shape=tuple(x.shape)))
    if Q.size(-1) != K.size(-1):
        raise InputError(t("qk_dim_mismatch", dq=Q.size(-1), dk=K.size(-1)))
    if V is not None and V.size(-2) != K.size(-2):
        raise InputError(t("kv_len_mismatch", tk=K.size(-2), tv=V.size(-2)))
    try:
        torch.broadcast_shapes(*(x.shape[:-2] for x in tensors.values()))
    except RuntimeError:
        shapes = ", ".join(f"{n} {tuple(x.shape)}" for n, x in tensors.items())
        raise InputError(t("batch_mismatch", shapes=shapes)) from None


# --------------------------------------------------------------------------- diagnosis helpers
def _uses_dot_T(fn) -> bool:
    # torch warns about .T on 3-D tensors only once per process, so read the source too.
    try:
        return re.search(r"\.T\b", inspect.getsource(fn)) is not None
    except (OSError, TypeError):
        return False


def _call(name: str, fn, *args, on_error: str | None = None, **kwargs):
    """Run the learner's code; turn its failure into a message with a hint.

    on_error: the hint for any exception, where the exercise knows better than the error text.
    A result holding a subclass of Tensor is refused: its __torch_function__ could make
    torch.equal or torch.allclose answer True for anything.
    """
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = fn(*args, **kwargs)
        except NotImplementedError as error:
            if str(error):  # torch's own, e.g. copying out of a meta tensor; the stub's is bare
                raise CheckFailed(t("raised", name=name, error=f"NotImplementedError: {error}"), on_error) from None
            raise CheckFailed(t("not_implemented", name=name)) from None
        except CourseError:
            raise
        except Exception as error:  # noqa: BLE001 - any failure becomes feedback
            text = f"{type(error).__name__}: {error}"
            hint = on_error
            if hint:
                pass
            elif any("x.T" in str(w.message) for w in caught) or _uses_dot_T(fn):
                hint = t("hint_dot_T")
            elif isinstance(error, RuntimeError) and "view size is not compatible" in str(error):
                hint = t("hint_contiguous")
            elif isinstance(error, RuntimeError) and "except in dimension" in str(error):
                hint = t("hint_cat_dim")
            elif isinstance(error, RuntimeError) and any(
                s in str(error) for s in ("must match", "cannot be multiplied", "Expected size", "mat1 and mat2")
            ):
                hint = t("hint_transpose_k")
            raise CheckFailed(t("raised", name=name, error=text), hint) from None
    if _has_tensor_subclass(result):
        raise CheckFailed(t("tensor_subclass", name=name))
    return result


def _has_tensor_subclass(x, depth: int = 0) -> bool:
    if type(x) in (tuple, list) and depth < 3:
        return any(_has_tensor_subclass(v, depth + 1) for v in x)
    return isinstance(x, torch.Tensor) and type(x) not in (torch.Tensor, nn.Parameter)


def _expect_shape(got, want: tuple, names: tuple, what: str, extra_hint: str | None = None):
    layout = "(" + ", ".join(names) + ")"
    if not isinstance(got, torch.Tensor):
        raise CheckFailed(t("returned_not_tensor", name=what, kind=type(got).__name__))
    if got.dim() != len(want):
        raise CheckFailed(t("wrong_ndim", what=what, want=len(want), layout=layout, got=got.dim(), shape=tuple(got.shape)), extra_hint)
    if tuple(got.shape) == tuple(want):
        return
    axis = next(i for i, (g, w) in enumerate(zip(got.shape, want)) if g != w)
    message = t("wrong_axis", what=what, want=tuple(want), layout=layout, got=tuple(got.shape),
                axis=axis, axis_name=names[axis], want_n=want[axis], got_n=got.shape[axis])
    hints = []
    for a in range(len(want)):
        for b in range(a + 1, len(want)):
            swapped = list(want)
            swapped[a], swapped[b] = swapped[b], swapped[a]
            if tuple(got.shape) == tuple(swapped):
                hints.append(t("swapped_axes", a=a, b=b, name_a=names[a], name_b=names[b]))
    raise CheckFailed(message, *hints, extra_hint)


def _close(a: torch.Tensor, b: torch.Tensor, tol: float = 1e-4) -> bool:
    return a.shape == b.shape and bool(torch.allclose(a.detach().double(), b.detach().double(), atol=tol, rtol=tol))


def _max_error(a: torch.Tensor, b: torch.Tensor) -> float:
    if a.shape != b.shape:
        return float("inf")
    return float((a.detach().double() - b.detach().double()).abs().max())


def _score_variants(Q, K) -> dict:
    """The right scores and the classic wrong ones, keyed by the hint that explains them."""
    d = Q.size(-1)
    raw = Q @ K.transpose(-2, -1)
    variants = {
        None: raw / math.sqrt(d),
        "hint_no_scale": raw,
        "hint_scale_dk": raw / d,
        "hint_scale_mul": raw * math.sqrt(d),
    }
    for n in sorted({Q.size(-2), K.size(-2)} - {d}):
        variants[("hint_scale_wrong_dim", n)] = raw / math.sqrt(n)
    return variants


def _weight_variants(Q, K) -> dict:
    scores = _score_variants(Q, K)
    variants = {key: torch.softmax(s, dim=-1) for key, s in scores.items()}
    variants["hint_softmax_axis"] = torch.softmax(scores[None], dim=-2)
    variants["hint_returns_scores"] = scores[None]
    return variants


def _diagnose(got: torch.Tensor, variants: dict, what: str, tol: float = 1e-4):
    """Raise a CheckFailed naming the bug whose result `got` equals, or a generic one.

    `what` is a message key: what_scores, what_weights or what_output.
    """
    is_weights = what == "what_weights"
    what = t(what)
    if not torch.isfinite(got).all():
        raise CheckFailed(t("has_nan", what=what))
    right = variants[None]
    if _close(got, right, tol):
        return
    for key, value in variants.items():
        if key is not None and _close(got, value, tol):
            key = key[0] if isinstance(key, tuple) else key  # (hint, detail) when one hint has several variants
            hint = t(key, axis=-2) if key == "hint_softmax_axis" else t(key)
            raise CheckFailed(t("values_differ", what=what, err=_max_error(got, right)), hint)
    sums = got.sum(dim=-1)
    hint = None
    if is_weights and not _close(sums, torch.ones_like(sums), 1e-3):
        hint = t("hint_rows_not_normalised", lo=float(sums.min()), hi=float(sums.max()))
    raise CheckFailed(t("values_differ", what=what, err=_max_error(got, right)), hint)


def _inputs(*shape_lists, seed: int = 0, dtype=torch.float64):
    g = torch.Generator().manual_seed(seed)
    return [torch.randn(*s, generator=g, dtype=dtype) for s in shape_lists]


# Visible-test sizes: every one different from every other.
B, T_Q, T_K, D_K, D_V, E = 2, 3, 5, 4, 6, 7


def _passed(name: str) -> None:
    print(t("passed", name=name))


# --------------------------------------------------------------------------- lesson 1: visible checks
def check_attention_scores(fn) -> None:
    name = "attention_scores"
    Q, K = _inputs((B, T_Q, D_K), (B, T_K, D_K), seed=1)
    got = _call(name, fn, Q, K)
    _expect_shape(got, (B, T_Q, T_K), ("B", "T_q", "T_k"), name,
                  t("hint_kq_order") if isinstance(got, torch.Tensor) and tuple(got.shape) == (B, T_K, T_Q) else None)
    _diagnose(got, _score_variants(Q, K), "what_scores")
    # A single matrix (no batch axis) must work too: attention is defined for (..., T, d).
    got2 = _call(name, fn, Q[0], K[0])
    _expect_shape(got2, (T_Q, T_K), ("T_q", "T_k"), name, t("hint_dot_T"))
    _diagnose(got2, _score_variants(Q[0], K[0]), "what_scores")
    _passed(name)


def check_softmax(fn) -> None:
    name = "softmax_last"
    (scores,) = _inputs((B, T_Q, T_K), seed=2)
    got = _call(name, fn, scores)
    _expect_shape(got, (B, T_Q, T_K), ("B", "T_q", "T_k"), name)
    right = torch.softmax(scores, dim=-1)
    if not _close(got, right, 1e-6):
        for axis in (-2, 0):
            if _close(got, torch.softmax(scores, dim=axis), 1e-6):
                raise CheckFailed(t("values_differ", what=t("what_weights"), err=_max_error(got, right)),
                                  t("hint_softmax_axis", axis=axis))
        _diagnose(got, {None: right}, "what_weights")
    big = _call(name, fn, scores * 1000.0)
    if not torch.isfinite(big).all():
        raise CheckFailed(t("has_nan", what="softmax_last(1000 · scores)"), t("hint_softmax_overflow"))
    _diagnose(big, {None: torch.softmax(scores * 1000.0, dim=-1)}, "what_weights", 1e-6)
    _passed(name)


def check_attention(fn) -> None:
    name = "attention"
    Q, K, V = _inputs((B, T_Q, D_K), (B, T_K, D_K), (B, T_K, D_V), seed=3)
    result = _call(name, fn, Q, K, V)
    if not (isinstance(result, tuple) and len(result) == 2):
        raise CheckFailed(t("returned_not_pair", name=name, kind=type(result).__name__))
    out, weights = result
    _expect_shape(weights, (B, T_Q, T_K), ("B", "T_q", "T_k"), t("what_weights"))
    _diagnose(weights, _weight_variants(Q, K), "what_weights")
    _expect_shape(out, (B, T_Q, D_V), ("B", "T_q", "d_v"), t("what_output"), t("hint_weights_v_order"))
    _diagnose(out, {None: weights @ V}, "what_output")
    _passed(name)


def _linear_problem(module, name: str, want_in: int, want_out: int, why: str, bias: bool = False):
    layer = getattr(module, name, None)
    if layer is None:
        return CheckFailed(t("hint_missing_layer", name=name), t("hint_w_o_missing") if name == "W_o" else None)
    if not isinstance(layer, nn.Linear):
        return CheckFailed(t("hint_not_linear", name=name, kind=type(layer).__name__))
    if (layer.in_features, layer.out_features) != (want_in, want_out):
        return CheckFailed(t("hint_layer_shape", name=name, want_in=want_in, want_out=want_out,
                             got_in=layer.in_features, got_out=layer.out_features, why=why))
    if bias and layer.bias is None:
        return CheckFailed(t("layer_missing_bias", name=name))
    if not bias and layer.bias is not None:
        return CheckFailed(t("hint_has_bias", name=name))
    return None


def _build_and_run(name: str, cls, args: tuple, inner: int, seed: int):
    """Build cls(*args) with W_q, W_k, W_v: E -> inner and W_o: inner -> E, all without bias,
    check its layers and parameter count, and run it once in float64 on (B, T_K, E)."""
    module = _call(name, cls, *args)
    for layer, (n_in, n_out, why) in {
        "W_q": (E, inner, "why_proj_in"), "W_k": (E, inner, "why_proj_in"),
        "W_v": (E, inner, "why_proj_in"), "W_o": (inner, E, "why_proj_out"),
    }.items():
        problem = _linear_problem(module, layer, n_in, n_out, t(why))
        if problem:
            raise problem
    n_params = sum(p.numel() for p in module.parameters())
    if n_params != 4 * E * inner:
        raise CheckFailed(t("hint_param_count", got=n_params, want=4 * E * inner))
    module = module.double()
    (x,) = _inputs((B, T_K, E), seed=seed)
    result = _call(f"{name}.forward", module, x)
    if not (isinstance(result, tuple) and len(result) == 2):
        raise CheckFailed(t("returned_not_pair", name=f"{name}.forward", kind=type(result).__name__))
    return (module, x, *result)


def _expect_input_errors(module) -> None:
    """A wrong rank or a wrong embed_dim must raise the course's ValueError, not a torch error."""
    for bad in (torch.randn(T_K, E, dtype=torch.float64), torch.randn(B, T_K, E + 1, dtype=torch.float64)):
        try:
            module(bad)
        except ValueError:
            continue
        except Exception:  # noqa: BLE001 - a torch error is not the clear message we ask for
            pass
        raise CheckFailed(t("hint_no_input_check", shape=tuple(bad.shape)))


def check_attention_module(cls) -> None:
    name = "Attention"
    T = T_K
    module, x, y, weights = _build_and_run(name, cls, (E, D_K), D_K, seed=4)
    with torch.no_grad():
        Q, K, V = module.W_q(x), module.W_k(x), module.W_v(x)
        _expect_shape(weights, (B, T, T), ("B", "T", "T"), t("what_weights"))
        variants = _weight_variants(Q, K)
        variants["hint_wrong_projection"] = torch.softmax(K @ Q.transpose(-2, -1) / math.sqrt(D_K), dim=-1)
        _diagnose(weights, variants, "what_weights")
        _expect_shape(y, (B, T, E), ("B", "T", "E"), t("what_output"),
                      t("hint_w_o_missing") if isinstance(y, torch.Tensor) and y.shape[-1] == D_K else None)
        _diagnose(y, {None: module.W_o(weights @ V), "hint_wrong_projection": module.W_o(weights @ K)}, "what_output")
    _expect_input_errors(module)
    _passed(name)


def _expect_number(name: str, value) -> float:
    if value is None or value is ...:
        raise CheckFailed(t("answer_missing", name=name))
    if isinstance(value, torch.Tensor) and value.numel() == 1:
        value = value.item()
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise CheckFailed(t("answer_not_number", name=name, kind=type(value).__name__))
    if not math.isfinite(value):
        raise CheckFailed(t("answer_not_number", name=name, kind=repr(value)))
    return float(value)


def check_variance_answers(var_raw, var_scaled, measured_raw: float, measured_scaled: float) -> None:
    """The learner's two variances for d_k = 512, against what their own table measured."""
    for label, answer, measured in (("answer_var_raw", var_raw, measured_raw),
                                    ("answer_var_scaled", var_scaled, measured_scaled)):
        value = _expect_number(label, answer)
        if measured > 4 and abs(value - math.sqrt(measured)) < 0.25 * math.sqrt(measured):
            raise CheckFailed(t("answer_std_not_var", name=label, got=answer))
        if not (0.5 * measured <= value <= 2.0 * measured):
            raise CheckFailed(t("answer_far_from_measured", name=label, got=answer, measured=measured))
    _passed("answer_var_raw, answer_var_scaled")


def _check_count_answer(name: str, answer, cls, args: tuple, module_check) -> None:
    value = _expect_number(name, answer)
    if value != int(value):
        raise CheckFailed(t("answer_not_integer", name=name, got=answer))
    # Cross-check with the learner's own module, but only once that module is right:
    # a broken module must not cost the point of a right answer.
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            module_check(cls)
        counted = sum(p.numel() for p in cls(*args).parameters())
    except Exception:  # noqa: BLE001
        counted = None
    if counted is not None and counted != int(value):
        raise CheckFailed(t("answer_disagrees_with_module", name=name, got=answer,
                            module=f"{cls.__name__}{tuple(args)}", counted=counted))
    _passed(name)


def check_param_answer(answer, cls) -> None:
    """Lesson 1: the parameter count of Attention(768, 64)."""
    _check_count_answer("answer_n_params", answer, cls, (768, 64), check_attention_module)


# --------------------------------------------------------------------------- lesson 2: several heads
# H * D = 12 differs from E = 7, so a forgotten W_o or a head_dim taken from E shows.
H_2, D_2 = 3, 4


def resolve_head_dim(embed_dim: int, n_head: int, head_dim: int | None = None) -> int:
    """head_dim as given, or embed_dim // n_head, with a clear error when that does not divide."""
    expect_size(embed_dim, "embed_dim")
    expect_size(n_head, "n_head")
    if head_dim is None:
        if embed_dim % n_head:
            raise InputError(t("hint_head_dim_divides", e=embed_dim, h=n_head))
        return embed_dim // n_head
    return expect_size(head_dim, "head_dim")


def expect_torch_compatible(mha) -> None:
    """nn.MultiheadAttention fixes head_dim to embed_dim // num_heads."""
    if mha.n_head * mha.head_dim != mha.embed_dim:
        raise InputError(t("torch_mha_incompatible", h=mha.n_head, d=mha.head_dim, e=mha.embed_dim))


class _Heads(nn.Module):
    """Bare multi-head weights, so a check of one exercise does not depend on another."""

    def __init__(self, embed_dim: int, n_head: int, head_dim: int, seed: int):
        super().__init__()
        self.embed_dim, self.n_head, self.head_dim = embed_dim, n_head, head_dim
        g = torch.Generator().manual_seed(seed)
        inner = n_head * head_dim
        for name, (n_out, n_in) in {"W_q": (inner, embed_dim), "W_k": (inner, embed_dim),
                                    "W_v": (inner, embed_dim), "W_o": (embed_dim, inner)}.items():
            layer = nn.Linear(n_in, n_out, bias=False).double()
            with torch.no_grad():
                layer.weight.copy_(torch.randn(n_out, n_in, generator=g, dtype=torch.float64) / n_in ** 0.5)
            setattr(self, name, layer)

    def forward(self, x):
        Q, K, V = (_split(f(x), self.n_head) for f in (self.W_q, self.W_k, self.W_v))
        weights = torch.softmax(Q @ K.transpose(-2, -1) / math.sqrt(self.head_dim), dim=-1)
        return self.W_o(_merge(weights @ V)), weights


def _split(x, H):
    B, T, HD = x.shape
    return x.view(B, T, H, HD // H).transpose(1, 2)


def _merge(x):
    B, H, T, D = x.shape
    return x.transpose(1, 2).reshape(B, T, H * D)


def _split_variants(x, H) -> dict:
    B, T, HD = x.shape
    D = HD // H
    right = _split(x, H)
    return {None: right, "hint_view_without_transpose": x.reshape(B, H, T, D),
            "hint_interleaved": x.reshape(B, T, D, H).permute(0, 3, 1, 2), "hint_heads_order": right.flip(1)}


def _merge_variants(x) -> dict:
    B, H, T, D = x.shape
    return {None: _merge(x), "hint_merge_without_transpose": x.reshape(B, T, H * D),
            "hint_interleaved": x.permute(0, 2, 3, 1).reshape(B, T, H * D), "hint_heads_order": _merge(x.flip(1))}


def check_split_heads(fn) -> None:
    name = "split_heads"
    (x,) = _inputs((B, T_K, H_2 * D_2), seed=5)
    got = _call(name, fn, x, H_2)
    missing = isinstance(got, torch.Tensor) and tuple(got.shape) == (B, T_K, H_2, D_2)
    _expect_shape(got, (B, H_2, T_K, D_2), ("B", "H", "T", "D"), name,
                  t("hint_missing_transpose") if missing else None)
    _diagnose(got, _split_variants(x, H_2), "what_output", 1e-12)
    _passed(name)


def check_merge_heads(fn) -> None:
    name = "merge_heads"
    (x,) = _inputs((B, H_2, T_K, D_2), seed=6)  # contiguous, as weights @ V is
    got = _call(name, fn, x)
    _expect_shape(got, (B, T_K, H_2 * D_2), ("B", "T", "H·D"), name)
    _diagnose(got, _merge_variants(x), "what_output", 1e-12)
    (y,) = _inputs((B, T_K, H_2 * D_2), seed=7)
    back = _call(name, fn, _split(y, H_2))
    _diagnose(back, {None: y}, "what_output", 1e-12)
    _passed(name)


def check_mha_module(cls) -> None:
    name = "MultiHeadAttention"
    T, inner = T_K, H_2 * D_2
    module, x, y, weights = _build_and_run(name, cls, (E, H_2, D_2), inner, seed=8)
    with torch.no_grad():
        wide = isinstance(weights, torch.Tensor) and tuple(weights.shape) == (B, T, T)
        _expect_shape(weights, (B, H_2, T, T), ("B", "H", "T", "T"), t("what_weights"),
                      t("hint_not_split") if wide else None)
        q, k, v = module.W_q(x), module.W_k(x), module.W_v(x)
        variants = {}
        for split_key, split in (("", lambda z: _split(z, H_2)),
                                 ("hint_view_without_transpose", lambda z: z.reshape(B, H_2, T, D_2)),
                                 ("hint_interleaved", lambda z: z.reshape(B, T, D_2, H_2).permute(0, 3, 1, 2))):
            Q, K = split(q), split(k)
            raw = Q @ K.transpose(-2, -1)
            if not split_key:
                variants[None] = torch.softmax(raw / math.sqrt(D_2), -1)
                variants["hint_no_scale"] = torch.softmax(raw, -1)
                variants["hint_scale_dk"] = torch.softmax(raw / D_2, -1)
                variants[("hint_scale_head_dim", "HD")] = torch.softmax(raw / math.sqrt(inner), -1)
                variants[("hint_scale_head_dim", "E")] = torch.softmax(raw / math.sqrt(E), -1)
                variants["hint_softmax_axis"] = torch.softmax(raw / math.sqrt(D_2), -2)
            else:
                variants[split_key] = torch.softmax(raw / math.sqrt(D_2), -1)
        _diagnose(weights, variants, "what_weights")
        _expect_shape(y, (B, T, E), ("B", "T", "E"), t("what_output"),
                      t("hint_w_o_missing") if isinstance(y, torch.Tensor) and y.shape[-1] == inner else None)
        heads = weights @ _split(v, H_2)
        _diagnose(y, {key: module.W_o(value) for key, value in _merge_variants(heads).items()}, "what_output")
    default = _call(name, cls, 12, 3)
    if getattr(default, "head_dim", None) != 4:
        raise CheckFailed(t("hint_head_dim_default", e=12, h=3, want=4, got=getattr(default, "head_dim", None)))
    try:
        cls(10, 3)
    except ValueError:
        pass
    else:
        raise CheckFailed(t("hint_no_divisibility_error", e=10, h=3))
    _expect_input_errors(module)
    _passed(name)


def check_head_as_single(fn, attention_cls) -> None:
    name = "head_as_single"
    heads = _Heads(E, H_2, D_2, seed=9)
    (x,) = _inputs((B, T_K, E), seed=10)
    with torch.no_grad():
        want, _ = heads(x)
        total = torch.zeros_like(want)
        for i in range(H_2):
            single = _call(name, fn, heads, i, on_error=t("hint_head_slice"))
            if not isinstance(single, attention_cls):
                raise CheckFailed(t("hint_head_returns_attention"))
            single = single.double()
            rows = slice(i * D_2, (i + 1) * D_2)
            if (single.W_q.weight.shape != (D_2, E) or not torch.equal(single.W_q.weight, heads.W_q.weight[rows])
                    or single.W_o.weight.shape != (E, D_2) or not torch.equal(single.W_o.weight, heads.W_o.weight[:, rows])):
                interleaved = heads.W_q.weight[i::H_2]
                hint = t("hint_interleaved") if (single.W_q.weight.shape == interleaved.shape and
                                                torch.equal(single.W_q.weight, interleaved)) else t("hint_head_slice")
                raise CheckFailed(t("values_differ", what=f"head_as_single(mha, {i}).W_q / W_o",
                                    err=float("nan")), hint)
            total = total + _call(name, single, x)[0]
    if not _close(total, want, 1e-10):
        raise CheckFailed(t("hint_sum_of_heads", err=_max_error(total, want)), t("hint_head_slice"))
    _passed(name)


def check_to_torch_mha(fn) -> None:
    name = "to_torch_mha"
    heads = _Heads(H_2 * D_2, H_2, D_2, seed=11)
    theirs = _call(name, fn, heads)
    if not isinstance(theirs, nn.MultiheadAttention):
        raise CheckFailed(t("hint_returns_torch_mha", kind=type(theirs).__name__))
    for what, ok in (("batch_first", theirs.batch_first), ("bias", theirs.in_proj_bias is None),
                     ("embed_dim", theirs.embed_dim == heads.embed_dim), ("num_heads", theirs.num_heads == H_2)):
        if not ok:
            raise CheckFailed(t("hint_torch_mha_setup", what=what))
    theirs = theirs.double()
    w = [heads.W_q.weight, heads.W_k.weight, heads.W_v.weight]
    got = theirs.in_proj_weight.detach()
    # 1e-6: a float32 copy of float64 weights is right, just rounded.
    if not _close(got, torch.cat(w), 1e-6):
        if _close(got, torch.cat([m.T for m in w]), 1e-6):
            raise CheckFailed(t("values_differ", what="in_proj_weight", err=_max_error(got, torch.cat(w))),
                              t("hint_in_proj_transposed"))
        raise CheckFailed(t("values_differ", what="in_proj_weight", err=_max_error(got, torch.cat(w))),
                          t("hint_in_proj_order"))
    if not _close(theirs.out_proj.weight.detach(), heads.W_o.weight, 1e-6):
        raise CheckFailed(t("values_differ", what="out_proj.weight",
                            err=_max_error(theirs.out_proj.weight.detach(), heads.W_o.weight)), t("hint_out_proj"))
    (x,) = _inputs((B, T_K, H_2 * D_2), seed=12)
    with torch.no_grad():
        y, weights = theirs(x, x, x, need_weights=True, average_attn_weights=False)
        want_y, want_w = heads(x)
    _diagnose(weights, {None: want_w}, "what_weights", 1e-6)
    _diagnose(y, {None: want_y}, "what_output", 1e-6)
    _passed(name)


def check_mha_param_answer(answer, cls) -> None:
    """Lesson 2: the parameter count of MultiHeadAttention(768, 12, 64)."""
    _check_count_answer("answer_n_params", answer, cls, (768, 12, 64), check_mha_module)


# --------------------------------------------------------------------------- lesson 3: masks and dropout
def _tril(T: int) -> torch.Tensor:
    return torch.ones(T, T, dtype=torch.bool).tril()


def check_causal_mask(fn) -> None:
    name = "causal_mask"
    got = _call(name, fn, T_K)
    _expect_shape(got, (T_K, T_K), ("T", "T"), name)
    if got.dtype != torch.bool:
        raise CheckFailed(t("hint_mask_not_bool", dtype=got.dtype))
    want = _tril(T_K)
    if not torch.equal(got, want):
        hint = (t("hint_upper_triangle") if torch.equal(got, want.T)
                else t("hint_inverted_mask") if torch.equal(got, ~want) else None)
        raise CheckFailed(t("values_differ", what=name, err=float((got != want).sum())), hint)
    # The meta device stands in for a GPU: a mask made without device= stays on the CPU.
    meta = _call(name, fn, T_K, torch.device("meta"), on_error=t("hint_mask_device"))
    if not isinstance(meta, torch.Tensor) or meta.device.type != "meta":
        raise CheckFailed(t("hint_mask_device"))
    _passed(name)


def check_apply_mask(fn) -> None:
    name = "apply_mask"
    (scores,) = _inputs((B, H_2, T_K, T_K), seed=13)
    keep = _tril(T_K)
    got = _call(name, fn, scores, keep)
    _expect_shape(got, tuple(scores.shape), ("B", "H", "T", "T"), name)
    want = scores.masked_fill(~keep, float("-inf"))
    if not torch.equal(got, want):
        if torch.equal(got, scores.masked_fill(keep, float("-inf"))):
            hint = t("hint_inverted_mask")
        elif torch.equal(got, scores * keep):
            hint = t("hint_mask_multiplied")
        elif torch.equal(got, scores.masked_fill(~keep.T, float("-inf"))):
            hint = t("hint_upper_triangle")
        else:
            hint = None
        raise CheckFailed(t("values_differ", what=name, err=float("nan")), hint)
    _passed(name)


def check_padding_keep(fn) -> None:
    name = "padding_keep"
    lengths = torch.tensor([5, 2, 0])
    got = _call(name, fn, lengths, 6)
    _expect_shape(got, (3, 6), ("B", "T"), name)
    if got.dtype != torch.bool:
        raise CheckFailed(t("hint_mask_not_bool", dtype=got.dtype))
    want = torch.arange(6) < lengths[:, None]
    if not torch.equal(got, want):
        hint = (t("hint_padding_off_by_one") if torch.equal(got, torch.arange(6) <= lengths[:, None])
                else t("hint_padding_inverted") if torch.equal(got, ~want) else None)
        raise CheckFailed(t("values_differ", what=name, err=float((got != want).sum())), hint)
    meta = _call(name, fn, lengths.to("meta"), 6, on_error=t("hint_mask_device"))
    if meta.device.type != "meta":
        raise CheckFailed(t("hint_mask_device"))
    _passed(name)


def check_mha_mask_to_sdpa(fn) -> None:
    name = "mha_mask_to_sdpa"
    hidden = ~_tril(T_K)  # nn.MultiheadAttention: True = do not attend
    got = _call(name, fn, hidden)
    _expect_shape(got, (T_K, T_K), ("T", "T"), name)
    if got.dtype != torch.bool:
        raise CheckFailed(t("hint_mask_not_bool", dtype=got.dtype))
    if not torch.equal(got, ~hidden):
        raise CheckFailed(t("values_differ", what=name, err=float("nan")),
                          t("hint_same_convention") if torch.equal(got, hidden) else None)
    additive = torch.zeros(T_K, T_K, dtype=torch.float64).masked_fill(hidden, float("-inf"))
    got = _call(name, fn, additive)
    if not (isinstance(got, torch.Tensor) and got.dtype == additive.dtype and torch.equal(got, additive)):
        raise CheckFailed(t("values_differ", what=name, err=float("nan")), t("hint_additive_changed"))
    _passed(name)


def check_safe_softmax(fn) -> None:
    name = "safe_softmax"
    (scores,) = _inputs((B, T_Q, T_K), seed=14)
    scores = scores.masked_fill(~torch.ones(T_Q, T_K, dtype=torch.bool).tril(), float("-inf"))
    scores[1, 0] = float("-inf")  # a row with every key masked
    got = _call(name, fn, scores)
    _expect_shape(got, tuple(scores.shape), ("B", "T_q", "T_k"), name)
    if torch.isnan(got).any():
        raise CheckFailed(t("has_nan", what=name), t("hint_nan_fully_masked"))
    want = torch.softmax(scores, -1).nan_to_num(0.0)
    _diagnose(got, {None: want}, "what_weights", 1e-9)
    _passed(name)


def _causal_reference(module, x, lengths=None):
    """What module should compute, from its own weights (eval mode, no dropout)."""
    Bx, T, _ = x.shape
    H, D = module.n_head, module.head_dim
    Q, K, V = (_split(f(x), H) for f in (module.W_q, module.W_k, module.W_v))
    keep = _tril(T)
    if lengths is not None:
        keep = keep & (torch.arange(T) < lengths[:, None])[:, None, None, :]
    raw = Q @ K.transpose(-2, -1) / math.sqrt(D)
    weights = torch.softmax(raw.masked_fill(~keep, float("-inf")), -1).nan_to_num(0.0)
    variants = {
        None: weights,
        "hint_mask_after_softmax": torch.softmax(raw, -1).masked_fill(~keep, 0.0),
        "hint_inverted_mask": torch.softmax(raw.masked_fill(keep, float("-inf")), -1).nan_to_num(0.0),
        "hint_upper_triangle": torch.softmax(raw.masked_fill(~keep.transpose(-2, -1), float("-inf")), -1)
        .nan_to_num(0.0),
        "hint_mask_multiplied": torch.softmax(raw * keep, -1),
    }
    if lengths is not None:
        variants["hint_padding_ignored"] = torch.softmax(raw.masked_fill(~_tril(T), float("-inf")), -1)
    else:
        variants["hint_no_mask"] = torch.softmax(raw, -1)
    return variants, module.W_o(_merge(weights @ V))


def check_causal_module(cls) -> None:
    name = "CausalSelfAttention"
    T = T_K
    module = _call(name, cls, E, H_2, D_2, 0.0, 16)
    buffers = dict(module.named_buffers())
    if "causal" not in buffers:
        raise CheckFailed(t("hint_buffer_missing"))
    module = module.double().eval()
    (x,) = _inputs((B + 1, T, E), seed=15)
    lengths = torch.tensor([T, 3, 0])  # the last sequence is all padding: every key is masked
    with torch.no_grad():
        for lens in (None, lengths):
            result = _call(f"{name}.forward", module, x, lens)
            if not (isinstance(result, tuple) and len(result) == 2):
                raise CheckFailed(t("returned_not_pair", name=f"{name}.forward", kind=type(result).__name__))
            y, weights = result
            _expect_shape(weights, (B + 1, H_2, T, T), ("B", "H", "T", "T"), t("what_weights"))
            if torch.isnan(weights).any() or torch.isnan(y).any():
                raise CheckFailed(t("has_nan", what=f"{name}.forward"), t("hint_nan_fully_masked"))
            variants, want_y = _causal_reference(module, x, lens)
            _diagnose(weights, variants, "what_weights")
            _expect_shape(y, (B + 1, T, E), ("B", "T", "E"), t("what_output"))
            _diagnose(y, {None: want_y}, "what_output")
            y_sdpa = _call(f"{name}.forward(use_sdpa=True)", module, x, lens, True)[0]
            if not _close(y_sdpa, want_y, 1e-6):
                raise CheckFailed(t("values_differ", what="use_sdpa=True", err=_max_error(y_sdpa, want_y)),
                                  t("hint_sdpa_mismatch"))
    noisy = _call(name, cls, E, H_2, D_2, 0.5, 16).double()
    noisy.load_state_dict(module.state_dict(), strict=False)
    with torch.no_grad():
        noisy.eval()
        a, b = noisy(x, lengths)[0], noisy(x, lengths)[0]
        if not (_close(a, b, 0.0) and _close(a, _causal_reference(module, x, lengths)[1], 1e-9)):
            raise CheckFailed(t("hint_dropout_eval"))
        noisy.train()
        torch.manual_seed(0)
        y_train, w_train = noisy(x)
        if _close(y_train, _causal_reference(module, x)[1], 1e-9):
            raise CheckFailed(t("hint_dropout_train"))
        sums = w_train.sum(-1)
        if not _close(sums, torch.ones_like(sums), 1e-6):
            raise CheckFailed(t("hint_weights_after_dropout"))
    try:
        meta = module.to("meta")
        meta(x.to("meta"))
    except RuntimeError as error:
        if "device" in str(error):
            raise CheckFailed(t("raised", name=f"{name}.forward", error=error), t("hint_mask_device")) from None
        raise
    _passed(name)


# --------------------------------------------------------------------------- lesson 4: GPT-2's fused QKV
def _qkv_variants(qkv, H) -> dict:
    Bq, T, three_e = qkv.shape
    E = three_e // 3
    D = E // H
    right = tuple(_split(z, H) for z in qkv.split(E, dim=-1))
    chunked = qkv.view(Bq, T, H, 3 * D).chunk(3, dim=-1)
    return {None: right, "hint_interleaved_qkv": tuple(z.transpose(1, 2) for z in chunked),
            ("hint_qkv_order", "kqv"): (right[1], right[0], right[2]),
            ("hint_qkv_order", "vkq"): (right[2], right[1], right[0]),
            ("hint_qkv_order", "qvk"): (right[0], right[2], right[1])}


def check_split_qkv(fn) -> None:
    name = "split_qkv"
    E4 = H_2 * D_2
    (qkv,) = _inputs((B, T_K, 3 * E4), seed=16)
    got = _call(name, fn, qkv, H_2)
    if not (isinstance(got, tuple) and len(got) == 3):
        raise CheckFailed(t("hint_returns_triple", name=name, kind=type(got).__name__))
    for part in got:
        missing = isinstance(part, torch.Tensor) and tuple(part.shape) == (B, T_K, H_2, D_2)
        _expect_shape(part, (B, H_2, T_K, D_2), ("B", "H", "T", "D"), name,
                      t("hint_missing_transpose") if missing else None)
    variants = _qkv_variants(qkv, H_2)
    for key, value in variants.items():
        if all(torch.equal(a, b) for a, b in zip(got, value)):
            if key is None:
                _passed(name)
                return
            key = key[0] if isinstance(key, tuple) else key
            raise CheckFailed(t("values_differ", what=name, err=float("nan")), t(key))
    raise CheckFailed(t("values_differ", what=name, err=float("nan")))


def _gpt2_expected(module, x, masked=True):
    Bx, T, E4 = x.shape
    qkv = module.c_attn(x)
    variants = {}
    for key, (q, k, v) in _qkv_variants(qkv, module.n_head).items():
        raw = q @ k.transpose(-2, -1) / math.sqrt(E4 // module.n_head)
        keep = _tril(T)
        w = torch.softmax(raw.masked_fill(~keep, float("-inf")), -1)
        variants[key] = module.c_proj(_merge(w @ v))
        if key is None:
            variants["hint_missing_mask"] = module.c_proj(_merge(torch.softmax(raw, -1) @ v))
    return variants


def check_gpt2_module(cls) -> None:
    name = "GPT2SelfAttention"
    E4 = H_2 * D_2
    module = _call(name, cls, E4, H_2)
    for layer, (n_in, n_out) in {"c_attn": (E4, 3 * E4), "c_proj": (E4, E4)}.items():
        problem = _linear_problem(module, layer, n_in, n_out, "", bias=True)
        if problem:
            raise problem
    if "causal" not in dict(module.named_buffers()):
        raise CheckFailed(t("hint_buffer_missing"))
    module = module.double().eval()
    (x,) = _inputs((B, T_K, E4), seed=17)
    with torch.no_grad():
        result = _call(f"{name}.forward", module, x)
        if not (isinstance(result, tuple) and len(result) == 2):
            raise CheckFailed(t("returned_not_pair", name=f"{name}.forward", kind=type(result).__name__))
        y = result[0]
        _expect_shape(y, (B, T_K, E4), ("B", "T", "E"), t("what_output"))
        variants = _gpt2_expected(module, x)
        _diagnose(y, variants, "what_output")
        y_sdpa = _call(f"{name}.forward(use_sdpa=True)", module, x, True)[0]
        if not _close(y_sdpa, variants[None], 1e-6):
            raise CheckFailed(t("values_differ", what="use_sdpa=True", err=_max_error(y_sdpa, variants[None])))
    _passed(name)


def check_gpt2_init(fn, cls) -> None:
    name = "gpt2_init"
    torch.manual_seed(0)
    module = _call(name, fn, cls(768, 12), 12)
    for layer, want in (("c_attn", 0.02), ("c_proj", 0.02 / math.sqrt(2 * 12))):
        weight = getattr(module, layer).weight.detach()
        if abs(float(weight.std()) - want) > 0.1 * want or abs(float(weight.mean())) > 0.1 * want:
            raise CheckFailed(t("hint_init_std", name=f"{layer}.weight", got=float(weight.std()), want=want))
        bias = getattr(module, layer).bias
        if bias is not None and float(bias.detach().abs().max()) != 0.0:
            raise CheckFailed(t("hint_init_bias", name=f"{layer}.bias"))
    _passed(name)


def _hf_pair_problem(mine, hf) -> str | None:
    """Which of the classic loading bugs makes mine differ from hf, if any."""
    if not torch.equal(mine.c_attn.weight.detach(), hf.c_attn.weight.detach().T) or \
            not torch.equal(mine.c_proj.weight.detach(), hf.c_proj.weight.detach().T):
        return t("hint_conv1d_transpose")
    if not torch.equal(mine.c_attn.bias.detach(), hf.c_attn.bias.detach()) or \
            not torch.equal(mine.c_proj.bias.detach(), hf.c_proj.bias.detach()):
        return t("hint_missing_bias")
    return None


def check_load_from_hf(fn, cls) -> None:
    from .hf import hf_attention, hf_forward

    name = "load_from_hf"
    E4 = H_2 * D_2
    hf = hf_attention(E4, H_2, seed=18)
    mine = _call(name, fn, cls(E4, H_2), hf, on_error=t("hint_conv1d_transpose"))
    problem = _hf_pair_problem(mine, hf)
    (x,) = _inputs((B, T_K, E4), seed=19, dtype=torch.float32)
    with torch.no_grad():
        y, want = mine.eval()(x)[0], hf_forward(hf, x)
    if problem or not _close(y, want, 1e-5):
        raise CheckFailed(t("values_differ", what=name, err=_max_error(y, want)), problem)
    _passed(name)


def check_export_to_hf(fn, cls) -> None:
    from .hf import hf_attention, hf_forward

    name = "export_to_hf"
    E4 = H_2 * D_2
    source = hf_attention(E4, H_2, seed=20)
    mine = cls(E4, H_2)
    with torch.no_grad():
        mine.c_attn.weight.copy_(source.c_attn.weight.T)
        mine.c_attn.bias.copy_(source.c_attn.bias)
        mine.c_proj.weight.copy_(source.c_proj.weight.T)
        mine.c_proj.bias.copy_(source.c_proj.bias)
    hf = _call(name, fn, mine, hf_attention(E4, H_2, seed=21), on_error=t("hint_conv1d_transpose"))
    problem = _hf_pair_problem(mine, hf)
    (x,) = _inputs((B, T_K, E4), seed=22, dtype=torch.float32)
    with torch.no_grad():
        y, got = mine.eval()(x)[0], hf_forward(hf, x)
    if problem or not _close(y, got, 1e-5):
        raise CheckFailed(t("values_differ", what=name, err=_max_error(y, got)), problem)
    _passed(name)


def check_gpt2_param_answer(answer, cls) -> None:
    """Lesson 4: the parameter count of GPT-2 small's attention, GPT2SelfAttention(768, 12)."""
    _check_count_answer("answer_n_params", answer, cls, (768, 12), check_gpt2_module)


# --------------------------------------------------------------------------- lesson 5: visible checks
# Sizes all different: vocabulary, sequence length, embedding, heads, layers, batch.
V_5, T_5, E_5, H_5, L_5, B_5 = 7, 5, 12, 3, 2, 4


def toy_batch(batch_size: int, T: int, vocab: int, generator=None):
    """The lesson-5 task: y[:, t] = (first token, previous token); position 0 has no answer (-100)."""
    x = torch.randint(0, vocab, (batch_size, T), generator=generator)
    y = torch.stack([x[:, :1].expand(batch_size, T), x.roll(1, dims=1)], dim=-1).clone()
    y[:, 0] = -100
    return x, y


def toy_loss(logits: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    return F.cross_entropy(logits.reshape(-1, logits.size(-1)), y.reshape(-1), ignore_index=-100)


def _toy_model(cls, seed: int, **sizes):
    torch.manual_seed(seed)
    args = dict(vocab=V_5, max_len=T_5, embed_dim=E_5, n_head=H_5, n_layer=L_5) | sizes
    return _call("TinyDecoder", cls, **args).double()


def _reference_step(model, optimizer, x, y) -> float:
    loss = toy_loss(model(x)[0], y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    return loss.item()


def _as_loss(name: str, value) -> float:
    if isinstance(value, torch.Tensor) and value.numel() == 1:
        value = value.item()
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise CheckFailed(t("returned_not_number", name=name, kind=type(value).__name__), t("hint_loss_item"))
    return float(value)


def _same_params(a, b, tol: float = 1e-9) -> bool:
    return all(torch.allclose(p, q, atol=tol, rtol=tol) for p, q in zip(a.parameters(), b.parameters()))


def check_train_step(fn, cls) -> None:
    name = "train_step"
    mine, ref = _toy_model(cls, 30), _toy_model(cls, 30)
    start = copy.deepcopy(mine)
    opt_mine = torch.optim.SGD(mine.parameters(), lr=0.5)
    opt_ref = torch.optim.SGD(ref.parameters(), lr=0.5)
    x, y = toy_batch(B_5, T_5, V_5, torch.Generator().manual_seed(31))
    for step in range(3):
        got = _as_loss(name, _call(name, fn, mine, opt_mine, x, y))
        with torch.no_grad():
            logits = ref(x)[0]
        want = _reference_step(ref, opt_ref, x, y)
        if abs(got - want) > 1e-6:
            hint = None
            if abs(got - float(toy_loss(torch.softmax(logits, -1), y))) < 1e-6:
                hint = t("hint_loss_softmax_twice")
            elif step == 0:
                hint = t("hint_loss_layout")
            else:
                hint = t("hint_zero_grad")
            raise CheckFailed(t("train_loss_differs", step=step + 1, got=got, want=want), hint)
        if _same_params(mine, start, 0.0):
            raise CheckFailed(t("train_no_update"), t("hint_train_order"))
        if not _same_params(mine, ref):
            raise CheckFailed(t("train_params_differ", step=step + 1),
                              t("hint_zero_grad") if step else t("hint_train_order"))
    _passed(name)


def head_entropy_variants(w: torch.Tensor) -> dict:
    plogp = torch.special.xlogy(w, w)
    right = -plogp.sum(-1).mean(dim=(0, 2))
    return {
        None: right,
        "hint_entropy_log2": right / math.log(2),
        "hint_entropy_sign": -right,
    }


def _causal_weights(g, b, h, t_, dtype=torch.float64):
    scores = torch.randn(b, h, t_, t_, generator=g, dtype=dtype) * 2
    return torch.softmax(scores.masked_fill(~_tril(t_), float("-inf")), dim=-1)


def check_head_entropy(fn) -> None:
    name = "head_entropy"
    w = _causal_weights(torch.Generator().manual_seed(32), B_5, H_5 + 1, T_5)
    got = _call(name, fn, w)
    _expect_shape(got, (H_5 + 1,), ("H",), name, t("hint_entropy_mean_axes"))
    if not torch.isfinite(got).all():
        raise CheckFailed(t("has_nan", what=name), t("hint_entropy_nan"))
    _diagnose(got, head_entropy_variants(w), "what_entropy")
    _passed(name)


def ablation_variants(model, x, y, layer: int, head: int) -> dict:
    """The loss with one head zeroed, and the classic wrong ways of zeroing it."""
    attn = model.blocks[layer].attn
    D = attn.c_proj.in_features // attn.n_head

    def run(hook, where):
        handle = getattr(attn.c_proj, where)(hook)
        try:
            with torch.no_grad():
                return float(toy_loss(model(x)[0], y))
        finally:
            handle.remove()

    def cut(lo, hi):
        def zero(tensor):
            tensor = tensor.clone()
            tensor[..., lo:hi] = 0
            return tensor
        return zero

    right, by_index = cut(head * D, (head + 1) * D), cut(head, head + 1)
    return {
        None: run(lambda m, inputs: (right(inputs[0]),), "register_forward_pre_hook"),
        "hint_ablation_output": run(lambda m, inputs, out: right(out), "register_forward_hook"),
        "hint_ablation_slice": run(lambda m, inputs: (by_index(inputs[0]),), "register_forward_pre_hook"),
    }


def check_loss_without_head(fn, cls) -> None:
    name = "loss_without_head"
    model = _toy_model(cls, 33).eval()
    with torch.no_grad():  # let the heads matter: random weights barely use attention at all
        for block in model.blocks:
            block.attn.c_proj.weight.mul_(8)
    x, y = toy_batch(B_5, T_5, V_5, torch.Generator().manual_seed(34))
    with torch.no_grad():
        before = float(toy_loss(model(x)[0], y))
    for layer in range(L_5):
        for head in range(H_5):
            got = _as_loss(name, _call(name, fn, model, x, y, layer, head))
            with torch.no_grad():
                after = float(toy_loss(model(x)[0], y))
            if abs(after - before) > 1e-9:
                raise CheckFailed(t("ablation_left_behind"), t("hint_ablation_remove"))
            variants = ablation_variants(model, x, y, layer, head)
            if abs(got - variants[None]) > 1e-6:
                hint = next((t(k) for k, v in variants.items() if k and abs(got - v) < 1e-6), None)
                if hint is None and abs(got - before) < 1e-9:
                    hint = t("hint_ablation_nothing")
                raise CheckFailed(t("ablation_differs", layer=layer, head=head, got=got, want=variants[None]), hint)
    _passed(name)


def previous_token_weight(weights: torch.Tensor) -> torch.Tensor:
    """Per head, the mean weight that queries t = 2 … T−1 put on key t − 1. weights: (B, H, T, T) → (H,)"""
    T = weights.size(-1)
    t_ = torch.arange(2, T, device=weights.device)
    return weights[:, :, t_, t_ - 1].mean(dim=(0, 2))


def check_head_answers(prev_head, prev_weight, n_head: int) -> None:
    name = "answer_prev_head"
    if isinstance(prev_head, bool) or not isinstance(prev_head, int) or not 0 <= prev_head < n_head:
        raise CheckFailed(t("answer_head_range", name=name, n=n_head - 1, got=prev_head))
    value = _expect_number("answer_prev_weight", prev_weight)
    if not 0.0 <= value <= 1.0:
        raise CheckFailed(t("answer_weight_range", got=value))
    print(t("answers_plausible"))


# --------------------------------------------------------------------------- lesson 6: what attention costs
# Sizes all different: batch, sequence, heads, head width, layers, kv heads, block.
B_6, T_6, H_6, D_6 = 5, 11, 6, 7  # not 2 or 3 either: FLOPs bugs divide by 2 (multiply-adds) and 3 (Q only)


def dtype_bytes(dtype: torch.dtype) -> int:
    """Bytes per element of a dtype (torch.float16 -> 2)."""
    return torch.empty((), dtype=dtype).element_size()


def _flops_variants(B_, T_, E_, H_) -> dict:
    D_ = E_ // H_
    right = {"qkv": 2 * B_ * T_ * E_ * 3 * E_, "scores": 2 * B_ * H_ * T_ * T_ * D_,
             "weighted_sum": 2 * B_ * H_ * T_ * T_ * D_, "out_proj": 2 * B_ * T_ * E_ * E_}
    return {
        None: right,
        "hint_flops_macs": {k: v // 2 for k, v in right.items()},
        "hint_flops_heads": right | {"scores": right["scores"] // H_, "weighted_sum": right["weighted_sum"] // H_},
        "hint_flops_qkv3": right | {"qkv": right["qkv"] // 3},
        "hint_flops_batch": {k: v // B_ for k, v in right.items()},
    }


def check_attention_flops(fn) -> None:
    name = "attention_flops"
    E_ = H_6 * D_6
    got = _call(name, fn, B_6, T_6, E_, H_6)
    variants = _flops_variants(B_6, T_6, E_, H_6)
    right = variants[None]
    if not isinstance(got, dict) or set(got) != set(right):
        raise CheckFailed(t("flops_keys", name=name, want=", ".join(right),
                            got=", ".join(map(str, got)) if isinstance(got, dict) else type(got).__name__))
    for key, want in right.items():
        value = got[key]
        if isinstance(value, bool) or not isinstance(value, int):
            raise CheckFailed(t("flops_not_int", step=key, kind=type(value).__name__))
        if value != want:
            hint = next((t(k) for k, v in variants.items() if k and v[key] == value and v[key] != want), None)
            raise CheckFailed(t("flops_differs", step=key, got=value, want=want,
                                sizes=f"B={B_6}, T={T_6}, E={E_}, H={H_6}"), hint)
    _passed(name)


def check_kv_cache_bytes(fn) -> None:
    name = "kv_cache_bytes"
    sizes = dict(n_layer=4, batch=3, T=11, n_kv_head=2, head_dim=5)
    for dtype in (torch.float16, torch.float32):
        got = _call(name, fn, *sizes.values(), dtype)
        if isinstance(got, bool) or not isinstance(got, int):
            raise CheckFailed(t("flops_not_int", step=name, kind=type(got).__name__))
        elements = 2 * math.prod(sizes.values())
        want = elements * dtype_bytes(dtype)
        if got != want:
            fixed = ((elements * 2, "hint_kv_dtype"), (elements * 4, "hint_kv_dtype"))
            # float16 comes first, so a fixed 2 bytes only shows at float32, where it equals "K only".
            bugs = (fixed if dtype == torch.float32 else ()) + (
                (want // 2, "hint_kv_both"), (want * 8, "hint_kv_bits"),
                (want // sizes["n_layer"], "hint_kv_layers")) + fixed
            hint = next((t(key) for value, key in bugs if value == got), None)
            raise CheckFailed(t("kv_bytes_differs", got=got, want=want, dtype=str(dtype).replace("torch.", ""),
                                sizes=", ".join(f"{k}={v}" for k, v in sizes.items())), hint)
    _passed(name)


def _tiled_variants(q, k, v, block: int, causal: bool) -> dict:
    """The right answer and the classic wrong tilings (seed 004 adds the blocks' softmaxes)."""
    T_, D_ = q.size(-2), q.size(-1)
    s = q @ k.transpose(-2, -1) / math.sqrt(D_)
    if causal:
        s = s.masked_fill(~_tril(T_), float("-inf"))
    right = torch.softmax(s, -1) @ v
    summed = sum(torch.softmax(s[..., j:j + block], -1).nan_to_num() @ v[..., j:j + block, :]
                 for j in range(0, T_, block))
    last = (T_ // block) * block
    tail_dropped = torch.softmax(s[..., :last], -1) @ v[..., :last, :] if last else right
    # No rescaling of the accumulator when the running max grows.
    m = torch.full_like(s[..., :1], float("-inf"))
    l, acc = torch.zeros_like(m), torch.zeros_like(q)
    for j in range(0, T_, block):
        sb = s[..., j:j + block]
        m_new = torch.maximum(m, sb.amax(-1, keepdim=True))
        p = torch.exp(sb - m_new)
        l = l * torch.exp(m - m_new) + p.sum(-1, keepdim=True)
        acc = acc + p @ v[..., j:j + block, :]
        m = m_new
    variants = {None: right, "hint_tiled_sum": summed, "hint_tiled_rescale": acc / l,
                "hint_tiled_normalize": _unnormalized(s, v, block)}
    if last != T_:
        variants["hint_tiled_tail"] = tail_dropped
    if causal:
        variants["hint_causal_6"] = torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(D_), -1) @ v
    return variants


def _unnormalized(s, v, block: int):
    """Every rescale done, but the running sum never divided out at the end."""
    m = torch.full_like(s[..., :1], float("-inf"))
    acc = torch.zeros(*s.shape[:-1], v.size(-1), dtype=v.dtype)
    for j in range(0, s.size(-1), block):
        sb = s[..., j:j + block]
        m_new = torch.maximum(m, sb.amax(-1, keepdim=True))
        acc = acc * torch.exp(m - m_new) + torch.exp(sb - m_new) @ v[..., j:j + block, :]
        m = m_new
    return acc


def check_tiled_attention(fn) -> None:
    name = "tiled_attention"
    q, k, v = _inputs(*[(2, 3, T_6, D_6)] * 3, seed=61)
    for causal in (False, True):
        with from_scratch(name):
            got = _call(name, fn, q, k, v, 4, causal)
        _expect_shape(got, tuple(q.shape), ("B", "H", "T", "D"), name)
        variants = _tiled_variants(q, k, v, 4, causal)
        right = variants[None]
        if not torch.isfinite(got).all():
            raise CheckFailed(t("has_nan", what=name), t("hint_tiled_nan"))
        if not _close(got, right, 1e-6):
            hint = next((t(key) for key, val in variants.items() if key and _close(got, val, 1e-6)), None)
            raise CheckFailed(t("tiled_differs", causal=causal, err=_max_error(got, right)), hint)
    _passed(name)


def _gqa_expected(module, x) -> dict:
    B_, T_, E_ = x.shape
    H_, G_ = module.n_head, module.n_kv_head
    D_ = E_ // H_
    q = _split(module.q_proj(x), H_)
    k, v = (_split(z, G_) for z in module.kv_proj(x).split(G_ * D_, dim=2))
    keep = _tril(T_)
    variants = {}
    for key, (kk, vv, mask) in {
        None: (k.repeat_interleave(H_ // G_, 1), v.repeat_interleave(H_ // G_, 1), True),
        "hint_gqa_repeat": (k.repeat(1, H_ // G_, 1, 1), v.repeat(1, H_ // G_, 1, 1), True),
        "hint_causal_6": (k.repeat_interleave(H_ // G_, 1), v.repeat_interleave(H_ // G_, 1), False),
        "hint_gqa_kv_swapped": (v.repeat_interleave(H_ // G_, 1), k.repeat_interleave(H_ // G_, 1), True),
    }.items():
        s = q @ kk.transpose(-2, -1) / math.sqrt(D_)
        if mask:
            s = s.masked_fill(~keep, float("-inf"))
        variants[key] = module.c_proj(_merge(torch.softmax(s, -1) @ vv))
    return variants


def check_gqa_module(cls) -> None:
    name = "GroupedQueryAttention"
    E_, H_, G_ = H_6 * D_6, H_6, 2
    module = _call(name, cls, E_, H_, G_)
    for layer, (n_in, n_out) in {"q_proj": (E_, E_), "kv_proj": (E_, 2 * G_ * D_6), "c_proj": (E_, E_)}.items():
        problem = _linear_problem(module, layer, n_in, n_out, "", bias=True)
        if problem:
            raise problem
    for bad in ((E_, H_, 4), (E_, 4, 2)):
        try:
            cls(*bad)
        except ValueError:
            continue
        except Exception:  # noqa: BLE001 - any other failure is not the clear error asked for
            pass
        raise CheckFailed(t("gqa_no_error", args=bad), t("hint_gqa_error"))
    module = module.double().eval()
    (x,) = _inputs((B_6, T_6 - 4, E_), seed=62)
    with torch.no_grad():
        result = _call(f"{name}.forward", module, x)
        if not (isinstance(result, tuple) and len(result) == 2):
            raise CheckFailed(t("returned_not_pair", name=f"{name}.forward", kind=type(result).__name__))
        y, weights = result
        _expect_shape(y, (B_6, T_6 - 4, E_), ("B", "T", "E"), t("what_output"))
        _expect_shape(weights, (B_6, H_, T_6 - 4, T_6 - 4), ("B", "H", "T", "T"), t("what_weights"),
                      t("hint_gqa_weights_heads"))
        _diagnose(y, _gqa_expected(module, x), "what_output")
    _passed(name)


class _CacheHost(nn.Module):
    """A bare GPT-2 attention (c_attn, c_proj, n_head), so this check needs no other exercise."""

    def __init__(self, embed_dim: int, n_head: int, seed: int):
        super().__init__()
        self.embed_dim, self.n_head, self.head_dim = embed_dim, n_head, embed_dim // n_head
        with torch.random.fork_rng():  # leave the notebook's own random stream alone
            torch.manual_seed(seed)
            self.c_attn = nn.Linear(embed_dim, 3 * embed_dim).double()
            self.c_proj = nn.Linear(embed_dim, embed_dim).double()


def check_attend_with_cache(fn) -> None:
    name = "attend_with_cache"
    host = _CacheHost(H_6 * D_6, H_6, seed=63).eval()
    (x,) = _inputs((B_6, T_6 - 3, H_6 * D_6), seed=64)
    with torch.no_grad():
        cache = None
        for lo, hi in ((0, 3), (3, 4), (4, 5), (5, 8)):
            result = _call(name, fn, host, x[:, lo:hi], cache)
            if not (isinstance(result, tuple) and len(result) == 2):
                raise CheckFailed(t("returned_not_cache_pair", name=name, kind=type(result).__name__))
            y, cache = result
            _expect_shape(y, (B_6, hi - lo, H_6 * D_6), ("B", "T_new", "E"), t("what_output"))
            if not (isinstance(cache, tuple) and len(cache) == 2):
                raise CheckFailed(t("cache_not_pair", kind=type(cache).__name__))
            for part, c in zip("KV", cache):
                _expect_shape(c, (B_6, H_6, hi, D_6), ("B", "H", "T", "D"), t("what_cache", part=part),
                              t("hint_cache_concat"))
            variants = _cache_variants(host, x, lo, hi)
            err = _max_error(y, variants[None])
            if err > 1e-9:
                hint = next((t(key) for key, val in variants.items() if key and _close(y, val, 1e-9)), None)
                raise CheckFailed(t("cache_differs", lo=lo, hi=hi, err=err), hint)
    _passed(name)


def _cache_variants(host, x, lo: int, hi: int) -> dict:
    """Outputs for tokens lo..hi-1 given a cache of 0..lo-1: right, and the classic cache bugs."""
    E_ = x.size(-1)
    q, k, v = (_split(z, host.n_head) for z in host.c_attn(x[:, :hi]).split(E_, dim=2))
    q = q[:, :, lo:hi]

    def attend(keys, values, keep):
        s = q @ keys.transpose(-2, -1) / math.sqrt(host.head_dim)
        if keep is not None:
            s = s.masked_fill(~keep, float("-inf"))
        return host.c_proj(_merge(torch.softmax(s, -1) @ values))

    n = hi - lo
    return {
        None: attend(k, v, torch.ones(n, hi, dtype=torch.bool).tril(diagonal=lo)),
        "hint_causal_6": attend(k, v, None),
        "hint_cache_mask_offset": attend(k, v, torch.ones(n, hi, dtype=torch.bool).tril()),
        "hint_cache_unused": attend(k[:, :, lo:], v[:, :, lo:], _tril(n)),
    }


# --------------------------------------------------------------------------- hidden tests
# --------------------------------------------------------------------------- grading integrity
def _watched() -> dict:
    """What the hidden tests rely on and a learner might monkeypatch, by name."""
    import builtins
    import torch.nn.functional as F
    watched = {f"torch.{n}": getattr(torch, n) for n in ("allclose", "equal", "isclose", "isfinite", "softmax")}
    watched["torch.testing.assert_close"] = torch.testing.assert_close
    watched.update({f"torch.Tensor.{n}": getattr(torch.Tensor, n) for n in (
        "__eq__", "__ne__", "__bool__", "__float__", "allclose", "equal", "item", "tolist", "sum", "abs", "max")})
    watched.update({f"builtins.{n}": getattr(builtins, n) for n in (
        "isinstance", "type", "abs", "max", "min", "float", "int", "len", "all", "any", "print", "__import__")})
    watched.update({f"math.{n}": getattr(math, n) for n in ("isclose", "isfinite")})
    watched["F.scaled_dot_product_attention"] = F.scaled_dot_product_attention
    watched["F.multi_head_attention_forward"] = F.multi_head_attention_forward
    watched["nn.MultiheadAttention.forward"] = nn.MultiheadAttention.forward
    here = sys.modules[__name__]
    watched.update({f"attn_course.checks.{n}": getattr(here, n) for n in (
        "reference", "hidden_compare_function", "hidden_compare_module", "hidden_answer", "hidden_passed",
        "_call", "_compare", "_grading_generator", "_expect_same_grads", "_backward_with_probe", "CheckFailed")})
    return watched


_PRISTINE: dict = {}  # taken when the set-up cell imports this package, before any learner code runs


def tampered() -> list[str]:
    """Names whose object is no longer the one the set-up cell saw."""
    now = _watched()
    return [name for name, obj in _PRISTINE.items() if now.get(name) is not obj]


def hidden_passed(name: str) -> None:
    """The last line of every hidden test: a pass only counts if nothing it relied on was replaced."""
    changed = tampered()
    if changed:
        raise CheckFailed(t("tampered", names=", ".join(changed)))
    print(t("hidden_passed", name=name))


@contextlib.contextmanager
def from_scratch(name: str):
    """While the hidden tests call an exercise meant to be written by hand, the library's
    attention refuses to run, so wrapping it cannot pass."""
    import torch.nn.functional as F

    def refuse(*_args, **_kwargs):
        raise CheckFailed(t("hint_from_scratch", name=name))
    saved = (F.scaled_dot_product_attention, F.multi_head_attention_forward, nn.MultiheadAttention.forward)
    F.scaled_dot_product_attention = F.multi_head_attention_forward = nn.MultiheadAttention.forward = refuse
    try:
        yield
    finally:
        F.scaled_dot_product_attention, F.multi_head_attention_forward, nn.MultiheadAttention.forward = saved


_REFERENCES: dict = {}  # lesson -> module, loaded by the grader's kernel before it drops privileges


def preload_references(folder: str) -> None:
    """Load every reference module now, while the files are still readable (see forkserver.py)."""
    for path in sorted(Path(folder).glob("lesson*.py")):
        _REFERENCES[path.stem] = _load_reference(path)


def _load_reference(path: Path):
    spec = importlib.util.spec_from_file_location(f"attn_reference_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def reference(lesson: str):
    """Load autograder/reference/<lesson>.py. It exists only where grading happens."""
    changed = tampered()
    if changed:
        raise CheckFailed(t("tampered", names=", ".join(changed)))
    if lesson in _REFERENCES:
        return _REFERENCES[lesson]
    roots = [os.environ.get("ATTN_COURSE_REFERENCE", "")]
    here = Path.cwd().resolve()
    roots += [str(p / "reference") for p in (here, *here.parents) if (p / "nbgrader_config.py").exists()]
    for root in filter(None, roots):
        path = Path(root) / f"{lesson}.py"
        if path.exists():
            return _load_reference(path)
    raise CheckFailed(t("reference_missing"))


def _grading_generator() -> torch.Generator:
    # Drawn fresh at every grading run, so no notebook can know the inputs in advance.
    return torch.Generator().manual_seed(secrets.randbits(63))


def _distinct_sizes(g: torch.Generator, n: int, low: int = 2, high: int = 12) -> list[int]:
    pool = torch.randperm(high - low, generator=g)[:n] + low
    return [int(v) for v in pool]


def _compare(name: str, got, want, case: str, tol: float):
    gots, wants = _as_tuple(got), _as_tuple(want)
    if len(gots) != len(wants):
        raise CheckFailed(t("returned_not_pair", name=name, kind=type(got).__name__))
    for g, w in zip(gots, wants):
        if not isinstance(g, torch.Tensor):
            raise CheckFailed(t("returned_not_tensor", name=name, kind=type(g).__name__))
        if g.dtype != w.dtype:
            raise CheckFailed(t("hidden_dtype", case=case, want=w.dtype, got=g.dtype))
        if g.shape != w.shape or not torch.allclose(g, w, atol=tol, rtol=tol):
            raise CheckFailed(t("hidden_mismatch", case=case, err=_max_error(g, w)))


def _as_tuple(x) -> tuple:
    return x if isinstance(x, tuple) else (x,)


def _backward_with_probe(g: torch.Generator, got, want) -> None:
    """Backpropagate the same random projection of both results, so every output counts."""
    wants = _as_tuple(want)
    probes = [torch.randn(w.shape, generator=g, dtype=w.dtype) for w in wants]
    sum((a * p).sum() for a, p in zip(wants, probes)).backward()
    try:
        sum((a * p).sum() for a, p in zip(_as_tuple(got), probes)).backward()
    except RuntimeError as error:  # e.g. a result detached from its inputs
        raise CheckFailed(t("hidden_grad_mismatch", case=t("case_grad"), arg="-", err=float("inf")),
                          str(error)) from None


def _expect_same_grads(pairs) -> None:
    for arg, mine, ref in pairs:
        if mine is None or not torch.allclose(mine, ref, atol=1e-8, rtol=1e-8):
            raise CheckFailed(t("hidden_grad_mismatch", case=t("case_grad"), arg=arg,
                                err=float("inf") if mine is None else _max_error(mine, ref)))


_DTYPE_CASES = ((torch.float64, "case_float64", 1e-9), (torch.float32, "case_float32", 1e-4))


def hidden_compare_function(name: str, fn, ref_fn, make_inputs) -> None:
    """Compare fn with ref_fn on fresh inputs in float64 and float32, and their gradients.

    make_inputs(g, dtype) -> tuple of tensors.
    """
    g = _grading_generator()
    for dtype, case, tol in _DTYPE_CASES:
        args = make_inputs(g, dtype)
        with from_scratch(name):
            got = _call(name, fn, *args)
        _compare(name, got, ref_fn(*args), t(case), tol)
    args = make_inputs(g, torch.float64)
    mine = [a.clone().requires_grad_(True) for a in args]
    theirs = [a.clone().requires_grad_(True) for a in args]
    got, want = _call(name, fn, *mine), ref_fn(*theirs)
    _compare(name, got, want, t("case_grad"), 1e-9)
    _backward_with_probe(g, got, want)
    _expect_same_grads((i, m.grad, r.grad) for i, (m, r) in enumerate(zip(mine, theirs)))
    hidden_passed(name)


def hidden_compare_module(name: str, cls, ref_cls, make_args, make_input) -> None:
    """Build both modules, copy the learner's weights into the reference, compare outputs and gradients.

    make_args(g) -> constructor arguments; make_input(g, args, dtype) -> input tensor.
    """
    g = _grading_generator()
    args = make_args(g)
    mine = _call(name, cls, *args)
    ref = ref_cls(*args)
    try:
        ref.load_state_dict(mine.state_dict())
    except Exception as error:  # noqa: BLE001
        raise CheckFailed(t("raised", name=f"{name}.state_dict", error=error)) from None
    for dtype, case, tol in _DTYPE_CASES:
        mine.to(dtype)
        ref.to(dtype)
        x = make_input(g, args, dtype)
        with from_scratch(name):
            got = _call(f"{name}.forward", mine, x)
        _compare(name, got, ref(x), t(case), tol)
    mine.double()
    ref.double()
    x = make_input(g, args, torch.float64)
    xm, xr = x.clone().requires_grad_(True), x.clone().requires_grad_(True)
    got, want = _call(f"{name}.forward", mine, xm), ref(xr)
    _compare(name, got, want, t("case_grad"), 1e-9)
    _backward_with_probe(g, got, want)
    ref_params = dict(ref.named_parameters())
    _expect_same_grads([("x", xm.grad, xr.grad)] +
                       [(n, p.grad, ref_params[n].grad) for n, p in mine.named_parameters()])
    hidden_passed(name)


def hidden_answer(name: str, value, want: float, rel: float = 0.0) -> None:
    got = _expect_number(name, value)
    if abs(got - want) > rel * abs(want):
        raise CheckFailed(t("answer_wrong", name=name))
    hidden_passed(name)


_PRISTINE.update(_watched())
