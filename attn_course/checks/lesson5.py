"""Lesson 5's visible checks: a training step, head entropy, ablating a head, the previous-token-head answer."""
from __future__ import annotations

import copy
import math

import torch

from ..data import toy_batch, toy_loss
from ..messages import t
from ..validate import CheckFailed, previous_token_weight
from .engine import close, diagnose, expect_number, expect_shape, max_error, passed, run
from .invariants import reads_globals
from .masks import tril

# Sizes all different: vocabulary, sequence length, embedding, heads, layers, batch; none is the notebook's V = 16 or
# T = 12. Each check of a function then runs the grader's own case (attn_course.probes.lesson5) from its own seed.
V, T, E, H, L, B = 7, 5, 12, 3, 2, 4
LESSON = 5
SEED = 50


def _cases():
    from ..probes import Draws, lesson5   # here: the probes' package imports the checks
    return Draws, lesson5


def _toy_model(cls, seed: int, **sizes):
    torch.manual_seed(seed)
    args = dict(vocab=V, max_len=T, embed_dim=E, n_head=H, n_layer=L) | sizes
    return run("TinyDecoder", cls, **args).double()


def _reference_step(model, optimizer, x, y) -> float:
    loss = toy_loss(model(x)[0], y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    return loss.item()


def _as_loss(name: str, value, strict: bool = False) -> float:
    """A loss as a float. strict (train_step): a tensor is refused too, since the lesson asks for
    loss.item() and the training cell cannot draw a list of tensors that still hold their graph."""
    if isinstance(value, torch.Tensor) and value.numel() == 1 and not strict:
        value = value.item()
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise CheckFailed(t("returned_not_number", name=name, kind=type(value).__name__), t("hint_loss_item"))
    return float(value)


def loss_error(kind: str, message: str, call: str = "") -> str | None:
    """The hint for an error train_step or loss_without_head raised (the grader names it with the same function).
    Each text is what torch says for one slip in the loss or the hook, found by make mutants."""
    if "Expected input batch_size" in message or "must be tuple of ints" in message:
        return "hint_loss_layout"  # logits or answers not reshaped to (B·T·2, V) and (B·T·2,)
    if "not implemented for 'Long'" in message:
        return "hint_loss_argument_order"  # F.cross_entropy(answers, logits)
    if "implicitly created only for scalar" in message or "cannot be converted to Scalar" in message:
        return "hint_loss_scalar"  # the loss was never reduced to one number
    if "'list' object has no attribute" in message or "too many values to unpack (expected 2)" in message:
        return "hint_model_pair"  # model(x) is (logits, weights)
    if "slice indices must be integers" in message:
        return "hint_head_width_int"  # D = in_features / n_head
    if "'tuple' object has no attribute" in message:
        return "hint_hook_inputs"  # a pre-hook's inputs are a tuple
    if "'ModuleList' object has no attribute" in message:
        return "hint_layer_index"
    if "object has no attribute 'remove'" in message:
        return "hint_ablation_nothing"  # no hook was registered, so there is no handle
    return None


def _same_params(a, b, tol: float = 1e-9) -> bool:
    return all(torch.allclose(p, q, atol=tol, rtol=tol) for p, q in zip(a.parameters(), b.parameters()))


def _step(order: str = "before", softmax: bool = False):
    """A training step with zero_grad() before backward(), between backward() and step(), after step() or never."""
    def step(model, optimizer, x, y):
        logits = model(x)[0]
        loss = toy_loss(logits.softmax(-1) if softmax else logits, y)
        if order == "before":
            optimizer.zero_grad()
        loss.backward()
        if order == "between":
            optimizer.zero_grad()
        optimizer.step()
        if order == "after":
            optimizer.zero_grad()
        return loss.item()
    return step


RIGHT_STEP = _step()
# The classic wrong steps, by the hint that names each.
TRAIN_VARIANTS = {
    "hint_zero_grad": _step("never"),
    "hint_zero_grad_after_step": _step("after"),   # right wherever no gradient was left before the first call
    "hint_train_order": _step("between"),
    "hint_loss_softmax_twice": _step(softmax=True),
}


def train_bug(got: list, losses_of, tol: float = 1e-9) -> str | None:
    """The hint for the losses got (one per call) on the grader's case (attn_course.probes.lesson5.train_case), for
    the visible check and the grader's judge alike. losses_of(step): a step's losses on that same case. The first
    wrong step whose losses are got's; else a loss wrong from the first call is a slip in the loss itself."""
    def same(a, b):
        return len(a) == len(b) and all(not isinstance(g, bool) and isinstance(g, (int, float))
                                        and abs(g - w) <= tol for g, w in zip(a, b))
    key = next((key for key, step in TRAIN_VARIANTS.items() if same(got, losses_of(step))), None)
    if key is None and not same(got[:1], losses_of(RIGHT_STEP)[:1]):
        return "hint_loss_layout"
    return key


def _train_grader_case(name: str, fn) -> None:
    """The grader's case from the check's seed: a stand-in model of other sizes, a gradient left from before the
    first call (as a notebook often has one), AdamW; the losses, then the parameters after the last call."""
    Draws, cases = _cases()
    draws = Draws(SEED, "check.train_step")
    got, mine = cases.train_losses(draws, lambda *args: _as_loss(name, run(name, fn, *args, on_error=loss_error),
                                                                 strict=True))
    want, ref = cases.train_losses(draws, RIGHT_STEP)
    for step, (g, w) in enumerate(zip(got, want)):
        if not abs(g - w) <= 1e-9:
            hint = train_bug(got, lambda s: cases.train_losses(draws, s)[0])
            raise CheckFailed(t("train_stale_loss_differs", step=step + 1, got=g, want=w), t(hint) if hint else None)
    if not _same_params(mine, ref, 1e-8):
        raise CheckFailed(t("train_stale_params_differ", step=len(got)), t("hint_train_order"))


@reads_globals(LESSON)
def check_train_step(fn, cls) -> None:
    name = "train_step"
    mine, ref = _toy_model(cls, 30), _toy_model(cls, 30)
    start = copy.deepcopy(mine)
    opt_mine = torch.optim.SGD(mine.parameters(), lr=0.5)
    opt_ref = torch.optim.SGD(ref.parameters(), lr=0.5)
    x, y = toy_batch(B, T, V, torch.Generator().manual_seed(31))
    for step in range(3):
        got = _as_loss(name, run(name, fn, mine, opt_mine, x, y, on_error=loss_error), strict=True)
        with torch.no_grad():
            logits = ref(x)[0]
        want = _reference_step(ref, opt_ref, x, y)
        if abs(got - want) > 1e-6:
            hint = None
            if abs(got - float(toy_loss(torch.softmax(logits, -1), y))) < 1e-6:
                hint = t("hint_loss_softmax_twice")
            elif step == 0:
                hint = t("hint_loss_layout")
            else:
                hint = t("hint_zero_grad")
            raise CheckFailed(t("train_loss_differs", step=step + 1, got=got, want=want), hint)
        if _same_params(mine, start, 0.0):
            raise CheckFailed(t("train_no_update"), t("hint_train_order"))
        if not _same_params(mine, ref):
            raise CheckFailed(t("train_params_differ", step=step + 1),
                              t("hint_zero_grad") if step else t("hint_train_order"))
    _train_grader_case(name, fn)
    passed(name)


def head_entropy_variants(w: torch.Tensor) -> dict:
    plogp = torch.special.xlogy(w, w)
    right = -plogp.sum(-1).mean(dim=(0, 2))
    return {
        None: right,
        "hint_entropy_log2": right / math.log(2),
        "hint_entropy_sign": -right,
    }


def _causal_weights(g, b, h, t_, dtype=torch.float64):
    scores = torch.randn(b, h, t_, t_, generator=g, dtype=dtype) * 2
    return torch.softmax(scores.masked_fill(~tril(t_), float("-inf")), dim=-1)


def entropy_bug(got, w: torch.Tensor, tol: float) -> str | None:
    """Which mistake gives got for the weights w (the visible check and the grader's judge alike)."""
    if not isinstance(got, torch.Tensor):
        return None
    if tuple(got.shape) != (w.size(1),):
        return "hint_entropy_mean_axes"
    if got.dtype != w.dtype:
        return "hint_entropy_dtype"
    if not torch.isfinite(got).all():
        # Finite in float64 and not in float32: a number that avoids 0 in float64 is 0 in float32 (1e-50).
        return "hint_entropy_nan_float32" if w.dtype == torch.float32 else "hint_entropy_nan"
    return next((key for key, want in head_entropy_variants(w.double()).items()
                 if key and close(got, want, tol)), None)


@reads_globals(LESSON)
def check_head_entropy(fn) -> None:
    name = "head_entropy"
    w = _causal_weights(torch.Generator().manual_seed(32), B, H + 1, T)
    got = run(name, fn, w)
    expect_shape(got, (H + 1,), ("H",), name, t("hint_entropy_mean_axes"))
    if not torch.isfinite(got).all():
        raise CheckFailed(t("has_nan", what=name), t("hint_entropy_nan"))
    diagnose(got, head_entropy_variants(w), "what_entropy")
    _entropy_grader_case(name, fn)
    passed(name)


def _entropy_grader_case(name: str, fn) -> None:
    """The grader's float32 case (attn_course.probes.lesson5.causal_weights) from the check's seed: the entropy
    in the weights' own dtype, to float32's precision."""
    Draws, cases = _cases()
    w = cases.causal_weights(Draws(SEED, "check.head_entropy"), torch.float32)
    got = run(name, fn, w)
    expect_shape(got, (w.size(1),), ("H",), name, t("hint_entropy_mean_axes"))
    if got.dtype != w.dtype:
        raise CheckFailed(t("entropy_dtype_differs", want=w.dtype, got=got.dtype), t("hint_entropy_dtype"))
    want = head_entropy_variants(w.double())[None]
    if not torch.isfinite(got).all():
        raise CheckFailed(t("entropy_float32_nan"), t(entropy_bug(got, w, 1e-4)))
    if not close(got, want, 1e-4):
        hint = entropy_bug(got, w, 1e-4)
        raise CheckFailed(t("entropy_float32_differs", err=max_error(got, want)), t(hint) if hint else None)


def ablation_variants(model, x, y, layer: int, head: int) -> dict:
    """The loss with one head zeroed, and the classic wrong ways of zeroing it."""
    attn = model.blocks[layer].attn
    D = attn.c_proj.in_features // attn.n_head

    def loss_with(hook, where):
        handle = getattr(attn.c_proj, where)(hook)
        try:
            with torch.no_grad():
                return float(toy_loss(model(x)[0], y))
        finally:
            handle.remove()

    def cut(lo, hi):
        def zero(tensor):
            tensor = tensor.clone()
            tensor[..., lo:hi] = 0
            return tensor
        return zero

    right, by_index = cut(head * D, (head + 1) * D), cut(head, head + 1)
    variants = {
        None: loss_with(lambda m, inputs: (right(inputs[0]),), "register_forward_pre_hook"),
        "hint_ablation_output": loss_with(lambda m, inputs, out: right(out), "register_forward_hook"),
        "hint_ablation_slice": loss_with(lambda m, inputs: (by_index(inputs[0]),), "register_forward_pre_hook"),
    }
    # Slice ends off by a head (make mutants: (head - 1) * D, which for head 0 zeroes every head but the last); a
    # slice that zeroes nothing is left to hint_ablation_nothing.
    columns = range(attn.c_proj.in_features)
    for lo, hi in ((head * D, (head - 1) * D), ((head - 1) * D, head * D), ((head + 1) * D, (head + 2) * D)):
        if len(columns[lo:hi]) and columns[lo:hi] != columns[head * D:(head + 1) * D]:
            wrong = cut(lo, hi)
            variants.setdefault(("hint_ablation_columns", f"{lo}:{hi}"),
                                loss_with(lambda m, inputs: (wrong(inputs[0]),), "register_forward_pre_hook"))
    return variants


@reads_globals(LESSON)
def check_loss_without_head(fn, cls) -> None:
    name = "loss_without_head"
    model = _toy_model(cls, 33).eval()
    with torch.no_grad():  # let the heads matter: random weights barely use attention at all
        for block in model.blocks:
            block.attn.c_proj.weight.mul_(8)
    x, y = toy_batch(B, T, V, torch.Generator().manual_seed(34))
    with torch.no_grad():
        before = float(toy_loss(model(x)[0], y))
    for layer in range(L):
        for head in range(H):
            got = _as_loss(name, run(name, fn, model, x, y, layer, head, on_error=loss_error))
            with torch.no_grad():
                after = float(toy_loss(model(x)[0], y))
            if abs(after - before) > 1e-9:
                raise CheckFailed(t("ablation_left_behind"), t("hint_ablation_remove"))
            variants = ablation_variants(model, x, y, layer, head)
            if abs(got - variants[None]) > 1e-6:
                hint = next((t(k[0] if isinstance(k, tuple) else k) for k, v in variants.items()
                             if k and abs(got - v) < 1e-6), None)
                if hint is None and abs(got - before) < 1e-9:
                    hint = t("hint_ablation_nothing")
                raise CheckFailed(t("ablation_differs", layer=layer, head=head, got=got, want=variants[None]), hint)
    passed(name)


def prev_answer_hint(per_head: torch.Tensor, head: int, weight: float, tol: float) -> str:
    """Which slip gives these answers, from the true per-head weights (H,) (the grader names it alike)."""
    if abs(weight - float(per_head.mean())) < tol:
        return "hint_prev_mean_heads"  # averaged over the heads too: .mean() without dim
    best = int(per_head.argmax())
    if head != best and 0 <= head < per_head.numel() and min(abs(weight - float(per_head[head])),
                                                             abs(weight - float(per_head[best]))) < tol:
        return "hint_prev_argmax"  # a right weight, with another head's number (argmin, an index off by one)
    return "hint_prev_index"


def head_range_hint(head, n_head: int) -> str | None:
    """Why answer_prev_head is no head number (the grader names it alike): a float, or argmax over more axes than
    the heads' (a flat position past the last head)."""
    if isinstance(head, float) and head.is_integer() and 0 <= head < n_head:
        return "hint_head_not_int"
    if isinstance(head, int) and not isinstance(head, bool) and head >= n_head:
        return "hint_prev_flat_argmax"
    return None


def check_head_answers(prev_head, prev_weight, n_head: int, model=None, x=None) -> None:
    """The answers' form; with the trained model and test_x, their values (what the hidden test grades on new
    sequences): answers of the right form but of another head or another average used to pass here."""
    name = "answer_prev_head"
    if isinstance(prev_head, bool) or not isinstance(prev_head, int) or not 0 <= prev_head < n_head:
        hint = head_range_hint(prev_head, n_head)
        raise CheckFailed(t("answer_head_range", name=name, n=n_head - 1, got=prev_head), t(hint) if hint else None)
    value = expect_number("answer_prev_weight", prev_weight)
    if not 0.0 <= value <= 1.0:
        raise CheckFailed(t("answer_weight_range", got=value))
    if model is None:
        print(t("answers_plausible"))
        return
    training = model.training
    try:
        with torch.no_grad():
            w = model.eval()(x)[1][0].double()
    finally:
        model.train(training)
    per_head = previous_token_weight(w)
    best = int(per_head.argmax())
    if float(per_head[best]) < 0.5:
        # The cause is upstream: exercise 1's train_step (or the training cell) never trained the model.
        raise CheckFailed(t("prev_untrained", w=float(per_head[best])), t("hint_prev_untrained"))
    if prev_head != best or abs(value - float(per_head[best])) > 0.02:
        raise CheckFailed(t("prev_answer_differs", head=prev_head, w=value),
                          t(prev_answer_hint(per_head, prev_head, value, 0.01)))
    passed(name)
