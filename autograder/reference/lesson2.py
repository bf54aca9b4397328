"""Lesson 2's reference and its judges. Lives only in autograder/: never in a release, never in a kernel."""
import math

import torch
import torch.nn as nn
from attn_course.checks import lesson2 as checks
from attn_course.probes import lesson2 as probe
from attn_course.validate import expect_rank, expect_size, expect_tokens, expect_torch_compatible, resolve_head_dim
from attn_course.judging import (
    TOLERANCE, Mismatch, expect_outputs, judge_module,
    matching_bug, naming,
)
from attn_grader.judge import judge, judged_by


def split_heads(x, n_head):
    expect_rank(x, 3, "x", "(B, T, H·D)")
    B, T, HD = x.shape
    return x.view(B, T, n_head, HD // n_head).transpose(1, 2)


def merge_heads(x):
    expect_rank(x, 4, "x", "(B, H, T, D)")
    B, H, T, D = x.shape
    return x.transpose(1, 2).contiguous().view(B, T, H * D)


class MultiHeadAttention(nn.Module):
    def __init__(self, embed_dim, n_head, head_dim=None):
        super().__init__()
        self.embed_dim = expect_size(embed_dim, "embed_dim")
        self.n_head = expect_size(n_head, "n_head")
        self.head_dim = resolve_head_dim(embed_dim, n_head, head_dim)
        inner = self.n_head * self.head_dim
        self.W_q = nn.Linear(embed_dim, inner, bias=False)
        self.W_k = nn.Linear(embed_dim, inner, bias=False)
        self.W_v = nn.Linear(embed_dim, inner, bias=False)
        self.W_o = nn.Linear(inner, embed_dim, bias=False)

    def forward(self, x):
        expect_tokens(x, self.embed_dim)
        H = self.n_head
        Q, K, V = (split_heads(f(x), H) for f in (self.W_q, self.W_k, self.W_v))
        weights = torch.softmax(Q @ K.transpose(-2, -1) / math.sqrt(self.head_dim), dim=-1)
        return self.W_o(merge_heads(weights @ V)), weights


def head_as_single(mha, i):
    """Weights of head i as lesson-1 tensors: (W_q_i, W_k_i, W_v_i, W_o_i)."""
    D = mha.head_dim
    rows = slice(i * D, (i + 1) * D)
    return (mha.W_q.weight[rows], mha.W_k.weight[rows], mha.W_v.weight[rows], mha.W_o.weight[:, rows])


def to_torch_mha(mha):
    expect_torch_compatible(mha)
    torch_mha = nn.MultiheadAttention(mha.embed_dim, mha.n_head, bias=False, batch_first=True).to(mha.W_q.weight)
    with torch.no_grad():
        torch_mha.in_proj_weight.copy_(torch.cat([mha.W_q.weight, mha.W_k.weight, mha.W_v.weight], dim=0))
        torch_mha.out_proj.weight.copy_(mha.W_o.weight)
    return torch_mha


# --------------------------------------------------------------------------- naming the mistake
# On a mismatch, the learner's float64 results are compared with the visible checks' classic
# bugs (attn_course.checks.lesson2), computed here on the grader's own inputs.
def _module_bug(res):
    layout = [name for name, _ in res["layout"]]
    if "W_o.weight" not in layout:
        return "hint_w_o_missing"
    biased = [name for name in layout if name.endswith(".bias")]
    if biased:   # the visible check names the layer as lesson 1's does (make mutants: bias=True)
        return "hint_has_bias", {"name": biased[0].split(".")[0]}
    e, h, d = args = probe.module_args(res)
    ref = MultiHeadAttention(*args).double()
    res.fill_parameters(ref)
    x = probe.module_input(res, args, "float64", torch.float64)
    got = res["float64"]
    if not (isinstance(got, tuple) and len(got) == 2):
        return None
    y, weights = got
    if isinstance(y, torch.Tensor) and y.shape[-1] == h * d != e:
        return "hint_w_o_missing"
    with torch.no_grad():
        key = checks.precision_hint(got, ref(x))
        if key:
            return key
        if isinstance(weights, torch.Tensor) and weights.dim() == 3:
            return checks.wide_weights_hint(weights, ref, x, h, d)
        variants = checks.mha_weight_variants(ref, x, h, d)
        key = matching_bug(weights, variants)
        if key is not None:
            return ("hint_softmax_axis", {"axis": -2}) if key == "hint_softmax_axis" else key
        if checks.dropped_weights(weights, variants[None]):
            return "hint_weights_dropout"
        right = ref(x)[1]
        heads = right @ split_heads(ref.W_v(x), h)
        variants = checks.output_variants(ref, x, right, h)
        key = matching_bug(y, variants | {"hint_w_o_missing": merge_heads(heads)})  # E = H·D: no shape to tell
    if key is None and isinstance(weights, torch.Tensor) and weights.is_floating_point():
        sums = weights.sum(-1)   # as the visible check: softmax over another axis, or none (make mutants)
        # NaN or inf: the visible check says so (has_nan), and "divide by the sum of exp" would not be the cause
        if bool(torch.isfinite(sums).all()) and not matching_bug(sums, {"ones": torch.ones_like(sums)}, 1e-3):
            return "hint_rows_not_normalised", {"lo": float(sums.min()), "hi": float(sums.max())}
    return key


# --------------------------------------------------------------------------- judges
def _matmul_raised(res):
    """forward raised in a matrix product the probe watched: named from the shapes it was given, as the visible
    check does (checks.matmul_hint), unless the error's own text names it (checks.module_error, on_error)."""
    if "matmul_failed" not in res or "raised_error" not in res:
        return
    error = str(res["raised_error"])
    kind, _, message = error.partition(": ")
    args = probe.module_args(res)
    t_len = probe.module_input(res, args, "float64", torch.float64).size(1)
    failed = res["matmul_failed"]
    try:
        key = checks.matmul_hint(failed, t_len, args[2])
    except (TypeError, ValueError):
        key = None
    if key is None and checks.module_error(kind, message, ""):
        return   # partial: nothing wrong before the error, so the verdict goes to on_error
    raise Mismatch("hidden_raised", hint=key, name="MultiHeadAttention.forward", error=error)


@judge("lesson2.module", on_error=checks.module_error, partial=True)
def judge_module_(res):
    _matmul_raised(res)
    with naming(lambda: _module_bug(res)):
        judge_module(res, MultiHeadAttention, probe.module_args, probe.module_input)
    if res["default_head_dim"] != 4:
        raise Mismatch("hidden_mismatch", case="head_dim = embed_dim // n_head", err=float("inf"),
                       hint=("hint_head_dim_default", {"e": 12, "h": 3, "want": 4, "got": res["default_head_dim"]}))
    if res["error_on_10_3"] != "ValueError":
        raise Mismatch("hint_head_dim_divides", e=10, h=3)
    args = probe.module_args(res)
    ref = MultiHeadAttention(*args).double()
    res.fill_parameters(ref)
    for case in probe.SIZE_ONE_CASES:
        x = probe.size_one_input(res, args, case)
        got = res[case]
        with torch.no_grad():
            want = ref(x)
        with naming(lambda: checks.size_one_hint(got, want)):
            expect_outputs(("case_size_one", {"sizes": tuple(x.shape)}), got, want, TOLERANCE["float64"])


# --------------------------------------------------------------------------- judges
# Each is the exercise's public procedure (attn_course.probes.lesson2) given this reference: the visible check runs
# the same procedure with the right answer the course's public facts give.
judged_by("lesson2.split_heads", probe.judge_split_heads, split_heads)
judged_by("lesson2.merge_heads", probe.judge_merge_heads, merge_heads)
judged_by("lesson2.head_as_single", probe.judge_head_as_single, MultiHeadAttention)
judged_by("lesson2.to_torch_mha", probe.judge_to_torch_mha, MultiHeadAttention)
judged_by("lesson2.n_params", probe.judge_n_params, 4 * 768 * 12 * 64)
