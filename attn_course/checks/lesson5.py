"""Lesson 5's visible checks: each runs its exercise's probe on a seed of its own and judges what it recorded by the
exercise's procedure (attn_course.probes.lesson5), as the grader does, with the right answer given here."""
from __future__ import annotations

import torch

from ..data import toy_loss

# Each check's own seed: the probe's inputs drawn from it follow the probe's rule (no size the notebook binds);
# loss_without_head's draws three heads, where a slice off by a head zeroes another head's columns.
SEEDS = {"train_step": 501, "head_entropy": 502, "loss_without_head": 513, "head_answers": 504}


def right_train_step(model, optimizer, x, y) -> float:
    """One step as the lesson gives it: the loss, zero_grad() → backward() → step(), the loss as a float."""
    loss = toy_loss(model(x)[0], y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    return loss.item()


def right_head_entropy(weights):
    """−Σ w log w over the keys (0 · log 0 = 0), averaged over the batch and the queries: (H,)."""
    return -torch.special.xlogy(weights, weights).sum(dim=-1).mean(dim=(0, 2))


def right_loss_without_head(model, x, y, layer: int, head: int) -> float:
    """The loss with head `head` of layer `layer` zeroed: its D columns of c_proj's input, by a pre-hook removed
    after."""
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


def _verify(exercise: str, name: str, right, *objs) -> None:
    from ..judging import verify   # here: the probes' package imports the checks
    from ..probes import lesson5 as probes
    verify(getattr(probes, exercise), getattr(probes, f"judge_{exercise}"), right, SEEDS[exercise], name, *objs)


def check_train_step(fn) -> None:
    _verify("train_step", "train_step", right_train_step, fn)


def check_head_entropy(fn) -> None:
    _verify("head_entropy", "head_entropy", right_head_entropy, fn)


def check_loss_without_head(fn) -> None:
    _verify("loss_without_head", "loss_without_head", right_loss_without_head, fn)


def check_head_answers(model, prev_head, prev_weight) -> None:
    """The answers, against the learner's own trained model (its parameters read into the lesson's TinyDecoder, the
    model's own class) on sequences it has never seen, as the grader checks them."""
    _verify("head_answers", "answer_prev_head, answer_prev_weight", type(model), model, prev_head, prev_weight)
