"""Lesson 8's reference and its judges. Lives only in autograder/: never in a release, never in a kernel.

Each exercise is judged against the implementation a deployed model ships, built locally from a small config:
masks from transformers' masking_utils (sdpa_mask with the causal, padding, sliding-window and packed-sequence
mask functions: Mistral's and every model's rules), ALiBi from BLOOM's build_alibi_tensor, the learned sink from
GptOssAttention's eager path, MLA from DeepseekV3Attention, cache sizes from the tensors transformers' StaticCache
allocates. StreamingLLM is judged against the authors' cache policy (StartRecentKVCache, below) and the preallocated
cache against lesson 6's reference.

MLA's exercises, the preallocated cache, the paged cache, packed sequences and the cache's bytes are judged by their
procedures (attn_course.probes.lesson8_mla, lesson8_memory) given the references here.
"""
import torch
import torch.nn.functional as F
from attn_course.checks import lesson8 as checks
from attn_course.probes import lesson8 as probe
from attn_course.probes import lesson8_memory as procedures
from attn_course.probes import lesson8_mla as mla_procedures
from attn_grader.judge import judged_by, sibling

# transformers' masks and the decoding exercises' helpers, in lesson8_common (this module would be over 600 lines)
_common = sibling(__file__, "lesson8_common")
quiet, hf_mask, causal_mask, cache_mask, padding_mask, window_mask, sdpa = (
    _common.quiet, _common.hf_mask, _common.causal_mask, _common.cache_mask, _common.padding_mask, _common.window_mask,
    _common.sdpa)
gpt_oss_attention = _common.gpt_oss_attention
# Exercises 13 to 16 (attention over pages, rows of different lengths, a sink after FlexAttention, Gemma 2's
# softcap): their judges register as the module loads.
sibling(__file__, "lesson8_paging")
sibling(__file__, "lesson8_fused")


# The masks exercise 1's mods must make: transformers' causal mask, the same under a cache, and padded keys hidden.
MASKS = (causal_mask, cache_mask, padding_mask)


# --------------------------------------------------------------------------- ALiBi (BLOOM)
def bloom_alibi(q, k, v, slopes=None):
    """Causal attention with BLOOM's ALiBi: build_alibi_tensor gives m_h · j, which differs from −m_h (i − j) by
    m_h · i in each row, a constant the softmax does not see. BLOOM computes its slopes in float32 whatever the
    dtype (not the slopes given), so in float64 it agrees with exact slopes to about 1e-7 (8e-8 measured with 12 heads):
    judged at 1e-6."""
    from transformers.models.bloom.modeling_bloom import build_alibi_tensor
    b, h, n, _ = q.shape
    bias = build_alibi_tensor(torch.ones(b, n), h, q.dtype).view(b, h, 1, n)
    return sdpa(q, k, v, checks.grid(n, n)[0] >= checks.grid(n, n)[1], bias)


# --------------------------------------------------------------------------- a rolling cache
def sliding_attention(q, k, v, window, turn):
    """Sliding-window attention over the whole sequence at once, RoPE at 0 … T−1, Mistral's mask."""
    n = q.size(2)
    q, k = turn(q, k, torch.arange(n))
    return sdpa(q, k, v, window_mask(window, n, 0))


# --------------------------------------------------------------------------- StreamingLLM (Xiao et al.)
class StartRecentKVCache:
    """The authors' cache policy (mit-han-lab/streaming-llm, streaming_llm/kv_cache.py), for (B, H, T, D) tensors:
    before num_coming new tokens, keep the first start_size and the last recent_size − num_coming."""

    def __init__(self, start_size, recent_size):
        self.start_size, self.recent_size, self.cache_size = start_size, recent_size, start_size + recent_size

    def evict_for_space(self, past, num_coming):
        seq_len = past[0].size(2)
        if seq_len + num_coming <= self.cache_size:
            return past
        cut = seq_len - self.recent_size + num_coming
        return tuple(torch.cat([x[:, :, :self.start_size], x[:, :, cut:]], dim=2) for x in past)


def streaming_attention(q, k, v, chunks, n_sink, window, turn):
    """Each call's output: evict, append the raw keys, turn every key at its position in the cache (the paper's
    section 3.2: positions within the cache, keys cached before rotation)."""
    policy, past, outputs, lengths = StartRecentKVCache(n_sink, window), None, [], []
    for lo, hi in chunks:
        new = (k[:, :, lo:hi], v[:, :, lo:hi])
        past = new if past is None else tuple(torch.cat([a, b], 2)
                                              for a, b in zip(policy.evict_for_space(past, hi - lo), new))
        total = past[0].size(2)
        q_rot = turn(q[:, :, lo:hi], q[:, :, lo:hi], torch.arange(total - (hi - lo), total))[0]
        k_rot = turn(past[0], past[0], torch.arange(total))[1]
        keep = torch.ones(hi - lo, total, dtype=torch.bool).tril(diagonal=total - (hi - lo))
        outputs.append(sdpa(q_rot, k_rot, past[1], keep))
        lengths.append(total)
    return outputs, lengths


# --------------------------------------------------------------------------- judges
# Each is the exercise's public procedure (attn_course.probes.lesson8) given this reference: the visible check runs
# the same procedure with the right answer the lesson's formulas give.
judged_by("lesson8.mask_mods", probe.judge_mask_mods, MASKS)
judged_by("lesson8.alibi_score_mod", probe.judge_alibi_score_mod, bloom_alibi)
judged_by("lesson8.sliding_window_mod", probe.judge_sliding_window_mod, window_mask)
judged_by("lesson8.attend_rolling", probe.judge_attend_rolling, sliding_attention)
judged_by("lesson8.attend_streaming", probe.judge_attend_streaming, streaming_attention)
judged_by("lesson8.sink_attention", probe.judge_sink_attention, gpt_oss_attention)


# --------------------------------------------------------------------------- MLA (DeepSeek-V3)
def deepseek_attention(e, h, r, dn, dr, dv, base):
    """transformers' DeepseekV3Attention without q_lora_rank, in Llama's RoPE layout (rope_interleave=False)."""
    from transformers import DeepseekV3Config
    from transformers.models.deepseek_v3.modeling_deepseek_v3 import DeepseekV3Attention, DeepseekV3RotaryEmbedding
    config = DeepseekV3Config(hidden_size=e, num_attention_heads=h, num_key_value_heads=h, q_lora_rank=None,
                              kv_lora_rank=r, qk_nope_head_dim=dn, qk_rope_head_dim=dr, v_head_dim=dv,
                              rope_interleave=False, attention_bias=False, num_hidden_layers=1,
                              rope_parameters={"rope_type": "default", "rope_theta": base})
    config._attn_implementation = "eager"   # a standalone module gets no implementation chosen for it
    return DeepseekV3Attention(config, layer_idx=0).eval(), DeepseekV3RotaryEmbedding(config)


def deepseek_forward(attention, rotary, x):
    """DeepseekV3Attention's output for x (B, T, E), causal, positions 0 … T−1."""
    n = x.size(1)
    cos, sin = rotary(x, torch.arange(n)[None])
    keep = checks.grid(n, n)[0] >= checks.grid(n, n)[1]
    mask = torch.zeros(n, n, dtype=x.dtype).masked_fill(~keep, float("-inf"))[None, None]
    with torch.no_grad():
        return attention(x, (cos, sin), mask)[0]


def deepseek_mla(sizes, base):
    """DeepseekV3Attention of these sizes, and its causal output for x (B, T, E) with RoPE at base."""
    attention, rotary = deepseek_attention(*sizes, base)
    return attention, lambda x: deepseek_forward(attention, rotary, x)


def deepseek_decode(host, x, base):
    """DeepseekV3Attention with the host's weights: its output for all of x, and the latent cache it computes (its
    own normalised latent and rotated shared key)."""
    from transformers.models.deepseek_v3.modeling_deepseek_v3 import apply_rotary_pos_emb
    n, e = x.shape[1:]
    r, dr = host.kv_lora_rank, host.qk_rope_head_dim
    attention, rotary = deepseek_attention(e, host.n_head, r, host.qk_nope_head_dim, dr, host.v_head_dim, base)
    attention.double().load_state_dict(host.state_dict())
    with torch.no_grad():
        c, k_rot = attention.kv_a_proj_with_mqa(x).split([r, dr], -1)
        cos, sin = rotary(x, torch.arange(n)[None])
        k_rot = apply_rotary_pos_emb(k_rot[:, None], k_rot[:, None], cos, sin)[0][:, 0]
        return deepseek_forward(attention, rotary, x), (attention.kv_a_layernorm(c), k_rot)


judged_by("lesson8.mla", mla_procedures.judge_mla, deepseek_mla)
judged_by("lesson8.mla_decode", mla_procedures.judge_mla_decode, deepseek_decode)


# --------------------------------------------------------------------------- a preallocated cache (lesson 6)
judged_by("lesson8.attend_preallocated", procedures.judge_attend_preallocated,
          sibling(__file__, "kv_cache").attend_with_cache)


# --------------------------------------------------------------------------- a paged cache (vLLM)
def paged_write(pages, block_table, start, new):
    """vLLM's slot mapping: token p goes to slot block_table[p // P] · P + p % P of the flattened pages."""
    size = pages.size(1)
    flat = pages.view(-1, *pages.shape[2:])
    for i in range(new.size(0)):
        p = start + i
        flat[int(block_table[p // size]) * size + p % size] = new[i]


def paged_gather(pages, block_table, length):
    size = pages.size(1)
    return torch.stack([pages[int(block_table[p // size]), p % size] for p in range(length)])


judged_by("lesson8.paged_cache", procedures.judge_paged_cache, (paged_write, paged_gather))


# --------------------------------------------------------------------------- packed sequences
def packed_reference(cu):
    """Positions restarting in each document, and transformers' packed-sequence mask (documents found from them by
    find_packed_sequence_indices, as a model given such position_ids finds them) with its causal mask."""
    from transformers.masking_utils import (
        and_masks, causal_mask_function, find_packed_sequence_indices, packed_sequence_mask_function,
    )
    n = int(cu[-1])
    lengths = (cu[1:] - cu[:-1]).tolist()
    positions = torch.cat([torch.arange(m) for m in lengths])
    docs = torch.repeat_interleave(torch.arange(len(lengths)), torch.tensor(lengths))[None]
    found = find_packed_sequence_indices(positions[None])
    # Two documents of one token each in a row look like one document from positions alone; cu_seqlens says more.
    docs = found if found is not None and torch.equal(found, docs) else docs
    mask = hf_mask(and_masks(packed_sequence_mask_function(docs), causal_mask_function), n, n)
    return positions, mask


def packed_alone(q, k, v, cu, turn):
    outs = []
    for lo, hi in zip(cu[:-1].tolist(), cu[1:].tolist()):
        qq, kk = turn(q[:, :, lo:hi], k[:, :, lo:hi], torch.arange(hi - lo))
        outs.append(F.scaled_dot_product_attention(qq, kk, v[:, :, lo:hi], is_causal=True))
    return torch.cat(outs, 2)


def packed_layout(cu):
    with quiet():
        return packed_reference(cu)


judged_by("lesson8.packed", procedures.judge_packed, (packed_layout, packed_alone))


# --------------------------------------------------------------------------- what a cache costs (StaticCache)
def static_cache_bytes(config: dict, T: int, batch: int, dtype) -> int:
    """The bytes transformers' StaticCache allocates for a model of this shape (sliding layers hold
    min(W, T) tokens; DeepseekV3 caches its latent and the shared rotated key), filled once per layer."""
    from transformers import DeepseekV3Config, GptOssConfig, StaticCache
    n_layer = config["n_layer"]
    if "latent_dim" in config:
        model = DeepseekV3Config(num_hidden_layers=n_layer, hidden_size=8, num_attention_heads=1)
        shapes = ((1, 1, config["latent_dim"] - 1), (1, 1, 1))         # (c_kv, k_rot): r + d_rope = latent_dim
    else:
        window, sliding = config.get("window"), config.get("window_layers", n_layer if config.get("window") else 0)
        types = ["sliding_attention"] * sliding + ["full_attention"] * (n_layer - sliding)
        # Only the layer types matter here: each layer allocates its buffers from the first tensors it is given.
        model = GptOssConfig(num_hidden_layers=n_layer, hidden_size=8, num_attention_heads=2, num_key_value_heads=2,
                             head_dim=4, sliding_window=window or T, layer_types=types)
        shapes = ((config["n_kv_head"], 1, config["head_dim"]),) * 2
    cache, total = StaticCache(config=model, max_cache_len=T), 0
    for layer in cache.layers:
        layer.update(*(torch.zeros(batch, *s, dtype=dtype) for s in shapes))
        total += sum(z.numel() * z.element_size() for z in (layer.keys, layer.values))
    return total


judged_by("lesson8.cache_bytes", procedures.judge_cache_bytes, static_cache_bytes)


def cache_bytes(config, T, batch=1, dtype=torch.bfloat16):
    """The formula the lesson states, which StaticCache's allocations match (tests/test_lesson8.py)."""
    return checks.cache_bytes_ref(config, T, batch, dtype)
