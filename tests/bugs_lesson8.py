"""Lesson 8's graded submissions: one per classic bug, a replacement in one solution cell of the ja source.

tests/test_lesson8.py re-exports BUGS, where conftest.class_bugs looks for every lesson's.
"""
from conftest import Bug

# Exercise 9's lines after the projections, which the torch.cat bug replaces as a whole.
STATIC_WRITE = (
    "    k_buf[:, :, T_past:T_all] = k\n"
    "    v_buf[:, :, T_past:T_all] = v\n"
    "    keep = torch.ones(T_new, T_all, dtype=torch.bool, device=x_new.device).tril(diagonal=T_past)\n"
    "    scores = (q @ k_buf[:, :, :T_all].transpose(-2, -1) / math.sqrt(D)).masked_fill(~keep, float(\"-inf\"))\n"
    "    y = (torch.softmax(scores, dim=-1) @ v_buf[:, :, :T_all])"
)
STATIC_CAT = (
    "    keys, values = torch.cat([k_buf[:, :, :T_past], k], dim=2), torch.cat([v_buf[:, :, :T_past], v], dim=2)\n"
    "    keep = torch.ones(T_new, T_all, dtype=torch.bool, device=x_new.device).tril(diagonal=T_past)\n"
    "    scores = (q @ keys.transpose(-2, -1) / math.sqrt(D)).masked_fill(~keep, float(\"-inf\"))\n"
    "    y = (torch.softmax(scores, dim=-1) @ values)"
)

BUGS = {
    "rope_direction": Bug("ex0_apply_rope", "torch.cat([-x[..., D // 2:], x[..., :D // 2]], dim=-1)",
                          "torch.cat([x[..., D // 2:], -x[..., :D // 2]], dim=-1)", {"ex0_apply_rope_tests"},
                          "pasted apply_rope turning the other way"),
    "rope_positions_ignored": Bug("ex0_apply_rope", "positions.to(q.device, torch.float64)",
                                  "torch.arange(q.size(-2), device=q.device, dtype=torch.float64)",
                                  {"ex0_apply_rope_tests"}, "pasted apply_rope at 0, 1, 2, … whatever `positions` says"),
    "mods_causal_strict": Bug("ex1_mask_mods", "    return q_idx >= kv_idx\n", "    return q_idx > kv_idx\n",
                              {"ex1_mask_mods_tests"}, "causal_mod hides the diagonal too (`>`)"),
    "mods_cache_top_left": Bug("ex1_mask_mods", "q_idx + T_past >= kv_idx", "q_idx >= kv_idx", {"ex1_mask_mods_tests"},
                               "cache_mod without `T_past` (top-left, as `is_causal=True`)"),
    "mods_padding_queries": Bug("ex1_mask_mods", "(kv_idx < lengths[b])", "(q_idx < lengths[b])",
                                {"ex1_mask_mods_tests"}, "padding hidden on the queries' side"),
    "mods_padding_off_by_one": Bug("ex1_mask_mods", "(kv_idx < lengths[b])", "(kv_idx <= lengths[b])",
                                   {"ex1_mask_mods_tests"}, "padding off by one, `<=`"),
    "mods_python_and": Bug("ex1_mask_mods", "(q_idx >= kv_idx) & (kv_idx < lengths[b])",
                           "q_idx >= kv_idx and kv_idx < lengths[b]", {"ex1_mask_mods_tests"},
                           "Python `and` in a mask_mod (vmap cannot branch)"),
    "alibi_mod_sign": Bug("ex2_alibi_score_mod", "score - slopes[h] * (q_idx - kv_idx)",
                          "score + slopes[h] * (q_idx - kv_idx)", {"ex2_alibi_score_mod_tests"},
                          "ALiBi bias +m·(i − j): far keys favoured"),
    "alibi_mod_score_dropped": Bug("ex2_alibi_score_mod", "return score - slopes[h] * (q_idx - kv_idx)",
                                   "return -slopes[h] * (q_idx - kv_idx)", {"ex2_alibi_score_mod_tests"},
                                   "score_mod returns the bias alone, the score dropped"),
    "alibi_mod_batch": Bug("ex2_alibi_score_mod", "slopes[h]", "slopes[b]", {"ex2_alibi_score_mod_tests"},
                           "slopes picked by the batch index `b`"),
    "window_plus_one": Bug("ex3_sliding_window", "(kv_idx > p - window)", "(kv_idx >= p - window)",
                           {"ex3_sliding_window_tests"}, "window of W + 1 keys (`>=`)"),
    "window_no_causal": Bug("ex3_sliding_window", "(kv_idx <= p) & (kv_idx > p - window)", "kv_idx > p - window",
                            {"ex3_sliding_window_tests"}, "window without its causal half"),
    "window_top_left": Bug("ex3_sliding_window", "p = q_idx + T_past", "p = q_idx", {"ex3_sliding_window_tests"},
                           "window without `T_past` (top-left with a cache)"),
    "rolling_positions_restart": Bug("ex4_rolling_cache", "torch.arange(T_seen, T_seen + T_new, device=q.device)",
                                     "torch.arange(T_new, device=q.device)", {"ex4_rolling_cache_tests"},
                                     "ring cache: positions restart at 0 on every call"),
    "rolling_window_plus_one": Bug("ex4_rolling_cache", "(key_pos > p - window)", "(key_pos >= p - window)",
                                   {"ex4_rolling_cache_tests"}, "ring cache sees W + 1 keys"),
    "rolling_empty_slots": Bug("ex4_rolling_cache", "keep = (key_pos >= 0) & ", "keep = ",
                               {"ex4_rolling_cache_tests"}, "empty slots (position −1) attended"),
    "rolling_grows": Bug("ex4_rolling_cache", "    return out, (k_ring, v_ring, pos)",
                         "    return out, (keys, values, key_pos)", {"ex4_rolling_cache_tests"},
                         "the joined keys returned as the cache: it grows"),
    "rolling_no_modulo": Bug("ex4_rolling_cache", "slots = positions[-last:] % window", "slots = positions[-last:]",
                             {"ex4_rolling_cache_tests"}, "slot = position, without `% window`"),
    "stream_no_sink": Bug("ex5_streaming_cache",
                          "            k_old = torch.cat([k_old[:, :, :n_sink], k_old[:, :, L - recent:]], dim=2)\n"
                          "            v_old = torch.cat([v_old[:, :, :n_sink], v_old[:, :, L - recent:]], dim=2)",
                          "            k_old = k_old[:, :, L - n_sink - recent:]\n"
                          "            v_old = v_old[:, :, L - n_sink - recent:]", {"ex5_streaming_cache_tests"},
                          "StreamingLLM without sinks: the oldest tokens evicted"),
    "stream_budget": Bug("ex5_streaming_cache", "L, recent = k_old.size(2), window - T_new",
                         "L, recent = k_old.size(2), window", {"ex5_streaming_cache_tests"},
                         "no room made for the new tokens: the cache passes n_sink + window"),
    "stream_rotated_cache": Bug("ex5_streaming_cache",
                                "    q_rot, _ = rope(q, q, positions[L_all - T_new:])\n    _, k_rot = rope(k, k, positions)",
                                "    q_rot, k_new = rope(q, k[:, :, L_all - T_new:], positions[L_all - T_new:])\n"
                                "    k = torch.cat([k[:, :, :L_all - T_new], k_new], dim=2)\n    k_rot = k",
                                {"ex5_streaming_cache_tests"}, "keys cached after rotation (lesson 7's way)"),
    "sink_missing": Bug("ex6_sink_attention", "torch.softmax(torch.cat([scores, sink], dim=-1), dim=-1)[..., :-1]",
                        "torch.softmax(scores, dim=-1)", {"ex6_sink_attention_tests"}, "the sink column never added"),
    "sink_scaled": Bug("ex6_sink_attention", "sink = sinks.view(1, -1, 1, 1).expand(*scores.shape[:-1], 1)",
                       "sink = (sinks.view(1, -1, 1, 1) / math.sqrt(q.size(-1))).expand(*scores.shape[:-1], 1)",
                       {"ex6_sink_attention_tests"}, "sink logit divided by √D"),
    "sink_wrong_column": Bug("ex6_sink_attention", "dim=-1)[..., :-1]", "dim=-1)[..., 1:]",
                             {"ex6_sink_attention_tests"}, "the first key's weight dropped instead of the sink's"),
    "sink_through_sdpa": Bug("ex6_sink_attention", "    return weights @ v, weights",
                             "    zero = torch.zeros_like(k[:, :, :1])\n"
                             "    bias = torch.cat([scores - q @ k.transpose(-2, -1) / math.sqrt(q.size(-1)), sink], dim=-1)\n"
                             "    y = F.scaled_dot_product_attention(q, torch.cat([k, zero], 2), torch.cat([v, zero], 2),"
                             " attn_mask=bias)\n"
                             "    return y, weights", {"ex6_sink_attention_tests"},
                             "right numbers through SDPA (a zero-valued key scored s_h): not by hand"),
    "mla_no_norm": Bug("ex7_mla", "        c = self.kv_a_layernorm(c)\n", "", {"ex7_mla_tests"},
                       "latent not normalised (kv_a_layernorm unused)"),
    "mla_scale_nope": Bug("ex7_mla", "/ math.sqrt(d_C + d_R)", "/ math.sqrt(d_C)", {"ex7_mla_tests"},
                          "scores divided by √d_C, not √(d_C + d_R)"),
    "mla_kv_split": Bug("ex7_mla", "k_C, v = self.kv_b_proj(c).view(B, T, H, d_C + d_V).transpose(1, 2).split([d_C, d_V], dim=-1)",
                        "v, k_C = self.kv_b_proj(c).view(B, T, H, d_C + d_V).transpose(1, 2).split([d_V, d_C], dim=-1)",
                        {"ex7_mla_tests"}, "kv_b_proj's output split as (v, k_C)"),
    "mla_q_split": Bug("ex7_mla", "q_C, q_R = self.q_proj(x).view(B, T, H, d_C + d_R).transpose(1, 2).split([d_C, d_R], dim=-1)",
                       "q_R, q_C = self.q_proj(x).view(B, T, H, d_C + d_R).transpose(1, 2).split([d_R, d_C], dim=-1)",
                       {"ex7_mla_tests"}, "query split as (q_R, q_C)"),
    "decode_positions_restart": Bug("ex8_mla_decode", "torch.arange(T_past, T_past + T_new, device=x_new.device)",
                                    "torch.arange(T_new, device=x_new.device)", {"ex8_mla_decode_tests"},
                                    "latent cache: positions restart at 0 on every call"),
    "decode_absorb_swapped": Bug("ex8_mla_decode", "W_UK, W_UV = mla.kv_b_proj.weight", "W_UV, W_UK = mla.kv_b_proj.weight",
                                 {"ex8_mla_decode_tests"}, "W_UK and W_UV swapped"),
    "decode_mask_offset": Bug("ex8_mla_decode", ".tril(diagonal=T_past)", ".tril()", {"ex8_mla_decode_tests"},
                              "latent cache mask `tril()` without the `T_past` offset"),
    "static_at_zero": Bug("ex9_preallocated", "k_buf[:, :, T_past:T_all] = k\n    v_buf[:, :, T_past:T_all] = v",
                          "k_buf[:, :, :T_new] = k\n    v_buf[:, :, :T_new] = v",
                          {"ex9_preallocated_tests"}, "keys written at the buffer's start, not at `T_past`"),
    "static_cat": Bug("ex9_preallocated", STATIC_WRITE, STATIC_CAT, {"ex9_preallocated_tests"},
                      "torch.cat as in lesson 6: right outputs, the buffers never written"),
    "static_unsliced": Bug("ex9_preallocated", "q @ k_buf[:, :, :T_all].transpose", "q @ k_buf.transpose",
                           {"ex9_preallocated_tests"}, "keys used from the whole buffer, not sliced to `T_past + T_new`"),
    "paged_divmod": Bug("ex10_paged_cache", "pages[block_table[positions // P], positions % P] = k_new",
                        "pages[block_table[positions % P], positions // P] = k_new", {"ex10_paged_cache_tests"},
                        "page and slot swapped (`%` and `//`)"),
    "paged_no_table": Bug("ex10_paged_cache", "pages[block_table[:n]]", "pages[:n]", {"ex10_paged_cache_tests"},
                          "gather without the block table"),
    "paged_start_ignored": Bug("ex10_paged_cache", "torch.arange(start, start + k_new.size(0), device=pages.device)",
                               "torch.arange(k_new.size(0), device=pages.device)", {"ex10_paged_cache_tests"},
                               "writes from position 0 whatever `start` says"),
    "paged_uncut": Bug("ex10_paged_cache", "reshape(n * P, *pages.shape[2:])[:length]", "reshape(n * P, *pages.shape[2:])",
                       {"ex10_paged_cache_tests"}, "the last page's unused slots returned too"),
    "packed_positions_not_reset": Bug("ex11_packed", "    return idx - cu_seqlens[doc]", "    return idx",
                                      {"ex11_packed_tests"}, "positions 0, 1, 2, … across documents"),
    "packed_boundary": Bug("ex11_packed", "right=True) - 1", "right=False) - 1", {"ex11_packed_tests"},
                           "searchsorted with `right=False`: first tokens in the document before"),
    "packed_not_causal": Bug("ex11_packed", "return (doc[q_idx] == doc[kv_idx]) & (q_idx >= kv_idx)",
                             "return doc[q_idx] == doc[kv_idx]", {"ex11_packed_tests"},
                             "document mask without the causal mask"),
    "packed_no_docs": Bug("ex11_packed", "return (doc[q_idx] == doc[kv_idx]) & (q_idx >= kv_idx)", "return q_idx >= kv_idx",
                          {"ex11_packed_tests"}, "causal mask across documents"),
    "bytes_latent_twice": Bug("ex12_cache_bytes", "return config[\"n_layer\"] * batch * T * config[\"latent_dim\"] * size",
                              "return 2 * config[\"n_layer\"] * batch * T * config[\"latent_dim\"] * size",
                              {"ex12_cache_bytes_tests"}, "MLA's latent counted twice, as keys and values"),
    "bytes_window_ignored": Bug("ex12_cache_bytes", "window = config.get(\"window\")", "window = None",
                                {"ex12_cache_bytes_tests"}, "sliding window ignored"),
    "bytes_window_all_layers": Bug("ex12_cache_bytes", "n_window = config.get(\"window_layers\", config[\"n_layer\"])",
                                   "n_window = config[\"n_layer\"]", {"ex12_cache_bytes_tests"},
                                   "window on every layer (gpt-oss alternates)"),
}
