"""Reference for lesson 5. Lives only in autograder/: never copied into a release."""
import copy

import torch
import torch.nn as nn
import torch.nn.functional as F

from attn_course.checks import (
    CheckFailed, _as_loss, _call, _distinct_sizes, _expect_number, _grading_generator, _max_error, _tril,
    hidden_passed, previous_token_weight, reference, toy_batch, toy_loss,
)
from attn_course.messages import t

GPT2SelfAttention = reference("lesson4").GPT2SelfAttention


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


# --------------------------------------------------------------------------- hidden tests
def _sizes(g):
    v, t_, h, d, b = _distinct_sizes(g, 5, low=2, high=11)
    return dict(vocab=v + 1, max_len=t_ + 2, embed_dim=h * d, n_head=h, n_layer=2), b


def _model(g, sizes):
    torch.manual_seed(int(torch.randint(0, 2**31, (1,), generator=g)))
    return TinyDecoder(**sizes).double()


def test_train_step(fn):
    g = _grading_generator()
    sizes, b = _sizes(g)
    mine = _model(g, sizes)
    ref = copy.deepcopy(mine)
    with torch.no_grad():  # a stale gradient from before, as a notebook often has
        for p in mine.parameters():
            p.grad = torch.randn(p.shape, generator=g, dtype=p.dtype)
    opt_mine = torch.optim.AdamW(mine.parameters(), lr=1e-2)
    opt_ref = torch.optim.AdamW(ref.parameters(), lr=1e-2)
    for step in range(3):
        x, y = toy_batch(b, sizes["max_len"], sizes["vocab"], g)
        got = _as_loss("train_step", _call("train_step", fn, mine, opt_mine, x, y))
        want = train_step(ref, opt_ref, x, y)
        worst = max(_max_error(p, q) for p, q in zip(mine.parameters(), ref.parameters()))
        if abs(got - want) > 1e-9 or worst > 1e-8:
            raise CheckFailed(t("hidden_mismatch", case=f"train_step #{step + 1}, {sizes}", err=max(worst, abs(got - want))))
    hidden_passed("train_step")


def test_head_entropy(fn):
    g = _grading_generator()
    b, h, t_ = _distinct_sizes(g, 3, low=2, high=12)
    for dtype, tol in ((torch.float64, 1e-9), (torch.float32, 1e-4)):
        scores = torch.randn(b, h, t_, t_, generator=g, dtype=dtype) * 3
        w = torch.softmax(scores.masked_fill(~_tril(t_), float("-inf")), dim=-1)
        got, want = _call("head_entropy", fn, w), head_entropy(w)
        if not (isinstance(got, torch.Tensor) and got.shape == want.shape and torch.allclose(got, want, atol=tol, rtol=tol)):
            raise CheckFailed(t("hidden_mismatch", case=f"head_entropy B={b}, H={h}, T={t_}, {dtype}",
                                err=_max_error(got, want) if isinstance(got, torch.Tensor) else float("inf")))
    hidden_passed("head_entropy")


def test_loss_without_head(fn):
    g = _grading_generator()
    sizes, b = _sizes(g)
    model = _model(g, sizes).eval()
    with torch.no_grad():
        for block in model.blocks:
            block.attn.c_proj.weight.mul_(8)
    x, y = toy_batch(b, sizes["max_len"], sizes["vocab"], g)
    with torch.no_grad():
        before = model(x)[0]
    for layer in range(sizes["n_layer"]):
        for head in range(sizes["n_head"]):
            got = _as_loss("loss_without_head", _call("loss_without_head", fn, model, x, y, layer, head))
            want = loss_without_head(model, x, y, layer, head)
            if abs(got - want) > 1e-9:
                raise CheckFailed(t("hidden_mismatch", case=f"loss_without_head({layer}, {head}), {sizes}",
                                    err=abs(got - want)))
    with torch.no_grad():
        if not torch.equal(model(x)[0], before):
            raise CheckFailed(t("ablation_left_behind"))
    hidden_passed("loss_without_head")


def test_head_answers(model, prev_head, prev_weight):
    """Checked against the learner's own trained model, on a batch it has never seen."""
    g = _grading_generator()
    head = prev_head
    if isinstance(head, bool) or not isinstance(head, int):
        raise CheckFailed(t("answer_head_range", name="answer_prev_head", n=model.n_head - 1, got=head))
    weight = _expect_number("answer_prev_weight", prev_weight)
    device = next(model.parameters()).device
    x, _ = toy_batch(256, model.wpe.num_embeddings, model.vocab, g)
    was_training = model.training
    model.eval()
    try:
        with torch.no_grad():
            w = model(x.to(device))[1][0].double().cpu()
    finally:
        model.train(was_training)
    per_head = previous_token_weight(w)
    best = int(per_head.argmax())
    if float(per_head[best]) < 0.5:
        raise CheckFailed(t("hidden_role_untrained", w=float(per_head[best])))
    if not 0 <= head < per_head.numel() or head != best or abs(weight - float(per_head[best])) > 0.05:
        w_head = float(per_head[head]) if 0 <= head < per_head.numel() else float("nan")
        raise CheckFailed(t("hidden_role_missing", head=head, w=w_head, best=best, best_w=float(per_head[best])))
    hidden_passed("answer_prev_head")
