"""Lesson 3's visible checks: causal and padding masks, the two mask conventions, NaN rows, the module."""
from __future__ import annotations

import math

import torch

from ..findings import dtype_finding
from ..messages import t
from ..validate import CheckFailed
from .engine import (
    NanRowsSDPA, SIZE_MISMATCH, also_checks, blames_earlier, close, diagnose, expect_dropout_rules,
    expect_returned_pair, expect_shape, inputs, max_error, named, passed, run, run_forward, scale_variants,
)
from .heads import merge_heads, split_heads
from .invariants import expect_cases, expect_dtype, expect_module_grads, reads_globals
from .masks import tril

# Sizes all different: batch, query rows, sequence, embedding, heads, head width.
B, T_Q, T, E, H, D = 2, 3, 5, 7, 3, 4
CHECK_D = D
LESSON = 3
# The module's buffer size, in this check and in the grader's probe alike (their errors name it).
MAX_LEN = 16

def _count_differs(name: str, got, want) -> str:
    """Masks and masked scores hold -inf, where a difference is NaN: say how many places differ instead."""
    if not (isinstance(got, torch.Tensor) and got.shape == want.shape):
        return t("mask_differs", what=name, n=want.numel(), total=want.numel())
    return t("mask_differs", what=name, n=int((got != want).sum()), total=want.numel())


def _probe():
    """The grader's probes, whose cases the checks run on their own seeds (_draws)."""
    from ..probes import lesson3   # here: the probes' package imports the checks
    return lesson3


def _draws(seed: int, name: str):
    from ..probes.draws import Draws
    return Draws(seed, name)


@reads_globals(LESSON)
def check_causal_mask(fn) -> None:
    name = "causal_mask"
    # This check's T, then the lengths the grader tries (its draw, on this check's seed).
    for size in (T, *_probe().causal_sizes(_draws(111, "check.causal_mask"))):
        got = run(name, fn, size)
        expect_shape(got, (size, size), ("T", "T"), name)
        if got.dtype != torch.bool:
            raise CheckFailed(t("hint_mask_not_bool", dtype=got.dtype))
        want = tril(size)
        if not torch.equal(got, want):
            hint = next((key for key, value in causal_mask_variants(size).items() if key and torch.equal(got, value)),
                        None)
            hint = hint[0] if isinstance(hint, tuple) else hint
            raise CheckFailed(_count_differs(name, got, want), t(hint) if hint else None)
    # The meta device stands in for a GPU: a mask made without device= stays on the CPU.
    meta = run(name, fn, T, torch.device("meta"), on_error=causal_mask_error)
    if not isinstance(meta, torch.Tensor) or meta.device.type != "meta":
        raise CheckFailed(t("hint_mask_device"))
    passed(name)


def causal_mask_error(kind: str, message: str, call: str) -> str | None:
    """An error that names the device (causal_mask without a device= argument, a mask on another device): the
    device hint. Any other error is named by its own text (the grader's judge takes this function too)."""
    return "hint_mask_device" if "device" in message else None


def causal_mask_variants(T: int) -> dict:
    """The right causal mask and the classic wrong ones (the grader names them from the same table)."""
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


def apply_mask_error(kind: str, message: str, call: str) -> str | None:
    """`1 - keep` on a bool keep: PyTorch refuses to subtract from a bool tensor (the course inverts with ~)."""
    return "hint_bool_subtract" if "Subtraction, the `-` operator, with a bool tensor" in message else None


def apply_mask_bug(scores, keep, got) -> str | tuple | None:
    """The classic mistake apply_mask's result shows, or None (the grader names it from the same rules)."""
    if isinstance(got, torch.Tensor) and got.dtype != scores.dtype:
        return "hint_dtype_changed", {"got": str(got.dtype), "want": str(scores.dtype)}
    return name_masked(got, apply_mask_variants(scores, keep))


def name_masked(got, variants) -> str | None:
    """The hint of the variant got equals (NaN where NaN), or None."""
    for key, value in variants.items():
        if key is not None and isinstance(got, torch.Tensor) and got.shape == value.shape \
                and torch.equal(got.isnan(), value.isnan()) and torch.equal(got.nan_to_num(), value.nan_to_num()):
            return key[0] if isinstance(key, tuple) else key
    return None


@reads_globals(LESSON)
def check_apply_mask(fn) -> None:
    name = "apply_mask"
    (scores,) = inputs((B, H, T, T), seed=13)
    g = torch.Generator().manual_seed(16)
    # Both forms the text allows: a causal (T, T) keep, and a (B, 1, T, T) keep (causal and padding, per sequence);
    # then the grader's case on this check's seed (sizes the notebook binds nowhere).
    cases = [(scores, tril(T)), (scores, tril(T) & (torch.rand(B, 1, 1, T, generator=g) > 0.3)),
             _probe().mask_scores(_draws(112, f"check.{name}"))]
    for scores, keep in cases:
        got = run(name, fn, scores.clone(), keep, on_error=apply_mask_error)
        if isinstance(got, torch.Tensor) and tuple(got.shape) != tuple(scores.shape) and keep.dim() == 4:
            raise CheckFailed(t("wrong_ndim", what=name, want=4, layout="(B, H, T, T)", got=got.dim(),
                                shape=tuple(got.shape)), t("hint_keep_as_given"))
        expect_shape(got, tuple(scores.shape), ("B", "H", "T", "T"), name)
        want = apply_mask_variants(scores, keep)[None]
        if not torch.equal(got, want):
            hint = apply_mask_bug(scores, keep, got)
            raise CheckFailed(_count_differs(name, got, want), _text(hint))
    passed(name)


def _text(hint) -> str | None:
    """A hint key, or (key, fields), as text."""
    if isinstance(hint, tuple):
        return t(hint[0], **hint[1])
    return t(hint) if hint else None


@reads_globals(LESSON)
def check_padding_keep(fn) -> None:
    name = "padding_keep"
    lengths = torch.tensor([5, 2, 0])
    # This check's lengths, then the grader's case on this check's seed.
    for lens, size in ((lengths, 6), _probe().padding_inputs(_draws(113, f"check.{name}"))):
        got = run(name, fn, lens, size)
        expect_shape(got, (lens.size(0), size), ("B", "T"), name)
        if got.dtype != torch.bool:
            raise CheckFailed(t("hint_mask_not_bool", dtype=got.dtype))
        variants = padding_variants(lens, size)
        want = variants[None]
        if not torch.equal(got, want):
            hint = next((key for key, value in variants.items() if key and torch.equal(got, value)), None)
            raise CheckFailed(_count_differs(name, got, want), t(hint[0] if isinstance(hint, tuple) else hint)
                              if hint else None)
    meta = run(name, fn, lengths.to("meta"), 6, on_error=padding_keep_error)
    if meta.device.type != "meta":
        raise CheckFailed(t("hint_padding_device"))
    passed(name)


def padding_keep_error(kind: str, message: str, call: str) -> str | None:
    """padding_keep on the meta device (a GPU's stand-in): values read out of lengths (.tolist(), .item(), int())
    cannot be read there; any other error there is the positions made on another device than lengths'."""
    if "copy out of meta tensor" in message or "cannot be called on meta tensors" in message:
        return "hint_meta_values"
    return "hint_padding_device" if "meta" in call or "device" in message else None


def to_sdpa_error(kind: str, message: str, call: str) -> str | None:
    """`~` on a float mask is Python's TypeError: the additive mask was to come back unchanged."""
    return "hint_invert_float_mask" if kind == "TypeError" and "invert" in message else None


def padding_variants(lengths, T: int) -> dict:
    position = torch.arange(T, device=lengths.device)
    return {None: position < lengths[:, None], "hint_padding_off_by_one": position <= lengths[:, None],
            "hint_padding_short_by_one": position + 1 < lengths[:, None],   # arange(1, T + 1) < lengths
            "hint_padding_inverted": position >= lengths[:, None],
            ("hint_padding_inverted", ">"): position > lengths[:, None]}


@reads_globals(LESSON)
def check_mha_mask_to_sdpa(fn) -> None:
    name = "mha_mask_to_sdpa"
    hidden = ~tril(T)  # nn.MultiheadAttention: True = do not attend
    additive = torch.zeros(T, T, dtype=torch.float64).masked_fill(hidden, float("-inf"))
    # This check's masks, then the grader's case on this check's seed.
    for hidden, additive in ((hidden, additive), _probe().mha_masks(_draws(115, f"check.{name}"))):
        _expect_to_sdpa(name, fn, hidden, additive)
    passed(name)


def _expect_to_sdpa(name, fn, hidden, additive) -> None:
    # The additive (float) mask first, as the grader's probe does: a `~` that reaches it raises, and that is
    # the mistake to name (a condition turned round also leaves the bool mask as it was).
    got = run(name, fn, additive.clone(), on_error=to_sdpa_error)
    if not (isinstance(got, torch.Tensor) and got.dtype == additive.dtype and torch.equal(got, additive)):
        raise CheckFailed(_count_differs(name, got, additive), t("hint_additive_changed"))
    # A copy: an in-place ~ (logical_not_) returns the right mask, and the text asks for no more (as apply_mask's
    # masked_fill_ may change the scores); the grader's probe gives the learner's code its own copy too.
    got = run(name, fn, hidden.clone(), on_error=to_sdpa_error)
    expect_shape(got, tuple(hidden.shape), ("T", "T"), name)
    if got.dtype != torch.bool:
        raise CheckFailed(t("hint_mask_not_bool", dtype=got.dtype))
    if not torch.equal(got, ~hidden):
        raise CheckFailed(_count_differs(name, got, ~hidden),
                          t("hint_same_convention") if torch.equal(got, hidden) else None)


@reads_globals(LESSON)
def check_safe_softmax(fn) -> None:
    name = "safe_softmax"
    (scores,) = inputs((B, T_Q, T), seed=14)
    scores = scores.masked_fill(~torch.ones(T_Q, T, dtype=torch.bool).tril(), float("-inf"))
    scores[1, 0] = float("-inf")  # a row with every key masked
    got = run(name, fn, scores)
    expect_shape(got, tuple(scores.shape), ("B", "T_q", "T_k"), name)
    if torch.isnan(got).any():
        raise CheckFailed(t("has_nan", what=name), t("hint_nan_fully_masked"))
    expect_dtype(name, got, scores.dtype)
    right = safe_softmax_variants(scores)[None]
    if not close(got, right, 1e-9):
        hint = safe_softmax_bug(scores, got)
        sums = got.sum(-1)[~torch.isneginf(scores).all(-1)]
        if hint is None and not close(sums, torch.ones_like(sums), 1e-3):   # rows that see a key must sum to 1
            hint = "hint_rows_not_normalised", {"lo": float(sums.min()), "hi": float(sums.max())}
        raise CheckFailed(t("values_differ", what=t("what_weights"), err=max_error(got, right)), _text(hint))
    # The grader's cases on this check's seed: rows of large scores, float32, the gradient.
    expect_cases(name, fn, lambda s: safe_softmax_variants(s)[None], _probe().softmax_scores, 114, ["scores"],
                 name_bug=lambda args, got: safe_softmax_bug(args[0].detach(), got))
    passed(name)


def safe_softmax_bug(scores, got) -> str | tuple | None:
    """The classic mistake safe_softmax's result shows (the grader names it from the same rules), or None."""
    if not isinstance(got, torch.Tensor) or got.shape != scores.shape:
        return None
    got = got.detach()
    dead = torch.isneginf(scores).all(-1)
    if torch.isnan(got[dead]).any():
        return "hint_nan_fully_masked"
    if dtype_finding("safe_softmax", got, scores.dtype):
        return "hint_keep_dtype"
    for key, value in safe_softmax_variants(scores).items():
        if key is not None and close(got, value, 1e-9):
            return (key[0], dict(key[1])) if isinstance(key, tuple) else key
    live = got[~dead]
    if not torch.isfinite(live).all() or (live == 0).all(-1).any():
        return "hint_safe_softmax_overflow"   # exp without each row's max first: inf / inf, 0 / 0
    dead = torch.isneginf(scores).all(-1)
    right = safe_softmax_variants(scores)[None]
    if dead.any() and close(got[~dead], right[~dead], 1e-9):
        return "hint_dead_rows_not_zero"   # nan_to_num(1.0), or another number, where every key is masked
    return None


def safe_softmax_variants(scores) -> dict:
    """The right weights, and -inf replaced by a large negative number: a row with every key masked
    then gets 1/T everywhere instead of zeros."""
    return {None: torch.softmax(scores, -1).nan_to_num(0.0),
            "hint_safe_softmax_uniform": torch.softmax(scores.clamp(min=-1e9), -1),
            ("hint_softmax_axis", (("axis", 0),)): torch.softmax(scores, 0).nan_to_num(0.0),
            ("hint_softmax_axis", (("axis", -2),)): torch.softmax(scores, -2).nan_to_num(0.0)}


def causal_reference(module, x, lengths=None):
    """What module should compute, from its own weights (eval mode, no dropout): the weights' right value and
    the classic wrong ones, and the right output."""
    Bx, T, _ = x.shape
    H, D = module.n_head, module.head_dim
    Q, K, V = (split_heads(f(x), H) for f in (module.W_q, module.W_k, module.W_v))
    inf = float("-inf")
    pad = None if lengths is None else (torch.arange(T) < lengths[:, None])
    keep = tril(T) if pad is None else tril(T) & pad[:, None, None, :]
    raw = Q @ K.transpose(-2, -1)
    scaled = raw / math.sqrt(D)

    def weights_of(s, k=keep, fill=inf):
        return torch.softmax(s.masked_fill(~k, fill), -1).nan_to_num(0.0)
    weights = weights_of(scaled)
    variants = {
        None: weights,
        # The padding's own mistakes first: on small sizes one can equal a mistake of the causal mask, which the
        # case without padding (run first) names before these are looked at.
        **({} if pad is None else padding_variants_of(weights_of, scaled, pad, lengths)),
        "hint_mask_after_softmax": torch.softmax(scaled, -1).masked_fill(~keep, 0.0),
        "hint_inverted_mask": weights_of(scaled, ~keep if pad is None else ~tril(T) & pad[:, None, None, :]),
        "hint_upper_triangle": weights_of(scaled, keep.transpose(-2, -1) if pad is None else
                                          tril(T).T & pad[:, None, None, :]),
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
        shifted = torch.ones(T, T, dtype=torch.bool).tril(diagonal)
        variants[key] = weights_of(scaled, shifted if pad is None else shifted & pad[:, None, None, :])
    if pad is None:
        variants["hint_no_mask"] = torch.softmax(scaled, -1)
    # √D written as a number that fits this check's modules (D = 4): right here, wrong for any other width; last, as
    # another size may be 4 too (E, and √E is a cause of its own)
    variants.setdefault("hint_scale_as_number", weights_of(raw / math.sqrt(CHECK_D)))
    # A mistake that changes nothing on these inputs (a -1e9 fill where no row is fully masked) is not named here.
    variants = {k: v for k, v in variants.items() if k is None or not close(v, weights, 1e-12)}
    return variants, module.W_o(merge_heads(weights @ V))


def output_variants(module, x, lengths=None, sdpa: bool = False) -> dict:
    """The module's right output (eval, no dropout), from its own weights, and the classic wrong ones after the
    weights: the heads merged without the transpose; with sdpa, the SDPA call's own (the mask inverted or left
    out, a scale given that is not 1/√D)."""
    F = torch.nn.functional
    Bx, T, _ = x.shape
    H, D = module.n_head, module.head_dim
    Q, K, V = (split_heads(f(x), H) for f in (module.W_q, module.W_k, module.W_v))
    causal = tril(T)
    keep = causal if lengths is None else causal & (torch.arange(T) < lengths[:, None])[:, None, None, :]

    def attend(mask=keep, q=Q, k=K, v=V, **kw):
        return F.scaled_dot_product_attention(q, k, v, attn_mask=mask, **kw).nan_to_num(0.0)
    heads = attend()
    out = {None: module.W_o(merge_heads(heads)), "hint_merge_without_transpose": module.W_o(heads.reshape(Bx, T, H * D))}
    if sdpa:
        out["hint_sdpa_mismatch"] = module.W_o(merge_heads(attend(~keep)))
        out["hint_sdpa_no_mask"] = module.W_o(merge_heads(attend(None)))
        out["hint_sdpa_args"] = module.W_o(merge_heads(attend(q=K, k=Q)))
        out[("hint_sdpa_args", "V")] = module.W_o(merge_heads(attend(k=V, v=K)))
        # dropout_p=1.0 in eval drops every weight: SDPA gives 0 everywhere (the same every call)
        out["hint_dropout_eval_sdpa"] = module.W_o(merge_heads(torch.zeros_like(heads)))
        if lengths is not None:
            out["hint_padding_ignored"] = module.W_o(merge_heads(attend(causal)))
        for key, n in ((("hint_scale_head_dim", "E"), module.embed_dim), (("hint_scale_head_dim", "HD"), H * D)):
            if n != D:
                out[key] = module.W_o(merge_heads(attend(scale=1 / math.sqrt(n))))
    return out


def sdpa_bug(module, x, lengths, got) -> str | None:
    """The classic mistake of the SDPA path that its output shows, or None (the grader names it alike)."""
    if not isinstance(got, torch.Tensor):
        return None
    if got.shape[-1:] == (module.n_head * module.head_dim,) != (module.embed_dim,):
        return "hint_w_o_missing"
    with torch.no_grad():
        variants = output_variants(module, x, lengths, sdpa=True)
    key = next((k for k, v in variants.items() if k is not None and close(got, v, 1e-6)), None)
    return key[0] if isinstance(key, tuple) else key


def module_error(kind: str, message: str, call: str) -> str | None:
    """An error of forward, by which call raised it (the grader names the probe's calls alike)."""
    if "max_len=" in call and kind in ("RuntimeError", "IndexError"):
        return "hint_causal_max_len"       # built with a max_len above 32, at T > 32: a buffer not sized by it
    if "max_len" in call and kind in ("RuntimeError", "IndexError"):
        return "hint_causal_full_length"   # only at T == max_len: the buffer sliced off its corner, or too small
    if "use_sdpa=True" in call and "mat1 and mat2" in message:
        return "hint_sdpa_merge"           # W_o on SDPA's (B, H, T, D) output, the heads not merged
    if "same dtype" in message or "expected scalar type" in message:
        return "hint_dtype_mixed"          # a step that changed the dtype (apply_mask's scores.float())
    return apply_mask_error(kind, message, call) or padding_error(kind, message, call)


def padding_variants_of(weights_of, scaled, pad, lengths) -> dict:
    """The module's weights with the padding mask made or joined the classic wrong ways."""
    T = scaled.size(-1)
    position = torch.arange(T)
    variants = {
        # [:, None, :, None]: the padded queries (rows) hidden instead of the padded keys (columns)
        "hint_padding_query_axis": weights_of(scaled, tril(T) & pad[:, None, :, None]),
        "hint_padding_or": weights_of(scaled, tril(T) | pad[:, None, None, :]),
        "hint_padding_off_by_one": weights_of(scaled, tril(T) & (position <= lengths[:, None])[:, None, None, :]),
        "hint_padding_short_by_one": weights_of(scaled, tril(T) & (position + 1 < lengths[:, None])[:, None, None, :]),
    }
    try:   # a (B, 1, T) padding mask: with B == H it broadcasts, batch b's padding on head b
        variants["hint_padding_broadcast"] = weights_of(scaled, tril(T) & pad[:, None, :])
    except RuntimeError:
        pass
    variants["hint_padding_ignored"] = weights_of(scaled, tril(T))
    return variants


def dropout_variants(module, x, seed: int) -> dict:
    """The module's output in training (dropout p, no padding) under torch.manual_seed(seed): dropout once on the
    weights (right), on the scores before the softmax (masked, or before the mask), or on weights @ V."""
    T, D = x.size(1), module.head_dim
    Q, K, V = (split_heads(f(x), module.n_head) for f in (module.W_q, module.W_k, module.W_v))
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


def _expect_not_persistent(module) -> None:
    if "causal" in module.state_dict():
        raise named("hint_buffer_persistent")


def _expect_sdpa_without_nan(name, module, x, lengths) -> None:
    """Some SDPA backends (CUDA's, torch before 2.5 on the CPU) give NaN where every key is masked: the text asks
    for nan_to_num on SDPA's output, so the module must not return NaN even there."""
    with torch.no_grad(), NanRowsSDPA():
        y = run(f"{name}.forward(use_sdpa=True)", module, x, lengths, True)[0]
    with torch.no_grad():
        want = run(f"{name}.forward(use_sdpa=True)", module, x, lengths, True)[0]
    # The NaN rows must become what this CPU's SDPA gives there (0 before W_o), not NaN nor another number: the
    # module's own SDPA output, not its masked path's (a mistake there is no mistake of the SDPA path).
    if isinstance(y, torch.Tensor) and (torch.isnan(y).any() or not close(y, want, 1e-6)):
        raise named("hint_sdpa_nan_rows")


def _expect_mask_on_device(name, module, x) -> None:
    import copy
    try:
        meta = copy.deepcopy(module).to("meta")
        meta(x.to("meta"))
    except RuntimeError as error:
        if "device" in str(error):
            raise CheckFailed(t("raised", name=f"{name}.forward", error=error), t("hint_mask_device")) from None
        raise


def _expect_dropout(name, cls, module, x) -> None:
    """Dropout's rules, against the learner's own output without dropout (so a wrong mask is not taken for a
    dropout mistake); where the dropout went, only once that output is right."""
    noisy = run(name, cls, E, H, D, 0.5, 16).double()
    noisy.load_state_dict(module.state_dict(), strict=False)
    forward = lambda m, use_sdpa: expect_returned_pair(run(f"{name}.forward", m, x, None, use_sdpa), f"{name}.forward")  # noqa: E731
    with torch.no_grad():
        own, own_weights = forward(module, False)
        own_sdpa = forward(module, True)[0]   # SDPA in eval is compared with itself: not with the masked path
        right = close(own, causal_reference(noisy, x)[1], 1e-9)
    sums = own_weights.sum(-1) if isinstance(own_weights, torch.Tensor) else None
    if sums is None or not close(sums, torch.ones_like(sums), 1e-6) or \
            not (isinstance(own, torch.Tensor) and own.shape == x.shape):
        return   # weights that do not sum to 1, or an output not (B, T, E), even without dropout: the mistake is elsewhere
    expect_dropout_rules(noisy, forward, own, layer="W_o", want_sdpa=own_sdpa,
                         placements=(lambda m: dropout_variants(m, x, 0)) if right else None)


def _expect_max_len(name, cls) -> None:
    """The grader's case on this check's seed (probes.lesson3.max_len_sizes): built with a max_len above the
    default 32, run at a T above 32. The text sizes the causal buffer by max_len (causal_mask(max_len))."""
    probe = _probe()
    max_len, T_long = probe.max_len_sizes(_draws(119, f"check.{name}"))
    module = run(f"{name}(…, max_len={max_len})", cls, E, H, D, 0.0, max_len, on_error=module_error)
    shape = probe.buffer_shape(module)
    if shape is not None and shape != [max_len, max_len]:
        raise CheckFailed(t("causal_max_len_buffer", max_len=max_len, got=tuple(shape)), t("hint_causal_max_len"))
    module = module.double().eval()
    (x,) = inputs((1, T_long, E), seed=19)
    with torch.no_grad():
        want = causal_reference(module, x)[1]
        for call, use_sdpa in zip(probe.max_len_calls(name, max_len, T_long), (False, True)):
            y = expect_returned_pair(run(call, module, x, None, use_sdpa, on_error=module_error), f"{name}.forward")[0]
            if not (isinstance(y, torch.Tensor) and close(y, want, 1e-6)):
                raise CheckFailed(t("values_differ", what=call, err=max_error(y, want)
                                    if isinstance(y, torch.Tensor) else float("inf")), t("hint_causal_max_len"))


def right_module(module, x):
    """The module's right (output, weights), from its own weights (eval, no padding)."""
    variants, y = causal_reference(module, x)
    return y, variants[None]


@reads_globals(LESSON)
@blames_earlier(causal_mask=(1, check_causal_mask), apply_mask=(2, check_apply_mask),
                padding_keep=(4, check_padding_keep), safe_softmax=(5, check_safe_softmax))
def check_causal_module(cls) -> None:
    name = "CausalSelfAttention"
    max_len = MAX_LEN
    module = run(name, cls, E, H, D, 0.0, max_len)
    buffers = dict(module.named_buffers())
    if "causal" not in buffers:
        raise CheckFailed(t("hint_buffer_missing"))
    module = module.double().eval()
    (x,) = inputs((B + 1, T, E), seed=15)
    lengths = torch.tensor([T, 3, 0])  # the last sequence is all padding: every key is masked
    # Each of these compares what the others do not depend on: when the weights are wrong, they still say
    # whether dropout, the SDPA path's NaN rows, the buffer or the device are wrong too.
    others = (lambda: _expect_not_persistent(module), lambda: _expect_dropout(name, cls, module, x),
              lambda: _expect_sdpa_without_nan(name, module, x, lengths),
              lambda: _expect_mask_on_device(name, module, x))
    with also_checks(*others), torch.no_grad():
        for lens in (None, lengths):
            label = f"{name}.forward" if lens is None else f"{name}.forward(x, lengths)"
            # With lengths, a broadcast against max_len is the padding mask's (the buffer met it without them).
            y, weights = expect_returned_pair(run_forward(label, module, x, lens, max_len=max_len, on_error=module_error)
                                              if lens is None else run(label, module, x, lens, on_error=module_error),
                                              f"{name}.forward", x.shape)
            expect_shape(weights, (B + 1, H, T, T), ("B", "H", "T", "T"), t("what_weights"))
            if torch.isnan(weights).any() or torch.isnan(y).any():
                raise CheckFailed(t("has_nan", what=f"{name}.forward"), t("hint_nan_fully_masked"))
            variants, want_y = causal_reference(module, x, lens)
            diagnose(weights, variants, "what_weights")
            expect_shape(y, (B + 1, T, E), ("B", "T", "E"), t("what_output"),
                         t("hint_w_o_missing") if isinstance(y, torch.Tensor) and y.shape[-1:] == (H * D,) else None)
            diagnose(y, {**output_variants(module, x, lens), None: want_y}, "what_output")
            y_sdpa = run(label + "(use_sdpa=True)", module, x, lens, True, on_error=module_error)[0]
            if not isinstance(y_sdpa, torch.Tensor):
                raise CheckFailed(t("returned_not_tensor", name=label + "(use_sdpa=True)", kind=type(y_sdpa).__name__))
            if not close(y_sdpa, want_y, 1e-6):
                raise CheckFailed(t("values_differ", what="use_sdpa=True", err=max_error(y_sdpa, want_y)),
                                  _text(sdpa_bug(module, x, lens, y_sdpa)))
        # The text's rule T ≤ max_len includes T == max_len: a slice off the buffer's corner fails only there.
        (x_full,) = inputs((B, max_len, E), seed=17)
        want_full = causal_reference(module, x_full)[1]
        for use_sdpa in (False, True):
            call = f"{name}.forward(x{', use_sdpa=True' if use_sdpa else ''})  # T = max_len = {max_len}"
            y_full = expect_returned_pair(run(call, module, x_full, None, use_sdpa, on_error=module_error),
                                          f"{name}.forward")[0]
            if not (isinstance(y_full, torch.Tensor) and close(y_full, want_full, 1e-6)):
                raise CheckFailed(t("values_differ", what=call, err=max_error(y_full, want_full)
                                    if isinstance(y_full, torch.Tensor) else float("inf")),
                                  t("hint_causal_full_length", max_len=max_len))
        # Another head width (the grader draws its own): a size written as a number that fits D = 4 shows here.
        other = run(name, cls, E, H, D + 1, 0.0, max_len).double().eval()
        label = f"{name}({E}, {H}, head_dim={D + 1}).forward"
        y, weights = expect_returned_pair(run(label, other, x, on_error=module_error), label, x.shape)
        variants, want_y = causal_reference(other, x)
        diagnose(weights, variants, "what_weights")
        diagnose(y, {**output_variants(other, x), None: want_y}, "what_output")
        y_sdpa = run(label + "(use_sdpa=True)", other, x, None, True, on_error=module_error)[0]
        if not (isinstance(y_sdpa, torch.Tensor) and close(y_sdpa, want_y, 1e-6)):
            raise CheckFailed(t("values_differ", what=label + "(use_sdpa=True)", err=max_error(y_sdpa, want_y)
                                if isinstance(y_sdpa, torch.Tensor) else float("inf")),
                              _text(sdpa_bug(other, x, None, y_sdpa)))
    for other in others:
        other()
    _expect_max_len(name, cls)
    # Gradients with respect to x and every parameter, by the grader's rule, once every output is right.
    expect_module_grads(name, module, x, lambda m, leaf: run(f"{name}.forward", m, leaf, on_error=module_error),
                        right_module, 18)
    passed(name)
