"""Which tensors a function makes, by shape: every op's output, below every name it could be reached by; and which
two tensors a failing matrix product was given.

Lesson 6's tiling must never make the whole (T, T) scores (attn_course.checks.lesson6_tiles). The watch runs
inside a by-hand exercise's check and probe, while the learner's code runs, so it lives here, in a module the
by-hand guards let that code reach (attn_course.by_hand._COURSE_ALLOWED): it holds no answer, only a shape.
"""
from __future__ import annotations

import torch
from torch.overrides import TorchFunctionMode
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_leaves


class ScoreWatch(TorchDispatchMode):
    """with ScoreWatch(block) as watch: watch.widest is the shape of the first floating tensor made whose last
    two axes both exceed block, or None."""

    def __init__(self, block: int):
        super().__init__()
        self.block = block
        self.widest: tuple | None = None

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        if self.widest is None:
            for x in tree_leaves(out):
                if isinstance(x, torch.Tensor) and x.dim() >= 2 and x.is_floating_point() \
                        and min(x.shape[-2:]) > self.block:
                    self.widest = tuple(x.shape)
                    break
        return out


class MatmulWatch(TorchFunctionMode):
    """with MatmulWatch() as watch: watch.failed is the operand shapes (a, b) of the last matrix product (a @ b,
    torch.matmul, bmm) that raised, or None. Which two tensors met tells apart mistakes whose error text is the
    same (lesson 2: Q @ K without its transpose, V @ weights, scores made as Kᵀ @ Q)."""

    NAMES = frozenset({"matmul", "__matmul__", "__rmatmul__", "bmm"})

    def __init__(self):
        super().__init__()
        self.failed: tuple | None = None

    def __torch_function__(self, func, types, args=(), kwargs=None):
        try:
            return func(*args, **(kwargs or {}))
        except Exception:
            name = getattr(func, "__name__", "")
            if name in self.NAMES and len(args) >= 2 and all(isinstance(x, torch.Tensor) for x in args[:2]):
                a, b = args[:2] if name != "__rmatmul__" else args[1::-1]
                self.failed = (tuple(a.shape), tuple(b.shape))
            raise
