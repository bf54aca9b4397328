"""Lesson 8's procedures for a cache's memory (their probes are in lesson8.py): a preallocated cache written in place
(exercise 9), pages and a block table (10), packed sequences (11), what a cache costs (12), attention read page by
page (13) and rows of different lengths in one cache (14). Each `judge_x(res, right)` is the verdict on what the
probe recorded, given the right implementation: the grader runs it with the hidden reference
(autograder/reference/lesson8.py, lesson8_paging.py), the visible check with the right answer the course's public
facts give, on a seed of its own.
"""
import torch

from ..checks.lesson8_paged import bytes_error, bytes_hint
from ..judging import Mismatch, procedure
from .lesson8 import bytes_cases


# --------------------------------------------------------------------------- exercise 12: what a cache costs
@procedure(on_error=bytes_error)
def judge_cache_bytes(res, right):
    """right(config, T, batch, dtype) -> the bytes of the cache."""
    cases = bytes_cases(res)
    gots = [res[f"bytes.{i}"] for i in range(len(cases))]
    for (config, n, batch, dtype), got in zip(cases, gots):   # all whole numbers first: the hint reads them all
        if isinstance(got, float):   # a byte count is a whole number: 4536.0 is no answer, whatever it equals
            raise Mismatch("hint_return_not_int", name=f"cache_bytes({config}, T={n}, batch={batch}, dtype={dtype})",
                           got=repr(got))
        if isinstance(got, bool) or not isinstance(got, int):
            raise Mismatch("flops_not_int", step="cache_bytes", kind=type(got).__name__)
    for i, (config, n, batch, dtype) in enumerate(cases):
        want = right(config, n, batch, dtype)
        if gots[i] != want:
            raise Mismatch("bytes_differs", hint=bytes_hint(cases, gots, i), config=config, T=n, batch=batch,
                           dtype=dtype, got=gots[i], want=want)
