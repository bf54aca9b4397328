"""The GPT-2 module's draws, lesson 4's hidden tests' and lesson 7's alike: sizes that differ from those lesson 4's
notebook binds, then GPT-2 small's 12 heads; and the learner's module built with drawn parameters."""
from __future__ import annotations

from ..sizes import avoided


# The drawn sizes differ from every size the notebook binds at top level (its demo's H = 3, D = 4): code that reads
# such a global fails on every seed, as it fails the visible check's second case.
NOTEBOOK = avoided(4)


def configs(draws):
    """(B, T, H, D): drawn sizes, then GPT-2 small's 12 heads, narrower."""
    yield tuple(draws.sizes("sizes", 4, low=2, high=12, avoid=NOTEBOOK))
    yield 1, 7, 12, 8


def build(rec, cls, name, h, d, **kwargs):
    module = rec.call(name, cls, h * d, h, **kwargs)
    return module, rec.fill_parameters(module, f"params.{h}.{d}")
