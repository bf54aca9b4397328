"""Lesson 8, section 8: a learned sink applied to FlexAttention's output through its log-sum-exp (exercise 15) and
Gemma 2's logit softcap as a score_mod (exercise 16). Visible checks (right code passes, each classic bug gets its
hint, in both languages), hidden tests (right code passes on several seeds, each bug fails and is named as the check
names it), and the references (transformers' gpt-oss and Gemma 2 eager paths) against the formulas the checks use.
The planted bugs are in tools/planted/lesson8.py.
"""
import math

import pytest
import torch
from torch.nn.attention.flex_attention import AuxRequest, flex_attention

from attn_course.checks import lesson8 as checks
from attn_course.checks.flex import in_eager
from attn_course.probes import lesson8 as probes
from attn_course.probes.draws import Draws
from conftest import fails, fails_with, passes, reference


@pytest.fixture(scope="module")
def ref():
    return reference("lesson8_fused")


# --------------------------------------------------------------------------- exercise 15
def _flex_sink(bug=None):
    def flex_sink_attention(q, k, v, sinks, block_mask=None):
        out, aux = flex_attention(q, k, v, block_mask=block_mask, return_aux=AuxRequest(lse=True))
        lse, s = aux.lse, sinks.view(1, -1, 1)
        if bug == "missing":
            return out
        if bug == "unsqueeze":
            return out * torch.sigmoid(lse - s)
        x = {"sign": s - lse, "log2": lse * math.log(2) - s, "scaled": lse - s / math.sqrt(q.size(-1))}.get(bug, lse - s)
        return out * torch.sigmoid(x).unsqueeze(-1)
    return flex_sink_attention


def _flex_sink_rewritten(q, k, v, sinks, block_mask=None):
    """Right, written as transformers writes it: exp(lse − logsumexp([lse, s_h]))."""
    out, aux = flex_attention(q, k, v, block_mask=block_mask, return_aux=AuxRequest(lse=True))
    lse = aux.lse.unsqueeze(-1)
    both = torch.cat([lse, sinks.view(1, -1, 1, 1).expand_as(lse)], -1)
    return out * torch.exp(lse - torch.logsumexp(both, -1, keepdim=True))


FLEX_SINK_BUGS = {"sign": "hint_flex_sink_sign", "log2": "hint_flex_sink_log2", "scaled": "hint_flex_sink_scaled",
                  "missing": "hint_flex_sink_missing", "unsqueeze": "hint_flex_sink_unsqueeze"}


def test_flex_sink_bugs_get_their_hints(lang):
    checks.check_flex_sink_attention(_flex_sink())
    checks.check_flex_sink_attention(_flex_sink_rewritten)
    for bug, hint in FLEX_SINK_BUGS.items():
        fails_with(checks.check_flex_sink_attention, _flex_sink(bug), hint)


def test_hidden_flex_sink_names_each_bug():
    for seed in (20261123, 1, 5):
        passes(probes.flex_sink_attention, _flex_sink(), seed=seed)
    passes(probes.flex_sink_attention, _flex_sink_rewritten)
    for bug, hint in FLEX_SINK_BUGS.items():
        assert fails(probes.flex_sink_attention, _flex_sink(bug)).hint == hint, bug


def test_gpt_oss_reference_is_exercise_6s_formula_and_the_lse_path(ref):
    """transformers' gpt-oss eager path, exercise 6's sink column and flex_attention's lse with σ(lse − s_h) agree
    to rounding, with a BlockMask and without."""
    for seed in (1, 2):
        draws = Draws(seed, "test.flex_sink")
        for _, inputs in probes.FLEX_SINK_CASES:
            q, k, v, sinks, block = inputs(draws, "float64", torch.float64)
            want = ref.gpt_oss_output(q, k, v, sinks, block)
            keep = checks.mask_of(block, q.size(2), k.size(2))
            assert (checks.sink_variants(q, k, v, sinks, keep)[None][0] - want).abs().max() < 1e-12
            assert (checks.flex_sink_variants(q, k, v, sinks, block)[None] - want).abs().max() < 1e-12
            assert (in_eager(_flex_sink())(q, k, v, sinks, block) - want).abs().max() < 1e-12


# --------------------------------------------------------------------------- exercise 16
def _softcap(bug=None):
    def softcap_score_mod(cap):
        def score_mod(score, b, h, q_idx, kv_idx):
            return {"outside": lambda: cap * torch.tanh(score), "inverted": lambda: torch.tanh(score * cap) / cap,
                    "not_rescaled": lambda: torch.tanh(score / cap), "clamp": lambda: score.clamp(-cap, cap),
                    "missing": lambda: score}.get(bug, lambda: cap * torch.tanh(score / cap))()
        return score_mod
    return softcap_score_mod


SOFTCAP_BUGS = {"outside": "hint_softcap_outside", "inverted": "hint_softcap_inverted",
                "not_rescaled": "hint_softcap_not_rescaled", "clamp": "hint_softcap_clamp",
                "missing": "hint_softcap_missing"}


def test_softcap_bugs_get_their_hints(lang):
    checks.check_softcap_score_mod(_softcap())
    for bug, hint in SOFTCAP_BUGS.items():
        fails_with(checks.check_softcap_score_mod, _softcap(bug), hint)


def test_hidden_softcap_names_each_bug():
    for seed in (20261123, 1, 5):
        passes(probes.softcap_score_mod, _softcap(), seed=seed)
    for bug, hint in SOFTCAP_BUGS.items():
        assert fails(probes.softcap_score_mod, _softcap(bug)).hint == hint, bug


def test_softcap_score_mod_with_python_control_flow_is_explained(lang):
    def softcap_score_mod(cap):
        def score_mod(score, b, h, q_idx, kv_idx):
            return cap * torch.tanh(score / cap) if score > 0 else score
        return score_mod
    fails_with(checks.check_softcap_score_mod, softcap_score_mod, "hint_flex_control_flow")


def test_gemma2_reference_is_the_softcap_formula(ref):
    """transformers' Gemma 2 eager path (its softmax in float32) and the check's formula agree to 1e-5, on a global
    layer and a sliding one; the softcap moves the output far more than that."""
    for seed in (1, 2):
        draws = Draws(seed, "test.softcap")
        for _, inputs in probes.SOFTCAP_CASES:
            args = inputs(draws, "float64", torch.float64)
            want = ref.gemma2_attention(*args)
            variants = checks.softcap_variants(*args)
            assert (variants[None] - want).abs().max() < 1e-5
            assert (variants["hint_softcap_missing"] - want).abs().max() > 1e-2
