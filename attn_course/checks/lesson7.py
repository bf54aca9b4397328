"""Lesson 7's visible checks: order-blindness, sinusoidal positions, RoPE (Llama's layout, the interleaved layout,
the relative property, a KV cache), ALiBi and cross-attention. `rope` below is a right RoPE (Llama's rotate-half
layout): the hidden tests of exercises 5 and 6 hand it to the learner's code, so those two are graded on their own."""
from __future__ import annotations

import math

import torch
import torch.nn as nn

from ..messages import t
from ..validate import CheckFailed
from .engine import close, error_hint, expect_returned_pair, expect_shape, inputs, max_error, passed, run
from .gpt2_module import expect_gpt2_module, gpt2_expected
from .heads import merge_heads, merged_out_of_order, split_heads
from .invariants import expect_grads, reads_globals
from .lesson7_alibi import (  # noqa: F401 - the notebook calls lesson7.check_alibi_bias; the grader reads these
    alibi_error, alibi_hint, alibi_shape_hint, alibi_slopes, alibi_variants, check_alibi_bias, lower,
)
from .lesson7_cross import (  # noqa: F401 - the notebook calls lesson7.check_cross_attention; the grader reads these
    NO_MASK_CALL, check_cross_attention, cross_error, cross_hint, cross_variants, heads_averaged, none_mask_error, same,
    to_torch_mha,
)
from .lesson7_sinusoid import PE_HINT_TOL, pe_error, pe_hint, pe_shape_hint, sinusoid, sinusoid_variants
from .masks import masked
from .rope import rope, rotate_half  # noqa: F401 - lesson 7's tests read lesson7.rope

# The notebook binds sizes at top level (H_, D_ = 4, 16; the loop's n = 52): a check that fails names one the
# learner's code read, as the grader does (attn_course.sizes).
LESSON = 7
# Batch, sequence, heads, head width: all different, so a mixed-up axis shows as a wrong size; none the notebook binds.
B, T, H, D = 3, 7, 2, 6
E = H * D
PERM = torch.tensor([2, 0, 1, 5, 3, 6, 4])      # not its own inverse: the inverse permutation differs
POSITIONS = torch.tensor([3, 0, 5, 1, 4, 2, 6])  # not 0, 1, 2, …: positions that are ignored show


# --------------------------------------------------------------------------- the pasted module
def open_variants(module, x) -> dict:
    """The module's output once its `causal` buffer is all True: attention without a mask. Still masked is
    a forward that builds its own mask instead of reading the buffer (section 1 opens the mask that way)."""
    outputs = gpt2_expected(module, x)
    return {None: outputs["hint_missing_mask"], "hint_mask_not_from_buffer": outputs[None]}


@reads_globals(4)   # the module's hidden test is lesson 4's, which names lesson 4's globals
def check_gpt2_module(cls) -> None:
    """Lesson 4's checks, then the one rule this lesson adds: forward masks with the `causal` buffer."""
    expect_gpt2_module(cls)
    name = "GPT2SelfAttention"
    module = run(name, cls, E, H).double().eval()
    module.causal.fill_(True)                                  # what section 1 does to remove the mask
    (x,) = inputs((B, T, E), seed=23)
    with torch.no_grad():
        y, _ = expect_returned_pair(run(f"{name}.forward", module, x), f"{name}.forward")
        variants = open_variants(module, x)
        if not close(y, variants[None], 1e-6):
            masked = close(y, variants["hint_mask_not_from_buffer"], 1e-6)
            raise CheckFailed(t("buffer_open_differs", err=max_error(y, variants[None])),
                              t("hint_mask_not_from_buffer") if masked else None)
    passed(name)


# --------------------------------------------------------------------------- order-blindness
def _perm_functions(seed: int) -> dict:
    g = torch.Generator().manual_seed(seed)
    w = torch.randn(E, E, generator=g, dtype=torch.float64) / math.sqrt(E)

    def rowwise(x):                       # each token on its own: permutation-equivariant
        return torch.tanh(x @ w)

    def causal(x):                        # attention under a causal mask: not equivariant
        s = (x @ w) @ x.transpose(-2, -1) / math.sqrt(E)
        n = x.size(1)
        s = s.masked_fill(~torch.ones(n, n, dtype=torch.bool).tril(), float("-inf"))
        return torch.softmax(s, -1) @ x
    return {"perm_fn_rowwise": rowwise, "perm_fn_causal": causal}


def largest_error_last(x, perm, causal):
    """x with its batch elements in order of the causal function's permutation error, largest last: a maximum
    over one element alone (element 0, say) is then wrong. The visible check and the grader's inputs both."""
    with torch.no_grad():
        errors = (causal(x[:, perm]) - causal(x)[:, perm]).abs().amax(dim=(1, 2))
    return x[errors.argsort()]


def perm_variants(fn, x, perm) -> dict:
    y, y_perm = fn(x), fn(x[:, perm])
    return {
        None: float((y_perm - y[:, perm]).abs().max()),
        "hint_perm_inverse": float((y_perm - y[:, perm.argsort()]).abs().max()),
        "hint_perm_output": float((y_perm - y).abs().max()),
        "hint_perm_input": float((y - y[:, perm]).abs().max()),
        "hint_perm_abs": float((y_perm - y[:, perm]).max()),
        "hint_perm_mean": float((y_perm - y[:, perm]).abs().mean()),
        "hint_perm_first_batch": float((y_perm - y[:, perm])[0].abs().max()),
        # make mutants: a sum for the difference; f called on one side only (the input compared as it is)
        "hint_perm_plus": float((y_perm + y[:, perm]).abs().max()),
        ("hint_perm_fn_once", "input"): float((x[:, perm] - y[:, perm]).abs().max()),
        ("hint_perm_fn_once", "output"): float((y_perm - x[:, perm]).abs().max()),
    }


def same_error(got: float, want: float) -> bool:
    return abs(got - want) <= 1e-9 + 1e-6 * abs(want)


def likely_perm_mistake(answers: list[tuple[float, dict]]) -> str | None:
    """The classic mistake that explains every answer, given (answer, perm_variants) per function.
    All functions vote: on an equivariant one some mistakes give the same number (f(x) against f(x)[:, perm]
    and f(x[:, perm]) against f(x) are the same rows), so the first failing function alone may name the wrong one."""
    keys = [k for k in answers[0][1] if k] if answers else []
    key = next((k for k in keys if all(same_error(got, v[k]) for got, v in answers)), None)
    return key[0] if isinstance(key, tuple) else key   # (hint, variant): one hint, several ways to make it


# x[perm] permutes the batch axis: with fewer batch elements than tokens, an index out of range on axis 0.
perm_error = lambda kind, message, call="": "hint_perm_axis" if kind == "IndexError" and "dimension 0" in message else None  # noqa: E731,E501


@reads_globals(LESSON)
def check_permutation_error(fn) -> None:
    name = "permutation_error"
    functions = _perm_functions(72)
    (x,) = inputs((B, T, E), seed=71)
    x = largest_error_last(x, PERM, functions["perm_fn_causal"])
    answers, wrong = [], None
    for label, f in functions.items():
        got = run(name, fn, f, x, PERM, on_error=perm_error)
        if isinstance(got, bool) or not isinstance(got, (int, float)):   # a 0-dim tensor is not the float asked for
            raise CheckFailed(t("perm_not_float", kind=type(got).__name__),
                              t("hint_perm_float") if isinstance(got, torch.Tensor) else None)
        answers.append((got, perm_variants(f, x, PERM)))
        if wrong is None and not same_error(got, answers[-1][1][None]):
            wrong = (label, got, answers[-1][1][None])
    if wrong:
        key = likely_perm_mistake(answers)
        raise CheckFailed(t("perm_differs", fn=t(wrong[0]), got=wrong[1], want=wrong[2]), t(key) if key else None)
    passed(name)


# --------------------------------------------------------------------------- sinusoidal positions
@reads_globals(LESSON)
def check_sinusoidal_positions(fn) -> None:
    name = "sinusoidal_positions"
    n, e = 9, 10
    got = run(name, fn, n, e, on_error=pe_error)
    half = pe_shape_hint(got, n, e)
    expect_shape(got, (n, e), ("T", "E"), t("what_positions"), t(half) if half else None)
    if got.dtype != torch.float32:
        raise CheckFailed(t("pe_dtype", got=got.dtype), t("hint_pe_dtype"))
    variants = sinusoid_variants(n, e)
    if not close(got, variants[None], 1e-5):
        key = next((k for k, v in variants.items() if k and max_error(got, v) <= PE_HINT_TOL), None)
        key = key or pe_hint(got, variants[None])
        raise CheckFailed(t("values_differ", what=t("what_positions"), err=max_error(got, variants[None])),
                          t(key) if key else None)
    got = run(name, fn, n, e, 100.0, on_error=pe_error)
    if not close(got, sinusoid(n, e, 100.0), 1e-5):  # code that ignores base, as the default hides it
        raise CheckFailed(t("values_differ", what=t("what_positions"), err=max_error(got, sinusoid(n, e, 100.0))),
                          t("hint_pe_base") if close(got, variants[None], 1e-5) else None)
    meta = run(name, fn, 3, 4, device=torch.device("meta"), on_error=t("hint_pe_device"))
    if not isinstance(meta, torch.Tensor) or meta.device.type != "meta":
        raise CheckFailed(t("hint_pe_device"))
    passed(name)


# --------------------------------------------------------------------------- RoPE
def rope_interleaved(x, positions, base: float = 10000.0):
    """The same rotation with the pairs (0, 1), (2, 3), … (Meta's original Llama, RoFormer's paper)."""
    d = x.size(-1)
    angles = positions.to(x.device, torch.float64)[:, None] * base ** (
        -torch.arange(0, d, 2, dtype=torch.float64, device=x.device) / d)
    cos, sin = angles.cos().to(x.dtype), angles.sin().to(x.dtype)
    x1, x2 = x[..., 0::2], x[..., 1::2]
    return torch.stack([x1 * cos - x2 * sin, x1 * sin + x2 * cos], dim=-1).flatten(-2)


def _rope_bug(x, positions, base, bug: str):
    d = x.size(-1)
    step = 1 if bug == "hint_rope_freq" else 2
    inv_freq = base ** (-step * torch.arange(d // 2, dtype=torch.float64, device=x.device) / d)
    angles = positions.to(x.device, torch.float64)[:, None] * inv_freq
    if bug == "hint_rope_interleaved":
        return rope_interleaved(x, positions, base)
    emb = angles.repeat_interleave(2, dim=-1) if bug == "hint_rope_pairing" else torch.cat([angles, angles], -1)
    turn = -rotate_half(x) if bug == "hint_rope_direction" else rotate_half(x)
    return x * emb.cos() + turn * emb.sin()


def rope_variants(x, positions, base, other=None) -> dict:
    """Rotated x: right, and the classic RoPE bugs; with other (k for q, q for k), the two returned swapped."""
    variants = {None: rope(x, x, positions, base)[0]}
    for bug in ("hint_rope_interleaved", "hint_rope_direction", "hint_rope_freq", "hint_rope_pairing"):
        variants[bug] = _rope_bug(x, positions, base, bug)
    variants["hint_rope_positions"] = rope(x, x, torch.arange(x.size(-2)), base)[0]
    variants["hint_rope_base"] = rope(x, x, positions, 10000.0)[0]
    variants["hint_rope_unrotated"] = x
    variants["hint_rope_cos_sin"] = _rope_swapped_cos_sin(x, positions, base)
    if other is not None:
        variants["hint_rope_pair_order"] = rope(other, other, positions, base)[0]
    return variants


def _rope_swapped_cos_sin(x, positions, base):
    """cos, sin = emb.sin(), emb.cos(): x · sin + rotate_half(x) · cos."""
    d = x.size(-1)
    inv_freq = base ** (-torch.arange(0, d, 2, dtype=torch.float64, device=x.device) / d)
    emb = positions.to(x.device, torch.float64)[:, None] * inv_freq
    emb = torch.cat([emb, emb], dim=-1)
    return x * emb.sin() + rotate_half(x) * emb.cos()


def rope_hint(y, x, tol: float = 1e-5) -> str | None:
    """What a rotated x that matches no classic mistake says of itself: a rotation keeps each pair (x[i], x[i + D/2])'s
    sum of squares, so a result that keeps them turned by wrong angles, and one that does not is no rotation at all
    (cos or sin left out, a division, rotate_half wrong). Shared by the visible check and the grader's judge."""
    if not (isinstance(y, torch.Tensor) and y.shape == x.shape):
        return None
    y, x = y.detach().double().cpu(), x.detach().double().cpu()
    if not torch.isfinite(y).all():
        return "hint_rope_not_rotation"
    half = x.size(-1) // 2
    squares = lambda z: z[..., :half] ** 2 + z[..., half:] ** 2   # noqa: E731
    return "hint_rope_angles" if close(squares(y), squares(x), tol) else "hint_rope_not_rotation"


def exactly(y, x) -> bool:
    """y is x as given: not rotated at all (angles of 1e-12, from frequencies that are all but 0, are a rotation
    by wrong angles, which the grader's other bases show)."""
    return isinstance(y, torch.Tensor) and y.shape == x.shape and torch.equal(y.detach().cpu().double(), x.double())


def rope_error(kind: str, message: str, call: str = "") -> str | None:
    """A call of apply_rope that raised: the visible check's and the grader's alike."""
    if "to() received an invalid combination" in message:   # positions.to(torch.float64, q.device)
        return "hint_rope_to"
    if "slice indices must be integers" in message:        # x[..., :D / 2]
        return "hint_rope_half_index"
    if "only integer tensors of a single element" in message:   # rotate_half returned a list, not torch.cat of it
        return "hint_rope_not_rotation"
    if "device" in message or "meta" in message:           # only the meta-device call puts meta tensors in
        return "hint_rope_device"
    if "leaf Variable that requires grad" in message:      # q *= cos on the caller's q (no parameter is copied here)
        return "hint_rope_in_place"
    return None


# apply_rope's gradients, within what angles rounded to float32 (transformers' own, the grader's reference) change.
ROPE_GRAD_TOL = 1e-5


def _expect_rope_pair(result, name):
    if not (isinstance(result, tuple) and len(result) == 2):
        raise CheckFailed(t("rope_not_pair", name=name, kind=type(result).__name__))
    return result


@reads_globals(LESSON)
def check_apply_rope(fn) -> None:
    name = "apply_rope"
    q, k = inputs((B, H, T, D), (B, H, T, D), seed=73)
    for base in (10000.0, 100.0):
        before = q.clone(), k.clone()
        got = _expect_rope_pair(run(name, fn, q, k, POSITIONS, base, on_error=rope_error), name)
        if not (torch.equal(q, before[0]) and torch.equal(k, before[1])):   # the grader's gradient case raises here
            raise CheckFailed(t("rope_input_changed", name=name), t("hint_rope_in_place"))
        for part, x, other, y in (("q", q, k, got[0]), ("k", k, q, got[1])):
            expect_shape(y, tuple(x.shape), ("B", "H", "T", "D"), t("what_rotated", part=part))
            variants = rope_variants(x, POSITIONS, base, other)
            if base == 10000.0:
                variants.pop("hint_rope_base")
            # 1e-5: angles rounded to float32, as transformers does, are right too; the bugs are off by 0.1 or more.
            if not close(y, variants[None], 1e-5):
                key = next((key for key, v in variants.items() if key and close(y, v, 1e-5)), None)
                key = key if key and key != "hint_rope_unrotated" or exactly(y, x) else rope_hint(y, x)
                raise CheckFailed(t("rope_differs", part=part, base=base, err=max_error(y, variants[None])),
                                  t(key) if key else None)
    got = _expect_rope_pair(run(name, fn, q.float(), k.float(), POSITIONS, on_error=rope_error), name)
    if not all(isinstance(z, torch.Tensor) and z.dtype == torch.float32 for z in got):
        raise CheckFailed(t("rope_dtype", got=", ".join(str(getattr(z, "dtype", type(z).__name__)) for z in got)),
                          t("hint_rope_dtype"))
    # The grader's gradient case (q and k, float64): the lessons after this one train through the rotation.
    leaves, ref_leaves = ([z.clone().requires_grad_(True) for z in (q, k)] for _ in range(2))
    got = _expect_rope_pair(run(name, fn, *leaves, POSITIONS, on_error=rope_error), name)
    expect_grads(name, got, leaves, rope(*ref_leaves, POSITIONS), ref_leaves, ["q", "k"], 78, ROPE_GRAD_TOL)
    meta = [z.to("meta") for z in (q, k, POSITIONS)]
    got = _expect_rope_pair(run(name, fn, *meta, on_error=t("hint_rope_device")), name)
    if not all(isinstance(z, torch.Tensor) and z.device.type == "meta" for z in got):
        raise CheckFailed(t("hint_rope_device"))
    passed(name)


def _to_half(weight, n_head):
    rows, cols = weight.shape
    return weight.view(n_head, rows // n_head // 2, 2, cols).transpose(1, 2).reshape(rows, cols)


def layout_variants(weight, n_head) -> dict:
    rows, cols = weight.shape
    d = rows // n_head
    variants = {
        None: _to_half(weight, n_head),
        "hint_layout_inverse": weight.view(n_head, 2, d // 2, cols).transpose(1, 2).reshape(rows, cols),
        "hint_layout_heads": weight.view(rows // 2, 2, cols).transpose(0, 1).reshape(rows, cols),
        "hint_layout_unchanged": weight,
    }
    if cols % (2 * n_head) == 0:  # the columns reordered instead (the weight taken as (E, H·D)): only when they split
        variants["hint_layout_columns"] = _to_half(weight.T, n_head).T
    return variants


def layout_hint(got, weight, n_head) -> str | None:
    """The layout mistake a returned weight shows, the visible check's and the grader's alike: a classic variant; the
    4-D (H, 2, D/2, E) not reshaped back; or, for axes mixed up in view or transpose (make mutants: no hint before),
    whether each row is still one of the weight's rows (reordered, wrongly) or mixes values of several."""
    if not isinstance(got, torch.Tensor):
        return None
    rows, cols = weight.shape
    if got.dim() != 2 and got.numel() == weight.numel():
        return "hint_layout_reshape"
    if tuple(got.shape) != (rows, cols):
        return None
    got, weight = got.detach().double().cpu(), weight.detach().double().cpu()
    key = next((key for key, v in layout_variants(weight, n_head).items() if key and torch.equal(got, v)), None)
    if key:
        return key
    found = (got[:, None, :] == weight[None, :, :]).all(-1)   # (rows, rows): got's row i is the weight's row j
    return "hint_layout_order" if found.any(0).all() and found.any(1).all() else "hint_layout_mixed"


def layout_axis_error(message: str) -> bool:
    """A view that does not fit the weight: its sizes were taken from the columns (E), not the rows (H·D)."""
    return "invalid for input of size" in message


@reads_globals(LESSON)
def check_interleaved_to_half(fn) -> None:
    name = "interleaved_to_half"
    for n_head, d, cols in ((H, D, 5), (3, 4, 11)):
        (w,) = inputs((n_head * d, cols), seed=74 + n_head)
        try:
            got = run(name, fn, w.clone(), n_head)
        except CheckFailed as failure:
            if layout_axis_error(failure.message):
                raise CheckFailed(failure.message, t("hint_layout_columns")) from None
            raise
        if not (isinstance(got, torch.Tensor) and got.shape == w.shape):
            key = layout_hint(got, w, n_head)
            expect_shape(got, tuple(w.shape), ("H·D", "E"), t("what_weight"), t(key) if key else None)
        if not torch.equal(got.detach().double(), layout_variants(w, n_head)[None]):
            key = layout_hint(got, w, n_head)
            raise CheckFailed(t("layout_differs", h=n_head, d=d), t(key) if key else None)
    passed(name)


def relative_variants(q, k, offset: int, base: float) -> dict:
    turned = lambda z, o: rope(z[..., None, :], z[..., None, :], torch.tensor([o]), base)[0][..., 0, :]  # noqa: E731
    return {
        None: (q * turned(k, offset)).sum(-1),
        "hint_relative_sign": (q * turned(k, -offset)).sum(-1),
        "hint_relative_unrotated": (q * k).sum(-1),
        "hint_relative_rope_arg": (q * rope(k[..., None, :], k[..., None, :], torch.tensor([offset]))[0][..., 0, :]).sum(-1),
    }


def _key_axis_slips(q, k, offset: int, base: float) -> list:
    """relative_score's values when the key's position axis is added or taken off wrongly: rope(…, k, …) or
    rope(…, k[..., None], …) for k[..., None, :], or k_turned[..., 0] for k_turned[..., 0, :] (make mutants: these
    failed with no hint). Each is what hint_relative_shape describes; a slip these inputs cannot run is left out."""
    position = torch.tensor([offset])
    turned = lambda z: rope(k[..., None, :], z, position, base)[1]  # noqa: E731
    slips = []
    for make in (lambda: q * turned(k)[..., 0, :], lambda: q * turned(k[..., None])[..., 0, :],
                 lambda: q * turned(k[..., None, :])[..., 0]):
        try:
            slips.append(make().sum(-1))
        except RuntimeError:
            pass
    return slips


def relative_hint(got, q, k, offset: int, base: float, tol: float = 1e-9) -> str | None:
    """The classic mistake relative_score's values got match, the visible check's and the grader's alike."""
    if not isinstance(got, torch.Tensor):
        return None
    key = next((key for key, v in relative_variants(q, k, offset, base).items() if key and close(got, v, tol)), None)
    return key or ("hint_relative_shape" if any(close(got, v, tol) for v in _key_axis_slips(q, k, offset, base))
                   else None)


def relative_error(kind: str, message: str, call: str = "") -> str | None:
    """torch.arange(offset) and its kin fail on a negative offset, which the exercise allows (the grader's too)."""
    return "hint_relative_negative" if "inconsistent with step sign" in message else None


@reads_globals(LESSON)
def check_relative_score(fn) -> None:
    name = "relative_score"
    q, k = inputs((5, D), (5, D), seed=76)
    base = 100.0  # not the default: code that ignores the rope it is given shows
    turn = lambda q_, k_, positions: rope(q_, k_, positions, base)  # noqa: E731
    for offset in (3, -2, 0):
        got = run(name, fn, q, k, offset, turn, on_error=relative_error)
        expect_shape(got, (5,), ("N",), t("what_scores"), t("hint_relative_shape"))
        variants = relative_variants(q, k, offset, base)
        if not close(got, variants[None], 1e-9):
            key = relative_hint(got, q, k, offset, base)
            raise CheckFailed(t("relative_differs", offset=offset, err=max_error(got, variants[None])),
                              t(key) if key else None)
    # (…, D) means any rank: a sum over dim=1 is right for (N, D) only, and the lesson's next cell passes (D,).
    for shape, axes in (((D,), ()), ((2, 3, D), ("B", "T"))):   # besides (N, D): one vector, more leading axes
        q_, k_ = inputs(shape, shape, seed=77)
        got = run(name, fn, q_, k_, 3, turn, on_error=lambda kind, message, call="": "hint_relative_last_axis" if kind in (
            "IndexError", "RuntimeError") else relative_error(kind, message, call))   # an axis counted from the front
        expect_shape(got, shape[:-1], axes, t("what_scores") + t("relative_ranks", shape=shape), t("hint_relative_last_axis"))  # noqa: E501
        want = relative_variants(q_, k_, 3, base)[None]
        if not close(got, want, 1e-9):
            raise CheckFailed(t("relative_differs", offset=3, err=max_error(got, want)), t("hint_relative_last_axis"))
    passed(name)


class _CacheHost(nn.Module):
    """A bare GPT-2 attention (c_attn, c_proj, n_head), so this check needs no other exercise."""

    def __init__(self, embed_dim: int, n_head: int, seed: int):
        super().__init__()
        self.embed_dim, self.n_head, self.head_dim = embed_dim, n_head, embed_dim // n_head
        with torch.random.fork_rng(devices=[]):  # leave the notebook's own random stream alone
            torch.manual_seed(seed)
            self.c_attn = nn.Linear(embed_dim, 3 * embed_dim).double()
            self.c_proj = nn.Linear(embed_dim, embed_dim).double()


# The classic mistakes, as rope_cache_run's flags: the visible check and the grader name them alike. A key (hint,
# detail) is one of several variants of a hint, (hint, (("field", value),)) a hint whose text takes fields (named()).
CACHE_BUGS = {
    "hint_rope_cache_restart": dict(restart=True), "hint_rope_cache_twice": dict(twice=True),
    "hint_cache_mask_offset": dict(offset=False), "hint_rope_cache_no_rope": dict(rotate=""),
    "hint_rope_cache_q_not_rotated": dict(rotate="k"), "hint_scale_head_dim": dict(scale_by_e=True),
    "hint_rope_cache_no_proj": dict(project=False),
    # make mutants (issue 29): lesson 6's cache mistakes, and the rest of an attention's, made here too
    # k, q, v = …split(…) and k, q = rope(q, k, …) are one mistake: rope turns q and k alike
    "hint_qkv_order": dict(order="qvk"), "hint_rope_cache_qk_swapped": dict(swap_qk=True),
    "hint_cache_kv_swapped": dict(cat="swap"), ("hint_cache_kv_swapped", "returned"): dict(returned_swapped=True),
    "hint_cache_cat_order": dict(cat="k_front"), ("hint_cache_cat_order", "v"): dict(cat="v_front"),
    ("hint_cache_cat_order", "kv"): dict(cat="kv_front"),
    "hint_causal_6": dict(mask="none"), "hint_upper_triangle": dict(mask="triu"),
    "hint_inverted_mask": dict(fill="inverted"), "hint_additive_nan": dict(fill="additive"),
    "hint_mask_multiplied": dict(fill="0"),
    "hint_no_scale": dict(scale="none"), "hint_scale_dk": dict(scale="dk"), "hint_scale_mul": dict(scale="mul"),
    "hint_scale_floor": dict(scale="floor"), "hint_scale_inverted": dict(scale="inverted"),
    ("hint_softmax_axis", (("axis", -2),)): dict(axis=-2), ("hint_softmax_axis", (("axis", 1),)): dict(axis=1),
    ("hint_softmax_axis", (("axis", 0),)): dict(axis=0), "hint_no_softmax": dict(softmax=False),
}
SCALES = {"none": lambda raw, d: raw, "dk": lambda raw, d: raw / d, "mul": lambda raw, d: raw * math.sqrt(d),
          "floor": lambda raw, d: raw // math.sqrt(d), "inverted": lambda raw, d: math.sqrt(d) / raw}


def named(key):
    """A variant's key as a hint: its name, and the fields its text takes."""
    if isinstance(key, tuple):
        return key[0], dict(key[1]) if isinstance(key[1], tuple) else {}
    return key, {}


def rope_cache_run(host, x, chunks, turn, restart=False, twice=False, offset=True, rotate="qk", scale_by_e=False,
                   project=True, order="qkv", swap_qk=False, cat="", returned_swapped=False, mask="tril", fill="-inf",
                   scale="", axis=-1, softmax=True) -> list:
    """What a RoPE KV cache returns for each chunk: right with the defaults, or one classic bug."""
    e, h = x.size(-1), host.n_head
    d = e // h
    cache, outputs = None, []
    for lo, hi in chunks:
        parts = dict(zip(order, (split_heads(z, h) for z in host.c_attn(x[:, lo:hi]).split(e, dim=2))))
        q, k, v = parts["q"], parts["k"], parts["v"]
        past = 0 if cache is None else cache[0].size(2)
        positions = torch.arange(hi - lo) if restart else torch.arange(past, past + hi - lo)
        q_turned, k_turned = turn(q, k, positions)
        q, k = (q_turned if "q" in rotate else q), (k_turned if "k" in rotate else k)
        if swap_qk:
            q, k = k, q
        if cache is not None:
            old = cache[0]
            if twice:  # the cached keys were rotated already: rotating the whole cache again turns them twice
                old = turn(old, old, torch.arange(past))[1]
            if cat == "swap":      # v, k = torch.cat([cache[0], k], …), torch.cat([cache[1], v], …)
                k, v = torch.cat([cache[1], v], dim=2), torch.cat([old, k], dim=2)
            else:
                k = torch.cat([k, old] if cat in ("k_front", "kv_front") else [old, k], dim=2)
                v = torch.cat([v, cache[1]] if cat in ("v_front", "kv_front") else [cache[1], v], dim=2)
        n = k.size(2)
        keep = torch.ones(hi - lo, n, dtype=torch.bool)
        keep = keep.triu(diagonal=past) if mask == "triu" else keep.tril(diagonal=past if offset else 0)
        raw = q @ k.transpose(-2, -1)
        s = SCALES[scale](raw, d) if scale else raw / math.sqrt(e if scale_by_e else d)
        if mask != "none":
            s = masked(s, keep, fill)
        y = merge_heads((torch.softmax(s, axis) if softmax else s) @ v)
        outputs.append(host.c_proj(y) if project else y)
        cache = (v, k) if returned_swapped else (k, v)
    return outputs


def cache_contents(host, x, turn) -> dict:
    """The whole sequence's cache as the text asks for it (keys rotated at their positions), and as a cache
    of keys kept before rotation holds it (its outputs can be right: it rotates the whole cache every call)."""
    q, k, v = (split_heads(z, host.n_head) for z in host.c_attn(x).split(x.size(-1), dim=2))
    return {None: (turn(q, k, torch.arange(x.size(1)))[1], v), "hint_rope_cache_unrotated": (k, v)}


def cache_call(cache) -> str:
    """How the checks name one call: which one raised matters (only a call with a cache concatenates)."""
    return f"attend_rope_with_cache(attn, x_new, {'None' if cache is None else 'cache'}, rope)"


SHAPE_ERRORS = ("must match", "cannot be multiplied", "Expected size", "invalid for input", "view size is not compatible")


def rope_cache_error(kind: str, message: str, call: str = "") -> str | None:
    """A shape error in a call with a cache is the cache joined wrongly, not a K left untransposed: the first
    call, without a cache, ran the same products; in the first call it is q, k, v split into heads wrongly (or a
    mask of another size). The grader's judge takes this function too."""
    if "NoneType" in message or "arange() received an invalid combination" in message:   # cache None, or a tensor
        return "hint_rope_cache_none"                                                       # where a count belongs
    if any(s in message for s in SHAPE_ERRORS) or error_hint(kind, message, False) in ("hint_transpose_k", "hint_cat_dim"):
        return "hint_rope_cache_concat" if ", cache," in call else "hint_rope_cache_shapes"
    return None


@reads_globals(LESSON)
def check_rope_cache(fn) -> None:
    name = "attend_rope_with_cache"
    host = _CacheHost(E, H, seed=77).eval()
    (x,) = inputs((B, T + 1, E), seed=78)
    turn = lambda q_, k_, positions: rope(q_, k_, positions, 10000.0)  # noqa: E731
    chunks = ((0, 4), (4, 5), (5, 6), (6, 8))   # a prefill of 4: not B, H or D, so a mixed-up axis raises there
    with torch.no_grad():
        right = rope_cache_run(host, x, chunks, turn)
        contents = cache_contents(host, x, turn)
    with torch.no_grad():
        cache = None
        for index, (lo, hi) in enumerate(chunks):
            result = run(cache_call(cache), fn, host, x[:, lo:hi], cache, turn, on_error=rope_cache_error)
            if not (isinstance(result, tuple) and len(result) == 2):
                raise CheckFailed(t("returned_not_cache_pair", name=name, kind=type(result).__name__))
            y, cache = result
            if isinstance(y, tuple) and isinstance(cache, torch.Tensor):   # return (k, v), attn.c_proj(y)
                raise CheckFailed(t("returned_not_tensor", name=t("what_output"), kind="tuple"),
                                  t("hint_rope_cache_return_order"))
            expect_shape(y, (B, hi - lo, E), ("B", "T_new", "E"), t("what_output"))
            if not (isinstance(cache, tuple) and len(cache) == 2):
                raise CheckFailed(t("cache_not_pair", kind=type(cache).__name__))
            for part, c in zip("KV", cache):   # wrong after the first call, without a cache: the heads, not the join
                expect_shape(c, (B, H, hi, D), ("B", "H", "T", "D"), t("what_cache", part=part),
                             t("hint_cache_concat" if index else "hint_rope_cache_shapes"))
            want = right[index]
            if not close(y, want, 1e-6):
                key = cache_hint(y, index, host, x, chunks, turn, want, 1e-6)
                hint = t(key[0], **key[1]) if key else None
                err = max_error(y, want)
                raise CheckFailed(t("cache_differs_token", lo=lo, err=err) if hi - lo == 1
                                  else t("cache_differs", lo=lo, last=hi - 1, n=hi - lo, err=err), hint)
            expect_cache_contents(cache, contents, hi)
    passed(name)


def cache_hint(y, index: int, host, x, chunks, turn, want, tol: float):
    """(hint, fields) of the classic mistake whose output for chunk `index` y equals (same() takes NaN for NaN,
    as an additive mask's), or heads joined out of order (the same values, elsewhere), or None. The mistakes'
    outputs are made one by one, only for a wrong output."""
    for key, flags in CACHE_BUGS.items():
        if same(y, rope_cache_run(host, x, chunks, turn, **flags)[index], tol):
            return named(key)
    if merged_out_of_order(y, host.c_proj, want, tol):
        return "hint_rope_cache_merge", {}
    return None


def tokens_reordered(got, want, tol: float = 1e-6) -> bool:
    """A cache part (B, H, T, D) that holds the right tokens in another order along T (new ones joined first)."""
    if not (isinstance(got, torch.Tensor) and got.shape == want.shape) or close(got, want, tol):
        return False
    order = lambda z: z.detach().double().sum(-1, keepdim=True).argsort(dim=2).expand(z.shape)  # noqa: E731
    return close(got.detach().double().gather(2, order(got)), want.double().gather(2, order(want)), tol)


def expect_cache_contents(cache, contents: dict, n: int) -> None:
    """The returned cache holds the first n tokens' rotated keys and their values."""
    for part, got, want in zip("KV", cache, contents[None]):
        if not close(got, want[:, :, :n], 1e-6):
            bug = contents["hint_rope_cache_unrotated"][0 if part == "K" else 1]
            other = contents[None][1 if part == "K" else 0]
            hint = t("hint_rope_cache_unrotated") if part == "K" and close(got, bug[:, :, :n], 1e-6) else \
                t("hint_cache_kv_swapped") if close(got, other[:, :, :n], 1e-6) else \
                t("hint_cache_cat_order") if tokens_reordered(got, want[:, :, :n]) else None
            raise CheckFailed(t("cache_part_differs", part=part, n=n, err=max_error(got, want[:, :, :n])), hint)
