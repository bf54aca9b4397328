"""Deciding a hidden test in the grader's process: the public API the reference modules use.

A reference module (autograder/reference/lessonN.py) registers one judge per probe:

    @judge("lesson1.attention_scores")
    def attention_scores_judge(res):       # res: Results, the same draws and what the kernel sent
        judge_function(res, attention_scores, probe.qk_inputs)

A judge returns when the learner's results are right, and raises Mismatch (a message
key and its fields, shown in the assignment's language) when they are not. It runs
after the learner's kernel has stopped, on inputs it draws itself from the seed it
chose, so nothing the kernel did can change a verdict: the kernel only sent results.
"""
from __future__ import annotations

import contextlib
import inspect
import logging
import math

import torch

from attn_course.findings import copy_finding, count_finding, grad_finding
from attn_course.probes.cases import DTYPE_CASES, TOLERANCE, as_tuple, backward_with_probe, differentiable
from attn_course.probes.codec import NoValues, Opaque, decode
from attn_course.probes.draws import Draws

__all__ = [
    "JUDGES", "Mismatch", "Results", "judge", "expect_close", "expect_equal", "expect_answer", "expect_layout",
    "expect_device", "judge_function", "judge_module", "max_error", "sibling", "DTYPE_CASES", "TOLERANCE",
    "matching_bug", "naming", "expect_finding", "expect_grads", "expect_copy",
]

JUDGES: dict = {}  # "lessonN.name" -> judge function
CASE_NAMES = {"float64": ("case_float64",), "float32": ("case_float32",)}  # how a case is named in a verdict
log = logging.getLogger(__name__)


def judge(test: str, on_error=None, partial: bool = False):
    """Register a judge. on_error: the hint key for any error the learner's code raised in the probe,
    where the exercise knows better than the error's text (as the visible check's run(on_error=...));
    or a function (kind, message, call) -> hint key or None, for an exercise where only some errors say it
    (call: what the probe called, as it named it, e.g. which step of a loop).
    partial: when the learner's code raised, the judge still runs on what the probe recorded before (a
    module's parameter layout): a mismatch found there is the verdict, since it names the cause (an
    nn.Linear built the wrong way round) where the error's text only says two sizes differ."""
    def register(fn):
        fn.on_error, fn.partial = on_error, partial
        JUDGES[test] = fn
        return fn
    return register


def sibling(this_file: str, lesson: str):
    """A reference module that lessons share (gpt2_module, kv_cache), from the folder this one is in."""
    from pathlib import Path

    from .loading import load
    return load(Path(this_file).parent, lesson)


class Mismatch(Exception):
    """The learner's results are not the reference's: a message key, its fields and an optional likely cause.

    hint: the key of the classic mistake the results match (the visible checks' hint), or
    (key, fields) when its text takes fields.
    """

    def __init__(self, key: str, hint: str | tuple | None = None, **fields):
        super().__init__(key)
        self.key, self.hint, self.fields = key, hint, fields
        self.also: list = []     # other classic mistakes the judge could tell apart, shown as "also: …"
        self.cause = None        # (exercise number, name): an earlier exercise's failing code this one uses

    def add_also(self, hint) -> None:
        def key(h):
            return h[0] if isinstance(h, tuple) else h
        if hint and key(hint) != key(self.hint) and key(hint) not in {key(a) for a in self.also}:
            self.also.append(hint)


# --------------------------------------------------------------------------- naming the mistake
def _same(got, want, tol: float, nan: bool = False) -> bool:
    if isinstance(want, torch.Tensor):
        if not (isinstance(got, torch.Tensor) and tuple(got.shape) == tuple(want.shape)):
            return False
        if nan:   # NaN matches NaN, and only NaN: the NaN must sit where the variant has its own
            if not torch.equal(got.isnan(), want.isnan()):
                return False
            got, want = got.nan_to_num(), want.nan_to_num()
        return max_error(got, want) <= tol
    if isinstance(want, (tuple, list)):
        return isinstance(got, (tuple, list)) and len(got) == len(want) and all(
            _same(g, w, tol, nan) for g, w in zip(got, want))
    if isinstance(want, dict):
        return isinstance(got, dict) and set(got) == set(want) and all(_same(got[k], want[k], tol, nan) for k in want)
    if isinstance(want, bool) or want is None:
        return got is want
    if isinstance(want, (int, float)):
        return isinstance(got, (int, float)) and not isinstance(got, bool) and abs(got - want) <= tol * max(1, abs(want))
    return got == want


def matching_bug(got, variants: dict, tol: float = 1e-6, nan: bool = False):
    """The hint of the first classic mistake whose result (computed by the grader on its own
    inputs) equals the learner's, or None.

    variants: {key: result}, as the visible checks build them (attn_course.checks.lessonN's
    …_variants). The key None is the right answer and is skipped; a key (hint, "detail") names
    one of several variants of one hint, as in the visible checks' diagnose(); a key
    (hint, (("field", value), …)) gives the hint's text its fields: (hint, {field: value}) is returned.
    nan: a result with NaN matches a variant with NaN in the very same places (the rest within tol), as
    a mistake that divides 0 by 0 does in the rows where the classic one does too; without it NaN matches nothing.
    """
    for key, want in variants.items():
        if key is None:
            continue
        try:
            same = _same(got, want, tol, nan)
        except (RuntimeError, TypeError, ValueError):
            continue
        if same:
            if isinstance(key, tuple):
                return (key[0], dict(key[1])) if isinstance(key[1], tuple) else key[0]
            return key
    return None


@contextlib.contextmanager
def naming(find_hint, *also):
    """Inside a judge: a Mismatch raised in the block, with no likely cause yet, gets
    find_hint()'s. Each of also is a finder of another classic mistake, independent of the
    comparison that failed (dropout's placement, the device): what they name is added as
    "also: …", so a learner with two mistakes learns of both. Naming the mistake never
    changes the verdict: if a finder fails, the Mismatch goes on without what it would name."""
    try:
        yield
    except Mismatch as mismatch:
        if mismatch.hint is None:
            try:
                mismatch.hint = find_hint()
            except Mismatch:   # a result the finder needs was not recorded (the learner's code raised first)
                pass
            except Exception:  # noqa: BLE001 - a diagnosis is a courtesy, the verdict stands
                log.warning("could not name the mistake", exc_info=True)
        for finder in also:
            try:
                mismatch.add_also(finder())
            except Mismatch:
                pass
            except Exception:  # noqa: BLE001
                log.warning("could not name a second mistake", exc_info=True)
        raise


class Results(Draws):
    """The grader's view of one probe: the same named draws, and the values the kernel sent."""

    def __init__(self, seed: int, test: str, values: dict):
        super().__init__(seed, test)
        self.raw = values if isinstance(values, dict) else {}

    def __contains__(self, key: str) -> bool:
        return key in self.raw

    def __getitem__(self, key: str):
        if key not in self.raw:
            raise Mismatch("results_unreadable", why=("why_missing_value", {"key": key}))
        value = decode(self.raw[key])
        if value is None and self.raw[key] != {"v": None}:
            raise Mismatch("results_unreadable", why=("why_not_decodable", {"key": key}))
        return value


def _kind(x) -> str:
    return x.kind if isinstance(x, Opaque) else type(x).__name__


def max_error(a: torch.Tensor, b: torch.Tensor) -> float:
    if a.shape != b.shape:
        return float("inf")
    diff = (a.detach().double() - b.detach().double()).abs()
    both_inf = torch.isinf(a) & torch.isinf(b) & (a == b)  # a -inf score compared with -inf is no error
    return float(diff.masked_fill(both_inf, 0.0).max()) if diff.numel() else 0.0


def expect_close(case: str, got, want: torch.Tensor, tol: float, check_dtype: bool = True) -> None:
    """got must be a tensor of want's shape (and dtype), equal to it within tol."""
    if not isinstance(got, torch.Tensor):
        raise Mismatch("hidden_not_tensor", case=case, kind=_kind(got))
    if tuple(got.shape) != tuple(want.shape):
        raise Mismatch("hidden_shape", case=case, want=tuple(want.shape), got=tuple(got.shape))
    if check_dtype and got.dtype != want.dtype:
        raise Mismatch("hidden_dtype", case=case, want=want.dtype, got=got.dtype)
    err = max_error(got, want)
    if not err <= tol:  # NaN compares False too
        raise Mismatch("hidden_mismatch", case=case, err=err)


def expect_equal(case: str, got, want: torch.Tensor) -> None:
    expect_close(case, got, want, 0.0)


def expect_device(case: str, got, device: str, hint: str | None = None) -> None:
    if not isinstance(got, (torch.Tensor, NoValues)):
        raise Mismatch("hidden_not_tensor", case=case, kind=_kind(got))
    if got.device.type != device:
        raise Mismatch("hidden_device", hint=hint, case=case, want=device, got=got.device.type)


def expect_answer(name: str, got, want: float, rel: float = 0.0, integer: bool = False, hint_of=None) -> None:
    """integer: the text asks for a whole number (a count), judged as the visible check judges it
    (attn_course.findings.count_finding; hint_of names the classic miscount)."""
    if integer:
        finding = count_finding(name, got, int(want), hint_of)
        if finding:
            key, fields, hint = finding
            raise Mismatch(key, hint=hint, **fields)
        return
    if isinstance(got, bool) or not isinstance(got, (int, float)):
        raise Mismatch("answer_not_number", name=name, kind=_kind(got))
    if not math.isfinite(got):
        raise Mismatch("answer_not_finite", name=name, got=repr(got))
    if integer and not isinstance(got, int):
        raise Mismatch("hint_answer_not_int", name=name, got=repr(got))
    if abs(got - want) > rel * abs(want):
        raise Mismatch("answer_wrong", name=name)


def cache_step(name: str, sizes: str, lo: int, hi: int, shape, want_shape: tuple) -> tuple:
    """One call of a learner's KV cache (lessons 6 and 7), fed tokens lo..hi-1: its cache must hold hi tokens in
    both parts (else a Mismatch naming the concatenation); returns the case that names its output."""
    if shape != [list(want_shape)] * 2:
        raise Mismatch("hidden_cache_shape", hint="hint_cache_concat", name=name, n=hi, want=want_shape, got=shape)
    fields = {"name": name, "sizes": sizes, "lo": lo, "last": hi - 1}
    return ("case_cache_token" if hi - lo == 1 else "case_cache_tokens", fields)


def expect_layout(res: Results, module: torch.nn.Module, key: str = "layout") -> None:
    """The learner's parameters must have the reference's names and shapes."""
    want = [(n, tuple(p.shape)) for n, p in module.named_parameters()]
    got = res[key]
    try:
        got = [(n, tuple(s)) for n, s in got]
    except (TypeError, ValueError):
        raise Mismatch("hidden_layout", want=_show_layout(want), got=_kind(got)) from None
    if got != want:
        raise Mismatch("hidden_layout", hint=_layer_shape(want, got), want=_show_layout(want), got=_show_layout(got))


def _layer_shape(want, got):
    """The visible checks' hint for the first of the projections W_q, W_k, W_v, W_o whose nn.Linear has other
    sizes than the reference's (hint_layer_shape; the reason, which the check gives, is left out here)."""
    shapes = dict(got)
    for name, shape in want:
        layer = name.removesuffix(".weight")
        if layer in ("W_q", "W_k", "W_v", "W_o") and name in shapes and shapes[name] != shape \
                and len(shape) == len(shapes[name]) == 2:
            return ("hint_layer_shape", {"name": layer, "want_in": shape[1], "want_out": shape[0],
                                         "got_in": shapes[name][1], "got_out": shapes[name][0], "why": ""})
    return None


def _show_layout(layout) -> str:
    return ", ".join(f"{n} {s}" for n, s in layout)


def expect_finding(finding) -> None:
    """A finding of attn_course.findings (key, fields, hint), decided as the visible check decides it, raised."""
    if finding:
        key, fields, hint = finding
        raise Mismatch(key, hint=hint, **fields)


def expect_grads(name: str, got, want_grads, names) -> None:
    """The learner's gradients (as the probe recorded them) against the reference's, by the check's rule."""
    expect_finding(grad_finding(name, got, want_grads, names))


def expect_copy(name: str, res: "Results", source, into: str | None = None) -> None:
    """A copy's invariants, by the check's rule: source (the reference's own draw of the source module) must equal
    what the probe recorded of it after the call, and the probe must have found no memory shared with it."""
    want = {n: p.detach() for n, p in source.named_parameters()}
    shared = res["shared"]
    expect_finding(copy_finding(name, want, res["source_after"], shared if isinstance(shared, list) else ["?"], into))


def _expect_grads(res: Results, key: str, want_grads, names, name: str = "") -> None:
    expect_grads(name, res[key], want_grads, names)


def _expect_outputs(case, got, want, tol) -> None:
    wants = as_tuple(want)
    gots = got if isinstance(got, tuple) else (got,)
    if len(gots) != len(wants):
        if len(wants) == 1:
            raise Mismatch("hidden_not_tensor", case=case, kind=_kind(got))
        raise Mismatch("hidden_not_tuple", case=case, n=len(wants), kind=_kind(got))
    swapped = len(wants) == 2 and all(isinstance(x, torch.Tensor) for x in (*gots, *wants)) and \
        gots[1].shape == wants[0].shape != gots[0].shape
    for g, w in zip(gots, wants):
        if w is None:
            continue
        try:
            expect_close(case, g, w, tol)
        except Mismatch as mismatch:
            if swapped and mismatch.hint is None:   # (weights, output): the visible checks' hint_pair_order
                mismatch.hint = ("hint_pair_order", {"name": "forward"})
            raise


def judge_function(res: Results, ref_fn, make_inputs, prefix: str = "", names=None) -> None:
    """The twin of attn_course.probes.cases.function_cases. names: the differentiable arguments', for a
    gradient's finding (by default their positions)."""
    for case, dtype in DTYPE_CASES:
        args = make_inputs(res, case, dtype)
        with torch.no_grad():
            want = ref_fn(*args)
        _expect_outputs(CASE_NAMES[case], res[prefix + case], want, TOLERANCE[case])
    args = differentiable(make_inputs(res, "grad", torch.float64))
    want = ref_fn(*args)
    _expect_outputs(("case_grad",), res[prefix + "grad"], want, TOLERANCE["float64"])
    leaves = [a for a in args if isinstance(a, torch.Tensor) and a.requires_grad]
    grads = backward_with_probe(res, want, leaves)
    # Named as the learner knows them: the exercise's function (the probe's name, not the reference's own) and
    # its arguments (the reference's parameters, which the text gives the learner's too).
    params = list(inspect.signature(ref_fn).parameters)
    names = names or [params[i] if i < len(params) else str(i) for i, a in enumerate(args)
                      if isinstance(a, torch.Tensor) and a.requires_grad]
    _expect_grads(res, prefix + "grad.inputs", grads, names, res.test.split(".", 1)[-1])


def judge_module(res: Results, ref_cls, make_args, make_input) -> None:
    """The twin of attn_course.probes.cases.module_cases: the reference gets the same drawn parameters."""
    args = make_args(res)
    ref = ref_cls(*args).double()
    expect_layout(res, ref)
    res.fill_parameters(ref)
    for case, dtype in DTYPE_CASES:
        ref.to(dtype)
        with torch.no_grad():
            want = ref(make_input(res, args, case, dtype))
        _expect_outputs(CASE_NAMES[case], res[case], want, TOLERANCE[case])
    ref.double()
    x = make_input(res, args, "grad", torch.float64).requires_grad_(True)
    want = ref(x)
    _expect_outputs(("case_grad",), res["grad"], want, TOLERANCE["float64"])
    names = ["x", *(n for n, _ in ref.named_parameters())]
    grads = backward_with_probe(res, want, [x, *ref.parameters()])
    _expect_grads(res, "grad.inputs", grads, names, ref_cls.__name__)
