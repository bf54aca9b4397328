"""Tiny data: a hand-made example sentence (lessons 1-4) and the lesson-5 toy task.

The sentence has the same numbers in both languages.

Each token gets a small feature vector of 8 features (noun, animal, food, verb, particle,
subject, object, end), so that plain dot products already show something sensible: nouns look at
nouns, particles at particles. Only the labels depend on the language.
"""
import torch
import torch.nn.functional as F

SENTENCE = {
    "ja": ["猫", "が", "魚", "を", "食べた", "。"],
    "ko": ["고양이", "가", "생선", "을", "먹었다", "."],
}

#            noun animal food verb particle subj obj end
_FEATURES = [
    [1.0, 1.0, 0.0, 0.0, 0.0, 0.6, 0.0, 0.0],  # cat
    [0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0],  # subject particle
    [1.0, 0.3, 1.0, 0.0, 0.0, 0.0, 0.6, 0.0],  # fish
    [0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 1.0, 0.0],  # object particle
    [0.0, 0.5, 0.6, 1.0, 0.0, 0.4, 0.4, 0.3],  # ate
    [0.0, 0.0, 0.0, 0.3, 0.2, 0.0, 0.0, 1.0],  # full stop
]


def sentence(lang: str) -> list[str]:
    return list(SENTENCE[lang])


def sentence_embeddings(device=None, dtype=torch.float32) -> torch.Tensor:
    """(T, E) = (6, 8) embeddings of the sample sentence."""
    return torch.tensor(_FEATURES, device=device, dtype=dtype) * 2.0


# --------------------------------------------------------------------------- lesson 5's task
def toy_batch(batch_size: int, T: int, vocab: int, generator=None):
    """The lesson-5 task: y[:, t] = (first token, previous token); position 0 has no answer (-100)."""
    x = torch.randint(0, vocab, (batch_size, T), generator=generator)
    y = torch.stack([x[:, :1].expand(batch_size, T), x.roll(1, dims=1)], dim=-1).clone()
    y[:, 0] = -100
    return x, y


def toy_loss(logits: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    return F.cross_entropy(logits.reshape(-1, logits.size(-1)), y.reshape(-1), ignore_index=-100)
