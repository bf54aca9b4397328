"""Judging one exercise's results: the API every exercise's procedure uses, in the grader and in the kernel alike.

An exercise's procedure (attn_course/probes/lessonN.py) takes what its probe recorded (Results: the same named draws
and the values the learner's code returned, decoded by the codec) and the right implementation, and returns when
the results are right or raises Mismatch (a message key, its fields and the likely mistake). The grader runs it with
the hidden reference (autograder/reference/lessonN.py registers it through attn_grader.judge), after the kernel has
stopped; the visible check runs it in the kernel with the right answer the course's public facts give, on a seed
of its own (verify). Only the seed differs.
"""
from __future__ import annotations

import contextlib
import inspect
import logging
import math

import torch

from . import by_hand
from .checks.engine import error_gloss, mentions_dot_T, raised_hint
from .findings import copy_finding, count_finding, global_finding, global_read_finding, grad_finding
from .probes.cases import DTYPE_CASES, TOLERANCE, as_tuple, backward_with_probe, differentiable
from .probes.codec import NoValues, Opaque, decode
from .probes.draws import Draws

__all__ = [
    "Mismatch", "Results", "expect_close", "expect_equal", "expect_answer", "expect_layout", "expect_device",
    "judge_function", "judge_module", "judge_case", "max_error", "DTYPE_CASES", "TOLERANCE", "matching_bug", "naming",
    "expect_finding", "expect_grads", "expect_copy", "expect_outputs", "cache_step", "procedure", "decide", "hint_of", "texts", "verify",
]

# How a case is named in a verdict: the dtype cases every exercise runs, and the cases an exercise adds (judge_case).
CASE_NAMES = {"float64": ("case_float64",), "float32": ("case_float32",), "unbatched": ("case_unbatched",)}
log = logging.getLogger(__name__)


def procedure(on_error=None, partial: bool = False):
    """Mark an exercise's procedure `fn(res, right)`. on_error: the hint key for any error the learner's code raised
    in the probe, where the exercise knows better than the error's text; or a function (kind, message, call) -> hint
    key or None, for an exercise where only some errors say it (call: what the probe called, as it named it).
    partial: when the learner's code raised, the procedure still runs on what the probe recorded before (a module's
    parameter layout): a mismatch found there is the verdict, since it names the cause where the error's text only
    says two sizes differ."""
    def mark(fn):
        fn.on_error, fn.partial = on_error, partial
        return fn
    return mark


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
        return isinstance(got, (int, float)) and not isinstance(got, bool) and \
            abs(got - want) <= tol * max(1, abs(want))
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


def expect_pair_close(key: str, got, want: tuple, tol: float) -> None:
    """got: the (output, weights) pair a module returned, each within tol of want's; else Mismatch(key, err), an
    infinite err where got is no such pair."""
    if not (isinstance(got, tuple) and len(got) == 2 and all(isinstance(g, torch.Tensor) for g in got)) or \
            got[0].shape != want[0].shape or got[1].shape != want[1].shape:
        raise Mismatch(key, err=float("inf"))
    err = max(max_error(got[0], want[0]), max_error(got[1], want[1]))
    if not err <= tol:
        raise Mismatch(key, err=err)


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
    what the probe recorded of it after the call, the probe must have found no memory shared with it, and no
    parameter of the copy that cannot be trained (where the probe looks for them: "untrainable")."""
    want = {n: p.detach() for n, p in source.named_parameters()}
    shared = res["shared"]
    frozen = res["untrainable"] if "untrainable" in res else []
    expect_finding(copy_finding(name, want, res["source_after"], shared if isinstance(shared, list) else ["?"],
                                frozen if isinstance(frozen, list) else ["?"], into))


def _expect_grads(res: Results, key: str, want_grads, names, name: str = "") -> None:
    expect_grads(name, res[key], want_grads, names)


def expect_outputs(case, got, want, tol, name: str = "forward") -> None:
    """name: the call that returned got, as the learner knows it (a pair returned the other way round names it)."""
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
                mismatch.hint = ("hint_pair_order", {"name": name})
            raise


def judge_function(res: Results, ref_fn, make_inputs, prefix: str = "", names=None, grads: bool = True,
                   tolerance=None) -> None:
    """The twin of attn_course.probes.cases.function_cases. names: the differentiable arguments', for a
    gradient's finding (by default their positions). grads=False: values alone, as the probe ran them.
    tolerance: {case: largest difference} where the reference computes in float32 inside (transformers' softmax)."""
    call = res.test.split(".", 1)[-1]
    for case, dtype in DTYPE_CASES:
        args = make_inputs(res, case, dtype)
        with torch.no_grad():
            want = ref_fn(*args)
        expect_outputs(CASE_NAMES[case], res[prefix + case], want, (tolerance or TOLERANCE)[case], call)
    if not grads:
        return
    args = differentiable(make_inputs(res, "grad", torch.float64))
    want = ref_fn(*args)
    expect_outputs(("case_grad",), res[prefix + "grad"], want, TOLERANCE["float64"], call)
    leaves = [a for a in args if isinstance(a, torch.Tensor) and a.requires_grad]
    grads = backward_with_probe(res, want, leaves)
    # Named as the learner knows them: the exercise's function (the probe's name, not the reference's own) and
    # its arguments (the reference's parameters, which the text gives the learner's too).
    params = list(inspect.signature(ref_fn).parameters)
    names = names or [params[i] if i < len(params) else str(i) for i, a in enumerate(args)
                      if isinstance(a, torch.Tensor) and a.requires_grad]
    _expect_grads(res, prefix + "grad.inputs", grads, names, call)


def judge_module(res: Results, ref_cls, make_args, make_input, name: str | None = None) -> None:
    """The twin of attn_course.probes.cases.module_cases: the reference gets the same drawn parameters. name: the
    module's, as the learner knows it (by default the reference's class name)."""
    args = make_args(res)
    ref = ref_cls(*args).double()
    name = name or ref_cls.__name__
    expect_layout(res, ref)
    res.fill_parameters(ref)
    for case, dtype in DTYPE_CASES:
        ref.to(dtype)
        with torch.no_grad():
            want = ref(make_input(res, args, case, dtype))
        expect_outputs(CASE_NAMES[case], res[case], want, TOLERANCE[case], f"{name}.forward")
    ref.double()
    x = make_input(res, args, "grad", torch.float64).requires_grad_(True)
    want = ref(x)
    expect_outputs(("case_grad",), res["grad"], want, TOLERANCE["float64"], f"{name}.forward")
    names = ["x", *(n for n, _ in ref.named_parameters())]
    grads = backward_with_probe(res, want, [x, *ref.parameters()])
    _expect_grads(res, "grad.inputs", grads, names, name)


def judge_case(res: Results, key: str, ref_fn, args, tol: float = TOLERANCE["float64"]) -> None:
    """One more case the probe ran by hand beside function_cases (an unbatched input, say): res[key] against
    ref_fn(*args), named in a verdict by the message key case_<key>."""
    with torch.no_grad():
        want = ref_fn(*args)
    expect_outputs(CASE_NAMES[key], res[key], want, tol, res.test.split(".", 1)[-1])


# --------------------------------------------------------------------------- one verdict, from a probe's payload
def hint_of(mismatch: Mismatch | None) -> tuple[str | None, dict]:
    """The likely mistake's message key and its fields (None when no classic mistake matched)."""
    if mismatch is None:
        return None, {}
    hint = mismatch.hint
    if hint is None and mismatch.key.startswith("hint_"):  # the verdict's message is the hint itself
        return mismatch.key, {k: v for k, v in mismatch.fields.items() if not isinstance(v, tuple)}
    if isinstance(hint, tuple):
        return hint[0], dict(hint[1]) if len(hint) > 1 else {}
    return hint, {}


def texts(mismatch: Mismatch, say, key: str | None = None) -> tuple[str, tuple | None, list]:
    """The mismatch in one language's words, say(key, **fields): (its message, (hint key, hint text) or None, the
    "also" texts). A field given as (key,) or (key, fields) is a message too. key: the message's own key, where the
    visible check words it otherwise than the grader; "" leaves the message out."""
    def filled(given: dict) -> dict:
        return {name: say(value[0], **(value[1] if len(value) > 1 else {}))
                if isinstance(value, tuple) and value and isinstance(value[0], str) else value
                for name, value in given.items()}

    message = say(key or mismatch.key, **filled(mismatch.fields)) if key != "" else ""
    hint_key, hint_fields = hint_of(mismatch)
    # A message that is the hint itself is not said again as its likely cause.
    hint = (hint_key, say(hint_key, **filled(hint_fields))) if hint_key and hint_key != mismatch.key else None
    also = []
    for other in mismatch.also:
        other_key, other_fields = (other[0], dict(other[1]) if len(other) > 1 else {}) if isinstance(other, tuple) \
            else (other, {})
        if other_key != mismatch.key:
            also.append(say(other_key, **other_fields))
    return message, hint, also


def _raised(proc, raised: dict, source: str, test: str = "") -> Mismatch:
    """The learner's code raised inside the probe: the mistake is named by the rules the checks use for an error
    (attn_course.checks.engine.raised_hint), the exercise's own on_error first."""
    kind, message = str(raised.get("kind", "")), str(raised.get("message", ""))
    call = str(raised.get("call", "?"))[:80]
    if kind == by_hand.REFUSED_KIND:  # the library's attention (or the course's checks) in a by-hand exercise
        return Mismatch(by_hand.message_key(message, hidden=True), name=call, what=by_hand.refused_what(message)[:120],
                        hint=by_hand.hint_for(message, by_hand.PROBE_RULES.get(test), call))
    hint = raised_hint(getattr(proc, "on_error", None), kind, message, call,
                       raised.get("dot_T") is True or mentions_dot_T(source))
    error = (f"{kind}: {message}" if message else kind)[:300]
    gloss = error_gloss(error)   # the English error glossed in the learner's language, as the check shows it
    return Mismatch("hidden_raised", hint=hint, name=call, error=gloss or error)


def _partial(proc, seed: int, test: str, payload: dict) -> Mismatch | None:
    """A procedure marked partial, on the results recorded before the learner's code raised: the mismatch it finds
    there (not one about a missing result), else None."""
    values = payload.get("values")
    if not getattr(proc, "partial", False) or not isinstance(values, dict) or not values:
        return None
    try:
        proc(Results(seed, test, values))
    except Mismatch as mismatch:
        return None if mismatch.key == "results_unreadable" else mismatch
    except Exception:  # noqa: BLE001 - partial results the right answer cannot use: the error speaks
        return None
    return None


def _by_hand_kept(payload) -> bool:
    """A by-hand exercise's results must say the guards were up for every call of the learner's code and none was
    refused: a probe the learner's code replaced or skipped sends no such record."""
    kept = payload.get("by_hand") if isinstance(payload, dict) else None
    return isinstance(kept, dict) and kept.get("intact") is True and type(kept.get("calls")) is int \
        and kept["calls"] >= 1


def _global_hint(mismatch: Mismatch | None, payload) -> Mismatch | None:
    """The learner's code read a size the notebook binds (the probe says which): that is the likely cause, named
    first; any other hint follows as "also"."""
    reads = payload.get("globals_read") if isinstance(payload, dict) else None
    if mismatch is None:   # right results from a global of a fitting value: failed, as the visible check fails it
        finding = global_read_finding(payload.get("globals_read_own") if isinstance(payload, dict) else None)
        return Mismatch(finding[0], hint=finding[2], **finding[1]) if finding else None
    finding = global_finding(reads)
    if finding:
        if mismatch.hint is not None:
            mismatch.also.insert(0, mismatch.hint)
        mismatch.hint = finding
    return mismatch


def decide(proc, seed: int, test: str, payload, source: str = "") -> Mismatch | None:
    """None when the learner's results are right; the Mismatch that says why not, otherwise. proc(res): the
    exercise's procedure with its right answer bound. source: the learner's own code for this exercise, which names
    some mistakes the results alone cannot (a `.T` that made the call fail)."""
    return _global_hint(_decide(proc, seed, test, payload, source), payload)


def _decide(proc, seed: int, test: str, payload, source: str) -> Mismatch | None:
    if isinstance(payload, dict) and isinstance(payload.get("raised"), dict):
        return _partial(proc, seed, test, payload) or _raised(proc, payload["raised"], source, test)
    if test in by_hand.PROBE_RULES and not _by_hand_kept(payload):
        return Mismatch("hidden_by_hand_unproven", hint=("hint_from_scratch", {"name": test.split(".", 1)[1]}),
                        name=test.split(".", 1)[1])
    values = payload.get("values") if isinstance(payload, dict) else None
    try:
        proc(Results(seed, test, values))
    except Mismatch as mismatch:
        return mismatch
    except Exception:  # noqa: BLE001 - results the right answer cannot even use are not right
        log.warning("%s could not use the results", test, exc_info=True)
        return Mismatch("results_unreadable", why=("why_not_decodable", {"key": test}))
    return None


def bound(proc, right):
    """proc with its right implementation given: what decide runs (the grader binds the hidden reference)."""
    def judged(res):
        return proc(res, right)
    judged.on_error, judged.partial = getattr(proc, "on_error", None), getattr(proc, "partial", False)
    return judged


# --------------------------------------------------------------------------- the visible check
# The learner's error as the kernel worded it ("… raised: …", "not written yet", the by-hand refusal) stands for
# these verdicts' own message; their hint is the procedure's.
RAISED = frozenset({"hidden_raised", "hidden_by_hand", "hidden_concat_refused", "hidden_by_hand_threads"})


# The check's wording of a verdict the grader words as its hidden test's ("check_shape" for "hidden_shape"; the
# course's own "raised" for "hidden_raised"); any other key reads the same on both sides.
VISIBLE = {"hidden_passed": "passed", "hidden_mismatch": "check_mismatch", "hidden_dtype": "check_dtype",
           "results_unreadable": "check_results_unreadable", "hidden_concat_refused": "concat_refused",
           "hidden_by_hand_threads": "by_hand_threads", "hidden_by_hand_policy": "by_hand_policy",
           "hidden_by_hand_tamper": "by_hand_tamper", "hidden_raised": "raised", "hidden_layout": "check_layout",
           "hidden_not_tuple": "check_not_tuple", "hidden_not_tensor": "check_not_tensor", "hidden_shape": "check_shape",
           "hidden_device": "check_device", "hidden_also": "also",
           "hidden_cache_shape": "check_cache_shape"}


def _visible_key(key: str) -> str:
    return VISIBLE.get(key, key)


def _sources(objs) -> str:
    out = []
    for obj in objs:
        try:
            out.append(inspect.getsource(obj))
        except (OSError, TypeError):
            pass
    return "\n".join(out)


def _unhinted(proc, payload) -> bool:
    """The exercise's on_error gives the error the learner's code raised no hint (False): the kernel's own, from the
    generic rules, would name a cause the code does not have (lesson 1's transposed K for a shape error elsewhere)."""
    raised = payload.get("raised") if isinstance(payload, dict) else None
    on_error = getattr(proc, "on_error", None)
    return isinstance(raised, dict) and callable(on_error) and on_error(
        str(raised.get("kind", "")), str(raised.get("message", "")), str(raised.get("call", "?"))[:80]) is False


def verify(hidden_test, proc, right, seed: int, name: str, *objs, say_passed: bool = True) -> None:
    """The visible check of an exercise: its probe (hidden_test) run here on the check's own seed, under the probe's
    by-hand guard; its values decoded as the grader decodes them; the exercise's procedure run on them with the right
    answer `right`, exactly as the grader runs it with the hidden reference. A Mismatch becomes the learner's
    CheckFailed, in their language, with the same hint and "also" lines; a pass prints ✔ name (unless say_passed is
    False: a caller that runs several verdicts says once that they all passed)."""
    from .messages import t
    from .validate import CheckFailed
    payload, error = hidden_test.record_for_check(seed, *objs)
    with torch.random.fork_rng(devices=[]):  # a procedure may seed dropout: the notebook's own stream stays
        mismatch = decide(bound(proc, right), seed, hidden_test.test, payload, _sources(objs))
    if mismatch is None:
        if say_passed:
            print(t("passed", name=name))
        return
    kernel = error is not None and mismatch.key in RAISED
    message, hint, also = texts(mismatch, t, "" if kernel else _visible_key(mismatch.key))
    hints = [hint[1]] if hint else []
    if kernel:
        message, hints = error.message, hints or ([] if _unhinted(proc, payload) else error.hints)
    failure = CheckFailed(message, *hints)
    for line in also:
        failure.add_also(line)
    failure.mismatch = mismatch
    raise failure from None
