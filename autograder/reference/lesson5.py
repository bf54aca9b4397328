"""Lesson 5's reference and its judges. Lives only in autograder/: never in a release, never in a kernel."""
import math

import torch
import torch.nn as nn
from attn_course.checks import lesson5 as checks
from attn_course.data import toy_batch, toy_loss
from attn_course.probes import lesson5 as probe
from attn_course.validate import previous_token_weight
from attn_course.judging import Mismatch, expect_close, matching_bug, max_error, naming
from attn_grader.judge import judge, sibling

GPT2SelfAttention = sibling(__file__, "gpt2_module").GPT2SelfAttention


class Block(nn.Module):
    def __init__(self, embed_dim, n_head, max_len):
        super().__init__()
        self.ln_1 = nn.LayerNorm(embed_dim)
        self.attn = GPT2SelfAttention(embed_dim, n_head, max_len=max_len)
        self.ln_2 = nn.LayerNorm(embed_dim)
        self.mlp = nn.Sequential(nn.Linear(embed_dim, 4 * embed_dim), nn.GELU(), nn.Linear(4 * embed_dim, embed_dim))

    def forward(self, x):
        a, weights = self.attn(self.ln_1(x))
        x = x + a
        return x + self.mlp(self.ln_2(x)), weights


class TinyDecoder(nn.Module):
    def __init__(self, vocab=16, max_len=12, embed_dim=32, n_head=2, n_layer=1):
        super().__init__()
        self.vocab, self.n_head = vocab, n_head
        self.wte = nn.Embedding(vocab, embed_dim)
        self.wpe = nn.Embedding(max_len, embed_dim)
        self.blocks = nn.ModuleList(Block(embed_dim, n_head, max_len) for _ in range(n_layer))
        self.ln_f = nn.LayerNorm(embed_dim)
        self.head = nn.Linear(embed_dim, 2 * vocab)

    def forward(self, idx):
        B, T = idx.shape
        x = self.wte(idx) + self.wpe(torch.arange(T, device=idx.device))
        weights = []
        for block in self.blocks:
            x, w = block(x)
            weights.append(w)
        return self.head(self.ln_f(x)).view(B, T, 2, self.vocab), weights


def train_step(model, optimizer, x, y):
    logits, _ = model(x)
    loss = toy_loss(logits, y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    return loss.item()


def head_entropy(weights):
    return -torch.special.xlogy(weights, weights).sum(dim=-1).mean(dim=(0, 2))


def loss_without_head(model, x, y, layer, head):
    attn = model.blocks[layer].attn
    D = attn.c_proj.in_features // attn.n_head

    def zero_head(_module, inputs):
        heads = inputs[0].clone()
        heads[..., head * D:(head + 1) * D] = 0
        return (heads,)

    handle = attn.c_proj.register_forward_pre_hook(zero_head)
    try:
        with torch.no_grad():
            return toy_loss(model(x)[0], y).item()
    finally:
        handle.remove()


# --------------------------------------------------------------------------- naming the mistake
# On a mismatch, the learner's results are compared with the classic bugs the visible checks name
# (attn_course.checks.lesson5), run here on the grader's own model and batches.
def _train_bug(res):
    got = [res[f"loss.{i}"] for i in range(probe.STEPS)]
    return checks.train_bug(got, lambda step: probe.train_losses(res, step)[0])


def _ablation_bug(res):
    model = probe.toy_layers(res)
    x, y = probe.batch(res, "batch")
    sizes, _ = probe.sizes(res)
    with torch.no_grad():
        before = model(x)[0]
    if not matching_bug(res["after"], {"unchanged": before}, 1e-12):
        return "hint_ablation_remove"
    loss_before = float(toy_loss(before, y))
    for layer in range(sizes["n_layer"]):
        for head in range(sizes["n_head"]):
            got = res[f"loss.{layer}.{head}"]
            variants = checks.ablation_variants(model, x, y, layer, head)
            if matching_bug(got, {"right": variants[None]}, 1e-9):
                continue
            return matching_bug(got, variants | {"hint_ablation_nothing": loss_before}, 1e-9)
    return None


# --------------------------------------------------------------------------- judges
def _loss(res, key):
    value = res[key]
    if isinstance(value, bool) or not isinstance(value, (int, float)):  # a tensor too: the lesson asks for a float
        raise Mismatch("returned_not_number", name="train_step", kind=type(value).__name__,
                       hint="hint_loss_item" if isinstance(value, torch.Tensor) else None)
    return float(value)


@judge("lesson5.train_step", on_error=checks.loss_error)
def judge_train_step(res):
    model, optimizer = probe.train_case(res)
    sizes, _ = probe.sizes(res)
    for step in range(probe.STEPS):
        want = train_step(model, optimizer, *probe.batch(res, f"batch.{step}"))
        got = _loss(res, f"loss.{step}")
        if not abs(got - want) <= 1e-9:
            raise Mismatch("hidden_mismatch", case=f"train_step #{step + 1}, {sizes}", err=abs(got - want),
                           hint=_train_bug(res))
    params = res["params"]
    if not isinstance(params, dict):
        raise Mismatch("hidden_mismatch", case=f"train_step, {sizes}", err=float("inf"))
    with naming(lambda: "hint_train_order"):  # right losses, wrong parameters: the update is out of order
        for name, p in model.named_parameters():
            expect_close(f"train_step: {name}", params.get(name), p.detach(), 1e-8)


@judge("lesson5.head_entropy")
def judge_head_entropy(res):
    for dtype, tol in ((torch.float64, 1e-9), (torch.float32, 1e-4)):
        w = probe.causal_weights(res, dtype)
        with naming(lambda: checks.entropy_bug(res[str(dtype)], w, tol)):
            expect_close(f"head_entropy {tuple(w.shape)}, {dtype}", res[str(dtype)], head_entropy(w), tol)


@judge("lesson5.loss_without_head", on_error=checks.loss_error)
def judge_loss_without_head(res):
    with naming(lambda: _ablation_bug(res)):
        _judge_loss_without_head(res)


def _judge_loss_without_head(res):
    model = probe.toy_layers(res)
    x, y = probe.batch(res, "batch")
    sizes, _ = probe.sizes(res)
    with torch.no_grad():
        before = model(x)[0]
    for layer in range(sizes["n_layer"]):
        for head in range(sizes["n_head"]):
            want = loss_without_head(model, x, y, layer, head)
            got = res[f"loss.{layer}.{head}"]
            if isinstance(got, bool) or not isinstance(got, (int, float)) or not abs(got - want) <= 1e-9:
                err = abs(got - want) if isinstance(got, (int, float)) else float("inf")
                raise Mismatch("hidden_mismatch", case=f"loss_without_head({layer}, {head}), {sizes}", err=err)
    expect_close("loss_without_head", res["before"], before, 1e-12)
    after = res["after"]
    if not isinstance(after, torch.Tensor) or after.shape != before.shape or max_error(after, before) > 1e-12:
        raise Mismatch("ablation_left_behind")


@judge("lesson5.head_answers")
def judge_head_answers(res):
    """Checked against the learner's own trained model, on a batch it has never seen."""
    config, params = res["config"], res["params"]
    head = res["answer_prev_head"]
    if not isinstance(config, dict) or not isinstance(params, dict):
        raise Mismatch("hidden_role_untrained", w=float("nan"))
    n_head = config.get("n_head")
    # Not a head's number (a float, or argmax over more axes than the heads'): named as the visible check names it.
    if isinstance(head, bool) or not isinstance(head, int) or isinstance(n_head, int) and head >= n_head:
        raise Mismatch("answer_head_range", name="answer_prev_head", n=(n_head or 1) - 1, got=head,
                       hint=checks.head_range_hint(head, n_head or 1))
    weight = res["answer_prev_weight"]
    if isinstance(weight, bool) or not isinstance(weight, (int, float)) or not math.isfinite(weight):
        raise Mismatch("answer_not_number", name="answer_prev_weight", kind=type(weight).__name__)
    try:
        model = TinyDecoder(**config)
        model.load_state_dict({k: v.float() for k, v in params.items()}, strict=False)
        missing = {n for n, _ in model.named_parameters()} - set(params)
    except (TypeError, ValueError, RuntimeError, AttributeError):
        raise Mismatch("hidden_role_untrained", w=float("nan")) from None
    if missing:
        raise Mismatch("hidden_layout", want=", ".join(sorted(missing)), got=", ".join(sorted(params)))
    x, _ = toy_batch(256, config["max_len"], config["vocab"], res.gen("batch"))
    with torch.no_grad():
        w = model.eval()(x)[1][0].double()
    per_head = previous_token_weight(w)
    best = int(per_head.argmax())
    if float(per_head[best]) < 0.5:
        # Named as the visible check names it: the cause is exercise 1 or the training cell.
        raise Mismatch("hidden_role_untrained", w=float(per_head[best]), hint="hint_prev_untrained")
    if not 0 <= head < per_head.numel() or head != best or abs(weight - float(per_head[best])) > 0.05:
        w_head = float(per_head[head]) if 0 <= head < per_head.numel() else float("nan")
        raise Mismatch("hidden_role_missing", head=head, w=w_head, best=best, best_w=float(per_head[best]),
                       hint=checks.prev_answer_hint(per_head, head, weight, 0.02))
