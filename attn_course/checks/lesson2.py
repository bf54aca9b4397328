"""Lesson 2's visible checks: splitting and merging heads, the module, one head as a single attention."""
from __future__ import annotations

import math
import re

import torch
import torch.nn as nn

from ..messages import t
from ..findings import float32_rounded
from ..score_watch import MatmulWatch
from ..sizes import free_sizes
from ..validate import CheckFailed
from .engine import (
    also_checks, blames_earlier, build_and_run, check_count_answer, close, diagnose, expect_input_errors, linear_count,
    expect_returned_pair, expect_shape,
    max_error, named, passed, run, scale_variants,
)
from .heads import merge_heads, split_heads
from .invariants import (
    expect_module_grads, expect_same, reads_globals, sizes_text,
)

# Sizes all different; H * D = 12 differs from E = 7, so a forgotten W_o or a head_dim taken from E shows.
# Each check then runs a second case whose sizes the notebook binds nowhere (attn_course.sizes), with gradients.
B, T, E, H, D = 2, 5, 7, 3, 4
LESSON = 2
# Each check's own seed: the probe's inputs drawn from it follow the probe's rule (no size the notebook binds).
SEEDS = {"split_heads": 201, "merge_heads": 202, "module": 203, "head_as_single": 204, "to_torch_mha": 205}


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
        Q, K, V = (split_heads(f(x), self.n_head) for f in (self.W_q, self.W_k, self.W_v))
        weights = torch.softmax(Q @ K.transpose(-2, -1) / math.sqrt(self.head_dim), dim=-1)
        return self.W_o(merge_heads(weights @ V)), weights


def _shape_hint(got, variants: dict, tol: float) -> str | None:
    """The hint of the classic mistake whose result got is, among those of another shape than the right one:
    expect_shape raises on the shape before diagnose compares values."""
    if not isinstance(got, torch.Tensor) or not got.is_floating_point():
        return None
    for key, value in variants.items():
        if key is not None and value.shape != variants[None].shape and close(got, value, tol):
            return t(key[0] if isinstance(key, tuple) else key)
    return None


# Lesson 1's scaling hints name its d_k; from lesson 2 the text calls a head's width D (self.head_dim).
HEAD_SCALE_HINTS = {"hint_scale_mul": "hint_scale_d_mul", "hint_scale_floor": "hint_scale_d_floor",
                    "hint_scale_inverted": "hint_scale_d_inverted", "hint_scale_wrong_dim": "hint_scale_by_heads"}


def _in_heads(key):
    """A key of scale_variants as lesson 2 names it (a (hint, detail) key keeps its detail)."""
    if isinstance(key, tuple):
        return (HEAD_SCALE_HINTS.get(key[0], key[0]), *key[1:])
    return HEAD_SCALE_HINTS.get(key, key)


def wide_weights_hint(weights, module, x, H: int, D: int) -> str | None:
    """Why a module's weights are (B, T, T), not (B, H, T, T): averaged over the heads, one head's taken, or the
    scores computed on the whole width without split_heads. Anything else: None (a hint would only guess)."""
    right = mha_weight_variants(module, x, H, D)[None]
    if close(weights, right.mean(1), 1e-4):
        return "hint_weights_averaged"
    if any(close(weights, right[:, h], 1e-4) for h in range(H)):
        return "hint_weights_one_head"
    raw = module.W_q(x) @ module.W_k(x).transpose(-2, -1)
    if any(close(weights, torch.softmax(raw / s, -1), 1e-4) for s in {1.0, math.sqrt(D), math.sqrt(H * D), D}):
        return "hint_not_split"
    return None


def dropped_weights(got, right) -> bool:
    """Weights with dropout on them (torch.dropout, F.dropout, nn.Dropout in training mode): each either 0 or the
    right weight times one factor 1 / (1 − p) > 1. The rows then sum to anything but 1, and "check the
    softmax" would name a cause the code does not have."""
    if not isinstance(got, torch.Tensor) or got.shape != right.shape or not got.is_floating_point():
        return False
    got, right = got.detach().to(right), right.detach()
    kept = (got != 0) & (right > 1e-6)
    if not (got == 0).any() or not kept.any():
        return False
    ratio = got[kept] / right[kept]
    return float(ratio.mean()) > 1.0 + 1e-6 and close(ratio, torch.full_like(ratio, float(ratio.mean())), 1e-6)


def mha_weight_variants(module, x, H: int, D: int) -> dict:
    """The right attention weights of a multi-head module (W_q, W_k) on x, and the classic wrong ones."""
    B, T, E = x.shape
    q, k = module.W_q(x), module.W_k(x)
    variants = {}
    for split_key, split in (("", lambda z: split_heads(z, H)),
                             ("hint_view_without_transpose", lambda z: z.reshape(B, H, T, D)),
                             ("hint_interleaved", lambda z: z.reshape(B, T, D, H).permute(0, 3, 1, 2))):
        Q, K = split(q), split(k)
        raw = Q @ K.transpose(-2, -1)
        if not split_key:
            variants[None] = torch.softmax(raw / math.sqrt(D), -1)
            variants["hint_no_scale_d"] = torch.softmax(raw, -1)
            variants["hint_scale_by_d"] = torch.softmax(raw / D, -1)
            variants[("hint_scale_head_dim", "HD")] = torch.softmax(raw / math.sqrt(H * D), -1)
            variants[("hint_scale_head_dim", "E")] = torch.softmax(raw / math.sqrt(E), -1)
            variants["hint_softmax_axis"] = torch.softmax(raw / math.sqrt(D), -2)
            variants["hint_scale_after_softmax"] = torch.softmax(raw, -1) / math.sqrt(D)
            variants.update({_in_heads(k): torch.softmax(v, -1) for k, v in scale_variants(raw, D, {H}).items()})
        else:
            variants[split_key] = torch.softmax(raw / math.sqrt(D), -1)
    Q, K = (z.reshape(B, T, D, H).transpose(1, 2) for z in (q, k))   # split_heads(z, self.head_dim): D heads of H
    variants["hint_head_count"] = torch.softmax(Q @ K.transpose(-2, -1) / math.sqrt(D), -1)
    # Q or K projected by another layer (a line copied and left unchanged: K = split_heads(self.W_q(x), H))
    for what, right_layer, others in (("Q", "W_q", ("W_k", "W_v")), ("K", "W_k", ("W_q", "W_v"))):
        for layer in others:
            z = {"Q": q, "K": k} | {what: getattr(module, layer)(x)}
            Q, K = split_heads(z["Q"], H), split_heads(z["K"], H)
            variants[_layer_key(what, layer, right_layer)] = torch.softmax(Q @ K.transpose(-2, -1) / math.sqrt(D), -1)
    return variants


def _layer_key(what: str, layer: str, right_layer: str) -> tuple:
    return "hint_projection_layer", (("what", what), ("layer", layer), ("want", right_layer))


def output_variants(module, x, weights, H: int) -> dict:
    """forward's output from the right weights, merged the classic wrong ways, or with V projected by another layer."""
    from ..probes.lesson2 import merge_variants   # here: the probes' package imports the checks
    heads = weights @ split_heads(module.W_v(x), H)
    variants = {key: module.W_o(value) for key, value in merge_variants(heads).items()}
    for layer in ("W_q", "W_k"):
        wrong = weights @ split_heads(getattr(module, layer)(x), H)
        variants[_layer_key("V", layer, "W_v")] = module.W_o(merge_heads(wrong))
    return variants


class RightMultiHeadAttention(nn.Module):
    """The module the lesson describes: W_q, W_k, W_v: E → H·D and W_o: H·D → E, none with a bias; head_dim left out
    is E // H."""

    def __init__(self, embed_dim, n_head, head_dim=None):
        super().__init__()
        self.embed_dim, self.n_head, self.head_dim = embed_dim, n_head, head_dim or embed_dim // n_head
        inner = n_head * self.head_dim
        self.W_q = nn.Linear(embed_dim, inner, bias=False)
        self.W_k = nn.Linear(embed_dim, inner, bias=False)
        self.W_v = nn.Linear(embed_dim, inner, bias=False)
        self.W_o = nn.Linear(inner, embed_dim, bias=False)

    def forward(self, x):
        Q, K, V = (split_heads(f(x), self.n_head) for f in (self.W_q, self.W_k, self.W_v))
        weights = torch.softmax(Q @ K.transpose(-2, -1) / math.sqrt(self.head_dim), dim=-1)
        return self.W_o(merge_heads(weights @ V)), weights


def _verify(exercise: str, name: str, right, *objs) -> None:
    from ..judging import verify   # here: the probes' package imports the checks
    from ..probes import lesson2 as probes
    verify(getattr(probes, exercise), getattr(probes, f"judge_{exercise}"), right, SEEDS[exercise], name, *objs)


def check_split_heads(fn) -> None:
    _verify("split_heads", "split_heads", split_heads, fn)


def check_merge_heads(fn) -> None:
    _verify("merge_heads", "merge_heads", merge_heads, fn)


def module_error(kind: str, message: str, call: str) -> str | None:
    """forward's errors that name split_heads' input: a view of x itself (W_q forgotten or applied after the
    split, or H taken from another size), or its arguments the other way round. The layers' shapes are checked
    first and x's by expect_tokens, so a Linear that raises is W_o given another width than H·D (merge_heads left
    out, or given a split that went wrong), and a "must match" is Q, K, V or the weights without their (B, H)
    axes in common: "transpose K", the generic hint for both, would name a cause the code does not have."""
    if kind == "RuntimeError" and re.search(r"shape '\[.*\]' is invalid for input of size", message):
        return "hint_split_input"
    if kind == "AttributeError" and "'int' object has no attribute" in message:
        return "hint_split_args"
    if kind == "RuntimeError" and "mat1 and mat2 shapes cannot be multiplied" in message:
        return "hint_w_o_input"
    if kind == "RuntimeError" and re.search(r"must match the size of tensor b \(\d+\) at non-singleton", message):
        return "hint_heads_axes"
    if kind == "RuntimeError" and re.search(r"(mat1 and mat2|m1 and m2) (must )?(to )?have the same dtype", message):
        return "hint_keep_dtype"   # a float32 tensor (.float(), one made without dtype=) meets a float64 layer
    return None


def matmul_hint(failed, t_len: int, d: int) -> str | None:
    """forward's matrix product that raised, by the shapes it was given (MatmulWatch; the error's text is the same for
    all three): Q @ K, two (T, D), is K not transposed; V @ weights, (T, D) @ (T, T), the weighted average's operands
    the other way round; weights of (D, D), made by Kᵀ @ Q, the scores' operands. Any other pair: None, no hint
    ("transpose K", the generic hint for a product's sizes, would name a cause the code does not have)."""
    if len(failed[1]) == 2 and failed[0][-1] == failed[1][-1] != failed[1][0]:
        return "hint_weight_not_transposed"   # x @ layer.weight: an (out, in) weight used as (in, out)
    a, b = (tuple(shape[-2:]) for shape in failed)
    if a == b == (t_len, d):
        return "hint_transpose_k"
    if a[-1:] == (d,) and b == (t_len, t_len):
        return "hint_weights_v_order"
    return "hint_scores_operand_order" if a == (d, d) else None


def _forward_named(failure: CheckFailed, watch: MatmulWatch) -> CheckFailed:
    """failure with its hint named by the failing matrix product where its operands name one, else as module_error
    named it."""
    raised = getattr(failure, "raised", None) or {}
    if watch.failed is None:
        return failure
    key = matmul_hint(watch.failed, T, D)   # the operands tell more than the text ("mat1 and mat2 ...")
    if key is None and module_error(raised.get("kind", ""), raised.get("message", ""), ""):
        return failure
    named_failure = CheckFailed(failure.message, t(key) if key else None)
    named_failure.raised = raised
    return named_failure


@reads_globals(LESSON)
@blames_earlier(split_heads=(1, check_split_heads), merge_heads=(2, check_merge_heads))
def check_mha_module(cls) -> None:
    name = "MultiHeadAttention"
    inner = H * D
    with MatmulWatch() as watch:
        try:
            module, x, y, weights = build_and_run(name, cls, (E, H, D), inner, (B, T, E), seed=8, on_error=module_error)
        except CheckFailed as failure:
            raise _forward_named(failure, watch) from None
    # What the module does with its sizes and inputs does not depend on its weights: named even when those fail.
    others = (lambda: _expect_head_dim_rules(name, cls), lambda: expect_input_errors(module, (B, T, E)))
    with also_checks(*others), torch.no_grad():
        wide = isinstance(weights, torch.Tensor) and tuple(weights.shape) == (B, T, T)
        variants = mha_weight_variants(module, x, H, D)
        wide_key = wide_weights_hint(weights, module, x, H, D) if wide else None
        expect_shape(weights, (B, H, T, T), ("B", "H", "T", "T"), t("what_weights"),
                     t(wide_key) if wide_key else _shape_hint(weights, variants, 1e-4))
        _expect_dtype(weights, x, "what_weights")
        if dropped_weights(weights, variants[None]):
            raise CheckFailed(t("values_differ", what=t("what_weights"), err=max_error(weights, variants[None])),
                              t("hint_weights_dropout"))
        diagnose(weights, variants, "what_weights")
        expect_shape(y, (B, T, E), ("B", "T", "E"), t("what_output"),
                     t("hint_w_o_missing") if isinstance(y, torch.Tensor) and y.shape[-1] == inner else None)
        _expect_dtype(y, x, "what_output")
        diagnose(y, output_variants(module, x, weights, H), "what_output")
    for other in others:
        other()
    _module_free_case(name, cls)
    _size_one_cases(name, cls)
    passed(name)


def precision_hint(got, want) -> str | None:
    """The hint for float64 results (got, as returned) right only to float32's precision: computed in float32."""
    gots = got if isinstance(got, (tuple, list)) else (got,)
    return "hint_float32_inside" if any(float32_rounded(g, w) for g, w in zip(gots, want)) else None


def squeezed(got, want) -> bool:
    """got is want with axes of size 1 dropped (a squeeze() on forward's results): what B = 1 or T = 1 shows."""
    return isinstance(got, torch.Tensor) and got.dim() < want.dim() and got.numel() == want.numel() and \
        [s for s in got.shape if s != 1] == [s for s in want.shape if s != 1]


def size_one_hint(got, want) -> str | None:
    """The hint for forward's results (got, as returned) on an input with B = 1 or T = 1 whose shapes lost axes."""
    gots = got if isinstance(got, (tuple, list)) else (got,)
    return "hint_squeeze" if any(squeezed(g, w) for g, w in zip(gots, want)) else None


def _size_one_cases(name, cls) -> None:
    """The grader's cases with B = 1 and T = 1 (attn_course.probes.lesson2.size_one_input) on the check's own draws."""
    from ..probes import lesson2 as probe   # here: the probes' package imports the checks
    from ..probes.draws import Draws
    draws = Draws(49, f"check.{name}")
    args = probe.module_args(draws)
    module = run(name, cls, *args).double()
    draws.fill_parameters(module)
    for case in probe.SIZE_ONE_CASES:
        x = probe.size_one_input(draws, args, case)
        with torch.no_grad():
            got = expect_returned_pair(run(f"{name}.forward", module, x, on_error=module_error), f"{name}.forward")
            want = right_mha(module, x, args[1], args[2])
        for g, w in zip(got, want):
            if not isinstance(g, torch.Tensor) or g.shape != w.shape:
                hint = size_one_hint(got, want)
                shape = tuple(g.shape) if isinstance(g, torch.Tensor) else type(g).__name__
                raise CheckFailed(t("size_one_shape", name=f"{name}.forward", sizes=tuple(x.shape),
                                    want=tuple(w.shape), got=shape), t(hint) if hint else None)
        expect_same(f"{name}.forward", got, want, str(tuple(x.shape)), differs="case_differs")


def _expect_dtype(got, x, what: str) -> None:
    """The module's results keep x's dtype, as the grader's hidden test asks (hidden_dtype)."""
    if got.dtype != x.dtype:
        raise CheckFailed(t("dtype_changed", what=t(what), want=x.dtype, got=got.dtype))


def right_mha(module, x, H: int, D: int):
    """The multi-head attention of module's W_q, W_k, W_v, W_o on x: (output, weights)."""
    Q, K, V = (split_heads(f(x), H) for f in (module.W_q, module.W_k, module.W_v))
    weights = torch.softmax(Q @ K.transpose(-2, -1) / math.sqrt(D), dim=-1)
    return module.W_o(merge_heads(weights @ V)), weights


def _module_free_case(name, cls) -> None:
    """The module on sizes the notebook binds nowhere, then its gradients with respect to x and every parameter."""
    b, t_, h, d, e = free_sizes(LESSON, 5, high=16, seed=45)
    sizes = sizes_text(B=b, T=t_, E=e, H=h, D=d)
    module, x, y, weights = build_and_run(name, cls, (e, h, d), h * d, (b, t_, e), seed=46, on_error=module_error)
    with torch.no_grad():
        want = right_mha(module, x, h, d)
        if precision_hint((y, weights), want):
            raise CheckFailed(t("case_differs", name=f"{name}.forward", sizes=(b, t_, e),
                                err=max(max_error(g, w) for g, w in zip((y, weights), want))), t("hint_float32_inside"))
        expect_same(f"{name}.forward", (y, weights), want, sizes)
    expect_module_grads(name, module, x, lambda m, z: run(f"{name}.forward", m, z, on_error=module_error),
                        lambda m, z: right_mha(m, z, h, d), 47)


def _expect_head_dim_rules(name, cls) -> None:
    default = run(name, cls, 12, 3)
    if getattr(default, "head_dim", None) != 4:
        raise named("hint_head_dim_default", e=12, h=3, want=4, got=getattr(default, "head_dim", None))
    try:
        cls(10, 3)
    except ValueError:
        pass
    else:
        raise named("hint_no_divisibility_error", e=10, h=3)


def check_head_as_single(fn, attention_cls) -> None:
    _verify("head_as_single", "head_as_single", RightMultiHeadAttention, fn, attention_cls)


def check_to_torch_mha(fn) -> None:
    _verify("to_torch_mha", "to_torch_mha", RightMultiHeadAttention, fn)


def mha_count(E: int = 768, H: int = 12, D: int = 64) -> int:
    """MultiHeadAttention(E, H, D) counted from the lesson's facts: W_q, W_k, W_v = nn.Linear(E, H·D) and W_o =
    nn.Linear(H·D, E), none with a bias."""
    return linear_count((E, H * D), (E, H * D), (E, H * D), (H * D, E), bias=False)


def check_mha_param_answer(answer, cls) -> None:
    """Lesson 2: the parameter count of MultiHeadAttention(768, 12, 64), judged against the lesson's count as the
    grader judges it (findings.count_finding); the learner's module named only when its count differs."""
    check_count_answer("answer_n_params", answer, cls, (768, 12, 64), want=mha_count(),
                       differs="count_module_differs_text")
