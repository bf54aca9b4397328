"""The probe side of the two common hidden tests: a function, and a module, in float64, float32 and with gradients.

Each has a twin in attn_course.judging (judge_function / judge_module)
that draws the same inputs by the same names and compares.
"""
from __future__ import annotations

import torch

# (case, dtype): every function and module is run in both, then once more for gradients.
DTYPE_CASES = (("float64", torch.float64), ("float32", torch.float32))
# The largest difference from the right answer each case allows: the visible checks that run these cases and the
# grader's judges decide by the same numbers.
TOLERANCE = {"float64": 1e-9, "float32": 1e-4}


def as_tuple(x) -> tuple:
    return x if isinstance(x, tuple) else (x,)


def backward_with_probe(draws, got, leaves) -> list | None:
    """Backpropagate a random projection of every tensor output; return the leaves' gradients.

    The projection is drawn by name, so the grader projects its reference the same way.
    None when the outputs cannot be differentiated (detached, or not tensors).
    """
    outs = [o for o in as_tuple(got) if o is not None]  # e.g. the weights SDPA does not return
    if not outs or not all(isinstance(o, torch.Tensor) and o.requires_grad for o in outs):
        return None
    total = sum((o * draws.randn(f"probe.{i}", *o.shape, dtype=o.dtype)).sum() for i, o in enumerate(outs))
    try:
        total.backward()
    except RuntimeError:
        return None
    return [leaf.grad for leaf in leaves]


def differentiable(args) -> list:
    """Floating-point tensors become fresh leaves that require grad; sizes and masks stay as they are."""
    return [a.clone().requires_grad_(True) if isinstance(a, torch.Tensor) and a.is_floating_point() else a
            for a in args]


def function_cases(rec, name: str, fn, make_inputs, prefix: str = "", grads: bool = True) -> None:
    """make_inputs(draws, case, dtype) -> the arguments (tensors drawn by names that start with case).

    prefix keeps the keys of several runs in one probe apart (it must also be in make_inputs' names). grads=False:
    values alone (FlexAttention has no backward on the CPU).
    """
    for case, dtype in DTYPE_CASES:
        rec.put(prefix + case, rec.call(name, fn, *make_inputs(rec, case, dtype)))
    if not grads:
        return
    args = differentiable(make_inputs(rec, "grad", torch.float64))
    got = rec.call(name, fn, *args)
    rec.put(prefix + "grad", got)
    leaves = [a for a in args if isinstance(a, torch.Tensor) and a.requires_grad]
    rec.put(prefix + "grad.inputs", backward_with_probe(rec, got, leaves))


def module_cases(rec, name: str, cls, make_args, make_input):
    """make_args(draws) -> constructor arguments; make_input(draws, args, case, dtype) -> x. Returns the module, for
    a probe's cases of its own.

    The module's parameters are drawn by the grader's seed (Draws.fill_parameters), so its
    own initialisation does not matter; their names and shapes are what the judge compares.
    """
    args = make_args(rec)
    module = rec.call(name, cls, *args).double()
    rec.put("layout", rec.fill_parameters(module))
    for case, dtype in DTYPE_CASES:
        module.to(dtype)
        rec.put(case, rec.call(f"{name}.forward", module, make_input(rec, args, case, dtype)))
    module.double()
    x = make_input(rec, args, "grad", torch.float64).requires_grad_(True)
    got = rec.call(f"{name}.forward", module, x)
    rec.put("grad", got)
    params = [p for _, p in module.named_parameters()]
    grads = backward_with_probe(rec, got, [x, *params])
    rec.put("grad.inputs", grads)
    return module


def scalar(value):
    """A numeric answer as a plain number when it is a one-element tensor; anything else as it is."""
    if isinstance(value, torch.Tensor) and value.numel() == 1:
        return value.item()
    return value


def refusal(module, shape) -> str | None:
    """The kind of error module(x) raised for a bad x of this shape (float64), or None when it raised none."""
    try:
        module(torch.randn(*shape, dtype=torch.float64))
    except ValueError:
        return "ValueError"
    except Exception as error:  # noqa: BLE001 - a torch error is not the clear message the text asks for
        return type(error).__name__
    return None
