"""Lesson 6's counts: the classic mistakes in the FLOPs of one attention layer and in the bytes of a KV cache, and
the hints a wrong count gets (a factor, a `/`), which the exercises' procedures (attn_course.probes.lesson6) name."""
from __future__ import annotations

import itertools
import math

import torch

from ..validate import dtype_bytes


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


def factor_hints(got, want: int, sizes: dict) -> list:
    """A count off by a factor: every (hint, {factor}) naming the one size, or two, whose product is want / got
    (missing: not multiplied, or divided by) or got / want (extra), in sizes' order, one size before two. A product
    of two constants is left out (2·3 is H=6)."""
    if isinstance(got, bool) or not isinstance(got, (int, float)) or not math.isfinite(got) or not want:
        return []
    if got == 0:
        return ["hint_count_zero"]
    found = []
    for n in (1, 2):
        for combo in itertools.combinations_with_replacement(list(sizes), n):
            if all(c.isdigit() for c in combo) and n == 2:
                continue
            product = math.prod(sizes[c] for c in combo)
            for key, ratio in (("hint_count_missing", want / got), ("hint_count_extra", got / want)):
                if abs(ratio - product) <= 1e-9 * product and (key, {"factor": "·".join(combo)}) not in found:
                    found.append((key, {"factor": "·".join(combo)}))
    return found


def flops_hint(sizes_and_counts):
    """The cause of wrong FLOPs, from [((B, T, E, H), got)] (the probe's three sizes): a count that is no Python
    number; else the causes that explain every wrong step of every size (a classic bug's step, a `/` where a `*`
    belongs, a factor), the first of them: with H = 2, "one head" and "multiply-adds" give the same scores. Every
    step the count but some of them floats: a `/` that divides exactly."""
    candidates, floats = None, False
    for sizes, got in sizes_and_counts:
        if isinstance(got, dict) and any(isinstance(v, bool) or not isinstance(v, (int, float)) for v in got.values()):
            return "hint_count_python_int"   # np.int64 (sent as Opaque), a tensor
        variants, named = flops_variants(*sizes), flops_sizes_named(*sizes)
        for key, want in variants[None].items():
            value = got.get(key) if isinstance(got, dict) else None
            floats = floats or (isinstance(value, float) and value == want)
            if value != want:
                fits = ([k for k, v in variants.items() if k and v[key] == value]
                        + [divided_hint([n]) for n in divided_fits(value, want, named)]
                        + factor_hints(value, want, named))
                candidates = fits if candidates is None else [k for k in candidates if k in fits]
    if floats and candidates is None:
        return "hint_count_float"
    return candidates[0] if candidates else None


def divided_fits(got, want: int, sizes: dict) -> list:
    """The sizes whose square is want / got, for a float count not the count: each is a `/` where its `*` belongs
    (`2 * B * H * T / D`: 1 / D too many, one D too few). Those that fit are named in sizes' order."""
    if isinstance(got, bool) or not isinstance(got, float) or not math.isfinite(got) or got <= 0 or got == want:
        return []
    return [n for n, s in sizes.items() if s > 1 and abs(want / got - s * s) <= 1e-9 * s * s]


def divided_hint(fits):
    return ("hint_count_divided", {"factor": fits[0]}) if fits else None


def flops_sizes_named(B_, T_, E_, H_) -> dict:
    return {"2": 2, "3": 3, "B": B_, "T": T_, "H": H_, "D": E_ // H_, "E": E_}


KV_NAMES = ("n_layer", "batch", "T", "n_kv_head", "head_dim")


def kv_type_hint(cases):
    """The hint for counts that are no int, from [(sizes, dtype, got, want)]: a tensor (torch.empty's, without
    .element_size()), a `/` where a `*` belongs (the size every wrong float is divided by twice over: one dtype's
    sizes can tie), or a float that is the count (a `/` that divides exactly)."""
    fits, exact = None, False
    for sizes, dtype, got, want in cases:
        if isinstance(got, torch.Tensor):
            return "hint_kv_tensor"
        if not isinstance(got, (int, float)) or isinstance(got, bool):   # np.int64, or what the grader got as Opaque
            return "hint_count_python_int"
        exact = exact or (isinstance(got, float) and got == want)
        if isinstance(got, float) and got != want:
            named = dict(zip(KV_NAMES, sizes)) | {"element_size()": dtype_bytes(dtype)}
            found = divided_fits(got, want, named)
            fits = found if fits is None else [n for n in fits if n in found]
    return divided_hint(fits) or ("hint_kv_float" if exact and fits is None else None)


# The dtypes a KV cache is counted in: float16 first, where "2 bytes whatever the dtype" and "keys only" part;
# float64 and int8 (a quantized cache), where a table of float16 and float32 sizes or torch.finfo (floating dtypes
# only) fails.
KV_DTYPES = (torch.float16, torch.float32, torch.float64, torch.int8)


def kv_finding(cases):
    """The diagnosis of kv_cache_bytes: cases [(sizes, dtype, got, want)] in KV_DTYPES' order -> None, or
    (message key, fields, hint) for the first count that is wrong."""
    for sizes, dtype, got, want in cases:
        if isinstance(got, bool) or not isinstance(got, int):
            failure = "flops_not_int" if isinstance(got, float) else "count_not_python_int"
            return failure, {"step": "kv_cache_bytes", "kind": type(got).__name__}, kv_type_hint(cases)
    wrong = [case for case in cases if case[2] != case[3]]
    if not wrong:
        return None
    sizes, dtype, got, want = wrong[0]
    return "kv_bytes_differs", {"got": got, "want": want, "dtype": str(dtype).replace("torch.", ""),
                                "sizes": ", ".join(f"{k}={v}" for k, v in zip(KV_NAMES, sizes))}, kv_hint(cases, wrong)


def kv_hint(cases, wrong):
    """The cause the counts show across the dtypes: one factor off at every dtype (K only, bits, no n_layer); or
    bytes that do not follow the dtype (a fixed 2 or 4, or right at some dtypes and not at others)."""
    def everywhere(rule):
        return all(got == rule(sizes, want) for sizes, _, got, want in cases)
    for key, rule in (("hint_kv_both", lambda sizes, want: want // 2), ("hint_kv_bits", lambda sizes, want: want * 8),
                      ("hint_kv_layers", lambda sizes, want: want // sizes[0])):
        if everywhere(rule):
            return key
    fixed = (lambda sizes, want, n=n: 2 * math.prod(sizes) * n for n in (1, 2, 4, 8))   # n bytes whatever the dtype
    if len(wrong) < len(cases) or any(everywhere(rule) for rule in fixed):
        return "hint_kv_dtype"
    return None


def kv_error(kind: str, message: str, call: str = "") -> str | None:
    """What a kv_cache_bytes that raised says: torch.finfo of an integer dtype, or a table without the dtype."""
    if "finfo" in message or kind == "KeyError" and "torch." in message:
        return "hint_kv_element_size"
    return None
