"""Lesson 4: GPT-2's fused QKV, the module, its initialisation, loading from and exporting to HF.

Visible checks (right code passes, each classic bug gets its own hint, in both languages),
hidden tests (probe in the kernel, judge in the grader: the reference passes, bugs fail).
Its planted bugs (a graded submission per classic bug, which tests/test_grading.py grades as a class) are in
tools/planted/lesson4.py.
"""
import math
import re

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

import attn_course as course
from attn_course.checks import lesson4 as checks
from attn_course.messages import t
from attn_course.probes import lesson4 as probes
from conftest import check_names, fails, fails_with, judged, passes, reference
from test_lesson2 import merge_ok, split_ok

# --------------------------------------------------------------------------- lesson 4
def split_qkv_ok(qkv, H):
    B, T, three_e = qkv.shape
    return tuple(z.view(B, T, H, -1).transpose(1, 2) for z in qkv.split(three_e // 3, dim=2))


def test_split_qkv_checks(lang):
    checks.check_split_qkv(split_qkv_ok)
    checks.check_split_qkv(lambda qkv, H: tuple(qkv.reshape(qkv.size(0), qkv.size(1), 3, H, -1).permute(2, 0, 3, 1, 4)))
    fails_with(checks.check_split_qkv,
               lambda qkv, H: tuple(z.transpose(1, 2) for z in qkv.view(qkv.size(0), qkv.size(1), H, -1).chunk(3, -1)),
               "hint_interleaved_qkv")
    fails_with(checks.check_split_qkv, lambda qkv, H: tuple(reversed(split_qkv_ok(qkv, H))), "hint_qkv_order")


def test_three_parts_in_a_list_are_a_right_answer_on_both_sides(lang):
    # The module unpacks q, k, v = split_qkv(…) from a list as from a tuple (a learner's right answer got 0/2).
    as_list = lambda qkv, H: list(split_qkv_ok(qkv, H))  # noqa: E731
    checks.check_split_qkv(as_list)
    passes(probes.split_qkv, as_list)
    fails_with(checks.check_split_qkv, lambda qkv, H: list(split_qkv_ok(qkv, H))[:2], "hint_returns_triple",
               name="split_qkv", kind="list")


def test_a_wrong_split_says_which_parts_differ_not_nan(lang):
    # (v, k, q): q and v are wrong, k is right. "max error nan" read as "your code made NaN".
    failure = check_names(checks.check_split_qkv, lambda qkv, H: tuple(reversed(split_qkv_ok(qkv, H))),
                          "hint_qkv_order", key="split_differs")
    assert "nan" not in str(failure).lower()
    assert failure.mismatch.fields["parts"] == "q, v"


def gpt2_module(bias=True, mask=True, bug=None):
    class M(nn.Module):
        def __init__(self, E, H, max_len=64, dropout=0.0):
            super().__init__()
            self.embed_dim, self.n_head, self.head_dim = E, H, E // H
            self.c_attn, self.c_proj = nn.Linear(E, 3 * E, bias=bias), nn.Linear(E, E)
            self.dropout = nn.Dropout(dropout)
            self.register_buffer("causal", torch.ones(max_len, max_len, dtype=torch.bool).tril(), persistent=False)

        def forward(self, x, use_sdpa=False):
            B, T, E = x.shape
            q, k, v = split_qkv_ok(self.c_attn(x), self.n_head)
            if use_sdpa:
                p = self.dropout.p if self.training or bug == "sdpa_eval_dropout" else 0.0
                y = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True, dropout_p=p)
                return self.c_proj(merge_ok(y)), None
            s = q @ k.mT / math.sqrt(E if bug == "scale_by_E" else self.head_dim)
            if mask:
                s = s.masked_fill(~(self.causal if bug == "unsliced_buffer" else self.causal[:T, :T]), float("-inf"))
            w = torch.softmax(s, -1)
            dropped = self.dropout(w)
            y = self.c_proj(merge_ok(dropped @ v))
            y = self.dropout(y) if bug == "output_dropout" else y   # Hugging Face's resid_dropout
            return y, (dropped if bug == "weights_after_dropout" else w)
    return M


def load_ok(mine, hf, transpose_proj=True, bias=True):
    with torch.no_grad():
        mine.c_attn.weight.copy_(hf.c_attn.weight.T)
        mine.c_proj.weight.copy_(hf.c_proj.weight.T if transpose_proj else hf.c_proj.weight)
        if bias:
            mine.c_attn.bias.copy_(hf.c_attn.bias)
            mine.c_proj.bias.copy_(hf.c_proj.bias)
    return mine


def test_gpt2_checks(lang):
    ok = gpt2_module()
    checks.check_gpt2_module(ok)
    fails_with(checks.check_gpt2_module, gpt2_module(bias=False), "layer_missing_bias", name="c_attn")
    fails_with(checks.check_gpt2_module, gpt2_module(mask=False), "hint_missing_mask")
    fails_with(checks.check_gpt2_module, gpt2_module(bug="scale_by_E"), "hint_scale_head_dim")
    check_names(checks.check_gpt2_module, gpt2_module(bug="unsliced_buffer"), "hint_causal_slice")
    fails_with(checks.check_gpt2_module, gpt2_module(bug="sdpa_eval_dropout"), "hint_dropout_eval_sdpa")
    fails_with(checks.check_gpt2_module, gpt2_module(bug="weights_after_dropout"), "hint_weights_after_dropout")
    fails_with(checks.check_gpt2_module, gpt2_module(bug="output_dropout"), "hint_dropout_output", layer="c_proj")
    checks.check_load_from_hf(load_ok, ok)
    fails_with(lambda f: checks.check_load_from_hf(f, ok), lambda m, h: load_ok(m, h, transpose_proj=False),
               "hint_conv1d_transpose")
    fails_with(lambda f: checks.check_load_from_hf(f, ok), lambda m, h: load_ok(m, h, bias=False), "hint_missing_bias")

    def no_transpose_at_all(m, h):
        with torch.no_grad():
            m.c_attn.weight.copy_(h.c_attn.weight)
        return m
    fails_with(lambda f: checks.check_load_from_hf(f, ok), no_transpose_at_all, "hint_conv1d_transpose")
    # Mistakes in how to copy, not in the layout: "transpose" would be the wrong advice.
    fails_with(lambda f: checks.check_load_from_hf(f, ok), assigned, "hint_param_assign")
    fails_with(lambda f: checks.check_load_from_hf(f, ok), copied_with_grad, "hint_copy_no_grad")

    def export_ok(m, h):
        with torch.no_grad():
            h.c_attn.weight.copy_(m.c_attn.weight.T)
            h.c_attn.bias.copy_(m.c_attn.bias)
            h.c_proj.weight.copy_(m.c_proj.weight.T)
            h.c_proj.bias.copy_(m.c_proj.bias)
        return h
    checks.check_export_to_hf(export_ok, ok)

    def export_square(m, h):
        export_ok(m, h)
        with torch.no_grad():
            h.c_proj.weight.copy_(m.c_proj.weight)
        return h
    fails_with(lambda f: checks.check_export_to_hf(f, ok), export_square, "hint_conv1d_transpose")


def test_gpt2_init_checks(lang):
    ok = gpt2_module()

    def init(module, n_layer=12, proj_std=None, bias=0.0):
        for name, p in module.named_parameters():
            if name.endswith("bias"):
                nn.init.constant_(p, bias)
            else:
                std = (proj_std or 0.02 / math.sqrt(2 * n_layer)) if name.startswith("c_proj") else 0.02
                nn.init.normal_(p, 0.0, std)
        return module
    checks.check_gpt2_init(init, ok)
    with pytest.raises(checks.CheckFailed, match="c_proj.weight"):
        checks.check_gpt2_init(lambda m, n_layer: init(m, n_layer, proj_std=0.02), ok)
    with pytest.raises(checks.CheckFailed, match="c_attn.bias"):
        checks.check_gpt2_init(lambda m, n_layer: init(m, n_layer, bias=0.1), ok)



GPT2_SMALL_PARAMS = 4 * 768 * 768 + 4 * 768


def test_a_wrong_parameter_count_is_not_answered_by_the_check(lang):
    # The failing check names the miscount, never the count itself.
    failure = fails_with(lambda n: checks.check_gpt2_param_answer(n, gpt2_module()), 4 * 768 * 768,
                         "hint_count_no_bias")
    for shown in (f"{GPT2_SMALL_PARAMS}", f"{GPT2_SMALL_PARAMS:,}"):
        assert shown not in str(failure)
    checks.check_gpt2_param_answer(GPT2_SMALL_PARAMS, gpt2_module())
    assert checks.gpt2_attention_count() == GPT2_SMALL_PARAMS


def test_the_count_is_judged_against_the_lessons_count_not_the_learners_module(lang, ref, capsys):
    # A bias-less module counted as it stands (4E²) was ✔ against that module and 0 in grading.
    no_bias = gpt2_module(bias=False)
    failure = fails_with(lambda n: checks.check_gpt2_param_answer(n, no_bias), 4 * 768 * 768, "hint_count_no_bias")
    assert t("count_module_differs", module="M(768, 12)") in failure.also
    assert fails(probes.n_params, 4 * 768 * 768, key="answer_wrong").hint == "hint_count_no_bias"
    buffer = GPT2_SMALL_PARAMS + 64 * 64
    fails_with(lambda n: checks.check_gpt2_param_answer(n, gpt2_module()), buffer, "hint_count_buffer")
    assert fails(probes.n_params, buffer, key="answer_wrong").hint == "hint_count_buffer"
    # The right count passes whatever the module, which is only told about.
    checks.check_gpt2_param_answer(GPT2_SMALL_PARAMS, no_bias)
    assert t("count_module_differs", module="M(768, 12)") in capsys.readouterr().out
    passes(probes.n_params, GPT2_SMALL_PARAMS)
    # A str and a float are told the same thing: a count is an int, on both sides.
    fails_with(lambda n: checks.check_gpt2_param_answer(n, gpt2_module()), str(GPT2_SMALL_PARAMS),
               "answer_not_int_kind", name="answer_n_params", kind="str")
    fails(probes.n_params, str(GPT2_SMALL_PARAMS), key="answer_not_int_kind")


def test_no_cell_before_the_count_exercise_shows_the_count():
    import jupytext
    from conftest import ROOT
    cells = jupytext.read(ROOT / "lessons" / "04_gpt2.md").cells
    before = cells[:next(i for i, c in enumerate(cells) if c.metadata.get("id") == "ex4_n_params")]
    shown = (f"{GPT2_SMALL_PARAMS}", f"{GPT2_SMALL_PARAMS:,}", f"{GPT2_SMALL_PARAMS:,}".replace(",", "{,}"))
    for cell in before:
        assert not any(s in cell.source for s in shown), cell.source[:80]
        if cell.cell_type == "code":
            assert not ("numel" in cell.source and "768" in cell.source), cell.source[:80]


# --------------------------------------------------------------------------- hidden tests
def assigned(m, h):
    m.c_attn.weight = h.c_attn.weight.T   # TypeError: a tensor is not a Parameter
    return m


def copied_with_grad(m, h):
    m.c_attn.weight.copy_(h.c_attn.weight.T)   # in place on a leaf that requires grad
    return m


@pytest.fixture(scope="module")
def ref():
    return reference("lesson4")


def test_reference_passes_its_own_hidden_tests(ref):
    cls = ref.GPT2SelfAttention
    passes(probes.split_qkv, ref.split_qkv)
    passes(probes.module, cls)
    passes(probes.module_max_len, cls)
    passes(probes.init, ref.gpt2_init, cls)
    passes(probes.load_from_hf, ref.load_from_hf, cls)
    passes(probes.export_to_hf, ref.export_to_hf, cls)
    passes(probes.n_params, 4 * 768 * 768 + 4 * 768)


def test_hidden_catches_an_untransposed_square_c_proj(ref):
    def careless(mine, hf):
        with torch.no_grad():
            mine.c_attn.weight.copy_(hf.c_attn.weight.T)
            mine.c_attn.bias.copy_(hf.c_attn.bias)
            mine.c_proj.weight.copy_(hf.c_proj.weight)
            mine.c_proj.bias.copy_(hf.c_proj.bias)
        return mine
    fails(probes.load_from_hf, careless, ref.GPT2SelfAttention)


def test_hidden_names_how_a_copy_went_wrong_as_the_visible_check_does(ref):
    failure = fails(probes.load_from_hf, assigned, ref.GPT2SelfAttention, key="hidden_raised")
    assert failure.hint == "hint_param_assign"
    failure = fails(probes.load_from_hf, copied_with_grad, ref.GPT2SelfAttention, key="hidden_raised")
    assert failure.hint == "hint_copy_no_grad"


def test_hidden_catches_the_two_dropout_bugs_the_text_names(ref):
    class EvalDropout(ref.GPT2SelfAttention):  # dropout_p = self.dropout.p, in eval too
        def forward(self, x, use_sdpa=False):
            if use_sdpa:
                B, T, E = x.shape
                q, k, v = ref.split_qkv(self.c_attn(x), self.n_head)
                y = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True, dropout_p=self.dropout.p)
                return self.c_proj(y.transpose(1, 2).reshape(B, T, E)), None
            return super().forward(x, use_sdpa)
    fails(probes.module, EvalDropout, key="hidden_mismatch")

    class AfterDropout(ref.GPT2SelfAttention):  # the weights returned after dropout
        def forward(self, x, use_sdpa=False):
            y, w = super().forward(x, use_sdpa)
            return y, (w if w is None else torch.nn.functional.dropout(w, self.dropout.p, self.training))
    fails(probes.module, AfterDropout, key="train_output_differs")


def test_hidden_names_a_causal_buffer_used_whole(ref):
    # The grader names it as the visible check does (a broadcast error between T and max_len), not "transpose K".
    failure = fails(probes.module, gpt2_module(bug="unsliced_buffer"), key="hidden_raised")
    hint, fields = failure.hint
    assert hint == "hint_causal_slice" and fields["T"] < fields["max_len"]


def test_hidden_names_dropout_on_the_output(ref):
    class OutputDropout(ref.GPT2SelfAttention):  # Hugging Face's resid_dropout after c_proj, besides the weights'
        def forward(self, x, use_sdpa=False):
            y, w = super().forward(x, use_sdpa)
            return self.dropout(y), w
    failure = fails(probes.module, OutputDropout, key="train_output_differs")
    assert failure.hint == ("hint_dropout_output", {"layer": "c_proj"})


def test_split_handed_to_c_attn_is_named_alike_on_every_seed(lang, ref):
    """make mutants: `self.c_attn(split_qkv(x, H))`. The check's E = 12 fails in split's view; a grader's E whose
    third divides into H heads hands the three parts to c_attn whole ("must be Tensor, not tuple"), which the grader
    named as a list for a tensor. Both name the call now."""
    class SplitFirst(ref.GPT2SelfAttention):
        def forward(self, x, use_sdpa=False):
            q, k, v = self.c_attn(ref.split_qkv(x, self.n_head))
            return super().forward(x, use_sdpa)
    fails_with(checks.check_gpt2_module, SplitFirst, "hint_split_qkv_input")
    errors = set()
    for seed in range(4):
        failure = fails(probes.module, SplitFirst, seed=seed)
        assert failure.hint == "hint_split_qkv_input", (seed, failure.fields)
        errors.add("not tuple" in str(failure.fields.get("error")))
    assert errors == {True, False}   # both errors drawn


def test_a_default_dropout_other_than_0_is_named_alike(lang, ref):
    """make mutants (lesson 5): `dropout=1.0` as the constructor's default passed the check and the grader, which
    pass dropout= or run in eval, and lesson 5's model, built without dropout=, then never learned. The text's
    default is 0.0: both run a module built without dropout= in training."""
    class DefaultDropout(ref.GPT2SelfAttention):
        def __init__(self, embed_dim, n_head, max_len=64, dropout=1.0):
            super().__init__(embed_dim, n_head, max_len=max_len, dropout=dropout)
    fails_with(checks.check_gpt2_module, DefaultDropout, "hint_dropout_default")
    for seed in range(3):
        assert fails(probes.module_max_len, DefaultDropout, seed=seed).hint == "hint_dropout_default"


def max_len_module(ref4, buffer=None, keyword="max_len", sdpa_weights=False):
    """Lesson 4's module with one of the classic mistakes about max_len and the SDPA path (lessons 5 to 7 paste
    it): a buffer of a fixed size, the keyword under another name, or weights computed on the SDPA path."""
    base = ref4.GPT2SelfAttention

    class Pasted(base):
        def __init__(self, embed_dim, n_head, dropout=0.0, **kwargs):
            if set(kwargs) - {keyword}:
                raise TypeError(f"__init__() got an unexpected keyword argument '{next(iter(kwargs))}'")
            max_len = kwargs.get(keyword, 64)
            super().__init__(embed_dim, n_head, max_len=max_len, dropout=dropout)
            if buffer:
                self.register_buffer("causal", torch.ones(buffer, buffer, dtype=torch.bool).tril(), persistent=False)

        def forward(self, x, use_sdpa=False):
            y, w = super().forward(x, use_sdpa)
            if use_sdpa and sdpa_weights:
                return y, super().forward(x, False)[1]
            return y, w
    return Pasted


def test_the_module_is_built_with_max_len_and_run_past_64(lang, ref):
    """The text's constructor sizes the causal buffer (max_len, max_len), and lessons 5 to 7 build the module with
    max_len=: a buffer of a fixed 64, or the keyword named block_size, passed the check (the default, T = 5) and
    the grader (max_len=32, T <= 10). Both now build it with a max_len that is not 64 and run it past 64, and
    both name the same cause; the SDPA path's None, which the text states, is graded there too."""
    passes(probes.module_max_len, ref.GPT2SelfAttention)
    for mistake, hint in (({"buffer": 64}, "hint_max_len_buffer"), ({"keyword": "block_size"}, "hint_max_len_keyword"),
                          ({"sdpa_weights": True}, "hint_sdpa_weights_none")):
        cls = max_len_module(ref, **mistake)
        fails_with(checks.check_gpt2_module, cls, hint)
        assert fails(probes.module_max_len, cls).hint == hint, mistake


def test_a_short_buffer_is_named_from_its_shape_on_both_sides(lang, ref):
    """A buffer of 64 raises at T > 64: the grader reads the shape recorded before the error (a partial judge), so
    its message says what the check's says, not only the error."""
    cls = max_len_module(ref, buffer=64)
    failure = fails_with(checks.check_gpt2_module, cls, "hint_max_len_buffer")
    assert failure.mismatch.key == "max_len_buffer" and failure.mismatch.fields["got"] == (64, 64)
    assert fails(probes.module_max_len, cls, key="max_len_buffer").fields["got"] == (64, 64)


def test_a_tensor_made_on_the_cpu_in_forward_is_named_alike_on_meta(lang, ref):
    """A mask made in forward without device=x.device is right on the CPU and raises on a GPU: the check and the
    grader run one meta case (checks.module_on_meta), on either path, and name it alike; the module's buffer and
    is_causal=True follow the input's device."""
    class MaskedOnCpu(ref.GPT2SelfAttention):
        def forward(self, x, use_sdpa=False):
            if use_sdpa:
                return super().forward(x, True)
            q, k, v = ref.split_qkv(self.c_attn(x), self.n_head)
            T = x.size(1)
            scores = (q @ k.transpose(-2, -1) / math.sqrt(self.head_dim)).masked_fill(
                ~torch.ones(T, T, dtype=torch.bool).tril(), float("-inf"))
            weights = torch.softmax(scores, -1)
            return self.c_proj((self.dropout(weights) @ v).transpose(1, 2).reshape(x.shape)), weights

    class SdpaMaskOnCpu(ref.GPT2SelfAttention):
        def forward(self, x, use_sdpa=False):
            if not use_sdpa:
                return super().forward(x)
            q, k, v = ref.split_qkv(self.c_attn(x), self.n_head)
            T = x.size(1)
            y = F.scaled_dot_product_attention(q, k, v, attn_mask=torch.ones(T, T, dtype=torch.bool).tril(),
                                               dropout_p=self.dropout.p if self.training else 0.0)
            return self.c_proj(y.transpose(1, 2).reshape(x.shape)), None

    class OutputToCpu(ref.GPT2SelfAttention):
        def forward(self, x, use_sdpa=False):
            y, weights = super().forward(x, use_sdpa)
            return y.to("cpu"), weights

    for cls in (MaskedOnCpu, SdpaMaskOnCpu, OutputToCpu):
        fails_with(checks.check_gpt2_module, cls, "hint_module_device")
        assert fails(probes.module, cls).hint == "hint_module_device", cls.__name__


# --------------------------------------------------------------------------- one procedure, two seeds
MODULE_SOURCE = '''
class GPT2SelfAttention(nn.Module):
    def __init__(self, embed_dim, n_head, max_len=64, dropout=0.0):
        super().__init__()
        self.embed_dim, self.n_head, self.head_dim = embed_dim, n_head, embed_dim // n_head
        self.c_attn, self.c_proj = nn.Linear(embed_dim, 3 * embed_dim), nn.Linear(embed_dim, embed_dim)
        self.dropout = nn.Dropout(dropout)
        self.register_buffer("causal", torch.ones(max_len, max_len, dtype=torch.bool).tril(), persistent=False)

    def forward(self, x, use_sdpa=False):
        B, T, E = x.shape
        q, k, v = split_qkv(self.c_attn(x), self.n_head)
        if use_sdpa:
            p = self.dropout.p if self.training else 0.0
            y = F.scaled_dot_product_attention(q, k, v, is_causal=MASKED, dropout_p=p)
            return self.c_proj(y.transpose(1, 2).reshape(B, T, E)), None
        s = q @ k.transpose(-2, -1) / math.sqrt(self.head_dim)
        if MASKED:
            s = s.masked_fill(~self.causal[:T, :T], float("-inf"))
        w = torch.softmax(s, -1)
        return self.c_proj((self.dropout(w) @ v).transpose(1, 2).reshape(B, T, E)), w
'''


def notebook_module(split=split_qkv_ok, masked=True):
    """The module as the notebook has it: its forward calls the learner's split_qkv, a global of the notebook."""
    scope = {"nn": nn, "torch": torch, "math": math, "F": F, "split_qkv": split, "MASKED": masked}
    exec(MODULE_SOURCE, scope)
    return scope["GPT2SelfAttention"]


def interleaved(qkv, H):
    return tuple(z.transpose(1, 2) for z in qkv.view(qkv.size(0), qkv.size(1), H, -1).chunk(3, -1))


def kqv(qkv, H):
    q, k, v = split_qkv_ok(qkv, H)
    return k, q, v


def export_ok(m, h):
    with torch.no_grad():
        for layer in ("c_attn", "c_proj"):
            getattr(h, layer).weight.copy_(getattr(m, layer).weight.T)
            getattr(h, layer).bias.copy_(getattr(m, layer).bias)
    return h


@pytest.mark.parametrize("split,hint", [(interleaved, "hint_interleaved_qkv"), (kqv, "hint_qkv_order")])
def test_a_split_mistake_is_named_at_its_root_when_loading_and_exporting(lang, ref, split, hint):
    """A mistake of exercise 1 reaches exercises 5 and 6 through the module of exercise 2, which calls split_qkv: both
    sides name exercise 1 (hint_split_cascade), where they named exercise 2; a module's own mistake still names the
    module (hint_module_cascade), and a module that splits by itself too."""
    check_names(checks.check_split_qkv, split, hint)
    cls = notebook_module(split)
    for check, probe, fn in ((checks.check_load_from_hf, probes.load_from_hf, load_ok),
                             (checks.check_export_to_hf, probes.export_to_hf, export_ok)):
        check_names(lambda c: check(fn, c), cls, "hint_split_cascade")
        assert fails(probe, fn, cls).hint == "hint_split_cascade"
        check_names(lambda c: check(fn, c), notebook_module(masked=False), "hint_module_cascade")
        assert fails(probe, fn, notebook_module(masked=False)).hint == "hint_module_cascade"
    own = notebook_module(split)
    own.forward.__globals__["split_qkv"] = None   # a forward that splits by itself: split_qkv is not its cause
    own_split = type("Own", (own,), {"forward": lambda self, x, use_sdpa=False: own.forward(self, x, use_sdpa)})
    own.forward.__globals__["split_qkv"] = split
    assert not probes.calls_split(own_split)


def _square_export(m, h):
    export_ok(m, h)
    with torch.no_grad():
        h.c_proj.weight.copy_(m.c_proj.weight)
    return h


AGREE = {
    "split_qkv": [(interleaved,), (kqv,), (lambda qkv, H: tuple(z.reshape(z.size(0), H, z.size(1), -1)
                                                                for z in qkv.split(qkv.size(-1) // 3, -1)),)],
    "init": [(lambda m, n_layer=12: _init(m, 0.02 / math.sqrt(24)), gpt2_module()),
             (lambda m, n_layer=12: _init(m, 0.02), gpt2_module())],
    "load_from_hf": [(lambda m, h: load_ok(m, h, transpose_proj=False), gpt2_module()),
                     (lambda m, h: load_ok(m, h, bias=False), gpt2_module()), (load_ok, notebook_module(interleaved)),
                     (load_ok, notebook_module(masked=False)), (assigned, gpt2_module())],
    "export_to_hf": [(_square_export, gpt2_module()), (export_ok, notebook_module(kqv)),
                     (export_ok, gpt2_module(bias=False))],
    "module": [(gpt2_module(mask=False),), (gpt2_module(bug="scale_by_E"),), (gpt2_module(bug="unsliced_buffer"),),
               (gpt2_module(bug="weights_after_dropout"),), (gpt2_module(bias=False),),
               (max_len_module(reference("lesson4"), keyword="block_size"),)],
    # right in lesson4.module (max_len=32, short sequences), wrong past 64 or on the SDPA path's weights
    "module_max_len": [(max_len_module(reference("lesson4"), buffer=64),),
                       (max_len_module(reference("lesson4"), sdpa_weights=True),)],
}


def _init(module, proj_std):
    for name, p in module.named_parameters():
        if name.endswith("bias"):
            nn.init.zeros_(p)
        else:
            nn.init.normal_(p, 0.0, proj_std if name.startswith("c_proj") else 0.02)
    return module


@pytest.mark.parametrize("exercise,i", [(e, i) for e, cases in AGREE.items() for i in range(len(cases))])
def test_the_check_is_the_graders_procedure_on_a_seed_of_its_own(ref, lang, exercise, i):
    """The visible check and the grader run one procedure: on the check's seed, the grader with the hidden reference
    reaches the very verdict the check reached with the course's right answer (its message key, fields and hint)."""
    from attn_course.judging import _sources, hint_of
    objs = AGREE[exercise][i]
    check = {"split_qkv": checks.check_split_qkv, "init": checks.check_gpt2_init,
             "load_from_hf": checks.check_load_from_hf, "export_to_hf": checks.check_export_to_hf,
             "module": checks.check_gpt2_module, "module_max_len": checks.check_gpt2_module}[exercise]
    with pytest.raises(checks.CheckFailed) as info:
        check(*objs)
    seed = checks.SEEDS[exercise]
    graded = judged(getattr(probes, exercise), *objs, seed=seed, source=_sources(objs))
    seen = info.value.mismatch
    assert (graded.key, graded.fields, hint_of(graded)) == (seen.key, seen.fields, hint_of(seen))
