"""Lesson 8: mistakes a Korean learner made that got no hint, or the wrong one (the streaming cache kept with
x[:, :, -(window - T_new):], which grew the cache when T_new = window and passed both sides). Each is the lesson's
own solution cell with one replacement, and must get the same hint from the visible check and the grader; then
answers whose check and grade once parted (✔ then 0, or a hint that named another cause), on five learners' seeds."""
import math

import attn_course
import jupytext
import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

from attn_course.checks import lesson7 as lesson7_checks
from attn_course.checks import lesson8 as checks
from attn_course.probes import lesson7 as lesson7_probes
from attn_course.probes import lesson8 as probes
from attn_course.validate import CheckFailed
from conftest import ROOT, fails, judged
from planted.lesson8 import BUGS

CELLS = {c.metadata.get("id"): c.source for c in jupytext.read(ROOT / "lessons" / "08_deployed.md").cells}
EXERCISES = {"ex4_rolling_cache": ("attend_rolling", checks.check_attend_rolling, probes.attend_rolling),
             "ex5_streaming_cache": ("attend_streaming", checks.check_attend_streaming, probes.attend_streaming),
             "ex7_mla": ("MultiHeadLatentAttention", checks.check_mla, probes.mla),
             "ex8_mla_decode": ("mla_decode", checks.check_mla_decode, probes.mla_decode),
             "ex12_cache_bytes": ("cache_bytes", checks.check_cache_bytes, probes.cache_bytes)}

# (cell, old, new, hint): the learner's replacements that no planted bug (BUGS) spells
MORE = {
    "rolling_write_then_join": ("ex4_rolling_cache", "    keys, values = torch.cat(",
                                "    k_ring[:, :, positions[-min(T_new, window):] % window] = k[:, :, -min(T_new, window):]\n"
                                "    v_ring[:, :, positions[-min(T_new, window):] % window] = v[:, :, -min(T_new, window):]\n"
                                "    pos[positions[-min(T_new, window):] % window] = positions[-min(T_new, window):]\n"
                                "    keys, values = torch.cat(", "hint_rolling_write_then_join"),
    "rolling_no_scale": ("ex4_rolling_cache", "q @ keys.transpose(-2, -1) / math.sqrt(D)", "q @ keys.transpose(-2, -1)",
                         "hint_no_scale"),
    "rolling_pos_float": ("ex4_rolling_cache", "torch.full((window,), -1, dtype=torch.long, device=q.device)",
                          "torch.full((window,), -1.0, device=q.device)", "hint_rolling_pos_dtype"),
    "stream_cache_turned": ("ex5_streaming_cache", "@ v, (k, v)", "@ v, (k_rot, v)", "hint_stream_cache_turned"),
    "stream_diagonal": ("ex5_streaming_cache", "tril(diagonal=L_all - T_new)", "tril(diagonal=L_all - T_new - 1)",
                        "hint_stream_diagonal_minus_one"),
    "mla_rope_head_axis": ("ex7_mla", "k_R[:, None]", "k_R", "hint_mla_rope_head_axis"),
    "decode_cat_dim": ("ex8_mla_decode", "torch.cat([cache[0], c], dim=1), torch.cat([cache[1], k_R], dim=1)",
                       "torch.cat([cache[0], c], dim=-1), torch.cat([cache[1], k_R], dim=-1)", "hint_mla_cache_cat_dim"),
    "bytes_float": ("ex12_cache_bytes", "return config[\"n_layer\"] * T * per_token",
                    "return config[\"n_layer\"] * T * per_token / 1", "hint_return_not_int"),
}
PLANTED = {"stream_tail_slice": "hint_stream_tail_slice", "stream_query_from_zero": "hint_stream_query_from_zero",
           "rolling_seen_off": "hint_rolling_seen_off", "rolling_weights_keys": "hint_weights_times_keys",
           "decode_norm_twice": "hint_mla_norm_twice", "bytes_window_uncapped": "hint_bytes_window_uncapped"}
CASES = {**{name: (BUGS[name].cell, BUGS[name].old, BUGS[name].new, hint) for name, hint in PLANTED.items()}, **MORE}


def learner(cell: str, old: str, new: str):
    source = CELLS[cell]
    assert old in source, (cell, old)
    scope = {"torch": torch, "nn": nn, "F": F, "math": math}
    exec(source.replace(old, new, 1), scope)   # noqa: S102 - the lesson's own solution, one replacement
    return scope[EXERCISES[cell][0]]


@pytest.mark.parametrize("name", sorted(CASES))
def test_learners_mistake_gets_one_hint_on_both_sides(name, lang):
    from attn_course.messages import t
    cell, old, new, hint = CASES[name]
    fn = learner(cell, old, new)
    with pytest.raises(CheckFailed) as info:
        EXERCISES[cell][1](fn)
    text = str(info.value)
    failure = fails(EXERCISES[cell][2], fn)
    key = failure.hint[0] if isinstance(failure.hint, tuple) else failure.hint or failure.key   # the float: its key
    assert key == hint, (name, key)
    if hint == "hint_return_not_int":   # its fields are the call and the answer: the sentence after them
        assert t(hint, name="", got="").split(")")[-1] in text, text
    else:
        assert t(hint) in text, text


# (cell, [(old, new), …], the hint both sides give, or None for a right answer written another way)
AGREE = {
    "sink_sinks_detached": ("ex6_sink_attention", [("sinks.view(1, -1, 1, 1)", "sinks.detach().view(1, -1, 1, 1)")],
                            "hint_grad_cut"),
    "sink_scores_no_grad": ("ex6_sink_attention",
                            [("    scores = q @ k", "    with torch.no_grad():\n        scores = q @ k")],
                            "hint_grad_cut"),
    "sink_view_wrong": ("ex6_sink_attention", [("sinks.view(1, -1, 1, 1)", "sinks.view(1, 1, 1, -1)")], False),
    "sink_by_logsumexp": ("ex6_sink_attention", [(
        "    sink = sinks.view(1, -1, 1, 1).expand(*scores.shape[:-1], 1)                 # (B, H, T_q, 1)\n"
        "    weights = torch.softmax(torch.cat([scores, sink], dim=-1), dim=-1)[..., :-1]",
        "    lse = torch.logsumexp(scores, -1, keepdim=True)\n"
        "    weights = torch.softmax(scores, -1) * torch.sigmoid(lse - sinks.view(1, -1, 1, 1))")], None),
    "padding_lengths_h": ("ex1_mask_mods", [("kv_idx < lengths[b]", "kv_idx < lengths[h]")],
                          "hint_flex_padding_ignored"),
    "padding_lengths_0": ("ex1_mask_mods", [("kv_idx < lengths[b]", "kv_idx < lengths[0]")],
                          "hint_flex_padding_ignored"),
    "cache_mod_is_the_mask": ("ex1_mask_mods", [(
        "def cache_mod(T_past):\n    ### BEGIN SOLUTION\n    def mod(b, h, q_idx, kv_idx):\n"
        "        return q_idx + T_past >= kv_idx                 # t(\"c8_true_position\")\n    return mod",
        "def cache_mod(b, h, q_idx, kv_idx):\n    ### BEGIN SOLUTION\n    return q_idx >= kv_idx")],
        "hint_flex_mod_factory"),
    "alibi_item": ("ex2_alibi_score_mod", [("slopes[h] *", "slopes[h].item() *")], "hint_flex_item"),
    "alibi_mask_signature": ("ex2_alibi_score_mod", [(
        "def score_mod(score, b, h, q_idx, kv_idx):\n        return score - slopes[h] * (q_idx - kv_idx)",
        "def score_mod(b, h, q_idx, kv_idx):\n        return - slopes[h] * (q_idx - kv_idx)")],
        "hint_flex_score_mod_args"),
    "alibi_slopes_b": ("ex2_alibi_score_mod", [("slopes[h] *", "slopes[b] *")], "hint_alibi_mod_batch"),
    "alibi_slope_0": ("ex2_alibi_score_mod", [("slopes[h] *", "slopes[0] *")], "hint_alibi_mod_one_slope"),
    "decode_sqrt_d_C": ("ex8_mla_decode", [("math.sqrt(d_C + d_R)", "math.sqrt(d_C)")], "hint_mla_scale"),
    "decode_power": ("ex8_mla_decode", [("scores / math.sqrt(d_C + d_R)", "scores * (d_C + d_R) ** -0.5")], None),
    "stream_slice_heads": ("ex5_streaming_cache", [("k_old = torch.cat([k_old[:, :, :n_sink]",
                                                    "k_old = torch.cat([k_old[:, :n_sink]")], False),
    "bytes_2_for_every_dtype": ("ex12_cache_bytes", [('config["head_dim"] * size', 'config["head_dim"] * 2')],
                                "hint_bytes_dtype_size"),
    "bytes_batch_forgotten": ("ex12_cache_bytes", [("per_token = 2 * batch *", "per_token = 2 *")],
                              "hint_bytes_no_batch"),
    "bytes_latent_batch_forgotten": ("ex12_cache_bytes", [('config["n_layer"] * batch * T', 'config["n_layer"] * T')],
                                     "hint_bytes_no_batch"),
    "rope_in_place": ("ex0_apply_rope", [(
        "    return q * cos + rotate_half(q) * sin, k * cos + rotate_half(k) * sin",
        "    rq, rk = rotate_half(q), rotate_half(k)\n    q *= cos\n    k *= cos\n"
        "    return q + rq * sin, k + rk * sin")],
        "hint_rope_in_place"),
    "bytes_itemsize": ("ex12_cache_bytes", [('config["head_dim"] * size', 'config["head_dim"] * dtype.itemsize')],
                       None),
}
CALLS = {**{cell: ((name,), check, probe) for cell, (name, check, probe) in EXERCISES.items()},
         "ex1_mask_mods": (("causal_mod", "cache_mod", "causal_padding_mod"), checks.check_mask_mods,
                           probes.mask_mods),
         "ex2_alibi_score_mod": (("alibi_score_mod",), checks.check_alibi_score_mod, probes.alibi_score_mod),
         "ex6_sink_attention": (("sink_attention",), checks.check_sink_attention, probes.sink_attention),
         "ex0_apply_rope": (("apply_rope",), lesson7_checks.check_apply_rope, lesson7_probes.apply_rope)}
SEEDS = [11, 22, 33, 44, 55]


@pytest.mark.parametrize("name", sorted(AGREE))
def test_check_and_grade_agree_with_one_hint(name):
    """✔ exactly when every seed grades it right; a wrong answer gets the same hint from the check and from the
    grader on every seed (False: a shape error whose cause the error cannot tell, no hint on either side)."""
    from attn_course import messages
    from attn_course.messages import t
    messages.set_language("ja")
    cell, replacements, hint = AGREE[name]
    source = CELLS[cell]
    for old, new in replacements:
        assert old in source, (name, old)
        source = source.replace(old, new, 1)
    scope = {"torch": torch, "nn": nn, "F": F, "math": math, "course": attn_course}
    exec(source, scope)   # noqa: S102 - the lesson's own solution, with the replacements
    names, check, probe = CALLS[cell]
    fns = [scope[n] for n in names]
    verdicts = [judged(probe, *fns, seed=seed) for seed in SEEDS]
    if hint is None:
        check(*fns)
        assert verdicts == [None] * len(SEEDS), [(v.key, v.hint) for v in verdicts if v]
        return
    with pytest.raises(CheckFailed) as info:
        check(*fns)
    keys = [v.hint[0] if isinstance(v.hint, tuple) else v.hint for v in verdicts if v is not None]
    assert len(keys) == len(SEEDS), name
    if hint is False:
        assert keys == [None] * len(SEEDS) and not info.value.hints, (keys, info.value.hints)
    else:
        assert keys == [hint] * len(SEEDS), keys
        assert t(hint) in str(info.value), str(info.value)
