"""Lesson 2's exercises: each one's cases (the probe, run in the kernel) and its procedure (the verdict on what the
probe recorded, given the right implementation). The grader runs a procedure with the hidden reference, the visible
check (attn_course.checks.lesson2) with the right answer the course's public facts give, on a seed of its own."""
import copy
import itertools
import math
import warnings

import torch
import torch.nn as nn

from .. import judging
from ..checks.engine import raised
from ..checks.heads import merge_heads as right_merge, split_heads as right_split
from ..findings import dtype_finding, shared_memory, untrainable
from ..judging import (
    TOLERANCE, Mismatch, expect_answer, expect_close, expect_copy, expect_outputs, judge_function, matching_bug, naming,
    procedure,
)
from ..score_watch import MatmulWatch
from ..sizes import avoided
from .cases import function_cases, module_cases, refusal, scalar
from .lesson2_copies import (
    HEAD_LAYERS, head_error, head_weights_hint, in_proj_hint, out_proj_hint, torch_mha_dropout, torch_mha_error,
    torch_mha_setup,
)
from .lesson2_mistakes import (
    dropped_weights, heads_error, matmul_hint, merge_shape_variants, merge_variants, mha_weight_variants, module_error,
    n_params_hint, output_variants, precision_hint, size_one_hint, split_variants, wide_weights_hint, width_from_e,
)
from .recorder import probe


class Weights(nn.Module):
    """W_q, W_k, W_v, W_o of a multi-head attention, and its sizes; no forward (that is an exercise)."""

    def __init__(self, embed_dim, n_head, head_dim):
        super().__init__()
        self.embed_dim, self.n_head, self.head_dim = embed_dim, n_head, head_dim
        inner = n_head * head_dim
        self.W_q = nn.Linear(embed_dim, inner, bias=False)
        self.W_k = nn.Linear(embed_dim, inner, bias=False)
        self.W_v = nn.Linear(embed_dim, inner, bias=False)
        self.W_o = nn.Linear(inner, embed_dim, bias=False)


# Every size drawn here differs from every size the notebook binds at top level (its demo's D = 4): code that reads
# such a global fails on every seed, the check's and the grader's.
NOTEBOOK = avoided(2)


def split_inputs(draws, case, dtype):
    b, t, h, d = draws.sizes(f"{case}.sizes", 4, avoid=NOTEBOOK)
    return draws.randn(f"{case}.x", b, t, h * d, dtype=dtype), h


def merge_inputs(draws, case, dtype):
    b, h, t, d = draws.sizes(f"{case}.sizes", 4, avoid=NOTEBOOK)
    return (draws.randn(f"{case}.x", b, h, t, d, dtype=dtype),)


def module_args(draws):
    _, _, h, d, e = draws.sizes("args", 5, low=2, high=16, avoid=NOTEBOOK)
    return (e, h, d)


def module_input(draws, args, case, dtype):
    b, t, _, _, _ = draws.sizes("args", 5, low=2, high=16, avoid=NOTEBOOK)
    return draws.randn(f"{case}.x", b, t, args[0], dtype=dtype)


# Sizes of 1 that a squeeze() on the results would drop: the batch, and the length (one token).
SIZE_ONE_CASES = ("batch_one", "length_one")


def size_one_input(draws, args, case):
    """x of the drawn sizes with B = 1 (case "batch_one") or T = 1 ("length_one"), in float64."""
    b, t, _, _, _ = draws.sizes("args", 5, low=2, high=16, avoid=NOTEBOOK)
    b, t = (1, t) if case == "batch_one" else (b, 1)
    return draws.randn(f"{case}.x", b, t, args[0], dtype=torch.float64)


def bad_inputs(draws):
    """What forward must refuse with the course's ValueError: x without its batch axis, and x of another width."""
    b, t, _, _, e = draws.sizes("args", 5, low=2, high=16, avoid=NOTEBOOK)
    return [(t, e), (b, t, e + 1)]


def weights_and_input(draws, square: bool):
    """Drawn multi-head weights (E = H·D when square, as nn.MultiheadAttention needs) and an input."""
    b, t, h, d, e = draws.sizes("sizes", 5, low=2, high=12, avoid=NOTEBOOK)
    weights = Weights(h * d if square else e, h, d).double()
    draws.fill_parameters(weights, "weights")
    return weights, draws.randn("x", b, t, weights.embed_dim)


def split_back_input(draws):
    """merge_heads' input as split_heads leaves it: a transposed view of (B, T, H, D), not contiguous."""
    b, t, h, d = draws.sizes("round_trip.sizes", 4, avoid=NOTEBOOK)
    return (right_split(draws.randn("round_trip.y", b, t, h * d), h),)


def _input_kept(rec, name, fn, make_inputs) -> None:
    """fn on one more float64 input, which it must leave as it was: an in-place method (transpose_) changes the
    caller's tensor."""
    x, *rest = make_inputs(rec, "kept", torch.float64)
    before = x.clone()
    rec.call(name, fn, x, *rest)
    rec.put("input_kept", x.shape == before.shape and x.stride() == before.stride() and torch.equal(x, before))


@probe("lesson2.split_heads")
def split_heads(rec, fn):
    function_cases(rec, "split_heads", fn, split_inputs)
    _input_kept(rec, "split_heads", fn, split_inputs)


@probe("lesson2.merge_heads")
def merge_heads(rec, fn):
    function_cases(rec, "merge_heads", fn, merge_inputs)
    rec.put("round_trip", rec.call("merge_heads", fn, *split_back_input(rec)))
    _input_kept(rec, "merge_heads", fn, merge_inputs)


def _shared_layers(module) -> list:
    """Pairs of W_q, W_k, W_v, W_o that are one layer (self.W_q = self.W_k = nn.Linear(...)): named_parameters lists
    it once, under the first name."""
    layers = [getattr(module, name, None) for name in HEAD_LAYERS]
    return [[a, b] for (a, la), (b, lb) in itertools.combinations(zip(HEAD_LAYERS, layers), 2)
            if la is not None and la is lb]


@probe("lesson2.module")
def module(rec, cls):
    rec.put("shared_layers", _shared_layers(rec.call("MultiHeadAttention", cls, *module_args(rec))))
    # A matrix product that raised in forward: which two shapes met (the grader names the mistake from them).
    with MatmulWatch() as watch:
        try:
            module = module_cases(rec, "MultiHeadAttention", cls, module_args, module_input)
        finally:
            if watch.failed is not None and rec.raised:
                rec.put("matmul_failed", [list(shape) for shape in watch.failed])
                rec.put("raised_error", f"{rec.raised.get('kind', '')}: {rec.raised.get('message', '')}"[:300])
    rec.put("refusals", [refusal(module, shape) for shape in bad_inputs(rec)])
    # head_dim left out: embed_dim // n_head, and a clear error when that does not divide.
    rec.put("default_head_dim", getattr(rec.call("MultiHeadAttention", cls, 12, 3), "head_dim", None))
    rec.put("error_on_10_3", raised(cls, 10, 3))
    # B = 1 and T = 1, with the parameters module_cases drew: forward's results keep those axes.
    args = module_args(rec)
    module = rec.call("MultiHeadAttention", cls, *args).double()
    rec.fill_parameters(module)
    for case in SIZE_ONE_CASES:
        with torch.no_grad():
            rec.put(case, rec.call("MultiHeadAttention.forward", module, size_one_input(rec, args, case)))


@probe("lesson2.head_as_single")
def head_as_single(rec, fn, attention_cls):
    weights, x = weights_and_input(rec, square=False)
    outputs, copied, shared, frozen = [], [], [], []
    for i in range(weights.n_head):
        # With gradients on, as the notebook's own cells call it: a copy_ outside torch.no_grad() fails here too.
        single = rec.call("head_as_single", fn, weights, i)
        if not isinstance(single, attention_cls):
            outputs.append(type(single).__name__)
            continue
        # The copy's invariants (attn_course.findings.copy_finding): memory shared with mha, found here.
        if not shared:   # the first head that shares is named
            shared = shared_memory(single, weights)
        if not frozen:   # a module to train, as mha is (the text copies under torch.no_grad() for that)
            frozen = untrainable(single)
        # As copied, before single.double() below turns them to float64 in place (a float32 copy shows as such).
        layers = {name: getattr(getattr(single, name, None), "weight", None) for name in HEAD_LAYERS}
        copied.append({name: w.detach().clone() if isinstance(w, torch.Tensor) else w for name, w in layers.items()})
        with torch.no_grad(), warnings.catch_warnings():
            # .double() reads each parameter's .grad: torch warns in English about one that is no leaf (named above).
            warnings.simplefilter("ignore")
            outputs.append(rec.call("head_as_single", single.double(), x)[0])
    rec.put("heads", outputs)
    rec.put("layers", copied)
    rec.put("shared", shared)
    rec.put("untrainable", frozen)
    rec.put("source_after", dict(weights.named_parameters()))


@probe("lesson2.to_torch_mha")
def to_torch_mha(rec, fn):
    weights, _ = weights_and_input(rec, square=True)
    theirs = rec.call("to_torch_mha", fn, weights)
    rec.put("shared", shared_memory(theirs, weights) if isinstance(theirs, nn.Module) else [])
    rec.put("untrainable", untrainable(theirs) if isinstance(theirs, nn.Module) else [])
    rec.put("source_after", dict(weights.named_parameters()))
    # The grader builds a genuine nn.MultiheadAttention from these: only the copied weights count.
    config = {name: getattr(theirs, name, None) for name in ("embed_dim", "num_heads", "batch_first", "dropout",
                                                              "training")}
    config["type"] = type(theirs).__name__
    rec.put("config", config)
    state = theirs.state_dict() if isinstance(theirs, nn.Module) else {}
    rec.put("state", dict(state))
    first = next(theirs.parameters(), None) if isinstance(theirs, nn.Module) else None
    rec.put("like", [str(first.dtype), first.device.type] if first is not None else None)
    rec.put("on_meta", _device_on_meta(fn, weights))


def _device_on_meta(fn, weights) -> str | None:
    """The device of the module fn makes from mha on the meta device (as a GPU stands in here): "meta" when it follows
    mha there; "cpu" when it stayed, or raised on meeting mha's meta weights; None when nothing tells."""
    try:
        theirs = fn(copy.deepcopy(weights).to("meta"))
    except Exception as error:  # noqa: BLE001 - the learner's code on the meta device; its errors on the CPU count
        return "cpu" if "meta" in str(error) else None
    first = next(theirs.parameters(), None) if isinstance(theirs, nn.Module) else None
    return first.device.type if first is not None else None


@probe("lesson2.n_params")
def n_params(rec, n):
    rec.put("answer_n_params", scalar(n))


# --------------------------------------------------------------------------- the classic mistakes
def _dtype_bug(res, name: str):
    finding = dtype_finding(name, res["float64"], torch.float64)
    return finding[2] if finding else None


def _split_bug(res):
    x, h = split_inputs(res, "float64", torch.float64)
    return _dtype_bug(res, "split_heads") or matching_bug(res["float64"], split_variants(x, h), 1e-12)


def _merge_bug(res):
    (x,) = merge_inputs(res, "float64", torch.float64)
    return _dtype_bug(res, "merge_heads") or \
        matching_bug(res["float64"], merge_variants(x) | merge_shape_variants(x), 1e-12)


def _expect_input_kept(res, name: str) -> None:
    if res["input_kept"] is not True:
        raise Mismatch("input_changed", hint="hint_input_in_place", name=name)


# --------------------------------------------------------------------------- the procedures
# res: what the probe recorded (attn_course.judging.Results); right: the right implementation.
@procedure(on_error=heads_error)
def judge_split_heads(res, right):
    with naming(lambda: _split_bug(res)):
        judge_function(res, right, split_inputs, names=["x"])
    _expect_input_kept(res, "split_heads")


# partial: merge_heads' cases ran on contiguous inputs before split_heads' (not contiguous) raised in a view: a view
# without the transpose is named by those results, not by the view's error ("a transposed tensor").
@procedure(on_error=heads_error, partial=True)
def judge_merge_heads(res, right):
    with naming(lambda: _merge_bug(res)):
        judge_function(res, right, merge_inputs, names=["x"])
    (x,) = split_back_input(res)
    expect_outputs(("case_size_one", {"sizes": tuple(x.shape)}), res["round_trip"], right(x), TOLERANCE["float64"],
                   "merge_heads")
    _expect_input_kept(res, "merge_heads")


def right_module(res, right, square: bool):
    """The right multi-head module (right: its class) holding the drawn weights, and the drawn input."""
    weights, x = weights_and_input(res, square)
    mha = right(weights.embed_dim, weights.n_head, weights.head_dim).double()
    mha.load_state_dict(weights.state_dict())
    return mha, x


def _head_bug(res, right):
    mha, _ = right_module(res, right, square=False)
    copied = res["layers"]
    for i, layers in enumerate(copied if isinstance(copied, list) else []):
        wrong = head_weights_hint(layers if isinstance(layers, dict) else {}, mha, i)
        if wrong is not None:
            return wrong
    return None


@procedure(on_error=head_error)
def judge_head_as_single(res, right):
    """right: the multi-head module's class; each head is lesson 1's attention on its slices of mha's weights."""
    with naming(lambda: _head_bug(res, right)):
        mha, x = right_module(res, right, square=False)
        heads = res["heads"]
        if not isinstance(heads, list) or len(heads) != mha.n_head or any(isinstance(got, str) for got in heads):
            raise Mismatch("hint_head_returns_attention")
        expect_copy("head_as_single", res, mha)   # before the values: a copy_ the wrong way makes them agree
        D = mha.head_dim
        for i, got in enumerate(heads):
            rows = slice(i * D, (i + 1) * D)
            with torch.no_grad():
                q, k, v = (x @ w.weight[rows].T for w in (mha.W_q, mha.W_k, mha.W_v))
                weights = torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(D), dim=-1)
                want = weights @ v @ mha.W_o.weight[:, rows].T
            expect_close(f"head_as_single(mha, {i})(x)", got, want, 1e-10)


def _to_torch_bug(res, mha):
    state = res["state"]
    got = state.get("in_proj_weight") if isinstance(state, dict) else None
    w = [mha.W_q.weight, mha.W_k.weight, mha.W_v.weight]
    if isinstance(got, torch.Tensor) and not matching_bug(got, {"right": torch.cat(w)}):
        return in_proj_hint(got, mha)
    got = state.get("out_proj.weight")
    if isinstance(got, torch.Tensor) and not matching_bug(got, {"right": mha.W_o.weight}):
        return out_proj_hint(got, mha)
    return None


def _expect_like_mha(res, mha) -> None:
    """The text asks for the new module on mha's device and dtype (.to(mha.W_q.weight)): the lesson's next cell
    feeds it float64 inputs, and mha on the meta device (a GPU's stand-in) must give a module there."""
    want = mha.W_q.weight
    like = res["like"]
    if isinstance(like, list) and like != [str(want.dtype), want.device.type]:
        raise Mismatch("hint_torch_mha_dtype", got=" / ".join(map(str, like)),
                       want=f"{want.dtype} / {want.device.type}")
    if res["on_meta"] not in (None, "meta"):
        raise Mismatch("hint_torch_mha_dtype", got=res["on_meta"], want="meta")


@procedure(on_error=torch_mha_error)
def judge_to_torch_mha(res, right):
    """right: the multi-head module's class; nn.MultiheadAttention rebuilt from the copied weights must compute what
    it computes."""
    mha, x = right_module(res, right, square=True)
    expect_copy("to_torch_mha", res, mha)
    config, state = res["config"], res["state"]
    if not isinstance(config, dict) or config.get("type") != "MultiheadAttention" or not isinstance(state, dict):
        raise Mismatch("hint_returns_torch_mha", kind=config.get("type") if isinstance(config, dict) else "-")
    # bias=False (a zero bias would give the same outputs), batch_first: named by the arguments, not by shapes
    what = torch_mha_setup(config.get("embed_dim"), config.get("num_heads"), "in_proj_bias" in state,
                           config.get("batch_first"), mha)
    if what:
        raise Mismatch("hint_torch_mha_setup", what=what)
    dropout = torch_mha_dropout(config.get("dropout"), config.get("training"))
    if dropout:
        raise Mismatch(dropout[0], **dropout[1])
    _expect_like_mha(res, mha)
    theirs = nn.MultiheadAttention(mha.embed_dim, mha.n_head, bias="in_proj_bias" in state,
                                   batch_first=bool(config.get("batch_first"))).double()
    try:
        theirs.load_state_dict({k: v.double() for k, v in state.items()})
    except (RuntimeError, AttributeError, TypeError):
        raise Mismatch("hint_torch_mha_setup", what="state_dict") from None
    with torch.no_grad(), naming(lambda: _to_torch_bug(res, mha)):
        y, w = theirs(x, x, x, need_weights=True, average_attn_weights=False)
        want_y, want_w = mha(x)
        expect_close("nn.MultiheadAttention", w, want_w, 1e-6, check_dtype=False)
        expect_close("nn.MultiheadAttention", y, want_y, 1e-6, check_dtype=False)


def _module_bug(res, right):
    shared = res["shared_layers"] if "shared_layers" in res else []
    if isinstance(shared, list) and shared:
        return "hint_layers_shared", {"a": shared[0][0], "b": shared[0][1]}
    layout = [name for name, _ in res["layout"]]
    if "W_o.weight" not in layout:
        return "hint_w_o_missing"
    biased = [name for name in layout if name.endswith(".bias")]
    if biased:   # named as lesson 1 names it (make mutants: bias=True)
        return "hint_has_bias", {"name": biased[0].split(".")[0]}
    e, h, d = args = module_args(res)
    ref = right(*args).double()
    res.fill_parameters(ref)
    x = module_input(res, args, "float64", torch.float64)
    got = res["float64"]
    if not (isinstance(got, tuple) and len(got) == 2):
        return None
    finding = dtype_finding("MultiHeadAttention.forward", got, torch.float64)
    if finding:
        return finding[2]
    y, weights = got
    if isinstance(y, torch.Tensor) and y.shape[-1] == h * d != e:
        return "hint_w_o_missing"
    with torch.no_grad():
        key = precision_hint(got, ref(x))
        if key:
            return key
        if isinstance(weights, torch.Tensor) and weights.dim() == 3:
            return wide_weights_hint(weights, ref, x, h, d)
        variants = mha_weight_variants(ref, x, h, d)
        key = matching_bug(weights, variants, nan=True)
        if key is not None:
            return ("hint_softmax_axis", {"axis": -2}) if key == "hint_softmax_axis" else key
        if dropped_weights(weights, variants[None]):
            return "hint_weights_dropout"
        right_weights = ref(x)[1]
        heads = right_weights @ right_split(ref.W_v(x), h)
        variants = output_variants(ref, x, right_weights, h)
        key = matching_bug(y, variants | {"hint_w_o_missing": right_merge(heads)})  # E = H·D: no shape to tell
    if key is None and isinstance(weights, torch.Tensor) and weights.is_floating_point():
        if bool(weights.isnan().any()):
            return "hint_mha_weights_nan"
        sums = weights.sum(-1)   # softmax over another axis, or none (make mutants)
        # NaN or inf: "divide by the sum of exp" would not be the cause
        if bool(torch.isfinite(sums).all()) and not matching_bug(sums, {"ones": torch.ones_like(sums)}, 1e-3):
            return "hint_rows_not_normalised", {"lo": float(sums.min()), "hi": float(sums.max())}
    return key


def _matmul_raised(res):
    """forward raised in a matrix product the probe watched: named from the shapes it was given (matmul_hint),
    unless the error's own text names it (module_error, on_error)."""
    if "matmul_failed" not in res or "raised_error" not in res:
        return
    error = str(res["raised_error"])
    kind, _, message = error.partition(": ")
    args = module_args(res)
    t_len = module_input(res, args, "float64", torch.float64).size(1)
    try:
        key = matmul_hint(res["matmul_failed"], t_len, args[2])
    except (TypeError, ValueError):
        key = None
    if key is None and module_error(kind, message, ""):
        return   # partial: nothing wrong before the error, so the verdict goes to on_error
    raise Mismatch("hidden_raised", hint=key, name="MultiHeadAttention.forward", error=error)


def _head_dim_bug(res):
    """head_dim left out is embed_dim // n_head, and a size that does not divide raises the course's ValueError."""
    if res["default_head_dim"] != 4:
        return "hint_head_dim_default", {"e": 12, "h": 3, "want": 4, "got": res["default_head_dim"]}
    if res["error_on_10_3"] != "ValueError":
        return "hint_no_divisibility_error", {"e": 10, "h": 3}
    return None


def _refusal_bug(res):
    """forward took x of a wrong shape without the course's ValueError: hint_no_input_check, with that shape."""
    for kind, shape in zip(res["refusals"], bad_inputs(res)):
        if kind != "ValueError":
            return "hint_no_input_check", {"shape": str(tuple(shape))}   # text: a tuple field is a message
    return None


def _expect_layout(res, right) -> None:
    """The module's parameters, as judging.judge_module compares them, with the causes the layout alone shows: two
    names for one layer, or layers sized by E // H where head_dim was given."""
    e, h, d = args = module_args(res)
    try:
        judging.expect_layout(res, right(*args))
    except Mismatch as mismatch:
        shared = res["shared_layers"] if "shared_layers" in res else []
        if isinstance(shared, list) and shared:
            mismatch.hint = ("hint_layers_shared", {"a": shared[0][0], "b": shared[0][1]})
        elif isinstance(res["layout"], list) and width_from_e(res["layout"], e, h, d):
            mismatch.hint = "hint_head_dim_from_e"
        raise


@procedure(on_error=module_error, partial=True)
def judge_module(res, right):
    """right: the module class. What it does with its sizes and with a wrong x does not depend on its weights: a
    wrong result hears of them too."""
    _matmul_raised(res)
    with naming(lambda: _module_bug(res, right), lambda: _head_dim_bug(res), lambda: _refusal_bug(res)):
        _expect_layout(res, right)
        judging.judge_module(res, right, module_args, module_input, "MultiHeadAttention")
    for bug in (_head_dim_bug(res), _refusal_bug(res)):
        if bug:
            raise Mismatch(bug[0], **bug[1])
    args = module_args(res)
    ref = right(*args).double()
    res.fill_parameters(ref)
    for case in SIZE_ONE_CASES:
        x = size_one_input(res, args, case)
        got = res[case]
        with torch.no_grad():
            want = ref(x)
        with naming(lambda: size_one_hint(got, want)):
            expect_outputs(("case_size_one", {"sizes": tuple(x.shape)}), got, want, TOLERANCE["float64"],
                           "MultiHeadAttention.forward")


@procedure()
def judge_n_params(res, right):
    expect_answer("answer_n_params", res["answer_n_params"], right, integer=True,
                  hint_of=lambda got: n_params_hint(got, right))
