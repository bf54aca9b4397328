"""Lesson 7: order-blindness, sinusoidal positions, RoPE, ALiBi and cross-attention.

Visible checks (right code passes, each classic bug gets its own hint, in both languages),
hidden tests (probe in the kernel, judge in the grader: the reference passes, bugs fail).
Its planted bugs (a graded submission per classic bug, which tests/test_grading.py grades as a class) are in
tools/planted/lesson7.py.
"""
import math

import pytest
import torch
import torch.nn as nn

import attn_course as course
from attn_course.checks import lesson7 as checks
from attn_course.checks import lesson7_mistakes as mistakes
from attn_course.checks.alibi import alibi_slopes
from attn_course.checks.lesson7_sinusoid import sinusoid
from attn_course.hf import llama_rotary
from attn_course.probes import lesson4 as probes4
from attn_course.probes import lesson7 as probes
from conftest import check_names, fails, fails_with, judged, passes, reference
from test_lesson4 import max_len_module


@pytest.fixture(scope="module")
def ref():
    return reference("lesson7")


# --------------------------------------------------------------------------- exercise 0
def _own_mask(ref):
    """Lesson 4's module with forward building its own causal mask: right until the buffer is opened."""
    class OwnMask(ref.GPT2SelfAttention):
        def forward(self, x, use_sdpa=False):
            saved = self.causal
            self.causal = torch.ones_like(saved).tril()
            try:
                return super().forward(x, use_sdpa)
            finally:
                self.causal = saved
    return OwnMask


def test_pasted_module_must_mask_with_its_buffer(lang):
    lesson4 = reference("lesson4")
    checks.check_gpt2_module(lesson4.GPT2SelfAttention)
    passes(probes.module_buffer, lesson4.GPT2SelfAttention)
    fails_with(checks.check_gpt2_module, _own_mask(lesson4), "hint_mask_not_from_buffer")
    assert fails(probes.module_buffer, _own_mask(lesson4)).hint == "hint_mask_not_from_buffer"


def test_pasted_module_is_built_with_max_len(lang):
    """Section 1 builds the pasted module with max_len=16 and reads its (max_len, max_len) buffer: a keyword named
    block_size passed the check and failed there, a buffer of a fixed 64 passed both sides. The check runs lesson 4's
    (max_len=80, T = 72), and the cell's hidden tests lesson4.module_max_len, which name the same cause."""
    lesson4 = reference("lesson4")
    passes(probes4.module_max_len, lesson4.GPT2SelfAttention)
    for mistake, hint in (({"buffer": 64}, "hint_max_len_buffer"), ({"keyword": "block_size"}, "hint_max_len_keyword")):
        cls = max_len_module(lesson4, **mistake)
        fails_with(checks.check_gpt2_module, cls, hint)
        assert fails(probes4.module_max_len, cls).hint == hint, mistake


# --------------------------------------------------------------------------- exercise 1
def _perm_error(compare="right", reduce="max", axis=1):
    def permutation_error(fn, x, perm):
        with torch.no_grad():
            moved = fn(x[:, perm]) if axis == 1 else fn(x[perm])
            y = fn(x)
            other = {"right": y[:, perm], "inverse": y[:, perm.argsort()], "output": y}[compare]
            diff = moved - other
            return float({"max": diff.abs().max(), "signed": diff.max(), "mean": diff.abs().mean(),
                          "first_batch": diff[0].abs().max()}[reduce])
    return permutation_error


def test_permutation_error_bugs_get_their_hints(lang, ref):
    checks.check_permutation_error(ref.permutation_error)
    # A 0-dim tensor is not the Python float the exercise asks for.
    fails_with(checks.check_permutation_error, lambda fn, x, perm: torch.tensor(ref.permutation_error(fn, x, perm)),
               "hint_perm_float")
    fails_with(checks.check_permutation_error, _perm_error(compare="inverse"), "hint_perm_inverse")
    fails_with(checks.check_permutation_error, _perm_error(compare="output"), "hint_perm_output")
    fails_with(checks.check_permutation_error, _perm_error(reduce="signed"), "hint_perm_abs")
    fails_with(checks.check_permutation_error, _perm_error(reduce="mean"), "hint_perm_mean")
    fails_with(checks.check_permutation_error, _perm_error(reduce="first_batch"), "hint_perm_first_batch")
    fails_with(checks.check_permutation_error, _perm_error(axis=0), "hint_perm_axis")
    fails_with(checks.check_permutation_error, lambda fn, x, perm: "small", "perm_not_float", kind="str")


# --------------------------------------------------------------------------- exercise 2
def _pe(**bug):
    def sinusoidal_positions(T, E, base=10000.0, device=None):
        course.expect_even(E, "E")
        out = sinusoid(T, E, base, **bug).float()
        return out if device is None else out.to(device)
    return sinusoidal_positions


def _pe_float32(sign=-1):
    """As learners write it, in float32 throughout: a positive exponent's large angles lose precision."""
    def sinusoidal_positions(T, E, base=10000.0, device=None):
        position = torch.arange(T, device=device).float()[:, None]
        omega = base ** (sign * torch.arange(0, E, 2, device=device).float() / E)
        pe = torch.zeros(T, E, device=device)
        pe[:, 0::2], pe[:, 1::2] = torch.sin(position * omega), torch.cos(position * omega)
        return pe
    return sinusoidal_positions


def test_sinusoidal_positions_bugs_get_their_hints(lang, ref):
    checks.check_sinusoidal_positions(_pe_float32())
    fails_with(checks.check_sinusoidal_positions, _pe_float32(sign=1), "hint_pe_sign")
    fails_with(checks.check_sinusoidal_positions, _pe(sin_only=True), "hint_pe_sin_only")
    checks.check_sinusoidal_positions(ref.sinusoidal_positions)
    checks.check_sinusoidal_positions(_pe())
    fails_with(checks.check_sinusoidal_positions, _pe(layout="halves"), "hint_pe_halves")
    fails_with(checks.check_sinusoidal_positions, _pe(swap=True), "hint_pe_swapped")
    fails_with(checks.check_sinusoidal_positions, _pe(exponent=1), "hint_pe_exponent")
    fails_with(checks.check_sinusoidal_positions, _pe(sign=1), "hint_pe_sign")
    fails_with(checks.check_sinusoidal_positions, _pe(start=1), "hint_pe_start")
    fails_with(checks.check_sinusoidal_positions, lambda T, E, base=10000.0, device=None: _pe()(T, E, base),
               "hint_pe_device")
    fails_with(checks.check_sinusoidal_positions, lambda T, E, base=10000.0, device=None: _pe()(T, E).double(),
               "hint_pe_dtype")
    fails_with(checks.check_sinusoidal_positions, lambda T, E, base=10000.0, device=None: _pe()(T, E, 10000.0, device),
               "hint_pe_base")


def test_odd_sizes_get_a_clear_error(lang):
    with pytest.raises(ValueError, match="E"):
        course.expect_even(7, "E")
    assert course.expect_even(8, "E") == 8


# --------------------------------------------------------------------------- exercise 3
def _rope(bug=None, only_q=False, device_aware=True):
    def apply_rope(q, k, positions, base=10000.0):
        if not device_aware:
            positions = positions.to("cpu")
        if bug in ("hint_rope_positions",):
            positions = torch.arange(q.size(-2))
        if bug == "hint_rope_base":
            base = 10000.0
        if bug in (None, "hint_rope_positions", "hint_rope_base"):
            q2, k2 = checks.rope(q, k, positions, base)
        else:
            q2, k2 = (mistakes.rope_with(z, positions, base, bug) for z in (q, k))
        return (q2, k) if only_q else (q2, k2)
    return apply_rope


def test_apply_rope_bugs_get_their_hints(lang, ref):
    checks.check_apply_rope(ref.apply_rope)   # transformers' own Llama code passes the visible check too
    checks.check_apply_rope(_rope())
    for bug in ("hint_rope_interleaved", "hint_rope_direction", "hint_rope_freq", "hint_rope_pairing",
                "hint_rope_positions", "hint_rope_base"):
        fails_with(checks.check_apply_rope, _rope(bug), bug)
    fails_with(checks.check_apply_rope, _rope(only_q=True), "hint_rope_unrotated")
    fails_with(checks.check_apply_rope, _rope(device_aware=False), "hint_rope_device")
    fails_with(checks.check_apply_rope, lambda q, k, p, base=10000.0: [z.double() for z in checks.rope(q, k, p, base)]
               and tuple(z.double() for z in checks.rope(q, k, p, base)), "hint_rope_dtype")
    fails_with(checks.check_apply_rope, lambda q, k, p, base=10000.0: checks.rope(q, k, p, base)[0],
               "rope_not_pair", name="apply_rope", kind="Tensor")


def test_float32_angles_like_transformers_pass(ref):
    """A learner who copies Llama's float32 angles still passes, visible and hidden."""
    def apply_rope(q, k, positions, base=10000.0):
        D = q.size(-1)
        inv_freq = 1.0 / (base ** (torch.arange(0, D, 2, dtype=torch.float, device=q.device) / D))
        emb = torch.cat([positions.to(q.device).float()[:, None] * inv_freq] * 2, dim=-1)
        half = lambda x: torch.cat([-x[..., D // 2:], x[..., :D // 2]], dim=-1)  # noqa: E731
        return (q * emb.cos().to(q.dtype) + half(q) * emb.sin().to(q.dtype),
                k * emb.cos().to(q.dtype) + half(k) * emb.sin().to(q.dtype))
    checks.check_apply_rope(apply_rope)
    passes(probes.apply_rope, apply_rope)


@pytest.mark.parametrize("seed", range(0, 400, 7))
def test_hidden_rope_inputs_leave_room_below_the_tolerance(seed):
    """transformers' float32 angles against an exact float64 RoPE, on the hidden test's own draws."""
    from attn_course.probes.draws import Draws
    draws = Draws(seed, "lesson7.apply_rope")
    for case in ("float64", "grad"):
        q, k, positions, base = probes.rope_setup(draws, case, torch.float64)
        hf = llama_rotary(q.size(-1), base)(q, k, positions)
        exact = checks.rope(q, k, positions, base)
        assert max(float((a - b).abs().max()) for a, b in zip(hf, exact)) < 5e-7  # the judge allows 1e-6


# --------------------------------------------------------------------------- exercise 4
def test_interleaved_to_half_bugs_get_their_hints(lang, ref):
    checks.check_interleaved_to_half(ref.interleaved_to_half)
    fails_with(checks.check_interleaved_to_half, lambda w, h: mistakes.layout_variants(w, h)["hint_layout_inverse"],
               "hint_layout_inverse")
    fails_with(checks.check_interleaved_to_half, lambda w, h: mistakes.layout_variants(w, h)["hint_layout_heads"],
               "hint_layout_heads")
    fails_with(checks.check_interleaved_to_half, lambda w, h: w, "hint_layout_unchanged")
    fails_with(checks.check_interleaved_to_half, _layout_columns, "hint_layout_columns")


def _layout_columns(weight, n_head):
    """The weight taken as (E, H·D): its columns reordered, the sizes taken from them."""
    rows, cols = weight.shape
    return weight.view(rows, n_head, cols // n_head // 2, 2).transpose(2, 3).reshape(rows, cols)


def test_layout_columns_are_named_when_they_split(ref):
    # Columns that split into heads of even width: no error, the values tell the mistake.
    w = torch.randn(12, 8, dtype=torch.float64)
    assert torch.equal(mistakes.layout_variants(w, 2)["hint_layout_columns"], _layout_columns(w, 2))


def test_converted_weights_give_the_interleaved_scores(ref):
    torch.manual_seed(0)
    h, d, e, t = 3, 8, 12, 9
    w = torch.randn(h * d, e, dtype=torch.float64)
    x = torch.randn(t, e, dtype=torch.float64)
    positions = torch.arange(t)
    heads = lambda z: z.view(t, h, d).transpose(0, 1)  # noqa: E731
    inter = mistakes.rope_with(heads(x @ w.T), positions, mistake="hint_rope_interleaved")
    converted = heads(x @ ref.interleaved_to_half(w, h).T)
    half, _ = checks.rope(converted, converted, positions)
    torch.testing.assert_close(half @ half.mT, inter @ inter.mT)


# --------------------------------------------------------------------------- exercise 5
def _relative(sign=1, both=False, own_rope=False):
    def relative_score(q, k, offset, rope):
        turn = (lambda a, b, p: checks.rope(a, b, p)) if own_rope else rope
        q_turned, k_turned = turn(q[..., None, :], k[..., None, :], torch.tensor([sign * offset]))
        return ((q_turned if both else q[..., None, :]) * k_turned)[..., 0, :].sum(-1)
    return relative_score


def test_relative_score_bugs_get_their_hints(lang, ref):
    checks.check_relative_score(ref.relative_score)
    checks.check_relative_score(_relative())
    fails_with(checks.check_relative_score, _relative(sign=-1), "hint_relative_sign")
    fails_with(checks.check_relative_score, _relative(both=True), "hint_relative_unrotated")
    fails_with(checks.check_relative_score, _relative(own_rope=True), "hint_relative_rope_arg")


def test_relative_property_holds_for_the_reference(ref):
    torch.manual_seed(1)
    q, k = torch.randn(2, 10, dtype=torch.float64)
    for m, n in ((0, 5), (30, 35), (9, 2)):
        q_m = checks.rope(q[None], q[None], torch.tensor([m]))[0][0]
        k_n = checks.rope(k[None], k[None], torch.tensor([n]))[1][0]
        torch.testing.assert_close(q_m @ k_n, ref.relative_score(q, k, n - m, checks.rope))


# --------------------------------------------------------------------------- exercise 6
def _rope_cache(**bug):
    """The learner-shaped function whose outputs rope_cache_run simulates, for each bug."""
    def attend_rope_with_cache(attn, x_new, cache, rope):
        B, T_new, E = x_new.shape
        H = attn.n_head
        q, k, v = (z.view(B, T_new, H, E // H).transpose(1, 2) for z in attn.c_attn(x_new).split(E, dim=2))
        past = 0 if cache is None else cache[0].size(2)
        positions = torch.arange(T_new) if bug.get("restart") else torch.arange(past, past + T_new)
        if bug.get("unrotated_cache"):   # raw keys cached; the whole cache turned again on every call
            raw = k if cache is None else torch.cat([cache[0], k], dim=2)
            q = rope(q, q, positions)[0]
            k = rope(raw, raw, torch.arange(past + T_new))[1]
            v = v if cache is None else torch.cat([cache[1], v], dim=2)
        else:
            if bug.get("rotate", True):
                q_turned, k = rope(q, k, positions)
                q = q if bug.get("q_not_rotated") else q_turned
            if cache is not None:
                old = rope(cache[0], cache[0], torch.arange(past))[1] if bug.get("twice") else cache[0]
                k = torch.cat([old, k], dim=2)
                v = v if bug.get("v_not_joined") else torch.cat([cache[1], v], dim=2)
        keep = torch.ones(T_new, past + T_new, dtype=torch.bool).tril(
            diagonal=0 if bug.get("offset") is False else past)
        s = (q @ k.transpose(-2, -1) / math.sqrt(E if bug.get("scale_by_e") else E // H)).masked_fill(
            ~keep, float("-inf"))
        y = (torch.softmax(s, -1) @ v).transpose(1, 2).reshape(B, T_new, E)
        return (y if bug.get("no_proj") else attn.c_proj(y)), ((raw if bug.get("unrotated_cache") else k), v)
    return attend_rope_with_cache


def test_rope_cache_bugs_get_their_hints(lang, ref):
    checks.check_rope_cache(_rope_cache())
    fails_with(checks.check_rope_cache, _rope_cache(restart=True), "hint_rope_cache_restart")
    fails_with(checks.check_rope_cache, _rope_cache(twice=True), "hint_rope_cache_twice")
    fails_with(checks.check_rope_cache, _rope_cache(offset=False), "hint_cache_mask_offset")
    fails_with(checks.check_rope_cache, _rope_cache(rotate=False), "hint_rope_cache_no_rope")
    fails_with(checks.check_rope_cache, _rope_cache(q_not_rotated=True), "hint_rope_cache_q_not_rotated")
    fails_with(checks.check_rope_cache, _rope_cache(scale_by_e=True), "hint_scale_head_dim")
    fails_with(checks.check_rope_cache, _rope_cache(no_proj=True), "hint_rope_cache_no_proj")
    fails_with(checks.check_rope_cache, _rope_cache(unrotated_cache=True), "hint_rope_cache_unrotated")
    # Values not joined: the product fails in the second call, the first (no cache) ran the same code.
    fails_with(checks.check_rope_cache, _rope_cache(v_not_joined=True), "hint_rope_cache_concat")
    fails_with(checks.check_rope_cache, lambda a, x, c, r: _rope_cache()(a, x, c, r)[0],
               "returned_not_cache_pair", name="attend_rope_with_cache", kind="Tensor")


# --------------------------------------------------------------------------- exercise 7
def _alibi(rule="right", sign=-1, reverse=False, device_aware=True, dtype=torch.float32):
    def alibi_bias(n_head, T, device=None):
        m = alibi_slopes(n_head, rule).to(dtype)
        m = m.flip(0) if reverse else m
        i = torch.arange(T)
        out = sign * m[:, None, None] * (i[:, None] - i[None, :]).to(dtype)
        return out.to(device) if (device is not None and device_aware) else out
    return alibi_bias


def test_alibi_bias_bugs_get_their_hints(lang, ref):
    checks.check_alibi_bias(ref.alibi_bias)
    checks.check_alibi_bias(_alibi())
    # Above the diagonal the causal mask hides everything: −m·|i − j| there is right too.
    checks.check_alibi_bias(lambda h, T, device=None: -_alibi()(h, T, device).abs())
    fails_with(checks.check_alibi_bias, _alibi(sign=1), "hint_alibi_sign")
    fails_with(checks.check_alibi_bias, _alibi(reverse=True), "hint_alibi_reversed")
    for rule in ("hint_alibi_start", "hint_alibi_ratio", "hint_alibi_power_of_two", "hint_alibi_odd"):
        fails_with(checks.check_alibi_bias, _alibi(rule), rule)
    fails_with(checks.check_alibi_bias, _alibi(device_aware=False), "hint_alibi_device")
    fails_with(checks.check_alibi_bias, _alibi(dtype=torch.float64), "hint_alibi_dtype")


def test_alibi_matches_bloom(ref):
    from transformers.models.bloom.modeling_bloom import build_alibi_tensor
    for h in (1, 2, 8, 12, 16, 112):
        bloom = build_alibi_tensor(torch.ones(1, 5), h, torch.float64).view(h, 5)[:, 1]   # m_h · 1
        torch.testing.assert_close(-ref.alibi_bias(h, 5)[:, 1, 0].double(), bloom, rtol=1e-6, atol=0)


# --------------------------------------------------------------------------- exercise 8
def _cross(ref, bug=None, check_inputs=True):
    class Cross(ref.CrossAttention):
        def forward(self, x, memory, key_padding_mask=None):
            if check_inputs:
                course.expect_tokens(x, self.embed_dim)
                course.expect_tokens(memory, self.embed_dim)
            B, T_q, E = x.shape
            H, D = self.n_head, self.head_dim
            source = x if bug == "kv_from_x" else memory
            q = self.q_proj(memory if bug == "q_from_memory" else x).view(B, -1, H, D).transpose(1, 2)
            k, v = (p(source).view(B, -1, H, D).transpose(1, 2) for p in (self.k_proj, self.v_proj))
            scale = math.sqrt(E) if bug == "scale_e" else (1.0 if bug == "no_scale" else math.sqrt(D))
            s = q @ k.transpose(-2, -1) / scale
            if (key_padding_mask is not None or bug == "none_mask") and bug != "no_mask":
                mask = ~key_padding_mask if bug == "inverted" else key_padding_mask
                s = s.masked_fill(mask[:, None, None, :], 0.0 if bug == "zero" else float("-inf"))
            if bug in ("causal", "causal_lower_right"):
                shift = s.size(-1) - s.size(-2) if bug == "causal_lower_right" else 0
                s = s.masked_fill(~torch.ones(s.size(-2), s.size(-1), dtype=torch.bool).tril(shift), float("-inf"))
            w = torch.softmax(s, -1)
            y = (w @ v).transpose(1, 2).reshape(B, -1, E)
            y = y if bug == "no_out_proj" else self.out_proj(y)
            return y, (w.mean(1) if bug == "heads_averaged" else w)
    if bug == "floor_head_dim":   # embed_dim // n_head: no error when E does not split into H heads
        def __init__(self, embed_dim, n_head):
            nn.Module.__init__(self)
            self.embed_dim, self.n_head, self.head_dim = embed_dim, n_head, embed_dim // n_head
            for name in ("q_proj", "k_proj", "v_proj", "out_proj"):
                setattr(self, name, nn.Linear(embed_dim, embed_dim))
        Cross.__init__ = __init__
    return Cross


def test_cross_attention_bugs_get_their_hints(lang, ref):
    checks.check_cross_attention(ref.CrossAttention)
    checks.check_cross_attention(_cross(ref))
    for bug, hint in (("causal", "hint_cross_causal"), ("inverted", "hint_cross_mask_inverted"),
                      ("zero", "hint_cross_mask_zero"), ("no_mask", "hint_cross_no_mask"),
                      ("no_scale", "hint_no_scale"), ("scale_e", "hint_cross_scale_e"),
                      ("q_from_memory", "hint_cross_q_from_memory"), ("heads_averaged", "hint_cross_heads_averaged"),
                      ("none_mask", "hint_cross_none_mask"), ("no_out_proj", "hint_cross_out_proj"),
                      ("causal_lower_right", "hint_cross_causal_lower_right")):
        fails_with(checks.check_cross_attention, _cross(ref, bug), hint)
    check_names(checks.check_cross_attention, _cross(ref, check_inputs=False), "hint_cross_no_input_check")
    # and the grader: a forward without the check lost nothing there (make mutants: equivalent outputs, ✗ visible)
    failure = fails(probes.cross_attention, _cross(ref, check_inputs=False))
    assert failure.key == "hint_cross_no_input_check"
    # its message names both shapes in each language (it raised KeyError for {x} before: make mutants)
    from attn_grader.verdict import localize
    assert all(failure.fields["x"] in localize(failure, lang_) and failure.fields["memory"] in localize(failure, lang_)
               for lang_ in ("ja", "ko"))


def test_cross_attention_must_refuse_heads_that_do_not_divide(lang, ref):
    fails_with(checks.check_cross_attention, _cross(ref, "floor_head_dim"), "hint_cross_head_dim", e=10, h=3)
    assert fails(probes.cross_attention, _cross(ref, "floor_head_dim")).key == "hint_cross_head_dim"
    assert fails(probes.cross_attention, _cross(ref, "no_out_proj")).hint == "hint_cross_out_proj"
    assert fails(probes.cross_attention, _cross(ref, "causal_lower_right")).hint == "hint_cross_causal_lower_right"


def test_cross_attention_keys_from_the_wrong_sequence(lang, ref):
    # k and v from x: the (B, 1, 1, T_k) mask no longer fits the (B, H, T_q, T_q) scores.
    fails_with(checks.check_cross_attention, _cross(ref, "kv_from_x"), "hint_cross_lengths")


def test_cross_attention_wrapping_the_library_is_refused(lang, ref):
    class Wrapped(ref.CrossAttention):
        def forward(self, x, memory, key_padding_mask=None):
            mha = nn.MultiheadAttention(self.embed_dim, self.n_head, batch_first=True).to(x.dtype)
            return mha(x, memory, memory, key_padding_mask=key_padding_mask, average_attn_weights=False)
    # The course's own converter (attn_course.checks.lesson7_cross.to_torch_mha) holds a right answer too: the
    # policy refuses reaching it from the source (tests/test_hand_policy.py).
    fails_with(checks.check_cross_attention, Wrapped, "hint_from_scratch", name="CrossAttention.forward")
    assert fails(probes.cross_attention, Wrapped, key="hidden_by_hand").hint[0] == "hint_from_scratch"


# --------------------------------------------------------------------------- the explorer
def test_explorer_shows_a_rectangular_cross_attention_map():
    course.setup("ja")
    q, k = torch.randn(2, 6, 4), torch.randn(2, 8, 4)
    explorer = course.AttentionExplorer.from_qk(q, k, list("abcdef"), causal=False, length=6,
                                                key_tokens=list("ABCDEFGH"))
    assert tuple(explorer.current().shape) == (2, 6, 8)
    assert explorer.keep()[:, 6:].logical_not().all()           # the padded keys are hidden
    for control, value in ((explorer.query, 5), (explorer.compare, 1), (explorer.head, 1),
                           (explorer.causal, True), (explorer.padding, False), (explorer.stage, "stage_scores"),
                           (explorer.tau, 0.3)):
        before = [bytes(v.value) for v in (explorer.image, explorer.grid, explorer.bars, explorer.diff)]
        control.value = value
        assert [bytes(v.value) for v in (explorer.image, explorer.grid, explorer.bars, explorer.diff)] != before, \
            control.description
    with pytest.raises(ValueError):
        course.AttentionExplorer.from_qk(q, k, list("abcdef"))  # 8 keys need their own tokens


def test_explorer_offers_no_padding_toggle_without_padding():
    course.setup("ja")
    q = torch.randn(6, 4)
    explorer = course.AttentionExplorer.from_qk(q, q, list("abcdef"))
    shown = [c for box in explorer.widget.children if hasattr(box, "children") for c in box.children]
    assert explorer.causal in shown and explorer.padding not in shown


# --------------------------------------------------------------------------- hidden tests
def test_reference_passes_its_own_hidden_tests(ref):
    passes(probes.permutation_error, ref.permutation_error)
    passes(probes.sinusoidal_positions, ref.sinusoidal_positions)
    passes(probes.apply_rope, ref.apply_rope)
    passes(probes.apply_rope, checks.rope)   # an exact float64 RoPE passes against transformers' float32 angles
    passes(probes.interleaved_to_half, ref.interleaved_to_half)
    passes(probes.relative_score, ref.relative_score)
    passes(probes.rope_cache, _rope_cache())
    passes(probes.alibi_bias, ref.alibi_bias)
    passes(probes.cross_attention, ref.CrossAttention)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_hidden_tests_pass_for_other_seeds(ref, seed):
    passes(probes.apply_rope, checks.rope, seed=seed)
    passes(probes.rope_cache, _rope_cache(), seed=seed)
    passes(probes.alibi_bias, ref.alibi_bias, seed=seed)
    passes(probes.cross_attention, ref.CrossAttention, seed=seed)


def test_the_hidden_permutation_is_one_cycle_on_every_seed():
    """No token stays put and none swaps with another: on every row, the output left unpermuted, permuted
    back and permuted right are different rows. (A 2-cycle once made "unpermuted" and "permuted back"
    the same number on some seeds, and the class report counted the mistake under the wrong hint.)"""
    from attn_course.probes import Draws
    for seed in range(200):
        _, perm, _ = probes.perm_setup(Draws(seed, "lesson7.permutation_error"))
        seen, i = set(), 0
        while i not in seen:
            seen.add(i)
            i = int(perm[i])
        assert len(seen) == len(perm), (seed, perm)


@pytest.mark.parametrize("mistake, hint", [
    ({"compare": "inverse"}, "hint_perm_inverse"), ({"compare": "output"}, "hint_perm_output"),
    ({"reduce": "signed"}, "hint_perm_abs"), ({"reduce": "mean"}, "hint_perm_mean"),
    ({"reduce": "first_batch"}, "hint_perm_first_batch")])
def test_hidden_tests_name_the_permutation_mistake_on_every_seed(ref, mistake, hint):
    """Seeds 61, 145 and 352 once drew inputs on which element 0's largest error was also the signed maximum:
    the grader named "no abs()" for the planted first-batch bug (a CI run's class report counted it there)."""
    learner = _perm_error(**mistake)
    for seed in [*range(40), 61, 145, 352]:
        failure = judged(probes.permutation_error, learner, seed=seed)
        assert failure is not None and failure.hint == hint, (seed, failure and failure.hint)


def _relative_sum(dim=-1):
    def relative_score(q, k, offset, rope):
        _, k_turned = rope(k[..., None, :], k[..., None, :], torch.tensor([offset], device=k.device))
        return (q * k_turned[..., 0, :]).sum(dim=dim)
    return relative_score


def test_relative_score_takes_any_rank(lang, ref):
    """(…, D): `make mutants` found sum(dim=1) passing both checks on (N, D), then the lesson's next cell, which
    passes one vector (D,), raised IndexError."""
    checks.check_relative_score(_relative_sum())
    fails_with(checks.check_relative_score, _relative_sum(dim=1), "hint_relative_last_axis")
    passes(probes.relative_score, _relative_sum())
    for seed in range(5):
        assert fails(probes.relative_score, _relative_sum(dim=1), seed=seed).hint == "hint_relative_last_axis", seed


def test_hidden_tests_name_the_likely_mistake(ref):
    assert fails(probes.permutation_error, _perm_error(compare="inverse")).hint == "hint_perm_inverse"
    # Batch element 0 alone: right by chance when it holds the largest error, named whenever it is wrong.
    verdicts = [judged(probes.permutation_error, _perm_error(reduce="first_batch"), seed=seed) for seed in range(12)]
    named = [failure.hint for failure in verdicts if failure is not None]
    assert named and set(named) == {"hint_perm_first_batch"}, named
    assert fails(probes.sinusoidal_positions, _pe(layout="halves")).hint == "hint_pe_halves"
    assert fails(probes.sinusoidal_positions, _pe(sin_only=True)).hint == "hint_pe_sin_only"
    for seed in range(10):   # the grader's sizes reach angles of 10^5 and more
        assert fails(probes.sinusoidal_positions, _pe_float32(sign=1), seed=seed).hint == "hint_pe_sign", seed
    assert fails(probes.apply_rope, _rope("hint_rope_pairing")).hint == "hint_rope_pairing"
    assert fails(probes.apply_rope, _rope("hint_rope_positions")).hint == "hint_rope_positions"
    for seed in range(40):   # every head size the grader draws tells the two directions apart
        assert fails(probes.interleaved_to_half, lambda w, h: mistakes.layout_variants(w, h)["hint_layout_inverse"],
                     seed=seed).hint == "hint_layout_inverse"
    assert fails(probes.relative_score, _relative(sign=-1)).hint == "hint_relative_sign"
    # The rope's position axis kept (the query turned too, or [..., 0, :] forgotten): a score per key pair.
    def keeps_axis(q, k, offset, rope):
        q_turned, k_turned = rope(q[..., None, :], k[..., None, :], torch.tensor([offset]))
        return (q_turned * k_turned[..., 0, :]).sum(-1)
    assert fails(probes.relative_score, keeps_axis, key="hidden_shape").hint == "hint_relative_shape"
    fails_with(checks.check_relative_score, keeps_axis, "hint_relative_shape")
    # A position made with arange: fine for offset 3, an error for -2.
    def by_arange(q, k, offset, rope):
        position = torch.arange(offset, offset + 1) if offset >= 0 else torch.arange(offset)
        return (q * rope(k[..., None, :], k[..., None, :], position)[1][..., 0, :]).sum(-1)
    fails_with(checks.check_relative_score, by_arange, "hint_relative_negative")
    assert fails(probes.relative_score, by_arange, key="hidden_raised").hint == "hint_relative_negative"
    assert fails(probes.rope_cache, _rope_cache(restart=True)).hint == "hint_rope_cache_restart"
    assert fails(probes.rope_cache, _rope_cache(twice=True)).hint == "hint_rope_cache_twice"
    for bug, hint in (("q_not_rotated", "hint_rope_cache_q_not_rotated"), ("scale_by_e", "hint_scale_head_dim"),
                      ("no_proj", "hint_rope_cache_no_proj"), ("unrotated_cache", "hint_rope_cache_unrotated")):
        assert fails(probes.rope_cache, _rope_cache(**{bug: True})).hint == hint, bug
    assert fails(probes.rope_cache, _rope_cache(v_not_joined=True), key="hidden_raised").hint == \
        "hint_rope_cache_concat"
    assert fails(probes.alibi_bias, _alibi(rule="hint_alibi_power_of_two")).hint == "hint_alibi_power_of_two"
    assert fails(probes.cross_attention, _cross(ref, "causal")).hint == "hint_cross_causal"


def test_hidden_tests_name_the_rules_the_text_states(ref):
    tensor = lambda fn, x, perm: torch.tensor(ref.permutation_error(fn, x, perm))  # noqa: E731
    assert fails(probes.permutation_error, tensor, key="perm_not_float").hint == "hint_perm_float"
    assert fails(probes.alibi_bias, _alibi(dtype=torch.float64), key="alibi_dtype").hint == "hint_alibi_dtype"
    assert fails(probes.alibi_bias, _alibi("hint_alibi_odd")).hint == "hint_alibi_odd"
    # Columns that do not split into heads: the learner's view raises, the error names the axis.
    assert fails(probes.interleaved_to_half, _layout_columns, key="hidden_raised").hint == "hint_layout_columns"
    from attn_course.probes.draws import Draws
    for seed in range(60):   # and where they do split (into heads wider than 2, which would stay as they are)
        weight, n_head = probes.layout_setup(Draws(seed, "lesson7.interleaved_to_half"))
        if weight.size(1) % (2 * n_head) == 0 and weight.size(1) // n_head > 2:
            assert fails(probes.interleaved_to_half, _layout_columns, seed=seed).hint == "hint_layout_columns"
            break
    else:
        pytest.fail("no seed below 60 draws columns that split into heads")
    assert fails(probes.cross_attention, _cross(ref, "heads_averaged"), key="hidden_shape").hint == \
        "hint_cross_heads_averaged"
    assert fails(probes.cross_attention, _cross(ref, "none_mask"), key="hidden_raised").hint == "hint_cross_none_mask"


def test_hidden_tests_catch_the_rest(ref):
    fails(probes.permutation_error, _perm_error(compare="output"))
    assert fails(probes.sinusoidal_positions, lambda T, E, base=10000.0, device=None: _pe()(T, E, base),
                 key="hidden_device").hint == "hint_pe_device"
    assert fails(probes.sinusoidal_positions, lambda T, E, base=10000.0, device=None: _pe()(T, E, 10000.0, device)
                 ).hint == "hint_pe_base"
    fails(probes.apply_rope, _rope(only_q=True))
    # The meta-device case raises in the kernel: the probe records it and the grader fails the cell.
    assert fails(probes.apply_rope, _rope(device_aware=False), key="hidden_raised").hint == "hint_rope_device"
    fails(probes.rope_cache, _rope_cache(offset=False))
    fails(probes.alibi_bias, _alibi(sign=1))
    assert fails(probes.alibi_bias, _alibi(device_aware=False), key="hidden_device").hint == "hint_alibi_device"
    # Its NaN rows (queries whose every real key is hidden) match the bug's own NaN rows.
    assert fails(probes.cross_attention, _cross(ref, "inverted")).hint == "hint_cross_mask_inverted"
    fails(probes.cross_attention, _cross(ref, "scale_e"))
    assert fails(probes.cross_attention, _cross(ref, "kv_from_x"), key="hidden_raised").hint == "hint_cross_lengths"


def test_the_one_layer_alibi_tool_runs_the_lessons_own_model():
    # tools/alibi_one_layer.py reproduces lesson 7's one-layer ALiBi table from the lesson's own
    # cells: it must find them, and the lesson's train() must take n_layer and alibi_scale.
    import alibi_one_layer as tool   # tools/ is on pytest's pythonpath (pyproject.toml)
    ns = tool.lesson_namespace()
    model = ns["train"]("alibi", n_layer=1, alibi_scale=16.0, steps=2)
    assert len(model.blocks) == 1 and model.blocks[0].attn.alibi_scale == 16.0
    acc = ns["accuracy_by_position"](model)
    assert acc.shape == (2 * ns["T_train"], 2)
    weights = tool.near_weights(ns, model)
    assert set(weights) == {"head0", "head1"} and 0 < weights["head0"]["self"] < 1
    assert set(tool.summary(acc, ns["T_train"])) == {"prev_seen", "prev_unseen", "first_seen", "first_unseen"}

