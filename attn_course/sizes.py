"""The sizes a check or a probe draws, and the notebook's own sizes they stay away from.

A lesson's demo cells bind sizes at the notebook's top level (lesson 2's `B, T, H, D = 1, 3, 2, 4`). A function
that reads such a global instead of computing the size from its input gives the right answer exactly where the
inputs have that size. So the checks and the probes of a lesson draw their sizes from the values no top-level name
of the notebook holds (attn_course.exercises.NOTEBOOK_SIZES, read from the lesson by the build): code that reads a
global fails on every seed, in the notebook and in grading alike. `globals_read` names the globals it read, for the
hint both sides give.
"""
from __future__ import annotations

import dis
import inspect

import torch

from . import exercises

# Absent only in an exercises.py older than the rule, which the build that writes it imports first.
NOTEBOOK_SIZES = getattr(exercises, "NOTEBOOK_SIZES", {})

# The lessons whose checks and probes draw away from the notebook's sizes and name a global read; the others draw
# as they did.
SIZE_RULE = frozenset({1, 2, 3, 4, 5, 7})


def _stem(lesson: int) -> str | None:
    return next((stem for stem in NOTEBOOK_SIZES if stem.startswith(f"{lesson:02d}_")), None)


def bound(lesson: int) -> dict:
    """name -> the whole numbers the lesson's notebook binds to it at top level."""
    return NOTEBOOK_SIZES.get(_stem(lesson), {})


def avoided(lesson: int) -> frozenset:
    """Every size the lesson's notebook binds at top level."""
    return frozenset(v for values in bound(lesson).values() for v in values)


def in_role(lesson: int, *names: str, scale=lambda v: v) -> frozenset:
    """The sizes the lesson's notebook binds to names (a role: its head counts H_, its lengths T_, ...), scaled as
    the probe draws them (a head width D drawn as D / 2): where all of avoided() leaves too few sizes to draw."""
    return frozenset(scale(v) for name in names for v in bound(lesson).get(name, ()))


def draw(gen: torch.Generator, n: int, low: int, high: int, avoid=()) -> list[int]:
    """n different sizes in [low, high), none of them in avoid. With nothing to avoid, the very sizes
    `randperm(high - low)[:n] + low` gives, so a probe that avoids nothing draws what it always drew."""
    allowed = [v for v in range(low, high) if v not in avoid]
    if len(allowed) < n:
        raise ValueError(f"{n} sizes in [{low}, {high}) outside {sorted(avoid)}: only {allowed}")
    return [allowed[int(i)] for i in torch.randperm(len(allowed), generator=gen)[:n]]


def free_sizes(lesson: int, n: int, low: int = 2, high: int = 12, seed: int = 0) -> list[int]:
    """The visible check's case away from the notebook's sizes: drawn by the rule the probes use, from a seed."""
    return draw(torch.Generator().manual_seed(seed), n, low, high, avoided(lesson))


def _codes(obj, seen: set):
    """(code, globals) of obj's functions: a function, a class's methods, a module's class, and the notebook's own
    functions they call (split_heads called from forward reads the global D there)."""
    if isinstance(obj, torch.nn.Module):
        obj = type(obj)
    if inspect.isclass(obj):
        funcs = [v for v in vars(obj).values() if inspect.isfunction(v)]
    elif inspect.isfunction(obj):
        funcs = [obj]
    else:
        return
    for f in funcs:
        if id(f) in seen:
            continue
        seen.add(id(f))
        todo = [f.__code__]
        while todo:
            code = todo.pop()
            yield code, f.__globals__
            todo += [c for c in code.co_consts if inspect.iscode(c)]


def globals_read(lesson: int, *objs) -> list[str]:
    """"D = 4"-style entries: the notebook's top-level sizes (names of NOTEBOOK_SIZES) that the learner's code
    reads as globals, with the whole number each holds now. Follows the notebook's own functions and classes
    the code calls, two levels deep."""
    names, found, seen = bound(lesson), {}, set()
    todo = [(obj, 0) for obj in objs]
    while todo:
        obj, depth = todo.pop()
        for code, space in _codes(obj, seen):
            for ins in dis.get_instructions(code):
                if ins.opname not in ("LOAD_GLOBAL", "LOAD_NAME"):
                    continue
                name = ins.argval
                value = space.get(name)
                if name in names and type(value) is int:
                    found[name] = value
                elif depth < 2 and (inspect.isfunction(value) or inspect.isclass(value)) and \
                        getattr(value, "__module__", None) == space.get("__name__"):
                    todo.append((value, depth + 1))
    return [f"{name} = {value}" for name, value in sorted(found.items())]
