"""The GPT-2 attention module's exercise, lesson 4's and the one lessons 5 to 7 paste in: its draws (sizes that
differ from those lesson 4's notebook binds, then GPT-2 small's 12 heads), its probes (lesson4.module,
lesson4.module_max_len) and their procedures. The grader runs a procedure with the hidden reference, the visible
check (attn_course.checks.gpt2_module) with the module the text describes, on a seed of its own."""
from __future__ import annotations

import torch

from ..checks.engine import output_dropped
from ..checks.gpt2_mistakes import (
    buffer_persistent, buffer_shape, max_len_error, meta_problem, module_error, module_hint, module_on_meta, output_of,
    sdpa_hint, sdpa_train_finding, shape_hint, train_variants,
)
from ..judging import (
    Mismatch, expect_close, expect_finding, expect_grads, expect_layout, expect_pair_close, matching_bug, naming,
    procedure,
)
from ..sizes import avoided
from .cases import backward_with_probe
from .recorder import probe

# The drawn sizes differ from every size the notebook binds at top level (its demo's H = 3, D = 4): code that reads
# such a global fails on every seed, as it fails the visible check's second case.
NOTEBOOK = avoided(4)
NAME = "GPT2SelfAttention"
FORWARD = f"{NAME}.forward"   # the call a by-hand refusal and an error name, as the learner knows it


def configs(draws):
    """(B, T, H, D): drawn sizes, then GPT-2 small's 12 heads, narrower."""
    yield tuple(draws.sizes("sizes", 4, low=2, high=12, avoid=NOTEBOOK))
    yield 1, 7, 12, 8


def build(rec, cls, name, h, d, **kwargs):
    module = rec.call(name, cls, h * d, h, **kwargs)
    return module, rec.fill_parameters(module, f"params.{h}.{d}")


def grads_of(draws, result, leaves) -> list | None:
    """The leaves' gradients of result's output alone (output_of), each leaf's earlier gradient cleared first."""
    for leaf in leaves:
        leaf.grad = None
    return backward_with_probe(draws, output_of(result), leaves)


GRAD_PATHS = (("masked", {}), ("sdpa", {"use_sdpa": True}))


# --------------------------------------------------------------------------- the probes
@probe("lesson4.module")
def module(rec, cls):
    for b, t, h, d in configs(rec):
        mine, layout = build(rec, cls, NAME, h, d, max_len=32)
        rec.put(f"layout.{h}.{d}", layout)
        rec.put(f"buffer.{h}.{d}", buffer_shape(mine) is not None)
        rec.put(f"persistent.{h}.{d}", buffer_persistent(mine))
        mine = mine.double().eval()
        x = rec.randn(f"x.{h}.{d}", b, t, h * d)
        with torch.no_grad():
            rec.put(f"masked.{h}.{d}", rec.call(FORWARD, mine, x))
            rec.put(f"sdpa.{h}.{d}", rec.call(FORWARD, mine, x, use_sdpa=True)[0])
    # Dropout: off in eval on both paths, on the weights (not on the returned weights) in training.
    b, t, h, d = next(configs(rec))
    noisy, _ = build(rec, cls, NAME, h, d, max_len=32, dropout=0.5)
    noisy = noisy.double().eval()
    x = rec.randn(f"x.{h}.{d}", b, t, h * d)
    with torch.no_grad():
        rec.put("eval.masked", rec.call(FORWARD, noisy, x)[0])
        rec.put("eval.sdpa", rec.call(FORWARD, noisy, x, use_sdpa=True)[0])
        noisy.train()
        torch.manual_seed(rec.integer("dropout"))
        rec.put("train.masked", rec.call(FORWARD, noisy, x))
        torch.manual_seed(rec.integer("dropout.sdpa"))
        rec.put("train.sdpa", output_of(rec.call(FORWARD, noisy, x, use_sdpa=True)))
    # Gradients through both paths, with respect to x and every parameter: lessons 5 and 6 train through it.
    mine, _ = build(rec, cls, NAME, h, d, max_len=32)
    mine = mine.double().eval()
    params = [p for _, p in mine.named_parameters()]
    for path, kwargs in GRAD_PATHS:
        x = rec.randn(f"grad.x.{h}.{d}", b, t, h * d).requires_grad_(True)
        rec.put(f"grad.{path}", grads_of(rec, rec.call(FORWARD, mine, x, **kwargs), [x, *params]))
    rec.put("meta", module_on_meta(rec.call, cls))   # on meta, no seed draws anything


def max_len_sizes(draws):
    """A max_len that is not the default 64, and a sequence longer than 64 that fits in it."""
    max_len = draws.sizes("max_len", 1, low=70, high=90)[0]
    return max_len, max_len - draws.sizes("shorter", 1, low=1, high=5)[0]


@probe("lesson4.module_max_len")
def module_max_len(rec, cls):
    """The constructor's max_len sizes the causal buffer, and forward runs past the default 64 (lessons 5 to 7
    build the module with max_len=, lesson 6 with 1024, and `module` above builds it with max_len=32 and runs short
    sequences); the SDPA path returns None for the weights."""
    _, _, h, d = next(configs(rec))
    max_len, t = max_len_sizes(rec)
    mine, layout = build(rec, cls, f"{NAME}(…, max_len={max_len})", h, d, max_len=max_len)
    rec.put("layout", layout)
    shape = buffer_shape(mine)
    rec.put("causal_shape", list(shape) if shape is not None else None)
    mine = mine.double().eval()
    x = rec.randn("x", 1, t, h * d)   # one sequence, and the weights' last rows only: all of (B, H, T, T) at T ~ 85
    with torch.no_grad():             # went over the kernel's 1 MB of output, and the grader could not read it
        rec.put("masked", last_rows(rec.call(f"{NAME}.forward", mine, x)))
        rec.put("sdpa", rec.call(f"{NAME}.forward(use_sdpa=True)", mine, x, use_sdpa=True))
        result = rec.call(f"{NAME}.forward", mine.train(), x)   # built without dropout=: the default drops nothing
        rec.put("train", result[0] if isinstance(result, tuple) and len(result) == 2 else result)


def last_rows(result, rows: int = 2):
    """The learner's (output, weights) with only the weights' last query rows, which see every key."""
    if isinstance(result, tuple) and len(result) == 2 and isinstance(result[1], torch.Tensor) and result[1].dim() >= 2:
        return result[0], result[1][..., -rows:, :]
    return result


# --------------------------------------------------------------------------- the procedures
# res: what the probe recorded (attn_course.judging.Results); right: the module class.
def _reference(res, right, h, d, dropout=0.0):
    """The right module with the probe's parameters, in float64 and eval mode, as the probe runs the learner's."""
    ref = right(h * d, h, max_len=32, dropout=dropout)
    expect_layout(res, ref, f"layout.{h}.{d}")
    res.fill_parameters(ref, f"params.{h}.{d}")
    return ref.double().eval()


def _layout_bug(res, right, h, d):
    """A layer without its bias, or of other sizes than the text's, named from the recorded layout."""
    got = dict((name, tuple(shape)) for name, shape in res[f"layout.{h}.{d}"])
    for layer, p in ((n.removesuffix(".weight"), p) for n, p in right(h * d, h).named_parameters()
                     if n.endswith(".weight")):
        if f"{layer}.weight" in got and f"{layer}.bias" not in got:
            return "layer_missing_bias", {"name": layer}
        shape = got.get(f"{layer}.weight")
        if shape is not None and len(shape) == 2 and shape != tuple(p.shape):
            return "hint_layer_shape", {"name": layer, "want_in": p.shape[1], "want_out": p.shape[0],
                                        "got_in": shape[1], "got_out": shape[0], "why": ""}
    return None


def _module_bug(res, right):
    """Biases and layers' sizes, then each path (module_hint: the output's classic variants, then what the returned
    weights say), then dropout in eval and in training."""
    for b, t, h, d in configs(res):
        layout = _layout_bug(res, right, h, d)
        if layout:
            return layout
        ref = _reference(res, right, h, d)
        got = res[f"masked.{h}.{d}"]
        x = res.randn(f"x.{h}.{d}", b, t, h * d)
        if not (isinstance(got, tuple) and len(got) == 2 and isinstance(got[0], torch.Tensor)):
            return None
        y, weights = got
        with torch.no_grad():
            want = ref(x)[0]
            if y.shape != want.shape:
                if y.dim() == 4 and isinstance(weights, torch.Tensor) and weights.dim() == 3:
                    return "hint_returns_swapped"
                return shape_hint(y, tuple(want.shape), ("B", "T", "E"))
            if not matching_bug(y, {"right": want}, 1e-9):
                return module_hint(ref, x, y, weights, 1e-9)
            if not matching_bug(res[f"sdpa.{h}.{d}"], {"right": want}, 1e-9):
                return sdpa_hint(ref, x, res[f"sdpa.{h}.{d}"], 1e-9)
    b, t, h, d = next(configs(res))
    noisy = _reference(res, right, h, d, dropout=0.5)
    x = res.randn(f"x.{h}.{d}", b, t, h * d)
    with torch.no_grad():
        want = noisy(x)[0]
    if not matching_bug(res["eval.masked"], {"right": want}, 1e-9):
        return "hint_dropout_eval"
    if not matching_bug(res["eval.sdpa"], {"right": want}, 1e-9):
        return "hint_dropout_eval_sdpa"
    got = res["train.masked"]
    if not (isinstance(got, tuple) and len(got) == 2):
        return None
    if output_dropped(got[0]):
        return "hint_dropout_output", {"layer": "c_proj"}
    if matching_bug(got[0], {"right": want}, 1e-9):
        return "hint_dropout_train"
    if isinstance(got[1], torch.Tensor):
        sums = got[1].sum(-1)
        if not matching_bug(sums, {"ones": torch.ones_like(sums)}, 1e-6):
            return "hint_weights_after_dropout"
    with torch.no_grad():
        return matching_bug(got[0], train_variants(noisy, x, res.integer("dropout")), 1e-9)


def _expect_pair(case, got, want, tol):
    if not (isinstance(got, tuple) and len(got) == 2):
        raise Mismatch("returned_not_pair", name=f"{NAME}.forward", kind=type(got).__name__)
    for g, w in zip(got, want):
        expect_close(case, g, w, tol)


# The probe builds the module with max_len=32: a broadcast between T and 32 is the causal buffer used whole.
@procedure(on_error=module_error(32))
def judge_module(res, right):
    with naming(lambda: _module_bug(res, right)):
        _judge_module(res, right)


def _judge_module(res, right):
    for b, t, h, d in configs(res):
        if f"buffer.{h}.{d}" in res and res[f"buffer.{h}.{d}"] is not True:   # the text's register_buffer("causal")
            raise Mismatch("hint_buffer_missing")
        if res[f"persistent.{h}.{d}"] is not False:   # the text's persistent=False
            raise Mismatch("hint_buffer_persistent")
        ref = _reference(res, right, h, d)
        x = res.randn(f"x.{h}.{d}", b, t, h * d)
        case = f"H={h}, D={d}"
        with torch.no_grad():
            want = ref(x)
        _expect_pair(f"{case}, use_sdpa=False", res[f"masked.{h}.{d}"], want, 1e-9)
        expect_close(f"{case}, use_sdpa=True", res[f"sdpa.{h}.{d}"], want[0], 1e-9)
    b, t, h, d = next(configs(res))
    noisy = _reference(res, right, h, d, dropout=0.5)
    x = res.randn(f"x.{h}.{d}", b, t, h * d)
    with torch.no_grad():
        want = noisy(x)[0]
        expect_close("dropout=0.5, eval()", res["eval.masked"], want, 1e-9)
        expect_close("dropout=0.5, eval(), use_sdpa=True", res["eval.sdpa"], want, 1e-9)
        noisy.train()
        torch.manual_seed(res.integer("dropout"))
        want = noisy(x)
    expect_pair_close("train_output_differs", res["train.masked"], want, 1e-9)
    noisy.eval()   # the SDPA path's own dropout in training
    with torch.no_grad():
        expect_finding(sdpa_train_finding(noisy, x, res.integer("dropout.sdpa"), res["train.sdpa"], 1e-9))
    _judge_grads(res, right)
    device = meta_problem(res["meta"])   # the meta device's case (module_on_meta), last
    if device:
        raise Mismatch("module_meta_device", hint="hint_module_device", device=device)


def _judge_grads(res, right):
    """Both paths' gradients with respect to x and every parameter."""
    b, t, h, d = next(configs(res))
    ref = _reference(res, right, h, d)
    params = [p for _, p in ref.named_parameters()]
    names = ["x", *(n for n, _ in ref.named_parameters())]
    for path, kwargs in GRAD_PATHS:
        x = res.randn(f"grad.x.{h}.{d}", b, t, h * d).requires_grad_(True)
        call = f"{NAME}.forward" + ("(use_sdpa=True)" if kwargs else "")
        expect_grads(call, res[f"grad.{path}"], grads_of(res, ref(x, **kwargs), [x, *params]), names)


# partial: a buffer of the wrong size is named from its recorded shape, before the error it caused
@procedure(on_error=max_len_error, partial=True)
def judge_module_max_len(res, right):
    """The module built with a max_len that is not 64 and run past 64 (lessons 5 to 7 build it with max_len=): a
    masked path that differs is named as a buffer not sized by max_len."""
    _, _, h, d = next(configs(res))
    max_len, t = max_len_sizes(res)
    ref = right(h * d, h, max_len=max_len)
    expect_layout(res, ref)
    shape = res["causal_shape"]
    if shape is not None and shape != [max_len, max_len]:
        raise Mismatch("max_len_buffer", hint="hint_max_len_buffer", max_len=max_len, got=tuple(shape))
    res.fill_parameters(ref, f"params.{h}.{d}")
    ref = ref.double().eval()
    with torch.no_grad():
        want = last_rows(ref(res.randn("x", 1, t, h * d)))
    for key, path in (("masked", f"{NAME}.forward"), ("sdpa", f"{NAME}.forward(use_sdpa=True)")):
        got = res[key]
        if not (isinstance(got, tuple) and len(got) == 2):
            raise Mismatch("returned_not_pair", name=path, kind=type(got).__name__)
        if key == "sdpa" and got[1] is not None:
            raise Mismatch("sdpa_weights_not_none", hint="hint_sdpa_weights_none", kind=type(got[1]).__name__)
        try:
            expect_close(f"max_len={max_len}, T={t}", got[0], want[0], 1e-9)
            if key == "masked":
                expect_close(f"max_len={max_len}, T={t}", got[1], want[1], 1e-9)
        except Mismatch as mismatch:
            # The masked path reads the buffer; the SDPA path does not, and its cause is not named
            mismatch.hint = "hint_max_len_buffer" if key == "masked" else None
            raise
    with naming(lambda: "hint_dropout_default"):   # built without dropout=, in training: the default is 0.0
        expect_close(f"max_len={max_len}, T={t}, train()", res["train"], want[0], 1e-9)
