"""Lesson 7's classic mistakes and what names them: order-blindness, RoPE (Llama's layout, the interleaved layout,
the relative property, a KV cache). The exercises' procedures (attn_course.probes.lesson7) name a mistake by them, in
the visible check and the grader alike."""
from __future__ import annotations

import math

import torch

from .engine import close, error_hint
from .heads import merge_heads, merged_out_of_order, split_heads
from .lesson7_cross import same
from .masks import masked
from .rope import rope, rotate_half


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
        # a sum for the difference; f called on one side only (the input compared as it is)
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


def perm_error(kind: str, message: str, call: str = "") -> str | None:
    """x[perm] permutes the batch axis: with fewer batch elements than tokens, an index out of range on axis 0."""
    return "hint_perm_axis" if kind == "IndexError" and "dimension 0" in message else None


# --------------------------------------------------------------------------- RoPE
# The classic RoPE mistakes rope_with makes, in the order they are tried.
ROPE_MISTAKES = ("hint_rope_interleaved", "hint_rope_direction", "hint_rope_freq", "hint_rope_pairing",
                 "hint_rope_positions", "hint_rope_base", "hint_rope_unrotated", "hint_rope_cos_sin")


def rope_with(x, positions, base: float = 10000.0, mistake: str | None = None):
    """x rotated as Llama's RoPE does (rotate-half layout), or as the classic mistake `mistake` (its hint) does;
    "hint_rope_interleaved" is the same rotation with the pairs (0, 1), (2, 3), … (Meta's original Llama)."""
    if mistake == "hint_rope_unrotated":
        return x
    positions = torch.arange(x.size(-2)) if mistake == "hint_rope_positions" else positions
    base = 10000.0 if mistake == "hint_rope_base" else base
    d = x.size(-1)
    step = 1 if mistake == "hint_rope_freq" else 2
    angles = positions.to(x.device, torch.float64)[:, None] * base ** (
        -step * torch.arange(d // 2, dtype=torch.float64, device=x.device) / d)
    if mistake == "hint_rope_interleaved":
        cos, sin = angles.cos().to(x.dtype), angles.sin().to(x.dtype)
        x1, x2 = x[..., 0::2], x[..., 1::2]
        return torch.stack([x1 * cos - x2 * sin, x1 * sin + x2 * cos], dim=-1).flatten(-2)
    emb = angles.repeat_interleave(2, dim=-1) if mistake == "hint_rope_pairing" else torch.cat([angles, angles], -1)
    cos, sin = (emb.sin(), emb.cos()) if mistake == "hint_rope_cos_sin" else (emb.cos(), emb.sin())
    return x * cos + (-rotate_half(x) if mistake == "hint_rope_direction" else rotate_half(x)) * sin


def rope_variants(x, positions, base, other) -> dict:
    """Rotated x as each classic RoPE mistake gives it; and other (k for q, q for k), the two returned swapped."""
    variants = {mistake: rope_with(x, positions, base, mistake) for mistake in ROPE_MISTAKES}
    variants["hint_rope_pair_order"] = rope_with(other, positions, base)
    return variants


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
    """The layout mistake a returned weight shows: a classic variant; the 4-D (H, 2, D/2, E) not reshaped back; or,
    for axes mixed up in view or transpose, whether each row is still one of the weight's rows (reordered, wrongly) or
    mixes values of several."""
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


def layout_error(kind: str, message: str, call: str = "") -> str | None:
    """A view that does not fit the weight: its sizes were taken from the columns (E), not the rows (H·D)."""
    return "hint_layout_columns" if "invalid for input of size" in message else None


def relative_variants(q, k, offset: int, base: float) -> dict:
    def turned(o, at=base):
        return rope(k[..., None, :], k[..., None, :], torch.tensor([o]), at)[0][..., 0, :]
    return {
        None: (q * turned(offset)).sum(-1),
        "hint_relative_sign": (q * turned(-offset)).sum(-1),
        "hint_relative_unrotated": (q * k).sum(-1),
        "hint_relative_rope_arg": (q * turned(offset, 10000.0)).sum(-1),   # a rope of its own, at the default base
    }


def _key_axis_slips(q, k, offset: int, base: float) -> list:
    """relative_score's values when the key's position axis is added or taken off wrongly: rope(…, k, …) or
    rope(…, k[..., None], …) for k[..., None, :], or k_turned[..., 0] for k_turned[..., 0, :]. Each is what
    hint_relative_shape describes; a slip these inputs cannot run is left out."""
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
    """An error in a call with a vector or a 3-D q: an axis counted from the front. torch.arange(offset) and its kin
    fail on a negative offset, which the exercise allows."""
    if call.startswith("relative_score, q ("):
        return "hint_relative_last_axis"
    return "hint_relative_negative" if "inconsistent with step sign" in message else None


# The classic mistakes, as rope_cache_run's flags: the visible check and the grader name them alike. A key (hint,
# detail) is one of several variants of a hint, (hint, (("field", value),)) a hint whose text takes fields (named()).
CACHE_BUGS = {
    "hint_rope_cache_restart": dict(restart=True), "hint_rope_cache_twice": dict(twice=True),
    "hint_cache_mask_offset": dict(offset=False), "hint_rope_cache_no_rope": dict(rotate=""),
    "hint_rope_cache_q_not_rotated": dict(rotate="k"), "hint_scale_head_dim": dict(scale_by_e=True),
    "hint_rope_cache_no_proj": dict(project=False),
    # lesson 6's cache mistakes, and the rest of an attention's
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


SHAPE_ERRORS = ("must match", "cannot be multiplied", "Expected size", "invalid for input",
                "view size is not compatible")


def rope_cache_error(kind: str, message: str, call: str = "") -> str | None:
    """A shape error in a call with a cache is the cache joined wrongly, not a K left untransposed: the first
    call, without a cache, ran the same products; in the first call it is q, k, v split into heads wrongly (or a
    mask of another size). The grader's judge takes this function too."""
    if "NoneType" in message or "arange() received an invalid combination" in message:   # cache None, or a tensor
        return "hint_rope_cache_none"                                                       # where a count belongs
    if any(s in message for s in SHAPE_ERRORS) or \
            error_hint(kind, message, False) in ("hint_transpose_k", "hint_cat_dim"):
        return "hint_rope_cache_concat" if ", cache," in call else "hint_rope_cache_shapes"
    return None


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

