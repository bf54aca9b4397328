"""Lesson 8: FlexAttention's mods, sliding windows and a rolling cache, StreamingLLM and gpt-oss's sink, MLA and its
absorbed form, a preallocated cache (a paged cache, packed sequences and cache sizes: tests/test_lesson8_layouts.py).

Visible checks (right code passes, each classic bug gets its own hint, in both languages), hidden tests (probe in the
kernel, judge in the grader: right code passes, each bug fails and is named), the references against the libraries
they stand for.
Its planted bugs (a graded submission per classic bug, which tests/test_grading.py grades as a class) are in
tools/planted/lesson8.py.
"""
import math

import pytest
import torch

import attn_course as course
from attn_course.checks import lesson8 as checks
from attn_course.checks.lesson7 import rope
from attn_course.probes import lesson8 as probes
from conftest import check_names, fails, fails_with, passes, reference


@pytest.fixture(scope="module")
def ref():
    return reference("lesson8")


# --------------------------------------------------------------------------- exercise 1
def _mods(bug=None):
    def causal_mod(b, h, q_idx, kv_idx):
        if bug == "strict":
            return q_idx > kv_idx
        return q_idx <= kv_idx if bug == "upper" else q_idx >= kv_idx

    def cache_mod(T_past):
        def mod(b, h, q_idx, kv_idx):
            if bug == "top_left":
                return q_idx >= kv_idx
            return q_idx >= kv_idx + T_past if bug == "offset_kv" else q_idx + T_past >= kv_idx
        return mod

    def causal_padding_mod(lengths):
        def mod(b, h, q_idx, kv_idx):
            if bug == "and":
                return q_idx >= kv_idx and kv_idx < lengths[b]
            if bug == "queries":
                return (q_idx >= kv_idx) & (q_idx < lengths[b])
            if bug == "off_by_one":
                return (q_idx >= kv_idx) & (kv_idx <= lengths[b])
            if bug == "no_causal":
                return kv_idx < lengths[b]
            return q_idx >= kv_idx if bug == "ignored" else (q_idx >= kv_idx) & (kv_idx < lengths[b])
        return mod
    return causal_mod, cache_mod, causal_padding_mod


MOD_BUGS = {"strict": "hint_flex_strict", "upper": "hint_flex_upper", "top_left": "hint_flex_top_left",
            "offset_kv": "hint_flex_offset_kv", "queries": "hint_flex_padding_queries",
            "off_by_one": "hint_flex_padding_off_by_one", "no_causal": "hint_flex_padding_no_causal",
            "ignored": "hint_flex_padding_ignored", "and": "hint_flex_control_flow"}


def test_mask_mods_bugs_get_their_hints(lang):
    checks.check_mask_mods(*_mods())
    for bug, hint in MOD_BUGS.items():
        fails_with(lambda mods: checks.check_mask_mods(*mods), _mods(bug), hint)
    python_bool = (lambda b, h, q, k: True, _mods()[1], _mods()[2])
    fails_with(lambda mods: checks.check_mask_mods(*mods), python_bool, "hint_flex_python_bool")


def test_hidden_mask_mods_name_each_bug():
    passes(probes.mask_mods, *_mods())
    for bug, hint in MOD_BUGS.items():
        assert fails(probes.mask_mods, *_mods(bug)).hint == hint, bug


# --------------------------------------------------------------------------- exercise 2
def _alibi(bug=None):
    def alibi_score_mod(slopes):
        def score_mod(score, b, h, q_idx, kv_idx):
            m = slopes[b] if bug == "batch" else slopes[h]
            bias = m * (q_idx - kv_idx) if bug == "sign" else -m * (q_idx - kv_idx)
            if bug == "dropped":
                return bias
            return score / 4 + bias if bug == "scaled" else score + bias
        return score_mod
    return alibi_score_mod


ALIBI_BUGS = {"sign": "hint_alibi_mod_sign", "dropped": "hint_alibi_mod_score_dropped", "batch": "hint_alibi_mod_batch",
              "scaled": "hint_alibi_mod_score_scaled"}


def test_alibi_score_mod_bugs_get_their_hints(lang):
    checks.check_alibi_score_mod(_alibi())
    for bug, hint in ALIBI_BUGS.items():
        fails_with(checks.check_alibi_score_mod, _alibi(bug), hint)


@pytest.mark.parametrize("seed", [20261123, 5])
def test_hidden_alibi_names_each_bug(seed):
    passes(probes.alibi_score_mod, _alibi(), seed=seed)
    for bug, hint in ALIBI_BUGS.items():
        assert fails(probes.alibi_score_mod, _alibi(bug), seed=seed).hint == hint, bug


# --------------------------------------------------------------------------- exercise 3
def _window(bug=None):
    def sliding_window_mod(window, T_past=0):
        def mod(b, h, q_idx, kv_idx):
            p = q_idx if bug == "top_left" else q_idx + T_past
            if bug == "plus_one":
                return (kv_idx <= p) & (kv_idx >= p - window)
            if bug == "minus_one":
                return (kv_idx <= p) & (kv_idx > p - window + 1)
            if bug == "shifted":
                return (kv_idx < p) & (kv_idx >= p - window)
            return kv_idx > p - window if bug == "no_causal" else (kv_idx <= p) & (kv_idx > p - window)
        return mod
    return sliding_window_mod


WINDOW_BUGS = {"plus_one": "hint_window_plus_one", "minus_one": "hint_window_minus_one",
               "no_causal": "hint_window_no_causal", "top_left": "hint_window_top_left",
               "shifted": "hint_window_shifted"}


def test_sliding_window_bugs_get_their_hints(lang):
    checks.check_sliding_window_mod(_window())
    for bug, hint in WINDOW_BUGS.items():
        fails_with(checks.check_sliding_window_mod, _window(bug), hint)


def test_hidden_sliding_window_names_each_bug():
    for seed in (20261123, 1, 2):
        passes(probes.sliding_window_mod, _window(), seed=seed)
    for bug, hint in WINDOW_BUGS.items():
        assert fails(probes.sliding_window_mod, _window(bug)).hint == hint, bug


def test_window_variants_are_mistrals_rule(ref):
    for window, t_new, t_past in ((3, 6, 0), (4, 1, 9), (2, 3, 5)):
        got = checks.window_variants(window, t_new, t_past)[None]
        assert torch.equal(got, ref.window_mask(window, t_new, t_past)[0, 0])


# --------------------------------------------------------------------------- exercise 4
def _rolling(bug=None):
    def attend_rolling(q, k, v, cache, window, rope):
        B, H, T_new, D = q.shape
        if cache is None:
            k_ring, v_ring = q.new_zeros(B, H, window, D), v.new_zeros(B, H, window, D)
            if bug == "ring_dtype":   # torch.zeros without dtype=: a float32 ring for float64 keys
                k_ring, v_ring = torch.zeros(B, H, window, D), torch.zeros(B, H, window, D)
            pos = torch.full((window,), -1, dtype=torch.long)
        else:
            k_ring, v_ring, pos = cache
            if bug == "ring_swapped":
                k_ring, v_ring = v_ring, k_ring
        seen = int(pos.max()) + 1
        positions = torch.arange(T_new) if bug == "restart" else torch.arange(seen, seen + T_new)
        turned = {"rope_restart": torch.arange(T_new), "rope_slots": positions % window}.get(bug, positions)
        q, k = rope(q, k, turned)
        last = T_new if bug == "every_slot" else min(T_new, window)   # every_slot: a slot written twice
        slots = positions[-last:] if bug == "no_modulo" else positions[-last:] % window
        if bug == "write_first":
            k_ring[:, :, slots], v_ring[:, :, slots], pos[slots] = k[:, :, -last:], v[:, :, -last:], positions[-last:]
            keys, values, key_pos = k_ring, v_ring, pos
        else:
            keys, values, key_pos = torch.cat([k_ring, k], 2), torch.cat([v_ring, v], 2), torch.cat([pos, positions])
            if bug == "join_order":   # keys and values with the new tokens first, key_pos the ring's first
                keys, values = torch.cat([k, k_ring], 2), torch.cat([v, v_ring], 2)
        p = positions[:, None]
        keep = (key_pos <= p) & ((key_pos >= p - window) if bug == "plus_one" else (key_pos > p - window))
        if bug != "empty":
            keep = keep & (key_pos >= 0)
        out = torch.softmax((q @ keys.transpose(-2, -1) / math.sqrt(D)).masked_fill(~keep, float("-inf")), -1) @ values
        if bug == "grow":
            return out, (keys, values, key_pos)
        if bug == "replaced":   # the ring's names bound to the new tokens: not written into
            k_ring, v_ring, pos = k[:, :, -last:], v[:, :, -last:], positions[-last:]
        elif bug == "rebound":   # both rings' names bound to the new keys and values (no torch.cat): T_new > W slots
            k_ring, v_ring, pos[slots] = k, v, positions[-last:]
        elif bug == "pos_rebound":   # pos bound to every new position: T_new > W of them after the prefill
            k_ring[:, :, slots], v_ring[:, :, slots], pos = k[:, :, -last:], v[:, :, -last:], positions
        elif bug == "pos_replaced":
            k_ring[:, :, slots], v_ring[:, :, slots], pos = k[:, :, -last:], v[:, :, -last:], positions[-last:]
        elif bug != "write_first":
            k_ring[:, :, slots], v_ring[:, :, slots], pos[slots] = k[:, :, -last:], v[:, :, -last:], positions[-last:]
        if bug == "pair_order":
            return (k_ring, v_ring, pos), out
        if bug == "ring_order":
            return out, (k_ring, pos, v_ring)
        return out, (k_ring, v_ring, pos)
    return attend_rolling


ROLLING_BUGS = {"restart": "hint_rolling_positions", "plus_one": "hint_rolling_window", "empty": "hint_rolling_empty",
                "write_first": "hint_rolling_write_first", "grow": "hint_rolling_grows",
                "no_modulo": "hint_rolling_modulo",
                "rope_restart": "hint_rolling_rope_restart", "rope_slots": "hint_rolling_rope_slots",
                "ring_dtype": "hint_rolling_ring_dtype", "ring_swapped": "hint_cache_kv_swapped",
                "join_order": "hint_rolling_join_order", "replaced": "hint_rolling_replaced",
                "pos_replaced": "hint_rolling_replaced", "ring_order": "hint_rolling_ring_order",
                "rebound": "hint_rolling_replaced", "pos_rebound": "hint_rolling_replaced",
                "every_slot": "hint_rolling_repeated_slots"}


def test_rolling_cache_bugs_get_their_hints(lang):
    checks.check_attend_rolling(_rolling())
    for bug, hint in ROLLING_BUGS.items():
        fails_with(checks.check_attend_rolling, _rolling(bug), hint)


def test_hidden_rolling_cache_names_each_bug():
    for seed in (20261123, 1, 2, 3):
        passes(probes.attend_rolling, _rolling(), seed=seed)
    for bug, hint in ROLLING_BUGS.items():
        assert fails(probes.attend_rolling, _rolling(bug)).hint == hint, bug


def test_rolling_cache_returned_the_other_way_round(lang):
    fails_with(checks.check_attend_rolling, _rolling("pair_order"), "hint_cache_pair_order", name="attend_rolling")
    assert fails(probes.attend_rolling, _rolling("pair_order")).hint == ("hint_cache_pair_order",
                                                                          {"name": "attend_rolling"})


# --------------------------------------------------------------------------- exercise 5
def _streaming(bug=None):
    def attend_streaming(q, k, v, cache, n_sink, window, rope):
        T_new, D = q.size(2), q.size(-1)
        if cache is not None:
            k_old, v_old = cache
            L = k_old.size(2)
            recent = window if bug == "budget" else window - T_new
            if bug != "late" and L > n_sink + recent:
                if bug == "no_sink":
                    k_old, v_old = k_old[:, :, L - n_sink - recent:], v_old[:, :, L - n_sink - recent:]
                elif bug == "sinks_dropped":   # only the last window − T_new kept
                    k_old, v_old = k_old[:, :, L - recent:], v_old[:, :, L - recent:]
                elif bug == "sink_order":   # the recent tokens kept before the sinks
                    k_old = torch.cat([k_old[:, :, L - recent:], k_old[:, :, :n_sink]], 2)
                    v_old = torch.cat([v_old[:, :, L - recent:], v_old[:, :, :n_sink]], 2)
                else:
                    k_old = torch.cat([k_old[:, :, :n_sink], k_old[:, :, L - recent:]], 2)
                    v_old = torch.cat([v_old[:, :, :n_sink], v_old[:, :, L - recent:]], 2)
            if bug == "rotated":
                k = rope(k, k, torch.arange(k_old.size(2), k_old.size(2) + T_new))[1]
            k, v = (torch.cat([k, k_old], 2), torch.cat([v, v_old], 2)) if bug == "new_first" else \
                (torch.cat([k_old, k], 2), torch.cat([v_old, v], 2))
        elif bug == "rotated":
            k = rope(k, k, torch.arange(T_new))[1]
        n = k.size(2)
        q_rot = rope(q, q, torch.arange(n - T_new, n))[0]
        k_rot = k if bug == "rotated" else rope(k, k, torch.arange(n))[1]
        keep = torch.ones(T_new, n, dtype=torch.bool).tril(diagonal=0 if bug == "is_causal" else n - T_new)
        out = torch.softmax((q_rot @ k_rot.transpose(-2, -1) / math.sqrt(D)).masked_fill(~keep, float("-inf")), -1) @ v
        if bug == "late" and n > n_sink + window:
            k = torch.cat([k[:, :, :n_sink], k[:, :, n - window:]], 2)
            v = torch.cat([v[:, :, :n_sink], v[:, :, n - window:]], 2)
        if bug == "kv_swapped":
            return out, (v, k)
        return out, (k, v)
    return attend_streaming


STREAM_BUGS = {"no_sink": "hint_stream_no_sink", "rotated": "hint_stream_rotated_cache",
               "late": "hint_stream_evict_late", "budget": "hint_stream_budget", "is_causal": "hint_stream_is_causal",
               "sinks_dropped": "hint_stream_no_sink", "sink_order": "hint_stream_sink_order",
               "new_first": "hint_cache_cat_order", "kv_swapped": "hint_cache_kv_swapped"}


def test_streaming_bugs_get_their_hints(lang):
    checks.check_attend_streaming(_streaming())
    for bug, hint in STREAM_BUGS.items():
        fails_with(checks.check_attend_streaming, _streaming(bug), hint)


def test_hidden_streaming_names_each_bug():
    for seed in (20261123, 1, 2):
        passes(probes.attend_streaming, _streaming(), seed=seed)
    for bug, hint in STREAM_BUGS.items():
        assert fails(probes.attend_streaming, _streaming(bug)).hint == hint, bug


def test_the_authors_cache_policy_is_the_checks_simulation(ref):
    torch.manual_seed(0)
    q, k, v = (torch.randn(2, 2, 14, 4, dtype=torch.float64) for _ in range(3))
    chunks = ((0, 5), (5, 6), (6, 7), (7, 9), (9, 10), (10, 13), (13, 14))
    turn = lambda a, b, p: rope(a, b, p, 100.0)  # noqa: E731
    want, lengths = ref.streaming_attention(q, k, v, chunks, 2, 4, turn)
    got, got_lengths = checks.streaming_run(q, k, v, chunks, 2, 4, turn)
    assert lengths == got_lengths and all(torch.allclose(a, b, atol=1e-12) for a, b in zip(got, want))


# --------------------------------------------------------------------------- exercise 6
def _sink(bug=None):
    def sink_attention(q, k, v, sinks, keep=None):
        s = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
        if keep is not None:
            s = s.masked_fill(~keep, float("-inf"))
        column = sinks.view(1, -1, 1, 1).expand(*s.shape[:-1], 1)
        if bug == "missing":
            w = torch.softmax(s, -1)
        elif bug == "max":
            m = s.amax(-1, keepdim=True)
            w = torch.exp(s - m) / (torch.exp(s - m).sum(-1, keepdim=True) + torch.exp(column))
        else:
            column = column / math.sqrt(q.size(-1)) if bug == "scaled" else column
            p = torch.softmax(torch.cat([column, s] if bug == "column_first" else [s, column], -1), -1)
            w = p if bug == "kept" else (p[..., 1:] if bug == "wrong_column" else p[..., :-1])
            if bug == "renormalized":
                w = w / w.sum(-1, keepdim=True)
        return w @ v if w.size(-1) == v.size(-2) else w[..., :-1] @ v, w
    return sink_attention


SINK_BUGS = {"missing": "hint_sink_missing", "scaled": "hint_sink_scaled", "wrong_column": "hint_sink_wrong_column",
             "max": "hint_sink_max", "kept": "hint_sink_column_kept", "renormalized": "hint_sink_missing",
             "column_first": "hint_sink_column_first"}


def test_sink_attention_bugs_get_their_hints(lang):
    checks.check_sink_attention(_sink())
    for bug, hint in SINK_BUGS.items():
        fails_with(checks.check_sink_attention, _sink(bug), hint)


def test_hidden_sink_attention_names_each_bug():
    for seed in (20261123, 1):
        passes(probes.sink_attention, _sink(), seed=seed)
    for bug, hint in SINK_BUGS.items():
        assert fails(probes.sink_attention, _sink(bug)).hint == hint, bug


def test_sink_attention_through_the_library_is_refused(lang):
    def with_sdpa(q, k, v, sinks, keep=None):   # a value-zero key with score s_h, through the library's attention
        b, h, t_q, d = q.shape
        extra_k = torch.zeros(b, h, 1, d, dtype=q.dtype)
        scores_bias = torch.zeros(t_q, k.size(2) + 1, dtype=q.dtype)
        mask = torch.cat([keep if keep is not None else torch.ones(t_q, k.size(2), dtype=torch.bool),
                          torch.ones(t_q, 1, dtype=torch.bool)], -1)
        bias = scores_bias.masked_fill(~mask, float("-inf")) + torch.cat(
            [torch.zeros(h, t_q, k.size(2), dtype=q.dtype), sinks.view(h, 1, 1).expand(h, t_q, 1)], -1)
        out = torch.nn.functional.scaled_dot_product_attention(
            q, torch.cat([k, extra_k], 2), torch.cat([v, torch.zeros_like(extra_k)], 2), attn_mask=bias)
        return out, None

    def with_flex(q, k, v, sinks, keep=None):   # the sink as a score_mod can't add a column: a bias instead
        from torch.nn.attention.flex_attention import flex_attention
        out = flex_attention(q, k, v, score_mod=lambda s, b, h, i, j: s + 0 * sinks[h])
        return out, None

    def with_aten(q, k, v, sinks, keep=None):   # the same call reached through torch.ops under another name
        op = getattr(torch.ops.aten, "_scaled_dot_product_" + "attention_math")
        return op(q, k, v, attn_mask=keep)[0], None

    for bypass in (with_sdpa, with_flex, with_aten):
        fails_with(checks.check_sink_attention, bypass, "hint_from_scratch", name="sink_attention")
        assert fails(probes.sink_attention, bypass, key="hidden_by_hand").hint[0] == "hint_from_scratch", bypass
    # The visible check's own variants (checks.sink_variants) hold the right answer: the policy refuses reaching
    # them from the source (tests/test_hand_policy.py).


# --------------------------------------------------------------------------- exercise 7
def _mla(bug=None):
    class MLA(checks.MLAHost):
        def __init__(self, *args):
            super().__init__(*args)
            if bug == "no_norm_layer":
                del self.kv_a_layernorm

        def forward(self, x, rope):
            if bug in ("no_o_proj", "strict"):
                q, k, v = checks.mla_qkv(self, x, rope)
                n = x.size(1)
                keep = torch.ones(n, n, dtype=torch.bool).tril(diagonal=-1 if bug == "strict" else 0)
                y = checks.attend(q, k, v, keep).transpose(1, 2).reshape(x.size(0), n, -1)
                return y if bug == "no_o_proj" else self.o_proj(y)
            return checks.mla_run(self, x, rope, {"norm": "hint_mla_norm", "scale": "hint_mla_scale",
                                                  "kv_split": "hint_mla_kv_split", "latent_split": "hint_mla_latent_split",
                                                  "q_split": "hint_mla_q_split", "no_mask": "hint_mla_no_mask"}.get(bug))
    return MLA


MLA_BUGS = {"norm": "hint_mla_norm", "scale": "hint_mla_scale", "kv_split": "hint_mla_kv_split",
            "latent_split": "hint_mla_latent_split", "q_split": "hint_mla_q_split", "no_mask": "hint_mla_no_mask",
            "no_o_proj": "hint_mla_no_o_proj", "strict": "hint_causal_diagonal"}


def test_mla_bugs_get_their_hints(lang):
    checks.check_mla(_mla())
    for bug, hint in MLA_BUGS.items():
        fails_with(checks.check_mla, _mla(bug), hint)
    check_names(checks.check_mla, _mla("no_norm_layer"), "hint_mla_norm_layer")


def test_hidden_mla_is_judged_against_deepseek_v3():
    for seed in (20261123, 1, 2):
        passes(probes.mla, _mla(), seed=seed)
    for bug, hint in MLA_BUGS.items():
        failure = fails(probes.mla, _mla(bug))
        assert failure.hint == hint or (failure.key == "hidden_raised" and bug.endswith("split")), (bug, failure.hint)


def test_mla_matches_deepseek_v3_to_the_tolerance(ref):
    """transformers' float32 norm and softmax: float64 agrees to 2e-7 or so, well inside the judge's 1e-5."""
    from attn_course.probes.draws import Draws
    worst = 0.0
    for seed in range(8):
        draws = Draws(seed, "lesson8.mla")
        sizes, base = probes.mla_sizes(draws), probes.draw_base(draws)
        attention, rotary = ref.deepseek_attention(*sizes, base)
        attention.double()
        host = checks.MLAHost(*sizes).double()
        host.load_state_dict(attention.state_dict())
        x = probes.mla_input(draws, "float64", torch.float64, sizes[0])
        with torch.no_grad():
            worst = max(worst, float((checks.mla_run(host, x, probes.turn_with(base)) -
                                      ref.deepseek_forward(attention, rotary, x)).abs().max()))
    assert worst < 1e-6, worst


# --------------------------------------------------------------------------- exercise 8
def _decode(bug=None):
    def mla_decode(mla, x_new, cache, rope):
        b, n, _ = x_new.shape
        h, r, dn, dr, dv = mla.n_head, mla.kv_lora_rank, mla.qk_nope_head_dim, mla.qk_rope_head_dim, mla.v_head_dim
        past = 0 if cache is None else cache[0].size(1)
        positions = torch.arange(n) if bug == "restart" else torch.arange(past, past + n)
        q_nope, q_rot, c, k_rot = checks.mla_parts(mla, x_new, positions, rope)
        if cache is not None and bug != "not_joined":
            c, k_rot = torch.cat([cache[0], c], 1), torch.cat([cache[1], k_rot], 1)
        if bug == "not_absorbed":   # the latent cached, keys and values made from all of it on every call
            k_nope, v = mla.kv_b_proj(c).view(b, past + n, h, dn + dv).transpose(1, 2).split([dn, dv], -1)
            k = torch.cat([k_nope, k_rot[:, None].expand(b, h, past + n, dr)], -1)
            keep = torch.ones(n, past + n, dtype=torch.bool).tril(diagonal=past)
            y = checks.attend(torch.cat([q_nope, q_rot], -1), k, v, keep)
            return mla.o_proj(y.transpose(1, 2).reshape(b, n, h * dv)), (c, k_rot)
        w_uk, w_uv = mla.kv_b_proj.weight.view(h, dn + dv, r).split([dn, dv], 1)
        if bug == "swap":
            w_uk, w_uv = w_uv, w_uk
        s = (q_nope @ w_uk) @ c[:, None].transpose(-2, -1) + q_rot @ k_rot[:, None].transpose(-2, -1)
        keep = torch.ones(n, past + n, dtype=torch.bool).tril(diagonal=0 if bug == "offset" else past)
        if bug == "mask_transposed":   # (T_all, T_new): with one new token it broadcasts, and a view fails later
            keep = torch.ones(past + n, n, dtype=torch.bool).tril(diagonal=past)
        w = torch.softmax((s / math.sqrt(dn + dr)).masked_fill(~keep, float("-inf")), -1)
        y = mla.o_proj(((w @ c[:, None]) @ w_uv.transpose(-2, -1)).transpose(1, 2).reshape(b, n, h * dv))
        return (y, (k_rot, c)) if bug == "parts_swapped" else (y, (c, k_rot))

    def expanded(mla, x_new, cache, rope):
        """Keys and values for every head cached, as in lesson 6, and attended without absorbing: right outputs."""
        b, n, _ = x_new.shape
        h, dn, dr, dv = mla.n_head, mla.qk_nope_head_dim, mla.qk_rope_head_dim, mla.v_head_dim
        past = 0 if cache is None else cache[0].size(2)
        q_nope, q_rot, c, k_rot = checks.mla_parts(mla, x_new, torch.arange(past, past + n), rope)
        k_nope, v = mla.kv_b_proj(c).view(b, n, h, dn + dv).transpose(1, 2).split([dn, dv], -1)
        k = torch.cat([k_nope, k_rot[:, None].expand(b, h, n, dr)], -1)
        if cache is not None:
            k, v = torch.cat([cache[0], k], 2), torch.cat([cache[1], v], 2)
        keep = torch.ones(n, past + n, dtype=torch.bool).tril(diagonal=past)
        y = checks.attend(torch.cat([q_nope, q_rot], -1), k, v, keep)
        return mla.o_proj(y.transpose(1, 2).reshape(b, n, h * dv)), (k, v)
    def per_head(mla, x_new, cache, rope):
        """Absorbed nowhere: one head's keys and values made from the whole latent cache at a time. Right outputs,
        no tensor over the cache as large as every head's keys, and the same cost as making them all."""
        b, n, _ = x_new.shape
        h, r, dn, dr, dv = mla.n_head, mla.kv_lora_rank, mla.qk_nope_head_dim, mla.qk_rope_head_dim, mla.v_head_dim
        past = 0 if cache is None else cache[0].size(1)
        q_nope, q_rot, c, k_rot = checks.mla_parts(mla, x_new, torch.arange(past, past + n), rope)
        if cache is not None:
            c, k_rot = torch.cat([cache[0], c], 1), torch.cat([cache[1], k_rot], 1)
        w_uk, w_uv = mla.kv_b_proj.weight.view(h, dn + dv, r).split([dn, dv], 1)
        keep = torch.ones(n, past + n, dtype=torch.bool).tril(diagonal=past)
        heads = []
        for i in range(h):
            s = q_nope[:, i] @ (c @ w_uk[i].T).transpose(-2, -1) + q_rot[:, i] @ k_rot.transpose(-2, -1)
            w = torch.softmax((s / math.sqrt(dn + dr)).masked_fill(~keep, float("-inf")), -1)
            heads.append(w @ (c @ w_uv[i].T))
        y = torch.stack(heads, 1)
        return mla.o_proj(y.transpose(1, 2).reshape(b, n, h * dv)), (c, k_rot)
    return {"expanded": expanded, "per_head": per_head}.get(bug, mla_decode)


DECODE_BUGS = {"restart": "hint_mla_positions", "swap": "hint_mla_absorb_swapped", "offset": "hint_cache_mask_offset",
               "not_absorbed": "hint_mla_not_absorbed", "mask_transposed": "hint_mla_mask_transposed",
               "not_joined": "hint_mla_cache_not_joined", "parts_swapped": "hint_mla_cache_parts_swapped",
               "per_head": "hint_mla_not_absorbed"}


def test_mla_decode_bugs_get_their_hints(lang):
    checks.check_mla_decode(_decode())
    for bug, hint in DECODE_BUGS.items():
        fails_with(checks.check_mla_decode, _decode(bug), hint)
    check_names(checks.check_mla_decode, _decode("expanded"), "hint_mla_cache_expanded")


def test_hidden_mla_decode_names_each_bug():
    for seed in (20261123, 1, 2):
        passes(probes.mla_decode, _decode(), seed=seed)
    for bug, hint in DECODE_BUGS.items():
        assert fails(probes.mla_decode, _decode(bug)).hint == hint, bug
    assert fails(probes.mla_decode, _decode("expanded")).hint[0] == "hint_mla_cache_expanded"


# --------------------------------------------------------------------------- exercise 9
def _static(bug=None):
    def attend_preallocated(attn, x_new, k_buf, v_buf, T_past):
        B, T_new, E = x_new.shape
        H = attn.n_head
        q, k, v = (z.view(B, T_new, H, E // H).transpose(1, 2) for z in attn.c_attn(x_new).split(E, dim=2))
        start, n = (0 if bug == "at_zero" else T_past + (bug == "plus_one")), T_past + T_new
        if bug in ("cat", "cat_copied", "stack_alias"):
            join = torch.cat if bug == "cat" else (lambda xs, d: torch.ops.aten.cat.default(xs, d)) \
                if bug == "stack_alias" else torch.concat
            keys = join([k_buf[:, :, :T_past], k], 2)
            values = join([v_buf[:, :, :T_past], v], 2)
            if bug == "cat_copied":   # joined, then copied into the buffer: right buffers, right outputs
                k_buf[:, :, :n], v_buf[:, :, :n] = keys, values
        else:
            if bug == "k_rebound":   # the name bound to the new keys: the buffer handed in is never written
                v_buf[:, :, start:start + T_new], k_buf = v, k
            else:
                k_buf[:, :, start:start + T_new], v_buf[:, :, start:start + T_new] = k, v
            keys, values = (k_buf, v_buf) if bug == "unsliced" else (k_buf[:, :, :n], v_buf[:, :, :n])
        keep = torch.ones(T_new, n, dtype=torch.bool).tril(diagonal=0 if bug == "offset" else T_past)
        s = (q @ keys.transpose(-2, -1) / math.sqrt(E // H)).masked_fill(~keep, float("-inf"))
        y = (torch.softmax(s, -1) @ values).transpose(1, 2).reshape(B, T_new, E)
        return y if bug == "no_proj" else attn.c_proj(y)
    return attend_preallocated


STATIC_BUGS = {"at_zero": "hint_static_offset", "offset": "hint_cache_mask_offset", "unsliced": "hint_static_unsliced",
               "plus_one": "hint_static_plus_one", "no_proj": "hint_static_no_proj",
               "k_rebound": "hint_static_buffer_replaced"}
# torch.cat and its kin are refused inside attend_preallocated (`:by_hand: concat`), however reached.
STATIC_JOINS = ("cat", "cat_copied", "stack_alias")


def test_a_preallocated_cache_through_sdpa_and_its_mask_helper_passes(lang):
    """Exercise 9 refuses only concatenation: SDPA with causal_lower_right, as its hint suggests, is a right answer
    (a learner's was refused by the check and the grader alike, for reaching torch.nn.attention)."""
    import torch.nn.functional as F
    from torch.nn.attention.bias import causal_lower_right

    def attend_preallocated(attn, x_new, k_buf, v_buf, T_past):
        B, T_new, E = x_new.shape
        H = attn.n_head
        q, k, v = (z.view(B, T_new, H, E // H).transpose(1, 2) for z in attn.c_attn(x_new).split(E, dim=2))
        T_all = T_past + T_new
        k_buf[:, :, T_past:T_all] = k
        v_buf[:, :, T_past:T_all] = v
        y = F.scaled_dot_product_attention(q, k_buf[:, :, :T_all], v_buf[:, :, :T_all],
                                           attn_mask=causal_lower_right(T_new, T_all))
        return attn.c_proj(y.transpose(1, 2).reshape(B, T_new, E))
    checks.check_attend_preallocated(attend_preallocated)
    passes(probes.attend_preallocated, attend_preallocated)


def test_preallocated_bugs_get_their_hints(lang):
    checks.check_attend_preallocated(_static())
    for bug, hint in STATIC_BUGS.items():
        fails_with(checks.check_attend_preallocated, _static(bug), hint)
    for bug in STATIC_JOINS:
        fails_with(checks.check_attend_preallocated, _static(bug), "hint_concat_by_hand",
                   name="attend_preallocated(attn, x_new, k_buf, v_buf, 0)")


def test_hidden_preallocated_names_each_bug():
    for seed in (20261123, 1, 2):
        passes(probes.attend_preallocated, _static(), seed=seed)
    for bug, hint in STATIC_BUGS.items():
        assert fails(probes.attend_preallocated, _static(bug)).hint == hint, bug
    for bug in STATIC_JOINS:
        failure = fails(probes.attend_preallocated, _static(bug), key="hidden_concat_refused")
        assert failure.hint[0] == "hint_concat_by_hand", bug


# --------------------------------------------------------------------------- the explorer
def test_explorer_names_stacked_maps_that_are_not_layers():
    course.setup("ko")
    w = torch.softmax(torch.randn(2, 3, 4, 5), -1)
    explorer = course.AttentionExplorer(w, list("abcd"), key_tokens=list("abcd") + ["<sink>"],
                                        layer_names=["no sink", "sink"], layer_label="sink")
    assert [label for label, _ in explorer.layer.options] == ["no sink", "sink"]
    assert explorer.layer.description == "sink" and "sink" in explorer._title("x")
    with pytest.raises(ValueError):
        course.AttentionExplorer(w, list("abcd"), key_tokens=list("abcde"), layer_names=["one"])
    course.setup("ja")


def test_flex_warning_is_silenced_in_checks_and_probes(recwarn):
    checks.check_mask_mods(*_mods())
    assert not [w for w in recwarn if checks.FLEX_WARNING in str(w.message)]
