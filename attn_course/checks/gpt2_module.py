"""The GPT-2 attention module lessons 4 to 7 build on (c_attn, c_proj, a causal buffer of max_len, the masked and
the SDPA path): its right output, the classic mistakes named from what it returns, and the check lessons 4 and 6 run
on the learner's class. Lesson 4's notebook builds it, so its sizes are the ones a check avoids (LESSON).
"""
from __future__ import annotations

import math
import re

import torch
import torch.nn as nn
import torch.nn.functional as F

from ..messages import t
from ..sizes import free_sizes
from ..validate import CheckFailed, InputError
from .engine import (
    close, expect_dropout_rules, expect_returned_pair, expect_shape, inputs, linear_problem, max_error, named, passed,
    run, run_forward,
)
from .heads import merge_heads, split_heads
from .invariants import expect_module_grads, expect_same, reads_globals, sizes_text
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


class RightGPT2SelfAttention(nn.Module):
    """The module lesson 4's text describes: c_attn (E → 3E) and c_proj (E → E) with biases, a causal buffer of
    (max_len, max_len) not saved with the weights, dropout on the weights; forward returns (output, weights), with
    None for the weights on the SDPA path."""

    def __init__(self, embed_dim, n_head, max_len=64, dropout=0.0):
        super().__init__()
        self.embed_dim, self.n_head = embed_dim, n_head
        self.c_attn = nn.Linear(embed_dim, 3 * embed_dim)
        self.c_proj = nn.Linear(embed_dim, embed_dim)
        self.dropout = nn.Dropout(dropout)
        self.register_buffer("causal", tril(max_len), persistent=False)

    def forward(self, x, use_sdpa=False):
        q, k, v = _qkv(self, x)
        if use_sdpa:
            p = self.dropout.p if self.training else 0.0
            return self.c_proj(merge_heads(F.scaled_dot_product_attention(q, k, v, is_causal=True, dropout_p=p))), None
        T_ = x.size(1)
        scores = (q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))).masked_fill(~self.causal[:T_, :T_], float("-inf"))
        weights = torch.softmax(scores, -1)
        return self.c_proj(merge_heads(self.dropout(weights) @ v)), weights


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


def hint_text(hint) -> str | None:
    """A hint as module_hint and the judges name it (key, or (key, fields)), in the learner's language."""
    if hint is None:
        return None
    key, fields = (hint, {}) if isinstance(hint, str) else hint
    return t(key, **fields)


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
        # (the check's E = 12 fails in the view instead, named above: make mutants found the grader saying otherwise)
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


def keys_only(on_error):
    """on_error for the engine's run(), which takes a hint key: a hint with fields is named there by the
    check itself (run_forward names the causal slice, linear_problem a layer's shape)."""
    def named(kind: str, message: str, call: str = ""):
        hint = on_error(kind, message, call)
        return hint if isinstance(hint, str) else None
    return named


_SIZE_MISMATCH = re.compile(r"size of tensor a \((\d+)\) must match the size of tensor b \((\d+)\)")
_LINEAR_MISMATCH = re.compile(r"mat1 and mat2 shapes cannot be multiplied \(\d+x(\d+) and (\d+)x(\d+)\)")


@reads_globals(LESSON)
def check_gpt2_module(cls) -> None:
    expect_gpt2_module(cls)
    passed("GPT2SelfAttention")


def expect_gpt2_module(cls) -> None:
    """Lesson 4's checks of the module, without the line saying they passed: lesson 7 adds its own after them.
    Every input here is right: the course's input check refusing one is the learner's call of it (make mutants)."""
    try:
        _expect_gpt2_module(cls)
        _expect_max_len(cls)
        _module_free_case(cls)
        _module_on_meta(cls)
    except InputError as error:
        raise CheckFailed(error.message, t("hint_module_input_checks")) from None


# Not the default 64, and a sequence longer than it. The text's constructor takes max_len and sizes the causal
# buffer (max_len, max_len) by it; lessons 5 to 7 build the pasted module with max_len= (lesson 6 with 1024, and
# sequences past 64). Built with the default and run at T = 5 only, a constructor that ignores max_len (a buffer of
# a fixed 64, the keyword named block_size) passed here and failed there. The grader's lesson4.module_max_len too.
MAX_LEN, T_LONG = 80, 72


def buffer_shape(module) -> tuple | None:
    """The causal buffer's shape, or None (no module, no buffer): the check's and the probe's alike."""
    causal = dict(module.named_buffers()).get("causal") if isinstance(module, torch.nn.Module) else None
    return tuple(causal.shape) if isinstance(causal, torch.Tensor) else None


def _expect_max_len(cls) -> None:
    name = "GPT2SelfAttention"
    module = run(f"{name}(…, max_len={MAX_LEN})", cls, E, H, max_len=MAX_LEN, on_error=max_len_error)
    shape = buffer_shape(module)
    if shape is not None and shape != (MAX_LEN, MAX_LEN):
        raise CheckFailed(t("max_len_buffer", max_len=MAX_LEN, got=shape), t("hint_max_len_buffer"))
    module = module.double().eval()
    (x,) = inputs((2, T_LONG, E), seed=66)
    with torch.no_grad():
        y, _ = expect_returned_pair(run(f"{name}.forward", module, x, on_error=max_len_error), f"{name}.forward")
        right = gpt2_expected(module, x)[None]
        if not close(y, right, 1e-6):
            raise CheckFailed(t("max_len_differs", max_len=MAX_LEN, T=T_LONG, err=max_error(y, right)),
                              t("hint_max_len_buffer"))
        call = f"{name}.forward(use_sdpa=True)"
        y_sdpa, weights = expect_returned_pair(run(call, module, x, True, on_error=max_len_error), call)
        if weights is not None:   # the text: (output, None) on the SDPA path
            raise CheckFailed(t("sdpa_weights_not_none", kind=type(weights).__name__), t("hint_sdpa_weights_none"))
        if not close(y_sdpa, right, 1e-6):
            raise CheckFailed(t("max_len_differs", max_len=MAX_LEN, T=T_LONG, err=max_error(y_sdpa, right)))
        # Built without dropout=, as lesson 5 builds the model it trains: the default 0.0 drops nothing in training.
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(0)
            y_train = expect_returned_pair(run(f"{name}.forward", module.train(), x, on_error=max_len_error),
                                           f"{name}.forward")[0]
        module.eval()
        if not close(y_train, right, 1e-6):
            raise CheckFailed(t("dropout_default_differs", err=max_error(y_train, right)), t("hint_dropout_default"))


def _expect_gpt2_module(cls) -> None:
    name = "GPT2SelfAttention"
    max_len = 64  # the constructor's default, which the checked module is built with
    on_error = keys_only(module_error(max_len))
    module = run(name, cls, E, H, on_error=on_error)
    for layer, (n_in, n_out) in {"c_attn": (E, 3 * E), "c_proj": (E, E)}.items():
        problem = linear_problem(module, layer, n_in, n_out, "", bias=True)
        if problem:
            raise problem
    if "causal" not in dict(module.named_buffers()):
        raise CheckFailed(t("hint_buffer_missing"))
    if buffer_persistent(module):
        raise named("hint_buffer_persistent")   # lesson 3's rule, which the text repeats
    module = module.double().eval()
    (x,) = inputs((B, T, E), seed=17)
    with torch.no_grad():
        y, weights = expect_returned_pair(run_forward(f"{name}.forward", module, x, max_len=max_len, on_error=on_error),
                                          f"{name}.forward")
        swapped = isinstance(y, torch.Tensor) and y.dim() == 4 and isinstance(weights, torch.Tensor)
        expect_shape(y, (B, T, E), ("B", "T", "E"), t("what_output"), t("hint_returns_swapped") if swapped else None)
        right = gpt2_expected(module, x)[None]
        if not close(y, right, 1e-6):
            what = t("what_output")
            message = t("has_nan", what=what) if not torch.isfinite(y).all() else \
                t("values_differ", what=what, err=max_error(y, right))
            raise CheckFailed(message, hint_text(module_hint(module, x, y, weights)))
        call = f"{name}.forward(use_sdpa=True)"
        y_sdpa = expect_returned_pair(run(call, module, x, True, on_error=on_error), call)[0]
        if not isinstance(y_sdpa, torch.Tensor):   # (None, y) from the SDPA path: the check crashed on it (make mutants)
            raise CheckFailed(t("returned_not_tensor", name=call, kind=type(y_sdpa).__name__), t("hint_sdpa_call"))
        if not close(y_sdpa, right, 1e-6):
            raise CheckFailed(t("values_differ", what="use_sdpa=True", err=max_error(y_sdpa, right)),
                              hint_text(sdpa_hint(module, x, y_sdpa)))
    noisy = run(name, cls, E, H, dropout=0.5, on_error=on_error).double()
    noisy.load_state_dict(module.state_dict(), strict=False)
    forward = lambda m, use_sdpa: expect_returned_pair(run(f"{name}.forward", m, x, use_sdpa), f"{name}.forward")  # noqa: E731
    expect_dropout_rules(noisy, forward, right)
    # The hidden test draws the same dropout mask as the reference: the lesson's dropout, on the weights.
    with torch.no_grad(), torch.random.fork_rng(devices=[]):
        noisy.train()
        torch.manual_seed(0)
        y_train = forward(noisy, False)[0]
        noisy.eval()
        variants = train_variants(noisy, x, 0)
    if not close(y_train, variants[None], 1e-9):
        raise CheckFailed(t("train_output_differs", err=max_error(y_train, variants[None])),
                          hint_text(_first_match(y_train, variants, 1e-9)))
    with torch.no_grad(), torch.random.fork_rng(devices=[]):
        noisy.train()
        torch.manual_seed(0)
        y_sdpa_train = forward(noisy, True)[0]
        noisy.eval()
        finding = sdpa_train_finding(noisy, x, 0, y_sdpa_train, 1e-9)
    if finding:
        raise CheckFailed(t(finding[0], **finding[1]), hint_text(finding[2]))


def _module_free_case(cls) -> None:
    """Both paths on sizes the notebook binds nowhere, then their gradients (lessons 5 and 6 train through it)."""
    name = "GPT2SelfAttention"
    b, t_, h, d = free_sizes(LESSON, 4, seed=36)
    sizes = sizes_text(B=b, T=t_, E=h * d, H=h)
    on_error = keys_only(module_error(64))
    module = run(name, cls, h * d, h, on_error=on_error).double().eval()
    (x,) = inputs((b, t_, h * d), seed=37)
    for use_sdpa, call in ((False, f"{name}.forward"), (True, f"{name}.forward(use_sdpa=True)")):
        with torch.no_grad():
            got = expect_returned_pair(run(call, module, x, use_sdpa, on_error=on_error), call)
            expect_same(call, got, right_gpt2(module, x, use_sdpa), sizes)
        expect_module_grads(call, module, x, lambda m, z: run(call, m, z, use_sdpa, on_error=on_error),
                            lambda m, z: right_gpt2(m, z, use_sdpa), 38, output_of)


def _module_on_meta(cls) -> None:
    device = meta_problem(module_on_meta(lambda *args, **kwargs: run(*args, on_error=keys_only(module_error(64)),
                                                                       **kwargs), cls))
    if device:
        raise CheckFailed(t("module_meta_device", device=device), t("hint_module_device"))


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
    """The likely mistake of a masked path whose output y differs from the right one: a hint key, (key, fields), or None.

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
    for key, make in ((None, lambda: F.dropout(w, p, True) @ v), ("hint_dropout_place", lambda: F.dropout(w @ v, p, True)),
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
