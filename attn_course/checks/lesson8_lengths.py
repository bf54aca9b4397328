"""Lesson 8's visible check for exercise 14: sequences of different lengths decoded together from one preallocated
cache, each row written at its own length and masked there (vLLM's seq_lens; a padding mask's job in transformers).

The probe runs the learner's code (batched_run: a few decode steps in float64 and float32, one with gradients, one on
the meta device), and the exercise's procedure (attn_course.probes.lesson8_memory) judges it step by step and names a
mistake (step_finding, batched_bug, cache_bug): the check on its own seed with right_step, the grader with
transformers' padding mask (autograder/reference/lesson8_paging.py).
"""
from __future__ import annotations

import math
import re

import torch

from .. import findings
from .engine import close, max_error

STEPS = 3   # decode steps of the float64 and float32 cases: the lengths move on, and so must each row's slot


def batched_inputs(draws, case: str, dtype):
    """Batch, heads, width and the cache's length (none the notebook binds); the rows' lengths, all different and
    leaving room for STEPS tokens; the caches, whose slots past each row's length hold stale numbers (what a
    server's buffer holds from earlier requests); each step's q, k_new, v_new (B, H, 1, D)."""
    from ..sizes import avoided
    b, h, d = draws.sizes(f"{case}.sizes", 3, low=3, high=8, avoid=avoided(8))
    (t_max,) = draws.sizes(f"{case}.cache", 1, low=11, high=16, avoid=avoided(8))
    lengths = torch.randperm(t_max - STEPS, generator=draws.gen(f"{case}.lengths"))[:b]
    k_cache, v_cache = (draws.randn(f"{case}.{x}_cache", b, h, t_max, d, dtype=dtype) for x in ("k", "v"))
    steps = [tuple(draws.randn(f"{case}.{i}.{x}", b, h, 1, d, dtype=dtype) for x in ("q", "k", "v"))
             for i in range(STEPS)]
    return lengths, k_cache, v_cache, steps


def write_rows(k_cache, v_cache, k_new, v_new, lengths, shared=None, unwritten=False, crossed=False):
    """The caches after writing each row's new token at its own length (shared: every row at that one position;
    crossed: k_cache[:, :, lengths] = k_new, each row's token at every row's length; "k": the keys alone so, the
    values written right)."""
    k_cache, v_cache = k_cache.clone(), v_cache.clone()
    rows = torch.arange(k_cache.size(0))
    where = lengths if shared is None else torch.full_like(lengths, shared)
    if crossed:
        k_cache[:, :, lengths] = k_new
    elif not unwritten:
        k_cache[rows, :, where] = k_new[:, :, 0]
    if crossed is True:
        v_cache[:, :, lengths] = v_new
    elif not unwritten:
        v_cache[rows, :, where] = v_new[:, :, 0]
    return k_cache, v_cache


def batched_variants(q, k_new, v_new, k_cache, v_cache, lengths) -> dict:
    """The output (B, H, 1, D) of one step from caches holding lengths[b] tokens in row b, right (None) and with each
    classic mistake: every row written at one position (the first row's length, or the longest), every row masked at
    the longest length, each row's token written at every row's length (k_cache[:, :, lengths]), the mask made from
    the length before the write (the new token hidden), no mask (stale slots attended), scores not scaled."""
    keys = torch.arange(k_cache.size(2))

    def out(kc, vc, seen, scale=1.0):
        s = q @ kc.transpose(-2, -1) * (scale / math.sqrt(q.size(-1)))
        if seen is not None:
            s = s.masked_fill(~(keys[None, :] < seen[:, None])[:, None, None, :], float("-inf"))
        return torch.softmax(s, -1) @ vc

    right = write_rows(k_cache, v_cache, k_new, v_new, lengths)
    first = write_rows(k_cache, v_cache, k_new, v_new, lengths, shared=int(lengths[0]))
    longest = write_rows(k_cache, v_cache, k_new, v_new, lengths, shared=int(lengths.max()))
    crossed, keys_crossed = (write_rows(k_cache, v_cache, k_new, v_new, lengths, crossed=how) for how in (True, "k"))
    return {None: out(*right, lengths + 1),
            ("hint_batch_shared_slot", "first"): out(*first, lengths + 1),
            ("hint_batch_shared_slot", "longest"): out(*longest, torch.full_like(lengths, int(lengths.max()) + 1)),
            "hint_batch_lengths_index": out(*crossed, lengths + 1),
            ("hint_batch_lengths_index", "k"): out(*keys_crossed, lengths + 1),
            "hint_batch_shared_length": out(*right, torch.full_like(lengths, int(lengths.max()) + 1)),
            "hint_batch_before_write": out(*right, lengths),
            "hint_batch_no_mask": out(*right, None),
            "hint_no_scale": out(*right, lengths + 1, scale=math.sqrt(q.size(-1)))}


def batched_bug(args, got) -> str | None:
    """The classic mistake whose output equals got for one step's inputs args (q, k_new, v_new, k_cache, v_cache,
    lengths: the caches as they were before the step), NaN as 0: the check's and the judge's one rule."""
    if not isinstance(got, torch.Tensor):
        return None
    got = torch.nan_to_num(got.detach().double())
    args = [a.detach().double() if a.is_floating_point() else a for a in args]
    with torch.no_grad():
        variants = batched_variants(*args)
    found = next((key for key, want in variants.items()
                  if key and want.shape == got.shape and close(got, torch.nan_to_num(want), 1e-9)), None)
    return found[0] if isinstance(found, tuple) else found


def cache_bug(got_k, k_cache, k_new, lengths) -> str | None:
    """What a key cache written wrong shows: the new keys at one shared position, at every row's length
    (k_cache[:, :, lengths]), or not written at all."""
    if not isinstance(got_k, torch.Tensor) or got_k.shape != k_cache.shape:
        return None
    got_k = got_k.detach().double()
    for shared in {int(lengths[0]), int(lengths.max())}:
        if close(got_k, write_rows(k_cache, k_cache, k_new, k_new, lengths, shared=shared)[0].double(), 1e-9):
            return "hint_batch_shared_slot"
    if close(got_k, write_rows(k_cache, k_cache, k_new, k_new, lengths, crossed=True)[0].double(), 1e-9):
        return "hint_batch_lengths_index"
    return "hint_batch_unwritten" if close(got_k, k_cache.double(), 1e-9) else None


def batched_error(kind: str, message: str, call: str = "") -> str | None:
    """An error in decode_batched: a tensor made on the CPU that met the meta device's (no device=q.device), a
    length read out as a Python number (impossible on the meta device, a wait for the GPU on a real one), or the
    lengths compared with the key positions without their row axis (lengths[:, None]), or the lengths as the index of
    the cache's time axis alone (k_cache[:, :, lengths] = k_new[:, :, 0]: (B, H, D) into a (B, H, B, D) result)."""
    if "meta" in call and (".item()" in message or "Tensor.item" in message or "tolist" in message
                           or "cannot be converted to Scalar" in message or "data-dependent" in message
                           or "copy out of meta tensor" in message):   # .tolist() on the meta device says this
        return "hint_batch_python_lengths"
    if "meta" in call and ("meta" in message or "device" in message):
        return "hint_batch_device"
    if "must match the size of tensor" in message:
        return "hint_batch_lengths_axis"
    if re.search(r"indexing result of shape \[\d+, \d+, \d+, \d+\]", message):
        return "hint_batch_lengths_index"
    return None


def batched_run(call, fn, draws, case: str, dtype):
    """Run decode_batched for STEPS tokens (call: the check's run or the probe's rec.call) on copies of the drawn
    caches, the caller moving the lengths on by one after each step as the text says. Returns, per step, (the
    inputs as they were before the step, the output, the key and value caches after it)."""
    lengths, k_cache, v_cache, steps = batched_inputs(draws, case, dtype)
    k_buf, v_buf = k_cache.clone(), v_cache.clone()
    records = []
    for i, (q, k_new, v_new) in enumerate(steps):
        before = (q, k_new, v_new, k_buf.clone(), v_buf.clone(), lengths.clone())
        y = call(f"decode_batched (step {i + 1})", fn, q, k_new, v_new, k_buf, v_buf, lengths.clone())
        records.append((before, y, k_buf.clone(), v_buf.clone()))
        lengths = lengths + 1
    return records


def grad_run(call, fn, draws):
    """One step in float64 with q, k_new, v_new differentiable: (the leaves, the output)."""
    lengths, k_cache, v_cache, steps = batched_inputs(draws, "grad", torch.float64)
    leaves = [x.clone().requires_grad_(True) for x in steps[0]]
    return leaves, call("decode_batched (gradients)", fn, *leaves, k_cache.clone(), v_cache.clone(), lengths)


def meta_run(call, fn, draws):
    """One step on the meta device (a GPU's stand-in) in float16, the lengths there too, as a server keeps them."""
    lengths, k_cache, v_cache, steps = batched_inputs(draws, "meta", torch.float16)
    args = [*steps[0], k_cache, v_cache, lengths]
    return call("decode_batched (meta, float16)", fn, *(a.to("meta") for a in args))


def meta_finding(got):
    """(message key, fields, hint key) for what the meta device's step returned, or None."""
    if getattr(got, "device", None) is None or getattr(got, "dtype", None) is None:
        return None
    if got.device.type != "meta" or got.dtype != torch.float16:
        return "batch_meta", {"device": got.device.type, "dtype": str(got.dtype).replace("torch.", "")}, (
            "hint_batch_device" if got.device.type != "meta" else "hint_batch_dtype")
    return None


def step_finding(name: str, step: int, before, got, k_after, dtype, right):
    """(message key, fields, hint key) for one step, or None: its output, then the key cache, against right(*before)
    (the right output for the inputs and caches before the step), by shape, dtype and value, with the mistake each
    shows. The check raises it as a CheckFailed, the grader's judge as a Mismatch."""
    if not isinstance(got, torch.Tensor):
        return "returned_not_tensor", {"name": name, "kind": type(got).__name__}, None
    want = right(*before)
    if got.shape != want.shape:
        return "sizes_case_shape", {"name": name, "sizes": f"step {step}", "want": tuple(want.shape),
                                    "got": tuple(got.shape)}, None
    if findings.dtype_finding(name, got, dtype):
        return findings.dtype_finding(name, got, dtype)
    tol = 1e-9 if dtype == torch.float64 else 1e-4
    lengths = before[5].tolist()
    if not max_error(got, want) <= tol:
        return "batch_differs", {"step": step, "lengths": lengths, "err": max_error(got, want)}, \
            batched_bug(before, got)
    q, k_new, v_new, k_cache, v_cache, lens = before
    if not isinstance(k_after, torch.Tensor) or k_after.shape != k_cache.shape or \
            not max_error(k_after, write_rows(k_cache, v_cache, k_new, v_new, lens)[0]) <= tol:
        return "batch_cache_differs", {"step": step, "lengths": lengths}, cache_bug(k_after, k_cache, k_new, lens)
    return None


def right_step(q, k_new, v_new, k_cache, v_cache, lengths):
    """One step's right output from the caches before it: each row written at, and masked after, its own length."""
    k_all, v_all = write_rows(k_cache, v_cache, k_new, v_new, lengths)
    keep = torch.arange(k_all.size(2)) <= lengths[:, None]
    s = (q @ k_all.transpose(-2, -1) / math.sqrt(q.size(-1))).masked_fill(~keep[:, None, None, :], float("-inf"))
    return torch.softmax(s, -1) @ v_all
