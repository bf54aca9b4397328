"""Lesson 8's visible checks for multi-head latent attention (DeepSeek-V2/V3), exercises 7 and 8: the module, and its
absorbed form with a latent cache. Each check runs its exercise's probe on a seed of its own and judges it by the
exercise's procedure (attn_course.probes.lesson8_mla), with the right answer given here; the classic mistakes and the
watches of the learner's tensors that the probe and the procedure use are here too."""
from __future__ import annotations

import math
import re

import torch
import torch.nn as nn
from torch.overrides import TorchFunctionMode

from .engine import run
from .heads import merge_heads
from .lesson8_common import attend, cache_none_error, core_variants, grid, length_error
from .rope import rope


# --------------------------------------------------------------------------- exercise 7: MLA
MLA_DIMS = ("kv_lora_rank", "qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim")


def mla_layers(e: int, h: int, r: int, dn: int, dr: int, dv: int) -> dict:
    """DeepseekV3Attention's layers without q_lora_rank, in its order: name -> (in, out)."""
    return {"q_proj": (e, h * (dn + dr)), "kv_a_proj_with_mqa": (e, r + dr), "kv_b_proj": (r, h * (dn + dv)),
            "o_proj": (h * dv, e)}


class MLAHost(nn.Module):
    """MLA's weights (DeepSeek's names) and sizes, with no forward of its own: what exercise 8 is handed."""

    def __init__(self, embed_dim, n_head, kv_lora_rank, qk_nope_head_dim, qk_rope_head_dim, v_head_dim):
        super().__init__()
        self.n_head, self.kv_lora_rank = n_head, kv_lora_rank
        self.qk_nope_head_dim, self.qk_rope_head_dim, self.v_head_dim = qk_nope_head_dim, qk_rope_head_dim, v_head_dim
        layers = mla_layers(embed_dim, n_head, kv_lora_rank, qk_nope_head_dim, qk_rope_head_dim, v_head_dim)
        self.q_proj = nn.Linear(*layers["q_proj"], bias=False)
        self.kv_a_proj_with_mqa = nn.Linear(*layers["kv_a_proj_with_mqa"], bias=False)
        self.kv_a_layernorm = nn.RMSNorm(kv_lora_rank, eps=1e-6)
        self.kv_b_proj = nn.Linear(*layers["kv_b_proj"], bias=False)
        self.o_proj = nn.Linear(*layers["o_proj"], bias=False)


def mla_parts(m, x, positions, turn, norm=True, latent_first=True, q_nope_first=True, rotate=True, heads_view=False):
    """q_nope (B, H, T, dn), q_rot (B, H, T, dr), the normalised latent c (B, T, r) and the shared k_rot (B, T, dr).
    heads_view: the query's heads split with view(B, H, T, …) alone, without view(B, T, H, …).transpose(1, 2)."""
    b, n, _ = x.shape
    h, r, dn, dr = m.n_head, m.kv_lora_rank, m.qk_nope_head_dim, m.qk_rope_head_dim
    q = m.q_proj(x).view(b, h, n, dn + dr) if heads_view else m.q_proj(x).view(b, n, h, dn + dr).transpose(1, 2)
    q_nope, q_rot = q.split([dn, dr], -1) if q_nope_first else q.split([dr, dn], -1)[::-1]
    latent = m.kv_a_proj_with_mqa(x)
    c, k_rot = latent.split([r, dr], -1) if latent_first else latent.split([dr, r], -1)[::-1]
    if norm:
        c = m.kv_a_layernorm(c)
    if rotate:
        q_rot = turn(q_rot, q_rot, positions)[0]
        k_rot = turn(k_rot[:, None], k_rot[:, None], positions)[1][:, 0]
    return q_nope, q_rot, c, k_rot


def mla_qkv(m, x, turn, bug: str | None = None) -> tuple:
    """MLA's q, k (B, H, T, dn + dr) and v (B, H, T, dv) for x (B, T, E), RoPE at 0 … T−1. bug: a classic mistake's
    hint, or ("hint_mla_heads_view", "q", "kv" or "qkv"): those heads split with view(B, H, T, …) alone."""
    b, n, _ = x.shape
    h, dn, dr, dv = m.n_head, m.qk_nope_head_dim, m.qk_rope_head_dim, m.v_head_dim
    viewed = bug[1] if isinstance(bug, tuple) and bug[0] == "hint_mla_heads_view" else ""
    q_nope, q_rot, c, k_rot = mla_parts(m, x, torch.arange(n), turn, norm=bug != "hint_mla_norm",
                                        latent_first=bug != "hint_mla_latent_split",
                                        q_nope_first=bug != "hint_mla_q_split", heads_view=viewed.startswith("q"))
    kv = m.kv_b_proj(c)
    kv = kv.view(b, h, n, dn + dv) if "kv" in viewed else kv.view(b, n, h, dn + dv).transpose(1, 2)
    k_nope, v = kv.split([dn, dv], -1) if bug != "hint_mla_kv_split" else kv.split([dv, dn], -1)[::-1]
    return torch.cat([q_nope, q_rot], -1), torch.cat([k_nope, k_rot[:, None].expand(b, h, n, dr)], -1), v


def mla_run(m, x, turn, bug: str | None = None) -> torch.Tensor:
    """MLA's output for x (B, T, E), causal, RoPE at 0 … T−1: right, or one classic mistake."""
    n = x.size(1)
    dn, dr = m.qk_nope_head_dim, m.qk_rope_head_dim
    q, k, v = mla_qkv(m, x, turn, bug)
    keep = None if bug == "hint_mla_no_mask" else grid(n, n)[0] >= grid(n, n)[1]
    scale = 1 / math.sqrt(dn if bug == "hint_mla_scale" else dn + dr)
    return m.o_proj(merge_heads(attend(q, k, v, keep, scale=scale)))


MLA_BUGS = ("hint_mla_norm", "hint_mla_scale", "hint_mla_kv_split", "hint_mla_latent_split", "hint_mla_q_split",
            "hint_mla_no_mask", *(("hint_mla_heads_view", which) for which in ("q", "kv", "qkv")))


def mla_variants(m, x, turn) -> dict:
    out = {None: mla_run(m, x, turn)}
    for bug in MLA_BUGS:
        try:
            out[bug] = mla_run(m, x, turn, bug)
        except RuntimeError:   # a split that does not fit these sizes cannot be the learner's either
            pass
    q, k, v = mla_qkv(m, x, turn)
    n = x.size(1)
    keep = grid(n, n)[0] >= grid(n, n)[1]
    for key, y in core_variants(q, k, v, keep).items():
        out.setdefault(key, m.o_proj(y))
    dn = m.qk_nope_head_dim
    # k_R (B, T, d_R) expanded to (B, H, …) without k_R[:, None]: head h gets batch h's
    if x.size(0) == m.n_head > 1:
        shared = torch.cat([k[..., :dn], k[:, 0, :, dn:][None].expand(*k.shape[:-1], -1)], -1)
        out["hint_mla_rope_head_axis"] = m.o_proj(merge_heads(attend(q, shared, v, keep)))
    turned = lambda z: torch.cat([z[..., dn:], z[..., :dn]], -1)  # noqa: E731 - the rotated part first
    for which, (qq, kk) in (("q", (turned(q), k)), ("k", (q, turned(k)))):
        out[("hint_mla_cat_order", which)] = m.o_proj(merge_heads(attend(qq, kk, v, keep)))
    out["hint_mla_no_o_proj"] = merge_heads(attend(q, k, v, keep))   # (B, T, H·d_V): o_proj forgotten
    return out


def mla_error(kind: str, message: str, call: str = "") -> str | None:
    """kv_a_layernorm given a tensor whose last axis is not r: the latent split the other way round, or not split."""
    if "normalized_shape" in message:
        return "hint_mla_norm_input"
    sizes = re.search(r"Target sizes: \[([^\]]*)\]\.\s+Tensor sizes: \[([^\]]*)\]", message)
    if "expanded size" in message and sizes and [len(z.split(",")) for z in sizes.groups()] == [4, 3]:
        return "hint_mla_rope_head_axis"   # k_R (B, T, d_R) given to rope and expanded without its head axis
    return length_error(kind, message)


# An error of shapes inside mla_decode (a broadcast, a matmul's or a view's sizes): the absorbed form's shapes to
# compare with, not "transpose K", which is rarely the cause there.
SHAPE_ERRORS = ("must match", "Expected size", "cannot be multiplied", "is invalid for input of size")


def decode_error(kind: str, message: str, call: str = "") -> str | None:
    """mla_decode's errors: None unpacked on the first call, the latent split wrong; a broadcast between T_new and
    T_past + T_new on a call with a cache (the mask built with T_past = 0, or c or k_R not joined with the cache);
    any other error of shapes."""
    if cache_none_error(kind, message, call):
        return "hint_cache_none"
    found = mla_error(kind, message, call)
    if found:
        return found
    if "view size is not compatible" in message:
        return "hint_view_after_transpose"
    if ", cache," in call and "Sizes of tensors must match except in dimension" in message:
        return "hint_mla_cache_cat_dim"   # the latent cache joined on another axis than its time axis, dim=1
    if length_error(kind, message):
        return length_error(kind, message)
    if kind == "RuntimeError" and "except in dimension" not in message and any(s in message for s in SHAPE_ERRORS):
        cached = ", cache," in call and "size of tensor a" in message
        return "hint_mla_cache_span" if cached else "hint_mla_decode_shapes"
    return None


SHAPE_HINTS = ("hint_mla_cache_span", "hint_mla_decode_shapes")


class SpanWatch(TorchFunctionMode):
    """Watches a call of mla_decode with a cache, for how the learner's tensors relate to T_new and T_all = T_past +
    T_new: a bool tensor (T_all, T_new) is the mask built the other way round; c (width r) or k_R (width d_R) never
    spanning T_all tokens is the cache not joined (or joined on another axis); masks (T_new, T_new) alone, T_past
    taken as 0. Which error these make depends on the sizes (a broadcast when T_new ≥ 2; with T_new = 1 the mask
    broadcasts and a view or a matmul fails later), so the check and the grader name the cause from the relation, not
    from the error's text. Only tensors over the batch that are not the host's weights can span T_all: W_UK
    (H, d_C, r), a view of kv_b_proj's weight, has d_C rows, and d_C may equal T_all."""

    def __init__(self, host, batch: int, t_new: int, t_all: int):
        super().__init__()
        self.t_new, self.t_all, self.widths = t_new, t_all, (host.kv_lora_rank, host.qk_rope_head_dim)
        self.batch, self.weights = batch, {p.untyped_storage().data_ptr() for p in host.parameters()}
        self.transposed, self.spanned, self.masks = False, set(), set()

    def __torch_function__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        for x in out if isinstance(out, (tuple, list)) else (out,):
            if isinstance(x, torch.Tensor) and x.dim() >= 2:
                rows, cols = x.shape[-2:]
                if x.dtype == torch.bool and (rows, cols) == (self.t_all, self.t_new):
                    self.transposed = True
                elif x.dtype == torch.bool and rows == self.t_new:
                    self.masks.add(cols)
                elif x.is_floating_point() and rows == self.t_all and cols in self.widths and x.dim() >= 3 \
                        and x.size(0) == self.batch and x.untyped_storage().data_ptr() not in self.weights:
                    self.spanned.add(cols)
        return out

    def hint(self, kind: str, message: str, call: str = "") -> str | None:
        """The cause of a shape error the watched call raised, or None (another error: its text says more)."""
        if decode_error(kind, message, call) not in SHAPE_HINTS:
            return None
        if self.transposed:
            return "hint_mla_mask_transposed"
        if not set(self.widths) <= self.spanned:
            return "hint_mla_cache_not_joined"
        # A mask (T_new, T_new) and none over the cache: T_past taken as 0, so the positions restart at 0 too (with
        # T_new = 1 the mask broadcasts, and the grader meets the positions first, in the outputs).
        return "hint_mla_positions" if self.masks == {self.t_new} else None


def _turn(base: float):
    return lambda a, b_, p: rope(a, b_, p, base)


def right_mla(sizes, base: float) -> tuple:
    """The module the lesson describes (DeepSeek's layers and sizes) and its causal output for x, RoPE at base."""
    module = MLAHost(*sizes).double().eval()
    return module, lambda x: mla_run(module, x, _turn(base))


# --------------------------------------------------------------------------- exercise 8: MLA absorbed, a latent cache
def absorbed_run(m, x, chunks, turn, restart=False, swap=False, offset=True, swap_qk=False, new_first="",
                 renorm=False, nope_scale=False, heads_view=False) -> list:
    """What the absorbed form returns for each chunk (output, latent cache): W_UK taken into the query side, W_UV
    into the output side, keys and values never expanded. Right with the defaults, or one classic mistake
    (new_first: "c", "k" or "ck", the new latent or shared key joined before the cache's; renorm: the latent
    normalised again after the join, the cached part once more on every call; "joined": only when there is a cache;
    nope_scale: the scores divided by √d_C, the width of the part W_UK was taken from, not √(d_C + d_R))."""
    b, _, _ = x.shape
    h, r, dn, dr, dv = m.n_head, m.kv_lora_rank, m.qk_nope_head_dim, m.qk_rope_head_dim, m.v_head_dim
    w_uk, w_uv = m.kv_b_proj.weight.view(h, dn + dv, r).split([dn, dv], 1)        # (H, dn, r), (H, dv, r)
    if swap:
        w_uk, w_uv = w_uv, w_uk
    cache, results = None, []
    for lo, hi in chunks:
        n = hi - lo
        past = 0 if cache is None else cache[0].size(1)
        positions = torch.arange(n) if restart else torch.arange(past, past + n)
        q_nope, q_rot, c, k_rot = mla_parts(m, x[:, lo:hi], positions, turn, heads_view=heads_view)
        if swap_qk:   # rope's results taken the other way round: the shared key as the query, head 0's query cached
            q_rot, k_rot = k_rot[:, None], q_rot[:, 0]
        if cache is not None:
            c = torch.cat([c, cache[0]] if "c" in new_first else [cache[0], c], 1)
            k_rot = torch.cat([k_rot, cache[1]] if "k" in new_first else [cache[1], k_rot], 1)
        c = m.kv_a_layernorm(c) if renorm is True or (renorm and cache is not None) else c
        scores = (q_nope @ w_uk) @ c[:, None].transpose(-2, -1) + q_rot @ k_rot[:, None].transpose(-2, -1)
        keep = torch.ones(n, past + n, dtype=torch.bool).tril(diagonal=past if offset else 0)
        scale = math.sqrt(dn if nope_scale else dn + dr)
        weights = torch.softmax((scores / scale).masked_fill(~keep, float("-inf")), -1)
        y = ((weights @ c[:, None]) @ w_uv.transpose(-2, -1))                        # (B, H, n, dv)
        results.append((m.o_proj(merge_heads(y)), (c, k_rot)))
        cache = (c, k_rot)
    return results


ABSORBED_BUGS = {"hint_mla_positions": dict(restart=True), "hint_mla_absorb_swapped": dict(swap=True),
                 "hint_cache_mask_offset": dict(offset=False), "hint_rope_qk_swapped": dict(swap_qk=True),
                 **{("hint_mla_cache_order", part): dict(new_first=part) for part in ("ck", "c", "k")},
                 "hint_mla_norm_twice": dict(renorm=True), ("hint_mla_norm_twice", "joined"): dict(renorm="joined"),
                 "hint_mla_scale": dict(nope_scale=True), "hint_mla_heads_view": dict(heads_view=True)}


def latent_shape_hint(shape, b: int, n: int, width: int, r: int, dr: int, h: int):
    """A latent cache part of the wrong shape: per head (4 axes), or k_R with its batch axis 1 (the head axis added
    with k_R[None] or taken off with k_R[0], not at axis 1): a hint key and its fields, or None."""
    shape = tuple(shape)
    if len(shape) == 4 and shape[1] == 1 and width == dr:   # k_R[:, None] for rope, kept in the cache
        return "hint_mla_kR_head_axis", {"shape": shape}
    if len(shape) == 4:
        return "hint_mla_cache_expanded", {"r": r, "dr": dr, "h": h}
    if r != dr and shape == (b, n, dr if width == r else r):   # c where k_R goes, or k_R where c goes
        return "hint_mla_cache_parts_swapped", {}
    if b != 1 and shape == (1, n, width):
        return "hint_mla_head_axis", {}
    return None


class PerHeadWatch(TorchFunctionMode):
    """Sees every tensor a torch function returns while the learner's mla_decode runs, and notes one that holds
    keys or values over the whole cache: an axis of the cache's length T_all and either at least
    B · H · T_all · min(d_C, d_V) numbers (every head at once) or an axis of width d_C or d_V (one head's keys or
    values, as a loop over the heads makes them: as costly, a head at a time). The absorbed form never makes one;
    its tensors over the cache are the latent c (B, T_all, r), k_R (B, T_all, d_R), c[:, None] broadcast over the
    heads, and the scores (B, H, T_new, T_all); WATCH_SIZES keep d_C and d_V apart from every other size."""

    def __init__(self, t_all: int, at_least: int, widths: tuple = ()):
        super().__init__()
        self.t_all, self.at_least, self.widths, self.seen = t_all, at_least, set(widths), False

    def __torch_function__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        for x in out if isinstance(out, (tuple, list)) else (out,):
            if isinstance(x, torch.Tensor) and self.t_all in x.shape and (
                    x.numel() >= self.at_least or self.widths & set(x.shape)):
                self.seen = True
        return out


# E, H, r, d_C, d_R, d_V and the chunks: caches of 40 and 42 tokens, a length no other axis has, and r + d_R < d_C,
# so that per-head keys (B, H, T_all, d_C) outnumber the latent broadcast over the heads (B, H, T_all, r + d_R).
WATCH_SIZES = (43, 3, 3, 7, 2, 7)
WATCH_CHUNKS = ((0, 39), (39, 40), (40, 42))


def expands_heads(fn, turn, call=run) -> bool:
    """Whether fn (mla_decode) makes per-head keys or values over the cache on decoding steps after a long prefill
    (call: how the learner's code is run, run or a probe's rec.call). Weights from a seed of their own."""
    host = MLAHost(*WATCH_SIZES).double()
    gen = torch.Generator().manual_seed(95)
    with torch.no_grad():
        for p in host.parameters():
            p.copy_(torch.randn(p.shape, generator=gen, dtype=p.dtype) / math.sqrt(p.size(-1)) if p.dim() > 1
                    else 1 + 0.3 * torch.randn(p.shape, generator=gen, dtype=p.dtype))
    b, (e, h, _, dn, _, dv) = 2, WATCH_SIZES
    x = torch.randn(b, WATCH_CHUNKS[-1][1], e, generator=gen, dtype=torch.float64)
    cache, seen = None, False
    with torch.no_grad():
        for lo, hi in WATCH_CHUNKS:
            watch = PerHeadWatch(hi, b * h * hi * min(dn, dv), (dn, dv)) if cache is not None else None
            name = f"mla_decode(mla, x_new, {'None' if cache is None else 'cache'}, rope)"
            if watch is None:
                result = call(name, fn, host, x[:, lo:hi], cache, turn)
            else:
                with watch:
                    result = call(name, fn, host, x[:, lo:hi], cache, turn)
                seen = seen or watch.seen
            if not (isinstance(result, tuple) and len(result) == 2):
                return seen
            cache = result[1]
    return seen


def right_decode(host, x, base: float) -> tuple:
    """MLA's causal output for all of x at once, and its latent cache: the normalised latent c and the rotated k_R."""
    turn = _turn(base)
    with torch.no_grad():
        _, _, c, k_rot = mla_parts(host, x, torch.arange(x.size(1)), turn)
        return mla_run(host, x, turn), (c, k_rot)
