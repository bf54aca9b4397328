"""The feedback engine: run the learner's code, compare, and name the likely bug.

A visible check runs the learner's code on small inputs whose sizes all differ
from each other (each lesson module picks its own), so a mixed-up axis shows as a
wrong size rather than passing by luck. When a result is wrong, it is compared
with the results of the classic bugs, and the matching hint is shown in the
learner's language.
"""
from __future__ import annotations

import contextlib
import functools
import inspect
import io
import math
import re
import warnings

import torch
import torch.nn as nn
from torch.overrides import TorchFunctionMode

from .. import by_hand
from ..findings import count_finding
from ..messages import t
from ..validate import CheckFailed, CourseError

# --------------------------------------------------------------------------- more than the first mistake


def named(key: str, **fields) -> CheckFailed:
    """A failure whose message is itself the classic mistake's hint ("dropout is still on in eval")."""
    failure = CheckFailed(t(key, **fields))
    failure.named = True
    return failure


def named_mistake(test) -> str | None:
    """The classic mistake test() names when it fails (its hint, or a message that is a hint), else None."""
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            test()
    except CheckFailed as failure:
        if getattr(failure, "raised", None):
            return None   # the learner's code raised: most likely the error the first comparison met already
        if failure.hints:
            return failure.hints[0]
        return failure.message if getattr(failure, "named", False) else None
    except Exception:  # noqa: BLE001 - a test that cannot even run names nothing
        return None
    return None


@contextlib.contextmanager
def also_checks(*tests):
    """Inside a visible check: when the block fails on its first comparison, each of tests still runs. Each
    compares something the failed comparison does not depend on (dropout's placement, the mask's device, the
    SDPA path) and raises CheckFailed naming its classic mistake; those named are added to the failure as
    "also: …", so a learner with two mistakes meets both here, not the second only in grading."""
    try:
        yield
    except CheckFailed as failure:
        for test in tests:
            failure.add_also(named_mistake(test))
        raise


def _referenced(obj) -> tuple[set, dict]:
    """The global names obj's code refers to (nested functions and a class's methods too), and its globals."""
    funcs = [obj] if inspect.isfunction(obj) else \
        [v for v in vars(obj).values() if inspect.isfunction(v)] if inspect.isclass(obj) else []
    codes, names, found = [f.__code__ for f in funcs], set(), {}
    for f in funcs:
        found = f.__globals__
    while codes:
        code = codes.pop()
        names |= set(code.co_names)
        codes += [c for c in code.co_consts if inspect.iscode(c)]
    return names, found


def earlier_cause(obj, earlier: dict) -> str | None:
    """earlier: {name: (exercise number, its check)}. The hint naming the first of the learner's earlier
    functions that obj calls and that fails its own exercise's check: a failure here may come from there."""
    names, found = _referenced(obj)
    for name, (number, check) in earlier.items():
        if name in names and name in found and _fails(check, found[name]):
            return t("hint_earlier_cause", n=number, name=name)
    return None


def _fails(check, fn) -> bool:
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            check(fn)
    except Exception:  # noqa: BLE001 - any failure of the earlier check counts
        return True
    return False


def blames_earlier(**earlier):
    """Decorate a visible check whose exercise calls functions of earlier exercises (name=(number, check)):
    when it fails and one of those fails its own check, the first hint says so."""
    def wrap(check):
        @functools.wraps(check)
        def checked(obj, *rest, **kwargs):
            try:
                return check(obj, *rest, **kwargs)
            except CheckFailed as failure:
                failure.add_hint(earlier_cause(obj, earlier), first=True)
                raise
        return checked
    return wrap


# --------------------------------------------------------------------------- diagnosis helpers


def mentions_dot_T(source: str) -> bool:
    return re.search(r"\.T\b", source) is not None


def _uses_dot_T(fn) -> bool:
    # torch warns about .T on 3-D tensors only once per process, so read the source too.
    try:
        return mentions_dot_T(inspect.getsource(fn))
    except (OSError, TypeError):
        return False


# A list or tuple where a tensor was expected: its attribute, an operator, torch.cat's element, or indexing it with a
# tuple of slices.
NOT_A_TENSOR = re.compile(r"'(list|tuple)' object has no attribute|for @: '(Tensor|list|tuple)' and '(list|tuple)'"
                          r"|for @: '(list|tuple)'|expected Tensor as element \d+ in argument \d+, but got (list|tuple)"
                          r"|not supported between instances of '(list|tuple)'|list indices must be integers"
                          r"|must be Tensor, not (list|tuple)")
# A tensor's method (or indexing) on an object that is no tensor, no list or tuple, and not None: a module.
A_TENSOR_METHOD = re.compile(r"'(?!list'|tuple'|NoneType'|int'|float'|str'|dict')\w+' object (has no attribute "
                             r"'(view|split|transpose|reshape|size|contiguous|masked_fill|softmax)'"
                             r"|is not subscriptable)")

# The course's modules' own sizes, read in forward: one __init__ never set (make mutants, lesson 7's pasted module).
MODULE_ATTRIBUTE = re.compile(r"object has no attribute '(embed_dim|n_head|head_dim)'")


def error_hint(kind: str, message: str, dot_T: bool) -> str | None:
    """The hint key for an error the learner's code raised (kind: its class name), or None.

    The visible checks name a crash with it, and so does the grader, from what a probe recorded.
    dot_T: torch warned about `x.T` during the call, or the learner's code uses `.T`.
    """
    if kind == by_hand.REFUSED_KIND:
        return by_hand.hint_key(message)
    if dot_T:
        return "hint_dot_T"
    if kind == "IndexError" and "Dimension out of range" in message:
        return "hint_negative_dims"   # transpose(1, 2) works on (B, T, D) but not on an unbatched (T, D)
    if kind == "TypeError" and any(s in message
                                   for s in ("argument 'size'", "tuple of ints", "'float' object cannot be")):
        return "hint_int_division"   # a size computed with / is a float: view, reshape and nn.Linear want ints
    if kind == "TypeError" and 'missing 1 required positional argument' in message and '"dim"' in message:
        return "hint_dim_missing"
    if kind == "ValueError" and ("too many values to unpack" in message or "not enough values to unpack" in message):
        return "hint_unpack_tensor"    # a, b = tensor: the call that returns a pair (split, rope) left out
    if kind in ("TypeError", "AttributeError") and NOT_A_TENSOR.search(message):
        # [a, b] where torch.cat(...) was meant, or a tuple (split's, a cache's) used whole
        return "hint_list_not_tensor"
    if kind in ("TypeError", "AttributeError") and A_TENSOR_METHOD.search(message):
        return "hint_not_a_tensor_method"   # view, split, … called on a module, not on the tensor a layer returns
    if kind == "TypeError" and "operator.invert" in message:
        return "hint_invert_needs_bool"     # ~ on a mask made without dtype=torch.bool
    if kind == "TypeError" and "masked_fill() received an invalid combination" in message and "got (float" in message:
        return "hint_masked_fill_order"
    if kind == "AttributeError" and "before Module.__init__() call" in message:
        return "hint_super_init"            # super().__init__() left out: the module cannot hold a layer yet
    if kind == "AttributeError" and MODULE_ATTRIBUTE.search(message):
        return "hint_module_attributes"     # an attribute __init__ never set, or set under another name
    if kind == "TypeError" and "buffer name should be a string" in message:
        return "hint_register_buffer_args"  # register_buffer(tensor, "causal")
    if kind != "RuntimeError":
        return None
    if "upper bound and lower bound inconsistent with step sign" in message:
        return "hint_arange_bounds"
    if "leaf Variable that requires grad" in message:
        return "hint_copy_no_grad"   # copy_ into a parameter outside torch.no_grad()
    if "view size is not compatible" in message:
        return "hint_contiguous"
    if "except in dimension" in message:
        return "hint_cat_dim"
    if any(s in message for s in ("must match", "cannot be multiplied", "Expected size", "mat1 and mat2")):
        return "hint_transpose_k"
    if "split_with_sizes expects split_sizes to sum exactly" in message:
        return "hint_split_sizes"   # split([a, b], dim=…) on an axis whose size is not a + b
    if re.search(r"shape '\[[\d, -]*\]' is invalid for input of size", message):
        return "hint_view_sizes"    # view/reshape to sizes whose product is not the tensor's
    return None


def raised_hint(on_error, kind: str, message: str, call: str, dot_T: bool) -> str | None:
    """The hint key for an error the learner's code raised, as the check and the grader name it: the exercise's own
    rule (on_error(kind, message, call)) first, else error_hint's. on_error returns False where error_hint's would
    name a wrong cause (lesson 1's transposed K for a shape error in code whose shapes are another lesson's)."""
    if kind == "NameError":   # a name another cell binds (a later one, a loop): no exercise's own cause
        return "hint_name_not_defined"
    key = on_error(kind, message, call) if callable(on_error) else on_error
    if key is False:
        return None
    return key or error_hint(kind, message, dot_T)


def run(name: str, fn, *args, on_error=None, **kwargs):
    """Run the learner's code; turn its failure into a message with a hint.

    on_error: the hint for any exception, where the exercise knows better than the error text;
    or a function (kind, message, call) -> hint key or None, where the error's text, or which call
    raised (name), tells mistakes apart (the grader's judges take the same function, given the call
    the probe recorded, so both name the mistake alike).
    A result holding a subclass of Tensor is refused: its __torch_function__ could make
    torch.equal or torch.allclose answer True for anything. Inside a by-hand exercise's check
    or probe (attn_course.by_hand), the library's attention refuses to run while fn does.
    """
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            # In a by-hand exercise the library's attention refuses to run while the learner's code does.
            with by_hand.guard_for(name, (fn, *args), kwargs):
                result = by_hand.take(fn(*args, **kwargs))
        except NotImplementedError as error:
            if str(error):  # torch's own, e.g. copying out of a meta tensor; the stub's is bare
                hint = on_error
                if callable(on_error):
                    key = on_error("NotImplementedError", str(error), name)
                    hint = t(key) if key else None
                raise _failed(CheckFailed(t("raised", name=name, error=f"NotImplementedError: {error}"), hint),
                              "NotImplementedError", error) from None
            raise _failed(CheckFailed(t("not_implemented", name=name)), "NotImplementedError", error) from None
        except CourseError:
            raise
        except Exception as error:  # noqa: BLE001 - any failure becomes feedback
            kind = "RuntimeError" if isinstance(error, RuntimeError) else type(error).__name__
            warned = any("x.T" in str(w.message) for w in caught)
            if callable(on_error):
                key = raised_hint(on_error, kind, str(error), name, warned or _uses_dot_T(fn))
                hint = t(key) if key else None
            else:
                key = None if on_error else error_hint(kind, str(error), warned or _uses_dot_T(fn))
                hint = on_error or (t(key) if key else None)
            failure = CheckFailed(t("raised", name=name, error=glossed(f"{type(error).__name__}: {error}")), hint)
            raise _failed(failure, kind, error, warned) from None
    if _has_tensor_subclass(result):
        raise CheckFailed(t("tensor_subclass", name=name))
    return result


# A broadcast between two sizes: a causal buffer of (max_len, max_len) used whole meets (T, T) scores.
SIZE_MISMATCH = re.compile(r"size of tensor a \((\d+)\) must match the size of tensor b \((\d+)\)")

_GLOSSES = (
    ("error_gloss_unpack", re.compile(r"(?:too many|not enough) values to unpack \(expected (?P<n>\d+)")),
    ("error_gloss_device", re.compile(r"Tensor on device (?P<a>\w+) is not on the expected device (?P<b>\w+)")),
    ("error_gloss_broadcast", re.compile(r"size of tensor a \((?P<a>\d+)\) must match the size of tensor b "
                                         r"\((?P<b>\d+)\) at non-singleton dimension (?P<dim>\d+)")),
    ("error_gloss_load_size", re.compile(r"size mismatch for (?P<param>[\w.]+): copying a param with shape "
                                         r"torch.Size\((?P<got>\[[\d, ]*\])\) from checkpoint, the shape in "
                                         r"current model is torch.Size\((?P<want>\[[\d, ]*\])\)")),
    ("error_gloss_dtype", re.compile(r"expected scalar type (?P<a>\w+) but found (?P<b>\w+)|expected m1 and m2 to "
                                     r"have the same dtype, but got: (?P<a2>\w+) != (?P<b2>\w+)")),
    ("error_gloss_inplace_view", re.compile(r"Output \d+ of (?P<op>\w+) is a view and is being modified inplace")),
)


def error_gloss(error: str):
    """An English error the learner's code raised, with what it says in the learner's language: (key, fields)
    whose message holds the error itself ({error}), or None where no gloss is written. The check's `raised` and
    the grader's `hidden_raised` show it alike."""
    for key, pattern in _GLOSSES:
        found = pattern.search(error)
        if found:
            return key, {"error": error, **found.groupdict()}
    return None


def glossed(error: str) -> str:
    """The error as the check shows it: glossed in the learner's language where error_gloss knows it."""
    gloss = error_gloss(error)
    return t(gloss[0], **gloss[1]) if gloss else error


def _failed(failure: CheckFailed, kind: str, error: Exception, warned: bool = False) -> CheckFailed:
    """Keep what the learner's code raised on the failure: a probe records it for the grader,
    which names the mistake itself (error_hint), not from this kernel's hint text."""
    failure.raised = {"kind": kind, "message": str(error)[:500], "dot_T": warned}
    return failure


def _has_tensor_subclass(x, depth: int = 0) -> bool:
    """A Tensor subclass, or a tuple or list subclass (whose items this would not look into), anywhere in x."""
    if isinstance(x, (tuple, list)):
        return type(x) not in (tuple, list) or (depth < 3 and any(_has_tensor_subclass(v, depth + 1) for v in x))
    return isinstance(x, torch.Tensor) and type(x) not in (torch.Tensor, nn.Parameter)


def expect_shape(got, want: tuple, names: tuple, what: str, extra_hint: str | None = None):
    layout = "(" + ", ".join(names) + ")"
    if not isinstance(got, torch.Tensor):
        raise CheckFailed(t("returned_not_tensor", name=what, kind=type(got).__name__))
    if got.dim() != len(want):
        raise CheckFailed(t("wrong_ndim", what=what, want=len(want), layout=layout, got=got.dim(),
                            shape=tuple(got.shape)), extra_hint)
    if tuple(got.shape) == tuple(want):
        return
    axis = next(i for i, (g, w) in enumerate(zip(got.shape, want)) if g != w)
    message = t("wrong_axis", what=what, want=tuple(want), layout=layout, got=tuple(got.shape),
                axis=axis, axis_name=names[axis], want_n=want[axis], got_n=got.shape[axis])
    hints = []
    for a in range(len(want)):
        for b in range(a + 1, len(want)):
            swapped = list(want)
            swapped[a], swapped[b] = swapped[b], swapped[a]
            if tuple(got.shape) == tuple(swapped):
                hints.append(t("swapped_axes", a=a, b=b, name_a=names[a], name_b=names[b]))
    raise CheckFailed(message, *hints, extra_hint)


def close(a: torch.Tensor, b: torch.Tensor, tol: float = 1e-4) -> bool:
    return a.shape == b.shape and bool(torch.allclose(a.detach().double(), b.detach().double(), atol=tol, rtol=tol))


def max_error(a: torch.Tensor, b: torch.Tensor) -> float:
    if a.shape != b.shape:
        return float("inf")
    return float((a.detach().double() - b.detach().double()).abs().max())


def diagnose(got: torch.Tensor, variants: dict, what: str, tol: float = 1e-4):
    """Raise a CheckFailed naming the bug whose result `got` equals, or a generic one.

    `what` is a message key: what_scores, what_weights or what_output.
    """
    is_weights = what == "what_weights"
    what = t(what)
    if not torch.isfinite(got).all():
        raise CheckFailed(t("has_nan", what=what))
    right = variants[None]
    if close(got, right, tol):
        return
    for key, value in variants.items():
        if key is not None and close(got, value, tol):
            # (hint, detail) when one hint has several variants;
            # (hint, (("field", value), …)) when its text has fields
            fields = dict(key[1]) if isinstance(key, tuple) and isinstance(key[1], tuple) else {}
            key = key[0] if isinstance(key, tuple) else key
            hint = t(key, axis=-2) if key == "hint_softmax_axis" else t(key, **fields)
            raise CheckFailed(t("values_differ", what=what, err=max_error(got, right)), hint)
    sums = got.sum(dim=-1)
    hint = None
    if is_weights and not close(sums, torch.ones_like(sums), 1e-3):
        hint = t("hint_rows_not_normalised", lo=float(sums.min()), hi=float(sums.max()))
    raise CheckFailed(t("values_differ", what=what, err=max_error(got, right)), hint)


def output_dropped(y) -> bool:
    """Dropout on the module's output (Hugging Face's resid_dropout after c_proj): single elements of a
    row are exactly 0. Dropout on the weights zeroes whole rows at most (a query whose every weight was
    dropped, in a module without an output bias), never a few elements of a row."""
    if not isinstance(y, torch.Tensor) or not y.is_floating_point() or y.dim() < 2:
        return False
    zero = y.detach() == 0
    partly = zero & ~zero.all(-1, keepdim=True)
    return int(partly.sum()) >= 2


class NanRowsSDPA(TorchFunctionMode):
    """scaled_dot_product_attention as some backends compute it (CUDA's, torch's before 2.5 on the CPU): a query
    whose every key is masked gets NaN. The CPU here gives 0 there, so a missing nan_to_num only shows this way."""

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        out = func(*args, **kwargs)
        if func is torch.nn.functional.scaled_dot_product_attention and isinstance(out, torch.Tensor):
            mask = kwargs.get("attn_mask", args[3] if len(args) > 3 else None)
            if isinstance(mask, torch.Tensor):
                dead = ~mask.any(-1, keepdim=True) if mask.dtype == torch.bool else \
                    torch.isneginf(mask).all(-1, keepdim=True)
                out = out.masked_fill(dead, float("nan"))
        return out


def inputs(*shape_lists, seed: int = 0, dtype=torch.float64):
    g = torch.Generator().manual_seed(seed)
    return [torch.randn(*s, generator=g, dtype=dtype) for s in shape_lists]


def raised(fn, *args) -> str | None:
    """"ValueError" when fn(*args) raises one (the course's InputError is one), else the exception's name or None."""
    try:
        fn(*args)
    except ValueError:
        return "ValueError"
    except Exception as error:  # noqa: BLE001 - a torch error is not the clear error asked for
        return type(error).__name__
    return None


def passed(name: str) -> None:
    print(t("passed", name=name))


def scale_variants(raw, d: int, other_sizes=()) -> dict:
    """Scores scaled the classic wrong ways (raw = Q @ K^T, d = d_k), keyed by the hint: √d_k multiplied, divided
    with //, divided by the scores, or another axis's size (other_sizes: the batch, the length, the heads)."""
    root = math.sqrt(d)
    variants = {"hint_scale_mul": raw * root, "hint_scale_floor": raw // root, "hint_scale_inverted": root / raw}
    for n in sorted(set(other_sizes) - {d}):
        variants[("hint_scale_wrong_dim", n)] = raw / math.sqrt(n)
    return variants


def pair_swapped(result, out_shape) -> bool:
    """A pair returned as (weights, output): the output's shape comes second, and not first."""
    return isinstance(result, (tuple, list)) and len(result) == 2 and \
        all(isinstance(r, torch.Tensor) for r in result) and \
        tuple(result[1].shape) == tuple(out_shape) != tuple(result[0].shape)


def expect_number(name: str, value) -> float:
    if value is None or value is ...:
        raise CheckFailed(t("answer_missing", name=name))
    if isinstance(value, torch.Tensor) and value.numel() == 1:
        value = value.item()
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise CheckFailed(t("answer_not_number", name=name, kind=type(value).__name__))
    if not math.isfinite(value):
        raise CheckFailed(t("answer_not_finite", name=name, got=repr(value)))
    return float(value)


def check_count_answer(name: str, answer, cls, args: tuple, want: int, hint_of=None,
                       differs: str | None = None) -> None:
    """A count the learner writes. want: the right count from the course's public facts, judged by the grader's
    own rule (findings.count_finding, hint_of naming the classic miscount); the learner's module is only compared
    with it, in an "also" line (differs: its message key), so a broken module neither gives nor costs the point."""
    counted = _module_count(cls, args)
    module = f"{cls.__name__}{tuple(args)}"
    finding = count_finding(name, answer, want, hint_of)
    if finding:
        key, fields, hint = finding
        failure = CheckFailed(t(key, **fields), t(hint) if hint else None)
        if differs and key == "answer_wrong" and counted is not None and counted != want:
            failure.add_also(t(differs, module=module))
        raise failure
    passed(name)
    if differs and counted is not None and counted != want:
        print(t(differs, module=module))


def linear_count(*shapes: tuple, bias: bool) -> int:
    """The parameters of nn.Linear layers of these (in, out) shapes, as the lesson's text builds them: the right count a
    count exercise is judged against. On meta: nothing is allocated."""
    return sum(p.numel() for i, o in shapes for p in torch.nn.Linear(i, o, bias=bias, device="meta").parameters())


def _module_count(cls, args: tuple) -> int | None:
    """The learner's module's parameter count, or None when it cannot be built."""
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            return sum(p.numel() for p in cls(*args).parameters())
    except Exception:  # noqa: BLE001 - the module's own check says why
        return None
