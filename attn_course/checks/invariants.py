"""The cases every visible check of a lesson runs alike, with the findings the grader's judges use
(attn_course.findings): a case away from the notebook's own sizes, gradients, and a copy's invariants."""
from __future__ import annotations

import contextlib
import copy
import functools
import io

import torch

from .. import findings
from ..messages import t
from ..sizes import globals_read
from ..validate import CheckFailed
from .engine import max_error, run


def failed(finding) -> CheckFailed:
    """A finding (key, fields, hint: a key or (key, fields)) as the learner reads it."""
    key, fields, hint = finding
    if isinstance(hint, tuple):
        hint = t(hint[0], **hint[1])
    elif hint:
        hint = t(hint)
    return CheckFailed(t(key, **fields), hint)


def reads_globals(lesson: int):
    """Decorate a visible check: the exercise's own code (its first callable argument) that reads a size the
    notebook binds at top level fails, as the grader's verdict fails it (attn_grader.verdict,
    findings.global_read_finding): such a global gives the right answer only while it holds a fitting value
    (E = 768 left by a later cell's loop splits any smaller weight whole), and the grader runs the cells in
    order, where it may not exist yet. When the check itself fails, a global any of its callables read is named
    first among its hints."""
    def wrap(check):
        @functools.wraps(check)
        def checked(*objs, **kwargs):
            learner = [o for o in objs if callable(o)]
            reads = globals_read(lesson, *learner)
            if not reads:
                return check(*objs, **kwargs)
            buffer = io.StringIO()
            try:
                with contextlib.redirect_stdout(buffer):   # no ✔ before the failure below
                    check(*objs, **kwargs)
            except CheckFailed as failure:
                key, fields = findings.global_finding(reads)
                failure.add_hint(t(key, **fields), first=True)
                raise
            # Right results: only the exercise's own code (the first callable) fails for a global it reads; an
            # earlier exercise's (the module an init only builds) costs its own points.
            own = globals_read(lesson, learner[0])
            if own:
                raise failed(findings.global_read_finding(own))
            print(buffer.getvalue(), end="")
        return checked
    return wrap


def sizes_text(**sizes) -> str:
    return ", ".join(f"{k}={v}" for k, v in sizes.items())


def expect_same(name: str, got, want, sizes: str, tol: float = 1e-9, differs: str = "sizes_case_differs") -> None:
    """The case away from the notebook's sizes: got (a tensor or a tuple of them) must equal want. The shapes
    are compared first, so no "max error inf" stands where the shape is the news. differs: the message of a
    wrong value (case_differs where its cause is named otherwise than by the sizes)."""
    gots = got if isinstance(got, (tuple, list)) else (got,)
    wants = want if isinstance(want, (tuple, list)) else (want,)
    if len(gots) != len(wants):
        raise CheckFailed(t("returned_not_tensor", name=name, kind=type(got).__name__))
    for g, w in zip(gots, wants):
        if w is None:
            continue
        if not isinstance(g, torch.Tensor):
            raise CheckFailed(t("returned_not_tensor", name=name, kind=type(g).__name__))
        if tuple(g.shape) != tuple(w.shape):
            raise CheckFailed(t("sizes_case_shape", name=name, sizes=sizes, want=tuple(w.shape), got=tuple(g.shape)))
        err = max_error(g, w)
        if not err <= tol:
            raise CheckFailed(t(differs, name=name, sizes=sizes, err=err))


def _clear(leaves) -> None:
    for leaf in leaves:
        if isinstance(leaf, torch.Tensor):
            leaf.grad = None


def expect_grads(name: str, got, leaves, want, want_leaves, names, seed: int, tol: float = 1e-8) -> None:
    """Backpropagate the same random projection of got and of want (the probes' backward_with_probe, drawn from
    the check's own seed) and compare the leaves' gradients by the grader's rule (findings.grad_finding, within
    tol: the exercise's, where the grader's own does)."""
    from ..probes.cases import backward_with_probe   # here: the probes' package imports the checks
    from ..probes.draws import Draws
    draws = Draws(seed, f"check.{name}")
    _clear(leaves)
    _clear(want_leaves)
    got_grads = backward_with_probe(draws, got, leaves)
    want_grads = backward_with_probe(draws, want, want_leaves)
    finding = findings.grad_finding(name, got_grads, want_grads, names, tol)
    if finding:
        raise failed(finding)


def expect_module_grads(call: str, module, x, forward, right, seed: int, pick=lambda result: result) -> None:
    """forward(module, x): the learner's call; right(module, x): the right answer from module's own weights, run on a
    copy of it. Both backpropagated (pick: the outputs that count) to x and every parameter, compared by name."""
    ref = copy.deepcopy(module)
    leaf, ref_leaf = x.detach().clone().requires_grad_(True), x.detach().clone().requires_grad_(True)
    names, refs = [n for n, _ in module.named_parameters()], dict(ref.named_parameters())
    expect_grads(call, pick(forward(module, leaf)), [leaf, *module.parameters()], pick(right(ref, ref_leaf)),
                 [ref_leaf, *(refs[n] for n in names)], ["x", *names], seed)


def expect_copy(name: str, before: dict, source: torch.nn.Module, copy, trainable: bool = False,
                into: str | None = None) -> None:
    """A copy's invariants (findings.copy_finding): the source module unchanged, no memory shared with it (into: the
    argument the exercise writes into, named by the hint), and, when trainable (the exercise's copy is a module to
    train, as its probe records), every parameter trainable."""
    module = isinstance(copy, torch.nn.Module)
    shared = findings.shared_memory(copy, source) if module else []
    frozen = findings.untrainable(copy) if module and trainable else []
    finding = findings.copy_finding(name, before, findings.snapshot(source), shared, frozen, into)
    if finding:
        raise failed(finding)


def shapes_text(args) -> str:
    """The tensors' shapes, for the case's message: "(2, 3, 5), (2, 7, 5)"."""
    return ", ".join(str(tuple(a.shape)) for a in args if isinstance(a, torch.Tensor))


def expect_dtype(name: str, got, dtype) -> None:
    """Every floating-point tensor of got in the input's dtype (findings.dtype_finding, the grader's rule)."""
    finding = findings.dtype_finding(name, got, dtype)
    if finding:
        raise failed(finding)


def _expect_case(name: str, got, want, dtype, sizes: str, tol: float, differs: str = "sizes_case_differs") -> None:
    expect_dtype(name, got, dtype)
    expect_same(name, got, want, sizes, tol, differs)


def _named_case(name: str, got, want, dtype, args, tol: float, name_bug) -> None:
    """One case; a wrong result whose cause name_bug(args, got) names (a hint key, or (key, fields)) says that
    cause first, and no longer that a size may be written as a number."""
    try:
        _expect_case(name, got, want, dtype, shapes_text(args), tol)
    except CheckFailed:
        hint = name_bug(args, got) if name_bug else None
        if not hint:
            raise
        try:
            _expect_case(name, got, want, dtype, shapes_text(args), tol, differs="case_differs")
        except CheckFailed as failure:
            failure.add_hint(t(hint[0], **hint[1]) if isinstance(hint, tuple) else t(hint), first=True)
            raise failure from None


def expect_cases(name: str, fn, right, make_inputs, seed: int, names, on_error=None, name_bug=None,
                 grads: bool = True) -> None:
    """The grader's cases of a function (attn_course.probes.cases.function_cases) on the check's own seed.
    make_inputs(draws, case, dtype) is the probe's own, so the sizes follow the probe's rule (none the notebook
    binds); right(*args) is the right answer. float64 and float32: the output keeps the input's dtype and is right
    within the case's tolerance; then float64 with gradients, compared with the right answer's (names: the
    differentiable arguments'). name_bug(args, got): the classic mistake a wrong result shows, as the grader's judge
    names it (a hint key, or (key, fields)), or None. grads=False: values alone, as function_cases(grads=False)."""
    from ..probes.cases import DTYPE_CASES, TOLERANCE, differentiable
    from ..probes.draws import Draws
    draws = Draws(seed, f"check.{name}")
    for case, dtype in DTYPE_CASES:
        args = make_inputs(draws, case, dtype)
        got = run(name, fn, *args, on_error=on_error)
        with torch.no_grad():
            want = right(*args)
        _named_case(name, got, want, dtype, args, TOLERANCE[case], name_bug)
    if not grads:
        return
    args = differentiable(make_inputs(draws, "grad", torch.float64))
    ref_args = [a.detach().clone().requires_grad_(True) if isinstance(a, torch.Tensor) and a.requires_grad else a
                for a in args]
    got = run(name, fn, *args, on_error=on_error)
    want = right(*ref_args)
    _named_case(name, got, want, torch.float64, args, TOLERANCE["float64"], name_bug)
    expect_grads(name, got, [a for a in args if isinstance(a, torch.Tensor) and a.requires_grad], want,
                 [a for a in ref_args if isinstance(a, torch.Tensor) and a.requires_grad], names, seed)
