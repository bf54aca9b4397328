"""What a hidden test runs in the learner's kernel: the learner's code, on inputs drawn from the grader's seed.

A probe decides nothing. It calls the learner's functions on inputs it draws by name
from the seed the grader set for this notebook, and hands what they returned (or the
error they raised) to the grader as one display output of its own MIME type. After the kernel has stopped, the
grader (attn_grader's DecideHiddenTests preprocessor) draws the same inputs from the
same seed, computes the reference in its own process, compares, and decides the cell.

So nothing here knows a right answer, and nothing the learner's code changes in the
kernel can turn a wrong result into a right one: it could only change what is sent,
and a wrong result stays wrong on the grader's inputs.

    @probe("lesson1.attention_scores")
    def attention_scores(rec, fn): ...      # called from a grade cell's hidden part
"""
from __future__ import annotations

from .codec import MIME
from .draws import SEED_ENV, Draws
from .recorder import Recorder, _Stopped, probe  # noqa: F401 - tests and tools reach them here
from . import lesson1, lesson2, lesson3, lesson4, lesson5, lesson6, lesson7, lesson8

__all__ = ["MIME", "SEED_ENV", "Draws", "Recorder", "probe", "LESSONS"]

LESSONS = {1: lesson1, 2: lesson2, 3: lesson3, 4: lesson4, 5: lesson5, 6: lesson6, 7: lesson7, 8: lesson8}
