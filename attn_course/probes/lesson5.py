"""Lesson 5's hidden tests, kernel side: run the learner's code on the grader's inputs and record it.

train_step and loss_without_head are tested on small stand-in models with the lesson's
interface (`model(idx) -> (logits (B, T, 2, V), weights)`, `model.blocks[l].attn.c_proj`),
so no exercise's answer has to live here.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

from ..data import toy_batch
from ..sizes import avoided
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
    model = toy_layers(rec)
    x, y = batch(rec, "batch")
    with torch.no_grad():
        rec.put("before", model(x)[0])
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
