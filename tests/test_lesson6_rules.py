"""Lesson 6's rules that a right answer alone does not show, each failed by the visible check and the grader
alike, for the same named cause: the pasted module's max_len (a buffer sized by it, the keyword itself) and its
SDPA path's None; the tiling's (T, T) scores never made; the running tensors, and GQA's mask, on the input's
device and dtype (the meta device standing in for a GPU). A Japanese learner's reading found each one ✔."""
import math

import pytest
import torch

from attn_course.checks import lesson6 as checks
from attn_course.probes import lesson4 as probes4
from attn_course.probes import lesson6 as probes
from conftest import fails, fails_with, passes, reference
from test_lesson4 import max_len_module as _pasted


@pytest.fixture(scope="module")
def ref():
    return reference("lesson6")


@pytest.fixture(scope="module")
def ref4():
    return reference("lesson4")


def test_the_pasted_module_is_built_with_max_len_and_run_past_64(lang, ref4):
    checks.check_gpt2_module(ref4.GPT2SelfAttention)
    passes(probes4.module_max_len, ref4.GPT2SelfAttention)
    fails_with(checks.check_gpt2_module, _pasted(ref4, buffer=64), "hint_max_len_buffer")
    fails_with(checks.check_gpt2_module, _pasted(ref4, keyword="block_size"), "hint_max_len_keyword")
    fails_with(checks.check_gpt2_module, _pasted(ref4, sdpa_weights=True), "hint_sdpa_weights_none")
    assert fails(probes4.module_max_len, _pasted(ref4, buffer=64)).hint == "hint_max_len_buffer"
    assert fails(probes4.module_max_len, _pasted(ref4, keyword="block_size")).hint == "hint_max_len_keyword"
    assert fails(probes4.module_max_len, _pasted(ref4, sdpa_weights=True)).hint == "hint_sdpa_weights_none"


def _untiled(q, k, v, block_size, causal=False):
    """The exercise's answer without its point: the whole (T, T) scores."""
    T = q.size(2)
    s = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
    if causal:
        s = s.masked_fill(torch.ones(T, T, dtype=torch.bool, device=q.device).triu(1), float("-inf"))
    return torch.softmax(s, dim=-1) @ v


def _running(device=True, dtype=True, einsum=False):
    """The tiling with its running tensors made without device= (CPU) or dtype= (float32), or with each block's
    scores from an einsum over the whole keys (a (T, T) tensor by another name)."""
    def tiled_attention(q, k, v, block_size, causal=False):
        B, H, T, D = q.shape
        kw = ({"device": q.device} if device else {}) | ({"dtype": q.dtype} if dtype else {})
        m, l, acc = torch.full((B, H, T, 1), float("-inf"), **kw), torch.zeros((B, H, T, 1), **kw), torch.zeros(B, H, T, D, **kw)
        rows = torch.arange(T, device=q.device).unsqueeze(1)
        whole = torch.einsum("bhqd,bhkd->bhqk", q, k) / math.sqrt(D) if einsum else None
        for start in range(0, T, block_size):
            kb, vb = k[:, :, start:start + block_size], v[:, :, start:start + block_size]
            s = whole[..., start:start + block_size] if einsum else q @ kb.transpose(-2, -1) / math.sqrt(D)
            if causal:
                s = s.masked_fill(torch.arange(start, start + kb.size(2), device=q.device) > rows, float("-inf"))
            m_new = torch.maximum(m, s.amax(dim=-1, keepdim=True))
            p, scale = torch.exp(s - m_new), torch.exp(m - m_new)
            l, acc, m = l * scale + p.sum(dim=-1, keepdim=True), acc * scale + p @ vb, m_new
        return acc / l
    return tiled_attention


def test_the_tiling_never_makes_the_whole_scores(lang, ref):
    checks.check_tiled_attention(_running())
    for untiled in (_untiled, _running(einsum=True)):
        fails_with(checks.check_tiled_attention, untiled, "hint_tiled_full")
        failure = fails(probes.tiled_attention, untiled, key="tiled_full_scores")
        assert failure.hint == "hint_tiled_full"


def test_the_running_tensors_follow_the_input(lang, ref):
    fails_with(checks.check_tiled_attention, _running(device=False), "hint_tiled_device")
    fails_with(checks.check_tiled_attention, _running(dtype=False), "hint_tiled_dtype")
    assert fails(probes.tiled_attention, _running(device=False)).hint == "hint_tiled_device"
    assert fails(probes.tiled_attention, _running(dtype=False)).hint == "hint_tiled_dtype"


def test_the_gqa_mask_is_made_on_the_input_device(lang, ref):
    class CpuMask(ref.GroupedQueryAttention):
        def forward(self, x):
            B, T, E = x.shape
            H, G, D = self.n_head, self.n_kv_head, self.head_dim
            q = self.q_proj(x).view(B, T, H, D).transpose(1, 2)
            k, v = (z.view(B, T, G, D).transpose(1, 2).repeat_interleave(H // G, dim=1)
                    for z in self.kv_proj(x).split(G * D, dim=2))
            keep = torch.ones(T, T, dtype=torch.bool).tril()          # no device=x.device
            w = torch.softmax((q @ k.transpose(-2, -1) / math.sqrt(D)).masked_fill(~keep, float("-inf")), dim=-1)
            return self.c_proj((w @ v).transpose(1, 2).reshape(B, T, E)), w

    fails_with(checks.check_gqa_module, CpuMask, "hint_mask_device")
    assert fails(probes.gqa, CpuMask).hint == "hint_mask_device"


def test_the_watch_cannot_be_reached_from_a_cell():
    """Taking the watch down needs torch's private dispatch modules or the course's own: the policy refuses both."""
    from attn_course.hand_policy import Cell, tampering
    for line in ("from torch.utils._python_dispatch import _disable_current_modes",
                 "course.score_watch.ScoreWatch.__torch_dispatch__ = lambda *a, **k: None"):
        assert tampering([Cell("setup", "import attn_course as course", True), Cell("cell 2", line, False)]), line


def test_counts_that_are_no_python_int_and_floats_are_told_apart(lang, ref):
    """An np.int64 has no `/` to blame (it was told about `/`); kv_cache_bytes' float gets its own example."""
    import numpy as np
    as_numpy = lambda *a: {k: np.int64(v) for k, v in ref.attention_flops(*a).items()}  # noqa: E731
    failure = fails_with(checks.check_attention_flops, as_numpy, "hint_count_python_int")
    assert " // " not in str(failure)
    assert fails(probes.attention_flops, as_numpy).hint == "hint_count_python_int"
    bits = lambda L, B, T, G, D, dt: 2 * L * B * T * G * D * (torch.finfo(dt).bits / 8 if dt.is_floating_point  # noqa: E731
                                                                else torch.iinfo(dt).bits / 8)
    fails_with(checks.check_kv_cache_bytes, bits, "hint_kv_float")
    assert fails(probes.kv_cache_bytes, bits).hint == "hint_kv_float"


def test_the_scale_hints_use_the_lessons_symbol(lang):
    """Lesson 6's prose says D, one head's width: its hints do too (they said d_k)."""
    from attn_course.messages import t
    for key in ("hint_no_scale_6", "hint_scale_d_6", "hint_scale_mul_6", "hint_scale_floor_6", "hint_scale_inverted_6"):
        assert "d_k" not in t(key) and "D" in t(key), key


def test_sdpa_on_the_naive_path_says_which_path_may_call_it(lang, ref4):
    class Naive(ref4.GPT2SelfAttention):
        def forward(self, x, use_sdpa=False):
            y, w = super().forward(x, True)
            return y, torch.zeros(x.size(0), self.n_head, x.size(1), x.size(1), dtype=x.dtype)
    fails_with(checks.check_gpt2_module, Naive, "hint_from_scratch_path", name="GPT2SelfAttention.forward",
               path="use_sdpa=True")


def _query_tiled(q, k, v, block_size, causal=False):
    """Queries tiled, every key at once: (block, T) scores and a plain softmax, no online one (the same values)."""
    B_, H_, T_, D_ = q.shape
    out = torch.empty_like(q)
    for i in range(0, T_, block_size):
        s = q[:, :, i:i + block_size] @ k.transpose(-2, -1) / math.sqrt(D_)
        if causal:
            rows = torch.arange(i, i + s.size(2), device=q.device).unsqueeze(1)
            s = s.masked_fill(torch.arange(T_, device=q.device) > rows, float("-inf"))
        out[:, :, i:i + block_size] = torch.softmax(s, dim=-1) @ v
    return out


def _keys_turned(q, k, v, block_size, causal=False):
    """Key blocks, right: scores made (block, T) as kb @ q.T and turned, running max and sum kept (B, H, T), the
    keys transposed once before the loop and the value sum an einsum."""
    B_, H_, T_, D_ = q.shape
    m = torch.full((B_, H_, T_), float("-inf"), dtype=q.dtype, device=q.device)
    l = torch.zeros((B_, H_, T_), dtype=q.dtype, device=q.device)
    acc, kT = torch.zeros_like(q), k.transpose(-2, -1)
    rows = torch.arange(T_, device=q.device).unsqueeze(1)
    for start in range(0, T_, block_size):
        kb = kT[..., start:start + block_size].transpose(-2, -1)
        s = (kb @ q.transpose(-2, -1)).transpose(-2, -1) / math.sqrt(D_)
        if causal:
            s = s.masked_fill(torch.arange(start, start + kb.size(2), device=q.device) > rows, float("-inf"))
        m_new = torch.maximum(m, s.amax(-1))
        p, scale = torch.exp(s - m_new[..., None]), torch.exp(m - m_new)
        l = l * scale + p.sum(-1)
        acc = acc * scale[..., None] + torch.einsum("bhqk,bhkd->bhqd", p, v[:, :, start:start + block_size])
        m = m_new
    return acc / l[..., None]


def _per_head(q, k, v, block_size, causal=False):
    """Key blocks, right, one (batch, head) at a time: 2-D products, each block's scores an einsum."""
    B_, H_, T_, D_ = q.shape
    out, rows = torch.empty_like(q), torch.arange(T_, device=q.device).unsqueeze(1)
    for b in range(B_):
        for h in range(H_):
            m = torch.full((T_, 1), float("-inf"), dtype=q.dtype, device=q.device)
            l, acc = torch.zeros_like(m), torch.zeros_like(q[b, h])
            for start in range(0, T_, block_size):
                kb, vb = k[b, h, start:start + block_size], v[b, h, start:start + block_size]
                s = torch.einsum("qd,kd->qk", q[b, h], kb) / math.sqrt(D_)
                if causal:
                    s = s.masked_fill(torch.arange(start, start + kb.size(0), device=q.device) > rows, float("-inf"))
                m_new = torch.maximum(m, s.amax(-1, keepdim=True))
                p, scale = torch.exp(s - m_new), torch.exp(m - m_new)
                l, acc, m = l * scale + p.sum(-1, keepdim=True), acc * scale + p @ vb, m_new
            out[b, h] = acc / l
    return out


def test_the_tiling_splits_the_keys_not_the_queries(lang, ref):
    """The text splits the keys and keeps the T queries whole: queries tiled against every key make scores whose
    key axis is T, and fail for that cause on both sides; key blocks computed another way pass."""
    failure = fails_with(checks.check_tiled_attention, _query_tiled, "hint_tiled_query_blocks")
    assert "T = 40" in str(failure)
    hidden = fails(probes.tiled_attention, _query_tiled, key="tiled_key_axis")
    assert hidden.hint == "hint_tiled_query_blocks"
    for right in (_keys_turned, _per_head):
        checks.check_tiled_attention(right)
        passes(probes.tiled_attention, right)
