"""Inputs drawn by name from one seed, so the kernel and the grader draw the same tensors.

Each name gets a generator of its own (seeded by a hash of seed, test and name),
so the order in which a probe and a judge ask for their inputs does not matter.
"""
from __future__ import annotations

import hashlib
import math

import torch

SEED_ENV = "ATTN_GRADING_SEED"  # set by the grader for each notebook it executes


class Draws:
    def __init__(self, seed: int, test: str):
        self.seed, self.test = seed, test

    def gen(self, name: str) -> torch.Generator:
        digest = hashlib.sha256(f"{self.seed}/{self.test}/{name}".encode()).digest()
        return torch.Generator().manual_seed(int.from_bytes(digest[:8], "little") >> 1)

    def sizes(self, name: str, n: int, low: int = 2, high: int = 12, avoid=()) -> list[int]:
        """n different sizes in [low, high), none in avoid (the notebook's own sizes: attn_course.sizes): a
        swapped axis cannot pass by luck, nor a global read in place of a size."""
        from ..sizes import draw
        return draw(self.gen(name), n, low, high, avoid)

    def randn(self, name: str, *shape, dtype=torch.float64, scale: float = 1.0) -> torch.Tensor:
        return torch.randn(*shape, generator=self.gen(name), dtype=torch.float64).mul(scale).to(dtype)

    def rand(self, name: str, *shape) -> torch.Tensor:
        return torch.rand(*shape, generator=self.gen(name), dtype=torch.float64)

    def randint(self, name: str, low: int, high: int, shape: tuple) -> torch.Tensor:
        return torch.randint(low, high, shape, generator=self.gen(name))

    def integer(self, name: str) -> int:
        """A seed for code that draws from torch's global stream (building a model, say)."""
        return int(torch.randint(0, 2**31 - 1, (1,), generator=self.gen(name)))

    def fill_parameters(self, module: torch.nn.Module, name: str = "params") -> list:
        """Overwrite every parameter with values drawn by its name, scaled by 1/√fan-in.

        The graded module's own initialisation never decides a grade: zero weights, say, would
        hide a missing scale. Returns [(name, shape)], which the judge compares with the reference's.
        """
        layout = []
        with torch.no_grad():
            for pname, p in module.named_parameters():
                fan_in = max(p.shape[-1], 1) if p.dim() > 1 else 1   # a layer of width 0 has nothing to scale
                scale = 0.1 if pname.endswith("bias") else 1.0 / math.sqrt(fan_in)
                p.copy_(self.randn(f"{name}.{pname}", *p.shape, scale=scale))
                layout.append([pname, list(p.shape)])
        return layout
