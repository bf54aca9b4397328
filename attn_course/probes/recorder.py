"""A probe's recorder: draws inputs like the grader will, runs the learner's code, and sends what it returned.

The package (attn_course.probes) says what a probe is; the lesson modules register theirs with `probe` here.
"""
from __future__ import annotations

import functools
import os

import torch

from .. import by_hand
from ..checks.engine import run
from ..validate import CourseError
from .codec import MIME, encode
from .draws import SEED_ENV, Draws


class _Stopped(Exception):
    """The learner's code failed: the probe ends there, and sends what it recorded."""


class Recorder(Draws):
    """Draws inputs like the grader will, and keeps what the learner's code returned."""

    def __init__(self, test: str, seed: int | None = None):
        """seed: the visible check's own (attn_course.judging.verify); else the grader's, from SEED_ENV."""
        if seed is None:
            seed = os.environ.get(SEED_ENV)
            if seed is None:
                from ..messages import t
                raise RuntimeError(t("probe_outside_grading"))
        super().__init__(int(seed), test)
        self.values: dict = {}
        self.raised: dict | None = None
        self.error: CourseError | None = None   # the learner's error as the kernel words it, for the visible check

    def put(self, key: str, value) -> None:
        # Encoded now: what the learner's code does to the object later does not change what was recorded.
        self.values[key] = encode(value)

    def call(self, name: str, fn, *args, **kwargs):
        """Run the learner's code (by hand, where the exercise is: attn_course.by_hand). When it raises,
        the error is recorded and the probe stops: the grader fails the cell and names the likely
        mistake, and the visible check after the probe still runs and teaches."""
        try:
            return run(name, fn, *args, **kwargs)
        except CourseError as error:
            self.error = error
            raised = getattr(error, "raised", None) or {"kind": type(error).__name__, "message": error.message[:500],
                                                        "dot_T": False}
            self.raised = {"call": name, **raised}
            raise _Stopped from None


def _globals_read(test: str, objs) -> list:
    from ..sizes import SIZE_RULE, globals_read
    lesson = int(test.split(".", 1)[0].removeprefix("lesson") or 0)
    if lesson not in SIZE_RULE:
        return []
    try:
        return globals_read(lesson, *(o for o in objs if callable(o)))
    except Exception:  # noqa: BLE001 - a hint, never a reason for a probe to fail
        return []


def probe(test: str):
    """Turn `fn(rec, *learner_objects)` into the call a grade cell's hidden part makes.

    The call records and emits; `.record(*learner_objects)` only records and returns the
    payload, for tests that judge it without a notebook; `.record_for_check(seed, *learner_objects)` records on the
    visible check's own seed and returns (payload, the learner's error as the kernel worded it, or None).
    """
    def wrap(fn):
        def record(*learner_objects) -> dict:
            return recorded(None, learner_objects)[0]

        def record_for_check(seed: int, *learner_objects):
            return recorded(seed, learner_objects)

        def recorded(seed, learner_objects):
            rec = Recorder(test, seed)
            rule = by_hand.PROBE_RULES.get(test)
            with torch.random.fork_rng(devices=[]), by_hand.Exercise(rule) as hand:  # the learner's stream stays
                try:
                    fn(rec, *learner_objects)
                except _Stopped:
                    pass
                except Exception as error:  # noqa: BLE001 - e.g. a learner's object without the expected attributes
                    rec.raised = {"call": test.split(".", 1)[1], "kind": type(error).__name__,
                                  "message": str(error)[:500], "dot_T": False}
            payload = {"test": test, "values": rec.values}
            reads = _globals_read(test, learner_objects)
            if reads:   # the notebook's own sizes the learner's code reads: the grader's hint (attn_course.sizes)
                payload["globals_read"] = reads
                # The exercise's own code (the first callable, as the check takes it) fails for them even with
                # right results (attn_course.checks.invariants.reads_globals).
                own = [o for o in learner_objects if callable(o)][:1]
                payload["globals_read_own"] = _globals_read(test, own)
            if rule is not None:  # the grader asks a by-hand exercise's results for this
                payload["by_hand"] = {"calls": hand.calls, "intact": hand.intact}
            if rec.raised:
                payload["raised"] = rec.raised
            return payload, rec.error

        @functools.wraps(fn)
        def hidden_test(*learner_objects):
            from IPython.display import display
            display({MIME: record(*learner_objects)}, raw=True)
        hidden_test.test, hidden_test.record, hidden_test.record_for_check = test, record, record_for_check
        return hidden_test
    return wrap
