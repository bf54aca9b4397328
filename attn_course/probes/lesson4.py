"""Lesson 4's exercises: each one's probe and procedure (docs/authoring.md, "One exercise, one procedure"); the
visible checks are attn_course.checks.lesson4. `module` and `module_max_len` are also the hidden tests of the
GPT2SelfAttention that lessons 5 to 7 paste in."""
import math

import torch

from ..checks.engine import _referenced
from ..checks.gpt2_mistakes import LESSON, _size_error, gpt2_expected, module_error, qkv_variants
from ..findings import shared_memory, target_finding
from ..hf import hf_attention, hf_forward
from ..sizes import avoided
from ..judging import (
    Mismatch, expect_answer, expect_close, expect_copy, expect_equal, expect_finding, expect_grads, expect_layout,
    matching_bug, naming, procedure,
)
from .gpt2_module import (  # noqa: F401 - the notebooks call course.probes.lesson4.module, the grader its procedures
    build, configs, judge_module, judge_module_max_len, module, module_max_len,
)
from .cases import backward_with_probe, scalar
from .recorder import probe


@probe("lesson4.split_qkv")
def split_qkv(rec, fn):
    def call(qkv, h):   # three tensors in a list unpack as the module unpacks them: a right answer too
        out = rec.call("split_qkv", fn, qkv, h)
        return tuple(out) if type(out) is list and len(out) == 3 else out

    for b, t, h, d in configs(rec):
        qkv = rec.randn(f"qkv.{h}.{d}", b, t, 3 * h * d)
        rec.put(f"H={h}, D={d}", call(qkv, h))
    b, t, h, d = next(configs(rec))   # the gradient with respect to qkv, as the visible check takes it
    qkv = rec.randn(f"grad.qkv.{h}.{d}", b, t, 3 * h * d).requires_grad_(True)
    rec.put("grad", backward_with_probe(rec, call(qkv, h), [qkv]))


@probe("lesson4.init")
def init(rec, fn, cls):
    # Narrow (E = 48, 12 heads) so the weights travel whole; 6,912 and 2,304 samples pin the std well.
    torch.manual_seed(rec.integer("init"))
    mine = rec.call("gpt2_init", fn, rec.call("GPT2SelfAttention", cls, 48, 12), n_layer=init_n_layer(rec.sizes))
    rec.put("state", {n: p for n, p in mine.named_parameters()})


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


# --------------------------------------------------------------------------- the classic mistakes
def split_error(kind: str, message: str, call: str = "") -> str | None:
    """The hint for an error split_qkv raised (the grader names it with the same function)."""
    if "values to unpack" in message or "split_size can only be 0" in message:
        return "hint_split_three"
    return _size_error(message)


# A normal sample's kurtosis is 3 (its standard error at 2,304 draws about 0.1), a uniform one's 1.8.
UNIFORM_KURTOSIS = 2.4


def init_n_layer(draw) -> int:
    """The n_layer both sides pass: far from 12 (c_proj's std then differs by more than a third, well past either
    tolerance) and from every size the notebook binds. draw(name, n, low, high, avoid) -> sizes."""
    return draw("n_layer", 1, 30, 100, avoided(LESSON))[0]


def init_problem(state: dict, tol: float, n_layer: int):
    """The hint of the first weight or bias not initialised as GPT-2 does (a normal sample, std within tol of it,
    mean within tol of 0), or None. state: parameter name -> tensor; the grader reads its own draw with it too.
    c_proj's std named apart when it is n_layer = 12's (the argument ignored) or 0.02/√n_layer (the 2 left out)."""
    proj = 0.02 / math.sqrt(2 * n_layer)
    for layer, want in (("c_attn", 0.02), ("c_proj", proj)):
        weight = state.get(f"{layer}.weight")
        if isinstance(weight, torch.Tensor):
            # The std first: a std too large also moves the sample mean past a tolerance scaled to the right std.
            weight = weight.detach().double()
            std = float(weight.std())
            centred = weight - weight.mean()
            if std > 0 and float((centred ** 4).mean() / (centred ** 2).mean() ** 2) < UNIFORM_KURTOSIS:
                return "hint_init_uniform", {"name": f"{layer}.weight"}
            if abs(std - want) > tol * want:
                # Each named std within tol of itself (a sample's std at 2,304 draws errs by about 1.5%).
                if layer == "c_proj" and abs(std - 0.02 / math.sqrt(24)) <= tol * 0.02 / math.sqrt(24):
                    return "hint_init_n_layer", {"n": n_layer}
                if layer == "c_proj" and abs(std - 0.02 / math.sqrt(n_layer)) <= tol * 0.02 / math.sqrt(n_layer):
                    return "hint_init_missing_two"
                return "hint_init_std", {"name": f"{layer}.weight", "got": std, "want": want}
            if abs(float(weight.mean())) > tol * want:
                return "hint_init_mean", {"name": f"{layer}.weight", "got": float(weight.mean())}
        bias = state.get(f"{layer}.bias")
        if isinstance(bias, torch.Tensor) and float(bias.detach().abs().max()) != 0.0:
            return "hint_init_bias", {"name": f"{layer}.bias"}
    return None


def hf_pair_problem(mine: dict, hf: dict) -> str | None:
    """The hint key of the classic loading bug that makes mine differ from hf (parameters by name), if any."""
    def same(a, b, transposed=False):
        if not (isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor)):
            return False
        b = b.T if transposed else b  # Conv1D keeps (in, out), nn.Linear (out, in)
        return a.shape == b.shape and torch.equal(a.detach().to(b.dtype), b.detach())
    if not all(same(mine.get(f"{n}.weight"), hf.get(f"{n}.weight"), True) for n in ("c_attn", "c_proj")):
        return "hint_conv1d_transpose"
    if not all(isinstance(mine.get(f"{n}.bias"), torch.Tensor) for n in ("c_attn", "c_proj")):
        return "hint_bias_from_module"   # nothing to copy into: exercise 2's module was built without biases
    if not all(same(mine.get(f"{n}.bias"), hf.get(f"{n}.bias")) for n in ("c_attn", "c_proj")):
        return "hint_missing_bias"
    return None


def hf_copy_error(kind: str, message: str, call: str = "") -> str:
    """The hint key for an error raised while copying between the two modules, or while running the module
    they were copied into (call: the name of what raised; the grader uses this function too).

    Assigning a tensor to a parameter and copy_ outside no_grad are mistakes in how to copy,
    not in the layout, so "transpose" would send the learner the wrong way. A bias that is None is
    exercise 2's module built without biases (named so, not "copy the bias too"); an error from the module's own
    forward is exercise 2's too.
    """
    if call == "GPT2SelfAttention":
        return "hint_module_cascade"
    if kind == "TypeError" and "as parameter" in message:   # mine.c_attn.weight = hf.c_attn.weight.T
        return "hint_param_assign"
    if "leaf Variable" in message:                          # .copy_ outside torch.no_grad()
        return "hint_copy_no_grad"
    if "NoneType" in message:                               # mine.c_attn.bias is None: exercise 2's module
        return "hint_bias_from_module"
    return "hint_conv1d_transpose"


def count_hint(got: int, E: int = 768):
    """The classic miscount of GPT-2's attention a count names (the check's and the judge's): the biases left out
    (both, or one layer's), the causal buffer counted as a parameter (the default max_len 64, or GPT-2's 1024)."""
    weights, biases = 4 * E * E, 4 * E
    if got in (weights, weights + E, weights + 3 * E):
        return "hint_count_no_bias"
    if got - weights - biases in (64 * 64, 1024 * 1024):
        return "hint_count_buffer"
    return None


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


def init_error(kind: str, message: str, call: str = ""):
    """gpt2_init's own errors (named_parameters() yields (name, parameter) pairs: unpacked the other way, or the
    module iterated), else the module's constructor's."""
    if "'Parameter' object has no attribute" in message or "object is not iterable" in message:
        return "hint_named_parameters"
    return module_error(64)(kind, message, call) if call == "GPT2SelfAttention" else None


@procedure(on_error=init_error)
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


def _cascade(res, right_module, x, y):
    """Parameters copied right and the output still wrong: the module (exercise 2) is the cause, or exercise 1's
    split_qkv when the module calls it and the output is the right one made with one of the split's classic
    mistakes: the learner is sent to the root, not to the exercise the failure passed through."""
    with torch.no_grad():
        variants = {k: v for k, v in gpt2_expected(right_module, x).items()
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


def _expect_copied(res, name, target, want, source, module, x, y):
    """A copy's checks, either way: the copy holds want's parameters, the learner's module holding them gives y on x
    (module: a right module with them), and the argument written into (target) holds them too. source: the module
    copied from; hf_pair_problem reads the nn.Linear side first, the Conv1D side second."""
    src = dict(source.named_parameters())

    def problem(key):
        got = _state_of(res, key)
        return hf_pair_problem(got, src) if target == "mine" else hf_pair_problem(src, got)
    with naming(lambda: problem("state")):
        _expect_state(name, res["state"], want)
    with naming(lambda: _cascade(res, module, x, res["y"])):
        expect_close(name, res["y"], y, 1e-5)
    expect_finding(target_finding(name, target, problem("target_state")))


@procedure(on_error=hf_copy_error)
def judge_load_from_hf(res, right):
    """right: (load_from_hf, the module class), the copy into a right module that want is."""
    load, cls = right
    b, t, h, d = next(configs(res))
    hf = hf_attention(h * d, h, seed=res.integer("hf"))
    expect_copy("load_from_hf", res, hf, into="mine")   # first: a copy_ the wrong way makes the two modules agree
    want = load(cls(h * d, h), hf).eval()
    x = res.randn("x", b, t, h * d, dtype=torch.float32)
    with torch.no_grad():
        _expect_copied(res, "load_from_hf", "mine", want, hf, want, x, hf_forward(hf, x))


def _bias_missing(res):
    """The learner's module built without biases: nothing to export, exercise 2's mistake."""
    layout = [name for name, _ in res["layout"]]
    return "hint_bias_from_module" if any(f"{n}.bias" not in layout for n in ("c_attn", "c_proj")) else None


@procedure(on_error=hf_copy_error)
def judge_export_to_hf(res, right):
    """right: (export_to_hf, the module class): the learner's module with the probe's parameters must reach hf."""
    export, cls = right
    b, t, h, d = next(configs(res))
    mine = cls(h * d, h)
    with naming(lambda: _bias_missing(res)):
        expect_layout(res, mine, "layout")
    res.fill_parameters(mine, f"params.{h}.{d}")
    expect_copy("export_to_hf", res, mine, into="hf")
    if res["type"] != "GPT2Attention":
        raise Mismatch("hidden_mismatch", case="export_to_hf: GPT2Attention", err=float("nan"))
    want = export(mine, hf_attention(h * d, h, seed=0))
    x = res.randn("x", b, t, h * d, dtype=torch.float32)
    with torch.no_grad():
        _expect_copied(res, "export_to_hf", "hf", want, mine, mine.eval(), x, mine(x)[0])
