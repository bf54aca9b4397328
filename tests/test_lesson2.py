"""Lesson 2: splitting and merging heads, the module, one head as a single attention, nn.MultiheadAttention.

Visible checks (right code passes, each classic bug gets its own hint, in both languages),
hidden tests (probe in the kernel, judge in the grader: the reference passes, bugs fail).
Its planted bugs (a graded submission per classic bug, which tests/test_grading.py grades as a class) are in
tools/planted/lesson2.py.
"""
import inspect
import math
import re

import pytest
import torch
import torch.nn as nn

import attn_course as course
from attn_course.checks import lesson2 as checks
from attn_course.validate import CheckFailed
from attn_course.messages import matches, t
from attn_course.probes import lesson2 as probes
from conftest import fails, fails_with, judged, passes, reference
from test_lesson1 import AttentionOK

# --------------------------------------------------------------------------- lesson 2
def split_ok(x, H):
    B, T, HD = x.shape
    return x.view(B, T, H, HD // H).transpose(1, 2)


def merge_ok(x):
    B, H, T, D = x.shape
    return x.transpose(1, 2).contiguous().view(B, T, H * D)


SPLIT_BUGS = {
    "hint_view_without_transpose": lambda x, H: x.view(x.size(0), H, x.size(1), x.size(2) // H),
    "hint_interleaved": lambda x, H: x.view(x.size(0), x.size(1), x.size(2) // H, H).permute(0, 3, 1, 2),
    "hint_heads_order": lambda x, H: split_ok(x, H).flip(1),
    "hint_missing_transpose": lambda x, H: x.view(x.size(0), x.size(1), H, x.size(2) // H),
}
MERGE_BUGS = {
    "hint_merge_without_transpose": lambda x: x.reshape(x.size(0), x.size(2), -1),
    "hint_contiguous": lambda x: x.transpose(1, 2).view(x.size(0), x.size(2), -1),
    "hint_merge_interleaved": lambda x: x.permute(0, 2, 3, 1).reshape(x.size(0), x.size(2), -1),
    "hint_heads_order": lambda x: merge_ok(x.flip(1)),
}


@pytest.mark.parametrize("hint", sorted(SPLIT_BUGS))
def test_each_split_bug_gets_its_hint(lang, hint):
    checks.check_split_heads(split_ok)
    fails_with(checks.check_split_heads, SPLIT_BUGS[hint], hint)


@pytest.mark.parametrize("hint", sorted(MERGE_BUGS))
def test_each_merge_bug_gets_its_hint(lang, hint):
    checks.check_merge_heads(merge_ok)
    fails_with(checks.check_merge_heads, MERGE_BUGS[hint], hint)


class MHAOK(nn.Module):
    def __init__(self, embed_dim, n_head, head_dim=None, split=split_ok, merge=merge_ok, scale=None, w_o=True):
        super().__init__()
        self.embed_dim, self.n_head = embed_dim, n_head
        self.head_dim = course.resolve_head_dim(embed_dim, n_head, head_dim)
        inner = n_head * self.head_dim
        self.W_q, self.W_k, self.W_v = (nn.Linear(embed_dim, inner, bias=False) for _ in range(3))
        self.W_o = nn.Linear(inner, embed_dim, bias=False)
        self.split, self.merge, self.w_o = split, merge, w_o
        self.scale = scale or math.sqrt(self.head_dim)

    def forward(self, x):
        course.expect_tokens(x, self.embed_dim)
        Q, K, V = (self.split(f(x), self.n_head) for f in (self.W_q, self.W_k, self.W_v))
        w = torch.softmax(Q @ K.transpose(-2, -1) / self.scale, dim=-1)
        y = self.merge(w @ V)
        return (self.W_o(y) if self.w_o else y), w


def variant(**kw):
    class Variant(MHAOK):
        def __init__(self, embed_dim, n_head, head_dim=None):
            super().__init__(embed_dim, n_head, head_dim, **kw)
    return Variant


class SplitBeforeProjection(MHAOK):
    def forward(self, x):
        Q = self.W_q(split_ok(x, self.n_head))   # make mutants: W_q applied after the split
        K, V = (split_ok(f(x), self.n_head) for f in (self.W_k, self.W_v))
        w = torch.softmax(Q @ K.transpose(-2, -1) / self.scale, dim=-1)
        return self.W_o(merge_ok(w @ V)), w


class SplitArgsSwapped(MHAOK):
    def forward(self, x):
        Q, K, V = (split_ok(self.n_head, f(x)) for f in (self.W_q, self.W_k, self.W_v))
        return Q, K


def test_split_heads_misused_in_the_module_is_named_by_both(lang):
    from attn_grader.verdict import hint_of
    for cls, hint in ((SplitBeforeProjection, "hint_split_input"), (SplitArgsSwapped, "hint_split_args")):
        fails_with(checks.check_mha_module, cls, hint)
        assert hint_of(fails(probes.module, cls))[0] == hint


class WideHead(MHAOK):
    def forward(self, x):
        course.expect_tokens(x, self.embed_dim)
        w = torch.softmax(self.W_q(x) @ self.W_k(x).mT / self.scale, -1)
        return self.W_o(w @ self.W_v(x)), w


class ScaledByInner(MHAOK):
    def __init__(self, embed_dim, n_head, head_dim=None):
        super().__init__(embed_dim, n_head, head_dim)
        self.scale = math.sqrt(self.n_head * self.head_dim)


class FloorHeadDim(MHAOK):
    def __init__(self, embed_dim, n_head, head_dim=None):
        super().__init__(embed_dim, n_head, head_dim or max(1, embed_dim // n_head))


def test_mha_module_checks(lang):
    checks.check_mha_module(MHAOK)
    fails_with(checks.check_mha_module, variant(split=SPLIT_BUGS["hint_view_without_transpose"]),
               "hint_view_without_transpose")
    fails_with(checks.check_mha_module, variant(split=SPLIT_BUGS["hint_interleaved"]), "hint_interleaved")
    fails_with(checks.check_mha_module, variant(merge=MERGE_BUGS["hint_merge_without_transpose"]),
               "hint_merge_without_transpose")
    fails_with(checks.check_mha_module, variant(merge=MERGE_BUGS["hint_heads_order"]), "hint_heads_order")
    fails_with(checks.check_mha_module, variant(merge=MERGE_BUGS["hint_contiguous"]), "hint_contiguous")
    fails_with(checks.check_mha_module, variant(w_o=False), "hint_w_o_missing")
    fails_with(checks.check_mha_module, ScaledByInner, "hint_scale_head_dim")
    fails_with(checks.check_mha_module, variant(scale=1.0), "hint_no_scale_d")
    fails_with(checks.check_mha_module, WideHead, "hint_not_split")
    fails_with(checks.check_mha_module, FloorHeadDim, "hint_no_divisibility_error", e=10, h=3)


def head_as_single_ok(mha, i, rows_for_w_o=False, interleave=False):
    D = mha.head_dim
    single = AttentionOK(mha.embed_dim, D).to(mha.W_q.weight)
    rows = slice(i, None, mha.n_head) if interleave else slice(i * D, (i + 1) * D)
    with torch.no_grad():
        single.W_q.weight.copy_(mha.W_q.weight[rows])
        single.W_k.weight.copy_(mha.W_k.weight[rows])
        single.W_v.weight.copy_(mha.W_v.weight[rows])
        single.W_o.weight.copy_(mha.W_o.weight[rows].T if rows_for_w_o else mha.W_o.weight[:, rows])
    return single


def test_head_as_single_checks(lang):
    checks.check_head_as_single(head_as_single_ok, AttentionOK)
    fails_with(lambda f: checks.check_head_as_single(f, AttentionOK),
               lambda m, i: head_as_single_ok(m, i, interleave=True), "hint_interleaved")
    fails_with(lambda f: checks.check_head_as_single(f, AttentionOK), lambda m, i: head_as_single_ok(m, i, True),
               "hint_head_slice")
    fails_with(lambda f: checks.check_head_as_single(f, AttentionOK), lambda m, i: m, "hint_head_returns_attention")


def test_head_as_single_bugs_found_by_mutants(lang):
    def outside_no_grad(mha, i):
        single = head_as_single_ok(mha, i)
        single.W_q.weight.copy_(single.W_q.weight)   # a parameter written in place with gradients on
        return single

    def never_copied(mha, i):
        return AttentionOK(mha.embed_dim, mha.head_dim).to(mha.W_q.weight)
    check = lambda f: checks.check_head_as_single(f, AttentionOK)  # noqa: E731
    fails_with(check, outside_no_grad, "hint_copy_no_grad")
    failure = fails_with(check, never_copied, "hint_head_not_copied")
    assert "nan" not in str(failure)


def _heads4(x, H):
    return x.view(x.size(0), x.size(1), H, x.size(2) // H)


# make mutants (issue 29): each was caught without a hint, or named by the check and not by the grader.
@pytest.mark.parametrize("split,hint", [
    (lambda x, H: _heads4(x, H).transpose(1, 3), "hint_split_transpose_axes"),
    (lambda x, H: _heads4(x, H).transpose(0, 2), "hint_split_transpose_axes"),
    (lambda x, H: x.transpose(1, 2), "hint_split_no_view"),
    (lambda x, H: x.view(x.size(0), H, x.size(1), -1).transpose(1, 2), "hint_view_without_transpose"),
    (lambda x, H: x.view(x.size(0), x.size(1), -1, H).transpose(1, 2), "hint_split_size"),
    (lambda x, H: x.view(x.size(1), x.size(0), H, -1).transpose(1, 2), "hint_view_order"),
])
def test_split_mistakes_found_by_mutants_are_named_by_both(ref, lang, split, hint):
    from attn_grader.verdict import hint_of
    fails_with(checks.check_split_heads, split, hint)
    assert hint_of(fails(probes.split_heads, split))[0] == hint


@pytest.mark.parametrize("merge,hint", [
    (lambda x: x.transpose(1, 3).contiguous().view(x.size(0), x.size(2), -1), "hint_merge_transpose_axes"),
    (lambda x: x.transpose(-1, 2).contiguous().view(x.size(0), x.size(2), -1), "hint_merge_transpose_axes"),
    (lambda x: x.transpose(1, 2).contiguous(), "hint_merge_no_view"),
    (lambda x: x.transpose(1, 2).reshape(x.size(2), x.size(0), -1), "hint_view_order"),
])
def test_merge_mistakes_found_by_mutants_are_named_by_both(ref, lang, merge, hint):
    from attn_grader.verdict import hint_of
    fails_with(checks.check_merge_heads, merge, hint)
    assert hint_of(fails(probes.merge_heads, merge))[0] == hint


class HeadCountFromHeadDim(MHAOK):
    def forward(self, x):   # H = self.head_dim: D heads of width H
        Q, K, V = (split_ok(f(x), self.head_dim) for f in (self.W_q, self.W_k, self.W_v))
        w = torch.softmax(Q @ K.transpose(-2, -1) / self.scale, dim=-1)
        return self.W_o(merge_ok(w @ V)), w


class BiasedQ(MHAOK):
    def __init__(self, embed_dim, n_head, head_dim=None):
        super().__init__(embed_dim, n_head, head_dim)
        self.W_q = nn.Linear(embed_dim, self.n_head * self.head_dim)


class SoftmaxOverHeads(MHAOK):
    def forward(self, x):
        Q, K, V = (split_ok(f(x), self.n_head) for f in (self.W_q, self.W_k, self.W_v))
        w = torch.softmax(Q @ K.transpose(-2, -1) / self.scale, dim=1)
        return self.W_o(merge_ok(w @ V)), w


def test_module_mistakes_found_by_mutants_are_named_by_both(ref, lang):
    from attn_grader.verdict import hint_of
    fails_with(checks.check_mha_module, HeadCountFromHeadDim, "hint_head_count")
    assert hint_of(fails(probes.module, HeadCountFromHeadDim))[0] == "hint_head_count"
    fails_with(checks.check_mha_module, BiasedQ, "hint_has_bias", name="W_q")
    assert hint_of(fails(probes.module, BiasedQ)) == ("hint_has_bias", {"name": "W_q"})
    with pytest.raises(CheckFailed) as info:
        checks.check_mha_module(SoftmaxOverHeads)
    assert any(matches("hint_rows_not_normalised", hint) for hint in info.value.hints), info.value
    assert hint_of(fails(probes.module, SoftmaxOverHeads))[0] == "hint_rows_not_normalised"


class ProductsSwapped(MHAOK):
    """make mutants: forward's matrix products with their operands in another order, or K not transposed. All three
    raise the same "Expected size for first two dimensions of batch2" error; the shapes the failing product was
    given (MatmulWatch) tell them apart, on both sides."""

    bug = ""

    def forward(self, x):
        Q, K, V = (split_ok(f(x), self.n_head) for f in (self.W_q, self.W_k, self.W_v))
        scores = {"k_first": lambda: K.transpose(-2, -1) @ Q, "no_transpose": lambda: Q @ K}.get(
            self.bug, lambda: Q @ K.transpose(-2, -1))()
        w = torch.softmax(scores / self.scale, dim=-1)
        return self.W_o(merge_ok(V @ w if self.bug == "v_first" else w @ V)), w


PRODUCT_BUGS = {"k_first": "hint_scores_operand_order", "v_first": "hint_weights_v_order",
                "no_transpose": "hint_transpose_k"}


@pytest.mark.parametrize("bug", sorted(PRODUCT_BUGS))
def test_a_matrix_product_that_raises_is_named_by_its_operands_on_both_sides(bug, lang):
    from attn_grader.verdict import hint_of

    Module = type("Module", (ProductsSwapped,), {"bug": bug})
    fails_with(checks.check_mha_module, Module, PRODUCT_BUGS[bug])
    for seed in (20261123, 1, 2):
        assert hint_of(fails(probes.module, Module, key="hidden_raised", seed=seed))[0] == PRODUCT_BUGS[bug], seed
    if bug != "no_transpose":
        assert t("hint_transpose_k") not in str(fails(probes.module, Module))


def test_to_torch_mha_mistakes_found_by_mutants_are_named_by_both(ref, lang):
    from attn_grader.verdict import hint_of

    def args_swapped(mha):
        return nn.MultiheadAttention(mha.n_head, mha.embed_dim, bias=False, batch_first=True).to(mha.W_q.weight)

    def list_not_cat(mha):
        theirs = to_torch_ok(mha, out=False)
        with torch.no_grad():
            theirs.in_proj_weight.copy_([mha.W_q.weight, mha.W_k.weight, mha.W_v.weight])
        return theirs
    for fn, hint in ((args_swapped, "hint_torch_mha_args"), (list_not_cat, "hint_list_not_tensor")):
        fails_with(checks.check_to_torch_mha, fn, hint)
        assert hint_of(fails(probes.to_torch_mha, fn))[0] == hint
    not_batch_first = lambda m: to_torch_ok(m, batch_first=False)  # noqa: E731
    assert hint_of(fails(probes.to_torch_mha, not_batch_first)) == ("hint_torch_mha_setup", {"what": "batch_first"})


def test_float_sizes_and_answers_get_their_hints(lang):
    fails_with(checks.check_split_heads, lambda x, H: x.view(x.size(0), x.size(1), H, x.size(2) / H).transpose(1, 2),
               "hint_int_division")
    fails_with(lambda a: checks.check_mha_param_answer(a, MHAOK), float(4 * 768 * 12 * 64), "hint_answer_not_int",
               name="answer_n_params", got=repr(float(4 * 768 * 12 * 64)))


def test_a_module_failing_through_split_heads_says_so(lang):
    ns = {"nn": nn, "torch": torch, "math": math, "course": course, "merge_heads": merge_ok,
          "split_heads": SPLIT_BUGS["hint_view_without_transpose"]}
    exec("class M(nn.Module):\n"
         "    def __init__(self, e, h, d=None):\n"
         "        super().__init__()\n"
         "        self.embed_dim, self.n_head, self.head_dim = e, h, course.resolve_head_dim(e, h, d)\n"
         "        self.W_q, self.W_k, self.W_v = (nn.Linear(e, h * self.head_dim, bias=False) for _ in range(3))\n"
         "        self.W_o = nn.Linear(h * self.head_dim, e, bias=False)\n"
         "    def forward(self, x):\n"
         "        course.expect_tokens(x, self.embed_dim)\n"
         "        Q, K, V = (split_heads(f(x), self.n_head) for f in (self.W_q, self.W_k, self.W_v))\n"
         "        w = torch.softmax(Q @ K.transpose(-2, -1) / math.sqrt(self.head_dim), -1)\n"
         "        return self.W_o(merge_heads(w @ V)), w\n", ns)
    fails_with(checks.check_mha_module, ns["M"], "hint_earlier_cause", n=1, name="split_heads")


def to_torch_ok(mha, order=("W_q", "W_k", "W_v"), transpose=False, out=True, batch_first=True, like=lambda m, w: m.to(w)):
    theirs = like(nn.MultiheadAttention(mha.embed_dim, mha.n_head, bias=False, batch_first=batch_first), mha.W_q.weight)
    with torch.no_grad():
        ws = [getattr(mha, n).weight for n in order]
        theirs.in_proj_weight.copy_(torch.cat([w.T if transpose else w for w in ws]))
        if out:
            theirs.out_proj.weight.copy_(mha.W_o.weight)
    return theirs


def test_to_torch_mha_checks(lang):
    checks.check_to_torch_mha(to_torch_ok)
    fails_with(checks.check_to_torch_mha, lambda m: to_torch_ok(m, ("W_k", "W_q", "W_v")), "hint_in_proj_order")
    fails_with(checks.check_to_torch_mha, lambda m: to_torch_ok(m, transpose=True), "hint_in_proj_transposed")
    fails_with(checks.check_to_torch_mha, lambda m: to_torch_ok(m, out=False), "hint_out_proj")
    fails_with(checks.check_to_torch_mha, lambda m: to_torch_ok(m, batch_first=False), "hint_torch_mha_setup",
               what="batch_first")
    # make mutants: without .to(mha.W_q.weight) the check passed and the lesson's next cell (float64) crashed
    fails_with(checks.check_to_torch_mha, lambda m: to_torch_ok(m, like=lambda m, w: m), "hint_torch_mha_dtype",
               got="torch.float32 / cpu", want="torch.float64 / cpu")
    fails_with(checks.check_to_torch_mha, lambda m: to_torch_ok(m, like=lambda m, w: m.to(w.dtype)),
               "hint_torch_mha_dtype", got="cpu", want="meta")
    with pytest.raises(ValueError, match=re.escape(t("torch_mha_incompatible", h=4, d=3, e=8))):
        course.expect_torch_compatible(MHAOK(8, 4, 3))


def test_mha_param_answer(lang):
    checks.check_mha_param_answer(4 * 768 * 12 * 64, MHAOK)
    with pytest.raises(CheckFailed):
        checks.check_mha_param_answer(4 * 768 * 768 + 4 * 768, MHAOK)



# --------------------------------------------------------------------------- hidden tests
@pytest.fixture(scope="module")
def ref():
    return reference("lesson2")


def test_reference_passes_its_own_hidden_tests(ref):
    passes(probes.split_heads, ref.split_heads)
    passes(probes.merge_heads, ref.merge_heads)
    passes(probes.module, ref.MultiHeadAttention)
    passes(probes.to_torch_mha, ref.to_torch_mha)
    passes(probes.n_params, 4 * 768 * 12 * 64)


def test_hidden_catches_view_without_transpose(ref):
    fails(probes.split_heads, lambda x, h: x.view(x.size(0), h, x.size(1), x.size(2) // h))


def test_hidden_catches_a_silent_floor_of_head_dim(ref):
    class Floor(ref.MultiHeadAttention):
        def __init__(self, e, h, d=None):
            super().__init__(e, h, d or max(1, e // h))
    fails(probes.module, Floor, key="hint_no_divisibility_error")


def test_hidden_head_as_single_compares_each_head(ref):
    lesson1 = reference("lesson1")

    def single(mha, i, order=None):
        D = mha.head_dim
        j = i if order is None else order(i, mha.n_head)
        rows = slice(j * D, (j + 1) * D)
        a = lesson1.Attention(mha.embed_dim, D).to(mha.W_q.weight)
        with torch.no_grad():
            for name in ("W_q", "W_k", "W_v"):
                getattr(a, name).weight.copy_(getattr(mha, name).weight[rows])
            a.W_o.weight.copy_(mha.W_o.weight[:, rows])
        return a
    passes(probes.head_as_single, single, lesson1.Attention)
    # The heads in reverse: their sum is right, each head is not.
    fails(probes.head_as_single, lambda mha, i: single(mha, i, lambda i, h: h - 1 - i), lesson1.Attention)
    fails(probes.head_as_single, lambda mha, i: "not a module", lesson1.Attention, key="hint_head_returns_attention")


def test_hidden_to_torch_mha_rebuilds_a_genuine_module(ref):
    class LookAlike(nn.Module):  # forward could return anything; only the copied weights count
        def __init__(self, mha):
            super().__init__()
            self.inner = ref.to_torch_mha(mha)
    fails(probes.to_torch_mha, LookAlike, key="hint_returns_torch_mha")

    def not_batch_first(mha):
        theirs = ref.to_torch_mha(mha)
        theirs.batch_first = False
        return theirs
    fails(probes.to_torch_mha, not_batch_first)
    fails(probes.to_torch_mha, lambda m: to_torch_ok(m, like=lambda m, w: m), key="hint_torch_mha_dtype")


def test_check_and_grader_say_what_differed_for_a_gradient_and_a_copy(ref, lang):
    """Issue 40: the grader's header names the gradient or the side effect, not other inputs, and a gradient's
    finding is a sentence (no input "-", no "max error inf"); the check gives the same finding first."""
    from attn_grader.messages import text
    from attn_grader.verdict import header_key, localize

    def detached(x, H):
        return split_ok(x.detach(), H)

    def backwards(mha):
        theirs = nn.MultiheadAttention(mha.embed_dim, mha.n_head, bias=False, batch_first=True).to(mha.W_q.weight)
        with torch.no_grad():
            theirs.in_proj_weight.copy_(torch.cat([mha.W_q.weight, mha.W_k.weight, mha.W_v.weight]))
            mha.W_o.weight.copy_(theirs.out_proj.weight)
        return theirs
    for check, probe, fn, key, header in (
            (checks.check_split_heads, probes.split_heads, detached, "grad_none", "hidden_failed_after_visible_grad"),
            (checks.check_to_torch_mha, probes.to_torch_mha, backwards, "copy_source_changed",
             "hidden_failed_after_visible_copy")):
        failure = fails(probe, fn, key=key)
        assert header_key(failure) == header
        said = localize(failure, lang)
        assert "inf" not in said and " - " not in said and text(failure.hint, lang) in said
        fails_with(check, fn, failure.hint)


def test_code_reading_the_notebooks_size_fails_on_every_seed_with_its_hint(lang):
    """The demo binds D = 4 before exercise 1: split_heads reading it passes the check's first case (D = 4) only."""
    namespace = {"D": 4}
    exec("def split_heads(x, n_head):\n    B, T, HD = x.shape\n    return x.view(B, T, n_head, D).transpose(1, 2)",
         namespace)
    fails_with(checks.check_split_heads, namespace["split_heads"], "hint_global_size", names="D = 4")
    for seed in range(8):
        assert fails(probes.split_heads, namespace["split_heads"], seed=seed).hint == \
            ("hint_global_size", {"names": "D = 4"}), seed



# Each migrated exercise with a few wrong answers: (exercise, the check, a maker of the learner's objects).
AGREE = {
    "split_view": ("split_heads", checks.check_split_heads, lambda: (SPLIT_BUGS["hint_view_without_transpose"],)),
    "split_interleaved": ("split_heads", checks.check_split_heads, lambda: (SPLIT_BUGS["hint_interleaved"],)),
    "split_missing_transpose": ("split_heads", checks.check_split_heads,
                                lambda: (SPLIT_BUGS["hint_missing_transpose"],)),
    "merge_interleaved": ("merge_heads", checks.check_merge_heads, lambda: (MERGE_BUGS["hint_merge_interleaved"],)),
    "merge_contiguous": ("merge_heads", checks.check_merge_heads, lambda: (MERGE_BUGS["hint_contiguous"],)),
    "merge_heads_order": ("merge_heads", checks.check_merge_heads, lambda: (MERGE_BUGS["hint_heads_order"],)),
    "module_no_w_o": ("module", checks.check_mha_module, lambda: (variant(w_o=False),)),
    "module_no_scale": ("module", checks.check_mha_module, lambda: (variant(scale=1.0),)),
    "module_not_split": ("module", checks.check_mha_module, lambda: (WideHead,)),
    "module_floor_head_dim": ("module", checks.check_mha_module, lambda: (FloorHeadDim,)),
    "module_k_first": ("module", checks.check_mha_module,
                       lambda: (type("Module", (ProductsSwapped,), {"bug": "k_first"}),)),
    "head_interleaved": ("head_as_single", checks.check_head_as_single,
                         lambda: (lambda m, i: head_as_single_ok(m, i, interleave=True), AttentionOK)),
    "head_rows_for_w_o": ("head_as_single", checks.check_head_as_single,
                          lambda: (lambda m, i: head_as_single_ok(m, i, True), AttentionOK)),
    "head_not_attention": ("head_as_single", checks.check_head_as_single, lambda: (lambda m, i: m, AttentionOK)),
    "torch_order": ("to_torch_mha", checks.check_to_torch_mha,
                    lambda: (lambda m: to_torch_ok(m, ("W_k", "W_q", "W_v")),)),
    # (not a module left with its own random out_proj: torch's initialisation in this process makes the error differ)
    "torch_transposed": ("to_torch_mha", checks.check_to_torch_mha,
                         lambda: (lambda m: to_torch_ok(m, transpose=True),)),
    "torch_float32": ("to_torch_mha", checks.check_to_torch_mha,
                      lambda: (lambda m: to_torch_ok(m, like=lambda m, w: m),)),
    "torch_not_batch_first": ("to_torch_mha", checks.check_to_torch_mha,
                              lambda: (lambda m: to_torch_ok(m, batch_first=False),)),
}


def _source(objs) -> str:
    out = []
    for obj in objs:
        try:
            out.append(inspect.getsource(obj))
        except (OSError, TypeError):
            pass
    return "\n".join(out)


@pytest.mark.parametrize("case", sorted(AGREE))
def test_the_check_is_the_graders_procedure_on_a_seed_of_its_own(ref, lang, case):
    """The visible check and the grader run one procedure: on the check's seed, the grader with the hidden reference
    reaches the very verdict the check reached with the course's right answer (its message key, fields and hint)."""
    from attn_grader.verdict import hint_of
    exercise, check, make = AGREE[case]
    objs = make()
    with pytest.raises(CheckFailed) as info:
        check(*objs)
    seed = checks.SEEDS[exercise]
    graded = judged(getattr(probes, exercise), *objs, seed=seed, source=_source(objs))
    seen = info.value.mismatch
    assert (graded.key, graded.fields, hint_of(graded)) == (seen.key, seen.fields, hint_of(seen))
