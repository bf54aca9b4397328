"""Lesson 5's exercises: each one's probe and procedure (docs/authoring.md, "One exercise, one procedure"); the
visible checks are attn_course.checks.lesson5. train_step and loss_without_head are tested on small stand-in models
with the lesson's interface (`model(idx) -> (logits (B, T, 2, V), weights)`, `model.blocks[l].attn.c_proj`), so no
exercise's answer has to live here."""
import math

import torch
import torch.nn as nn

from ..checks.engine import close
from ..data import toy_batch, toy_loss
from ..judging import Mismatch, expect_close, matching_bug, max_error, naming, procedure
from ..sizes import avoided
from ..validate import previous_token_weight
from .cases import scalar
from .recorder import probe


class ToyModel(nn.Module):
    """Embeddings and an MLP with the lesson-5 output layout: what a training step is tested on."""

    def __init__(self, vocab, max_len, embed_dim):
        super().__init__()
        self.vocab = vocab
        self.wte, self.wpe = nn.Embedding(vocab, embed_dim), nn.Embedding(max_len, embed_dim)
        self.mlp = nn.Sequential(nn.Linear(embed_dim, 2 * embed_dim), nn.GELU(), nn.Linear(2 * embed_dim, embed_dim))
        self.head = nn.Linear(embed_dim, 2 * vocab)

    def forward(self, idx):
        B, T = idx.shape
        x = self.wte(idx) + self.wpe(torch.arange(T, device=idx.device))
        return self.head(x + self.mlp(x)).view(B, T, 2, self.vocab), []


class HeadMixer(nn.Module):
    """Stands in for an attention layer: n_head groups of features, joined by c_proj."""

    def __init__(self, embed_dim, n_head):
        super().__init__()
        self.embed_dim, self.n_head, self.head_dim = embed_dim, n_head, embed_dim // n_head
        self.c_attn = nn.Linear(embed_dim, embed_dim)
        self.c_proj = nn.Linear(embed_dim, embed_dim)

    def forward(self, x):
        return self.c_proj(torch.tanh(self.c_attn(x)))


class Block(nn.Module):
    def __init__(self, embed_dim, n_head):
        super().__init__()
        self.attn = HeadMixer(embed_dim, n_head)

    def forward(self, x):
        return x + self.attn(x)


class ToyLayers(ToyModel):
    """ToyModel with `blocks[l].attn.c_proj`, where a head can be switched off."""

    def __init__(self, vocab, max_len, embed_dim, n_head, n_layer):
        super().__init__(vocab, max_len, embed_dim)
        self.n_head = n_head
        self.blocks = nn.ModuleList(Block(embed_dim, n_head) for _ in range(n_layer))

    def forward(self, idx):
        B, T = idx.shape
        x = self.wte(idx) + self.wpe(torch.arange(T, device=idx.device))
        for block in self.blocks:
            x = block(x)
        return self.head(x).view(B, T, 2, self.vocab), []


# The notebook's own sizes (its V = 16, T = 12): no vocabulary, length or other size drawn here equals one, so code
# that reads such a global fails on every seed, as it fails the visible check (attn_course.sizes).
NOTEBOOK = avoided(5)


def sizes(draws):
    # vocab is v + 1 and max_len t + 2: the draws avoid what would make either a notebook size.
    avoid = NOTEBOOK | {s - 1 for s in NOTEBOOK} | {s - 2 for s in NOTEBOOK}
    v, t, h, d, b = draws.sizes("sizes", 5, low=2, high=11, avoid=avoid)
    return dict(vocab=v + 1, max_len=t + 2, embed_dim=h * d, n_head=h, n_layer=2), b


def toy_model(draws):
    s, _ = sizes(draws)
    torch.manual_seed(draws.integer("model"))
    return ToyModel(s["vocab"], s["max_len"], s["embed_dim"]).double()


def toy_layers(draws):
    s, _ = sizes(draws)
    model = ToyLayers(**s).double().eval()
    draws.fill_parameters(model, "model")
    return model


def ablation_case(draws):
    """loss_without_head's stand-in model, its batch (x, y) and its output before any head is zeroed."""
    model = toy_layers(draws)
    x, y = batch(draws, "batch")
    with torch.no_grad():
        return model, x, y, model(x)[0]


def batch(draws, name):
    s, b = sizes(draws)
    return toy_batch(b, s["max_len"], s["vocab"], draws.gen(name))


def stale_gradients(draws, model):
    """A gradient left from before, as a notebook often has one."""
    for name, p in model.named_parameters():
        p.grad = draws.randn(f"stale.{name}", *p.shape)


STEPS = 3


def train_case(draws):
    """The training step's case, for the probe, the judge and the visible check alike: a stand-in model of drawn
    sizes with a gradient left from before (a zero_grad() after step() keeps it on the first step), and AdamW."""
    model = toy_model(draws)
    stale_gradients(draws, model)
    return model, torch.optim.AdamW(model.parameters(), lr=1e-2)


def train_losses(draws, step) -> tuple[list, nn.Module]:
    """What step(model, optimizer, x, y) returns on train_case's batches, and the model after them."""
    model, optimizer = train_case(draws)
    return [step(model, optimizer, *batch(draws, f"batch.{i}")) for i in range(STEPS)], model


@probe("lesson5.train_step")
def train_step(rec, fn):
    model, optimizer = train_case(rec)
    for step in range(STEPS):
        # As returned: a loss tensor instead of loss.item() is a mistake the judge names.
        rec.put(f"loss.{step}", rec.call("train_step", fn, model, optimizer, *batch(rec, f"batch.{step}")))
    rec.put("params", {n: p for n, p in model.named_parameters()})


@probe("lesson5.head_entropy")
def head_entropy(rec, fn):
    for dtype in (torch.float64, torch.float32):
        rec.put(str(dtype), rec.call("head_entropy", fn, causal_weights(rec, dtype)))


def causal_weights(draws, dtype):
    b, h, t = draws.sizes("entropy_sizes", 3, low=2, high=12, avoid=NOTEBOOK)
    scores = draws.randn(f"scores.{dtype}", b, h, t, t, dtype=dtype, scale=3.0)
    return torch.softmax(scores.masked_fill(~torch.ones(t, t, dtype=torch.bool).tril(), float("-inf")), dim=-1)


@probe("lesson5.loss_without_head")
def loss_without_head(rec, fn):
    model, x, y, before = ablation_case(rec)
    rec.put("before", before)
    for layer in range(len(model.blocks)):
        for head in range(model.n_head):
            got = rec.call("loss_without_head", fn, model, x, y, layer, head)
            rec.put(f"loss.{layer}.{head}", scalar(got))
    with torch.no_grad():  # a hook left behind would still change the model
        rec.put("after", model(x)[0])


@probe("lesson5.head_answers")
def head_answers(rec, model, prev_head, prev_weight):
    """The answers, and the learner's own trained model: the grader reads its heads on a batch of its own."""
    rec.put("answer_prev_head", prev_head)
    rec.put("answer_prev_weight", scalar(prev_weight))
    config = dict(vocab=getattr(model, "vocab", None), max_len=model.wpe.num_embeddings,
                  embed_dim=model.wte.embedding_dim, n_head=getattr(model, "n_head", None),
                  n_layer=len(model.blocks))
    rec.put("config", config)
    rec.put("params", {n: p.float() for n, p in model.named_parameters()})


# --------------------------------------------------------------------------- the classic mistakes
def loss_error(kind: str, message: str, call: str = "") -> str | None:
    """The hint for an error train_step or loss_without_head raised. Each text is what torch says for one slip in the
    loss or the hook."""
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


# The classic wrong steps, by the hint that names each.
TRAIN_VARIANTS = {
    "hint_zero_grad": _step("never"),
    "hint_zero_grad_after_step": _step("after"),   # right wherever no gradient was left before the first call
    "hint_train_order": _step("between"),
    "hint_loss_softmax_twice": _step(softmax=True),
}


def train_bug(got: list, losses_of, right, tol: float = 1e-9) -> str | None:
    """The hint for the losses got (one per call) on train_case. losses_of(step): a step's losses on that same case.
    The first wrong step whose losses are got's; else a loss wrong from the first call is a slip in the loss itself."""
    def same(a, b):
        return len(a) == len(b) and all(not isinstance(g, bool) and isinstance(g, (int, float))
                                        and abs(g - w) <= tol for g, w in zip(a, b))
    key = next((key for key, step in TRAIN_VARIANTS.items() if same(got, losses_of(step))), None)
    if key is None and not same(got[:1], losses_of(right)[:1]):
        return "hint_loss_layout"
    return key


def head_entropy_variants(w: torch.Tensor) -> dict:
    right = -torch.special.xlogy(w, w).sum(-1).mean(dim=(0, 2))
    return {None: right, "hint_entropy_log2": right / math.log(2), "hint_entropy_sign": -right}


def entropy_bug(got, w: torch.Tensor, tol: float) -> str | None:
    """Which mistake gives got for the weights w."""
    if not isinstance(got, torch.Tensor):
        return None
    if tuple(got.shape) != (w.size(1),):
        return "hint_entropy_mean_axes"
    if got.dtype != w.dtype:
        return "hint_entropy_dtype"
    if not torch.isfinite(got).all():
        # Finite in float64 and not in float32: a number that avoids 0 in float64 is 0 in float32 (1e-50).
        return "hint_entropy_nan_float32" if w.dtype == torch.float32 else "hint_entropy_nan"
    return next((key for key, want in head_entropy_variants(w.double()).items() if key and close(got, want, tol)), None)


def ablation_variants(model, x, y, layer: int, head: int) -> dict:
    """The loss with one head zeroed, and the classic wrong ways of zeroing it: loss(lo, hi) zeroes columns lo:hi of
    c_proj's input (of its output: output=True) by a hook, removed after."""
    attn = model.blocks[layer].attn
    D = attn.c_proj.in_features // attn.n_head

    def loss(lo, hi, output=False):
        def zero(tensor):
            tensor = tensor.clone()
            tensor[..., lo:hi] = 0
            return tensor
        handle = attn.c_proj.register_forward_hook(lambda m, inputs, out: zero(out)) if output else \
            attn.c_proj.register_forward_pre_hook(lambda m, inputs: (zero(inputs[0]),))
        try:
            with torch.no_grad():
                return float(toy_loss(model(x)[0], y))
        finally:
            handle.remove()

    variants = {None: loss(head * D, (head + 1) * D), "hint_ablation_output": loss(head * D, (head + 1) * D, True),
                "hint_ablation_slice": loss(head, head + 1)}
    # Slice ends off by a head ((head - 1) * D, which for head 0 zeroes every head but the last); a
    # slice that zeroes nothing is left to hint_ablation_nothing.
    columns = range(attn.c_proj.in_features)
    for lo, hi in ((head * D, (head - 1) * D), ((head - 1) * D, head * D), ((head + 1) * D, (head + 2) * D)):
        if len(columns[lo:hi]) and columns[lo:hi] != columns[head * D:(head + 1) * D]:
            variants.setdefault(("hint_ablation_columns", f"{lo}:{hi}"), loss(lo, hi))
    return variants


def _ablation_bug(res):
    model, x, y, before = ablation_case(res)
    if not matching_bug(res["after"], {"unchanged": before}, 1e-12):
        return "hint_ablation_remove"
    loss_before = float(toy_loss(before, y))
    for layer in range(len(model.blocks)):
        for head in range(model.n_head):
            got = res[f"loss.{layer}.{head}"]
            variants = ablation_variants(model, x, y, layer, head)
            if matching_bug(got, {"right": variants[None]}, 1e-9):
                continue
            return matching_bug(got, variants | {"hint_ablation_nothing": loss_before}, 1e-9)
    return None


def prev_answer_hint(per_head: torch.Tensor, head: int, weight: float, tol: float) -> str:
    """Which slip gives these answers, from the true per-head weights (H,)."""
    if abs(weight - float(per_head.mean())) < tol:
        return "hint_prev_mean_heads"  # averaged over the heads too: .mean() without dim
    best = int(per_head.argmax())
    if head != best and 0 <= head < per_head.numel() and min(abs(weight - float(per_head[head])),
                                                             abs(weight - float(per_head[best]))) < tol:
        return "hint_prev_argmax"  # a right weight, with another head's number (argmin, an index off by one)
    return "hint_prev_index"


def head_range_hint(head, n_head: int) -> str | None:
    """Why answer_prev_head is no head number: a float, or argmax over more axes than the heads' (a flat position
    past the last head)."""
    if isinstance(head, float) and head.is_integer() and 0 <= head < n_head:
        return "hint_head_not_int"
    if isinstance(head, int) and not isinstance(head, bool) and head >= n_head:
        return "hint_prev_flat_argmax"
    return None


# --------------------------------------------------------------------------- the procedures
# res: what the probe recorded (attn_course.judging.Results); right: the right implementation.
def _loss(res, key: str, name: str) -> float:
    """A loss as returned: a float (the probe made a one-element tensor of loss_without_head one). A tensor is
    refused: the lesson asks for loss.item(), and the training cell cannot draw tensors that still hold a graph."""
    value = res[key]
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise Mismatch("returned_not_number", name=name, kind=type(value).__name__,
                       hint="hint_loss_item" if isinstance(value, torch.Tensor) else None)
    return float(value)


def _shown(draws) -> str:
    s, _ = sizes(draws)
    return f"V = {s['vocab']}, T = {s['max_len']}, E = {s['embed_dim']}, H = {s['n_head']}"


@procedure(on_error=loss_error)
def judge_train_step(res, right):
    model, optimizer = train_case(res)
    got = [_loss(res, f"loss.{step}", "train_step") for step in range(STEPS)]
    for step in range(STEPS):
        want = right(model, optimizer, *batch(res, f"batch.{step}"))
        if not abs(got[step] - want) <= 1e-9:
            raise Mismatch("hidden_mismatch", case=("case_train_call", {"step": step + 1, "sizes": _shown(res)}),
                           err=abs(got[step] - want),
                           hint=train_bug(got, lambda fn: train_losses(res, fn)[0], right))
    params = res["params"]
    if not isinstance(params, dict):
        raise Mismatch("hidden_mismatch", case=("case_train_params", {"sizes": _shown(res)}), err=float("inf"))
    with naming(lambda: "hint_train_order"):  # right losses, wrong parameters: the update is out of order
        for name, p in model.named_parameters():
            expect_close(("case_train_param", {"name": name, "sizes": _shown(res)}), params.get(name), p.detach(),
                         1e-8)


@procedure()
def judge_head_entropy(res, right):
    for dtype, tol in ((torch.float64, 1e-9), (torch.float32, 1e-4)):
        w = causal_weights(res, dtype)
        with naming(lambda: entropy_bug(res[str(dtype)], w, tol)):
            expect_close(f"head_entropy {tuple(w.shape)}, {dtype}", res[str(dtype)], right(w), tol)


@procedure(on_error=loss_error)
def judge_loss_without_head(res, right):
    with naming(lambda: _ablation_bug(res)):
        model, x, y, before = ablation_case(res)
        for layer in range(len(model.blocks)):
            for head in range(model.n_head):
                want = right(model, x, y, layer, head)
                got = _loss(res, f"loss.{layer}.{head}", "loss_without_head")
                if not abs(got - want) <= 1e-9:
                    raise Mismatch("hidden_mismatch", case=f"loss_without_head(…, {layer}, {head}), {_shown(res)}",
                                   err=abs(got - want))
        expect_close("loss_without_head", res["before"], before, 1e-12)
        after = res["after"]
        if not isinstance(after, torch.Tensor) or after.shape != before.shape or max_error(after, before) > 1e-12:
            raise Mismatch("ablation_left_behind")


@procedure()
def judge_head_answers(res, right):
    """right: the lesson's model class (TinyDecoder). The answers are checked against the learner's own trained
    parameters, read into one, on a batch of sequences drawn here."""
    config, params = res["config"], res["params"]
    head = res["answer_prev_head"]
    if not isinstance(config, dict) or not isinstance(params, dict):
        raise Mismatch("prev_untrained", w=float("nan"))
    n_head = config.get("n_head")
    # Not a head's number (a float, or argmax over more axes than the heads').
    if isinstance(head, bool) or not isinstance(head, int) or head < 0 or isinstance(n_head, int) and head >= n_head:
        raise Mismatch("answer_head_range", name="answer_prev_head", n=(n_head or 1) - 1, got=head,
                       hint=head_range_hint(head, n_head or 1))
    weight = res["answer_prev_weight"]
    if isinstance(weight, bool) or not isinstance(weight, (int, float)) or not math.isfinite(weight):
        raise Mismatch("answer_not_number", name="answer_prev_weight", kind=type(weight).__name__)
    if not 0.0 <= weight <= 1.0:
        raise Mismatch("answer_weight_range", got=weight)
    try:
        model = right(**config)
        model.load_state_dict({k: v.float() for k, v in params.items()}, strict=False)
        missing = {n for n, _ in model.named_parameters()} - set(params)
    except (TypeError, ValueError, RuntimeError, AttributeError):
        raise Mismatch("prev_untrained", w=float("nan")) from None
    if missing:
        raise Mismatch("hidden_layout", want=", ".join(sorted(missing)), got=", ".join(sorted(params)))
    x, _ = toy_batch(256, config["max_len"], config["vocab"], res.gen("batch"))
    with torch.no_grad():
        per_head = previous_token_weight(model.eval()(x)[1][0].double())
    best = int(per_head.argmax())
    if float(per_head[best]) < 0.5:
        # The cause is upstream: exercise 1's train_step (or the training cell) never trained the model.
        raise Mismatch("prev_untrained", w=float(per_head[best]), hint="hint_prev_untrained")
    if head != best or abs(weight - float(per_head[best])) > 0.05:
        raise Mismatch("prev_answer_differs", head=head, w=weight,
                       hint=prev_answer_hint(per_head, head, weight, 0.02))
