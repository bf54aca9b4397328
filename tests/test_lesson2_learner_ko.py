"""Lesson 2 as a learner worked through it in Korean (issue 40): wrong answers that got ✔ and full marks, or a hint
naming another cause, each now caught or named alike by the visible check and by the grader on every seed; and the
learner's right answers written another way, which still pass. Their planted bugs are the block "learner ko" of
tools/planted/lesson2.py's BUGS."""
import math

import pytest
import torch
import torch.nn as nn

import attn_course as course
from attn_course.checks import lesson2 as checks
from attn_course.probes import lesson2 as probes
from attn_course.judging import hint_of
from attn_course.validate import CheckFailed
from conftest import check_names, fails, fails_with, passes
from test_lesson1 import AttentionOK
from test_lesson2 import merge_ok, split_ok


def _learner(source: str, **extra):
    """The learner's answer as the notebook defines it: at top level, beside the lesson's own names."""
    space = {"torch": torch, "nn": nn, "math": math, "course": course, "split_heads": split_ok, "merge_heads": merge_ok,
             "Attention": AttentionOK, "__name__": "__main__", **extra}
    exec(source, space)  # noqa: S102 - the test's own source
    return space


MHA_HEAD = ("class MultiHeadAttention(nn.Module):\n"
            "    def __init__(self, embed_dim, n_head, head_dim=None):\n"
            "        super().__init__()\n"
            "        self.embed_dim, self.n_head = embed_dim, n_head\n"
            "        self.head_dim = course.resolve_head_dim(embed_dim, n_head, head_dim)\n"
            "        inner = self.n_head * self.head_dim\n"
            "        self.W_q, self.W_k, self.W_v = (nn.Linear(embed_dim, inner, bias=False) for _ in range(3))\n"
            "        self.W_o = nn.Linear(inner, embed_dim, bias=False)\n\n"
            "    def forward(self, x):\n"
            "        course.expect_tokens(x, self.embed_dim)\n"
            "        Q, K, V = (split_heads(W(x), self.n_head) for W in (self.W_q, self.W_k, self.W_v))\n")
EINSUM = ("        scores = torch.einsum('bhqd,bhkd->bhqk', Q, K) / math.sqrt(self.head_dim)\n"
          "        weights = scores.softmax(dim=-1)\n"
          "        ctx = torch.einsum('bhqk,bhkd->bhqd', weights, V)\n"
          "        return self.W_o(merge_heads(ctx)){}, weights{}\n")
HEAD_FROZEN = ("def head_as_single(mha, i):\n    D = mha.head_dim\n"
               "    single = Attention(mha.embed_dim, D).to(mha.W_q.weight)\n"
               "    single.requires_grad_(False)\n    sl = slice(i * D, (i + 1) * D)\n"
               + "".join(f"    single.{w}.weight.copy_(mha.{w}.weight[sl])\n" for w in ("W_q", "W_k", "W_v"))
               + "    single.W_o.weight.copy_(mha.W_o.weight[:, sl])\n    return single\n")
TORCH = ("def to_torch_mha(mha):\n"
         "    t = nn.MultiheadAttention(mha.embed_dim, mha.n_head, bias=False, batch_first=True)\n"
         "    t = t.to(mha.W_q.weight)\n"
         "    {}\n"
         "        t.in_proj_weight.copy_(torch.cat([mha.W_q.weight, mha.W_k.weight, mha.W_v.weight]))\n"
         "        t.out_proj.weight.copy_(mha.W_o.weight{})\n    return t\n")
TORCH_FROZEN = TORCH.format("t.requires_grad_(False)\n    if True:", "")
SPLIT = "def split_heads(x, n_head):\n    B, T, HD = x.shape\n    return {}\n"
MERGE = "def merge_heads(x):\n    B, H, T, D = x.shape\n    return {}\n"
LEARNER_RIGHT = {
    "split_chunk": ("split_heads", "def split_heads(x, n_head):\n"
                    "    return torch.stack(x.chunk(n_head, dim=-1), dim=1)\n"),
    "torch_copied_under_no_grad": ("to_torch_mha", TORCH.format("with torch.no_grad():", "")),
    "merge_unbind": ("merge_heads", "def merge_heads(x):\n    return torch.cat(x.unbind(dim=1), dim=-1)\n"),
    "module_einsum": ("MultiHeadAttention", MHA_HEAD + EINSUM.format("", "")),
    "head_view_index": ("head_as_single", "def head_as_single(mha, i):\n    D, H = mha.head_dim, mha.n_head\n"
                        "    single = Attention(mha.embed_dim, D).to(mha.W_q.weight)\n    with torch.no_grad():\n"
                        "        for name in ('W_q', 'W_k', 'W_v'):\n"
                        "            getattr(single, name).weight.copy_(getattr(mha, name).weight.view(H, D, -1)[i])\n"
                        "        single.W_o.weight.copy_(mha.W_o.weight.view(-1, H, D)[:, i])\n    return single\n"),
}
# (exercise, source, hint key, hint fields, the grader's message key or None for any)
LEARNER_WRONG = {
    "module_squeezes": ("MultiHeadAttention", MHA_HEAD + EINSUM.format(".squeeze()", ".squeeze()"), "hint_squeeze", {},
                        "hidden_shape"),
    "head_frozen": ("head_as_single", HEAD_FROZEN, "hint_copy_trainable", {}, "copy_not_trainable"),
    "head_frozen_no_grad": ("head_as_single", HEAD_FROZEN.replace(
        "    sl =", "    torch.set_grad_enabled(False)\n    sl =").replace(
        "    return single\n", "    torch.set_grad_enabled(True)\n    return single\n"),
                            "hint_copy_trainable", {}, "copy_not_trainable"),
    "torch_frozen": ("to_torch_mha", TORCH_FROZEN, "hint_copy_trainable", {}, "copy_not_trainable"),
    # hints that named another cause, or none
    "split_by_size": ("split_heads", "def split_heads(x, n_head):\n"
                      "    return torch.stack(x.split(n_head, dim=-1), dim=1)\n",
                      "hint_split_size", {}, "hidden_shape"),
    "split_to_float": ("split_heads", "def split_heads(x, n_head):\n    B, T, HD = x.shape\n"
                       "    return x.view(B, T, n_head, HD // n_head).transpose(1, 2).float()\n", "hint_keep_dtype", {},
                       "hidden_dtype"),
    "merge_transpose_in_place": ("merge_heads", "def merge_heads(x):\n    B, H, T, D = x.shape\n"
                                 "    return x.transpose_(1, 2).reshape(B, T, H * D)\n", "hint_input_in_place", {},
                                 "hidden_raised"),
    "merge_permute": ("merge_heads", "def merge_heads(x):\n    B, H, T, D = x.shape\n"
                      "    return x.permute(0, 2, 3, 1).reshape(B, T, H * D)\n", "hint_merge_interleaved", {},
                      "hidden_mismatch"),
    "module_float32": ("MultiHeadAttention", MHA_HEAD + "        Q, K, V = Q.float(), K.float(), V.float()\n"
                       + EINSUM.format("", "").replace("merge_heads(ctx)", "merge_heads(ctx).to(x.dtype)").replace(
                           "return self.W_o(merge_heads(ctx).to(x.dtype)), weights",
                           "return self.W_o(merge_heads(ctx).to(x.dtype)), weights.to(x.dtype)"),
                       "hint_float32_inside", {}, "hidden_mismatch"),
    "k_from_w_q": ("MultiHeadAttention", MHA_HEAD.replace("for W in (self.W_q, self.W_k, self.W_v)",
                                                          "for W in (self.W_q, self.W_q, self.W_v)")
                   + EINSUM.format("", ""), "hint_projection_layer", {"what": "K", "layer": "W_q", "want": "W_k"},
                   "hidden_mismatch"),
    "out_proj_transposed": ("to_torch_mha", TORCH.format("with torch.no_grad():", ".T"),
                            "hint_out_proj_transposed", {}, "hidden_mismatch"),
    # issue 43: caught with no cause named, or another cause
    "split_permute": ("split_heads", SPLIT.format("x.view(B, T, n_head, HD // n_head).permute(0, 2, 3, 1)"),
                      "hint_split_permute", {"order": "(B, H, D, T)"}, "hidden_shape"),
    "split_mixes_batch": ("split_heads",
                          SPLIT.format("x.reshape(B * T, n_head, -1).transpose(0, 1).reshape(B, n_head, T, -1)"),
                          "hint_split_mixes_batch", {}, "hidden_mismatch"),
    # a view after the transpose: "use reshape" (the merge's hint) would have led to the mix above
    "split_view_after_transpose": ("split_heads",
                                   SPLIT.format("x.view(B * T, n_head, -1).transpose(0, 1).view(B, n_head, T, -1)"),
                                   "hint_split_view_after_transpose", {}, "hidden_raised"),
    "merge_cat_on_time": ("merge_heads", MERGE.format("torch.cat([x[:, h] for h in range(H)], dim=1)"),
                          "hint_merge_cat_axis", {"dim": 1}, "hidden_shape"),
    # the check's non-contiguous input made view raise, and its hint blamed a transpose the code does not have
    "merge_view_no_transpose": ("merge_heads", MERGE.format("x.view(B, T, H * D)"), "hint_merge_without_transpose",
                                {}, "hidden_mismatch"),
    "head_dim_from_e": ("MultiHeadAttention", MHA_HEAD.replace("inner = self.n_head * self.head_dim",
                                                               "inner = self.n_head * (embed_dim // n_head)")
                        + EINSUM.format("", ""), "hint_head_dim_from_e", {}, "hidden_layout"),
    "scores_transposed": ("MultiHeadAttention", MHA_HEAD + EINSUM.format("", "").replace("'bhqd,bhkd->bhqk', Q, K",
                                                                                         "'bhqd,bhkd->bhqk', K, Q"),
                          "hint_scores_transposed", {}, "hidden_mismatch"),
    "w_q_w_k_one_layer": ("MultiHeadAttention", MHA_HEAD.replace(
        "self.W_q, self.W_k, self.W_v = (nn.Linear(embed_dim, inner, bias=False) for _ in range(3))",
        "self.W_q = self.W_k = nn.Linear(embed_dim, inner, bias=False)\n"
        "        self.W_v = nn.Linear(embed_dim, inner, bias=False)") + EINSUM.format("", ""),
                          "hint_layers_shared", {"a": "W_q", "b": "W_k"}, "hidden_layout"),
}


def _exercise(name):
    """(the visible check, the probe, the learner objects besides the answer) of an exercise."""
    return {"split_heads": (checks.check_split_heads, probes.split_heads, ()),
            "merge_heads": (checks.check_merge_heads, probes.merge_heads, ()),
            "MultiHeadAttention": (checks.check_mha_module, probes.module, ()),
            "head_as_single": (lambda f: checks.check_head_as_single(f, AttentionOK), probes.head_as_single,
                               (AttentionOK,)),
            "to_torch_mha": (checks.check_to_torch_mha, probes.to_torch_mha, ())}[name]


@pytest.mark.parametrize("answer", sorted(LEARNER_RIGHT))
def test_the_learners_right_answers_written_another_way_pass(answer, lang):
    name, source = LEARNER_RIGHT[answer]
    fn = _learner(source)[name]
    check, probe, rest = _exercise(name)
    check(fn)
    passes(probe, fn, *rest)


@pytest.mark.parametrize("answer", sorted(LEARNER_WRONG))
def test_the_learners_wrong_answers_fail_on_both_sides_with_their_cause(answer, lang):
    import warnings

    from attn_grader.verdict import header_key, hint_of
    name, source, hint, fields, key = LEARNER_WRONG[answer]
    fn = _learner(source)[name]
    check, probe, rest = _exercise(name)
    with warnings.catch_warnings():
        warnings.simplefilter("error")   # torch's own English warnings never reach the learner
        fails_with(check, fn, hint, **fields)
    for seed in (20261123, 1, 2, 3, 4, 5):
        failure = fails(probe, fn, *rest, key=key, seed=seed)
        assert hint_of(failure) == (hint, fields), (seed, failure.key, failure.hint)
    if key == "copy_not_trainable":   # the grader's header says what differed: the parameters, not other inputs
        assert header_key(failure) == "hidden_failed_after_visible_trainable"


def test_every_argument_nn_multiheadattention_was_built_with_otherwise_is_named(lang):
    """bias and batch_first both left out: the check named batch_first only, the grader bias only."""
    fn = _learner(TORCH.format("with torch.no_grad():", "").replace(", bias=False, batch_first=True", ""))[
        "to_torch_mha"]
    fails_with(checks.check_to_torch_mha, fn, "hint_torch_mha_setup", what="bias / batch_first")
    for seed in (20261123, 1, 2):
        assert fails(probes.to_torch_mha, fn, seed=seed).fields == {"what": "bias / batch_first"}, seed


def test_a_scale_of_the_square_root_of_e_over_h_is_named_never_shown_as_nan_alone(lang):
    """√(E // H) where head_dim is given: E // H = 0 gave "max error nan" and no cause; E // H = 1 is no scaling at
    all, and either cause is named."""
    fn = _learner(MHA_HEAD + EINSUM.format("", "").replace("math.sqrt(self.head_dim)",
                                                          "math.sqrt(self.embed_dim // self.n_head)"))[
        "MultiHeadAttention"]
    either = {"hint_head_dim_from_e", "hint_no_scale_or_width_from_e"}
    with pytest.raises(CheckFailed) as info:
        checks.check_mha_module(fn)
    assert hint_of(info.value.mismatch)[0] in either, str(info.value)
    for seed in (20261123, 1, 2, 3):
        assert hint_of(fails(probes.module, fn, seed=seed))[0] in either, seed


def test_head_i_copied_from_another_heads_slices_is_told_so(lang):
    fn = _learner("def head_as_single(mha, i):\n    D, j = mha.head_dim, mha.n_head - 1 - i\n"
                  "    single = Attention(mha.embed_dim, D).to(mha.W_q.weight)\n    sl = slice(j * D, (j + 1) * D)\n"
                  "    with torch.no_grad():\n"
                  + "".join(f"        single.{w}.weight.copy_(mha.{w}.weight[sl])\n" for w in ("W_q", "W_k", "W_v"))
                  + "        single.W_o.weight.copy_(mha.W_o.weight[:, sl])\n    return single\n")["head_as_single"]
    check, probe, rest = _exercise("head_as_single")
    failure = check_names(check, fn, "hint_head_other_index")
    assert hint_of(failure.mismatch)[1]["i"] == 0
    for seed in (20261123, 1, 2):
        key, fields = hint_of(fails(probe, fn, *rest, seed=seed))
        assert (key, fields["i"]) == ("hint_head_other_index", 0), seed


@pytest.mark.parametrize("count, hint", [(3 * 768 * 768, "hint_n_params_no_w_o"),
                                         (4 * 768 * 768 + 4 * 768, "hint_n_params_bias"),
                                         (4 * 768 * 64, "hint_n_params_one_head")])
def test_a_miscounted_parameter_count_names_its_cause_on_both_sides(count, hint, lang):
    from test_lesson2 import MHAOK
    failure = fails_with(lambda n: checks.check_mha_param_answer(n, MHAOK), count, hint)
    assert "2359296" not in str(failure)   # the cause, never the answer
    assert hint_of(fails(probes.n_params, count, key="answer_wrong")) == (hint, {})


def test_a_zero_d_integer_tensor_is_the_count_it_holds_as_the_text_says(lang):
    from test_lesson2 import MHAOK
    checks.check_mha_param_answer(torch.tensor(4 * 768 * 768), MHAOK)
    passes(probes.n_params, torch.tensor(4 * 768 * 768))


def test_the_demo_comparing_with_nn_multiheadattention_explains_other_shapes(lang, capsys):
    """Exercise 6 built without batch_first=True: the demo after it said torch's RuntimeError (a size must match)."""
    import re
    from pathlib import Path
    text = (Path(__file__).parents[1] / "lessons" / "02_multihead.md").read_text(encoding="utf-8")
    demo = next(cell for cell in re.findall(r"```\{code-cell\} ipython3\n(.*?)```", text, re.S)
                if "theirs = to_torch_mha(mine)" in cell)
    space = _learner(MHA_HEAD + EINSUM.format("", "") + TORCH.format("with torch.no_grad():", "").replace(
        "batch_first=True", "batch_first=False"), device="cpu")
    exec(demo, space)  # noqa: S102 - the lesson's own cell
    assert course.t("demo_torch_mha_shapes", mine=((2, 9, 12), (2, 3, 9, 9)),
                    theirs=((2, 9, 12), (9, 3, 2, 2))) in capsys.readouterr().out
