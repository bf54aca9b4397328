"""Lesson 6's tiling rules that a right answer alone cannot show: the scores are never made whole, and the
running max, sum and accumulator are made on the input's device, in its dtype.

A plain softmax over the whole (T, T) scores gives the tiling's answer, so the values cannot tell them apart.
What can is the shapes of the tensors the learner's code makes: ScoreWatch sees every op's output, below
every name it could be reached by, and keeps the first floating one whose last two axes are both longer
than a block (the (T, T) scores, or (T_q, T_k) ones), or the first product of q and k whose key axis is longer
than a block (queries tiled against every key: the text splits the keys and keeps the T queries whole). The
probe records the shape it saw, and the exercise's procedure decides from that record (watch_failure), in the
grader's process and in the visible check's alike. Code that takes the watch down has to reach torch's private
dispatch modules, which the by-hand policy refuses (attn_course.hand_policy.tampering).
"""
from __future__ import annotations

import torch

# The sizes the watch runs at: T many blocks long, D no wider than a block (so (T, D) is no (T, T) score).
WATCH_B, WATCH_H, WATCH_T, WATCH_D, WATCH_BLOCK = 1, 2, 40, 4, 4


def meta_inputs():
    """q, k, v on the meta device (a GPU's stand-in) in float16: a running max, sum or accumulator made on the
    CPU fails there, and one made in the default float32 turns the output float32."""
    return [torch.empty(WATCH_B, WATCH_H, 9, WATCH_D, device="meta", dtype=torch.float16) for _ in range(3)]


def meta_problem(got) -> str | None:
    """The hint for what the meta call returned: a tensor on another device, or in another dtype, than q."""
    if getattr(got, "device", None) is None or getattr(got, "dtype", None) is None:   # a tensor, or one sent as
        return None                                                                   # NoValues to the grader
    if got.device.type != "meta":
        return "hint_tiled_device"
    if got.dtype != torch.float16:
        return "hint_tiled_dtype"
    return None


def meta_error(kind: str, message: str) -> str | None:
    """An error on the meta device: a tensor made on the CPU (no device=q.device) met the meta ones."""
    if "meta" in message or "device" in message:
        return "hint_tiled_device"
    if any(word in message for word in ("scalar type", "dtype", "Half", "Float")):   # float32 met float16
        return "hint_tiled_dtype"
    return None


def watch_failure(shape) -> tuple[str, str] | None:
    """(message key, hint key) for the shape ScoreWatch recorded, or None: both axes longer than a block are the
    whole (T, T) scores; else a product whose key axis is whole (the queries were tiled, not the keys)."""
    if shape is None:
        return None
    if len(shape) >= 2 and min(shape[-2:]) > WATCH_BLOCK:
        return "tiled_full_scores", "hint_tiled_full"
    return "tiled_key_axis", "hint_tiled_query_blocks"
