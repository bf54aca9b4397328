"""Lesson 6's counts: the FLOPs of one attention layer and the bytes of a KV cache, each checked by one diagnosis
that the visible check and the grader's judge both call, and the hints a wrong count gets (a factor, a `/`)."""
from __future__ import annotations

import itertools
import math

import torch

from ..messages import t
from ..validate import CheckFailed, dtype_bytes
from .engine import passed, run

# Batch, sequence, heads, head width: all different, and none 2 or 3, since the FLOPs bugs
# divide by 2 (multiply-adds) and 3 (Q only).
B, T, H, D = 5, 11, 6, 7


def say(hint):
    """The text of a hint key, or of (key, {fields})."""
    if hint is None:
        return None
    return t(hint[0], **dict(hint[1])) if isinstance(hint, tuple) else t(hint)


def flops_variants(B_, T_, E_, H_) -> dict:
    D_ = E_ // H_
    right = {"qkv": 2 * B_ * T_ * E_ * 3 * E_, "scores": 2 * B_ * H_ * T_ * T_ * D_,
             "weighted_sum": 2 * B_ * H_ * T_ * T_ * D_, "out_proj": 2 * B_ * T_ * E_ * E_}
    return {
        None: right,
        "hint_flops_macs": {k: v // 2 for k, v in right.items()},
        "hint_flops_heads": right | {"scores": right["scores"] // H_, "weighted_sum": right["weighted_sum"] // H_},
        "hint_flops_qkv3": right | {"qkv": right["qkv"] // 3},
        "hint_flops_batch": {k: v // B_ for k, v in right.items()},
    }


def factor_hint(got, want: int, sizes: dict):
    """A count off by a factor: (hint, {factor}) naming the one size, or two, whose product is want / got
    (missing: not multiplied, or divided by) or got / want (extra); the first in sizes' order, one size
    before two. None when no such factor explains it. A product of two constants is left out (2·3 is H=6)."""
    if isinstance(got, bool) or not isinstance(got, (int, float)) or not math.isfinite(got) or not want:
        return None
    if got == 0:
        return "hint_count_zero"
    names = list(sizes)
    for n in (1, 2):
        for combo in itertools.combinations_with_replacement(names, n):
            if all(c.isdigit() for c in combo) and n == 2:
                continue
            product = math.prod(sizes[c] for c in combo)
            for key, ratio in (("hint_count_missing", want / got), ("hint_count_extra", got / want)):
                if abs(ratio - product) <= 1e-9 * product:
                    return (key, (("factor", "·".join(combo)),))
    return None


def divided_fits(got, want: int, sizes: dict) -> list:
    """The sizes whose square is want / got, for a float count not the count: each is a `/` where its `*` belongs
    (`2 * B * H * T / D`: 1 / D too many, one D too few). Those that fit are named in sizes' order."""
    if isinstance(got, bool) or not isinstance(got, float) or not math.isfinite(got) or got <= 0 or got == want:
        return []
    return [n for n, s in sizes.items() if s > 1 and abs(want / got - s * s) <= 1e-9 * s * s]


def divided_hint(fits):
    return ("hint_count_divided", (("factor", fits[0]),)) if fits else None


def flops_sizes_named(B_, T_, E_, H_) -> dict:
    return {"2": 2, "3": 3, "B": B_, "T": T_, "H": H_, "D": E_ // H_, "E": E_}


def check_attention_flops(fn) -> None:
    name = "attention_flops"
    E_ = H * D
    got = run(name, fn, B, T, E_, H)
    variants = flops_variants(B, T, E_, H)
    right = variants[None]
    if not isinstance(got, dict) or set(got) != set(right):
        raise CheckFailed(t("flops_keys", name=name, want=", ".join(right),
                            got=", ".join(map(str, got)) if isinstance(got, dict) else type(got).__name__))
    for key, want in right.items():
        value = got[key]
        if isinstance(value, bool) or not isinstance(value, (int, float)):   # np.int64, a tensor: no `/` to blame
            raise CheckFailed(t("count_not_python_int", step=key, kind=type(value).__name__), t("hint_count_python_int"))
        if isinstance(value, float) and value == want:
            raise CheckFailed(t("flops_not_int", step=key, kind=type(value).__name__), t("hint_count_float"))
        if value != want:   # a float that is not the count either: the formula is the mistake, not the division
            hint = next((k for k, v in variants.items() if k and v[key] == value and v[key] != want), None)
            hint = hint or divided_hint(divided_fits(value, want, flops_sizes_named(B, T, E_, H)))
            hint = hint or factor_hint(value, want, flops_sizes_named(B, T, E_, H))
            raise CheckFailed(t("flops_differs", step=key, got=value, want=want,
                                sizes=f"B={B}, T={T}, E={E_}, H={H}"), say(hint))
    passed(name)


KV_NAMES = ("n_layer", "batch", "T", "n_kv_head", "head_dim")


def kv_type_hint(cases):
    """The hint for counts that are no int, from [(sizes, dtype, got)] (the check's two dtypes, the grader's four):
    a tensor (torch.empty's, without .element_size()), a `/` where a `*` belongs (the size every wrong float is
    divided by twice over: one dtype's sizes can tie), or a float that is the count (a `/` that divides exactly)."""
    fits, exact = None, False
    for sizes, dtype, got in cases:
        if isinstance(got, torch.Tensor):
            return "hint_kv_tensor"
        if not isinstance(got, (int, float)) or isinstance(got, bool):   # np.int64, or what the grader got as Opaque
            return "hint_count_python_int"
        want = 2 * math.prod(sizes) * dtype_bytes(dtype)
        exact = exact or (isinstance(got, float) and got == want)
        if isinstance(got, float) and got != want:
            named = dict(zip(KV_NAMES, sizes)) | {"element_size()": dtype_bytes(dtype)}
            found = divided_fits(got, want, named)
            fits = found if fits is None else [n for n in fits if n in found]
    return divided_hint(fits) or ("hint_kv_float" if exact and fits is None else None)


# The dtypes a KV cache is counted in, by the check and the probe alike: float16 first, where "2 bytes whatever the
# dtype" and "keys only" part; float64 and int8 (a quantized cache), where a table of float16 and float32 sizes or
# torch.finfo (floating dtypes only) fails.
KV_DTYPES = (torch.float16, torch.float32, torch.float64, torch.int8)
KV_SIZES = dict(n_layer=4, batch=3, T=11, n_kv_head=2, head_dim=5)   # the visible check's; the probe draws its own


def kv_finding(cases):
    """The one diagnosis of kv_cache_bytes, the check's and the grader's: cases [(sizes, dtype, got)] in KV_DTYPES'
    order -> None, or (message key, fields, hint) for the first count that is wrong."""
    for sizes, dtype, got in cases:
        if isinstance(got, bool) or not isinstance(got, int):
            failure = "flops_not_int" if isinstance(got, float) else "count_not_python_int"
            hint = kv_type_hint(cases)
            hint = (hint[0], dict(hint[1])) if isinstance(hint, tuple) else hint
            return failure, {"step": "kv_cache_bytes", "kind": type(got).__name__}, hint
    wrong = [(sizes, dtype, got) for sizes, dtype, got in cases if got != 2 * math.prod(sizes) * dtype_bytes(dtype)]
    if not wrong:
        return None
    sizes, dtype, got = wrong[0]
    want = 2 * math.prod(sizes) * dtype_bytes(dtype)
    return "kv_bytes_differs", {"got": got, "want": want, "dtype": str(dtype).replace("torch.", ""),
                                "sizes": ", ".join(f"{k}={v}" for k, v in zip(KV_NAMES, sizes))}, kv_hint(cases, wrong)


def kv_hint(cases, wrong):
    """The cause the counts show across the dtypes: one factor off at every dtype (K only, bits, no n_layer); or
    bytes that do not follow the dtype (a fixed 2 or 4, or right at some dtypes and not at others)."""
    def everywhere(rule):
        return all(got == rule(sizes, 2 * math.prod(sizes) * dtype_bytes(dtype)) for sizes, dtype, got in cases)
    for key, rule in (("hint_kv_both", lambda sizes, want: want // 2), ("hint_kv_bits", lambda sizes, want: want * 8),
                      ("hint_kv_layers", lambda sizes, want: want // sizes[0])):
        if everywhere(rule):
            return key
    if len(wrong) < len(cases) or any(everywhere(lambda sizes, want, n=n: 2 * math.prod(sizes) * n) for n in (1, 2, 4, 8)):
        return "hint_kv_dtype"
    return None


def kv_error(kind: str, message: str, call: str = "") -> str | None:
    """What a kv_cache_bytes that raised says: torch.finfo of an integer dtype, or a table without the dtype."""
    if "finfo" in message or kind == "KeyError" and "torch." in message:
        return "hint_kv_element_size"
    return None


def check_kv_cache_bytes(fn) -> None:
    name = "kv_cache_bytes"
    sizes = tuple(KV_SIZES.values())
    finding = kv_finding([(sizes, dtype, run(name, fn, *sizes, dtype, on_error=kv_error)) for dtype in KV_DTYPES])
    if finding:
        key, fields, hint = finding
        raise CheckFailed(t(key, **fields), say(hint))
    passed(name)
