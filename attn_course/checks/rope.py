"""RoPE, as the checks and the grader compute it (Llama's rotate-half layout): lessons 7 and 8 rotate with it."""
from __future__ import annotations

import torch


def rotate_half(x):
    half = x.size(-1) // 2
    return torch.cat([-x[..., half:], x[..., :half]], dim=-1)


def rope(q, k, positions, base: float = 10000.0):
    """Llama's RoPE (rotate-half layout): angles in float64, on q's device."""
    d = q.size(-1)
    inv_freq = base ** (-torch.arange(0, d, 2, dtype=torch.float64, device=q.device) / d)   # (D/2,)
    angles = positions.to(q.device, torch.float64)[:, None] * inv_freq                      # (T, D/2)
    emb = torch.cat([angles, angles], dim=-1)                                                # (T, D)
    cos, sin = emb.cos().to(q.dtype), emb.sin().to(q.dtype)
    return q * cos + rotate_half(q) * sin, k * cos + rotate_half(k) * sin
