"""Lesson 7's reference. Lives only in autograder/: never in a release, never in a kernel.

The grader imports this module in its own process and judges what the learner's kernel sent by each exercise's
procedure (attn_course/probes/lesson7.py) given this reference.

apply_rope is judged against transformers' own Llama rotary code (LlamaRotaryEmbedding and
apply_rotary_pos_emb, built from a LlamaConfig): transformers computes cos and sin in float32 whatever
the input's dtype, so float64 agrees to about 4e-7 at the positions and sizes drawn here (positions below
12, |q| about 1/4), and the tolerance is 1e-6. Gradients, which carry the probe's unit-scale weights, get 1e-5.
"""
import math

import torch
import torch.nn as nn
from attn_course.hf import llama_rotary
from attn_course.probes import lesson7 as probe
from attn_course.validate import expect_size, expect_tokens, resolve_head_dim
from attn_grader.judge import judged_by, sibling

GPT2SelfAttention = sibling(__file__, "gpt2_module").GPT2SelfAttention


# --------------------------------------------------------------------------- reference
def permutation_error(fn, x, perm):
    with torch.no_grad():
        return float((fn(x[:, perm]) - fn(x)[:, perm]).abs().max())


def sinusoidal_positions(T, E, base=10000.0, device=None):
    position = torch.arange(T, dtype=torch.float64, device=device)[:, None]              # (T, 1)
    omega = base ** (-torch.arange(0, E, 2, dtype=torch.float64, device=device) / E)     # (E/2,)
    pe = torch.empty(T, E, dtype=torch.float64, device=device)
    pe[:, 0::2], pe[:, 1::2] = torch.sin(position * omega), torch.cos(position * omega)
    return pe.float()


def apply_rope(q, k, positions, base=10000.0):
    """transformers' Llama RoPE itself: the reference for exercise 3."""
    return llama_rotary(q.size(-1), base)(q, k, positions)


def interleaved_to_half(weight, n_head):
    rows = weight.size(0)
    return weight.reshape(n_head, rows // n_head // 2, 2, *weight.shape[1:]).transpose(1, 2).reshape(weight.shape)


def relative_score(q, k, offset, rope):
    _, k_turned = rope(k[..., None, :], k[..., None, :], torch.tensor([offset], device=k.device))
    return (q * k_turned[..., 0, :]).sum(-1)


def rope_attention(attn, x, turn):
    """RoPE attention over the whole sequence at once, causal: what a KV cache must reproduce."""
    B, T, E = x.shape
    H = attn.n_head
    q, k, v = (z.view(B, T, H, E // H).transpose(1, 2) for z in attn.c_attn(x).split(E, dim=2))
    q, k = turn(q, k, torch.arange(T))
    keep = torch.ones(T, T, dtype=torch.bool).tril()
    scores = (q @ k.transpose(-2, -1) / math.sqrt(E // H)).masked_fill(~keep, float("-inf"))
    return attn.c_proj((torch.softmax(scores, -1) @ v).transpose(1, 2).reshape(B, T, E))


def alibi_bias(n_head, T, device=None):
    n = 2 ** math.floor(math.log2(n_head))
    slopes = [2 ** (-8 * (h + 1) / n) for h in range(n)]
    slopes += [2 ** (-8 * (h + 1) / (2 * n)) for h in range(0, 2 * (n_head - n), 2)]
    m = torch.tensor(slopes, device=device)
    i = torch.arange(T, device=device)
    return -m[:, None, None] * (i[:, None] - i[None, :]).float()


class CrossAttention(nn.Module):
    def __init__(self, embed_dim, n_head):
        super().__init__()
        self.embed_dim, self.n_head = expect_size(embed_dim, "embed_dim"), expect_size(n_head, "n_head")
        self.head_dim = resolve_head_dim(embed_dim, n_head)
        self.q_proj, self.k_proj, self.v_proj, self.out_proj = (nn.Linear(embed_dim, embed_dim) for _ in range(4))

    def forward(self, x, memory, key_padding_mask=None):
        expect_tokens(x, self.embed_dim)
        expect_tokens(memory, self.embed_dim)
        B, T_q, E = x.shape
        H, D = self.n_head, self.head_dim
        q = self.q_proj(x).view(B, T_q, H, D).transpose(1, 2)
        k, v = (p(memory).view(B, -1, H, D).transpose(1, 2) for p in (self.k_proj, self.v_proj))
        scores = q @ k.transpose(-2, -1) / math.sqrt(D)
        if key_padding_mask is not None:
            scores = scores.masked_fill(key_padding_mask[:, None, None, :], float("-inf"))
        weights = torch.softmax(scores, dim=-1)
        return self.out_proj((weights @ v).transpose(1, 2).reshape(B, T_q, E)), weights


# Each exercise is judged by its public procedure (attn_course.probes.lesson7) given this reference: the visible check
# runs the same procedure with the right answer the course's public facts give.
judged_by("lesson7.module_buffer", probe.judge_module_buffer, GPT2SelfAttention)
judged_by("lesson7.permutation_error", probe.judge_permutation_error, permutation_error)
judged_by("lesson7.sinusoidal_positions", probe.judge_sinusoidal_positions, sinusoidal_positions)
judged_by("lesson7.apply_rope", probe.judge_apply_rope, apply_rope)
judged_by("lesson7.interleaved_to_half", probe.judge_interleaved_to_half, interleaved_to_half)
judged_by("lesson7.relative_score", probe.judge_relative_score, relative_score)
judged_by("lesson7.rope_cache", probe.judge_rope_cache, rope_attention)
judged_by("lesson7.alibi_bias", probe.judge_alibi_bias, alibi_bias)
judged_by("lesson7.cross_attention", probe.judge_cross_attention, CrossAttention)
