"""Lesson 8: mistakes a Japanese learner made that passed (a ring written at every new token's slot, which repeats a
slot when T_new > W: the CPU's last write happens to win, a GPU's order is undefined) or failed with no cause named
(heads split with view alone, the online softmax rescaling only ℓ or acc, k_cache[:, :, lengths], ln 2 in the sink's
σ, a softcap of 50 written in). Each is the lesson's own solution cell with one replacement, and must get the same
hint from the visible check and the grader; and exercise 9's rule as its text now states it (no join of any tensor)."""
import math

import jupytext
import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.attention.flex_attention import AuxRequest, flex_attention

from attn_course.checks import lesson8 as checks
from attn_course.probes import lesson8 as probes
from attn_course.validate import CheckFailed
from conftest import ROOT, fails, fails_with, passes
from planted.lesson8 import BUGS

CELLS = {c.metadata.get("id"): c.source for c in jupytext.read(ROOT / "lessons" / "08_deployed.md").cells}
EXERCISES = {"ex3_sliding_window": ("sliding_window_mod", checks.check_sliding_window_mod, probes.sliding_window_mod),
             "ex4_rolling_cache": ("attend_rolling", checks.check_attend_rolling, probes.attend_rolling),
             "ex7_mla": ("MultiHeadLatentAttention", checks.check_mla, probes.mla),
             "ex8_mla_decode": ("mla_decode", checks.check_mla_decode, probes.mla_decode),
             "ex13_paged_attention": ("paged_decode", checks.check_paged_decode, probes.paged_decode),
             "ex14_batched_lengths": ("decode_batched", checks.check_decode_batched, probes.decode_batched),
             "ex15_flex_sink": ("flex_sink_attention", checks.check_flex_sink_attention, probes.flex_sink_attention),
             "ex16_softcap": ("softcap_score_mod", checks.check_softcap_score_mod, probes.softcap_score_mod)}

RING_WRITE = ("    k_ring[:, :, slots] = k[:, :, -last:]\n    v_ring[:, :, slots] = v[:, :, -last:]\n"
              "    pos[slots] = positions[-last:]")
# (cell, old, new, hint): the learner's replacements that no planted bug spells
MORE = {
    "rolling_every_slot_index_copy": ("ex4_rolling_cache", RING_WRITE,
                                      "    k_ring.index_copy_(2, positions % window, k)\n"
                                      "    v_ring.index_copy_(2, positions % window, v)\n"
                                      "    pos.index_copy_(0, positions % window, positions)",
                                      "hint_rolling_repeated_slots"),
    "mla_kv_heads_view": ("ex7_mla", ".view(B, T, H, d_C + d_V).transpose(1, 2)", ".view(B, H, T, d_C + d_V)",
                          "hint_mla_heads_view"),
    "mla_both_heads_view": ("ex7_mla", "(B, T, H, d_C + d_R).transpose(1, 2)", "(B, H, T, d_C + d_R)",
                            "hint_mla_heads_view"),
    "batch_lengths_index_kv": ("ex14_batched_lengths", "[rows, :, lengths] = k_new[:, :, 0]" + " " * 41 +
                               "# t(\"c8_row_slots\")\n    v_cache[rows, :, lengths] = v_new[:, :, 0]",
                               "[:, :, lengths] = k_new\n    v_cache[:, :, lengths] = v_new", "hint_batch_lengths_index"),
    "batch_lengths_index_error": ("ex14_batched_lengths", "_cache[rows, :, lengths] = ", "_cache[:, :, lengths] = ",
                                  "hint_batch_lengths_index"),
    "pdec_sum_not_rescaled": ("ex13_paged_attention", "l = l * scale + ", "l = l + ", "hint_pdec_rescale_sum"),
    "flex_sink_base": ("ex15_flex_sink", "torch.sigmoid(aux.lse - sinks.view(1, -1, 1))",
                       "torch.sigmoid((aux.lse - sinks.view(1, -1, 1)) * math.log(2))", "hint_flex_sink_base"),
    "flex_sink_base_divided": ("ex15_flex_sink", "torch.sigmoid(aux.lse - sinks.view(1, -1, 1))",
                               "torch.sigmoid((aux.lse - sinks.view(1, -1, 1)) / math.log(2))", "hint_flex_sink_base"),
}
PLANTED = ("rolling_every_slot", "mla_heads_view", "decode_heads_view", "pdec_acc_not_rescaled", "batch_lengths_index",
           "flex_sink_log2_divided", "softcap_fixed", "window_top_left")
CASES = {**{name: (BUGS[name].cell, BUGS[name].old, BUGS[name].new,
                   next(iter(BUGS[name].fails.values()))) for name in PLANTED}, **MORE}


def learner(cell: str, old: str = "", new: str = ""):
    source = CELLS[cell]
    assert old in source, (cell, old)
    scope = {"torch": torch, "nn": nn, "F": F, "math": math, "flex_attention": flex_attention,
             "AuxRequest": AuxRequest}
    exec(source.replace(old, new), scope)   # noqa: S102 - the lesson's own solution, one replacement
    return scope[EXERCISES[cell][0]]


@pytest.mark.parametrize("name", sorted(CASES))
def test_learners_mistake_gets_one_hint_on_both_sides(name, lang):
    from attn_course.messages import t
    cell, old, new, hint = CASES[name]
    fn = learner(cell, old, new)
    with pytest.raises(CheckFailed) as info:
        EXERCISES[cell][1](fn)
    assert t(hint) in str(info.value), str(info.value)
    failure = fails(EXERCISES[cell][2], fn)
    assert (failure.hint[0] if isinstance(failure.hint, tuple) else failure.hint) == hint, (name, failure.key,
                                                                                           failure.hint)


def test_a_ring_written_slot_by_slot_once_passes():
    """Every slot written once, however: the last min(T_new, W) tokens one at a time, or all of them to a scratch
    tensor with repeated indices that is not the ring (a mask built with repeats writes one value everywhere)."""
    one_by_one = ("    for t in range(T_new - last, T_new):\n"
                  "        s = int(positions[t]) % window\n"
                  "        k_ring[:, :, s], v_ring[:, :, s], pos[s] = k[:, :, t], v[:, :, t], positions[t]\n"
                  "    scratch = torch.zeros(window, dtype=torch.bool)\n"
                  "    scratch[positions % window] = True")
    fn = learner("ex4_rolling_cache", RING_WRITE, one_by_one)
    checks.check_attend_rolling(fn)
    passes(probes.attend_rolling, fn)


def test_exercise_9_refuses_any_join_as_its_text_says(lang):
    """The text: no function that joins tensors (torch.cat, torch.stack, …) anywhere in attend_preallocated, even on
    a tensor that is not the cache (a mask), and SDPA allowed (test_lesson8.py). A mask stacked row by row is refused
    by the check and by the grader alike."""
    stacked = "torch.stack([torch.arange(T_all, device=x_new.device) <= T_past + i for i in range(T_new)])"
    source = CELLS["ex9_preallocated"]
    old = "torch.ones(T_new, T_all, dtype=torch.bool, device=x_new.device).tril(diagonal=T_past)"
    assert old in source
    scope = {"torch": torch, "math": math}
    exec(source.replace(old, stacked), scope)   # noqa: S102 - the lesson's own solution, one replacement
    fn = scope["attend_preallocated"]
    fails_with(checks.check_attend_preallocated, fn, "hint_concat_by_hand",
               name="attend_preallocated(attn, x_new, k_buf, v_buf, 0)")
    failure = fails(probes.attend_preallocated, fn, key="hidden_concat_refused")
    assert failure.hint[0] == "hint_concat_by_hand"
