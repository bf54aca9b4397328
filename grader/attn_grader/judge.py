"""The grader's registry of judges: which judge decides which hidden test.

A reference module (autograder/reference/lessonN.py) registers one judge per probe, either the exercise's public
procedure applied to its hidden reference:

    judged_by("lesson1.attention_scores", probe.judge_attention_scores, attention_scores)

or a judge of its own, written with attn_course.judging's API:

    @judge("lesson2.split_heads")
    def split_heads_judge(res):       # res: Results, the same draws and what the kernel sent
        judge_function(res, split_heads, probe.inputs)

A judge returns when the learner's results are right, and raises Mismatch when they are not. It runs after the
learner's kernel has stopped, on inputs it draws itself from the seed it chose, so nothing the kernel did can change
a verdict: the kernel only sent results.
"""
from __future__ import annotations

from attn_course.judging import bound, procedure

__all__ = ["JUDGES", "judge", "judged_by", "sibling"]

JUDGES: dict = {}  # "lessonN.name" -> judge function


def judge(test: str, on_error=None, partial: bool = False):
    """Register a judge of the reference's own; on_error and partial: as attn_course.judging.procedure's."""
    def register(fn):
        JUDGES[test] = procedure(on_error, partial)(fn)
        return fn
    return register


def judged_by(test: str, procedure, right) -> None:
    """Register the exercise's public procedure (attn_course.judging.procedure) with its hidden reference: the judge
    the visible check runs too, with the right answer the course's public facts give."""
    JUDGES[test] = bound(procedure, right)


def sibling(this_file: str, lesson: str):
    """A reference module that lessons share (gpt2_module, kv_cache), from the folder this one is in."""
    from pathlib import Path

    from .loading import load
    return load(Path(this_file).parent, lesson)
