"""Which tensors a function makes, by shape: every op's output, below every name it could be reached by; and which
two tensors a failing matrix product was given.

Lesson 6's tiling must never make the whole (T, T) scores, nor scores whose key axis is whole (queries tiled,
keys not: attn_course.checks.lesson6_tiles). The watch runs inside a by-hand exercise's check and probe, while
the learner's code runs: it holds no answer, only a shape.
"""
from __future__ import annotations

import torch
from torch.overrides import TorchFunctionMode
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_leaves
from torch.utils.weak import WeakIdKeyDictionary

# Matrix products: (rows of the first operand) × (columns of the second). A score is one of q and k.
_PRODUCTS = {"mm", "bmm", "baddbmm", "addmm", "addbmm", "matmul", "mv", "addmv"}


class ScoreWatch(TorchDispatchMode):
    """with ScoreWatch(block, keys=k) as watch: watch.widest is the shape of the first floating tensor made whose
    last two axes both exceed block, or of the first matrix product whose key axis (the side that came from k)
    exceeds block; else None.

    A key block's scores q @ kb.transpose(-2, -1) are (T, block), and so are kb @ q.transpose(-2, -1) turned the
    other way: their key axis is a block. Queries tiled against all the keys, q[:, :, i:i + block] @ k.T, are
    (block, T): T keys at once, the online softmax over nothing. What came from k is followed through every op
    that is no product (slices, transposes, views, copies, scaling); a product's output holds both sides and is
    followed no further."""

    def __init__(self, block: int, keys: torch.Tensor | None = None):
        super().__init__()
        self.block = block
        self.widest: tuple | None = None
        self._from_k = WeakIdKeyDictionary()
        if keys is not None:
            self._from_k[keys] = True

    def _keyed(self, x) -> bool:
        return isinstance(x, torch.Tensor) and x in self._from_k

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        if func.overloadpacket.__name__ in _PRODUCTS:
            self._product(func.overloadpacket.__name__, args, out)
        elif any(self._keyed(x) for x in tree_leaves((args, kwargs or {}))):
            for x in tree_leaves(out):
                if isinstance(x, torch.Tensor):
                    self._from_k[x] = True
        if self.widest is None:
            for x in tree_leaves(out):
                if isinstance(x, torch.Tensor) and x.dim() >= 2 and x.is_floating_point() \
                        and min(x.shape[-2:]) > self.block:
                    self.widest = tuple(x.shape)
                    break
        return out

    def _product(self, name: str, args, out) -> None:
        if self.widest is not None or not isinstance(out, torch.Tensor) or not out.is_floating_point():
            return
        tensors = [a for a in args if isinstance(a, torch.Tensor)]
        if name in ("baddbmm", "addmm", "addbmm", "addmv"):   # (input, first, second): input is added, not multiplied
            tensors = tensors[1:]
        if len(tensors) < 2 or out.dim() < 1:
            return
        first, second = tensors[0], tensors[1]
        rows = out.shape[-2] if out.dim() >= 2 else out.shape[-1]   # mv: the matrix's rows are the output
        if (self._keyed(second) and out.dim() >= 2 and out.shape[-1] > self.block) or \
                (self._keyed(first) and rows > self.block):
            self.widest = tuple(out.shape)


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


class CopyWatch(TorchDispatchMode):
    """with CopyWatch(limit, pages…) as watch: watch.largest is the shape of the first tensor made from the pages
    (followed through every op) into new memory with more than limit elements, else None.

    A paged kernel reads one page of a sequence at a time, in place: a page (P, H, D), or one page of each
    sequence at once. Pages gathered into one tensor (pages[block_table[:n]], torch.cat or torch.stack of them,
    a copy of the whole pool) hold more. Views (a page, pages.view(-1, H, D) read through slot numbers) share the
    pool's memory and are never counted."""

    def __init__(self, limit: int, *pages: torch.Tensor):
        super().__init__()
        self.limit = limit
        self.largest: tuple | None = None
        self._from_pages = WeakIdKeyDictionary()
        for p in pages:
            self._from_pages[p] = True

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        sources = [x for x in tree_leaves((args, kwargs or {}))
                   if isinstance(x, torch.Tensor) and x in self._from_pages]
        if sources:
            shared = {x.untyped_storage().data_ptr() for x in sources if x.device.type != "meta"}
            for x in tree_leaves(out):
                if isinstance(x, torch.Tensor):
                    self._from_pages[x] = True
                    if self.largest is None and x.is_floating_point() and x.numel() > self.limit and \
                            x.device.type != "meta" and x.untyped_storage().data_ptr() not in shared:
                        self.largest = tuple(x.shape)
        return out
