"""Lesson 5's reference, which the grader gives each exercise's procedure (attn_course/probes/lesson5.py).
Lives only in autograder/: never in a release, never in a kernel."""
import torch
import torch.nn as nn
from attn_course.data import toy_loss
from attn_course.probes import lesson5 as probe
from attn_grader.judge import judged_by, sibling

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


# --------------------------------------------------------------------------- judges
judged_by("lesson5.train_step", probe.judge_train_step, train_step)
judged_by("lesson5.head_entropy", probe.judge_head_entropy, head_entropy)
judged_by("lesson5.loss_without_head", probe.judge_loss_without_head, loss_without_head)
judged_by("lesson5.head_answers", probe.judge_head_answers, TinyDecoder)
