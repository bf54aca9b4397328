"""Visible checks: right code passes, each classic bug fails with its own hint, in both languages."""
import math
import re
import string

import pytest
import torch
import torch.nn as nn

import attn_course as course
from attn_course import checks, messages
from attn_course.messages import MESSAGES, t


@pytest.fixture(params=["ja", "ko"])
def lang(request):
    messages.set_language(request.param)
    yield request.param
    messages.set_language("ja")


def fails_with(check, arg, hint_key, **fields):
    with pytest.raises(checks.CheckFailed) as info:
        check(arg)
    expected = t(hint_key, **fields)
    assert expected in str(info.value), f"expected hint {hint_key!r}, got:\n{info.value}"
    return info.value


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


def test_wrong_shape_names_the_axis(lang):
    error = fails_with(checks.check_attention_scores, lambda Q, K: scores_ok(Q, K).sum(0, keepdim=True).expand(3, -1, -1),
                       "wrong_axis", what="attention_scores", want=(2, 3, 5), layout="(B, T_q, T_k)",
                       got=(3, 3, 5), axis=0, axis_name="B", want_n=2, got_n=3)
    assert "B" in str(error)


def softmax_ok(s):
    e = (s - s.amax(-1, keepdim=True)).exp()
    return e / e.sum(-1, keepdim=True)


def test_softmax_checks(lang):
    checks.check_softmax(softmax_ok)
    fails_with(checks.check_softmax, lambda s: torch.softmax(s, dim=-2), "hint_softmax_axis", axis=-2)
    fails_with(checks.check_softmax, lambda s: s.exp() / s.exp().sum(-1, keepdim=True), "hint_softmax_overflow")
    (scores,) = checks._inputs((checks.B, checks.T_Q, checks.T_K), seed=2)
    sums = scores.exp().sum(-1)
    fails_with(checks.check_softmax, lambda s: s.exp(), "hint_rows_not_normalised",
               lo=float(sums.min()), hi=float(sums.max()))


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
    with pytest.raises(checks.CheckFailed, match=re.escape(t("returned_not_pair", name="attention", kind="Tensor"))):
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
    fails_with(checks.check_attention_module, NoInputCheck, "hint_no_input_check", shape=(5, 7))
    fails_with(checks.check_attention_module, Unscaled, "hint_no_scale")


def test_numeric_answer_checks(lang):
    checks.check_variance_answers(512, 1, 505.3, 0.99)
    fails_with(lambda a: checks.check_variance_answers(a, 1, 505.3, 0.99), 22.6, "answer_std_not_var",
               name="answer_var_raw", got=22.6)
    fails_with(lambda a: checks.check_variance_answers(512, a, 505.3, 0.99), None, "answer_missing",
               name="answer_var_scaled")
    checks.check_param_answer(196608, AttentionOK)
    fails_with(lambda a: checks.check_param_answer(a, AttentionOK), 4 * 768 * 64 + 1, "answer_disagrees_with_module",
               name="answer_n_params", got=4 * 768 * 64 + 1, module="AttentionOK(768, 64)", counted=196608)
    # A broken module does not cost the point of a right answer.
    checks.check_param_answer(196608, NoWoAtAll)


# --------------------------------------------------------------------------- bad input
def test_bad_input_gets_a_localized_error(lang):
    with pytest.raises(ValueError, match=re.escape(t("embed_mismatch", want=8, got=5, shape=(2, 6, 5)))):
        AttentionOK(8, 4)(torch.randn(2, 6, 5))
    with pytest.raises(ValueError) as info:
        AttentionOK(8, 4)(torch.randn(6, 8))
    assert "(B, T, E)" in str(info.value)
    with pytest.raises(ValueError, match=re.escape(t("qk_dim_mismatch", dq=4, dk=3))):
        checks.expect_qkv(torch.randn(2, 5, 4), torch.randn(2, 5, 3))
    with pytest.raises(ValueError, match=re.escape(t("kv_len_mismatch", tk=5, tv=6))):
        checks.expect_qkv(torch.randn(2, 5, 4), torch.randn(2, 5, 4), torch.randn(2, 6, 4))
    with pytest.raises(ValueError):
        checks.expect_qkv(torch.randn(2, 5, 4), torch.randn(3, 5, 4))
    with pytest.raises(ValueError):
        checks.expect_size(0, "key_dim")
    with pytest.raises(ValueError):
        course.AttentionExplorer(torch.rand(3, 3), ["a", "b"])


def test_unknown_language_is_refused_in_both_languages():
    with pytest.raises(ValueError) as info:
        messages.set_language("en")
    assert "言語" in str(info.value) and "언어" in str(info.value)


def test_every_message_exists_in_both_languages_with_the_same_fields():
    fields = lambda s: sorted(f for _, f, _, _ in string.Formatter().parse(s) if f)  # noqa: E731
    for key, texts in MESSAGES.items():
        assert set(texts) == {"ja", "ko"}, key
        assert texts["ja"].strip() and texts["ko"].strip(), key
        assert fields(texts["ja"]) == fields(texts["ko"]), key


def test_check_failure_renders_without_a_stack(lang):
    try:
        checks.check_attention_scores(SCORE_BUGS["hint_no_scale"])
    except checks.CheckFailed as error:
        lines = error._render_traceback_()
    assert t("check_failed") in lines[0] and any(t("hint_no_scale") in line for line in lines)
    assert not any("Traceback" in line for line in lines)


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
    "hint_interleaved": lambda x: x.permute(0, 2, 3, 1).reshape(x.size(0), x.size(2), -1),
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
        self.head_dim = checks.resolve_head_dim(embed_dim, n_head, head_dim)
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


class WideHead(MHAOK):
    def forward(self, x):
        course.expect_tokens(x, self.embed_dim)
        w = torch.softmax(self.W_q(x) @ self.W_k(x).mT / self.scale, -1)
        return self.W_o(w @ self.W_v(x)), w


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
    fails_with(checks.check_mha_module, variant(scale=math.sqrt(checks.H_2 * checks.D_2)), "hint_scale_head_dim")
    fails_with(checks.check_mha_module, variant(scale=1.0), "hint_no_scale")
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


def to_torch_ok(mha, order=("W_q", "W_k", "W_v"), transpose=False, out=True, batch_first=True):
    theirs = nn.MultiheadAttention(mha.embed_dim, mha.n_head, bias=False, batch_first=batch_first).to(mha.W_q.weight)
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
    with pytest.raises(ValueError, match=re.escape(t("torch_mha_incompatible", h=4, d=3, e=8))):
        checks.expect_torch_compatible(MHAOK(8, 4, 3))


def test_mha_param_answer(lang):
    checks.check_mha_param_answer(4 * 768 * 12 * 64, MHAOK)
    with pytest.raises(checks.CheckFailed):
        checks.check_mha_param_answer(4 * 768 * 768 + 4 * 768, MHAOK)


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
    fails_with(checks.check_padding_keep, lambda n, T: torch.arange(T) < n[:, None], "hint_mask_device")
    fails_with(checks.check_padding_keep, lambda n, T: torch.arange(T, device=n.device) >= n[:, None],
               "hint_padding_inverted")
    checks.check_mha_mask_to_sdpa(lambda m: ~m if m.dtype == torch.bool else m)
    fails_with(checks.check_mha_mask_to_sdpa, lambda m: m, "hint_same_convention")
    fails_with(checks.check_mha_mask_to_sdpa, lambda m: ~m if m.dtype == torch.bool else -m, "hint_additive_changed")
    checks.check_safe_softmax(lambda s: torch.softmax(s, -1).nan_to_num(0.0))
    fails_with(checks.check_safe_softmax, lambda s: torch.softmax(s, -1), "hint_nan_fully_masked")


class CausalOK(nn.Module):
    def __init__(self, embed_dim, n_head, head_dim=None, dropout=0.0, max_len=32, bug=None):
        super().__init__()
        self.embed_dim, self.n_head, self.bug = embed_dim, n_head, bug
        self.head_dim = checks.resolve_head_dim(embed_dim, n_head, head_dim)
        inner = n_head * self.head_dim
        self.W_q, self.W_k, self.W_v = (nn.Linear(embed_dim, inner, bias=False) for _ in range(3))
        self.W_o = nn.Linear(inner, embed_dim, bias=False)
        self.dropout = nn.Dropout(dropout)
        if bug != "no_buffer":
            self.register_buffer("causal", torch.ones(max_len, max_len, dtype=torch.bool).tril(), persistent=False)

    def forward(self, x, lengths=None, use_sdpa=False):
        course.expect_tokens(x, self.embed_dim)
        B, T, _ = x.shape
        Q, K, V = (split_ok(f(x), self.n_head) for f in (self.W_q, self.W_k, self.W_v))
        keep = torch.ones(T, T, dtype=torch.bool).tril() if self.bug == "cpu" else self.causal[:T, :T]
        if self.bug == "triu":
            keep = keep.T
        if lengths is not None and self.bug != "ignore_lengths":
            keep = keep & (torch.arange(T, device=x.device) < lengths[:, None])[:, None, None, :]
        if use_sdpa:
            mask = ~keep if self.bug == "sdpa_inverted" else keep
            y = torch.nn.functional.scaled_dot_product_attention(Q, K, V, attn_mask=mask)
            return self.W_o(merge_ok(y.nan_to_num(0.0))), None
        s = Q @ K.transpose(-2, -1) / math.sqrt(self.head_dim)
        if self.bug == "after_softmax":
            w = torch.softmax(s, -1).masked_fill(~keep, 0.0)
        else:
            w = torch.softmax(s.masked_fill(~keep, float("-inf")), -1)
            w = w if self.bug == "nan" else w.nan_to_num(0.0)
        dropped = torch.nn.functional.dropout(w, self.dropout.p) if self.bug == "eval_dropout" else self.dropout(w)
        y = self.W_o(merge_ok(dropped @ V))
        return y, (dropped if self.bug == "return_dropped" else w)


def causal_variant(bug):
    class Variant(CausalOK):
        def __init__(self, *args):
            super().__init__(*args, bug=bug)
    return Variant


@pytest.mark.parametrize("bug,hint", [
    ("after_softmax", "hint_mask_after_softmax"), ("triu", "hint_upper_triangle"),
    ("ignore_lengths", "hint_padding_ignored"), ("nan", "hint_nan_fully_masked"),
    ("eval_dropout", "hint_dropout_eval"), ("return_dropped", "hint_weights_after_dropout"),
    ("no_buffer", "hint_buffer_missing"), ("cpu", "hint_mask_device"), ("sdpa_inverted", "hint_sdpa_mismatch"),
])
def test_causal_module_bug_gets_its_hint(lang, bug, hint):
    checks.check_causal_module(CausalOK)
    fails_with(checks.check_causal_module, causal_variant(bug), hint)


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


def gpt2_module(bias=True, mask=True):
    class M(nn.Module):
        def __init__(self, E, H, max_len=64, dropout=0.0):
            super().__init__()
            self.embed_dim, self.n_head, self.head_dim = E, H, E // H
            self.c_attn, self.c_proj = nn.Linear(E, 3 * E, bias=bias), nn.Linear(E, E)
            self.register_buffer("causal", torch.ones(max_len, max_len, dtype=torch.bool).tril(), persistent=False)

        def forward(self, x, use_sdpa=False):
            B, T, E = x.shape
            q, k, v = split_qkv_ok(self.c_attn(x), self.n_head)
            if use_sdpa:
                y = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
                return self.c_proj(merge_ok(y)), None
            s = q @ k.mT / math.sqrt(self.head_dim)
            if mask:
                s = s.masked_fill(~self.causal[:T, :T], float("-inf"))
            w = torch.softmax(s, -1)
            return self.c_proj(merge_ok(w @ v)), w
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
    checks.check_load_from_hf(load_ok, ok)
    fails_with(lambda f: checks.check_load_from_hf(f, ok), lambda m, h: load_ok(m, h, transpose_proj=False),
               "hint_conv1d_transpose")
    fails_with(lambda f: checks.check_load_from_hf(f, ok), lambda m, h: load_ok(m, h, bias=False), "hint_missing_bias")

    def no_transpose_at_all(m, h):
        with torch.no_grad():
            m.c_attn.weight.copy_(h.c_attn.weight)
        return m
    fails_with(lambda f: checks.check_load_from_hf(f, ok), no_transpose_at_all, "hint_conv1d_transpose")

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
        checks.check_gpt2_init(lambda m, n: init(m, n, proj_std=0.02), ok)
    with pytest.raises(checks.CheckFailed, match="c_attn.bias"):
        checks.check_gpt2_init(lambda m, n: init(m, n, bias=0.1), ok)


# --------------------------------------------------------------------------- lesson 5
@pytest.fixture(scope="module")
def ref5():
    import os
    os.environ.setdefault("ATTN_COURSE_REFERENCE", str(__import__("conftest").ROOT / "autograder" / "reference"))
    return checks.reference("lesson5")


def _step(zero="before", softmax=False, item=True):
    def train_step(model, optimizer, x, y):
        logits, _ = model(x)
        if softmax:
            logits = logits.softmax(-1)
        loss = torch.nn.functional.cross_entropy(logits.reshape(-1, logits.size(-1)), y.reshape(-1), ignore_index=-100)
        if zero == "before":
            optimizer.zero_grad()
        loss.backward()
        if zero == "between":
            optimizer.zero_grad()
        optimizer.step()
        return loss.item() if item else loss
    return train_step


@pytest.mark.parametrize("bug,hint", [
    (dict(zero="never"), "hint_zero_grad"),
    (dict(zero="between"), "hint_train_order"),
    (dict(softmax=True), "hint_loss_softmax_twice"),
])
def test_train_step_bug_gets_its_hint(lang, ref5, bug, hint):
    checks.check_train_step(_step(), ref5.TinyDecoder)
    checks.check_train_step(_step(item=False), ref5.TinyDecoder)  # a 1-element tensor is accepted too
    fails_with(lambda f: checks.check_train_step(f, ref5.TinyDecoder), _step(**bug), hint)


def test_head_entropy_bugs_get_their_hints(lang, ref5):
    checks.check_head_entropy(ref5.head_entropy)
    fails_with(checks.check_head_entropy, lambda w: -(w * w.log()).sum(-1).mean(dim=(0, 2)), "hint_entropy_nan")
    fails_with(checks.check_head_entropy, lambda w: ref5.head_entropy(w) / math.log(2), "hint_entropy_log2")
    # Summing over the wrong axis first changes nothing once everything is averaged, so it is not a bug here.
    checks.check_head_entropy(lambda w: -torch.special.xlogy(w, w).sum(-2).mean(dim=(0, 2)))
    fails_with(checks.check_head_entropy, lambda w: -ref5.head_entropy(w), "hint_entropy_sign")
    fails_with(checks.check_head_entropy, lambda w: -torch.special.xlogy(w, w).sum(-1).mean(dim=(0, 1)),
               "hint_entropy_mean_axes")


def _ablate(where="input", cut="head", remove=True):
    def loss_without_head(model, x, y, layer, head):
        attn = model.blocks[layer].attn
        D = attn.c_proj.in_features // attn.n_head
        lo, hi = (head * D, (head + 1) * D) if cut == "head" else (head, head + 1)

        def zero(t_):
            t_ = t_.clone()
            t_[..., lo:hi] = 0
            return t_
        if where == "input":
            handle = attn.c_proj.register_forward_pre_hook(lambda m, inputs: (zero(inputs[0]),))
        else:
            handle = attn.c_proj.register_forward_hook(lambda m, inputs, out: zero(out))
        with torch.no_grad():
            loss = checks.toy_loss(model(x)[0], y).item()
        if remove:
            handle.remove()
        return loss
    return loss_without_head


def test_loss_without_head_bugs_get_their_hints(lang, ref5):
    check = lambda f: checks.check_loss_without_head(f, ref5.TinyDecoder)  # noqa: E731
    check(_ablate())
    check(ref5.loss_without_head)
    fails_with(check, _ablate(where="output"), "hint_ablation_output")
    fails_with(check, _ablate(cut="column"), "hint_ablation_slice")
    fails_with(check, _ablate(remove=False), "hint_ablation_remove")


def test_head_answers_are_checked_for_form_only(lang):
    checks.check_head_answers(1, 0.9, 2)
    for head, weight in ((None, 0.9), (2, 0.9), (True, 0.9), (0, None), (0, 1.5)):
        with pytest.raises(checks.CheckFailed):
            checks.check_head_answers(head, weight, 2)


# --------------------------------------------------------------------------- lesson 6
@pytest.fixture(scope="module")
def ref6():
    import os
    os.environ.setdefault("ATTN_COURSE_REFERENCE", str(__import__("conftest").ROOT / "autograder" / "reference"))
    return checks.reference("lesson6")


def _flops(mac=1, heads=True, qkv=3, batch=True):
    def attention_flops(B, T, E, H):
        b, h = (B if batch else 1), (H if heads else 1)
        f = {"qkv": 2 * b * T * E * qkv * E, "scores": 2 * b * h * T * T * (E // H),
             "weighted_sum": 2 * b * h * T * T * (E // H), "out_proj": 2 * b * T * E * E}
        return {k: v // (2 if mac == 0 else 1) for k, v in f.items()}
    return attention_flops


def test_attention_flops_bugs_get_their_hints(lang, ref6):
    checks.check_attention_flops(ref6.attention_flops)
    checks.check_attention_flops(_flops())
    fails_with(checks.check_attention_flops, _flops(mac=0), "hint_flops_macs")
    fails_with(checks.check_attention_flops, _flops(heads=False), "hint_flops_heads")
    fails_with(checks.check_attention_flops, _flops(qkv=1), "hint_flops_qkv3")
    fails_with(checks.check_attention_flops, _flops(batch=False), "hint_flops_batch")
    with pytest.raises(checks.CheckFailed):  # floats are not counts
        checks.check_attention_flops(lambda *a: {k: float(v) for k, v in ref6.attention_flops(*a).items()})
    with pytest.raises(checks.CheckFailed):
        checks.check_attention_flops(lambda *a: sum(ref6.attention_flops(*a).values()))


def test_kv_cache_bytes_bugs_get_their_hints(lang, ref6):
    size = lambda dtype: torch.empty((), dtype=dtype).element_size()  # noqa: E731
    checks.check_kv_cache_bytes(ref6.kv_cache_bytes)
    fails_with(checks.check_kv_cache_bytes, lambda L, B, T, G, D, dt: L * B * T * G * D * size(dt), "hint_kv_both")
    fails_with(checks.check_kv_cache_bytes, lambda L, B, T, G, D, dt: 16 * L * B * T * G * D * size(dt), "hint_kv_bits")
    fails_with(checks.check_kv_cache_bytes, lambda L, B, T, G, D, dt: 2 * B * T * G * D * size(dt), "hint_kv_layers")
    fails_with(checks.check_kv_cache_bytes, lambda L, B, T, G, D, dt: 8 * L * B * T * G * D, "hint_kv_dtype")
    fails_with(checks.check_kv_cache_bytes, lambda L, B, T, G, D, dt: 4 * L * B * T * G * D, "hint_kv_dtype")


def _tiled(rescale=True, normalize=True, tail=True, sum_blocks=False, causal_mask=True):
    def tiled_attention(q, k, v, block_size, causal=False):
        B_, H_, T_, D_ = q.shape
        if sum_blocks:
            out = torch.zeros_like(q)
            for j in range(0, T_, block_size):
                s = q @ k[:, :, j:j + block_size].transpose(-2, -1) / math.sqrt(D_)
                if causal:
                    s = s.masked_fill(torch.arange(j, min(j + block_size, T_)) > torch.arange(T_)[:, None], float("-inf"))
                out = out + torch.softmax(s, -1).nan_to_num() @ v[:, :, j:j + block_size]
            return out
        m = torch.full((B_, H_, T_, 1), float("-inf"), dtype=q.dtype)
        l, acc = torch.zeros_like(m), torch.zeros_like(q)
        end = T_ if tail else (T_ // block_size) * block_size
        for j in range(0, end, block_size):
            kb, vb = k[:, :, j:j + block_size], v[:, :, j:j + block_size]
            s = q @ kb.transpose(-2, -1) / math.sqrt(D_)
            if causal and causal_mask:
                s = s.masked_fill(torch.arange(j, j + kb.size(2)) > torch.arange(T_)[:, None], float("-inf"))
            m_new = torch.maximum(m, s.amax(-1, keepdim=True))
            p = torch.exp(s - m_new)
            scale = torch.exp(m - m_new)
            l = l * scale + p.sum(-1, keepdim=True)
            acc = (acc * scale if rescale else acc) + p @ vb
            m = m_new
        return acc / l if normalize else acc
    return tiled_attention


def test_tiled_attention_bugs_get_their_hints(lang, ref6):
    checks.check_tiled_attention(ref6.tiled_attention)
    checks.check_tiled_attention(_tiled())
    fails_with(checks.check_tiled_attention, _tiled(sum_blocks=True), "hint_tiled_sum")
    fails_with(checks.check_tiled_attention, _tiled(rescale=False), "hint_tiled_rescale")
    fails_with(checks.check_tiled_attention, _tiled(normalize=False), "hint_tiled_normalize")
    fails_with(checks.check_tiled_attention, _tiled(tail=False), "hint_tiled_tail")
    fails_with(checks.check_tiled_attention, _tiled(causal_mask=False), "hint_causal_6")
    sdpa = lambda q, k, v, b, causal=False: torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=causal)  # noqa: E731
    fails_with(checks.check_tiled_attention, sdpa, "hint_from_scratch", name="tiled_attention")


def _gqa(ref6, repeat="interleave", mask=True, swap=False, validate=True):
    class GQA(ref6.GroupedQueryAttention):
        def __init__(self, embed_dim, n_head, n_kv_head):
            if not validate:  # build with whatever sizes were asked for
                nn.Module.__init__(self)
                self.embed_dim, self.n_head, self.n_kv_head = embed_dim, n_head, n_kv_head
                self.head_dim = embed_dim // n_head
                self.q_proj = nn.Linear(embed_dim, embed_dim)
                self.kv_proj = nn.Linear(embed_dim, 2 * n_kv_head * self.head_dim)
                self.c_proj = nn.Linear(embed_dim, embed_dim)
            else:
                super().__init__(embed_dim, n_head, n_kv_head)

        def forward(self, x):
            B_, T_, E_ = x.shape
            H_, G_, D_ = self.n_head, self.n_kv_head, self.head_dim
            q = self.q_proj(x).view(B_, T_, H_, D_).transpose(1, 2)
            k, v = (z.view(B_, T_, G_, D_).transpose(1, 2) for z in self.kv_proj(x).split(G_ * D_, dim=2))
            if swap:
                k, v = v, k
            grow = (lambda z: z.repeat_interleave(H_ // G_, 1)) if repeat == "interleave" else (lambda z: z.repeat(1, H_ // G_, 1, 1))
            k, v = grow(k), grow(v)
            s = q @ k.transpose(-2, -1) / math.sqrt(D_)
            if mask:
                s = s.masked_fill(~torch.ones(T_, T_, dtype=torch.bool).tril(), float("-inf"))
            w = torch.softmax(s, -1)
            return self.c_proj((w @ v).transpose(1, 2).reshape(B_, T_, E_)), w
    return GQA


def test_gqa_bugs_get_their_hints(lang, ref6):
    checks.check_gqa_module(ref6.GroupedQueryAttention)
    checks.check_gqa_module(_gqa(ref6))
    fails_with(checks.check_gqa_module, _gqa(ref6, repeat="repeat"), "hint_gqa_repeat")
    fails_with(checks.check_gqa_module, _gqa(ref6, mask=False), "hint_causal_6")
    fails_with(checks.check_gqa_module, _gqa(ref6, swap=True), "hint_gqa_kv_swapped")
    fails_with(checks.check_gqa_module, _gqa(ref6, validate=False), "hint_gqa_error")


def _cached(offset=True, use_cache=True, mask=True, cat_dim=2, return_full=True):
    def attend_with_cache(attn, x_new, cache=None):
        B_, T_new, E_ = x_new.shape
        H_ = attn.n_head
        q, k, v = (z.view(B_, T_new, H_, E_ // H_).transpose(1, 2) for z in attn.c_attn(x_new).split(E_, dim=2))
        full_k, full_v = k, v
        if cache is not None:
            full_k, full_v = torch.cat([cache[0], k], dim=cat_dim), torch.cat([cache[1], v], dim=cat_dim)
        kk, vv = (full_k, full_v) if use_cache else (k, v)
        past = kk.size(2) - T_new
        s = q @ kk.transpose(-2, -1) / math.sqrt(E_ // H_)
        if mask:
            keep = torch.ones(T_new, kk.size(2), dtype=torch.bool).tril(diagonal=past if offset else 0)
            s = s.masked_fill(~keep, float("-inf"))
        y = (torch.softmax(s, -1) @ vv).transpose(1, 2).reshape(B_, T_new, E_)
        return attn.c_proj(y), ((full_k, full_v) if return_full else (k, v))
    return attend_with_cache


def test_attend_with_cache_bugs_get_their_hints(lang, ref6):
    checks.check_attend_with_cache(ref6.attend_with_cache)
    checks.check_attend_with_cache(_cached())
    fails_with(checks.check_attend_with_cache, _cached(offset=False), "hint_cache_mask_offset")
    fails_with(checks.check_attend_with_cache, _cached(use_cache=False), "hint_cache_unused")
    fails_with(checks.check_attend_with_cache, _cached(mask=False), "hint_causal_6")
    fails_with(checks.check_attend_with_cache, _cached(cat_dim=3), "hint_cat_dim")
    fails_with(checks.check_attend_with_cache, _cached(return_full=False), "hint_cache_concat")
    fails_with(checks.check_attend_with_cache, lambda attn, x, cache=None: _cached()(attn, x, cache)[0],
               "returned_not_cache_pair", name="attend_with_cache", kind="Tensor")


def test_peak_memory_sees_an_allocation_and_prints_nothing(capfd):
    from attn_course.device import peak_memory, time_it
    size = 4 * 2**20
    assert peak_memory(lambda: torch.empty(size, dtype=torch.uint8).fill_(1), "cpu") >= size
    assert peak_memory(lambda: None, "cpu") < 2**16
    assert time_it(lambda: None, "cpu") >= 0
    out, err = capfd.readouterr()
    assert err == "" and out == ""
