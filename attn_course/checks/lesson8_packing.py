"""Lesson 8's visible check for packed sequences (exercise 11): positions that restart in each document, and a
document_mod that keeps attention within one."""
from __future__ import annotations

import torch

from .lesson8_common import attend, control_flow_error, grid


# --------------------------------------------------------------------------- exercise 11: packed sequences
def document_ids(cu_seqlens: torch.Tensor, right: bool = True) -> torch.Tensor:
    n = int(cu_seqlens[-1])
    return torch.searchsorted(cu_seqlens, torch.arange(n), right=right) - 1


def positions_variants(cu_seqlens) -> dict:
    """right=False puts each document's first token in the document before it (the very first in document −1,
    whose start cu_seqlens[-1] is T: a learner's own code indexes so too)."""
    n = int(cu_seqlens[-1])
    doc = document_ids(cu_seqlens)
    off = document_ids(cu_seqlens, right=False)
    return {None: torch.arange(n) - cu_seqlens[doc], "hint_packed_positions": torch.arange(n),
            "hint_packed_boundary": torch.arange(n) - cu_seqlens[off]}


def document_variants(cu_seqlens) -> dict:
    n = int(cu_seqlens[-1])
    q, k = grid(n, n)
    doc = document_ids(cu_seqlens)
    off = document_ids(cu_seqlens, right=False)
    same, causal = doc[:, None] == doc[None, :], q >= k
    return {None: same & causal, "hint_packed_not_causal": same, "hint_packed_no_docs": causal,
            "hint_packed_boundary": (off[:, None] == off[None, :]) & causal}


def document_rules(cu_seqlens) -> tuple:
    doc = document_ids(cu_seqlens)
    return (("hint_mask_other_document", doc[:, None] != doc[None, :]),)


def packed_alone(q, k, v, cu_seqlens, turn) -> torch.Tensor:
    """Each document run alone, RoPE from 0 in each: what the packed row must give."""
    outs = []
    for lo, hi in zip(cu_seqlens[:-1].tolist(), cu_seqlens[1:].tolist()):
        qq, kk = turn(q[:, :, lo:hi], k[:, :, lo:hi], torch.arange(hi - lo))
        n = hi - lo
        outs.append(attend(qq, kk, v[:, :, lo:hi], grid(n, n)[0] >= grid(n, n)[1]))
    return torch.cat(outs, 2)


def positions_kind(got) -> str:
    """What packed_positions returned, for the message: its shape and dtype ("(11,), torch.float32")."""
    if isinstance(got, torch.Tensor):
        return f"{tuple(got.shape)}, {got.dtype}"
    return type(got).__name__


def packed_error(kind: str, message: str, call: str = "") -> str | None:
    """A document index past the last document, or the whole tensor cu_seqlens taken as the total length."""
    if kind == "IndexError" and "out of bounds" in message:
        return "hint_packed_doc_index"
    if "only one element tensors" in message:
        return "hint_packed_total"
    return control_flow_error(kind, message, call)


def positions_hint(got, variants) -> str | None:
    found = next((key for key, val in variants.items() if key and torch.equal(got, val)), None)
    return found or ("hint_packed_negative" if bool((got < 0).any()) else None)


def right_layout(cu_seqlens) -> tuple:
    """The positions restarting in each document, and the mask (1, 1, T, T) keeping attention within one, causal."""
    return positions_variants(cu_seqlens)[None], document_variants(cu_seqlens)[None][None, None]
