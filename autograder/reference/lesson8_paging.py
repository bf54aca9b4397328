"""Lesson 8's references for attention read page by page through a block table (exercise 13) and for rows
of different lengths decoded from one cache (exercise 14). Lives only in autograder/, loaded by lesson8.py.

Exercise 13 is judged against vLLM's own reference for its paged decode kernels, as its kernel tests state it
(tests/kernels/attention/test_attention.py, ref_single_query_cached_kv_attention): each sequence's one query, its
keys found token by token at block_table[j // block_size], slot j % block_size, up to its seq_len, then a softmax
of scale · q·k. The pages are in the layout of vLLM's FlashAttention backend's cache ([num_blocks, block_size,
num_kv_heads, head_size], as ref_paged_attn in test_flash_attn.py reads it); vLLM's tests draw their block tables at
random, as the probe does. vLLM itself cannot be installed here (its wheels are CUDA builds), so the reference is
written from those tests; tests/test_lesson8_paging.py checks it against attention over each sequence's own keys.

Each is judged by its exercise's procedure (attn_course.probes.lesson8_memory) given the reference here; the visible
check runs the same procedure with the right answer the course's public facts give.

Exercise 14 is judged against transformers' masking_utils: the padding mask a model builds from a 2-D attention mask
(1 where a slot holds a token of that row) with its causal mask, for one query after every slot, applied by SDPA.
"""
import torch
import torch.nn.functional as F
from attn_course.checks import lesson8 as checks
from attn_course.probes import lesson8_memory as procedures
from attn_grader.judge import judged_by, sibling

_common = sibling(__file__, "lesson8_common")


# --------------------------------------------------------------------------- exercise 13: vLLM's paged decode
def paged_decode(q, k_pages, v_pages, block_tables, seq_lens):
    """vLLM's single-query reference over the flash layout: (N, H, D)."""
    size = k_pages.size(1)
    outs = []
    for i, seq_len in enumerate(seq_lens.tolist()):
        table = block_tables[i].tolist()
        slots = [(table[j // size], j % size) for j in range(seq_len)]        # block number, block offset
        keys = torch.stack([k_pages[block, offset] for block, offset in slots])       # (seq_len, H, D)
        values = torch.stack([v_pages[block, offset] for block, offset in slots])
        weights = torch.softmax(torch.einsum("hd,khd->hk", q[i], keys) * q.size(-1) ** -0.5, dim=-1)
        outs.append(torch.einsum("hk,khd->hd", weights, values))
    return torch.stack(outs)


judged_by("lesson8.paged_decode", procedures.judge_paged_decode, paged_decode)


# --------------------------------------------------------------------------- exercise 14: transformers' padding mask
def batched_step(q, k_new, v_new, k_cache, v_cache, lengths):
    """One step: each row's new key and value at its own length, then SDPA with the mask transformers builds from a
    2-D attention mask marking each row's filled slots, for one query after every slot (q_offset = T_max − 1)."""
    from transformers.masking_utils import causal_mask_function
    b, t_max = k_cache.size(0), k_cache.size(2)
    k_all, v_all = checks.write_rows(k_cache, v_cache, k_new, v_new, lengths)
    filled = torch.arange(t_max)[None, :] < (lengths + 1)[:, None]
    with _common.quiet():
        mask = _common.hf_mask(causal_mask_function, 1, t_max, q_offset=t_max - 1, batch=b, attention_mask=filled)
    return F.scaled_dot_product_attention(q, k_all, v_all, attn_mask=mask)


judged_by("lesson8.decode_batched", procedures.judge_decode_batched, batched_step)
