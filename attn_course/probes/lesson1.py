"""Lesson 1's hidden tests, kernel side: run the learner's code on the grader's inputs and record it."""
from . import probe
from .cases import function_cases, module_cases, scalar


def qkv_inputs(draws, case, dtype, with_v=True, batch_axes=2):
    """Q, K (and V) with every size different: B, H, T_q, T_k, d_k, d_v."""
    b, h, tq, tk, d, dv = draws.sizes(f"{case}.sizes", 6)
    lead = (b, h)[:batch_axes]
    shapes = [(*lead, tq, d), (*lead, tk, d)] + ([(*lead, tk, dv)] if with_v else [])
    return tuple(draws.randn(f"{case}.{name}", *s, dtype=dtype, scale=1.5) for name, s in zip("QKV", shapes))


def qk_inputs(draws, case, dtype):
    return qkv_inputs(draws, case, dtype, with_v=False)


def one_batch_axis(draws, case, dtype):
    return qkv_inputs(draws, case, dtype, batch_axes=1)


def large_scores(draws, case, dtype):
    # Rows around +800: exp overflows even in float64 unless each row's max is subtracted first.
    b, tq, tk = draws.sizes(f"{case}.sizes", 3)
    return (draws.randn(f"{case}.scores", b, tq, tk, scale=5.0).add(800.0).to(dtype),)


def module_args(draws):
    _, _, e, d = draws.sizes("args", 4, low=2, high=20)
    return (e, d)


def module_input(draws, args, case, dtype):
    b, t, _, _ = draws.sizes("args", 4, low=2, high=20)
    return draws.randn(f"{case}.x", b, t, args[0], dtype=dtype)


@probe("lesson1.attention_scores")
def attention_scores(rec, fn):
    function_cases(rec, "attention_scores", fn, qk_inputs)


@probe("lesson1.softmax_last")
def softmax_last(rec, fn):
    function_cases(rec, "softmax_last", fn, large_scores)


@probe("lesson1.attention")
def attention(rec, fn):
    function_cases(rec, "attention", fn, one_batch_axis)


@probe("lesson1.attention_module")
def attention_module(rec, cls):
    module_cases(rec, "Attention", cls, module_args, module_input)


@probe("lesson1.variance")
def variance(rec, var_raw, var_scaled):
    rec.put("answer_var_raw", scalar(var_raw))
    rec.put("answer_var_scaled", scalar(var_scaled))


@probe("lesson1.n_params")
def n_params(rec, n):
    rec.put("answer_n_params", scalar(n))
