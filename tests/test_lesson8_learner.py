"""Lesson 8: mistakes a Korean learner made that got no hint, or the wrong one (the streaming cache kept with
x[:, :, -(window - T_new):], which grew the cache when T_new = window and passed both sides). Each is the lesson's
own solution cell with one replacement, and must get the same hint from the visible check and the grader."""
import math

import jupytext
import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

from attn_course.checks import lesson8 as checks
from attn_course.probes import lesson8 as probes
from attn_course.validate import CheckFailed
from bugs_lesson8 import BUGS
from conftest import ROOT, fails

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
