"""Lesson 5's visible checks: each exercise's procedure (attn_course.probes.lesson5) on a seed of its own, with the
right answer given here."""
from __future__ import annotations

import copy

import torch

from ..data import toy_loss

# Each check's own seed: the probe's inputs drawn from it follow the probe's rule (no size the notebook binds);
# loss_without_head's draws three heads, where a slice off by a head zeroes another head's columns.
SEEDS = {"train_step": 501, "head_entropy": 502, "loss_without_head": 513, "head_answers": 504}


def right_train_step(model, optimizer, x, y) -> float:
    """One step from the lesson's facts: the update uses this batch's gradient alone (what zero_grad() before
    backward() leaves), AdamW's step takes it from each parameter's .grad, the loss comes back as a float."""
    loss = toy_loss(model(x)[0], y)
    params = [p for p in model.parameters() if p.requires_grad]
    for p, grad in zip(params, torch.autograd.grad(loss, params)):
        p.grad = grad
    optimizer.step()
    return loss.item()


def right_head_entropy(weights):
    """Each query's weights are a distribution over the keys: its entropy, averaged over the batch and the queries,
    per head: (H,)."""
    rows = torch.distributions.Categorical(probs=weights, validate_args=False)
    return rows.entropy().mean(dim=(0, 2))


def right_loss_without_head(model, x, y, layer: int, head: int) -> float:
    """c_proj mixes the heads' D columns each by its own columns of the weight: zeroing a head's input is zeroing
    those weight columns, here in a copy of the model, which stays as it was."""
    ablated = copy.deepcopy(model)
    attn = ablated.blocks[layer].attn
    D = attn.c_proj.in_features // attn.n_head
    with torch.no_grad():
        attn.c_proj.weight[:, head * D:(head + 1) * D] = 0
        return float(toy_loss(ablated(x)[0], y))


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
