"""What learners' code calls to reject bad input with a clear, localized error.

The errors render as one localized message with hints in a notebook (no stack).
The expect_* helpers (expect_even: lesson 7) and resolve_head_dim are called from the exercises'
templates; dtype_bytes and previous_token_weight are small helpers lessons 5 and 6 use.
"""
from __future__ import annotations

import torch

from .messages import t


# --------------------------------------------------------------------------- errors
class CourseError(Exception):
    """An error shown to the learner as one localized message, without a stack."""

    headline = "check_failed"

    def __init__(self, message: str, *hints: str):
        self.message = message
        self.hints = [h for h in hints if h]
        self.also: list[str] = []   # other classic mistakes the check could tell apart (checks.engine.also_checks)
        super().__init__(self._text())

    def _text(self) -> str:
        return "\n".join([self.message, *(f"{t('hint')}: {h}" for h in self.hints),
                          *(f"{t('also')}: {a}" for a in self.also)])

    def add_hint(self, hint: str, first: bool = False) -> None:
        if hint and hint not in self.hints:
            self.hints.insert(0, hint) if first else self.hints.append(hint)
            self.args = (self._text(),)

    def add_also(self, mistake: str) -> None:
        """A second mistake, named after the first: shown as "also: …" under the hints."""
        if mistake and mistake != self.message and mistake not in self.hints and mistake not in self.also:
            self.also.append(mistake)
            self.args = (self._text(),)

    def _render_traceback_(self):
        # IPython shows these lines instead of a traceback (see InteractiveShell.showtraceback).
        lines = [f"\x1b[1;31m✘ {t(self.headline)}\x1b[0m: {self.message}"]
        lines += [f"\x1b[1;33m{t('hint')}\x1b[0m: {h}" for h in self.hints]
        lines += [f"\x1b[1;33m{t('also')}\x1b[0m: {a}" for a in self.also]
        return lines


class CheckFailed(CourseError, AssertionError):
    pass


class InputError(CourseError, ValueError):
    headline = "bad_input"


# --------------------------------------------------------------------------- input validation
def expect_tensor(x, name: str) -> torch.Tensor:
    if not isinstance(x, torch.Tensor):
        raise InputError(t("not_tensor", name=name, kind=type(x).__name__))
    return x


def expect_rank(x, ndim: int, name: str, layout: str) -> torch.Tensor:
    expect_tensor(x, name)
    if x.dim() != ndim:
        raise InputError(t("wrong_rank", name=name, want=ndim, got=x.dim(), layout=layout, shape=tuple(x.shape)))
    return x


def expect_size(value, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise InputError(t("bad_size", name=name, value=value))
    return value


def expect_even(value, name: str) -> int:
    """A positive even size: sinusoidal positions and RoPE work on pairs of dimensions."""
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0 or value % 2:
        raise InputError(t("bad_even", name=name, value=value))
    return value


def expect_tokens(x, embed_dim: int) -> torch.Tensor:
    """x must be (B, T, E) with E == embed_dim."""
    expect_rank(x, 3, "x", "(B, T, E)")
    if x.size(-1) != embed_dim:
        raise InputError(t("embed_mismatch", want=embed_dim, got=x.size(-1), shape=tuple(x.shape)))
    return x


def expect_qkv(Q, K, V=None) -> None:
    """Q (..., T_q, d_k), K (..., T_k, d_k), V (..., T_k, d_v), with equal leading axes."""
    expect_tensor(Q, "Q")
    expect_tensor(K, "K")
    tensors = {"Q": Q, "K": K} if V is None else {"Q": Q, "K": K, "V": expect_tensor(V, "V")}
    for name, x in tensors.items():
        if x.dim() < 2:
            raise InputError(t("wrong_rank", name=name, want="2+", got=x.dim(), layout="(…, T, d)", shape=tuple(x.shape)))
    if Q.size(-1) != K.size(-1):
        raise InputError(t("qk_dim_mismatch", dq=Q.size(-1), dk=K.size(-1)))
    if V is not None and V.size(-2) != K.size(-2):
        raise InputError(t("kv_len_mismatch", tk=K.size(-2), tv=V.size(-2)))
    try:
        torch.broadcast_shapes(*(x.shape[:-2] for x in tensors.values()))
    except RuntimeError:
        shapes = ", ".join(f"{n} {tuple(x.shape)}" for n, x in tensors.items())
        raise InputError(t("batch_mismatch", shapes=shapes)) from None


# --------------------------------------------------------------------------- helpers the lessons call
def resolve_head_dim(embed_dim: int, n_head: int, head_dim: int | None = None) -> int:
    """head_dim as given, or embed_dim // n_head, with a clear error when that does not divide."""
    expect_size(embed_dim, "embed_dim")
    expect_size(n_head, "n_head")
    if head_dim is None:
        if embed_dim % n_head:
            raise InputError(t("hint_head_dim_divides", e=embed_dim, h=n_head))
        return embed_dim // n_head
    return expect_size(head_dim, "head_dim")


def resolve_kv_groups(n_head: int, n_kv_head: int) -> int:
    """How many query heads share one KV head (GQA), with a clear error when n_kv_head does not divide n_head."""
    expect_size(n_head, "n_head")
    expect_size(n_kv_head, "n_kv_head")
    if n_head % n_kv_head:
        raise InputError(t("gqa_groups_divide", h=n_head, g=n_kv_head))
    return n_head // n_kv_head


def expect_torch_compatible(mha) -> None:
    """nn.MultiheadAttention fixes head_dim to embed_dim // num_heads."""
    if mha.n_head * mha.head_dim != mha.embed_dim:
        raise InputError(t("torch_mha_incompatible", h=mha.n_head, d=mha.head_dim, e=mha.embed_dim))


def dtype_bytes(dtype: torch.dtype) -> int:
    """Bytes per element of a dtype (torch.float16 -> 2)."""
    return torch.empty((), dtype=dtype).element_size()


def previous_token_weight(weights: torch.Tensor) -> torch.Tensor:
    """Per head, the mean weight that queries t = 2 … T−1 put on key t − 1. weights: (B, H, T, T) → (H,)"""
    T = weights.size(-1)
    t_ = torch.arange(2, T, device=weights.device)
    return weights[:, :, t_, t_ - 1].mean(dim=(0, 2))
