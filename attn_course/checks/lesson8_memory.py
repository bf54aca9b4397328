"""Lesson 8's visible checks for exercises 7 to 14 (MLA and its latent cache, a preallocated cache, a paged cache,
packed sequences, what a cache costs, attention over pages, rows of different lengths). Each runs its exercise's probe
(attn_course.probes.lesson8) on a seed of its own and judges what it recorded by the exercise's procedure
(attn_course.probes.lesson8_mla, lesson8_memory), as the grader does, with the right answer the course's public facts
give: the right_* beside each exercise's classic mistakes (lesson8_mla, lesson8_caches, lesson8_paged, …).

The probes import those modules, so only this one, which nothing below the notebook's facade (lesson8) imports, reaches
the probes.
"""
from __future__ import annotations

from .lesson8_caches import right_attend
from .lesson8_lengths import right_step
from .lesson8_mla import right_decode, right_mla
from .lesson8_packing import packed_alone, right_layout
from .lesson8_paged import cache_bytes_ref, paged_decode_run, paged_gather_ref, paged_write_ref

# Each check's own seed: the probe's inputs drawn from it follow the probe's rules, as the grader's do.
SEEDS = {"mla": 807, "mla_decode": 808, "attend_preallocated": 809, "paged_cache": 810, "packed": 811,
         "cache_bytes": 812, "paged_decode": 813, "decode_batched": 814}


def _verify(exercise: str, name: str, right, *objs) -> None:
    from ..judging import verify   # here: the probes' package imports the checks
    from ..probes import lesson8, lesson8_memory, lesson8_mla
    procedures = lesson8_mla if exercise.startswith("mla") else lesson8_memory
    verify(getattr(lesson8, exercise), getattr(procedures, f"judge_{exercise}"), right, SEEDS[exercise], name, *objs)


def check_mla(cls) -> None:
    _verify("mla", "MultiHeadLatentAttention", right_mla, cls)


def check_mla_decode(fn) -> None:
    _verify("mla_decode", "mla_decode", right_decode, fn)


def check_attend_preallocated(fn) -> None:
    _verify("attend_preallocated", "attend_preallocated", right_attend, fn)


def check_paged_cache(paged_write, paged_gather) -> None:
    _verify("paged_cache", "paged_write, paged_gather", (paged_write_ref, paged_gather_ref), paged_write, paged_gather)


def check_packed(packed_positions, document_mod) -> None:
    _verify("packed", "packed_positions, document_mod", (right_layout, packed_alone), packed_positions, document_mod)


def check_cache_bytes(fn) -> None:
    _verify("cache_bytes", "cache_bytes", cache_bytes_ref, fn)


def check_paged_decode(fn) -> None:
    _verify("paged_decode", "paged_decode", paged_decode_run, fn)


def check_decode_batched(fn) -> None:
    _verify("decode_batched", "decode_batched", right_step, fn)
