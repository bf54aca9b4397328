"""Lesson 3's classic mistakes, named from what the learner's code returned or raised: the mask functions' and the
module's. The exercises' procedures (attn_course.probes.lesson3) compare the learner's results with these, computed
on the same draws, in the kernel (the visible check) and in the grader alike."""
from __future__ import annotations

import math

import torch

from ..checks.engine import SIZE_MISMATCH, close, scale_variants
from ..checks.heads import merge_heads, split_heads
from ..checks.masks import tril
from ..findings import dtype_finding
from ..judging import matching_bug

MAX_LEN = 16   # the buffer the module's probe builds it with (its errors name it)
# √D written as a number: the demo's module (embed_dim=8, n_head=2) has D = 4; the probe never draws 4.
DEMO_D = 4


# --------------------------------------------------------------------------- the mask functions
def causal_mask_error(kind: str, message: str, call: str) -> str | None:
    """An error that names the device (causal_mask without a device= argument, a mask on another device): the
    device hint. Any other error is named by its own text."""
    return "hint_mask_device" if "device" in message else None


def apply_mask_error(kind: str, message: str, call: str) -> str | None:
    """`1 - keep` on a bool keep: PyTorch refuses to subtract from a bool tensor (the course inverts with ~)."""
    return "hint_bool_subtract" if "Subtraction, the `-` operator, with a bool tensor" in message else None


def padding_keep_error(kind: str, message: str, call: str) -> str | None:
    """padding_keep on the meta device (a GPU's stand-in): values read out of lengths (.tolist(), .item(), int())
    cannot be read there; any other error there is the positions made on another device than lengths'."""
    if "copy out of meta tensor" in message or "cannot be called on meta tensors" in message:
        return "hint_meta_values"
    return "hint_padding_device" if "meta" in call or "device" in message else None


def to_sdpa_error(kind: str, message: str, call: str) -> str | None:
    """`~` on a float mask is Python's TypeError: the additive mask was to come back unchanged."""
    return "hint_invert_float_mask" if kind == "TypeError" and "invert" in message else None


def causal_mask_variants(T: int) -> dict:
    """The right causal mask and the classic wrong ones."""
    ones = torch.ones(T, T, dtype=torch.bool)
    return {None: ones.tril(), "hint_upper_triangle": ones.triu(), "hint_inverted_mask": ~ones.tril(),
            "hint_mask_diagonal": ones.tril(diagonal=-1), ("hint_mask_diagonal", "future"): ones.tril(diagonal=1),
            "hint_mask_no_tril": ones}


def apply_mask_variants(scores, keep) -> dict:
    """apply_mask's right result and the classic wrong ones, for a (T, T) or a (B, 1, T, T) keep."""
    inf = float("-inf")
    out = {None: scores.masked_fill(~keep, inf), "hint_inverted_mask": scores.masked_fill(keep, inf),
           "hint_mask_multiplied": scores * keep, "hint_mask_not_applied": scores,
           ("hint_fill_not_inf", "-1e9"): scores.masked_fill(~keep, -1e9),
           ("hint_fill_not_inf", "finfo"): scores.masked_fill(~keep, torch.finfo(scores.dtype).min)}
    with torch.no_grad():
        out["hint_additive_nan"] = scores + (~keep) * inf
    # keep turned round (.T, .mT): the learner's causal mask may be right, the transpose is apply_mask's own
    out["hint_keep_transposed"] = scores.masked_fill(~keep.transpose(-2, -1), inf)
    return out


def padding_variants(lengths, T: int) -> dict:
    position = torch.arange(T, device=lengths.device)
    return {None: position < lengths[:, None], "hint_padding_off_by_one": position <= lengths[:, None],
            "hint_padding_short_by_one": position + 1 < lengths[:, None],   # arange(1, T + 1) < lengths
            "hint_padding_inverted": position >= lengths[:, None],
            ("hint_padding_inverted", ">"): position > lengths[:, None]}


def safe_softmax_variants(scores) -> dict:
    """The right weights, and -inf replaced by a large negative number: a row with every key masked
    then gets 1/T everywhere instead of zeros."""
    return {None: torch.softmax(scores, -1).nan_to_num(0.0),
            "hint_safe_softmax_uniform": torch.softmax(scores.clamp(min=-1e9), -1),
            ("hint_softmax_axis", (("axis", 0),)): torch.softmax(scores, 0).nan_to_num(0.0),
            ("hint_softmax_axis", (("axis", -2),)): torch.softmax(scores, -2).nan_to_num(0.0)}


def safe_softmax_bug(scores, got) -> str | tuple | None:
    """The classic mistake safe_softmax's result shows, or None."""
    if not isinstance(got, torch.Tensor) or got.shape != scores.shape:
        return None
    got = got.detach()
    dead = torch.isneginf(scores).all(-1)
    if torch.isnan(got[dead]).any():
        return "hint_nan_fully_masked"
    if dtype_finding("safe_softmax", got, scores.dtype):
        return "hint_keep_dtype"
    variants = safe_softmax_variants(scores)
    key = matching_bug(got, variants, 1e-9)
    if key:
        return key
    live = got[~dead]
    if not torch.isfinite(live).all() or (live == 0).all(-1).any():
        return "hint_safe_softmax_overflow"   # exp without each row's max first: inf / inf, 0 / 0
    if dead.any() and close(got[~dead], variants[None][~dead], 1e-9):
        return "hint_dead_rows_not_zero"   # nan_to_num(1.0), or another number, where every key is masked
    sums = live.sum(-1)   # rows that see a key must sum to 1
    if not close(sums, torch.ones_like(sums), 1e-3):
        return "hint_rows_not_normalised", {"lo": float(sums.min()), "hi": float(sums.max())}
    return None


# --------------------------------------------------------------------------- the module
def _qkv(module, x):
    return [split_heads(f(x), module.n_head) for f in (module.W_q, module.W_k, module.W_v)]


def weight_variants(module, x, lengths=None):
    """What module should compute, from its own weights (eval mode, no dropout): {hint: weights} of the right value
    (None) and the classic wrong ones, and the right output."""
    T, H, D = x.size(1), module.n_head, module.head_dim
    Q, K, V = _qkv(module, x)
    inf = float("-inf")
    pad = None if lengths is None else (torch.arange(T) < lengths[:, None])[:, None, None, :]

    def padded(causal):
        return causal if pad is None else causal & pad

    keep = padded(tril(T))
    raw = Q @ K.transpose(-2, -1)
    scaled = raw / math.sqrt(D)

    def weights_of(s, k=keep, fill=inf):
        return torch.softmax(s.masked_fill(~k, fill), -1).nan_to_num(0.0)
    weights = weights_of(scaled)
    variants = {
        None: weights,
        # The padding's own mistakes first: on small sizes one can equal a mistake of the causal mask, which the
        # case without padding (run first) names before these are looked at.
        **({} if pad is None else padding_variants_of(weights_of, scaled, lengths)),
        "hint_mask_after_softmax": torch.softmax(scaled, -1).masked_fill(~keep, 0.0),
        "hint_inverted_mask": weights_of(scaled, padded(~tril(T))),
        "hint_upper_triangle": weights_of(scaled, padded(tril(T).T)),
        "hint_mask_multiplied": torch.softmax(scaled * keep, -1),
        "hint_no_scale": weights_of(raw), "hint_scale_dk": weights_of(raw / D),
        ("hint_scale_head_dim", "E"): weights_of(raw / math.sqrt(module.embed_dim)),
        ("hint_scale_head_dim", "HD"): weights_of(raw / math.sqrt(H * D)),
        # apply_mask filling with a finite number: a fully masked row gets uniform weights, not zeros
        ("hint_fill_not_inf", "-1e9"): weights_of(scaled, fill=-1e9),
        ("hint_fill_not_inf", "finfo"): weights_of(scaled, fill=torch.finfo(scaled.dtype).min),
        "hint_additive_nan": torch.softmax(scaled + (~keep) * inf, -1).nan_to_num(0.0),
        # safe_softmax's own mistakes, seen through the module (a row of ones where every key is masked, the
        # softmax over the queries)
        "hint_dead_rows_not_zero": torch.softmax(scaled.masked_fill(~keep, inf), -1).nan_to_num(1.0),
        ("hint_softmax_axis", (("axis", -2),)): torch.softmax(scaled.masked_fill(~keep, inf), -2).nan_to_num(0.0),
    }
    variants.update({k: weights_of(v) for k, v in scale_variants(raw, D, {H, T}).items()})
    for key, diagonal in (("hint_mask_diagonal", -1), (("hint_mask_diagonal", "future"), 1)):
        variants[key] = weights_of(scaled, padded(torch.ones(T, T, dtype=torch.bool).tril(diagonal)))
    if pad is None:
        variants["hint_no_mask"] = torch.softmax(scaled, -1)
    # last, as another size may be 4 too (E, and √E is a cause of its own)
    variants.setdefault("hint_scale_as_number", weights_of(raw / math.sqrt(DEMO_D)))
    # A mistake that changes nothing on these inputs (a -1e9 fill where no row is fully masked) is not named here.
    variants = {k: v for k, v in variants.items() if k is None or not close(v, weights, 1e-12)}
    return variants, module.W_o(merge_heads(weights @ V))


def padding_variants_of(weights_of, scaled, lengths) -> dict:
    """The module's weights with the padding mask made or joined the classic wrong ways."""
    T = scaled.size(-1)
    position, causal = torch.arange(T), tril(T)

    def keys(kept):   # (B, T) keys kept, joined to the causal mask as the text does
        return weights_of(scaled, causal & kept[:, None, None, :])
    variants = {
        # [:, None, :, None]: the padded queries (rows) hidden instead of the padded keys (columns)
        "hint_padding_query_axis": weights_of(scaled, causal & (position < lengths[:, None])[:, None, :, None]),
        "hint_padding_or": weights_of(scaled, causal | (position < lengths[:, None])[:, None, None, :]),
        "hint_padding_off_by_one": keys(position <= lengths[:, None]),
        "hint_padding_short_by_one": keys(position + 1 < lengths[:, None]),
    }
    try:   # a (B, 1, T) padding mask: with B == H it broadcasts, batch b's padding on head b
        variants["hint_padding_broadcast"] = weights_of(scaled, causal & (position < lengths[:, None])[:, None, :])
    except RuntimeError:
        pass
    variants["hint_padding_ignored"] = weights_of(scaled, causal)
    return variants


def output_variants(module, x, lengths=None, sdpa: bool = False) -> dict:
    """The module's right output (eval, no dropout), from its own weights, and the classic wrong ones after the
    weights: the heads merged without the transpose; with sdpa, the SDPA call's own (the mask inverted or left
    out, a scale given that is not 1/√D)."""
    F = torch.nn.functional
    Bx, T, _ = x.shape
    H, D = module.n_head, module.head_dim
    Q, K, V = _qkv(module, x)
    causal = tril(T)
    keep = causal if lengths is None else causal & (torch.arange(T) < lengths[:, None])[:, None, None, :]

    def out(mask=keep, q=Q, k=K, v=V, **kw):
        return module.W_o(merge_heads(F.scaled_dot_product_attention(q, k, v, attn_mask=mask, **kw).nan_to_num(0.0)))
    heads = F.scaled_dot_product_attention(Q, K, V, attn_mask=keep).nan_to_num(0.0)
    variants = {None: out(), "hint_merge_without_transpose": module.W_o(heads.reshape(Bx, T, H * D))}
    if sdpa:
        variants.update({"hint_sdpa_mismatch": out(~keep), "hint_sdpa_no_mask": out(None),
                         "hint_sdpa_args": out(q=K, k=Q), ("hint_sdpa_args", "V"): out(k=V, v=K),
                         # dropout_p=1.0 in eval drops every weight: SDPA gives 0 everywhere (the same every call)
                         "hint_dropout_eval_sdpa": module.W_o(merge_heads(torch.zeros_like(heads)))})
        if lengths is not None:
            variants["hint_padding_ignored"] = out(causal)
        for key, n in ((("hint_scale_head_dim", "E"), module.embed_dim), (("hint_scale_head_dim", "HD"), H * D)):
            if n != D:
                variants[key] = out(scale=1 / math.sqrt(n))
    return variants


def sdpa_bug(module, x, lengths, got) -> str | None:
    """The classic mistake of the SDPA path that its output shows, or None."""
    if not isinstance(got, torch.Tensor):
        return None
    if got.shape[-1:] == (module.n_head * module.head_dim,) != (module.embed_dim,):
        return "hint_w_o_missing"
    with torch.no_grad():
        variants = output_variants(module, x, lengths, sdpa=True)
    key = next((k for k, v in variants.items() if k is not None and close(got, v, 1e-6)), None)
    return key[0] if isinstance(key, tuple) else key


def dropout_variants(module, x, seed: int) -> dict:
    """The module's output in training (dropout p, no padding) under torch.manual_seed(seed): dropout once on the
    weights (right), on the scores before the softmax (masked, or before the mask), or on weights @ V."""
    T, D = x.size(1), module.head_dim
    Q, K, V = _qkv(module, x)
    keep = tril(T)
    raw = Q @ K.transpose(-2, -1) / math.sqrt(D)
    masked = raw.masked_fill(~keep, float("-inf"))

    def drop(z):
        torch.manual_seed(seed)
        return torch.nn.functional.dropout(z, module.dropout.p, True)

    def out(heads):
        return module.W_o(merge_heads(heads))

    def soft(s):
        return torch.softmax(s, -1).nan_to_num(0.0)
    return {None: out(drop(soft(masked)) @ V), "hint_dropout_on_scores": out(soft(drop(masked)) @ V),
            ("hint_dropout_on_scores", "raw"): out(soft(drop(raw).masked_fill(~keep, float("-inf"))) @ V),
            "hint_dropout_after_values": out(drop(soft(masked) @ V))}


def module_error(kind: str, message: str, call: str):
    """An error the module raised, by which call raised it (the probe names its calls so)."""
    if "max_len=" in call and kind in ("RuntimeError", "IndexError"):
        return "hint_causal_max_len"       # built with a max_len above 32, at T > 32: a buffer not sized by it
    if "max_len" in call and kind in ("RuntimeError", "IndexError"):
        return "hint_causal_full_length"   # only at T == max_len: the buffer sliced off its corner, or too small
    if "use_sdpa=True" in call and "mat1 and mat2" in message:
        return "hint_sdpa_merge"           # W_o on SDPA's (B, H, T, D) output, the heads not merged
    if "same dtype" in message or "expected scalar type" in message:
        return "hint_dtype_mixed"          # a step that changed the dtype (apply_mask's scores.float())
    if key := apply_mask_error(kind, message, call) or padding_error(kind, message, call):
        return key
    sizes = SIZE_MISMATCH.search(message)
    if sizes and str(MAX_LEN) in sizes.groups():   # the (max_len, max_len) buffer met (T, T) scores whole
        other = int(sizes[1]) if sizes[2] == str(MAX_LEN) else int(sizes[2])
        return "hint_causal_slice", {"T": other, "max_len": MAX_LEN}
    return None


def padding_error(kind: str, message: str, call: str) -> str | None:
    """An error of forward that the padding explains (call: which call raised; with lengths, its name says so).
    A padding mask that does not broadcast over the heads ((B, 1, T) instead of (B, 1, 1, T)) fails where it meets
    the (B, H, T, T) scores: not a transposed K. lengths indexed as if it were a mask, or None used when forward is
    called without it."""
    if "lengths" in call:
        if "doesn't match the broadcast shape" in message:
            return "hint_inplace_and_buffer"   # keep &= padding: in place on the (T, T) slice of the buffer
        sizes = SIZE_MISMATCH.search(message)
        if sizes and str(MAX_LEN) in sizes.groups():
            return "hint_padding_max_len"      # padding_keep(lengths, max_len): (B, max_len) against (T, T)
        if "must match" in message:
            return "hint_padding_broadcast"
        if kind == "IndexError" and "too many indices for tensor of dimension 1" in message:
            return "hint_lengths_not_mask"
        return None
    if kind in ("AttributeError", "TypeError") and "'NoneType' object" in message:
        return "hint_lengths_none"
    return None
