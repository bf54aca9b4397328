"""Lesson 8's KV caches a decoder attends through: a rolling (ring-buffer) cache (exercise 4) and StreamingLLM's kept
first tokens (exercise 5), simulated right and with each classic mistake for their procedures
(attn_course.probes.lesson8), and the visible check of a preallocated cache written in place (exercise 9)."""
from __future__ import annotations

import torch
import torch.nn as nn
from torch.overrides import TorchFunctionMode

from .engine import close
from .heads import merge_heads, split_heads
from .lesson8_common import (
    CORE_MISTAKES, UNSCALED, attend, cache_none_error, grid, length_error, shape_error,
)
from .lesson8_mods import window_variants


def streaming_error(kind: str, message: str, call: str = "") -> str | None:
    if cache_none_error(kind, message, call):
        return "hint_cache_none"
    return length_error(kind, message) or shape_error(kind, message, call)


# --------------------------------------------------------------------------- exercise 4: a rolling cache
def sliding_reference(q, k, v, window, turn):
    """Full sliding-window attention with RoPE at positions 0 … T−1: what decoding with a rolling cache gives."""
    n = q.size(-2)
    q, k = turn(q, k, torch.arange(n))
    keep = window_variants(window, n, 0)[None]
    return attend(q, k, v, keep)


def rolling_run(q, k, v, chunks, window, turn, restart=False, plus_one=False, empty=True, write_first=False,
                grow=False, turn_at=None, core=None, swap_qk=False, swap_kv=False, swap_ring=False, new_first="",
                strict=False, seen_off=False, write_join=False, causal=True) -> tuple[list, list]:
    """What a rolling cache returns for each chunk (outputs, and the ring's (k, v, pos) after each call):
    right with the defaults, or one classic mistake. turn_at: RoPE alone at the wrong positions ("restart": from 0
    on every call; "slots": at p % window), the ring and the mask at the right ones. core: one of CORE_MISTAKES in
    the attention itself; swap_qk: rope's two results taken the other way round; swap_kv: keys and values swapped
    where the ring and the new tokens are joined; swap_ring: the ring unpacked or returned as (v_ring, k_ring, pos);
    new_first: some of "k", "v", "p", the new keys, values or positions joined before the ring's, the others
    after; strict: key_pos < p, a token not seeing itself; seen_off: T_seen = pos.max() without + 1; write_join: the
    new tokens written into the ring first, then the ring and the new tokens joined; causal=False: no key_pos <= p,
    a new token seeing the later ones of its call."""
    b, h, _, d = q.shape
    ring_k, ring_v = q.new_zeros(b, h, window, d), v.new_zeros(b, h, window, v.size(-1))
    pos = torch.full((window,), -1, dtype=torch.long)
    outputs, rings = [], []
    for lo, hi in chunks:
        n = hi - lo
        if swap_ring:
            ring_k, ring_v = ring_v, ring_k
        seen = int(pos.max()) + (0 if seen_off else 1)
        positions = torch.arange(n) if restart else torch.arange(seen, seen + n)
        turned = {"restart": torch.arange(n), "slots": positions % window}.get(turn_at, positions)
        qq, kk = turn(q[:, :, lo:hi], k[:, :, lo:hi], turned)
        if swap_qk:
            kk, qq = qq, kk
        last = min(n, window)
        slots = positions[-last:] % window
        def write():
            ring_k[:, :, slots], ring_v[:, :, slots] = kk[:, :, -last:], v[:, :, hi - last:hi]
            pos[slots] = positions[-last:]
        if write_first:   # the new tokens written into the ring first, then only the ring attended
            write()
            keys, values, key_pos = ring_k, ring_v, pos
        else:
            if write_join:
                ring_k, ring_v, pos = ring_k.clone(), ring_v.clone(), pos.clone()
                write()

            def join(part, ring, new, dim=2):
                return torch.cat([new, ring] if part in new_first else [ring, new], dim)
            keys, values = join("k", ring_k, kk), join("v", ring_v, v[:, :, lo:hi])
            key_pos = join("p", pos, positions, 0)
            if swap_kv:
                keys, values = values, keys
        p = positions[:, None]
        keep = key_pos >= p - window if plus_one else key_pos > p - window
        if causal:
            keep = keep & (key_pos < p if strict else key_pos <= p)
        if empty:
            keep = keep & (key_pos >= 0)
        outputs.append(attend(qq, keys, values, keep) if core is None else
                       torch.nan_to_num({**CORE_MISTAKES, **UNSCALED}[core](qq, keys, values, keep)))
        if grow:
            rings.append((keys, values, key_pos))
            ring_k, ring_v, pos = keys, values, key_pos
            continue
        if not write_first:
            ring_k, ring_v, pos = ring_k.clone(), ring_v.clone(), pos.clone()
            write()
        rings.append((ring_k.clone(), ring_v.clone(), pos.clone()))
    return outputs, rings


def first_turned(q, k, v, n: int, turn) -> tuple:
    """The first call's q and k turned at positions 0 … n−1, and its v: plain attention's inputs."""
    qq, kk = turn(q[:, :, :n], k[:, :, :n], torch.arange(n))
    return qq, kk, v[:, :, :n]


ROLLING_BUGS = {"hint_rolling_positions": dict(restart=True), "hint_rolling_window": dict(plus_one=True),
                "hint_rolling_empty": dict(empty=False), "hint_rolling_write_first": dict(write_first=True),
                "hint_rolling_rope_restart": dict(turn_at="restart"), "hint_rolling_rope_slots": dict(turn_at="slots"),
                "hint_rope_qk_swapped": dict(swap_qk=True), "hint_keys_values_swapped": dict(swap_kv=True),
                "hint_cache_kv_swapped": dict(swap_ring=True), "hint_mask_self_hidden": dict(strict=True),
                **{("hint_rolling_join_order", part): dict(new_first=part)
                   for part in ("k", "v", "p", "kv", "kp", "vp")},
                **{key: dict(core=key) for key in {**CORE_MISTAKES, **UNSCALED}},
                "hint_rolling_seen_off": dict(seen_off=True), "hint_rolling_write_then_join": dict(write_join=True),
                "hint_rolling_no_causal": dict(causal=False)}


def rolling_error(kind: str, message: str, call: str = "") -> str | None:
    """A slot past the ring's end: the position used as the slot without % window. A ring of another dtype than
    the keys (torch.zeros without dtype=: float32): writing float64 keys into it fails."""
    if "out of bounds" in message:   # not "Dimension out of range"
        return "hint_rolling_modulo"
    if "cannot be broadcast to indexing result" in message:
        return "hint_rolling_write"   # slots and the tokens written to them are not as many
    if cache_none_error(kind, message, call):
        return "hint_cache_none"
    if "for the destination and Long for the source" in message:   # pos made with -1.0: a float pos given positions
        return "hint_rolling_pos_dtype"
    if "dtypes match" in message or "expected scalar type" in message.lower() or "same dtype" in message:
        return "hint_rolling_ring_dtype"
    return length_error(kind, message)


def _repeats(index, dim: int | None = None) -> bool:
    """An integer index that names one place twice (dim: scatter's axis, along which its places are taken)."""
    if not isinstance(index, torch.Tensor) or index.dtype == torch.bool or index.is_floating_point() \
            or index.device.type == "meta" or index.numel() < 2:
        return False
    if dim is None:
        return index.unique().numel() < index.numel()
    ordered = index.sort(dim).values
    n = ordered.size(dim)
    return n > 1 and bool((ordered.narrow(dim, 1, n - 1) == ordered.narrow(dim, 0, n - 1)).any())


def _places(key) -> torch.Tensor | None:
    """The places an advanced index (a setitem key, index_put's indices) writes, one row each: its integer index
    tensors broadcast together; None without two integer indices or more than one place."""
    parts = key if isinstance(key, (tuple, list)) and not all(isinstance(x, int) for x in key) else (key,)
    parts = [torch.as_tensor(x) if isinstance(x, list) else x for x in parts]
    found = [x for x in parts if isinstance(x, torch.Tensor) and not x.dtype == torch.bool
             and not x.is_floating_point() and x.dim() > 0 and x.device.type != "meta"]
    if not found:
        return None
    return torch.stack([x.reshape(-1) for x in torch.broadcast_tensors(*found)], -1)


class RepeatedWrites(TorchFunctionMode):
    """Watches a call for writes that put two values in one place (k_ring[:, :, slots] = k with a slot named twice):
    PyTorch leaves which value stays undefined (on the CPU the last write happens to win; on a GPU the order may
    change from run to run). Records the storages written that way; into(result) says whether the cache returned is
    one of them."""
    SETTERS = {torch.Tensor.__setitem__, torch.Tensor.index_put_, torch.Tensor.index_put, torch.index_put}
    COPIES = {torch.Tensor.index_copy_, torch.Tensor.index_copy, torch.index_copy}
    SCATTERS = {torch.Tensor.scatter_, torch.Tensor.scatter, torch.scatter}

    def __init__(self):
        super().__init__()
        self.storages = set()

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        try:
            self._watch(func, args, kwargs)
        except Exception:   # a key this reading does not follow: the call itself says what is wrong with it
            pass
        return func(*args, **kwargs)

    def _watch(self, func, args, kwargs):
        if not args or not isinstance(args[0], torch.Tensor):
            return
        repeated = False
        if func in self.SETTERS and len(args) > 1 and not kwargs.get("accumulate", args[3] if len(args) > 3 else False):
            places = _places(args[1])
            repeated = places is not None and places.size(0) > 1 and places.unique(dim=0).size(0) < places.size(0)
        elif func in self.COPIES and len(args) > 2:
            repeated = _repeats(args[2])
        elif func in self.SCATTERS and len(args) > 2 and "reduce" not in kwargs and len(args) < 5:
            repeated = _repeats(args[2], args[1] if isinstance(args[1], int) else None)
        if repeated:
            self.storages.add(args[0].untyped_storage().data_ptr())

    def into(self, result) -> bool:
        """Whether a tensor of the cache the call returned, (output, (k_ring, v_ring, pos)), was written that way."""
        cache = result[1] if isinstance(result, tuple) and len(result) == 2 and isinstance(result[1], tuple) else ()
        return any(isinstance(x, torch.Tensor) and x.untyped_storage().data_ptr() in self.storages for x in cache)


def ring_replaced(shapes, pos, lo: int, hi: int, window: int) -> bool:
    """The ring's names bound to a new tensor (k_ring = k, k_ring = k[:, :, -last:]) where it is written into
    (k_ring[:, :, slots] = …), after the call given tokens lo … hi − 1: a K or V ring (shapes) with
    last = min(T_new, W) < W slots or all T_new > W new tokens, or pos holding those tokens' positions in their
    order, not at their slots p % W."""
    last = min(hi - lo, window)
    rebound = any(isinstance(s, (list, tuple)) and len(s) == 4 and s[2] != window and s[2] in (last, hi - lo)
                  for s in shapes)
    return rebound or (isinstance(pos, torch.Tensor) and pos.dim() == 1
                       and pos.tolist() in (list(range(hi - last, hi)), list(range(lo, hi))))


def ring_shape_hint(rings, parts, lo: int, hi: int, window: int) -> str | None:
    """A ring of the wrong shape after the call given tokens lo … hi − 1 (rings: the K and V rings' shapes; parts:
    all three parts'): its names bound to the new tokens (k_ring = k: T_new slots, more than W on the prefill, with no
    torch.cat), then grown past W (what torch.cat joined returned as the cache), then its parts in another order."""
    if ring_replaced(rings, None, lo, hi, window):
        return "hint_rolling_replaced"
    if any(isinstance(s, (list, tuple)) and len(s) == 4 and s[2] > window for s in rings):
        return "hint_rolling_grows"
    return "hint_rolling_ring_order" if ring_order_wrong(parts) else None


def ring_order_wrong(shapes) -> bool:
    """The ring returned with its parts in another order than (k_ring, v_ring, pos): shapes of the three parts."""
    dims = [len(s) if isinstance(s, (list, tuple)) else None for s in shapes]
    return sorted(d for d in dims if d) == [1, 4, 4] and dims != [4, 4, 1]


# --------------------------------------------------------------------------- exercise 5: StreamingLLM
def streaming_run(q, k, v, chunks, n_sink, window, turn, sinks=True, rotated=False, late=False,
                  budget_slack=False, top_left=False, swap_cache=False, swap_join=False, new_first="",
                  sink_order="", mask_sign=False, tail=False, turned_cache=False, q_zero=False,
                  diag_less=0) -> tuple[list, list]:
    """StreamingLLM (Xiao et al., their StartRecentKVCache and position shift): before a call, evict so that
    the cache holds at most n_sink + window tokens with the new ones; keys are cached before rotation and
    turned at their positions in the cache. Outputs and cache lengths per call, or one classic mistake's
    (sinks="dropped": only the last window − T_new kept; top_left: is_causal=True's mask; swap_cache: the cache
    unpacked or returned as (v, k); swap_join: old and new values joined as the keys and keys as the values;
    new_first / sink_order: "k", "v" or "kv", the new tokens joined before the cache / the kept recent tokens
    before the sinks; mask_sign: the diagonal shifted left, tril(diagonal=T_new − L_all); tail: the recent tokens
    kept as x[:, :, -(window − T_new):], all of them when T_new = window; turned_cache: the rotated keys returned as
    the cache, turned again on every call; q_zero: queries turned at 0 …; diag_less:
    tril(diagonal=L_all − T_new − 1))."""
    cache_k = cache_v = None
    outputs, lengths = [], []
    for lo, hi in chunks:
        n = hi - lo
        kk, vv = k[:, :, lo:hi], v[:, :, lo:hi]
        if swap_cache and cache_k is not None:
            cache_k, cache_v = cache_v, cache_k
        if rotated:   # keys turned once, at their cache position on arrival, and never again
            start = 0 if cache_k is None else cache_k.size(2)
        if cache_k is not None and not late:
            cache_k, cache_v = evict(cache_k, cache_v, n_sink, window - (0 if budget_slack else n), sinks, sink_order,
                                     tail)
            start = cache_k.size(2)
        if rotated:
            kk = turn(kk, kk, torch.arange(start, start + n))[1]
        if cache_k is None:
            cache_k, cache_v = kk, vv
        elif swap_join:
            cache_k, cache_v = torch.cat([cache_v, vv], 2), torch.cat([cache_k, kk], 2)
        else:
            cache_k = torch.cat([kk, cache_k] if "k" in new_first else [cache_k, kk], 2)
            cache_v = torch.cat([vv, cache_v] if "v" in new_first else [cache_v, vv], 2)
        total = cache_k.size(2)
        positions = torch.arange(total)
        qq = turn(q[:, :, lo:hi], q[:, :, lo:hi], torch.arange(n) if q_zero else positions[total - n:])[0]
        keys = cache_k if rotated else turn(cache_k, cache_k, positions)[1]
        cache_k = keys if turned_cache else cache_k
        diagonal = 0 if top_left else n - total if mask_sign else total - n - diag_less
        keep = torch.ones(n, total, dtype=torch.bool).tril(diagonal=diagonal)
        outputs.append(attend(qq, keys, cache_v, keep))
        if late:
            cache_k, cache_v = evict(cache_k, cache_v, n_sink, window, sinks)
        lengths.append(cache_k.size(2))
    return outputs, lengths


def evict(k, v, n_sink: int, recent: int, sinks: bool = True, order: str = "", tail: bool = False):
    """Keep the first n_sink tokens and the last `recent` (all when there are no more); without sinks, the last
    n_sink + recent. order: "k", "v" or "kv", the recent tokens joined before the sinks in those."""
    n = k.size(2)
    if n <= n_sink + recent:
        return k, v
    if sinks == "dropped":
        return k[:, :, n - recent:], v[:, :, n - recent:]
    if not sinks:
        return k[:, :, n - n_sink - recent:], v[:, :, n - n_sink - recent:]
    start = 0 if tail and not recent else n - recent   # tail: x[:, :, -recent:], which keeps all when recent is 0
    return tuple(torch.cat([x[:, :, start:], x[:, :, :n_sink]] if part in order
                           else [x[:, :, :n_sink], x[:, :, start:]], 2) for part, x in zip("kv", (k, v)))


STREAM_BUGS = {"hint_stream_no_sink": dict(sinks=False), "hint_stream_rotated_cache": dict(rotated=True),
               "hint_stream_evict_late": dict(late=True), "hint_stream_budget": dict(budget_slack=True),
               "hint_stream_is_causal": dict(top_left=True),
               "hint_cache_kv_swapped": dict(swap_cache=True),
               ("hint_cache_kv_swapped", "joined"): dict(swap_join=True),
               **{("hint_cache_cat_order", part): dict(new_first=part) for part in ("kv", "k", "v")},
               **{("hint_stream_sink_order", part): dict(sink_order=part) for part in ("kv", "k", "v")},
               "hint_cache_mask_sign": dict(mask_sign=True), "hint_stream_cache_turned": dict(turned_cache=True),
               "hint_stream_query_from_zero": dict(q_zero=True), "hint_stream_diagonal_minus_one": dict(diag_less=1),
               "hint_stream_tail_slice": dict(tail=True)}


def stream_length_hint(length: int, index: int, n_sink: int, window: int, dropped: list,
                       t_new: int | None = None, sliced: list | None = None) -> str | None:
    """A cache of the wrong length: past the budget, or only the last window − T_new kept (the first n_sink
    evicted with the rest), or after the first call only the new tokens (the old cache never joined). sliced: the
    lengths with the recent tokens kept as x[:, :, -(window − T_new):] (all of them when T_new = window)."""
    if sliced and length == sliced[index] > n_sink + window:
        return "hint_stream_tail_slice"
    if length > n_sink + window:
        return "hint_stream_budget"
    if length == dropped[index]:
        return "hint_stream_no_sink"
    return "hint_cache_concat" if index and length == t_new else None


# --------------------------------------------------------------------------- exercise 9: a preallocated cache
class CacheHost(nn.Module):
    """A bare GPT-2 attention (c_attn, c_proj, n_head), as lesson 6's exercise 5 is handed."""

    def __init__(self, embed_dim: int, n_head: int):
        super().__init__()
        self.embed_dim, self.n_head, self.head_dim = embed_dim, n_head, embed_dim // n_head
        self.c_attn = nn.Linear(embed_dim, 3 * embed_dim)
        self.c_proj = nn.Linear(embed_dim, embed_dim)


def gpt2_qkv(host, x) -> tuple:
    e = x.size(-1)
    return tuple(split_heads(z, host.n_head) for z in host.c_attn(x).split(e, dim=2))


def static_run(host, x, chunks, t_max: int, offset=True, at_zero=False, written=True, shift=0, proj=True,
               order="qkv"):
    """Outputs per chunk and the buffers after the last: right, or one classic mistake (shift: written that many
    slots past T_past; proj=False: c_proj forgotten; order: c_attn's three parts taken as q, k, v in this order)."""
    b, _, e = x.shape
    h = host.n_head
    d = e // h
    k_buf, v_buf = x.new_zeros(b, h, t_max, d), x.new_zeros(b, h, t_max, d)
    outputs = []
    for lo, hi in chunks:
        n = hi - lo
        parts = dict(zip(order, (split_heads(z, h) for z in host.c_attn(x[:, lo:hi]).split(e, dim=2))))
        q, k, v = parts["q"], parts["k"], parts["v"]
        start = 0 if at_zero else lo + shift
        if written:
            k_buf[:, :, start:start + n], v_buf[:, :, start:start + n] = k, v
            keys, values = k_buf[:, :, :hi], v_buf[:, :, :hi]
        else:   # torch.cat onto the buffer's first T_past slots, which nothing ever wrote: the old keys read as 0
            keys, values = torch.cat([k_buf[:, :, :lo], k], 2), torch.cat([v_buf[:, :, :lo], v], 2)
        keep = torch.ones(n, hi, dtype=torch.bool).tril(diagonal=lo if offset else 0)
        y = merge_heads(attend(q, keys, values, keep))
        outputs.append(host.c_proj(y) if proj else y)
    return outputs, (k_buf, v_buf)


STATIC_BUGS = {"hint_static_offset": dict(at_zero=True), "hint_cache_mask_offset": dict(offset=False),
               "hint_static_not_written": dict(written=False), "hint_static_plus_one": dict(shift=1),
               "hint_static_no_proj": dict(proj=False),
               **{("hint_qkv_order", order): dict(order=order) for order in ("kqv", "qvk", "vkq", "kvq", "vqk")}}


def static_error(kind: str, message: str, call: str = "") -> str | None:
    """Scores over the whole buffer (T_max keys) against a mask for T_past + T_new: the buffer was not sliced.
    Batched matmul's sizes not alike: the values' buffer unsliced, or sliced on the heads' axis (which of the two
    errors depends on whether H ≤ T_past + T_new: one hint for both).
    view after transpose: the heads split in the wrong order (or merged with view)."""
    if "size of tensor a" in message and "must match" in message:
        return "hint_static_unsliced"
    if "Expected size for first two dimensions of batch2 tensor" in message:
        return "hint_static_unsliced"   # weights @ v_buf unsliced, or sliced on the heads' axis
    if "view size is not compatible" in message:
        return "hint_view_after_transpose"
    return length_error(kind, message)


def buffers_hint(k_buf, v_buf) -> str | None:
    """Buffers left all zero after a call that had tokens to write: both (joined with torch.cat, never written), or
    one (its name bound to a new tensor, k_buf = k, instead of written into)."""
    if not all(isinstance(z, torch.Tensor) for z in (k_buf, v_buf)):
        return None
    empty = [not z.any() for z in (k_buf, v_buf)]
    return "hint_static_not_written" if all(empty) else "hint_static_buffer_replaced" if any(empty) else None


def right_attend(host, x) -> tuple:
    """Lesson 6's attention with a cache, all of x at once: the output (B, T, E) of causal attention, and its keys and
    values (B, H, T, D), which the buffers must hold in their first T slots."""
    q, k, v = gpt2_qkv(host, x)
    n = x.size(1)
    return host.c_proj(merge_heads(attend(q, k, v, grid(n, n)[0] >= grid(n, n)[1]))), (k, v)


def rolling_bug(outputs: list, positions: list, run, tol: float = 1e-9):
    """The first of the rolling cache's mistakes (ROLLING_BUGS) whose outputs equal every output so far (a NaN as 0)
    and whose ring positions equal the learner's pos after each of those calls: its own evidence, as outputs alone
    can agree by chance (the ring written first and T_seen = pos.max() without + 1 both leave a first token with no
    key). run(**flags) -> (outputs, rings) of rolling_run."""
    for key, flags in ROLLING_BUGS.items():
        outs, rings = run(**flags)
        if all(isinstance(g, torch.Tensor) and close(torch.nan_to_num(g), o, tol) for g, o in zip(outputs, outs)) and \
                all(isinstance(p, torch.Tensor) and p.tolist() == ring[2].tolist()
                    for p, ring in zip(positions, rings)):
            return key
    return None
