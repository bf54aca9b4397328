"""Lesson 8's procedures for a cache's memory (their probes are in lesson8.py): a preallocated cache written in place
(exercise 9), pages and a block table (10), packed sequences (11), what a cache costs (12), attention read page by
page (13) and rows of different lengths in one cache (14). Each `judge_x(res, right)` is the verdict on what the
probe recorded, given the right implementation: the grader runs it with the hidden reference
(autograder/reference/lesson8.py, lesson8_paging.py), the visible check with the right answer the course's public
facts give, on a seed of its own.
"""
import torch

from ..checks.lesson8_caches import STATIC_BUGS, buffers_hint, gpt2_qkv, static_error, static_run
from ..checks.lesson8_common import all_nan, grid
from ..checks.lesson8_lengths import batched_error, batched_inputs, meta_finding, step_finding, write_rows
from ..checks.lesson8_packing import (
    document_rules, document_variants, packed_error, positions_hint, positions_kind, positions_variants,
)
from ..checks.lesson8_paged import (
    PAGED_GATHER_BUGS, PAGED_WRITE_BUGS, bytes_error, bytes_hint, paged_decode_bug, paged_decode_error,
    paged_decode_inputs, paged_error, paged_gather_ref, paged_length_hint, paged_written, watch_finding,
)
from ..judging import (
    Mismatch, expect_close, expect_finding, expect_grads, judge_function, matching_bug, naming, procedure,
)
from .cases import DTYPE_CASES, backward_with_probe
from .lesson8 import bytes_cases, gather_lengths, packed_setup, paged_setup, static_setup
from .lesson8_common import expect_mask, first_call, partial_end
from .rope import turn_with


# --------------------------------------------------------------------------- exercise 9: a preallocated cache
def _static_bug(res, host, x, chunks, t_max):
    if all_nan(res["outputs"]):
        return all_nan(res["outputs"])
    for key, flags in STATIC_BUGS.items():
        outs, buffers = static_run(host, x, chunks, t_max, **flags)
        if all(matching_bug(g, {"x": o}, 1e-9) for g, o in zip(res["outputs"], outs)) and \
                matching_bug(res["buffers"], {"x": buffers}, 1e-9):
            return key[0] if isinstance(key, tuple) else key   # (hint, which variant of it)
    buffers = res["buffers"]
    return buffers_hint(*buffers) if isinstance(buffers, tuple) and len(buffers) == 2 else None


# partial: the calls before one that raised, and the buffers they left, are judged as the whole run is
@procedure(on_error=static_error, partial=True)
def judge_attend_preallocated(res, right):
    """right(attn, x) -> (the output (B, T, E) of causal attention over all of x, its keys and values (B, H, T, D)):
    lesson 6's attention with a cache, all at once."""
    host, x, chunks, t_max = static_setup(res)
    b, n, e = x.shape
    h = host.n_head
    with torch.no_grad():
        full, (k_all, v_all) = right(host, x)
    outputs = res["outputs"]
    if not isinstance(outputs, list) or len(outputs) > len(chunks):
        raise Mismatch("hidden_mismatch", case="attend_preallocated", err=float("inf"))
    first = chunks[0][1]
    with torch.no_grad():
        first_qkv = gpt2_qkv(host, x[:, :first])
    with naming(lambda: _static_bug(res, host, x, chunks, t_max)
                or first_call(res, *first_qkv, grid(first, first)[0] >= grid(first, first)[1], host.c_proj)):
        for (lo, hi), got in zip(chunks, outputs):
            case = ("case_cache_token" if hi - lo == 1 else "case_cache_tokens",
                    {"name": "attend_preallocated", "sizes": f"B={b}, H={h}, T_max={t_max}", "lo": lo, "last": hi - 1})
            expect_close(case, got, full[:, lo:hi], 1e-9)
        buffers = res["buffers"]
        if outputs and len(outputs) < len(chunks) and isinstance(buffers, tuple) and len(buffers) == 2:
            hint = buffers_hint(*buffers)   # the next call raised: what the calls before it left
            if hint:
                raise Mismatch("static_buffer_differs", n=chunks[len(outputs) - 1][1], hint=hint)
        partial_end(res, chunks)
        pad = x.new_zeros(b, h, t_max - n, e // h)
        for part, got, want in zip("KV", buffers if isinstance(buffers, tuple) else (None, None), (k_all, v_all)):
            expect_close(("case_buffer", {"part": part, "n": n}), got, torch.cat([want, pad], 2), 1e-9)


# --------------------------------------------------------------------------- exercise 12: what a cache costs
@procedure(on_error=bytes_error)
def judge_cache_bytes(res, right):
    """right(config, T, batch, dtype) -> the bytes of the cache."""
    cases = bytes_cases(res)
    gots = [res[f"bytes.{i}"] for i in range(len(cases))]
    for (config, n, batch, dtype), got in zip(cases, gots):   # all whole numbers first: the hint reads them all
        if isinstance(got, float):   # a byte count is a whole number: 4536.0 is no answer, whatever it equals
            raise Mismatch("hint_return_not_int", name=f"cache_bytes({config}, T={n}, batch={batch}, dtype={dtype})",
                           got=repr(got))
        if isinstance(got, bool) or not isinstance(got, int):
            raise Mismatch("flops_not_int", step="cache_bytes", kind=type(got).__name__)
    for i, (config, n, batch, dtype) in enumerate(cases):
        want = right(config, n, batch, dtype)
        if gots[i] != want:
            raise Mismatch("bytes_differs", hint=bytes_hint(cases, gots, i), config=config, T=n, batch=batch,
                           dtype=dtype, got=gots[i], want=want)


# --------------------------------------------------------------------------- exercise 11: packed sequences
@procedure(on_error=packed_error)
def judge_packed(res, right):
    """right: (layout(cu_seqlens) -> (the positions (T,), the mask (1, 1, T, T) bool), alone(q, k, v, cu_seqlens,
    turn) -> each document attended alone, RoPE from 0 in each)."""
    layout, alone = right
    cu, q, k, v, base = packed_setup(res)
    positions, mask = layout(cu)
    got = res["positions"]
    if not (isinstance(got, torch.Tensor) and got.shape == positions.shape and not got.is_floating_point()):
        raise Mismatch("packed_positions_shape", n=len(positions), got=positions_kind(got))
    if not torch.equal(got, positions):
        raise Mismatch("packed_positions_differ", hint=positions_hint(got, positions_variants(cu)), got=got.tolist(),
                       want=positions.tolist())
    expect_mask("document_mod", res["mask"], mask, document_variants(cu), rules=document_rules(cu))
    expect_close("flex_attention(…, document_mod)", res["flex"], alone(q, k, v, cu, turn_with(base)), 1e-9)


# --------------------------------------------------------------------------- exercise 10: a paged cache
def _paged_bug(res, size, h, d, n_pages, table, new, chunks):
    pages = res["pages"]
    for key, flags in PAGED_WRITE_BUGS.items():
        written = paged_written(new, n_pages, size, h, d, chunks, table, **flags)
        if written is not None and matching_bug(pages, {"x": written}, 0.0):
            return key
    filled = res.randn("filled", n_pages, size, h, d)
    for length in gather_lengths(new.size(0), size):
        got = res[f"gather.{length}"]
        hint = paged_length_hint(got, length, size)
        if hint:
            return hint
        for key, flags in PAGED_GATHER_BUGS.items():
            if matching_bug(got, {"x": paged_gather_ref(filled, table, length, **flags)}, 0.0):
                return key
    return None


@procedure(on_error=paged_error)
def judge_paged_cache(res, right):
    """right: (write(pages, block_table, start, k_new), in place; gather(pages, block_table, length) -> (length, H,
    D))."""
    write, gather = right
    size, h, d, n_pages, table, new, chunks = paged_setup(res)
    with naming(lambda: _paged_bug(res, size, h, d, n_pages, table, new, chunks)):
        pages = torch.zeros(n_pages, size, h, d, dtype=torch.float64)
        for lo, hi in chunks:
            write(pages, table, lo, new[lo:hi])
        expect_close(("case_pages", {"n": new.size(0), "size": size}), res["pages"], pages, 0.0)
        filled = res.randn("filled", n_pages, size, h, d)
        for length in gather_lengths(new.size(0), size):
            expect_close(f"paged_gather(pages, block_table, {length})", res[f"gather.{length}"],
                         gather(filled, table, length), 0.0)


# --------------------------------------------------------------------------- exercise 13: attention over pages
# partial, as the probe runs in order: an error in a later call (the meta device's) comes after the values recorded
# before it, whose mismatch is the verdict when there is one.
@procedure(on_error=paged_decode_error, partial=True)
def judge_paged_decode(res, right):
    """right(q, k_pages, v_pages, block_tables, seq_lens) -> each sequence's output (N, H, D)."""
    with naming(lambda: paged_decode_bug(paged_decode_inputs(res, "float64", torch.float64), res["float64"])):
        judge_function(res, right, paged_decode_inputs)
    # Decided here from what the kernel's watch recorded (a probe that sent no record fails: res[…] raises).
    largest = res["watch"]
    expect_finding(watch_finding(tuple(largest) if isinstance(largest, (list, tuple)) else largest, res["meta"]))


# --------------------------------------------------------------------------- exercise 14: rows of different lengths
# partial, as exercise 13's: the meta device's step runs last.
@procedure(on_error=batched_error, partial=True)
def judge_decode_batched(res, right):
    """right(q, k_new, v_new, k_cache, v_cache, lengths) -> one step's output (B, H, 1, D), from the caches as they
    were before it: each row written at, and masked after, its own length."""
    name = "decode_batched"
    for case, dtype in DTYPE_CASES:
        lengths, k_cache, v_cache, steps = batched_inputs(res, case, dtype)
        for i, (q, k_new, v_new) in enumerate(steps):
            before = (q, k_new, v_new, k_cache, v_cache, lengths)
            expect_finding(step_finding(name, i + 1, before, res[f"{case}.{i}"], res[f"{case}.{i}.k"], dtype, right))
            k_cache, v_cache = write_rows(k_cache, v_cache, k_new, v_new, lengths)
            lengths = lengths + 1
    lengths, k_cache, v_cache, steps = batched_inputs(res, "grad", torch.float64)
    leaves = [x.clone().requires_grad_(True) for x in steps[0]]
    want = right(*leaves, k_cache, v_cache, lengths)
    expect_grads(name, res["grad.inputs"], backward_with_probe(res, want, leaves), ["q", "k_new", "v_new"])
    expect_finding(meta_finding(res["meta"]))
