"""Lesson 4's exercises: each one's cases (the probe, run in the kernel) and its procedure (the verdict on what the
probe recorded, given the right implementation). The grader runs a procedure with the hidden reference, the visible
check (attn_course.checks.lesson4) with the right answer the course's public facts give, on a seed of its own.

`module` and `module_max_len` are also the hidden tests of the GPT2SelfAttention that lessons 5 to 7 paste in.
"""
import torch

from ..checks.engine import _referenced
from ..checks.lesson4 import (
    buffer_persistent, buffer_shape, count_hint, gpt2_expected, hf_copy_error, hf_pair_problem, init_error,
    init_n_layer, init_problem, module_error, module_on_meta, output_of, qkv_variants, split_error,
)
from ..findings import shared_memory, target_finding
from ..hf import hf_attention, hf_forward
from ..judging import (
    Mismatch, expect_answer, expect_close, expect_copy, expect_equal, expect_finding, expect_grads, expect_layout,
    matching_bug, naming, procedure,
)
from .gpt2_module import (  # noqa: F401 - lesson notebooks, probes and the grader reach them here
    NOTEBOOK, build, configs,
)
from .cases import backward_with_probe, scalar
from .recorder import probe


def grads_of(draws, result, leaves) -> list | None:
    """The leaves' gradients of result's output alone (output_of), each leaf's earlier gradient cleared first."""
    for leaf in leaves:
        leaf.grad = None
    return backward_with_probe(draws, output_of(result), leaves)


@probe("lesson4.split_qkv")
def split_qkv(rec, fn):
    for b, t, h, d in configs(rec):
        qkv = rec.randn(f"qkv.{h}.{d}", b, t, 3 * h * d)
        rec.put(f"H={h}, D={d}", rec.call("split_qkv", fn, qkv, h))
    b, t, h, d = next(configs(rec))   # the gradient with respect to qkv, as the visible check takes it
    qkv = rec.randn(f"grad.qkv.{h}.{d}", b, t, 3 * h * d).requires_grad_(True)
    rec.put("grad", backward_with_probe(rec, rec.call("split_qkv", fn, qkv, h), [qkv]))


@probe("lesson4.module")
def module(rec, cls):
    name = "GPT2SelfAttention"
    for b, t, h, d in configs(rec):
        mine, layout = build(rec, cls, name, h, d, max_len=32)
        rec.put(f"layout.{h}.{d}", layout)
        rec.put(f"persistent.{h}.{d}", buffer_persistent(mine))
        mine = mine.double().eval()
        x = rec.randn(f"x.{h}.{d}", b, t, h * d)
        with torch.no_grad():
            rec.put(f"masked.{h}.{d}", rec.call(name, mine, x))
            rec.put(f"sdpa.{h}.{d}", rec.call(name, mine, x, use_sdpa=True)[0])
    # Dropout: off in eval on both paths, on the weights (not on the returned weights) in training.
    b, t, h, d = next(configs(rec))
    noisy, _ = build(rec, cls, name, h, d, max_len=32, dropout=0.5)
    noisy = noisy.double().eval()
    x = rec.randn(f"x.{h}.{d}", b, t, h * d)
    with torch.no_grad():
        rec.put("eval.masked", rec.call(name, noisy, x)[0])
        rec.put("eval.sdpa", rec.call(name, noisy, x, use_sdpa=True)[0])
        noisy.train()
        torch.manual_seed(rec.integer("dropout"))
        rec.put("train.masked", rec.call(name, noisy, x))
        torch.manual_seed(rec.integer("dropout.sdpa"))
        rec.put("train.sdpa", output_of(rec.call(name, noisy, x, use_sdpa=True)))
    # Gradients through both paths, with respect to x and every parameter: lessons 5 and 6 train through it.
    mine, _ = build(rec, cls, name, h, d, max_len=32)
    mine = mine.double().eval()
    params = [p for _, p in mine.named_parameters()]
    for path, kwargs in GRAD_PATHS:
        x = rec.randn(f"grad.x.{h}.{d}", b, t, h * d).requires_grad_(True)
        rec.put(f"grad.{path}", grads_of(rec, rec.call(name, mine, x, **kwargs), [x, *params]))
    rec.put("meta", module_on_meta(rec.call, cls))   # the check's own case: on meta, no seed draws anything


GRAD_PATHS = (("masked", {}), ("sdpa", {"use_sdpa": True}))


def max_len_sizes(draws):
    """A max_len that is not the default 64, and a sequence longer than 64 that fits in it."""
    max_len = draws.sizes("max_len", 1, low=70, high=90)[0]
    return max_len, max_len - draws.sizes("shorter", 1, low=1, high=5)[0]


@probe("lesson4.module_max_len")
def module_max_len(rec, cls):
    """The constructor's max_len sizes the causal buffer, and forward runs past the default 64 (lessons 5 to 7
    build the module with max_len=, lesson 6 with 1024, and `module` above builds it with max_len=32 and runs short
    sequences); the SDPA path returns None for the weights. The visible check's _expect_max_len, on drawn sizes."""
    name = "GPT2SelfAttention"
    _, _, h, d = next(configs(rec))
    max_len, t = max_len_sizes(rec)
    module, layout = build(rec, cls, f"{name}(…, max_len={max_len})", h, d, max_len=max_len)
    rec.put("layout", layout)
    shape = buffer_shape(module)
    rec.put("causal_shape", list(shape) if shape is not None else None)
    module = module.double().eval()
    x = rec.randn("x", 1, t, h * d)   # one sequence, and the weights' last rows only: all of (B, H, T, T) at T ~ 85
    with torch.no_grad():             # went over the kernel's 1 MB of output, and the grader could not read it
        rec.put("masked", last_rows(rec.call(f"{name}.forward", module, x)))
        rec.put("sdpa", rec.call(f"{name}.forward(use_sdpa=True)", module, x, use_sdpa=True))
        result = rec.call(f"{name}.forward", module.train(), x)   # built without dropout=: the default drops nothing
        rec.put("train", result[0] if isinstance(result, tuple) and len(result) == 2 else result)


def last_rows(result, rows: int = 2):
    """The learner's (output, weights) with only the weights' last query rows, which see every key."""
    if isinstance(result, tuple) and len(result) == 2 and isinstance(result[1], torch.Tensor) and result[1].dim() >= 2:
        return result[0], result[1][..., -rows:, :]
    return result


@probe("lesson4.init")
def init(rec, fn, cls):
    # Narrow (E = 48, 12 heads) so the weights travel whole; 6,912 and 2,304 samples pin the std well.
    torch.manual_seed(rec.integer("init"))
    module = rec.call("gpt2_init", fn, rec.call("GPT2SelfAttention", cls, 48, 12), n_layer=init_n_layer(rec.sizes))
    rec.put("state", {n: p for n, p in module.named_parameters()})


@probe("lesson4.n_params")
def n_params(rec, n):
    rec.put("answer_n_params", scalar(n))


def calls_split(cls) -> bool:
    """The learner's module calls exercise 1's split_qkv (its methods name it): a split's mistake there is exercise
    1's (hint_split_cascade)."""
    return "split_qkv" in _referenced(cls)[0]


@probe("lesson4.load_from_hf")
def load_from_hf(rec, fn, cls):
    b, t, h, d = next(configs(rec))
    hf = hf_attention(h * d, h, seed=rec.integer("hf"))
    torch.manual_seed(rec.integer("target"))   # what a copy leaves alone is drawn, so both sides see the same
    target = rec.call("GPT2SelfAttention", cls, h * d, h)
    mine = rec.call("load_from_hf", fn, target, hf)
    rec.put("target_state", {n: p for n, p in target.named_parameters()})   # the exercise writes into mine
    # The copy's invariants (attn_course.findings.copy_finding): hf unchanged, no memory shared with it.
    rec.put("shared", shared_memory(mine, hf) if isinstance(mine, torch.nn.Module) else [])
    rec.put("source_after", dict(hf.named_parameters()))
    rec.put("state", {n: p for n, p in mine.named_parameters()})
    rec.put("calls_split", calls_split(cls))
    with torch.no_grad():
        rec.put("y", rec.call("GPT2SelfAttention", mine.eval(), rec.randn("x", b, t, h * d, dtype=torch.float32))[0])


@probe("lesson4.export_to_hf")
def export_to_hf(rec, fn, cls):
    b, t, h, d = next(configs(rec))
    mine, layout = build(rec, cls, "GPT2SelfAttention", h, d)
    rec.put("layout", layout)
    target = hf_attention(h * d, h, seed=0)
    hf = rec.call("export_to_hf", fn, mine.eval(), target)
    rec.put("target_state", dict(target.named_parameters()))   # the exercise writes into hf
    rec.put("shared", shared_memory(hf, mine) if isinstance(hf, torch.nn.Module) else [])
    rec.put("source_after", dict(mine.named_parameters()))
    rec.put("type", type(hf).__name__)
    rec.put("state", {n: p for n, p in hf.named_parameters()} if isinstance(hf, torch.nn.Module) else None)
    rec.put("calls_split", calls_split(cls))
    with torch.no_grad():
        rec.put("y", rec.call("GPT2SelfAttention", mine, rec.randn("x", b, t, h * d, dtype=torch.float32))[0])


# --------------------------------------------------------------------------- the procedures
# res: what the probe recorded (attn_course.judging.Results); right: the right implementation.
def _split_bug(res):
    for b, t, h, d in configs(res):
        got = res[f"H={h}, D={d}"]
        if isinstance(got, tuple) and any(isinstance(z, torch.Tensor) and tuple(z.shape) == (b, t, h, d)
                                          for z in got):
            return "hint_missing_transpose"
        if isinstance(got, tuple) and any(isinstance(z, torch.Tensor) and tuple(z.shape) != (b, h, t, d)
                                          for z in got):
            return "hint_split_shape"
        key = matching_bug(got, qkv_variants(res.randn(f"qkv.{h}.{d}", b, t, 3 * h * d), h), 0.0)
        if key:
            return key
    return None


@procedure(on_error=split_error)
def judge_split_qkv(res, right):
    """right: split_qkv. Parts of the right shape that differ are named (which of q, k, v), not only the first."""
    for b, t, h, d in configs(res):
        got, want = res[f"H={h}, D={d}"], right(res.randn(f"qkv.{h}.{d}", b, t, 3 * h * d), h)
        if not (isinstance(got, tuple) and len(got) == 3):
            raise Mismatch("hint_returns_triple", name="split_qkv", kind=type(got).__name__)
        with naming(lambda: _split_bug(res)):
            wrong = []
            for part, g, w in zip("qkv", got, want):
                try:
                    expect_equal(f"B={b}, T={t}, H={h}, D={d}", g, w)
                except Mismatch as mismatch:
                    if mismatch.key != "hidden_mismatch":
                        raise
                    wrong.append((part, mismatch.fields["err"]))
            if wrong:
                raise Mismatch("split_differs", name="split_qkv", parts=", ".join(p for p, _ in wrong),
                               err=max(e for _, e in wrong))
    b, t, h, d = next(configs(res))   # the gradient with respect to qkv
    qkv = res.randn(f"grad.qkv.{h}.{d}", b, t, 3 * h * d).requires_grad_(True)
    expect_grads("split_qkv", res["grad"], backward_with_probe(res, right(qkv, h), [qkv]), ["qkv"])


def _init_error(kind: str, message: str, call: str = ""):
    """gpt2_init's own errors (named_parameters unpacked the other way), else the module's constructor's."""
    return init_error(kind, message, call) or (module_error(64)(kind, message, call) if call == "GPT2SelfAttention"
                                               else None)


@procedure(on_error=_init_error)
def judge_init(res, right):
    """right: None. GPT-2's init is a distribution, judged by its statistics (checks.init_problem): 10% of each std,
    for the mean too. At E = 48 (6,912 and 2,304 draws) a right init stays within a fifth of that; nn.Linear's own
    (std 0.083 for c_attn) and a mean of 1 are far outside. A module without biases is the module exercise's fault,
    not this one's: init_problem skips them."""
    state, n_layer = res["state"], init_n_layer(res.sizes)
    if not isinstance(state, dict) or not all(isinstance(state.get(k), torch.Tensor)
                                              for k in ("c_attn.weight", "c_proj.weight")):
        raise Mismatch("init_differs", name="gpt2_init", n_layer=n_layer)
    problem = init_problem(state, 0.1, n_layer)
    if problem:
        raise Mismatch("init_differs", hint=problem, name="gpt2_init", n_layer=n_layer)


@procedure()
def judge_n_params(res, right):
    """right: GPT-2 small's count (4E² + 4E at E = 768); count_hint names the classic miscounts."""
    expect_answer("answer_n_params", res["answer_n_params"], right, integer=True, hint_of=count_hint)


# Exercise 1's classic mistakes, as gpt2_expected names the module's output made with them.
SPLIT_HINTS = {"hint_interleaved_qkv", "hint_reshape_heads_first", "hint_qkv_order"}


def _cascade(res, module, x, y):
    """Parameters copied right and the output still wrong: the module (exercise 2) is the cause, or exercise 1's
    split_qkv when the module calls it and the output is the right one made with one of the split's classic
    mistakes: the learner is sent to the root, not to the exercise the failure passed through."""
    with torch.no_grad():
        variants = {k: v for k, v in gpt2_expected(module, x).items()
                    if k is not None and (k[0] if isinstance(k, tuple) else k) in SPLIT_HINTS}
    split = "calls_split" in res and res["calls_split"] is True and matching_bug(y, variants, 1e-5)
    return "hint_split_cascade" if split else "hint_module_cascade"


def _expect_state(case, state, want):
    """state (name -> tensor) must hold want's parameters, by name and shape, equal within float32 rounding."""
    names = [n for n, _ in want.named_parameters()]
    if not isinstance(state, dict) or sorted(state) != sorted(names):
        raise Mismatch("hidden_layout", want=", ".join(names), got=", ".join(state) if isinstance(state, dict) else "-")
    for n, p in want.named_parameters():
        expect_close(f"{case}: {n}", state[n], p.detach(), 1e-6, check_dtype=False)


def _state_of(res, key):
    state = res[key]
    return state if isinstance(state, dict) else {}


@procedure(on_error=hf_copy_error)
def judge_load_from_hf(res, right):
    """right: (load_from_hf, the module class), the copy into a right module that want is."""
    load, module = right
    b, t, h, d = next(configs(res))
    hf = hf_attention(h * d, h, seed=res.integer("hf"))
    expect_copy("load_from_hf", res, hf, into="mine")   # first: a copy_ the wrong way makes the two modules agree
    want = load(module(h * d, h), hf).eval()
    x = res.randn("x", b, t, h * d, dtype=torch.float32)
    with naming(lambda: hf_pair_problem(_state_of(res, "state"), dict(hf.named_parameters()))):
        _expect_state("load_from_hf", res["state"], want)
    with naming(lambda: _cascade(res, want, x, res["y"])), torch.no_grad():
        expect_close("load_from_hf", res["y"], hf_forward(hf, x), 1e-5)
    expect_finding(target_finding("load_from_hf", "mine", hf_pair_problem(
        _state_of(res, "target_state"), dict(hf.named_parameters()))))


def _bias_missing(res):
    """The learner's module built without biases: nothing to export, exercise 2's mistake."""
    layout = [name for name, _ in res["layout"]]
    return "hint_bias_from_module" if any(f"{n}.bias" not in layout for n in ("c_attn", "c_proj")) else None


@procedure(on_error=hf_copy_error)
def judge_export_to_hf(res, right):
    """right: (export_to_hf, the module class): the learner's module with the probe's parameters must reach hf."""
    export, module = right
    b, t, h, d = next(configs(res))
    mine = module(h * d, h)
    with naming(lambda: _bias_missing(res)):
        expect_layout(res, mine, "layout")
    res.fill_parameters(mine, f"params.{h}.{d}")
    expect_copy("export_to_hf", res, mine, into="hf")
    if res["type"] != "GPT2Attention":
        raise Mismatch("hidden_mismatch", case="export_to_hf: GPT2Attention", err=float("nan"))
    want = export(mine, hf_attention(h * d, h, seed=0))
    x = res.randn("x", b, t, h * d, dtype=torch.float32)
    with naming(lambda: hf_pair_problem(dict(mine.named_parameters()), _state_of(res, "state"))):
        _expect_state("export_to_hf", res["state"], want)
    mine.eval()
    with naming(lambda: _cascade(res, mine, x, res["y"])), torch.no_grad():
        expect_close("export_to_hf", res["y"], mine(x)[0], 1e-5)
    expect_finding(target_finding("export_to_hf", "hf", hf_pair_problem(
        dict(mine.named_parameters()), _state_of(res, "target_state"))))
