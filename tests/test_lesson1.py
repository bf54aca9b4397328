"""Lesson 1: single-head attention, the Attention module, two numeric answers.

Visible checks (right code passes, each classic bug gets its own hint, in both languages),
hidden tests (probe in the kernel, judge in the grader: the reference passes, bugs fail).
Its planted bugs (a graded submission per classic bug, which tests/test_grading.py grades as a class) are in
tools/planted/lesson1.py.
"""
import inspect
import math
import re

import pytest
import torch
import torch.nn as nn

import attn_course as course
from attn_course.checks import lesson1 as checks
from attn_course.messages import t
from attn_course.probes import lesson1 as probes
from attn_grader.verdict import hint_of
from conftest import check_names, fails, fails_with, judged, passes, reference

# --------------------------------------------------------------------------- lesson 1 functions
def scores_ok(Q, K):
    return Q @ K.transpose(-2, -1) / math.sqrt(Q.size(-1))


SCORE_BUGS = {
    "hint_no_scale": lambda Q, K: Q @ K.transpose(-2, -1),
    "hint_scale_dk": lambda Q, K: Q @ K.transpose(-2, -1) / Q.size(-1),
    "hint_scale_mul": lambda Q, K: Q @ K.transpose(-2, -1) * math.sqrt(Q.size(-1)),
    "hint_scale_wrong_dim": lambda Q, K: Q @ K.transpose(-2, -1) / math.sqrt(K.size(-2)),
    "hint_kq_order": lambda Q, K: K @ Q.transpose(-2, -1) / math.sqrt(Q.size(-1)),
    "hint_transpose_k": lambda Q, K: Q @ K / math.sqrt(Q.size(-1)),
    "hint_dot_T": lambda Q, K: Q @ K.T / math.sqrt(Q.size(-1)),
}


def test_right_scores_pass(lang, capsys):
    checks.check_attention_scores(scores_ok)
    assert t("passed", name="attention_scores") in capsys.readouterr().out


@pytest.mark.parametrize("hint", sorted(SCORE_BUGS))
def test_each_score_bug_gets_its_hint(lang, hint):
    fails_with(checks.check_attention_scores, SCORE_BUGS[hint], hint)


def test_unfinished_function_says_so(lang):
    def stub(Q, K):
        raise NotImplementedError()
    fails_with(checks.check_attention_scores, stub, "not_implemented", name="attention_scores")
    # transpose(1, 2) on the 4-D input swaps the heads' axis in: the product fails, and both sides name its operands.
    check_names(checks.check_attention_scores, lambda Q, K: Q @ K.transpose(1, 2) / math.sqrt(Q.size(-1)),
                "hint_transpose_k", key="hidden_raised")


def test_an_unbatched_input_is_tried_by_both(ref, lang):
    """Attention is defined for (..., T, d): code right with batch axes only raises on the probe's unbatched case,
    and positive axes are named as the cause."""
    def batched_only(Q, K):
        return Q @ K.transpose(-2, -1) / math.sqrt(Q.size(-1)) if Q.dim() > 2 else Q @ K.transpose(1, 2)
    check_names(checks.check_attention_scores, batched_only, "hint_negative_dims", key="hidden_raised")
    assert hint_of(fails(probes.attention_scores, batched_only, key="hidden_raised"))[0] == "hint_negative_dims"


def test_wrong_shape_says_what_was_expected(lang):
    failure = check_names(checks.check_attention_scores, lambda Q, K: scores_ok(Q, K).sum(0, keepdim=True),
                          None, key="hidden_shape")
    fields = failure.mismatch.fields
    assert fields["got"] == (1, *fields["want"][1:]) and fields["case"] == ("case_float64",)
    assert str(failure).startswith(t("check_shape", case=t("case_float64"), want=fields["want"], got=fields["got"]))


def softmax_ok(s):
    e = (s - s.amax(-1, keepdim=True)).exp()
    return e / e.sum(-1, keepdim=True)


def test_softmax_checks(lang):
    checks.check_softmax(softmax_ok)
    fails_with(checks.check_softmax, lambda s: (s - s.amax(-2, keepdim=True)).exp() / (s - s.amax(-2, keepdim=True))
               .exp().sum(-2, keepdim=True), "hint_softmax_axis", axis=-2)
    # The text asks for the max shift written by hand: torch's softmax, however it is reached, is refused.
    for library in (lambda s: torch.softmax(s, dim=-1), lambda s: s.softmax(-1),
                    lambda s: torch.nn.functional.softmax(s, -1), lambda s: torch.ops.aten._softmax(s, -1, False)):
        fails_with(checks.check_softmax, library, "hint_softmax_by_hand", name="softmax_last")
    fails_with(checks.check_softmax, lambda s: s.exp() / s.exp().sum(-1, keepdim=True), "hint_softmax_overflow")
    unnormalised = lambda s: (s - s.amax(-1, keepdim=True)).exp()  # noqa: E731
    failure = check_names(checks.check_softmax, unnormalised, "hint_rows_not_normalised", key="hidden_mismatch")
    assert hint_of(failure.mismatch)[1]["hi"] > 1


def attention_ok(Q, K, V):
    w = torch.softmax(scores_ok(Q, K), dim=-1)
    return w @ V, w


def test_attention_checks(lang):
    checks.check_attention(attention_ok)
    fails_with(checks.check_attention, lambda Q, K, V: (attention_ok(Q, K, V)[0], scores_ok(Q, K)), "hint_returns_scores")
    fails_with(checks.check_attention,
               lambda Q, K, V: (torch.softmax(scores_ok(Q, K), -2) @ V, torch.softmax(scores_ok(Q, K), -2)),
               "hint_softmax_axis", axis=-2)
    fails_with(checks.check_attention,
               lambda Q, K, V: (torch.softmax(Q @ K.mT, -1) @ V, torch.softmax(Q @ K.mT, -1)), "hint_no_scale")
    with pytest.raises(checks.CheckFailed,
                       match=re.escape(t("check_not_tuple", case=t("case_float64"), n=2, kind="Tensor"))):
        checks.check_attention(lambda Q, K, V: attention_ok(Q, K, V)[0])


class AttentionOK(nn.Module):
    def __init__(self, embed_dim, key_dim):
        super().__init__()
        self.embed_dim = embed_dim
        self.W_q = nn.Linear(embed_dim, key_dim, bias=False)
        self.W_k = nn.Linear(embed_dim, key_dim, bias=False)
        self.W_v = nn.Linear(embed_dim, key_dim, bias=False)
        self.W_o = nn.Linear(key_dim, embed_dim, bias=False)

    def forward(self, x):
        course.expect_tokens(x, self.embed_dim)
        y, w = attention_ok(self.W_q(x), self.W_k(x), self.W_v(x))
        return self.W_o(y), w


class NoWoApplied(AttentionOK):
    def forward(self, x):
        course.expect_tokens(x, self.embed_dim)
        return attention_ok(self.W_q(x), self.W_k(x), self.W_v(x))


class NoWoAtAll(AttentionOK):
    def __init__(self, embed_dim, key_dim):
        super().__init__(embed_dim, key_dim)
        del self.W_o


class WithBias(AttentionOK):
    def __init__(self, embed_dim, key_dim):
        super().__init__(embed_dim, key_dim)
        self.W_q = nn.Linear(embed_dim, key_dim)


class NoInputCheck(AttentionOK):
    def forward(self, x):
        y, w = attention_ok(self.W_q(x), self.W_k(x), self.W_v(x))
        return self.W_o(y), w


class Unscaled(AttentionOK):
    def forward(self, x):
        w = torch.softmax(self.W_q(x) @ self.W_k(x).mT, -1)
        return self.W_o(w @ self.W_v(x)), w


def test_module_checks(lang):
    checks.check_attention_module(AttentionOK)
    fails_with(checks.check_attention_module, NoWoApplied, "hint_w_o_missing")
    fails_with(checks.check_attention_module, NoWoAtAll, "hint_w_o_missing")
    fails_with(checks.check_attention_module, WithBias, "hint_has_bias", name="W_q")
    failure = check_names(checks.check_attention_module, NoInputCheck, "hint_no_input_check", key="hint_no_input_check")
    assert hint_of(failure.mismatch)[1]["shape"].count(",") == 1   # x without its batch axis
    fails_with(checks.check_attention_module, Unscaled, "hint_no_scale")


def test_numeric_answer_checks(lang):
    checks.check_variance_answers(512, 1, 505.3, 0.99)
    fails_with(lambda a: checks.check_variance_answers(a, 1, 505.3, 0.99), 22.6, "answer_std_not_var",
               name="answer_var_raw", got=22.6)
    fails_with(lambda a: checks.check_variance_answers(512, a, 505.3, 0.99), None, "answer_missing",
               name="answer_var_scaled")
    # Near the table's measurement but not the theoretical value: the hidden test grades d_k and 1 within 10%.
    for raw, scaled in ((300, 1), (512, 1.2), (450, 1)):
        fails_with(lambda a: checks.check_variance_answers(*a, 505.3, 0.99), (raw, scaled), "hint_var_theory")
    checks.check_variance_answers(505.3, 0.99, 505.3, 0.99)   # the measured values are within 10% of theory
    checks.check_param_answer(196608, AttentionOK)
    assert checks.attention_count() == 4 * 768 * 64
    fails_with(lambda a: checks.check_param_answer(a, AttentionOK), 4 * 768 * 64 + 1, "answer_wrong",
               name="answer_n_params")
    # A broken module does not cost the point of a right answer, and does not give it to a wrong one: a count of
    # the learner's own module with a bias (4·768·64 + 768) was ✔ against that module, and 0 in grading.
    checks.check_param_answer(196608, NoWoAtAll)
    fails_with(lambda a: checks.check_param_answer(a, NoWoAtAll), 4 * 768 * 64 + 768, "answer_wrong",
               name="answer_n_params")



def test_check_failure_renders_without_a_stack(lang):
    try:
        checks.check_attention_scores(SCORE_BUGS["hint_no_scale"])
    except checks.CheckFailed as error:
        lines = error._render_traceback_()
    assert t("check_failed") in lines[0] and any(t("hint_no_scale") in line for line in lines)
    assert not any("Traceback" in line for line in lines)


# --------------------------------------------------------------------------- hidden tests
@pytest.fixture(scope="module")
def ref():
    return reference("lesson1")


def test_reference_passes_its_own_hidden_tests(ref):
    passes(probes.attention_scores, ref.attention_scores)
    passes(probes.softmax_last, ref.softmax_last)
    passes(probes.attention, ref.attention)
    passes(probes.attention_module, ref.Attention)
    passes(probes.variance, 512, 1)
    passes(probes.n_params, 196608)
    passes(probes.n_params, torch.tensor(196608))


def test_hidden_catches_a_float32_shortcut(ref):
    fails(probes.attention_scores, lambda Q, K: Q.float() @ K.float().mT / math.sqrt(Q.size(-1)), key="hidden_dtype")
    # The grader's inputs have four axes: transpose(1, 2) swaps the wrong pair and the product fails,
    # which names transpose(-2, -1) too.
    assert fails(probes.attention_scores, lambda Q, K: Q @ K.transpose(1, 2) / math.sqrt(Q.size(-1)),
                 key="hidden_raised").hint == "hint_transpose_k"


def test_hidden_catches_a_softmax_without_the_max_shift(ref):
    fails(probes.softmax_last, lambda s: s.exp() / s.exp().sum(-1, keepdim=True))


def test_hidden_catches_a_broken_gradient(ref):
    fails(probes.attention_scores, lambda Q, K: (Q @ K.mT / math.sqrt(Q.size(-1))).detach(),
          key="grad_none")


def test_hidden_catches_answers_that_only_look_right(ref):
    fails(probes.variance, 22.6, 1, key="answer_wrong")
    fails(probes.n_params, 4 * 768 * 64 + 768, key="answer_wrong")
    fails(probes.n_params, None, key="answer_missing")


def test_hidden_catches_a_module_with_extra_bias(ref):
    class Biased(ref.Attention):
        def __init__(self, e, d):
            super().__init__(e, d)
            self.W_o = nn.Linear(d, e)
    fails(probes.attention_module, Biased, key="hidden_layout")


@pytest.mark.parametrize("scores,hint", [
    (lambda Q, K: Q @ K.transpose(-2, -1) // math.sqrt(Q.size(-1)), "hint_scale_floor"),
    (lambda Q, K: math.sqrt(Q.size(-1)) / (Q @ K.transpose(-2, -1)), "hint_scale_inverted"),
    (lambda Q, K: Q @ K.transpose(-2, -1) / math.sqrt(Q.size(0)), "hint_scale_wrong_dim"),
])
def test_scales_found_by_mutants_are_named_by_both(ref, lang, scores, hint):
    fails_with(checks.check_attention_scores, scores, hint)
    assert hint_of(fails(probes.attention_scores, scores))[0] == hint


@pytest.mark.parametrize("softmax,hint", [
    (lambda s: (lambda e: e / e.sum(-1, keepdim=True))(torch.exp(s - s.amax(dim=-2, keepdim=True))), "hint_softmax_shift_axis"),
    (lambda s: (lambda e: e / e.sum(-1, keepdim=True))(torch.exp(s.amax(dim=-1, keepdim=True) - s)), "hint_softmax_negated"),
    (lambda s: (lambda e: e / e.sum(-1, keepdim=True))(s - s.amax(dim=-1, keepdim=True)), "hint_softmax_no_exp"),
    (lambda s: (lambda e: e / e.sum(-1, keepdim=True))(torch.exp(s - s)), "hint_softmax_flat"),
])
def test_softmax_mistakes_found_by_mutants_are_named_by_both(ref, lang, softmax, hint):
    fails_with(checks.check_softmax, softmax, hint)
    assert hint_of(fails(probes.softmax_last, softmax))[0] == hint


def test_k_and_v_swapped_is_named_by_both(ref, lang):
    class Swapped(ref.Attention):
        def forward(self, x):
            Q, K, V = self.W_q(x), self.W_k(x), self.W_v(x)
            y, w = ref.attention(Q, V, K)
            return self.W_o(y), w
    fails_with(checks.check_attention_module, Swapped, "hint_kv_swapped")
    assert hint_of(fails(probes.attention_module, Swapped))[0] == "hint_kv_swapped"


@pytest.mark.parametrize("slip,hint", [("Q", "hint_qk_not_projected"), ("K", "hint_qk_not_projected"),
                                       ("V", "hint_v_not_projected"), ("pair", "hint_attention_pair_order")])
def test_a_projection_left_out_is_named_by_both(ref, lang, slip, hint):
    # make mutants: Q = x (or K = x) raised the course's "Q and K widths differ" with no hint on either side; V = x
    # and `weights, y = attention(…)` raised in W_o, and both sides said "transpose K".
    class Slipped(ref.Attention):
        def forward(self, x):
            Q, K, V = (x if slip == name else f(x) for name, f in zip("QKV", (self.W_q, self.W_k, self.W_v)))
            y, w = ref.attention(Q, K, V)
            if slip == "pair":
                y, w = w, y
            return self.W_o(y), w
    failure = fails_with(checks.check_attention_module, Slipped, hint)
    assert t("hint_transpose_k") not in str(failure)
    assert hint_of(fails(probes.attention_module, Slipped))[0] == hint


def test_a_count_with_a_division_in_it_is_named_by_both(ref, lang):
    # make mutants: 4 / 768 * 64 was "must be an integer" in the check, and the grader's "write it as an integer".
    fails_with(lambda a: checks.check_param_answer(a, ref.Attention), 4 / 768 * 64, "hint_answer_not_int",
               name="answer_n_params", got=repr(4 / 768 * 64))
    assert hint_of(fails(probes.n_params, 4 / 768 * 64))[0] == "hint_answer_not_int"


def test_a_pair_returned_the_other_way_round_is_named_by_both(ref, lang):
    def swapped(Q, K, V):
        y, w = ref.attention(Q, K, V)
        return w, y
    fails_with(checks.check_attention, swapped, "hint_pair_order", name="attention")
    assert hint_of(fails(probes.attention, swapped))[0] == "hint_pair_order"


def test_a_linear_built_the_wrong_way_round_is_named_by_both(ref, lang):
    # nn.Linear(D, E) for W_q: forward raises "mat1 and mat2 shapes cannot be multiplied", which alone would
    # suggest a transposed K. The grader reads the layout recorded before the error, as the check does.
    class Swapped(ref.Attention):
        def __init__(self, e, d):
            super().__init__(e, d)
            self.W_q = nn.Linear(d, e, bias=False)
    failure = check_names(checks.check_attention_module, Swapped, "hint_layer_shape", key="hidden_layout")
    fields = hint_of(failure.mismatch)[1]
    assert (fields["name"], fields["got_in"], fields["got_out"]) == ("W_q", fields["want_out"], fields["want_in"])
    failure = fails(probes.attention_module, Swapped, key="hidden_layout")
    assert hint_of(failure)[0] == "hint_layer_shape" and hint_of(failure)[1]["name"] == "W_q"


def test_hidden_catches_a_module_that_hides_its_bug_behind_zero_weights(ref):
    # The module's own initialisation never decides a grade: with all-zero weights a missing
    # scale would give the same uniform weights, but the grader draws the weights.
    class ZeroUnscaled(ref.Attention):
        def __init__(self, e, d):
            super().__init__(e, d)
            for layer in (self.W_q, self.W_k, self.W_v, self.W_o):
                nn.init.zeros_(layer.weight)

        def forward(self, x):
            Q, K, V = self.W_q(x), self.W_k(x), self.W_v(x)
            w = torch.softmax(Q @ K.mT, dim=-1)
            return self.W_o(w @ V), w
    fails(probes.attention_module, ZeroUnscaled, key="hidden_mismatch")


def _sm(s):
    e = (s - s.amax(-1, keepdim=True)).exp()
    return e / e.sum(-1, keepdim=True)


def _scale(Q):
    return math.sqrt(Q.size(-1))


# A product that raises: PyTorch's error reads the same for all three, so "transpose K" was said to each.
PRODUCTS = {
    "keys_before_queries": ("scores", lambda Q, K: K.transpose(-2, -1) @ Q / _scale(Q), "hint_kq_order"),
    "k_not_transposed": ("scores", lambda Q, K: Q @ K / _scale(Q), "hint_transpose_k"),
    "values_before_weights": ("attention", lambda Q, K, V: (V @ _sm(Q @ K.transpose(-2, -1) / _scale(Q)),
                                                            _sm(Q @ K.transpose(-2, -1) / _scale(Q))),
                              "hint_weights_v_order"),
}


@pytest.mark.parametrize("bug", PRODUCTS)
def test_a_matrix_product_that_raises_is_named_by_its_operands_on_both_sides(bug, lang):
    what, fn, hint = PRODUCTS[bug]
    check, probe = ((checks.check_attention_scores, probes.attention_scores) if what == "scores" else
                    (checks.check_attention, probes.attention))
    fails_with(check, fn, hint)
    for seed in (20261123, 1, 2):
        assert hint_of(fails(probe, fn, key="hidden_raised", seed=seed))[0] == hint, seed


def test_a_module_whose_weighted_average_is_the_wrong_way_round_is_named_on_both_sides(ref, lang):
    class ValuesFirst(ref.Attention):
        def forward(self, x):
            Q, K, V = self.W_q(x), self.W_k(x), self.W_v(x)
            w = _sm(Q @ K.transpose(-2, -1) / _scale(Q))
            return self.W_o(V @ w), w

    class KeysFirst(ref.Attention):   # T_q = T_k: (d_k, d_k) weights, which fail at weights @ V
        def forward(self, x):
            Q, K, V = self.W_q(x), self.W_k(x), self.W_v(x)
            w = _sm(K.transpose(-2, -1) @ Q / _scale(Q))
            return self.W_o(w @ V), w
    for cls, hint in ((ValuesFirst, "hint_weights_v_order"), (KeysFirst, "hint_kq_order")):
        fails_with(checks.check_attention_module, cls, hint)
        for seed in (20261123, 1, 2):
            assert hint_of(fails(probes.attention_module, cls, key="hidden_raised", seed=seed))[0] == hint, seed


def test_what_the_visible_check_tries_the_grader_tries_too(ref, lang):
    """make mutants found these "equivalent": right on the grader's inputs, wrong on the visible check's, so they
    lost nothing in grading. The grader now tries what the check tries: rows far apart, and one batch axis."""
    global_max = lambda s: (lambda e: e / e.sum(-1, keepdim=True))(torch.exp(s - s.max()))  # noqa: E731
    fails_with(checks.check_softmax, global_max, "hint_softmax_overflow")
    assert hint_of(fails(probes.softmax_last, global_max))[0] == "hint_softmax_overflow"
    four_d_only = lambda Q, K: Q @ K.transpose(2, -1) / math.sqrt(Q.size(-1))  # noqa: E731
    with pytest.raises(checks.CheckFailed):
        checks.check_attention_scores(four_d_only)
    fails(probes.attention_scores, four_d_only)


def test_matching_bug_counts_nan_only_where_the_variant_has_it():
    """The grader's finder with nan=True (lesson 1's softmax of far-apart rows): NaN matches NaN in the same places."""
    from attn_course.judging import matching_bug
    nan = float("nan")
    want = torch.tensor([[nan, nan], [0.25, 0.75]])
    assert matching_bug(torch.tensor([[nan, nan], [0.25, 0.75]]), {"hint": want}, nan=True) == "hint"
    assert matching_bug(torch.tensor([[nan, nan], [0.25, 0.75]]), {"hint": want}) is None
    assert matching_bug(torch.tensor([[nan, 0.5], [0.25, 0.75]]), {"hint": want}, nan=True) is None
    assert matching_bug(torch.tensor([[nan, nan], [nan, 0.75]]), {"hint": want}, nan=True) is None
    assert matching_bug(torch.tensor([[nan, nan], [0.5, 0.5]]), {("hint", -2): want}, nan=True) is None


# --------------------------------------------------------------------------- one procedure (issue 40)
def _notebook_function(source: str, **notebook_globals):
    """A function defined in a notebook whose top level binds notebook_globals (the table's `d_k`)."""
    space = {"math": math, "torch": torch, "__name__": "__main__", **notebook_globals}
    exec(source, space)  # noqa: S102 - the test's own source
    return space[source.split("def ", 1)[1].split("(", 1)[0]]


@pytest.mark.parametrize("d_k", [4, 64, 512])
def test_a_global_size_fails_the_check_and_the_grader_on_every_seed(ref, lang, d_k):
    """The table binds d_k = 4, 64, 512: scores that read it are right only where the inputs' width is that
    value. The check's last cases and the probe draw no such width, and both name the global read."""
    scores = _notebook_function("def scores(Q, K):\n    return Q @ K.transpose(-2, -1) / math.sqrt(d_k)", d_k=d_k)
    fails_with(checks.check_attention_scores, scores, "hint_global_size", names=f"d_k = {d_k}")
    for seed in range(5):
        assert hint_of(fails(probes.attention_scores, scores, seed=seed))[0] == "hint_global_size"


def test_a_cut_gradient_fails_the_check_and_the_grader_alike(ref, lang):
    detached = lambda Q, K: scores_ok(Q, K).detach()  # noqa: E731
    fails_with(checks.check_attention_scores, detached, "hint_grad_cut")
    assert fails(probes.attention_scores, detached, key="grad_none").hint == "hint_grad_cut"

    def no_grad_weights(Q, K, V):
        with torch.no_grad():
            weights = ref.softmax_last(scores_ok(Q, K))
        return weights @ V, weights
    fails_with(checks.check_attention, no_grad_weights, "hint_grad_cut")
    assert fails(probes.attention, no_grad_weights, key="grad_none").hint == "hint_grad_cut"

    class Detached(ref.Attention):
        def forward(self, x):
            return super().forward(x.detach())
    fails_with(checks.check_attention_module, Detached, "hint_grad_cut")
    assert fails(probes.attention_module, Detached).hint == "hint_grad_cut"


def test_a_result_in_another_dtype_fails_the_check_and_the_grader_alike(ref, lang):
    """A softmax computed in float32 is within the first case's 1e-6 of float64's: the grader's dtype rule
    (findings.dtype_finding) fails it on both sides, with the same hint."""
    def in_float32(scores):
        e = torch.exp((scores - scores.amax(dim=-1, keepdim=True)).float())
        return e / e.sum(dim=-1, keepdim=True)
    fails_with(checks.check_softmax, in_float32, "hint_keep_dtype")
    assert fails(probes.softmax_last, in_float32, key="hidden_dtype").hint == "hint_keep_dtype"


@pytest.mark.parametrize("hint", sorted(SCORE_BUGS))
def test_the_check_is_the_graders_procedure_on_a_seed_of_its_own(ref, lang, hint):
    """The visible check and the grader run one procedure: on the check's seed, the grader with the hidden reference
    reaches the very verdict the check reached with the course's right answer (its message key, fields and hint)."""
    with pytest.raises(checks.CheckFailed) as info:
        checks.check_attention_scores(SCORE_BUGS[hint])
    seed = checks.SEEDS["attention_scores"]
    # The grader reads the learner's cell too (a `.T` in it names the error): here, the function's source.
    graded = judged(probes.attention_scores, SCORE_BUGS[hint], seed=seed, source=inspect.getsource(SCORE_BUGS[hint]))
    seen = info.value.mismatch
    assert (graded.key, graded.fields, hint_of(graded)) == (seen.key, seen.fields, hint_of(seen))


def test_weights_whose_rows_do_not_sum_to_one_are_named_in_attention_as_in_softmax(ref, lang):
    """A softmax_last that divides by the whole tensor's sum fails exercise 3 with hint_rows_not_normalised; attention
    and the module call it and fail too: the same hint on both sides, so the class report counts the mistake once,
    in exercise 3 (attn_grader.verdict.carried_from), where it reported "a mistake no known bug explains" twice."""
    def softmax_whole(s):
        e = (s - s.amax(-1, keepdim=True)).exp()
        return e / e.sum()

    def attention_on_it(Q, K, V):
        w = softmax_whole(Q @ K.transpose(-2, -1) / math.sqrt(Q.size(-1)))
        return w @ V, w
    check_names(checks.check_attention, attention_on_it, "hint_rows_not_normalised")
    assert hint_of(fails(probes.attention, attention_on_it))[0] == "hint_rows_not_normalised"
