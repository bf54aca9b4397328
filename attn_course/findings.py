"""What differed, decided once for the visible check and the grader's judge alike.

Each function here is pure: from what the learner's code gave (gradients, the source module's parameters after a
copy, the globals its code read) and the right answer, it returns a finding, (message key, fields, hint key or
None), or None when nothing differs. The visible check computes the right answer from the course's own code and
renders the finding in the learner's language (CheckFailed); the judge computes it from the hidden reference and
raises it as a Mismatch. One rule, so ✔ in the notebook and the grade cannot part over it.
"""
from __future__ import annotations

import math

import torch

# The families a finding belongs to: the grader's header says which one differed (attn_grader.verdict.header_key).
GRADIENT_KEYS = frozenset({"grad_none", "grad_missing", "grad_differs"})
SIDE_EFFECT_KEYS = frozenset({"copy_source_changed", "copy_shares_memory"})
# An answer (a number the learner writes) has no inputs: its header says the value was judged, not "other inputs".
ANSWER_KEYS = frozenset({"answer_missing", "answer_not_int_kind", "answer_not_number", "answer_not_finite",
                         "hint_answer_not_int", "answer_wrong"})


def _max_error(a: torch.Tensor, b: torch.Tensor) -> float:
    return float((a.detach().double() - b.detach().double()).abs().max()) if a.numel() else 0.0


def grad_finding(name: str, got, want, names, tol: float = 1e-8):
    """got, want: the gradients of the leaves named names (attn_course.probes.cases.backward_with_probe), got None
    when no output of the learner's code carries a gradient. A leaf whose right gradient is None is not compared.
    Both sides compare gradients only once the outputs are right: a gradient that still differs comes from part of
    the computation cut off the graph (a detach, .data, torch.no_grad() around the scores), hence the one hint."""
    if want is None:
        return None
    if got is None:
        return "grad_none", {"name": name}, "hint_grad_cut"
    got = list(got) + [None] * (len(want) - len(got))
    for arg, g, w in zip(names, got, want):
        if w is None:
            continue
        if not isinstance(g, torch.Tensor):
            return "grad_missing", {"name": name, "arg": arg}, "hint_grad_cut"
        if g.shape != w.shape:
            return "grad_missing", {"name": name, "arg": arg}, "hint_grad_cut"
        err = _max_error(g, w)
        if not err <= tol:
            return "grad_differs", {"name": name, "arg": arg, "err": err}, "hint_grad_cut"
    return None


def copy_finding(name: str, source_want: dict, source_after: dict, shared: list, untrainable=(),
                 into: str | None = None):
    """A copy's invariants: the source module is unchanged (source_after equals source_want, its parameters before
    the call, by name), no parameter of the copy shares memory with the source (shared: the copy's parameter
    names that do, as the kernel found them), and, where the exercise's copy is a module to train, every parameter
    of it is one (untrainable: those that are not, findings.untrainable). A copy_ the wrong way round overwrites the
    source, so the two agree and a comparison of the copy with the source alone passes."""
    for key, want in source_want.items():
        got = source_after.get(key) if isinstance(source_after, dict) else None
        if not (isinstance(got, torch.Tensor) and got.shape == want.shape
                and torch.equal(got.detach().to(want.dtype), want.detach())):
            return "copy_source_changed", {"name": name, "param": key}, "hint_copy_direction"
    if shared:   # into: the argument the exercise writes into (ex6 writes into hf, not into the learner's module)
        hint = ("hint_copy_shares_memory_into", {"target": into}) if into else "hint_copy_shares_memory"
        return "copy_shares_memory", {"name": name, "param": ", ".join(map(str, shared))}, hint
    if untrainable:
        return "copy_not_trainable", {"name": name, "param": ", ".join(map(str, untrainable))}, "hint_copy_trainable"
    return None


def target_finding(name: str, target: str, problem) -> tuple | None:
    """The argument an exercise writes into (target: its name in the code, `mine`, `hf`) left without the copy
    while the returned module holds it: a new module or a deepcopy filled and returned. problem: what differs in
    the target (a hint key or None), as the exercise judges its copy."""
    if problem:
        return "copy_target_unchanged", {"name": name, "target": target}, ("hint_copy_into_target", {"target": target})
    return None


def untrainable(copy: torch.nn.Module) -> list[str]:
    """The copy's parameters an optimizer cannot train: gradients turned off (requires_grad_(False)), or no longer a
    leaf (a copy_ with gradients on into a parameter whose gradients were off makes it a computation on the source's
    weights, through which a backward pass reaches the source)."""
    return [n for n, p in copy.named_parameters() if not (p.is_leaf and p.requires_grad)]


def shared_memory(copy: torch.nn.Module, source: torch.nn.Module) -> list[str]:
    """The copy's parameters whose memory is (part of) a source parameter's: an assigned Parameter, a view, .data."""
    def span(p):
        storage = p.untyped_storage()
        return storage.data_ptr(), storage.data_ptr() + storage.nbytes()
    sources = [span(p) for p in source.parameters() if p.device.type != "meta"]
    found = []
    for pname, p in copy.named_parameters():
        if p.device.type == "meta":
            continue
        lo, hi = span(p)
        if any(lo < s_hi and s_lo < hi for s_lo, s_hi in sources):
            found.append(pname)
    return found


def snapshot(module: torch.nn.Module) -> dict:
    """The module's parameters by name, copied: what the source must still hold after the call."""
    return {n: p.detach().clone() for n, p in module.named_parameters()}


def dtype_finding(name: str, got, want_dtype):
    """An output of another dtype than the input's (the case's float64 or float32): both sides try both dtypes
    (attn_course.probes.cases.DTYPE_CASES), and a result made in another dtype is wrong in either."""
    gots = got if isinstance(got, (tuple, list)) else (got,)
    for g in gots:
        if isinstance(g, torch.Tensor) and g.is_floating_point() and g.dtype != want_dtype:
            return "case_dtype", {"name": name, "want": str(want_dtype), "got": str(g.dtype)}, "hint_keep_dtype"
    return None


def float32_rounded(got, want) -> bool:
    """A float64 result that equals the right one only to float32's precision (about 1e-7 of its size): computed in
    float32 on the way (.float(), a tensor made without dtype=), then turned back. Any larger difference has another
    cause."""
    if not (isinstance(got, torch.Tensor) and isinstance(want, torch.Tensor) and got.shape == want.shape
            and got.dtype == want.dtype == torch.float64 and want.numel()):
        return False
    err = _max_error(got, want)
    return 1e-10 < err <= 1e-5 * max(1.0, float(want.detach().abs().max()))


def global_read_finding(reads: list):
    """Code that read the notebook's own sizes and still gave right results (a global of a fitting value): a
    failure of its own on both sides, as its results hold only while that global does. None without reads."""
    hint = global_finding(reads)
    return ("global_size_read", hint[1], hint) if hint else None


def global_finding(reads: list):
    """The hint for code that read the notebook's own sizes (attn_course.sizes.globals_read), else None."""
    if reads and isinstance(reads, list) and all(isinstance(r, str) for r in reads):
        return "hint_global_size", {"names": ", ".join(reads)}
    return None


def count_finding(name: str, got, want: int | None, hint_of=None):
    """A count (a whole number the learner writes) against the right one: the check's want comes from the course's
    public facts, the judge's from its reference. hint_of(got) names the classic miscount (or None). The same
    words for every wrong type: a count is an int, so a str and a float are both told so."""
    if isinstance(got, torch.Tensor) and got.numel() == 1:
        got = got.item()
    if got is None or got is ...:
        return "answer_missing", {"name": name}, None
    if isinstance(got, bool) or not isinstance(got, (int, float)):
        return "answer_not_int_kind", {"name": name, "kind": type(got).__name__}, None
    if not math.isfinite(got):
        return "answer_not_finite", {"name": name, "got": repr(got)}, None
    if not isinstance(got, int):
        return "hint_answer_not_int", {"name": name, "got": repr(got)}, None
    if want is not None and got != want:   # without want: the type alone (a check that counts otherwise)
        return "answer_wrong", {"name": name}, hint_of(got) if hint_of else None
    return None
