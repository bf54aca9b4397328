"""Lesson 1's hidden tests, kernel side: run the learner's code on the grader's inputs and record it."""
import contextlib

import torch

from ..checks.engine import _uses_dot_T
from ..score_watch import MatmulWatch
from ..sizes import avoided
from .cases import function_cases, module_cases, scalar
from .recorder import probe

# Every size drawn here differs from every size the notebook binds at top level (its table's d_k = 4, 64, 512):
# code that reads such a global fails on every seed, as it fails the visible check's cases (which draw with these
# very functions, on the check's own seed).
NOTEBOOK = avoided(1)


def qkv_sizes(draws, case):
    """B, H, T_q, T_k, d_k, d_v: all different."""
    return draws.sizes(f"{case}.sizes", 6, avoid=NOTEBOOK)


def module_sizes(draws):
    """B, T, E, d_k: all different."""
    return draws.sizes("args", 4, low=2, high=20, avoid=NOTEBOOK)


def qkv_inputs(draws, case, dtype, with_v=True, batch_axes=2):
    """Q, K (and V) with every size different: B, H, T_q, T_k, d_k, d_v."""
    b, h, tq, tk, d, dv = qkv_sizes(draws, case)
    lead = (b, h)[:batch_axes]
    shapes = [(*lead, tq, d), (*lead, tk, d)] + ([(*lead, tk, dv)] if with_v else [])
    return tuple(draws.randn(f"{case}.{name}", *s, dtype=dtype, scale=1.5) for name, s in zip("QKV", shapes))


def qk_inputs(draws, case, dtype):
    # The gradient case has one batch axis, as the visible check's: transpose(2, -1) is transpose(-2, -1) only
    # for 4-D input, and the text asks for any number of batch axes.
    return qkv_inputs(draws, case, dtype, with_v=False, batch_axes=1 if case == "grad" else 2)


def one_batch_axis(draws, case, dtype):
    return qkv_inputs(draws, case, dtype, batch_axes=1)


def large_scores(draws, case, dtype):
    # Rows around +800 and rows around -800: exp overflows even in float64 unless a max is subtracted first, and
    # only each row's own max keeps the low rows from 0 / 0 (one max over the whole tensor does not).
    b, tq, tk = draws.sizes(f"{case}.sizes", 3, avoid=NOTEBOOK)
    offset = torch.where(torch.arange(tq) % 2 == 0, 800.0, -800.0)[None, :, None]
    return (draws.randn(f"{case}.scores", b, tq, tk, scale=5.0).add(offset).to(dtype),)


def module_args(draws):
    _, _, e, d = module_sizes(draws)
    return (e, d)


def module_input(draws, args, case, dtype):
    b, t, _, _ = module_sizes(draws)
    return draws.randn(f"{case}.x", b, t, args[0], dtype=dtype)


@contextlib.contextmanager
def products_watched(rec, fn):
    """A matrix product that raised: the two shapes it was given, for the grader to name the mistake from them as
    the visible check does (checks.lesson1.products_named); not where `.T`, whose own hint comes first, is used."""
    with MatmulWatch() as watch:
        try:
            yield
        finally:
            if watch.failed is not None and rec.raised and not rec.raised.get("dot_T") and not _uses_dot_T(fn):
                rec.put("matmul_failed", [list(shape) for shape in watch.failed])
                rec.put("raised_error", [str(rec.raised.get("kind", "")), str(rec.raised.get("message", ""))[:300]])


@probe("lesson1.attention_scores")
def attention_scores(rec, fn):
    with products_watched(rec, fn):
        function_cases(rec, "attention_scores", fn, qk_inputs)


@probe("lesson1.softmax_last")
def softmax_last(rec, fn):
    function_cases(rec, "softmax_last", fn, large_scores)


@probe("lesson1.attention")
def attention(rec, fn):
    with products_watched(rec, fn):
        function_cases(rec, "attention", fn, one_batch_axis)


@probe("lesson1.attention_module")
def attention_module(rec, cls):
    with products_watched(rec, cls):
        module_cases(rec, "Attention", cls, module_args, module_input)


@probe("lesson1.variance")
def variance(rec, var_raw, var_scaled):
    rec.put("answer_var_raw", scalar(var_raw))
    rec.put("answer_var_scaled", scalar(var_scaled))


@probe("lesson1.n_params")
def n_params(rec, n):
    rec.put("answer_n_params", scalar(n))
