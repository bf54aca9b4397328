"""Lesson 8's reference and its judges. Lives only in autograder/: never in a release, never in a kernel.

Each exercise is judged against the implementation a deployed model ships, built locally from a small config:
masks from transformers' masking_utils (sdpa_mask with the causal, padding, sliding-window and packed-sequence
mask functions: Mistral's and every model's rules), ALiBi from BLOOM's build_alibi_tensor, the learned sink from
GptOssAttention's eager path, MLA from DeepseekV3Attention, cache sizes from the tensors transformers' StaticCache
allocates. StreamingLLM is judged against the authors' cache policy (StartRecentKVCache, below) and the preallocated
cache against lesson 6's reference.

transformers computes DeepseekV3's RMSNorm and softmax in float32 whatever the input's dtype, so MLA agrees with it
in float64 to about 2e-7 here (lesson 8's tests measure it); the tolerance there is 1e-5, and a classic mistake is
off by 1e-2 or more.
"""
import torch
import torch.nn.functional as F
from attn_course.checks import lesson8 as checks
from attn_course.probes import lesson8 as probe
from attn_course.probes.cases import DTYPE_CASES
from attn_course.probes.rope import turn_with
from attn_course.judging import Mismatch, expect_close, expect_layout, matching_bug, naming
from attn_grader.judge import judge, judged_by, sibling

TOLERANCE = {"float64": 1e-9, "float32": 1e-4}
HF_TOLERANCE = {"float64": 1e-5, "float32": 1e-4}   # transformers' float32 internals (MLA)

# transformers' masks and the decoding exercises' helpers, in lesson8_common (this module would be over 600 lines)
_common = sibling(__file__, "lesson8_common")
quiet, hf_mask, causal_mask, cache_mask, padding_mask, window_mask, sdpa = (
    _common.quiet, _common.hf_mask, _common.causal_mask, _common.cache_mask, _common.padding_mask, _common.window_mask,
    _common.sdpa)
_expect_mask, _decoding_bug, _first_call, _no_nan, _partial_end = (
    _common.expect_mask, _common.decoding_bug, _common.first_call, _common.no_nan, _common.partial_end)
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


def _mla_bug(res, sizes, base):
    host = checks.MLAHost(*sizes).double()
    res.fill_parameters(host)
    x = probe.mla_input(res, "float64", torch.float64, sizes[0])
    with torch.no_grad():
        variants = checks.mla_variants(host, x, turn_with(base))
    return checks.all_nan([res["float64"]]) or \
        matching_bug(_no_nan(res["float64"]), {key: _no_nan(val) for key, val in variants.items()}, 1e-5)


# partial: a layer built nn.Linear(out, in) is named from the layout, as the check does
@judge("lesson8.mla", partial=True, on_error=checks.mla_error)
def judge_mla(res):
    sizes = probe.mla_sizes(res)
    base = probe.draw_base(res)
    attention, rotary = deepseek_attention(*sizes, base)
    expect_layout(res, attention)
    if "norm_eps" in res and res["norm_eps"] != attention.kv_a_layernorm.variance_epsilon:
        raise Mismatch("hint_mla_norm_eps", eps=res["norm_eps"])   # off by ~1e-5 on some seeds only: named here
    res.fill_parameters(attention)
    with naming(lambda: _mla_bug(res, sizes, base)):
        for case, dtype in DTYPE_CASES:
            attention.to(dtype)
            x = probe.mla_input(res, case, dtype, sizes[0])
            expect_close(f"MultiHeadLatentAttention ({case})", res[case], deepseek_forward(attention, rotary, x),
                         HF_TOLERANCE[case])


def _decode_bug(res, host, x, chunks, base):
    shapes = res["cache_shapes"]
    if any(s and isinstance(s[0], list) and len(s[0]) == 4 for s in shapes):
        return ("hint_mla_cache_expanded", {"r": host.kv_lora_rank, "dr": host.qk_rope_head_dim, "h": host.n_head})
    with torch.no_grad():
        first = chunks[0][1]
        return checks.all_nan(res["outputs"]) or _decoding_bug(res, checks.ABSORBED_BUGS, lambda **bug: [y for y, _ in checks.absorbed_run(
            host, x, chunks, turn_with(base), **bug)], 1e-5) or \
            _first_call(res, *checks.mla_qkv(host, x[:, :first], turn_with(base)),
                        checks.grid(first, first)[0] >= checks.grid(first, first)[1], host.o_proj, 1e-5)


# partial: the calls before one that raised are judged as the check judges them; a shape error is named from the
# shapes the probe watched (mla_decode's mask the other way round, its cache not joined), whatever the sizes.
@judge("lesson8.mla_decode", on_error=checks.decode_error, partial=True)
def judge_mla_decode(res):
    host, x, chunks, base = probe.decode_setup(res)
    if "result" in res:
        raise Mismatch("returned_not_cache_pair", name="mla_decode", kind=type(res["result"]).__name__,
                       hint=("hint_cache_pair_order", {"name": "mla_decode"})
                       if checks.cache_pair_swapped(res["result"], 2) else None)
    b, n, e = x.shape
    r, dr = host.kv_lora_rank, host.qk_rope_head_dim
    attention, rotary = deepseek_attention(e, host.n_head, r, host.qk_nope_head_dim, dr, host.v_head_dim, base)
    attention.double().load_state_dict(host.state_dict())
    full = deepseek_forward(attention, rotary, x)
    outputs, shapes = res["outputs"], res["cache_shapes"]
    if not isinstance(outputs, list) or not isinstance(shapes, list) or len(outputs) > len(chunks) \
            or len(shapes) != len(outputs):
        raise Mismatch("hidden_mismatch", case="mla_decode", err=float("inf"))
    with naming(lambda: _decode_bug(res, host, x, chunks, base)):
        for (lo, hi), got, shape in zip(chunks, outputs, shapes):
            if shape != [[b, hi, r], [b, hi, dr]]:
                found = next((checks.latent_shape_hint(s, b, hi, width, r, dr, host.n_head)
                              for s, width in zip(shape, (r, dr)) if isinstance(s, list) and s != [b, hi, width]),
                             None) if isinstance(shape, list) else None
                raise Mismatch("hidden_latent_shape", hint=None if found is None else found if found[1] else found[0],
                               n=hi, want=[(b, hi, r), (b, hi, dr)], got=shape)
            sizes = f"H={host.n_head}, r={r}, d_rope={dr}, base={base:g}"
            case = ("case_cache_token" if hi - lo == 1 else "case_cache_tokens",
                    {"name": "mla_decode", "sizes": sizes, "lo": lo, "last": hi - 1})
            expect_close(case, got, full[:, lo:hi], HF_TOLERANCE["float64"])
    _partial_end(res, chunks, "raised_cause")
    with naming(lambda: _decode_bug(res, host, x, chunks, base)):
        # The latent cache: DeepseekV3Attention's own normalised latent and rotated shared key.
        c, k_rot = attention.kv_a_proj_with_mqa(x).split([r, dr], -1)
        cos, sin = rotary(x, torch.arange(n)[None])
        from transformers.models.deepseek_v3.modeling_deepseek_v3 import apply_rotary_pos_emb
        with torch.no_grad():
            want = (attention.kv_a_layernorm(c), apply_rotary_pos_emb(k_rot[:, None], k_rot[:, None], cos, sin)[0][:, 0])
        for part, got, w in zip(("c", "k_R"), res["cache"], want):
            expect_close(("case_cache_part", {"name": "mla_decode", "n": n, "part": part}), got, w,
                         HF_TOLERANCE["float64"])
    if "expands_heads" in res and res["expands_heads"] is True:   # right numbers, per-head keys or values made
        raise Mismatch("mla_not_absorbed", hint="hint_mla_not_absorbed")


# --------------------------------------------------------------------------- a preallocated cache (lesson 6)
def _static_bug(res, host, x, chunks, t_max):
    if checks.all_nan(res["outputs"]):
        return checks.all_nan(res["outputs"])
    for key, flags in checks.STATIC_BUGS.items():
        outs, buffers = checks.static_run(host, x, chunks, t_max, **flags)
        if all(matching_bug(g, {"x": o}, 1e-9) for g, o in zip(res["outputs"], outs)) and \
                matching_bug(res["buffers"], {"x": buffers}, 1e-9):
            return key[0] if isinstance(key, tuple) else key   # (hint, which variant of it)
    buffers = res["buffers"]
    return checks.buffers_hint(*buffers) if isinstance(buffers, tuple) and len(buffers) == 2 else None


# partial: the calls before one that raised, and the buffers they left, are judged as the check judges them
@judge("lesson8.attend_preallocated", on_error=checks.static_error, partial=True)
def judge_attend_preallocated(res):
    host, x, chunks, t_max = probe.static_setup(res)
    b, n, e = x.shape
    h = host.n_head
    attend_with_cache = sibling(__file__, "kv_cache").attend_with_cache
    with torch.no_grad():
        full, (k_all, v_all) = attend_with_cache(host, x)
    outputs = res["outputs"]
    if not isinstance(outputs, list) or len(outputs) > len(chunks):
        raise Mismatch("hidden_mismatch", case="attend_preallocated", err=float("inf"))
    first = chunks[0][1]
    with torch.no_grad():
        first_qkv = checks.gpt2_qkv(host, x[:, :first])
    with naming(lambda: _static_bug(res, host, x, chunks, t_max)
                or _first_call(res, *first_qkv, checks.grid(first, first)[0] >= checks.grid(first, first)[1],
                               host.c_proj)):
        for (lo, hi), got in zip(chunks, outputs):
            case = ("case_cache_token" if hi - lo == 1 else "case_cache_tokens",
                    {"name": "attend_preallocated", "sizes": f"B={b}, H={h}, T_max={t_max}", "lo": lo, "last": hi - 1})
            expect_close(case, got, full[:, lo:hi], 1e-9)
        buffers = res["buffers"]
        if outputs and len(outputs) < len(chunks) and isinstance(buffers, tuple) and len(buffers) == 2:
            hint = checks.buffers_hint(*buffers)   # the next call raised: what the calls before left, as the check
            if hint:
                raise Mismatch("static_buffer_differs", n=chunks[len(outputs) - 1][1], hint=hint)
        _partial_end(res, chunks)
        pad = x.new_zeros(b, h, t_max - n, e // h)
        for part, got, want in zip("KV", buffers if isinstance(buffers, tuple) else (None, None), (k_all, v_all)):
            expect_close(("case_buffer", {"part": part, "n": n}), got, torch.cat([want, pad], 2), 1e-9)


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


def _paged_bug(res, size, h, d, n_pages, table, new, chunks):
    pages = res["pages"]
    for key, flags in checks.PAGED_WRITE_BUGS.items():
        written = checks.paged_written(new, n_pages, size, h, d, chunks, table, **flags)
        if written is not None and matching_bug(pages, {"x": written}, 0.0):
            return key
    filled = res.randn("filled", n_pages, size, h, d)
    for length in probe.gather_lengths(new.size(0), size):
        got = res[f"gather.{length}"]
        hint = checks.paged_length_hint(got, length, size)
        if hint:
            return hint
        for key, flags in checks.PAGED_GATHER_BUGS.items():
            if matching_bug(got, {"x": checks.paged_gather_ref(filled, table, length, **flags)}, 0.0):
                return key
    return None


@judge("lesson8.paged_cache", on_error=checks.paged_error)
def judge_paged_cache(res):
    size, h, d, n_pages, table, new, chunks = probe.paged_setup(res)
    with naming(lambda: _paged_bug(res, size, h, d, n_pages, table, new, chunks)):
        pages = torch.zeros(n_pages, size, h, d, dtype=torch.float64)
        for lo, hi in chunks:
            paged_write(pages, table, lo, new[lo:hi])
        expect_close(("case_pages", {"n": new.size(0), "size": size}), res["pages"], pages, 0.0)
        filled = res.randn("filled", n_pages, size, h, d)
        for length in probe.gather_lengths(new.size(0), size):
            expect_close(f"paged_gather(pages, block_table, {length})", res[f"gather.{length}"],
                         paged_gather(filled, table, length), 0.0)


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


@judge("lesson8.packed", on_error=checks.packed_error)
def judge_packed(res):
    cu, q, k, v, base = probe.packed_setup(res)
    with quiet():
        positions, mask = packed_reference(cu)
    got = res["positions"]
    variants = checks.positions_variants(cu)
    if not (isinstance(got, torch.Tensor) and got.shape == positions.shape and not got.is_floating_point()):
        raise Mismatch("packed_positions_shape", n=len(positions), got=checks.positions_kind(got))
    if not torch.equal(got, positions):
        raise Mismatch("packed_positions_differ", hint=checks.positions_hint(got, variants), got=got.tolist(),
                       want=positions.tolist())
    _expect_mask("document_mod", res["mask"], mask, checks.document_variants(cu), rules=checks.document_rules(cu))
    expect_close("flex_attention(…, document_mod)", res["flex"], packed_alone(q, k, v, cu, turn_with(base)), 1e-9)


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


@judge("lesson8.cache_bytes", on_error=checks.bytes_error)
def judge_cache_bytes(res):
    cases = probe.bytes_cases(res)
    gots = [res[f"bytes.{i}"] for i in range(len(cases))]
    for i, (config, n, batch, dtype) in enumerate(cases):
        got, want = gots[i], static_cache_bytes(config, n, batch, dtype)
        if isinstance(got, float):   # a byte count is a whole number: 4536.0 is no answer, whatever it equals
            raise Mismatch("hint_return_not_int", name=f"cache_bytes({config}, T={n}, batch={batch}, dtype={dtype})",
                           got=repr(got))
        if isinstance(got, bool) or not isinstance(got, int) or got != want:
            hint = checks.bytes_hint(cases, gots, i) if isinstance(got, int) else None
            raise Mismatch("bytes_differs", hint=hint, config=config, T=n, batch=batch, dtype=dtype, got=got, want=want)


def cache_bytes(config, T, batch=1, dtype=torch.bfloat16):
    """The formula the lesson states, which StaticCache's allocations match (tests/test_lesson8.py)."""
    return checks.cache_bytes_ref(config, T, batch, dtype)
