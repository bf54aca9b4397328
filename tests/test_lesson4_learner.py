"""Lesson 4 as the Japanese learner of issue 40 wrote it: each mistake is ✘ in the check and fails the hidden test
for the same reason (one function on both sides), and each right answer written another way passes both."""
import copy
import math

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

from attn_course.checks import lesson4 as checks
from attn_course.messages import t
from attn_course.probes import lesson4 as probes
from conftest import check_names, fails, fails_with, passes
from test_lesson4 import gpt2_module, load_ok


def hint_key(mismatch):
    from attn_grader.verdict import hint_of
    return hint_of(mismatch)[0]


def both_name(check, probe, objs, hint, **fields):
    """The check fails with hint (its text, with fields) and the hidden test with the same hint key."""
    fails_with(lambda _: check(*objs), None, hint, **fields)
    assert hint_key(fails(probe, *objs)) == hint


def both_pass(check, probe, objs):
    check(*objs)
    passes(probe, *objs)


# --------------------------------------------------------------------------- exercise 2: the module
def module(variant=""):
    class GPT2SelfAttention(nn.Module):
        def __init__(self, embed_dim, n_head, max_len=64, dropout=0.0):
            super().__init__()
            self.embed_dim, self.n_head, self.head_dim = embed_dim, n_head, embed_dim // n_head
            self.dropout = nn.Dropout(dropout)
            self.c_attn, self.c_proj = nn.Linear(embed_dim, 3 * embed_dim), nn.Linear(embed_dim, embed_dim)
            causal = torch.ones(max_len, max_len, dtype=torch.bool).tril()
            self.register_buffer("causal", causal, persistent=variant == "persistent")

        def forward(self, x, use_sdpa=False):
            B, T, E = x.shape
            q, k, v = self.c_attn(x).unflatten(-1, (3, self.n_head, self.head_dim)).permute(2, 0, 3, 1, 4).unbind(0)
            if use_sdpa:
                p = self.dropout.p if self.training and variant != "sdpa_never_drops" else 0.0
                y = F.scaled_dot_product_attention(q, k, v, attn_mask=self.causal[:T, :T], dropout_p=p)
                weights = None
            else:
                scores = torch.einsum("bhtd,bhsd->bhts", q, k) / self.head_dim ** 0.5
                if variant == "dropout_before_softmax":
                    scores = self.dropout(scores)
                weights = scores.masked_fill(~self.causal[:T, :T], -1e4).softmax(-1)
                kept = weights if variant == "dropout_before_softmax" else self.dropout(weights)
                y = torch.einsum("bhts,bhsd->bhtd", kept, v)
            return self.c_proj(y.transpose(1, 2).reshape(B, T, E)), weights
    return GPT2SelfAttention


def test_the_learners_module_written_another_way_passes(lang):
    both_pass(checks.check_gpt2_module, probes.module, (module(),))


@pytest.mark.parametrize("variant,hint", [("sdpa_never_drops", "hint_dropout_train_sdpa"),
                                          ("persistent", "hint_buffer_persistent"),
                                          ("dropout_before_softmax", "hint_dropout_before_softmax")])
def test_module_mistakes_are_named_alike(lang, variant, hint):
    both_name(checks.check_gpt2_module, probes.module, (module(variant),), hint)


def test_split_reshaped_straight_to_heads_is_named(lang):
    def split(qkv, n_head):
        B, T, three_e = qkv.shape
        return tuple(z.reshape(B, n_head, T, -1) for z in qkv.split(three_e // 3, dim=-1))
    both_name(checks.check_split_qkv, probes.split_qkv, (split,), "hint_reshape_heads_first")


# --------------------------------------------------------------------------- exercise 3: init
def init(std_proj=lambda n: 0.02 / math.sqrt(2 * n), uniform=False, by_data=False):
    def gpt2_init(module, n_layer=12):
        for name, p in module.named_parameters():
            std = std_proj(n_layer) if name.startswith("c_proj") else 0.02
            if name.endswith("bias"):
                nn.init.zeros_(p)
            elif uniform:
                nn.init.uniform_(p, -std * 3 ** 0.5, std * 3 ** 0.5)
            elif by_data:
                p.data.copy_(torch.randn_like(p))
                p.data *= std
            else:
                with torch.no_grad():
                    p.copy_(torch.randn_like(p) * std)
        return module
    return gpt2_init


def test_init_written_another_way_passes(lang):
    both_pass(checks.check_gpt2_init, probes.init, (init(), gpt2_module()))
    both_pass(checks.check_gpt2_init, probes.init, (init(by_data=True), gpt2_module()))


@pytest.mark.parametrize("fn,hint", [(init(lambda n: 0.02 / math.sqrt(2 * 12)), "hint_init_n_layer"),
                                     (init(lambda n: 0.02 / math.sqrt(n)), "hint_init_missing_two"),
                                     (init(uniform=True), "hint_init_uniform")])
def test_init_mistakes_are_named_alike_on_every_seed(lang, fn, hint):
    check_names(lambda _: checks.check_gpt2_init(fn, gpt2_module()), None, hint)
    for seed in (1, 2, 3):
        assert hint_key(fails(probes.init, fn, gpt2_module(), seed=seed)) == hint


# --------------------------------------------------------------------------- exercises 5 and 6: the copies
def load_split_cat(mine, hf):
    with torch.no_grad():
        E = mine.embed_dim
        mine.c_attn.weight.copy_(torch.cat([w.T for w in hf.c_attn.weight.split(E, dim=1)], dim=0))
        mine.c_attn.bias.copy_(hf.c_attn.bias)
        mine.c_proj.weight.copy_(torch.einsum("io->oi", hf.c_proj.weight))
        mine.c_proj.bias.copy_(hf.c_proj.bias)
    return mine


def load_new_parameters(mine, hf):
    for layer in ("c_attn", "c_proj"):
        getattr(mine, layer).weight = nn.Parameter(getattr(hf, layer).weight.t().clone())
        getattr(mine, layer).bias = nn.Parameter(getattr(hf, layer).bias.clone())
    return mine


def export_state_dict(mine, hf):
    hf.load_state_dict({n: (p.t() if n.endswith("weight") else p) for n, p in mine.state_dict().items()},
                       strict=False)
    return hf


def test_copies_written_another_way_pass(lang):
    ok = gpt2_module()
    for fn in (load_split_cat, load_new_parameters):
        both_pass(checks.check_load_from_hf, probes.load_from_hf, (fn, ok))
    both_pass(checks.check_export_to_hf, probes.export_to_hf, (export_state_dict, ok))


def test_a_copy_into_something_else_than_the_argument_is_named_alike(lang):
    ok = gpt2_module()
    both_name(checks.check_load_from_hf, probes.load_from_hf,
              (lambda mine, hf: load_ok(type(mine)(mine.embed_dim, mine.n_head), hf), ok),
              "hint_copy_into_target", target="mine")
    both_name(checks.check_export_to_hf, probes.export_to_hf,
              (lambda mine, hf: export_state_dict(mine, copy.deepcopy(hf)), ok), "hint_copy_into_target", target="hf")


def test_export_sharing_memory_names_hf_as_the_target(lang):
    def shares(mine, hf):
        export_state_dict(mine, hf)
        hf.c_proj.bias = mine.c_proj.bias
        return hf
    both_name(checks.check_export_to_hf, probes.export_to_hf, (shares, gpt2_module()),
              "hint_copy_shares_memory_into", target="hf")


def test_a_bias_less_module_is_named_as_exercise_2s_when_loading(lang):
    both_name(checks.check_load_from_hf, probes.load_from_hf, (load_ok, gpt2_module(bias=False)),
              "hint_bias_from_module")


def test_a_global_that_a_later_cell_binds_fails_on_both_sides(lang):
    source = ("def load_from_hf(mine, hf):\n"
              "    with torch.no_grad():\n"
              "        mine.c_attn.weight.copy_(torch.cat([w.T for w in hf.c_attn.weight.split(E, dim=1)]))\n"
              "        mine.c_attn.bias.copy_(hf.c_attn.bias)\n"
              "        mine.c_proj.weight.copy_(hf.c_proj.weight.T)\n"
              "        mine.c_proj.bias.copy_(hf.c_proj.bias)\n"
              "    return mine\n")
    later = {"__name__": "__main__", "torch": torch, "E": 768}   # the loop's last E, in the learner's kernel
    exec(source, later)
    failure = fails_with(lambda _: checks.check_load_from_hf(later["load_from_hf"], gpt2_module()), None,
                         "hint_global_size", names="E = 768")
    assert failure.message == t("global_size_read", names="E = 768")
    assert fails(probes.load_from_hf, later["load_from_hf"], gpt2_module(), key="global_size_read")
    graded = {"__name__": "__main__", "torch": torch}   # in grading the loop has not run yet
    exec(source, graded)
    assert fails(probes.load_from_hf, graded["load_from_hf"], gpt2_module(), key="hidden_raised").hint \
        == "hint_name_not_defined"


def test_english_errors_are_glossed_alike(lang):
    from attn_course.checks.engine import error_gloss, glossed
    error = "ValueError: too many values to unpack (expected 3)"
    assert error_gloss(error) == ("error_gloss_unpack", {"error": error, "n": "3"})
    assert glossed(error) == t("error_gloss_unpack", error=error, n="3") != error
    assert glossed("KeyError: 'x'") == "KeyError: 'x'"
