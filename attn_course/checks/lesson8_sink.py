"""gpt-oss's learned sink and its classic mistakes: one logit per head as an extra column of the softmax (exercise 6),
and the same sink applied to FlexAttention's output through its log-sum-exp, as fused kernels apply it (exercise 15).
The exercises' procedures (attn_course.probes.lesson8) name a mistake by these variants; the visible checks
(lesson8_visible) take the right answer from them."""
from __future__ import annotations

import math

import torch

from .engine import close, scale_variants
from .flex import create_mask
from .lesson8_common import as_named, shape_error


# --------------------------------------------------------------------------- exercise 6: gpt-oss's sink
def sink_variants(q, k, v, sinks, keep) -> dict:
    """Attention with one learned logit per head as an extra column of the softmax (gpt-oss), and the mistakes.
    Each value: (output, weights)."""
    d = q.size(-1)
    raw = q @ k.transpose(-2, -1)
    masked = (lambda x: x.masked_fill(~keep, float("-inf"))) if keep is not None else (lambda x: x)
    s = masked(raw / math.sqrt(d))
    column = sinks.to(s.dtype).view(1, -1, 1, 1).expand(*s.shape[:-1], 1)

    def with_column(col, first=False, drop_first=False, scores=s, dim=-1, drop_last=False, soft=True):
        logits = torch.cat([col, scores], -1) if first else torch.cat([scores, col], -1)
        p = torch.softmax(logits, dim) if soft else logits
        w = p[..., :-1] if drop_last else p[..., 1:] if (first or drop_first) else p[..., :-1]
        return w @ v, w

    plain = torch.softmax(s, -1)
    # By hand: exp(s − max over the keys) over their sum plus exp(sink), the sink not shifted by the same max.
    m = s.amax(-1, keepdim=True)
    unshifted = torch.exp(s - m) / (torch.exp(s - m).sum(-1, keepdim=True) + torch.exp(column))
    out = {None: with_column(column), "hint_sink_missing": (plain @ v, plain),
           "hint_sink_scaled": with_column(column / math.sqrt(d)),
           "hint_sink_wrong_column": with_column(column, drop_first=True),
           "hint_sink_column_first": with_column(column, first=True, drop_last=True),
           "hint_sink_max": (unshifted @ v, unshifted),
           ("hint_softmax_axis", (("axis", -2),)): with_column(column, dim=-2),
           ("hint_softmax_axis", (("axis", 0),)): with_column(column, dim=0),
           ("hint_softmax_axis", (("axis", 1),)): with_column(column, dim=1),
           "hint_no_softmax": with_column(column, soft=False)}
    # The scale, as lessons 1 to 7 name its mistakes (√D multiplied, //, inverted, D itself, another axis's size).
    for key, scaled in scale_variants(raw, d, (q.size(0), q.size(1), q.size(2), k.size(2))).items():
        out[key] = with_column(column, scores=masked(scaled))
    out["hint_scale_dk"] = with_column(column, scores=masked(raw / d))
    if keep is not None:   # the mask: not applied, filled with 0, or the keys it keeps hidden instead
        out["hint_sink_mask_ignored"] = with_column(column, scores=raw / math.sqrt(d))
        out["hint_mask_fill_zero"] = with_column(column, scores=(raw / math.sqrt(d)).masked_fill(~keep, 0.0))
        out["hint_inverted_mask"] = with_column(column, scores=(raw / math.sqrt(d)).masked_fill(keep, float("-inf")))
    return out


def sink_bug(args, got):
    """The classic mistake (a key of sink_variants, as_named) whose (output, weights) equal got on the inputs args
    (q, k, v, sinks, keep), NaN as 0, or None: the check's and the grader's judge's one rule."""
    if not (isinstance(got, (tuple, list)) and len(got) == 2 and all(isinstance(g, torch.Tensor) for g in got)):
        return None
    q, k, v, sinks, keep = (a.detach() if isinstance(a, torch.Tensor) else a for a in args)
    got = [torch.nan_to_num(g.detach().double()) for g in got]
    with torch.no_grad():
        variants = sink_variants(q.double(), k.double(), v.double(), sinks.double(), keep)
    for key, val in variants.items():
        if key and all(g.shape == w.shape and close(g, torch.nan_to_num(w), 1e-9) for g, w in zip(got, val)):
            return as_named(key)
    return None


# --------------------------------------------------------------------------- exercise 15: the sink after FlexAttention
def mask_of(block, n_q: int, n_k: int):
    """The (n_q, n_k) keys a BlockMask lets each query see (its mask_mod at every position), or None for no mask."""
    return None if block is None else create_mask(block.mask_mod, None, n_q, n_k)[0, 0]


def flex_sink_variants(q, k, v, sinks, block) -> dict:
    """FlexAttention's output times σ(lse − s_h), the share of each row's weight the sink leaves to the keys (it
    equals exercise 6's output), and the mistakes (ln 2 where no base-2 log is: lse times or over it, or the
    difference lse − s_h times or over it, as 2 ** (s_h − lse) computes); each (B, H, T_q, D)."""
    d = q.size(-1)
    keep = mask_of(block, q.size(-2), k.size(-2))
    s = q @ k.transpose(-2, -1) / math.sqrt(d)
    s = s if keep is None else s.masked_fill(~keep, float("-inf"))
    out, lse = torch.softmax(s, -1) @ v, torch.logsumexp(s, -1)
    sink = sinks.to(s.dtype).view(1, -1, 1)

    def kept(x):
        return out * torch.sigmoid(x).unsqueeze(-1)
    return {None: kept(lse - sink), "hint_flex_sink_sign": kept(sink - lse),
            "hint_flex_sink_log2": kept(lse * math.log(2) - sink),
            "hint_flex_sink_log2_divided": kept(lse / math.log(2) - sink),   # lse * log2(e) alike
            "hint_flex_sink_base": kept((lse - sink) * math.log(2)), ("hint_flex_sink_base", "divided"):
            kept((lse - sink) / math.log(2)),
            "hint_flex_sink_scaled": kept(lse - sink / math.sqrt(d)), "hint_flex_sink_missing": out}


def flex_sink_bug(args, got):
    """The classic mistake whose output equals got on the inputs args (q, k, v, sinks, block_mask), or None: the
    check's and the grader's judge's one rule."""
    if not isinstance(got, torch.Tensor):
        return None
    q, k, v, sinks, block = args
    with torch.no_grad():
        variants = flex_sink_variants(q.double(), k.double(), v.double(), sinks.double(), block)
    got = got.detach().double()
    found = next((key for key, val in variants.items() if key and got.shape == val.shape and close(got, val, 1e-4)),
                 None)
    return found[0] if isinstance(found, tuple) else found


def flex_sink_error(kind: str, message: str, call: str = "") -> str | bool | None:
    """lse is (B, H, T_q): multiplied into the (B, H, T_q, D) output without unsqueeze(-1), the sizes clash."""
    if "must match the size of tensor" in message:
        return "hint_flex_sink_unsqueeze"
    return shape_error(kind, message, call)
