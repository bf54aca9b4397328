"""Lesson 1's reference and its judges. Lives only in autograder/: never in a release, never in a kernel.

The grader imports this module in its own process and calls a judge with what the
learner's kernel sent (attn_course/probes/lesson1.py draws the same inputs).
"""
import math

import torch
import torch.nn as nn
from attn_course.checks import lesson1 as checks
from attn_course.findings import dtype_finding
from attn_course.probes import lesson1 as probe
from attn_course.validate import expect_qkv, expect_size, expect_tokens
from attn_grader.judge import (
    DTYPE_CASES, Mismatch, expect_answer, judge, judge_function, judge_module, matching_bug, naming,
)


def attention_scores(Q, K):
    expect_qkv(Q, K)
    return Q @ K.transpose(-2, -1) / math.sqrt(Q.size(-1))


def softmax_last(scores):
    shifted = scores - scores.amax(dim=-1, keepdim=True)
    e = shifted.exp()
    return e / e.sum(dim=-1, keepdim=True)


def attention(Q, K, V):
    expect_qkv(Q, K, V)
    weights = softmax_last(attention_scores(Q, K))
    return weights @ V, weights


class Attention(nn.Module):
    def __init__(self, embed_dim, key_dim):
        super().__init__()
        self.embed_dim, self.key_dim = expect_size(embed_dim, "embed_dim"), expect_size(key_dim, "key_dim")
        self.W_q = nn.Linear(embed_dim, key_dim, bias=False)
        self.W_k = nn.Linear(embed_dim, key_dim, bias=False)
        self.W_v = nn.Linear(embed_dim, key_dim, bias=False)
        self.W_o = nn.Linear(key_dim, embed_dim, bias=False)

    def forward(self, x):
        expect_tokens(x, self.embed_dim)
        y, weights = attention(self.W_q(x), self.W_k(x), self.W_v(x))
        return self.W_o(y), weights


# --------------------------------------------------------------------------- naming the mistake
# On a mismatch, the learner's float64 results are compared with the visible checks' classic
# bugs (attn_course.checks.lesson1), computed here on the grader's own inputs.
def _dtype_bug(res, name: str):
    """A result in another dtype than its input's, by the check's rule (findings.dtype_finding)."""
    for case, dtype in DTYPE_CASES:
        finding = dtype_finding(name, res[case], dtype)
        if finding:
            return finding[2]
    return None


def _score_bug(res, scores):
    Q, K = probe.qk_inputs(res, "float64", torch.float64)
    variants = checks.score_variants(Q, K)
    variants["hint_kq_order"] = K @ Q.transpose(-2, -1) / math.sqrt(Q.size(-1))
    return matching_bug(scores, variants)


def _softmax_bug(res):
    (scores,) = probe.large_scores(res, "float64", torch.float64)
    got = res["float64"]
    if isinstance(got, torch.Tensor) and not torch.isfinite(got).all():
        # The max taken over another axis leaves the rows around -800 as 0 / 0 too: the same NaN, the same rest.
        return matching_bug(got, checks.softmax_variants(scores), 1e-6, nan=True) or "hint_softmax_overflow"
    variants = {("hint_softmax_axis", (("axis", axis),)): torch.softmax(scores, dim=axis) for axis in (-2, 0)}
    return matching_bug(got, {**variants, **checks.softmax_variants(scores)})


def _attention_bug(res):
    Q, K, _ = probe.one_batch_axis(res, "float64", torch.float64)
    got = res["float64"]
    weights = got[1] if isinstance(got, tuple) and len(got) == 2 else got
    return _weights_bug(weights, checks.weight_variants(Q, K))


def _weights_bug(weights, variants):
    key = matching_bug(weights, variants)
    return ("hint_softmax_axis", {"axis": -2}) if key == "hint_softmax_axis" else key


def _module_bug(res):
    layout = [name for name, _ in res["layout"]]
    if "W_o.weight" not in layout:
        return "hint_w_o_missing"
    biased = [name for name in layout if name.endswith(".bias")]
    if biased:
        return "hint_has_bias", {"name": biased[0].split(".")[0]}
    args = probe.module_args(res)
    ref = Attention(*args).double()
    res.fill_parameters(ref)
    x = probe.module_input(res, args, "float64", torch.float64)
    got = res["float64"]
    if not (isinstance(got, tuple) and len(got) == 2):
        return None
    if isinstance(got[0], torch.Tensor) and got[0].shape[-1] == args[1] != args[0]:
        return "hint_w_o_missing"
    with torch.no_grad():
        Q, K = ref.W_q(x), ref.W_k(x)
        variants = checks.weight_variants(Q, K)
        variants["hint_wrong_projection"] = torch.softmax(K @ Q.transpose(-2, -1) / math.sqrt(args[1]), dim=-1)
        variants["hint_kv_swapped"] = checks.kv_swapped(Q, ref.W_v(x), args[1])
    return _weights_bug(got[1], variants)


def _variance_bug(res):
    got = res["answer_var_raw"]
    if isinstance(got, (int, float)) and abs(got - math.sqrt(512)) < 0.25 * math.sqrt(512):
        return "answer_std_not_var", {"name": "answer_var_raw", "got": got}
    return None


def _product_raised(res, dims, name: str, on_error=None) -> None:
    """The learner's code raised in a matrix product the probe watched: named from the shapes it was given, as the
    visible check does (checks.products_named). dims: (T_q, T_k, d_k, d_v) of each case the probe ran; the
    failing product's shapes pick out which."""
    if "matmul_failed" not in res or "raised_error" not in res:
        return
    try:
        kind, message = (str(part) for part in res["raised_error"])
        failed = [tuple(int(n) for n in shape) for shape in res["matmul_failed"]]
    except (TypeError, ValueError):
        return
    if not checks.generic_product_error(kind, message, on_error):
        return
    key = next((k for k in (checks.product_hint(failed, *d) for d in dims) if k), None)
    raise Mismatch("hidden_raised", hint=key, name=name, error=f"{kind}: {message}"[:300])


def _function_dims(res):
    """(T_q, T_k, d_k, d_v) of every case of probe.qkv_inputs."""
    for case in ("float64", "float32", "grad"):
        _, _, tq, tk, d, dv = probe.qkv_sizes(res, case)
        yield tq, tk, d, dv


def _module_dims(res):
    """(T, T, d_k, d_k): probe.module_args and probe.module_input read one draw, "args" = (B, T, E, d_k)."""
    _, t, _, d = probe.module_sizes(res)
    return [(t, t, d, d)]


# --------------------------------------------------------------------------- judges
# Sizes and values are drawn from the grader's seed; every size differs from every other,
# so a swapped axis cannot pass.
@judge("lesson1.attention_scores", partial=True)
def judge_attention_scores(res):
    _product_raised(res, list(_function_dims(res)), "attention_scores")
    with naming(lambda: _dtype_bug(res, "attention_scores") or _score_bug(res, res["float64"])):
        judge_function(res, attention_scores, probe.qk_inputs)


@judge("lesson1.softmax_last")
def judge_softmax_last(res):
    with naming(lambda: _dtype_bug(res, "softmax_last") or _softmax_bug(res)):
        judge_function(res, softmax_last, probe.large_scores)


@judge("lesson1.attention", partial=True)
def judge_attention(res):
    _product_raised(res, list(_function_dims(res)), "attention")
    with naming(lambda: _dtype_bug(res, "attention") or _attention_bug(res)):
        judge_function(res, attention, probe.one_batch_axis)


@judge("lesson1.attention_module", partial=True, on_error=checks.module_error)
def judge_attention_module(res):
    _product_raised(res, _module_dims(res), "Attention.forward", checks.module_error)
    with naming(lambda: _dtype_bug(res, "Attention.forward") or _module_bug(res)):
        judge_module(res, Attention, probe.module_args, probe.module_input)


@judge("lesson1.variance")
def judge_variance(res):
    with naming(lambda: _variance_bug(res)):
        expect_answer("answer_var_raw", res["answer_var_raw"], 512.0, rel=0.1)
        expect_answer("answer_var_scaled", res["answer_var_scaled"], 1.0, rel=0.1)


@judge("lesson1.n_params")
def judge_n_params(res):
    expect_answer("answer_n_params", res["answer_n_params"], 4 * 768 * 64, integer=True)
