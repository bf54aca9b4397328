"""Lesson 3's visible checks: causal and padding masks, the two mask conventions, NaN rows, the module. The mask
functions' checks run their exercise's probe on a seed of their own and judge what it recorded by the exercise's
procedure (attn_course.probes.lesson3), as the grader does, with the right answer given here."""
from __future__ import annotations

import math

import torch

from ..messages import t
from ..validate import CheckFailed
from .engine import (
    NanRowsSDPA, SIZE_MISMATCH, also_checks, blames_earlier, close, diagnose, expect_dropout_rules,
    expect_returned_pair, expect_shape, inputs, max_error, named, passed, run, run_forward, scale_variants,
)
from .heads import merge_heads, split_heads
from .invariants import expect_module_grads, reads_globals
from .masks import tril

# Sizes all different: batch, query rows, sequence, embedding, heads, head width.
B, T_Q, T, E, H, D = 2, 3, 5, 7, 3, 4
CHECK_D = D
LESSON = 3
# The module's buffer size, in this check and in the grader's probe alike (their errors name it).
MAX_LEN = 16

# Each check's own seed: the probe's inputs drawn from it follow the probe's rule (no size the notebook binds).
SEEDS = {"causal_mask": 111, "apply_mask": 112, "padding_keep": 113, "safe_softmax": 114, "mha_mask_to_sdpa": 115}


def _probe():
    """The grader's probes, whose cases the module's check runs on its own seeds (_draws)."""
    from ..probes import lesson3   # here: the probes' package imports the checks
    return lesson3


def _draws(seed: int, name: str):
    from ..probes.draws import Draws
    return Draws(seed, name)


def right_causal_mask(T, device=None):
    return torch.ones(T, T, dtype=torch.bool, device=device).tril()


def right_apply_mask(scores, keep):
    return scores.masked_fill(~keep, float("-inf"))


def right_padding_keep(lengths, T):
    return torch.arange(T, device=lengths.device) < lengths[:, None]


def right_mha_mask_to_sdpa(mask):
    """nn.MultiheadAttention's bool mask says True = do not attend, SDPA's True = attend; an additive mask reads
    the same in both."""
    return ~mask if mask.dtype == torch.bool else mask


def right_safe_softmax(scores):
    return torch.softmax(scores, dim=-1).nan_to_num(0.0)


def _verify(exercise: str, right, obj) -> None:
    from ..judging import verify
    probes = _probe()
    verify(getattr(probes, exercise), getattr(probes, f"judge_{exercise}"), right, SEEDS[exercise], exercise, obj)


def check_causal_mask(fn) -> None:
    _verify("causal_mask", right_causal_mask, fn)


def check_apply_mask(fn) -> None:
    _verify("apply_mask", right_apply_mask, fn)


def check_padding_keep(fn) -> None:
    _verify("padding_keep", right_padding_keep, fn)


def check_mha_mask_to_sdpa(fn) -> None:
    _verify("mha_mask_to_sdpa", right_mha_mask_to_sdpa, fn)


def check_safe_softmax(fn) -> None:
    _verify("safe_softmax", right_safe_softmax, fn)


def _text(hint) -> str | None:
    """A hint key, or (key, fields), as text."""
    if isinstance(hint, tuple):
        return t(hint[0], **hint[1])
    return t(hint) if hint else None


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
    return _probe().apply_mask_error(kind, message, call) or padding_error(kind, message, call)


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
