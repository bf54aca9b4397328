"""Lesson 3: causal and padding masks, the two conventions, NaN rows, dropout, the module.

Visible checks (right code passes, each classic bug gets its own hint, in both languages),
hidden tests (probe in the kernel, judge in the grader: the reference passes, bugs fail).
Its planted bugs (a graded submission per classic bug, which tests/test_grading.py grades as a class) are in
tools/planted/lesson3.py.
"""
import inspect
import math
import re

import pytest
import torch
import torch.nn as nn

import attn_course as course
from attn_course.checks import lesson3 as checks
from attn_course.messages import t
from attn_course.probes import lesson3 as probes
from attn_course.validate import CheckFailed
from attn_grader.verdict import hint_of
from conftest import check_names, fails, fails_with, judged, passes, reference
from planted.lesson3 import SDPA_LINE
from test_lesson2 import merge_ok, split_ok

# --------------------------------------------------------------------------- lesson 3
def test_mask_function_checks(lang):
    ok = lambda T, device=None: torch.ones(T, T, dtype=torch.bool, device=device).tril()  # noqa: E731
    checks.check_causal_mask(ok)
    fails_with(checks.check_causal_mask, lambda T, device=None: ok(T, device).T, "hint_upper_triangle")
    fails_with(checks.check_causal_mask, lambda T, device=None: ~ok(T, device), "hint_inverted_mask")
    fails_with(checks.check_causal_mask, lambda T, device=None: ok(T), "hint_mask_device")
    fails_with(checks.check_causal_mask, lambda T, device=None: ok(T, device).float(), "hint_mask_not_bool",
               dtype=torch.float32)
    checks.check_apply_mask(lambda s, k: s.masked_fill(~k, float("-inf")))
    fails_with(checks.check_apply_mask, lambda s, k: s.masked_fill(k, float("-inf")), "hint_inverted_mask")
    fails_with(checks.check_apply_mask, lambda s, k: s * k, "hint_mask_multiplied")
    checks.check_padding_keep(lambda n, T: torch.arange(T, device=n.device) < n[:, None])
    fails_with(checks.check_padding_keep, lambda n, T: torch.arange(T, device=n.device) <= n[:, None],
               "hint_padding_off_by_one")
    fails_with(checks.check_padding_keep, lambda n, T: torch.arange(T) < n[:, None], "hint_padding_device")
    fails_with(checks.check_padding_keep, lambda n, T: torch.arange(T, device=n.device) >= n[:, None],
               "hint_padding_inverted")
    checks.check_mha_mask_to_sdpa(lambda m: ~m if m.dtype == torch.bool else m)
    fails_with(checks.check_mha_mask_to_sdpa, lambda m: m, "hint_same_convention")
    fails_with(checks.check_mha_mask_to_sdpa, lambda m: ~m if m.dtype == torch.bool else -m, "hint_additive_changed")
    checks.check_safe_softmax(lambda s: torch.softmax(s, -1).nan_to_num(0.0))
    fails_with(checks.check_safe_softmax, lambda s: torch.softmax(s, -1), "hint_nan_fully_masked")
    # -inf replaced by -1e9: no NaN, but a fully masked row becomes uniform.
    fails_with(checks.check_safe_softmax, lambda s: torch.softmax(s.clamp(min=-1e9), -1), "hint_safe_softmax_uniform")


def test_a_wrong_mask_says_how_many_places_not_a_max_error(lang):
    # A count of wrong places was shown as "max error 10"; masked scores hold -inf, whose difference showed as nan.
    triu = lambda T, device=None: torch.ones(T, T, dtype=torch.bool, device=device).triu()  # noqa: E731
    failure = fails_with(checks.check_causal_mask, triu, "hint_upper_triangle")
    T = failure.mismatch.fields["total"] ** 0.5
    # triu against tril: both triangles but the diagonal
    assert failure.mismatch.key == "mask_differs" and failure.mismatch.fields["n"] == T * (T - 1)
    assert failure.message == t("mask_differs", **failure.mismatch.fields)
    failure = fails_with(checks.check_apply_mask, lambda s, k: s.masked_fill(k, float("-inf")), "hint_inverted_mask")
    assert failure.mismatch.key == "mask_differs" and "nan" not in failure.message.lower()


class CausalOK(nn.Module):
    def __init__(self, embed_dim, n_head, head_dim=None, dropout=0.0, max_len=32, bug=None):
        super().__init__()
        self.embed_dim, self.n_head, self.bug = embed_dim, n_head, bug
        self.bugs = set(bug) if isinstance(bug, tuple) else {bug}
        self.head_dim = course.resolve_head_dim(embed_dim, n_head, head_dim)
        inner = n_head * self.head_dim
        self.W_q, self.W_k, self.W_v = (nn.Linear(embed_dim, inner, bias=False) for _ in range(3))
        self.W_o = nn.Linear(inner, embed_dim, bias=False)
        self.dropout = nn.Dropout(dropout)
        if bug != "no_buffer":
            self.register_buffer("causal", torch.ones(max_len, max_len, dtype=torch.bool).tril(),
                                 persistent=bug == "persistent")

    def forward(self, x, lengths=None, use_sdpa=False):
        course.expect_tokens(x, self.embed_dim)
        B, T, _ = x.shape
        Q, K, V = (split_ok(f(x), self.n_head) for f in (self.W_q, self.W_k, self.W_v))
        bugs = self.bugs
        keep = (torch.ones(T, T, dtype=torch.bool).tril() if "cpu" in bugs
                else self.causal if "unsliced_buffer" in bugs else self.causal[:T, :T])
        if "triu" in bugs:
            keep = keep.T
        if "lengths_not_mask" in bugs and lengths is not None:
            keep = keep & lengths[:, None, None, :]
        elif (lengths is not None or "lengths_always" in bugs) and "ignore_lengths" not in bugs:
            pad = torch.arange(T, device=x.device) < lengths[:, None]
            pad = pad[:, None, :] if "b1t" in bugs else pad[:, None, None, :]
            keep = keep | pad if "padding_or" in bugs else keep & pad
        if use_sdpa:
            mask = ~keep if "sdpa_inverted" in bugs else keep
            p = self.dropout.p if self.training or "sdpa_eval_dropout" in bugs else 0.0
            y = torch.nn.functional.scaled_dot_product_attention(Q, K, V, attn_mask=mask, dropout_p=p)
            return self.W_o(merge_ok(y if "sdpa_nan" in bugs else y.nan_to_num(0.0))), None
        s = Q @ K.transpose(-2, -1) / math.sqrt(self.embed_dim if "sqrt_e" in bugs else self.head_dim)
        if "after_softmax" in bugs:
            w = torch.softmax(s, -1).masked_fill(~keep, 0.0)
        elif "dropout_on_scores" in bugs:
            w = torch.softmax(self.dropout(s.masked_fill(~keep, float("-inf"))), -1).nan_to_num(0.0)
        else:
            w = torch.softmax(s.masked_fill(~keep, float("-inf")), -1)
            w = w if "nan" in bugs else w.nan_to_num(0.0)
        dropped = (torch.nn.functional.dropout(w, self.dropout.p) if "eval_dropout" in bugs
                   else w if "dropout_on_scores" in bugs else self.dropout(w))
        y = merge_ok(dropped @ V) if "no_w_o" in bugs else self.W_o(merge_ok(dropped @ V))
        return y, (dropped if "return_dropped" in bugs else w)


def causal_variant(bug):
    class Variant(CausalOK):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs, bug=bug)
    return Variant


def _source(obj) -> str:
    """The learner's code as the check reads it (attn_course.judging.verify): a class made in a test may have none."""
    try:
        return inspect.getsource(obj)
    except (OSError, TypeError):
        return ""


def test_the_right_module_passes_the_check(lang):
    checks.check_causal_module(CausalOK)


@pytest.mark.parametrize("bug,hint", [
    ("after_softmax", "hint_mask_after_softmax"), ("triu", "hint_upper_triangle"),
    ("ignore_lengths", "hint_padding_ignored"), ("nan", "hint_nan_fully_masked"),
    ("eval_dropout", "hint_dropout_eval"), ("return_dropped", "hint_weights_after_dropout"),
    ("no_buffer", "hint_buffer_missing"), ("cpu", "hint_mask_device"), ("sdpa_inverted", "hint_sdpa_mismatch"),
    ("sdpa_eval_dropout", "hint_dropout_eval_sdpa"), ("persistent", "hint_buffer_persistent"),
    ("sqrt_e", "hint_scale_head_dim"), ("b1t", "hint_padding_broadcast"), ("sdpa_nan", "hint_sdpa_nan_rows"),
    ("dropout_on_scores", "hint_dropout_on_scores"),
    # found by make mutants (issue 29): the grader named the last one's output as a dropout mistake
    ("padding_or", "hint_padding_or"), ("lengths_always", "hint_lengths_none"),
    ("lengths_not_mask", "hint_lengths_not_mask"), ("no_w_o", "hint_w_o_missing"),
])
def test_causal_module_bug_gets_its_hint_by_the_graders_procedure(lang, bug, hint):
    """The check names each bug; on the check's seed the grader, with the hidden reference, reaches the very verdict
    (its message key, fields and hint): one procedure, so a bug only the check named (no buffer) is named by both."""
    wrong = causal_variant(bug)
    seen = fails_with(checks.check_causal_module, wrong, hint).mismatch
    graded = judged(probes.module, wrong, seed=checks.SEEDS["module"], source=_source(wrong))
    # Dropout left on in eval draws masks of its own: how far the output is off is a draw, not the procedure's.
    fields = (lambda m: {k: v for k, v in m.fields.items() if k != "err"}) if "eval_dropout" in bug else \
        (lambda m: m.fields)
    assert repr((graded.key, fields(graded), hint_of(graded))) == repr((seen.key, fields(seen), hint_of(seen)))


def test_sdpa_nan_rows_must_become_what_the_masked_path_gives(lang):
    # make mutants: nan_to_num(1.0) on SDPA's output passed the check (no NaN left) and lost the grader's points.
    class NanToOne(CausalOK):
        def forward(self, x, lengths=None, use_sdpa=False):
            if not use_sdpa:
                return super().forward(x, lengths)
            B, T, _ = x.shape
            Q, K, V = (split_ok(f(x), self.n_head) for f in (self.W_q, self.W_k, self.W_v))
            keep = self.causal[:T, :T]
            if lengths is not None:
                keep = keep & (torch.arange(T) < lengths[:, None])[:, None, None, :]
            y = torch.nn.functional.scaled_dot_product_attention(Q, K, V, attn_mask=keep)
            return self.W_o(merge_ok(y.nan_to_num(1.0))), None
    fails_with(checks.check_causal_module, NanToOne, "hint_sdpa_nan_rows")


def test_a_second_mistake_is_named_after_the_first(lang):
    # The weights are wrong (triu) and dropout is still on in eval: the learner hears of both now.
    failure = fails_with(checks.check_causal_module, causal_variant(("triu", "eval_dropout")), "hint_upper_triangle")
    assert t("hint_dropout_eval") in failure.also and t("also") in str(failure)
    assert not fails_with(checks.check_causal_module, causal_variant("triu"), "hint_upper_triangle").also


def test_a_module_failing_through_an_earlier_exercise_says_so(lang):
    ns = {"torch": torch, "nn": nn, "math": math, "course": course, "split_heads": split_ok, "merge_heads": merge_ok,
          "causal_mask": lambda T, device=None: torch.ones(T, T, dtype=torch.bool, device=device).triu(),
          "apply_mask": lambda s, k: s.masked_fill(~k, float("-inf")),
          "padding_keep": lambda n, T: torch.arange(T, device=n.device) < n[:, None],
          "safe_softmax": lambda s: torch.softmax(s, -1).nan_to_num(0.0)}
    exec(MODULE_SOURCE, ns)
    failure = fails_with(checks.check_causal_module, ns["CausalSelfAttention"], "hint_earlier_cause",
                         n=1, name="causal_mask")
    assert failure.hints[0] == t("hint_earlier_cause", n=1, name="causal_mask")


MODULE_SOURCE = """
class CausalSelfAttention(nn.Module):
    def __init__(self, embed_dim, n_head, head_dim=None, dropout=0.0, max_len=32):
        super().__init__()
        self.embed_dim, self.n_head = embed_dim, n_head
        self.head_dim = course.resolve_head_dim(embed_dim, n_head, head_dim)
        inner = n_head * self.head_dim
        self.W_q, self.W_k, self.W_v = (nn.Linear(embed_dim, inner, bias=False) for _ in range(3))
        self.W_o = nn.Linear(inner, embed_dim, bias=False)
        self.dropout = nn.Dropout(dropout)
        self.register_buffer("causal", causal_mask(max_len), persistent=False)

    def forward(self, x, lengths=None, use_sdpa=False):
        B, T, _ = x.shape
        Q, K, V = (split_heads(f(x), self.n_head) for f in (self.W_q, self.W_k, self.W_v))
        keep = self.causal[:T, :T]
        if lengths is not None:
            keep = keep & padding_keep(lengths, T)[:, None, None, :]
        if use_sdpa:
            y = torch.nn.functional.scaled_dot_product_attention(Q, K, V, attn_mask=keep)
            return self.W_o(merge_heads(y.nan_to_num(0.0))), None
        weights = safe_softmax(apply_mask(Q @ K.transpose(-2, -1) / math.sqrt(self.head_dim), keep))
        return self.W_o(merge_heads(self.dropout(weights) @ V)), weights
"""


INF = float("-inf")
APPLY_MASK_BUGS = {
    "hint_keep_as_given": lambda s, k: s.masked_fill(~k[None, None], INF),
    "hint_fill_not_inf": lambda s, k: s.masked_fill(~k, torch.finfo(s.dtype).min),
    "hint_additive_nan": lambda s, k: s + (~k) * INF,
    "hint_mask_multiplied": lambda s, k: s.masked_fill(~k, 0.0),
    "hint_mask_not_applied": lambda s, k: s,
}


@pytest.mark.parametrize("hint", sorted(APPLY_MASK_BUGS))
def test_each_apply_mask_bug_gets_its_hint(lang, hint):
    fails_with(checks.check_apply_mask, APPLY_MASK_BUGS[hint], hint)


def test_mask_bugs_found_by_mutants_get_their_hints(lang):
    ones = lambda T, device=None: torch.ones(T, T, dtype=torch.bool, device=device)  # noqa: E731
    fails_with(checks.check_causal_mask, lambda T, device=None: ones(T, device).tril(diagonal=-1), "hint_mask_diagonal")
    fails_with(checks.check_causal_mask, lambda T, device=None: ones(T, device), "hint_mask_no_tril")
    fails_with(checks.check_mha_mask_to_sdpa, lambda m: ~m, "hint_invert_float_mask")
    fails_with(checks.check_padding_keep, lambda n, T: torch.arange(T, device=n.device) > n[:, None],
               "hint_padding_inverted")


def test_a_causal_buffer_used_whole_is_named_not_a_transpose(lang):
    # (max_len, max_len) against (T, T) scores: a broadcast error whose generic hint was "transpose K".
    failure = check_names(checks.check_causal_module, causal_variant("unsliced_buffer"), "hint_causal_slice")
    assert hint_of(failure.mismatch)[1]["max_len"] == probes.MAX_LEN
    assert t("hint_transpose_k") not in str(failure)


def _module_variant(old: str, new: str, cell: str = "forward"):
    """MODULE_SOURCE's module with one line changed: a learner's own mistake in the module."""
    assert MODULE_SOURCE.count(old) == 1, old
    ns = {"torch": torch, "nn": nn, "math": math, "course": course, "split_heads": split_ok, "merge_heads": merge_ok,
          "causal_mask": lambda T, device=None: torch.ones(T, T, dtype=torch.bool, device=device).tril(),
          "apply_mask": lambda s, k: s.masked_fill(~k, float("-inf")),
          "padding_keep": lambda n, T: torch.arange(T, device=n.device) < n[:, None],
          "safe_softmax": lambda s: torch.softmax(s, -1).nan_to_num(0.0)}
    exec(MODULE_SOURCE.replace(old, new), ns)
    return ns["CausalSelfAttention"]


# Issue 29, a simulated learner: each module mistake and the cause both sides must name (none named the bool mask).
MODULE_MISTAKES = {
    "sdpa_no_w_o": (SDPA_LINE, "return merge_heads(y.nan_to_num(0.0)), None", "hint_w_o_missing"),
    "sdpa_not_merged": (SDPA_LINE, "return self.W_o(y.nan_to_num(0.0)), None", "hint_sdpa_merge"),
    "sdpa_reshaped": (SDPA_LINE, "return self.W_o(y.nan_to_num(0.0).reshape(B, T, -1)), None",
                      "hint_merge_without_transpose"),
    "sdpa_scale_e": ("attn_mask=keep)", "attn_mask=keep, scale=1 / math.sqrt(self.embed_dim))", "hint_scale_head_dim"),
    "sdpa_inverted": ("attn_mask=keep)", "attn_mask=~keep)", "hint_sdpa_mismatch"),
    "sdpa_args": ("(Q, K, V, attn_mask", "(K, Q, V, attn_mask", "hint_sdpa_args"),
    "padding_max_len": ("padding_keep(lengths, T)", "padding_keep(lengths, self.causal.size(0))", "hint_padding_max_len"),
    "query_axis": ("[:, None, None, :]", "[:, None, :, None]", "hint_padding_query_axis"),
    "in_place_and": ("keep = keep & padding_keep", "keep &= padding_keep", "hint_inplace_and_buffer"),
    "off_corner": ("keep = self.causal[:T, :T]", "keep = self.causal[1:T + 1, 1:T + 1]", "hint_causal_full_length"),
    "scale_t": ("math.sqrt(self.head_dim)", "math.sqrt(T)", "hint_scale_wrong_dim"),
    "scale_as_number": ("math.sqrt(self.head_dim)", "math.sqrt(4)", "hint_scale_as_number"),
    "merged_by_reshape": ("merge_heads(self.dropout(weights) @ V)", "(self.dropout(weights) @ V).reshape(B, T, -1)",
                          "hint_merge_without_transpose"),
}


@pytest.mark.parametrize("mistake", sorted(MODULE_MISTAKES))
def test_module_mistakes_are_named_by_their_cause_on_both_sides(lang, mistake):
    old, new, hint = MODULE_MISTAKES[mistake]
    cls = _module_variant(old, new)
    failure = fails_with(checks.check_causal_module, cls, hint)
    assert t("hint_sdpa_mismatch") not in str(failure) or hint == "hint_sdpa_mismatch"
    assert not failure.also, failure.also   # one mistake: no "also" line
    hidden = fails(probes.module, cls)
    assert hint_of(hidden)[0] == hint and not hidden.also, (hint_of(hidden), hidden.also)


@pytest.mark.parametrize("bug,hint", [("sqrt_e", "hint_scale_head_dim"), ("nan", "hint_nan_fully_masked"),
                                      ("after_softmax", "hint_mask_after_softmax"), ("triu", "hint_upper_triangle"),
                                      ("ignore_lengths", "hint_padding_ignored")])
def test_a_mistake_of_the_masked_path_only_adds_no_also_line_about_sdpa(lang, bug, hint):
    """The SDPA path's NaN rows and eval dropout were compared with the masked path's output: a mistake there
    gave two false "also" lines blaming use_sdpa=True, which was right (and NaN gave the grader a false one)."""
    assert not fails_with(checks.check_causal_module, causal_variant(bug), hint).also
    assert not fails(probes.module, causal_variant(bug)).also


def test_mistakes_of_the_mask_functions_are_named_on_both_sides(lang):
    inf = float("-inf")
    cases = [
        (checks.check_apply_mask, probes.apply_mask, lambda s, k: s.masked_fill(~k.mT, inf), "hint_keep_transposed"),
        (checks.check_apply_mask, probes.apply_mask, lambda s, k: s.masked_fill((1 - k).bool(), inf), "hint_bool_subtract"),
        (checks.check_apply_mask, probes.apply_mask, lambda s, k: s.float().masked_fill(~k, inf), "hint_dtype_changed"),
        (checks.check_padding_keep, probes.padding_keep,
         lambda n, T: torch.arange(1, T + 1, device=n.device) < n[:, None], "hint_padding_short_by_one"),
        (checks.check_padding_keep, probes.padding_keep,
         lambda n, T: torch.tensor([[t < m for t in range(T)] for m in n.tolist()], device=n.device), "hint_meta_values"),
        (checks.check_safe_softmax, probes.safe_softmax, lambda s: torch.softmax(s, -1).nan_to_num(1.0),
         "hint_dead_rows_not_zero"),
        (checks.check_safe_softmax, probes.safe_softmax, lambda s: torch.softmax(s, -2).nan_to_num(0.0),
         "hint_softmax_axis"),
    ]
    for check, probe, fn, hint in cases:
        fields = {"axis": -2, "got": "torch.float32", "want": "torch.float64"}   # the two hints with fields
        failure = fails_with(check, fn, hint, **fields)
        assert t("hint_upper_triangle") not in str(failure) and not str(failure).count("exp")
        assert hint_of(fails(probe, fn))[0] == hint, hint


def test_in_place_is_accepted_where_the_text_asks_only_for_a_result(lang):
    """Neither exercise 2 nor 3 says not to change the input: an in-place masked_fill_ or logical_not_ returns the
    right tensor and passes both sides (the check gives the learner's code a copy, as the probe's draws are)."""
    checks.check_apply_mask(lambda s, k: s.masked_fill_(~k, float("-inf")))
    checks.check_mha_mask_to_sdpa(lambda m: m.logical_not_() if m.dtype == torch.bool else m)
    passes(probes.apply_mask, lambda s, k: s.masked_fill_(~k, float("-inf")))
    passes(probes.mha_mask_to_sdpa, lambda m: m.logical_not_() if m.dtype == torch.bool else m)


# --------------------------------------------------------------------------- hidden tests
@pytest.fixture(scope="module")
def ref():
    return reference("lesson3")


def test_reference_passes_its_own_hidden_tests(ref):
    passes(probes.causal_mask, ref.causal_mask)
    passes(probes.apply_mask, ref.apply_mask)
    passes(probes.padding_keep, ref.padding_keep)
    passes(probes.mha_mask_to_sdpa, ref.mha_mask_to_sdpa)
    passes(probes.safe_softmax, ref.safe_softmax)
    assert fails(probes.safe_softmax, lambda s: torch.softmax(s.masked_fill(torch.isinf(s), -1e9), -1)).hint \
        == "hint_safe_softmax_uniform"
    passes(probes.module, ref.CausalSelfAttention)


def test_hidden_names_a_scale_by_the_embedding_width_on_every_seed(ref):
    """Where E = D², √E = D and dividing by √E looked like dividing by D without the root: the grader named
    hint_scale_dk for the planted √E bug on 5 seeds in 300 (`make hint-sweep`). These seeds drew E = D² then."""
    from attn_course.probes import Draws
    squares = []
    for seed in range(400):
        b, t, h, d, e = Draws(seed, "lesson3.module").sizes("sizes", 5, low=2, high=14)   # the draw before the fix
        if e == d * d:
            squares.append(seed)
    assert len(squares) >= 3
    class ScaledByE(CausalOK):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs, bug="sqrt_e")
    for seed in squares:
        assert fails(probes.module, ScaledByE, seed=seed).hint == "hint_scale_head_dim", seed


@pytest.mark.parametrize("bug,hint", [("padding_or", "hint_padding_or"), ("lengths_always", "hint_lengths_none"),
                                      ("lengths_not_mask", "hint_lengths_not_mask"), ("no_w_o", "hint_w_o_missing")])
def test_module_mistakes_found_by_mutants_are_named_by_the_grader_as_by_the_check(ref, bug, hint):
    assert hint_of(fails(probes.module, causal_variant(bug)))[0] == hint


def test_the_grader_names_no_device_for_an_error_that_is_not_about_one(ref):
    # make mutants: torch.tril().ones(…) raised a TypeError, and the grader said the mask was on the wrong device.
    failure = fails(probes.causal_mask, lambda T, device=None: torch.tril().ones(T, T, dtype=torch.bool, device=device))
    assert hint_of(failure)[0] != "hint_mask_device"
    failure = fails(probes.causal_mask, lambda T: torch.ones(T, T, dtype=torch.bool).tril())   # no device= at all
    assert hint_of(failure)[0] == "hint_mask_device"


def test_hidden_catches_a_mask_left_on_the_cpu(ref):
    fails(probes.causal_mask, lambda T, device=None: torch.ones(T, T, dtype=torch.bool).tril(), key="hidden_device")


def test_hidden_catches_a_leak_from_the_future(ref):
    class Leaky(ref.CausalSelfAttention):
        def forward(self, x, lengths=None, use_sdpa=False):
            y, w = super().forward(x, lengths, use_sdpa)
            return y + 1e-3 * x.flip(1)[:, :, :1], w  # position t now sees token T-1-t
    fails(probes.module, Leaky)


def test_hidden_catches_dropout_in_eval(ref):
    class AlwaysDrop(ref.CausalSelfAttention):
        def forward(self, x, lengths=None, use_sdpa=False):
            self.dropout.train()
            return super().forward(x, lengths, use_sdpa)
    fails(probes.module, AlwaysDrop)


def test_hidden_catches_weights_returned_after_dropout(ref):
    class AfterDropout(ref.CausalSelfAttention):
        def forward(self, x, lengths=None, use_sdpa=False):
            y, w = super().forward(x, lengths, use_sdpa)
            return y, (w if w is None else torch.nn.functional.dropout(w, self.dropout.p, self.training))
    fails(probes.module, AfterDropout, key="dropout_train_differs")


def test_padding_keep_on_the_inputs_device_is_graded(ref, lang):
    """make mutants: padding_keep without device= passed the grader (CPU inputs only) and failed the visible
    check (the meta device). The grader tries the meta device too, and names the same cause."""
    on_cpu = lambda n, T: torch.arange(T) < n[:, None]  # noqa: E731
    fails_with(checks.check_padding_keep, on_cpu, "hint_padding_device")
    assert hint_of(fails(probes.padding_keep, on_cpu))[0] == "hint_padding_device"


def test_a_cut_gradient_in_the_module_fails_the_check_and_the_grader_alike(ref, lang):
    """Issue 40: the module is trained; a detach or torch.no_grad() in forward gave ✔ and full marks."""
    class Detached(ref.CausalSelfAttention):
        def forward(self, x, lengths=None, use_sdpa=False):
            return super().forward(x.detach(), lengths, use_sdpa)
    fails_with(checks.check_causal_module, Detached, "hint_grad_cut")
    assert fails(probes.module, Detached).hint == "hint_grad_cut"

    class NoGrad(ref.CausalSelfAttention):
        def forward(self, x, lengths=None, use_sdpa=False):
            with torch.no_grad():
                return super().forward(x, lengths, use_sdpa)
    fails_with(checks.check_causal_module, NoGrad, "hint_grad_cut")
    assert fails(probes.module, NoGrad).hint == "hint_grad_cut"


def _softmax_by_hand(shift):
    def safe_softmax(s):
        e = torch.exp(s - shift(s))
        return (e / e.sum(-1, keepdim=True)).nan_to_num(0.0)
    return safe_softmax


def _softmax_where(s):
    m = s.max(dim=-1, keepdim=True).values
    e = torch.exp(s - torch.where(torch.isneginf(m), torch.zeros_like(m), m))
    z = e.sum(-1, keepdim=True)
    return torch.where(z > 0, e / z, torch.zeros_like(e))


def test_safe_softmax_is_tried_on_large_scores_on_both_sides(ref, lang):
    """Issue 40: exp(s) / exp(s).sum() with nan_to_num passed both sides, and gives 0 for a row like [100, 0, -1]
    in float32 (inf / inf). Each row's own max subtracted first, written any way, passes both."""
    naive = _softmax_by_hand(lambda s: 0.0)
    global_max = _softmax_by_hand(lambda s: s[torch.isfinite(s)].max())
    for wrong in (naive, global_max):
        fails_with(checks.check_safe_softmax, wrong, "hint_safe_softmax_overflow")
        assert fails(probes.safe_softmax, wrong).hint == "hint_safe_softmax_overflow"
    for right in (_softmax_by_hand(lambda s: s.amax(-1, keepdim=True)), _softmax_where, ref.safe_softmax,
                  lambda s: torch.where(torch.isneginf(s).all(-1, keepdim=True), 0.0, torch.softmax(s, -1))):
        checks.check_safe_softmax(right)
        passes(probes.safe_softmax, right)


def test_the_buffer_sized_by_a_number_fails_past_32_on_both_sides(ref, lang):
    """Issue 40: causal_mask(32) in __init__ passed both sides, which never built the module past the default 32."""
    class Fixed32(ref.CausalSelfAttention):
        def __init__(self, embed_dim, n_head, head_dim=None, dropout=0.0, max_len=32):
            super().__init__(embed_dim, n_head, head_dim, dropout, max_len)
            self.register_buffer("causal", ref.causal_mask(32), persistent=False)

    class MaskOf32(ref.CausalSelfAttention):   # the buffer right, a mask of 32 made in forward: an error past 32
        def forward(self, x, lengths=None, use_sdpa=False):
            self.causal = ref.causal_mask(32, device=x.device)
            return super().forward(x, lengths, use_sdpa)
    for cls in (Fixed32, MaskOf32):
        fails_with(checks.check_causal_module, cls, "hint_causal_max_len")
        assert hint_of(fails(probes.module, cls))[0] == "hint_causal_max_len", cls


INF_ = float("-inf")
# (exercise, a wrong answer): each of the five mask functions, a mistake of its values and one of its device or form.
ONE_PROCEDURE = {
    "causal_triu": ("causal_mask", lambda T, device=None: torch.ones(T, T, dtype=torch.bool, device=device).triu()),
    "causal_on_cpu": ("causal_mask", lambda T, device=None: torch.ones(T, T, dtype=torch.bool).tril()),
    "causal_float": ("causal_mask", lambda T, device=None: torch.ones(T, T, device=device).tril()),
    "apply_additive": ("apply_mask", lambda s, k: s + (~k) * INF_),
    "apply_extra_axes": ("apply_mask", lambda s, k: s.masked_fill(~k[None, None], INF_)),
    "apply_one_minus": ("apply_mask", lambda s, k: s.masked_fill((1 - k).bool(), INF_)),
    "padding_off_by_one": ("padding_keep", lambda n, T: torch.arange(T, device=n.device) <= n[:, None]),
    "padding_on_cpu": ("padding_keep", lambda n, T: torch.arange(T) < n[:, None]),
    "to_sdpa_same": ("mha_mask_to_sdpa", lambda m: m),
    "to_sdpa_negated": ("mha_mask_to_sdpa", lambda m: ~m if m.dtype == torch.bool else -m),
    "safe_softmax_nan": ("safe_softmax", lambda s: torch.softmax(s, -1)),
    "safe_softmax_queries": ("safe_softmax", lambda s: torch.softmax(s, -2).nan_to_num(0.0)),
    "safe_softmax_float32": ("safe_softmax", lambda s: torch.softmax(s.float(), -1).nan_to_num(0.0)),
}


@pytest.mark.parametrize("answer", sorted(ONE_PROCEDURE))
def test_the_check_is_the_graders_procedure_on_a_seed_of_its_own(ref, lang, answer):
    """The visible check and the grader run one procedure: on the check's seed, the grader with the hidden reference
    reaches the very verdict the check reached with the course's right answer (its message key, fields and hint)."""
    exercise, wrong = ONE_PROCEDURE[answer]
    with pytest.raises(CheckFailed) as info:
        getattr(checks, f"check_{exercise}")(wrong)
    seed = checks.SEEDS[exercise]
    graded = judged(getattr(probes, exercise), wrong, seed=seed, source=inspect.getsource(wrong))
    seen = info.value.mismatch
    assert graded is not None and hint_of(graded)[0]
    # repr: a max error may be NaN, which equals nothing
    assert repr((graded.key, graded.fields, hint_of(graded))) == repr((seen.key, seen.fields, hint_of(seen)))
