"""Lesson 1's exercises: each one's cases (the probe, run in the kernel) and its procedure (the verdict on what the
probe recorded, given the right implementation). The grader runs a procedure with the hidden reference, the visible
check (attn_course.checks.lesson1) with the right answer the course's public facts give, on a seed of its own."""
import contextlib
import math
import re

import torch

from ..checks.engine import _uses_dot_T, error_hint, scale_variants
from ..findings import dtype_finding
from ..judging import (
    DTYPE_CASES, Mismatch, expect_answer, judge_case, judge_function, judge_module, matching_bug, naming, procedure,
)
from ..messages import matches
from ..score_watch import MatmulWatch
from ..sizes import avoided
from .cases import function_cases, module_cases, refusal, scalar
from .recorder import probe

# Every size drawn here differs from every size the notebook binds at top level (its table's d_k = 4, 64, 512):
# code that reads such a global fails on every seed, the check's and the grader's.
NOTEBOOK = avoided(1)


def qkv_sizes(draws, case):
    """B, H, T_q, T_k, d_k, d_v: all different."""
    return draws.sizes(f"{case}.sizes", 6, avoid=NOTEBOOK)


def module_sizes(draws):
    """B, T, E, d_k: all different."""
    return draws.sizes("args", 4, low=2, high=20, avoid=NOTEBOOK)


def qkv_inputs(draws, case, dtype, with_v=True, batch_axes=2):
    """Q, K (and V) with every size different: B, H, T_q, T_k, d_k, d_v."""
    b, h, tq, tk, d, dv = qkv_sizes(draws, case)
    lead = (b, h)[:batch_axes]
    shapes = [(*lead, tq, d), (*lead, tk, d)] + ([(*lead, tk, dv)] if with_v else [])
    return tuple(draws.randn(f"{case}.{name}", *s, dtype=dtype, scale=1.5) for name, s in zip("QKV", shapes))


def qk_inputs(draws, case, dtype):
    # The gradient case has one batch axis: transpose(2, -1) is transpose(-2, -1) only for 4-D input, and the text
    # asks for any number of batch axes.
    return qkv_inputs(draws, case, dtype, with_v=False, batch_axes=1 if case == "grad" else 2)


def unbatched(draws):
    """One (T_q, d_k) and one (T_k, d_k) matrix, no batch axis: attention is defined for (..., T, d)."""
    return qkv_inputs(draws, "unbatched", torch.float64, with_v=False, batch_axes=0)


def one_batch_axis(draws, case, dtype):
    return qkv_inputs(draws, case, dtype, batch_axes=1)


def large_scores(draws, case, dtype):
    # Rows around +800 and rows around -800: exp overflows even in float64 unless a max is subtracted first, and
    # only each row's own max keeps the low rows from 0 / 0 (one max over the whole tensor does not).
    b, tq, tk = draws.sizes(f"{case}.sizes", 3, avoid=NOTEBOOK)
    offset = torch.where(torch.arange(tq) % 2 == 0, 800.0, -800.0)[None, :, None]
    return (draws.randn(f"{case}.scores", b, tq, tk, scale=5.0).add(offset).to(dtype),)


def module_args(draws):
    _, _, e, d = module_sizes(draws)
    return (e, d)


def module_input(draws, args, case, dtype):
    b, t, _, _ = module_sizes(draws)
    return draws.randn(f"{case}.x", b, t, args[0], dtype=dtype)


def bad_inputs(draws):
    """What forward must refuse with the course's ValueError: x without its batch axis, and x of another width."""
    b, t, e, _ = module_sizes(draws)
    return [(t, e), (b, t, e + 1)]


# --------------------------------------------------------------------------- the probes
@contextlib.contextmanager
def products_watched(rec, fn):
    """A matrix product that raised: the two shapes it was given, for the procedure to name the mistake from them
    (product_raised); not where `.T`, whose own hint comes first, is used."""
    with MatmulWatch() as watch:
        try:
            yield
        finally:
            if watch.failed is not None and rec.raised and not rec.raised.get("dot_T") and not _uses_dot_T(fn):
                rec.put("matmul_failed", [list(shape) for shape in watch.failed])
                rec.put("raised_error", [str(rec.raised.get("kind", "")), str(rec.raised.get("message", ""))[:300]])


@probe("lesson1.attention_scores")
def attention_scores(rec, fn):
    with products_watched(rec, fn):
        function_cases(rec, "attention_scores", fn, qk_inputs)
        rec.put("unbatched", rec.call("attention_scores", fn, *unbatched(rec)))


@probe("lesson1.softmax_last")
def softmax_last(rec, fn):
    function_cases(rec, "softmax_last", fn, large_scores)


@probe("lesson1.attention")
def attention(rec, fn):
    with products_watched(rec, fn):
        function_cases(rec, "attention", fn, one_batch_axis)


@probe("lesson1.attention_module")
def attention_module(rec, cls):
    with products_watched(rec, cls):
        module = module_cases(rec, "Attention", cls, module_args, module_input)
    rec.put("refusals", [refusal(module, shape) for shape in bad_inputs(rec)])


@probe("lesson1.variance")
def variance(rec, var_raw, var_scaled):
    rec.put("answer_var_raw", scalar(var_raw))
    rec.put("answer_var_scaled", scalar(var_scaled))


@probe("lesson1.n_params")
def n_params(rec, n):
    rec.put("answer_n_params", scalar(n))


# --------------------------------------------------------------------------- the classic mistakes
def score_variants(Q, K) -> dict:
    """The right scores and the classic wrong ones, keyed by the hint that explains them."""
    d = Q.size(-1)
    raw = Q @ K.transpose(-2, -1)
    variants = {None: raw / math.sqrt(d), "hint_no_scale": raw, "hint_scale_dk": raw / d}
    variants.update(scale_variants(raw, d, {*Q.shape[:-1], K.size(-2)}))
    return variants


def weight_variants(Q, K) -> dict:
    scores = score_variants(Q, K)
    variants = {key: torch.softmax(s, dim=-1) for key, s in scores.items()}
    variants[("hint_softmax_axis", (("axis", -2),))] = torch.softmax(scores[None], dim=-2)
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


def kv_swapped(Q, V, d: int):
    """The weights when K and V trade places (K = W_v(x), or attention(Q, V, K))."""
    return torch.softmax(Q @ V.transpose(-2, -1) / math.sqrt(d), dim=-1)


# W_o(t) on a t of the wrong width: F.linear's error names t's rows × width, then W_oᵀ's (d_k × E).
W_O_INPUT = re.compile(r"mat1 and mat2 shapes cannot be multiplied \((\d+)x(\d+) and (\d+)x(\d+)\)")


def module_error(kind: str, message: str, call: str = "") -> str | None:
    """An error of the module's forward (its layers' shapes are compared first, so only what reaches them can be
    wrong): Q and K of different widths, one of them x not projected; W_o given x's width E (V = x), or a width
    that is neither d_k nor E (the weights: attention's pair unpacked the other way round). Any other error keeps
    the generic rules."""
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


def product_raised(res, dims, name: str, on_error=None) -> None:
    """The learner's code raised in a matrix product the probe watched, with an error the generic rules would call
    "transpose K" (and on_error does not name): named from the shapes it was given. dims: (T_q, T_k, d_k, d_v) of
    each case the probe ran; the failing product's shapes pick out which."""
    if "matmul_failed" not in res or "raised_error" not in res:
        return
    try:
        kind, message = (str(part) for part in res["raised_error"])
        failed = [tuple(int(n) for n in shape) for shape in res["matmul_failed"]]
    except (TypeError, ValueError):
        return
    if error_hint(kind, message, False) != "hint_transpose_k" or (on_error and on_error(kind, message, "")):
        return
    key = next((k for k in (product_hint(failed, *d) for d in dims) if k), None)
    raise Mismatch("hidden_raised", hint=key, name=name, error=f"{kind}: {message}"[:300])


def _function_dims(res):
    """(T_q, T_k, d_k, d_v) of every case of qkv_inputs, in the order the probe runs them: the first whose sizes name
    the failing product is the one that raised (another case's sizes can name another mistake by chance)."""
    for case in ("float64", "float32", "grad", "unbatched"):
        _, _, tq, tk, d, dv = qkv_sizes(res, case)
        yield tq, tk, d, dv


def _module_dims(res):
    """(T, T, d_k, d_k): module_args and module_input read one draw, "args" = (B, T, E, d_k)."""
    _, t, _, d = module_sizes(res)
    return [(t, t, d, d)]


def _dtype_bug(res, name: str):
    """A result in another dtype than its input's (findings.dtype_finding), among the cases the probe recorded."""
    for case, dtype in DTYPE_CASES:
        finding = dtype_finding(name, res[case], dtype) if case in res else None
        if finding:
            return finding[2]
    return None


def _score_bug(res):
    Q, K = qk_inputs(res, "float64", torch.float64)
    # Scores only: in the module (T_q = T_k) K Qᵀ's weights are W_q and W_k swapped, hint_wrong_projection.
    variants = {**score_variants(Q, K), "hint_kq_order": K @ Q.transpose(-2, -1) / math.sqrt(Q.size(-1))}
    return matching_bug(res["float64"], variants)


def _softmax_bug(res):
    (scores,) = large_scores(res, "float64", torch.float64)
    got = res["float64"]
    if isinstance(got, torch.Tensor) and not torch.isfinite(got).all():
        # The max taken over another axis leaves the rows around -800 as 0 / 0 too: the same NaN, the same rest.
        return matching_bug(got, softmax_variants(scores), 1e-6, nan=True) or "hint_softmax_overflow"
    variants = {("hint_softmax_axis", (("axis", axis),)): torch.softmax(scores, dim=axis) for axis in (-2, 0)}
    key = matching_bug(got, {**variants, **softmax_variants(scores)})
    return key or _unnormalised(got, scores.shape)


def _unnormalised(weights, shape):
    """Weights whose rows do not sum to 1 (a softmax that divides by another sum): named alike in softmax_last and
    in the exercises that call it, so a failure carried over from exercise 3 shows exercise 3's hint."""
    if not (isinstance(weights, torch.Tensor) and weights.shape == shape and weights.is_floating_point()):
        return None
    sums = weights.sum(dim=-1)
    if torch.isfinite(sums).all() and not torch.allclose(sums, torch.ones_like(sums), atol=1e-3):
        return "hint_rows_not_normalised", {"lo": float(sums.min()), "hi": float(sums.max())}
    return None


def _attention_bug(res):
    Q, K, _ = one_batch_axis(res, "float64", torch.float64)
    got = res["float64"]
    weights = got[1] if isinstance(got, tuple) and len(got) == 2 else got
    variants = weight_variants(Q, K)
    return matching_bug(weights, variants) or _unnormalised(weights, variants[None].shape)


def _module_bug(res, right):
    layout = [name for name, _ in res["layout"]]
    if "W_o.weight" not in layout:
        return "hint_w_o_missing"
    biased = [name for name in layout if name.endswith(".bias")]
    if biased:
        return "hint_has_bias", {"name": biased[0].split(".")[0]}
    args = module_args(res)
    ref = right(*args).double()
    res.fill_parameters(ref)
    x = module_input(res, args, "float64", torch.float64)
    got = res["float64"]
    if not (isinstance(got, tuple) and len(got) == 2):
        return None
    if isinstance(got[0], torch.Tensor) and got[0].shape[-1] == args[1] != args[0]:
        return "hint_w_o_missing"
    with torch.no_grad():
        Q, K = ref.W_q(x), ref.W_k(x)
        variants = weight_variants(Q, K)
        variants["hint_wrong_projection"] = torch.softmax(K @ Q.transpose(-2, -1) / math.sqrt(args[1]), dim=-1)
        variants["hint_kv_swapped"] = kv_swapped(Q, ref.W_v(x), args[1])
    return matching_bug(got[1], variants) or _unnormalised(got[1], variants[None].shape)


def _refusal_bug(res):
    """forward took x of a wrong shape without the course's ValueError: hint_no_input_check, with that shape."""
    for kind, shape in zip(res["refusals"], bad_inputs(res)):
        if kind != "ValueError":
            return "hint_no_input_check", {"shape": str(tuple(shape))}   # text: a tuple field is a message
    return None


def _variance_bug(res):
    got = res["answer_var_raw"]
    if isinstance(got, (int, float)) and abs(got - math.sqrt(512)) < 0.25 * math.sqrt(512):
        return "answer_std_not_var", {"name": "answer_var_raw", "got": got}
    return None


# --------------------------------------------------------------------------- the procedures
# res: what the probe recorded (attn_course.judging.Results); right: the right implementation.
@procedure(partial=True)
def judge_attention_scores(res, right):
    product_raised(res, list(_function_dims(res)), "attention_scores")
    with naming(lambda: _dtype_bug(res, "attention_scores") or _score_bug(res)):
        judge_function(res, right, qk_inputs)
    judge_case(res, "unbatched", right, unbatched(res))


@procedure()
def judge_softmax_last(res, right):
    with naming(lambda: _dtype_bug(res, "softmax_last") or _softmax_bug(res)):
        judge_function(res, right, large_scores)


@procedure(partial=True)
def judge_attention(res, right):
    product_raised(res, list(_function_dims(res)), "attention")
    with naming(lambda: _dtype_bug(res, "attention") or _attention_bug(res)):
        judge_function(res, right, one_batch_axis)


@procedure(partial=True, on_error=module_error)
def judge_attention_module(res, right):
    """right: the module class. Its input checks do not depend on the weights: a wrong result hears of them too."""
    product_raised(res, _module_dims(res), "Attention.forward", module_error)
    with naming(lambda: _dtype_bug(res, "Attention.forward") or _module_bug(res, right), lambda: _refusal_bug(res)):
        judge_module(res, right, module_args, module_input, "Attention")
    refused = _refusal_bug(res)
    if refused:
        raise Mismatch(refused[0], **refused[1])


@procedure()
def judge_variance(res, right):
    """right: (the variance of raw scores, of scaled ones) for d_k = 512."""
    with naming(lambda: _variance_bug(res)):
        expect_answer("answer_var_raw", res["answer_var_raw"], right[0], rel=0.1)
        expect_answer("answer_var_scaled", res["answer_var_scaled"], right[1], rel=0.1)


@procedure()
def judge_n_params(res, right):
    expect_answer("answer_n_params", res["answer_n_params"], right, integer=True)
