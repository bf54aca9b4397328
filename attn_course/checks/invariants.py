"""The cases every visible check of a lesson runs alike, with the findings the grader's judges use
(attn_course.findings): a case away from the notebook's own sizes, gradients, and a copy's invariants."""
from __future__ import annotations

import contextlib
import functools
import io

import torch

from .. import findings
from ..messages import t
from ..sizes import globals_read
from ..validate import CheckFailed


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

