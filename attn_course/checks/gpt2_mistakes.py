"""The GPT-2 attention module lessons 4 to 7 build on (c_attn, c_proj, a causal buffer of max_len, the masked and
the SDPA path): its right output, and its classic mistakes named from what it returns or raises. The module's
procedures (attn_course.probes.gpt2_module) name mistakes with them; lesson 7's check reads its right output here too.
Lesson 4's notebook builds the module, so its sizes are the ones a check avoids (LESSON).
"""
from __future__ import annotations

import math
import re

import torch
import torch.nn.functional as F

from .engine import max_error
from .heads import merge_heads, split_heads
from .masks import tril


# Sizes all different (E = H·D = 12), as the demo's; a second case per check avoids them (attn_course.sizes).
B, T, H, D = 2, 5, 3, 4
E = H * D
LESSON = 4


def right_gpt2(module, x, use_sdpa: bool = False) -> tuple:
    """The right (output, weights) from module's c_attn and c_proj, without dropout (no weights on the SDPA path)."""
    q, k, v = _qkv(module, x)
    scores = (q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))).masked_fill(~tril(x.size(1)), float("-inf"))
    weights = torch.softmax(scores, -1)
    return module.c_proj(merge_heads(weights @ v)), (None if use_sdpa else weights)


def output_of(result):
    """A module's output without the weights (those may be detached): what the gradients are taken of."""
    return result[0] if isinstance(result, tuple) and result else result


def qkv_variants(qkv, H) -> dict:
    Bq, T, three_e = qkv.shape
    E = three_e // 3
    D = E // H
    right = tuple(split_heads(z, H) for z in qkv.split(E, dim=-1))
    chunked = qkv.view(Bq, T, H, 3 * D).chunk(3, dim=-1)
    return {None: right, "hint_interleaved_qkv": tuple(z.transpose(1, 2) for z in chunked),
            "hint_reshape_heads_first": tuple(z.reshape(Bq, H, T, D) for z in qkv.split(E, dim=-1)),
            ("hint_qkv_order", "kqv"): (right[1], right[0], right[2]),
            ("hint_qkv_order", "vkq"): (right[2], right[1], right[0]),
            ("hint_qkv_order", "qvk"): (right[0], right[2], right[1])}


def gpt2_expected(module, x, masked=True):
    Bx, T, E = x.shape
    qkv = module.c_attn(x)
    keep = tril(T)
    variants = {}
    for key, (q, k, v) in qkv_variants(qkv, module.n_head).items():
        raw = q @ k.transpose(-2, -1) / math.sqrt(E // module.n_head)
        w = torch.softmax(raw.masked_fill(~keep, float("-inf")), -1)
        variants[key] = module.c_proj(merge_heads(w @ v))
        if key is None:
            variants["hint_missing_mask"] = module.c_proj(merge_heads(torch.softmax(raw, -1) @ v))
            # Divided by √E, the embedding width, instead of √D, one head's.
            by_e = (raw * math.sqrt(E // module.n_head) / math.sqrt(E)).masked_fill(~keep, float("-inf"))
            variants[("hint_scale_head_dim", "E")] = module.c_proj(merge_heads(torch.softmax(by_e, -1) @ v))
    return variants


def _size_error(message: str) -> str | None:
    if any(s in message for s in ("must be tuple of ints", "found element of type float",
                                  "'float' object cannot be interpreted as an integer")):
        return "hint_int_division"
    return None


def max_len_keyword_missing(message: str) -> bool:
    """A constructor built with max_len= that names its keyword otherwise (block_size=): every lesson alike."""
    return "max_len" in message and "keyword" in message


def max_len_error(kind: str, message: str, call: str = "") -> str | None:
    """A constructor without the max_len keyword, or a forward whose buffer is shorter than the sequence:
    the check's and the grader's (lesson4.module_max_len) alike."""
    if max_len_keyword_missing(message):
        return "hint_max_len_keyword"
    if "must match the size" in message or "out of bounds" in message or "shape mismatch" in message:
        return "hint_max_len_buffer"
    return None


def module_error(max_len: int):
    """on_error for building and calling the module: errors that say which line is wrong.

    A broadcast between T and max_len is the causal buffer used whole (hint_causal_slice, with both sizes);
    other broadcasts fall through to the engine's rule (K not transposed). "mat1 and mat2" is a Linear given
    the wrong size: (3E, E) is c_attn built the wrong way round, the case the layer check names in the kernel.
    """
    def on_error(kind: str, message: str, call: str = ""):
        if "meta" in call and ("meta" in message or "device" in message):   # a tensor made on the CPU met meta ones
            return "hint_module_device"
        if kind == "InputError":   # the course's input check refused a right input: its call, or the sizes it read
            return "hint_module_input_checks"
        if max_len_keyword_missing(message):
            return "hint_max_len_keyword"
        sizes = _SIZE_MISMATCH.search(message)
        if sizes and max(int(sizes[1]), int(sizes[2])) == max_len:
            return "hint_causal_slice", {"T": min(int(sizes[1]), int(sizes[2])), "max_len": max_len}
        if any(s in message for s in ("values to unpack", "is invalid for input of size",
                                      "object has no attribute 'shape'")):
            return "hint_split_qkv_input"
        # c_attn(split_qkv(x, H)): where E // 3 divides into H heads, split's three parts reach the layer whole
        # (the check's E = 12 fails in the view instead, named above; the grader's sizes reach here)
        if "linear()" in message and "must be Tensor, not tuple" in message:
            return "hint_split_qkv_input"
        if "operator.invert" in message:
            return "hint_buffer_bool"
        if "masked_fill() received an invalid combination" in message:
            return "hint_masked_fill_args"
        if 'missing 1 required positional arguments: "dim"' in message:
            return "hint_softmax_dim"
        linear = _LINEAR_MISMATCH.search(message)
        if linear:
            e, got_in, got_out = int(linear[1]), int(linear[2]), int(linear[3])
            if (got_in, got_out) == (3 * e, e):
                return "hint_layer_shape", {"name": "c_attn", "want_in": e, "want_out": 3 * e, "got_in": got_in,
                                            "got_out": got_out, "why": ""}
        return _size_error(message)
    return on_error


_SIZE_MISMATCH = re.compile(r"size of tensor a \((\d+)\) must match the size of tensor b \((\d+)\)")
_LINEAR_MISMATCH = re.compile(r"mat1 and mat2 shapes cannot be multiplied \(\d+x(\d+) and (\d+)x(\d+)\)")


def buffer_shape(module) -> tuple | None:
    """The causal buffer's shape, or None (no module, no buffer): the check's and the probe's alike."""
    causal = dict(module.named_buffers()).get("causal") if isinstance(module, torch.nn.Module) else None
    return tuple(causal.shape) if isinstance(causal, torch.Tensor) else None


def module_on_meta(call, cls) -> list:
    """The meta device's case (a GPU's stand-in), the check's and the probe's (lesson4.module): the module built,
    moved to meta with its input, both paths called. call(name, fn, *args, **kwargs): the check's run or the probe's
    rec.call. Returns the two outputs, which must be on meta: a mask or a tensor made in forward without
    device=x.device stays on the CPU, where a GPU's run raises (the buffer moves with the module, is_causal=True
    makes its mask on q's device). Values do not exist on meta, so the sizes are the check's, on every seed."""
    name = "GPT2SelfAttention (meta)"
    module = call(name, cls, E, H).to("meta").eval()
    x = torch.empty(B, T, E, device="meta")
    with torch.no_grad():
        return [output_of(call(name, module, x, use_sdpa=use_sdpa)) for use_sdpa in (False, True)]


def meta_problem(outputs) -> str | None:
    """The device an output of module_on_meta landed on instead of meta, or None (the check's and the judge's)."""
    for y in outputs:
        device = getattr(getattr(y, "device", None), "type", None)   # a tensor, or NoValues in the grader
        if device is not None and device != "meta":
            return device
    return None


# --------------------------------------------------------------------------- naming the module's mistake
# Shared by the visible check and the grader's judge (autograder/reference/lesson4.py), which calls them
# with a reference module holding the learner's drawn parameters: both name a mistake alike.
def _same_nan(a, b, tol: float) -> bool:
    """Equal within tol, NaN where NaN and ±inf where ±inf: a wrong mask's NaN rows are part of its signature."""
    if not (isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor)) or a.shape != b.shape:
        return False
    a, b = a.detach().double(), b.detach().double()
    if not (torch.equal(a.isnan(), b.isnan()) and torch.equal(a.isinf(), b.isinf())):
        return False
    if not torch.equal(a[a.isinf()], b[b.isinf()]):
        return False
    finite = a.isfinite()
    return bool(torch.allclose(a[finite], b[finite], atol=tol, rtol=tol))


def _first_match(got, variants: dict, tol: float):
    """The hint (key, or (key, fields)) of the first variant got equals; None for the right one or none."""
    for key, want in variants.items():
        if key is not None and _same_nan(got, want, tol):
            if isinstance(key, tuple):
                return (key[0], dict(key[1])) if isinstance(key[1], tuple) else key[0]
            return key
    return None


def _qkv(module, x):
    E_ = x.size(-1)
    return [split_heads(z, module.n_head) for z in module.c_attn(x).split(E_, dim=-1)]


def weight_variants(module, x) -> dict:
    """The weights (B, H, T, T) of the right module and of the classic mistakes between the scores and the softmax."""
    T_, E_, H_ = x.size(1), x.size(2), module.n_head
    D_ = E_ // H_
    q, k, _ = _qkv(module, x)
    raw = q @ k.transpose(-2, -1)
    keep, inf = tril(T_), float("-inf")
    ones = torch.ones(T_, T_, dtype=torch.bool)

    def soft(s, keep=keep, fill=inf, dim=-1):
        return torch.softmax(s.masked_fill(~keep, fill), dim)
    scaled = raw / math.sqrt(D_)
    return {
        None: soft(scaled),
        "hint_missing_mask": torch.softmax(scaled, -1),
        "hint_upper_triangle": soft(scaled, keep.T),
        ("hint_causal_diagonal", "+1"): soft(scaled, ones.tril(1)),
        ("hint_causal_diagonal", "-1"): soft(scaled, ones.tril(-1)),
        "hint_inverted_mask": soft(scaled, ~keep),
        "hint_mask_fill_zero": soft(scaled, fill=0.0),
        "hint_mask_times_inf": torch.softmax(scaled + (~keep) * inf, -1),
        "hint_no_scale": soft(raw),
        "hint_scale_dk": soft(raw / D_),
        "hint_scale_mul": soft(raw * math.sqrt(D_)),
        ("hint_scale_head_dim", "E"): soft(raw / math.sqrt(E_)),
        ("hint_scale_head_dim", "H"): soft(raw / math.sqrt(H_)),
        "hint_kq_order": soft(scaled.transpose(-2, -1)),
        ("hint_softmax_axis", (("axis", -2),)): soft(scaled, dim=-2),
        ("hint_softmax_axis", (("axis", 1),)): soft(scaled, dim=1),
        ("hint_softmax_axis", (("axis", 0),)): soft(scaled, dim=0),
        "hint_no_softmax": scaled.masked_fill(~keep, inf),
    }


def _after_weights(module, x, weights) -> dict:
    """Outputs from the right weights: the right one, and the classic mistakes after the weights."""
    B_, T_, E_ = x.shape
    y = weights @ _qkv(module, x)[2]                                      # (B, H, T, D)
    return {None: module.c_proj(merge_heads(y)), "hint_merge_without_transpose": module.c_proj(y.reshape(B_, T_, E_)),
            "hint_c_proj_forgotten": merge_heads(y)}


def module_hint(module, x, y, weights, tol: float = 1e-6):
    """The likely mistake of a masked path whose output y differs from the right one: a hint key, (key, fields), or
    None.

    module: a right module's parameters (the learner's own in the check, the grader's draw in the judge).
    The returned weights tell where the mistake is: before the softmax, in the mask, or after the weights.
    """
    Bx, T_, E_ = x.shape
    key = _first_match(y, {k: v for k, v in gpt2_expected(module, x).items() if k != "hint_missing_mask"}, tol)
    if key:
        return key
    if isinstance(y, torch.Tensor) and y.dim() == 4 and isinstance(weights, torch.Tensor) and weights.dim() == 3:
        return "hint_returns_swapped"
    if not isinstance(weights, torch.Tensor) or weights.dim() != 4:
        return None
    if weights.shape[0] == Bx and weights.shape[2:] == (T_, T_) and weights.size(1) != module.n_head:
        return "hint_n_head_arg", {"h": module.n_head, "got": weights.size(1)}
    variants = weight_variants(module, x)
    if weights.shape != variants[None].shape:
        return None
    if _same_nan(weights, variants[None], tol):
        return _first_match(y, _after_weights(module, x, weights), tol) or "hint_after_weights"
    key = _first_match(weights, variants, tol)
    if key:
        return key
    w = weights.detach().double()
    if not torch.isfinite(w).all():
        return "hint_weights_nan"
    sums = w.sum(-1)
    if not torch.allclose(sums, torch.ones_like(sums), atol=1e-6):
        return "hint_rows_not_normalised", {"lo": float(sums.min()), "hi": float(sums.max())}
    if (w.masked_fill(tril(T_), 0.0) != 0).any():
        return "hint_no_mask"
    return "hint_scores_formula"


def sdpa_hint(module, x, y_sdpa, tol: float = 1e-6):
    """The likely mistake of a use_sdpa=True path whose output differs while the masked path is right."""
    q, k, v = _qkv(module, x)
    scaled = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
    unmasked = module.c_proj(merge_heads(torch.softmax(scaled, -1) @ v))
    dropped = module.c_proj(torch.zeros_like(x))               # dropout_p=1 in eval: every weight dropped
    return _first_match(y_sdpa, {"hint_missing_mask": unmasked, "hint_dropout_eval_sdpa": dropped}, tol) \
        or "hint_sdpa_call"


def train_variants(module, x, seed: int) -> dict:
    """The masked path's output in training under torch.manual_seed(seed): dropout on the weights, as the
    lesson states, and on the heads' outputs (weights @ v) or on the scores before the softmax instead: the same
    draws, on another tensor."""
    q, k, v = _qkv(module, x)
    scores, keep = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1)), tril(x.size(1))
    w = torch.softmax(scores.masked_fill(~keep, float("-inf")), -1)
    p = module.dropout.p
    out = {}
    for key, make in ((None, lambda: F.dropout(w, p, True) @ v),
                      ("hint_dropout_place", lambda: F.dropout(w @ v, p, True)),
                      ("hint_dropout_before_softmax",
                       lambda: torch.softmax(F.dropout(scores, p, True).masked_fill(~keep, float("-inf")), -1) @ v)):
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(seed)
            out[key] = module.c_proj(merge_heads(make()))
    return out


def buffer_persistent(module) -> bool:
    """The causal buffer saved with the weights: the text registers it with persistent=False (both sides)."""
    return isinstance(module, torch.nn.Module) and "causal" in module.state_dict()


def sdpa_train_finding(module, x, seed: int, got, tol: float):
    """The SDPA path in training under torch.manual_seed(seed) against SDPA's own dropout on module's q, k, v
    (dropout_p = module.dropout.p): (key, fields, hint) or None, the check's and the judge's alike. SDPA draws
    its mask as F.dropout on the weights does, but calling it here keeps the rule whatever torch draws."""
    q, k, v = _qkv(module, x)
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True, dropout_p=module.dropout.p)
    want = module.c_proj(merge_heads(y))
    if isinstance(got, torch.Tensor) and got.shape == want.shape and max_error(got, want) <= tol:
        return None
    if not (isinstance(got, torch.Tensor) and got.shape == want.shape):
        return "returned_not_tensor", {"name": "GPT2SelfAttention.forward(use_sdpa=True)",
                                       "kind": type(got).__name__}, None
    never = _same_nan(got, right_gpt2(module, x, True)[0], tol)   # dropout_p = 0 in training too
    return "sdpa_train_differs", {"err": max_error(got, want)}, ("hint_dropout_train_sdpa" if never else None)


def shape_hint(got, want: tuple, names: tuple):
    """("swapped_axes", fields) when got is want with two axes swapped, as expect_shape names it; else None."""
    if not isinstance(got, torch.Tensor) or got.dim() != len(want):
        return None
    for a in range(len(want)):
        for b in range(a + 1, len(want)):
            swapped = list(want)
            swapped[a], swapped[b] = swapped[b], swapped[a]
            if tuple(got.shape) == tuple(swapped) and tuple(got.shape) != tuple(want):
                return "swapped_axes", {"a": a, "b": b, "name_a": names[a], "name_b": names[b]}
    return None
