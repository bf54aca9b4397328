"""Lesson 6's visible checks: each exercise's procedure (attn_course.probes.lesson6) on a seed of its own, with the
right answer given here."""
from __future__ import annotations

import math

import torch
import torch.nn as nn
import torch.nn.functional as F

from ..validate import dtype_bytes
# ex0's pasted module: the GPT-2 module's checks, which build it with max_len=80 and run it past 64, as section 3 does.
from .gpt2_module import check_gpt2_module  # noqa: F401 - the notebook's ex0 calls lesson6.check_gpt2_module
from .heads import merge_heads, split_heads
from .lesson6_counts import flops_variants
from .masks import masked, tril

# Each check's own seed: the probe's inputs drawn from it follow the probe's rules.
SEEDS = {"attention_flops": 601, "kv_cache_bytes": 602, "tiled_attention": 603, "gqa": 604, "attend_with_cache": 605}


def right_flops(B, T, E, H) -> dict:
    return flops_variants(B, T, E, H)[None]


def right_kv_bytes(n_layer, batch, T, n_kv_head, head_dim, dtype) -> int:
    """Keys and values: 2 · n_layer · batch · T · n_kv_head · head_dim elements of dtype's size."""
    return 2 * n_layer * batch * T * n_kv_head * head_dim * dtype_bytes(dtype)


def right_tiled(q, k, v, block_size, causal=False):
    """What tiling must reproduce, as the text compares it: the library's attention over the whole scores."""
    return F.scaled_dot_product_attention(q, k, v, is_causal=causal)


class RightGQA(nn.Module):
    """The module the text describes: q_proj E → E, kv_proj E → 2·G·D, c_proj E → E (each with a bias), K and V
    repeated to H heads with repeat_interleave, a causal mask."""

    def __init__(self, embed_dim, n_head, n_kv_head):
        super().__init__()
        self.embed_dim, self.n_head, self.n_kv_head = embed_dim, n_head, n_kv_head
        self.head_dim = embed_dim // n_head
        self.q_proj = nn.Linear(embed_dim, embed_dim)
        self.kv_proj = nn.Linear(embed_dim, 2 * n_kv_head * self.head_dim)
        self.c_proj = nn.Linear(embed_dim, embed_dim)

    def forward(self, x):
        H_, G_, D_ = self.n_head, self.n_kv_head, self.head_dim
        q = split_heads(self.q_proj(x), H_)
        k, v = (split_heads(z, G_).repeat_interleave(H_ // G_, 1) for z in self.kv_proj(x).split(G_ * D_, dim=2))
        s = masked(q @ k.transpose(-2, -1) / math.sqrt(D_), tril(x.size(1)).to(x.device), "-inf")
        weights = torch.softmax(s, -1)
        return self.c_proj(merge_heads(weights @ v)), weights


def right_attend_with_cache(attn, x_new, cache=None):
    """The new tokens' outputs and the cache (k, v) joined on the tokens' axis; new token i sees the keys up to
    T_past + i."""
    q, k, v = (split_heads(z, attn.n_head) for z in attn.c_attn(x_new).split(x_new.size(-1), dim=2))
    if cache is not None:
        k, v = torch.cat([cache[0], k], dim=2), torch.cat([cache[1], v], dim=2)
    n = x_new.size(1)
    keep = torch.ones(n, k.size(2), dtype=torch.bool, device=x_new.device).tril(diagonal=k.size(2) - n)
    s = masked(q @ k.transpose(-2, -1) / math.sqrt(attn.head_dim), keep, "-inf")
    return attn.c_proj(merge_heads(torch.softmax(s, -1) @ v)), (k, v)


def _verify(exercise: str, name: str, right, obj) -> None:
    from ..judging import verify   # here: the probes' package imports the checks
    from ..probes import lesson6 as probes
    verify(getattr(probes, exercise), getattr(probes, f"judge_{exercise}"), right, SEEDS[exercise], name, obj)


def check_attention_flops(fn) -> None:
    _verify("attention_flops", "attention_flops", right_flops, fn)


def check_kv_cache_bytes(fn) -> None:
    _verify("kv_cache_bytes", "kv_cache_bytes", right_kv_bytes, fn)


def check_tiled_attention(fn) -> None:
    _verify("tiled_attention", "tiled_attention", right_tiled, fn)


def check_gqa_module(cls) -> None:
    _verify("gqa", "GroupedQueryAttention", RightGQA, cls)


def check_attend_with_cache(fn) -> None:
    _verify("attend_with_cache", "attend_with_cache", right_attend_with_cache, fn)
