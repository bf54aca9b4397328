"""Lesson 2: wrong answers whose hint named another cause than the code's (learners working through the lesson in
Japanese, issue 43, and answers written to find more). Each is named by its real cause, and the same one, by the
visible check and by the grader; the check and the grader share the diagnosis (attn_course.checks.lesson2)."""
import math

import numpy as np
import pytest
import torch
import torch.nn as nn

from attn_course.checks import lesson2 as checks
from attn_course.validate import CheckFailed
from attn_course.probes import lesson2 as probes
from conftest import check_names, fails, fails_with
from test_lesson1 import AttentionOK
from test_lesson2 import MHAOK, merge_ok, ref, split_ok  # noqa: F401 - ref: the graded reference, a fixture


class Averaged(MHAOK):
    def forward(self, x):
        y, w = super().forward(x)
        return y, w.mean(1)


class OneHead(MHAOK):
    def forward(self, x):
        y, w = super().forward(x)
        return y, w[:, 0]


class DroppedWeights(MHAOK):
    def forward(self, x):
        Q, K, V = (split_ok(f(x), self.n_head) for f in (self.W_q, self.W_k, self.W_v))
        w = torch.dropout(torch.softmax(Q @ K.transpose(-2, -1) / self.scale, -1), 0.1, True)
        return self.W_o(merge_ok(w @ V)), w


class ScaledBy(MHAOK):
    divisor = staticmethod(lambda m: m.head_dim)

    def __init__(self, embed_dim, n_head, head_dim=None):
        super().__init__(embed_dim, n_head, head_dim)
        self.scale = self.divisor(self)


class ScaledAfterSoftmax(MHAOK):
    def forward(self, x):
        Q, K, V = (split_ok(f(x), self.n_head) for f in (self.W_q, self.W_k, self.W_v))
        w = torch.softmax(Q @ K.transpose(-2, -1), -1) / self.scale
        return self.W_o(merge_ok(w @ V)), w


class WeightNotTransposed(MHAOK):
    def forward(self, x):
        Q, K, V = (split_ok(f(x), self.n_head) for f in (self.W_q, self.W_k, self.W_v))
        w = torch.softmax(Q @ K.transpose(-2, -1) / self.scale, -1)
        return merge_ok(w @ V) @ self.W_o.weight, w


def scaled_by(divisor):
    return type("Scaled", (ScaledBy,), {"divisor": staticmethod(divisor)})


def head_copy(copies=("W_q", "W_k", "W_v", "W_o"), source=None, to_mha=True):
    """head_as_single copying the layers in copies, each from source's layer (default: its own)."""
    def head_as_single(mha, i):
        D = mha.head_dim
        single = AttentionOK(mha.embed_dim, D)
        single = single.to(mha.W_q.weight) if to_mha else single
        rows = slice(i * D, (i + 1) * D)
        with torch.no_grad():
            for name in copies:
                weight = getattr(mha, (source or {}).get(name, name)).weight
                getattr(single, name).weight.copy_(weight[:, rows] if name == "W_o" else weight[rows])
        return single
    return head_as_single


def to_torch_with(dropout=0.0, eval_mode=False, blocks=("W_q", "W_k", "W_v")):
    def to_torch_mha(mha):
        theirs = nn.MultiheadAttention(mha.embed_dim, mha.n_head, dropout=dropout, bias=False,
                                       batch_first=True).to(mha.W_q.weight)
        E = mha.embed_dim
        with torch.no_grad():
            for j, name in enumerate(("W_q", "W_k", "W_v")):
                if name in blocks:
                    theirs.in_proj_weight[j * E:(j + 1) * E].copy_(getattr(mha, name).weight)
            theirs.out_proj.weight.copy_(mha.W_o.weight)
        return theirs.eval() if eval_mode else theirs
    return to_torch_mha


MODULE = {
    "averaged": (Averaged, "hint_weights_averaged", {}),
    "one_head": (OneHead, "hint_weights_one_head", {}),
    "dropout": (DroppedWeights, "hint_weights_dropout", {}),
    "scale_d": (scaled_by(lambda m: m.head_dim), "hint_scale_by_d", {}),
    "scale_heads": (scaled_by(lambda m: math.sqrt(m.n_head)), "hint_scale_by_heads", {}),
    "scale_mul": (scaled_by(lambda m: 1 / math.sqrt(m.head_dim)), "hint_scale_d_mul", {}),
    "scale_after_softmax": (ScaledAfterSoftmax, "hint_scale_after_softmax", {}),
    # "mat1 and mat2 shapes cannot be multiplied" was named "W_o's input is not H·D wide"; it is H·D wide
    "weight_not_transposed": (WeightNotTransposed, "hint_weight_not_transposed", {}),
}
HEAD = {
    "float32": (head_copy(to_mha=False), "hint_head_dtype", {"got": "torch.float32 / cpu", "want": "torch.float64 / cpu"}),
    "k_v_not_copied": (head_copy(("W_q", "W_o")), "hint_head_layer_not_copied", {"layer": "W_k"}),
    "k_from_q": (head_copy(source={"W_k": "W_q"}), "hint_head_layer_other", {"layer": "W_k", "other": "W_q"}),
    "never_copied": (head_copy(()), "hint_head_not_copied", {}),
}
TO_TORCH = {
    "dropout": (to_torch_with(dropout=0.1), "hint_torch_mha_dropout", {"p": 0.1}),
    "k_not_copied": (to_torch_with(blocks=("W_q", "W_v")), "hint_in_proj_block", {"layer": "W_k"}),
}


@pytest.mark.parametrize("case", sorted(MODULE))
def test_module_mistakes_are_named_by_their_cause_on_both_sides(ref, lang, case):
    from attn_grader.verdict import hint_of
    cls, key, fields = MODULE[case]
    fails_with(checks.check_mha_module, cls, key, **fields)
    assert hint_of(fails(probes.module, cls)) == (key, fields)


@pytest.mark.parametrize("case", sorted(HEAD))
def test_head_as_single_mistakes_are_named_by_their_cause_on_both_sides(ref, lang, case):
    from attn_grader.verdict import hint_of
    fn, key, fields = HEAD[case]
    fails_with(lambda f: checks.check_head_as_single(f, AttentionOK), fn, key, **fields)
    assert hint_of(fails(probes.head_as_single, fn, AttentionOK)) == (key, fields)


@pytest.mark.parametrize("case", sorted(TO_TORCH))
def test_to_torch_mha_mistakes_are_named_by_their_cause_on_both_sides(ref, lang, case):
    from attn_grader.verdict import hint_of
    fn, key, fields = TO_TORCH[case]
    if key == "hint_in_proj_block":   # the rows differ with E: the check's E and the grader's drawn one
        with pytest.raises(CheckFailed) as info:
            checks.check_to_torch_mha(fn)
        assert "W_k" in str(info.value) and "in_proj_weight" in str(info.value)
        got_key, got_fields = hint_of(fails(probes.to_torch_mha, fn))
        assert (got_key, got_fields["layer"], got_fields["hi"] - got_fields["lo"] + 1) == \
            (key, "W_k", got_fields["lo"]), got_fields
    else:
        fails_with(checks.check_to_torch_mha, fn, key, **fields)
        assert hint_of(fails(probes.to_torch_mha, fn)) == (key, fields)


def test_dropout_in_eval_mode_computes_what_mha_does(ref, lang):
    from conftest import passes
    fn = to_torch_with(dropout=0.1, eval_mode=True)
    checks.check_to_torch_mha(fn)
    passes(probes.to_torch_mha, fn)


def test_answers_that_are_not_python_numbers_say_so(lang):
    """numpy.int64 is a number: the message asks for a Python int (a count) and says how; inf is a float."""
    for answer, key, fields in ((np.int64(4 * 768 * 12 * 64), "answer_not_int_kind", {"kind": "int64"}),
                                (float("inf"), "answer_not_finite", {"got": "inf"})):
        fails_with(lambda a: checks.check_mha_param_answer(a, MHAOK), answer, key, name="answer_n_params", **fields)
        assert fails(probes.n_params, answer).key == key


class WeightsAsFloat32(MHAOK):
    def forward(self, x):
        y, w = super().forward(x)
        return y, w.float()


class OutputOnly(MHAOK):
    def forward(self, x):
        return super().forward(x)[0]


def test_results_of_another_dtype_or_count_are_explained_not_raised(ref, lang):
    """The check raised torch's own "expected scalar type Float but found Double"; the grader said a Tensor came
    where a torch.Tensor should."""
    check_names(checks.check_mha_module, WeightsAsFloat32, "hint_keep_dtype", key="hidden_dtype")
    assert fails(probes.module, WeightsAsFloat32).hint == "hint_keep_dtype"
    assert fails(probes.module, OutputOnly).key == "hidden_not_tuple"


def test_the_lesson_one_hint_names_are_not_lesson_twos():
    """Lesson 2's scaling hints name D (self.head_dim), the lesson's symbol, and not lesson 1's d_k."""
    from attn_course.messages import MESSAGES
    from attn_course.probes.lesson2_mistakes import mha_weight_variants
    module = mha_weight_variants(probes.Weights(7, 3, 4).double(), torch.randn(2, 5, 7, dtype=torch.float64), 3, 4)
    keys = {key[0] if isinstance(key, tuple) else key for key in module if key is not None}
    for key in keys:
        for lang in ("ja", "ko"):
            assert "d_k" not in MESSAGES[key][lang], (key, lang)


def test_a_swapped_pair_is_not_quoted_as_the_learners_code(lang):
    fails_with(checks.check_mha_module, type("Swapped", (MHAOK,), {"forward": lambda s, x: MHAOK.forward(s, x)[::-1]}),
               "hint_pair_order", name="MultiHeadAttention.forward")


def test_weights_with_nan_are_not_told_to_divide_by_the_sum(ref):
    """√(E // H) is √0 on sizes where E < H: the grader's weights are NaN, and "divide each row by the sum of exp"
    is no cause of that."""
    from attn_grader.verdict import hint_of
    assert hint_of(fails(probes.module, scaled_by(lambda m: math.sqrt(m.embed_dim // m.n_head))))[0] != \
        "hint_rows_not_normalised"
