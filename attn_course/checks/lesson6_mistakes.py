"""Lesson 6's classic mistakes, which the exercises' procedures (attn_course.probes.lesson6) name: tiled attention,
grouped-query attention, the KV cache (the counts': lesson6_counts; what the tiling's values cannot show:
lesson6_tiles). Each variant is the learner's code written one classic wrong way, run on the probe's inputs."""
from __future__ import annotations

import math

import torch

from .heads import merge_heads, merged_out_of_order, split_heads
from .lesson6_tiles import meta_error
from .masks import masked, tril


# The scale's classic slips, lesson 6's hints: f(raw scores, D) for each.
SCALE_SLIPS = (("hint_no_scale_6", lambda raw, d: raw), ("hint_scale_d_6", lambda raw, d: raw / d),
               ("hint_scale_mul_6", lambda raw, d: raw * math.sqrt(d)),
               ("hint_scale_floor_6", lambda raw, d: raw // math.sqrt(d)),
               ("hint_scale_inverted_6", lambda raw, d: math.sqrt(d) / raw))


def scale_slips(make, d: int) -> dict:
    """{hint: make(scale)} for each of SCALE_SLIPS, scale(raw) its formula at head width d."""
    return {key: make(lambda raw, f=f: f(raw, d)) for key, f in SCALE_SLIPS}


def exact_scores(q, k, causal: bool):
    T_, D_ = q.size(-2), q.size(-1)
    s = q @ k.transpose(-2, -1) / math.sqrt(D_)
    return s.masked_fill(~tril(T_), float("-inf")) if causal else s


def tiled_variants(q, k, v, block: int, causal: bool) -> dict:
    """The right answer and the classic wrong tilings."""
    T_ = q.size(-2)
    s = exact_scores(q, k, causal)
    right = torch.softmax(s, -1) @ v
    summed = sum(torch.softmax(s[..., j:j + block], -1).nan_to_num() @ v[..., j:j + block, :]
                 for j in range(0, T_, block))
    variants = {None: right, "hint_tiled_sum": summed,
                "hint_tiled_rescale": _online(s, v, block, rescale_acc=False),   # acc not rescaled as m grows
                "hint_tiled_normalize": _online(s, v, block, final=lambda acc, l: acc)}   # l never divided out
    for end in range(block, T_, block):   # the loop stopped early: before the short last block, or sooner
        variants[("hint_tiled_tail", (("end", end - 1), ("T", T_)))] = \
            torch.softmax(s[..., :end], -1) @ v[..., :end, :]
    if causal:
        variants["hint_causal_6"] = torch.softmax(exact_scores(q, k, False), -1) @ v
    return variants | _online_variants(q, k, v, block, causal)


def _online(s, v, block: int, p=lambda sb, m_new: torch.exp(sb - m_new), scale=lambda m, m_new: torch.exp(m - m_new),
            signs=(1, 1), final=lambda acc, l: acc / l, update_max: bool = True, rescale_acc: bool = True):
    """The running-max tiling over masked scores s, with one of its formulas replaced (the defaults are right)."""
    m = torch.full_like(s[..., :1], float("-inf"))
    l, acc = torch.zeros_like(m), torch.zeros(*s.shape[:-1], v.size(-1), dtype=v.dtype)
    for j in range(0, s.size(-1), block):
        sb = s[..., j:j + block]
        m_new = torch.maximum(m, sb.amax(-1, keepdim=True))
        pb, c = p(sb, m_new), scale(m, m_new)
        l = l * c + signs[0] * pb.sum(-1, keepdim=True)
        acc = (acc * c if rescale_acc else acc) + signs[1] * (pb @ v[..., j:j + block, :])
        m = m_new if update_max else m
    return final(acc, l)


def _online_variants(q, k, v, block: int, causal: bool) -> dict:
    """A formula of the tiling's loop written wrong, each the loop run with that formula: a key
    (hint, "detail") where one hint has several."""
    T_, D_ = q.size(-2), q.size(-1)
    root = math.sqrt(D_)
    keep = tril(T_) if causal else torch.ones(T_, T_, dtype=torch.bool)

    def scores(keys=k, scale=lambda raw: raw / root, fill="-inf"):
        return masked(scale(q @ keys.transpose(-2, -1)), keep, fill)

    s = scores()
    out = {
        **scale_slips(lambda scale: _online(scores(scale=scale), v, block), D_),
        "hint_tiled_kv_swapped": _online(scores(keys=v), k, block),
        ("hint_tiled_kv_swapped", "acc"): _online(s, k, block),          # acc += p @ kb: only the sum swapped
        "hint_tiled_max_update": _online(s, v, block, update_max=False),  # m = m_new forgotten
        ("hint_tiled_p", "exp(s) - m"): _online(s, v, block, p=lambda sb, m_new: torch.exp(sb) - m_new),
        ("hint_tiled_p", "s - m"): _online(s, v, block, p=lambda sb, m_new: sb - m_new),
        ("hint_tiled_p", "exp(m - s)"): _online(s, v, block, p=lambda sb, m_new: torch.exp(m_new - sb)),
        ("hint_tiled_p", "exp(s + m)"): _online(s, v, block, p=lambda sb, m_new: torch.exp(sb + m_new)),
        ("hint_tiled_scale", "exp(m) - m'"): _online(s, v, block, scale=lambda m, m_new: torch.exp(m) - m_new),
        ("hint_tiled_scale", "exp(m + m')"): _online(s, v, block, scale=lambda m, m_new: torch.exp(m + m_new)),
        ("hint_tiled_update", "l"): _online(s, v, block, signs=(-1, 1)),
        ("hint_tiled_update", "acc"): _online(s, v, block, signs=(1, -1)),
        ("hint_tiled_final", "acc * l"): _online(s, v, block, final=lambda acc, l: acc * l),
        ("hint_tiled_final", "acc // l"): _online(s, v, block, final=lambda acc, l: acc // l),
    }
    if causal:
        out["hint_mask_fill_zero"] = _online(scores(fill="0"), v, block)
    return out


def tiled_error(kind: str, message: str, call: str = "") -> str | None:
    """A tensor where a length belongs (k, kb for k.size(2), kb.size(2)), or a tensor made on the CPU that met
    the meta device's (no device=q.device): the check's and the grader's alike."""
    if "meta" in call:
        return meta_error(kind, message)
    if "must match the size of tensor" in message and "non-singleton dimension 3" in message:
        return "hint_tiled_row_axis"   # amax over dim=-2 (or no keepdim): m is no (B, H, T, 1), and acc * scale fails
    if "only integer tensors of a single element" in message or (
            "arange() received an invalid combination" in message and "Tensor" in message):
        return "hint_tiled_size"
    return None


def hint_key(key):
    """A variant's key as a hint: (hint, "detail") is the hint; (hint, (fields…)) keeps its fields."""
    return key[0] if isinstance(key, tuple) and not isinstance(key[1], tuple) else key


def gqa_expected(module, x) -> dict:
    B_, T_, E_ = x.shape
    H_, G_ = module.n_head, module.n_kv_head
    D_ = E_ // H_
    q = split_heads(module.q_proj(x), H_)
    k, v = (split_heads(z, G_) for z in module.kv_proj(x).split(G_ * D_, dim=2))
    ones = torch.ones(T_, T_, dtype=torch.bool)
    keep = ones.tril()
    kk, vv = k.repeat_interleave(H_ // G_, 1), v.repeat_interleave(H_ // G_, 1)

    def attend(keys=kk, values=vv, mask=keep, scale=None, axis=-1, fill="-inf", merge=merge_heads, proj=True,
               product=lambda q, keys: q @ keys.transpose(-2, -1), query=q, softmax=True, out=lambda w, v: w @ v):
        raw = product(query, keys)
        s = raw / math.sqrt(D_) if scale is None else scale(raw)
        if mask is not None:
            s = masked(s, mask, fill)
        y = merge(out(torch.softmax(s, axis) if softmax else s, values))
        return module.c_proj(y) if proj else y

    variants = {
        None: attend(),
        "hint_gqa_repeat": attend(k.repeat(1, H_ // G_, 1, 1), v.repeat(1, H_ // G_, 1, 1)),
        "hint_causal_6": attend(mask=None),
        "hint_gqa_kv_swapped": attend(vv, kk),
        "hint_inverted_mask": attend(fill="inverted"),
        "hint_additive_nan": attend(fill="additive"),
        "hint_mask_multiplied": attend(fill="0"),
        "hint_upper_triangle": attend(mask=ones.triu()),
        "hint_mask_diagonal": attend(mask=ones.tril(diagonal=1)),
        ("hint_mask_diagonal", ()): attend(mask=ones.tril(diagonal=-1)),
        **scale_slips(lambda scale: attend(scale=scale), D_),
        ("hint_softmax_axis", (("axis", -2),)): attend(axis=-2),
        "hint_merge_without_transpose": attend(merge=lambda y: y.reshape(B_, T_, E_)),
        "hint_w_o_missing": attend(proj=False),
        "hint_gqa_q_not_projected": attend(query=split_heads(x, H_)),
        "hint_no_softmax": attend(softmax=False),
        ("hint_softmax_axis", (("axis", 0),)): attend(axis=0),
        ("hint_softmax_axis", (("axis", 1),)): attend(axis=1),
    }
    if T_ == D_:   # K not transposed only runs when T = D (as in the check): named as the crash is (gqa_error)
        variants["hint_gqa_shapes"] = attend(product=lambda q, keys: q @ keys)
        variants[("hint_gqa_shapes", ())] = attend(product=lambda q, keys: keys.transpose(-2, -1) @ q)
        variants[("hint_gqa_shapes", "v @ weights")] = attend(out=lambda w, v: v @ w)
    return variants


def gqa_error(kind: str, message: str, call: str = "") -> str | None:
    """What a GroupedQueryAttention that raised on right sizes and inputs says: the check's and the grader's alike."""
    if "meta" in call and "device" in message:   # a mask made on the CPU met the meta device's scores
        return "hint_mask_device"
    if kind == "InputError":   # the course's own size or input check refused right ones
        return "hint_gqa_expect_tokens" if ".forward" in call else "hint_gqa_init_args"
    if "object has no attribute" in message and any(
            f"'{a}'" in message for a in ("embed_dim", "n_head", "n_kv_head", "head_dim")):
        return "hint_gqa_attributes"
    if "repeat_interleave() received an invalid combination" in message and "got (float" in message:
        return "hint_int_division"   # repeat_interleave(H / G, …): a count is an int
    if any(m in message for m in ("must match", "cannot be multiplied", "Expected size", "mat1 and mat2",
                                  "view size is not compatible")):
        return "hint_gqa_shapes"     # K not transposed, or a head split out of order (view and transpose swapped)
    if "is invalid for input of size" in message or "values to unpack" in message:
        return "hint_gqa_sizes"      # H, G, D mixed up in a view or in kv_proj's split (which of the two fails first
    return None                      # depends on the sizes: the grader's are not the check's)


def gqa_output_hint(got, module, variants: dict, tol: float):
    """The classic mistake the output shows: the check's and the grader's alike."""
    y = got[0] if isinstance(got, tuple) else got
    hint = find_bug(y, variants, tol)
    if hint is None and isinstance(y, torch.Tensor) and merged_out_of_order(y, module.c_proj, variants[None], 1e-7):
        return "hint_merge_order_6"
    return hint


def same(got, want, tol: float) -> bool:
    """got equals want within tol, NaN where want has NaN (a mask that leaves a row with no key gives NaN:
    matching where the NaN are names which mask it was)."""
    if not (isinstance(got, torch.Tensor) and isinstance(want, torch.Tensor)) or got.shape != want.shape:
        return False
    a, b = got.detach().double(), want.detach().double()
    if not torch.equal(a.isnan(), b.isnan()):
        return False
    finite = ~a.isnan()
    return bool(((a - b).abs()[finite] <= tol).all()) if finite.any() else True


def find_bug(got, variants: dict, tol: float):
    """The first classic mistake (its hint key, or (key, fields)) whose result got equals, else None."""
    return next((hint_key(key) for key, want in variants.items() if key is not None and same(got, want, tol)), None)


def cache_content_bug(cache, host, x, hi: int):
    """The classic mistake the returned cache shows (keys and values swapped, or the new ones put before the
    old), or None: the visible check and the grader read the same cache."""
    E_ = x.size(-1)
    _, k, v = (split_heads(z, host.n_head) for z in host.c_attn(x[:, :hi]).split(E_, dim=2))
    try:
        ck, cv = cache
        if same(ck, v, 1e-9) and same(cv, k, 1e-9):
            return "hint_cache_kv_swapped"
        for lo in range(1, hi):
            if same(ck, torch.cat([k[:, :, lo:], k[:, :, :lo]], 2), 1e-9) or \
                    same(cv, torch.cat([v[:, :, lo:], v[:, :, :lo]], 2), 1e-9):
                return "hint_cache_cat_order"
    except (TypeError, ValueError, RuntimeError):
        return None
    return None


def fewer_tokens(y, want: tuple) -> bool:
    """An output of (B, n, E) with n < T_new: the last token's output alone (y[:, -1:]), as generation uses it, where
    every new token's is asked for (the check's and the grader's alike)."""
    return isinstance(y, torch.Tensor) and y.dim() == 3 and y.size(0) == want[0] and y.size(2) == want[2] \
        and y.size(1) < want[1]


def cache_error(kind: str, message: str, call: str = "") -> str | None:
    """What an attend_with_cache that raised says: the check's and the grader's alike."""
    if "meta" in call and ("meta" in message or "device" in message):   # a mask made on the CPU met meta scores
        return "hint_cache_device"
    if "NoneType" in message and "subscriptable" in message:   # cache[0] on the first call's None
        return "hint_cache_none"
    if "argument 'diagonal' must be int" in message:           # T_past = k - T_new: a tensor, not k.size(2)
        return "hint_cache_past_tensor"
    if "failed to unpack" in message and "float" in message:    # D = E / H: a float size in view
        return "hint_cache_float_dim"
    return None


def cache_output_hint(got, host, variants: dict, later=lambda: ()):
    """The classic mistake a wrong output shows (the check's and the grader's alike), or None.

    Where several give this chunk's output (T_past read from the heads' axis makes tril(diagonal=H - T_new): no
    mask at all at the check's prefill, H = 6, and diagonal - 1 at the grader's, H = 2), the later chunks' outputs
    keep those that explain them too: later() yields (output, that chunk's variants) for each chunk after this one,
    the check's calls and the grader's record alike."""
    keys = [key for key, want in variants.items() if key is not None and same(got, want, 1e-9)]
    if len(keys) > 1:
        for got_later, variants_later in later():
            kept = [key for key in keys if same(got_later, variants_later[key], 1e-9)]
            keys = kept or keys
            if len(keys) == 1:
                break
    if keys:
        return hint_key(keys[0])
    if isinstance(got, torch.Tensor) and merged_out_of_order(got, host.c_proj, variants[None], 1e-7):
        return "hint_merge_order_6"
    return None


def cache_variants(host, x, lo: int, hi: int) -> dict:
    """Outputs for tokens lo..hi-1 given a cache of 0..lo-1: right, and the classic cache bugs."""
    E_ = x.size(-1)
    q, k, v = (split_heads(z, host.n_head) for z in host.c_attn(x[:, :hi]).split(E_, dim=2))
    q_all = q   # the keys a k, q, v = … mix-up attends to (told apart at the prefill, where no cache mixes in)
    q = q[:, :, lo:hi]
    n = hi - lo
    ones = torch.ones(n, hi, dtype=torch.bool)
    right_keep = ones.tril(diagonal=lo)

    def attend(keys=k, values=v, keep=right_keep, scale=None, axis=-1, fill="-inf", query=q, softmax=True):
        raw = query @ keys.transpose(-2, -1)
        s = raw / math.sqrt(host.head_dim) if scale is None else scale(raw)
        if keep is not None:
            s = masked(s, keep, fill)
        return host.c_proj(merge_heads((torch.softmax(s, axis) if softmax else s) @ values))

    return {
        None: attend(),
        # T_past from cache[0].size(1), the heads' axis: right at the prefill (no cache), H after it. Before
        # "no mask": at the last chunks H can reach every key, and the prefill has already told "no mask" apart.
        "hint_cache_past_axis": attend(keep=ones.tril(diagonal=host.n_head if lo else 0)),
        "hint_causal_6": attend(keep=None),
        # T_past = k.size(1) - T_new, after the join: H - T_new, a prefill's "no mask" or "diagonal - 1" at some
        # sizes; the later chunks tell them apart (cache_output_hint).
        ("hint_cache_past_axis", ()): attend(keep=ones.tril(diagonal=host.n_head - n)),
        "hint_cache_mask_offset": attend(keep=ones.tril()),
        "hint_cache_mask_diagonal": attend(keep=ones.tril(diagonal=lo - 1)),   # NaN at the prefill's first row
        "hint_cache_unused": attend(k[:, :, lo:], v[:, :, lo:], tril(n)),
        "hint_cache_mask_sign": attend(keep=ones.tril(diagonal=-lo)),
        "hint_inverted_mask": attend(fill="inverted"),
        "hint_additive_nan": attend(fill="additive"),
        "hint_mask_multiplied": attend(fill="0"),
        "hint_upper_triangle": attend(keep=ones.triu(diagonal=lo)),
        "hint_qkv_order": attend(v, k),                                   # q, v, k = …split(E, dim=2)
        ("hint_qkv_order", ()): attend(q_all, v, query=k[:, :, lo:hi]),  # k, q, v = …
        **scale_slips(lambda scale: attend(scale=scale), host.head_dim),
        ("hint_softmax_axis", (("axis", -2),)): attend(axis=-2),
        ("hint_softmax_axis", (("axis", 0),)): attend(axis=0),
        ("hint_softmax_axis", (("axis", 1),)): attend(axis=1),
        "hint_no_softmax": attend(softmax=False),
    }
