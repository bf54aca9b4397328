"""Lesson 7's graded submissions: one per classic bug, a replacement in one solution cell of the ja source.

tests/test_lesson7.py re-exports BUGS, where conftest.class_bugs looks for every lesson's.
"""
from conftest import Bug

# The solution's lines between the cache and the return, which a bug replacing both must carry along.
CACHE_TAIL = (
    "    keep = torch.ones(T_new, T_past + T_new, dtype=torch.bool, device=x_new.device).tril(diagonal=T_past)\n"
    "    scores = (q @ k.transpose(-2, -1) / math.sqrt(D)).masked_fill(~keep, float(\"-inf\"))\n"
    "    y = (torch.softmax(scores, dim=-1) @ v).transpose(1, 2).contiguous().view(B, T_new, E)\n"
)

BUGS = {
    "module_missing_mask": Bug("ex0_gpt2_attention",
                               'torch.softmax(scores.masked_fill(~self.causal[:T, :T], float("-inf")), dim=-1)',
                               "torch.softmax(scores, dim=-1)", {"ex0_gpt2_attention_tests"},
                               "pasted module without the causal mask"),
    "pasted_output_dropout": Bug("ex0_gpt2_attention", "        return self.c_proj(y), weights",
                                 "        return self.dropout(self.c_proj(y)), weights", {"ex0_gpt2_attention_tests"},
                                 "pasted module with dropout on the output too (Hugging Face's resid_dropout)"),
    "mask_not_from_buffer": Bug("ex0_gpt2_attention", "scores.masked_fill(~self.causal[:T, :T]",
                                "scores.masked_fill(~torch.ones(T, T, dtype=torch.bool, device=x.device).tril()",
                                {"ex0_gpt2_attention_tests"}, "forward builds its own causal mask, not from the buffer"),
    "perm_returns_tensor": Bug("ex1_permutation_error", "return float((fn(x[:, perm]) - fn(x)[:, perm]).abs().max())",
                               "return (fn(x[:, perm]) - fn(x)[:, perm]).abs().max()", {"ex1_permutation_error_tests"},
                               "a 0-dim tensor returned, not a Python float"),
    "perm_inverse": Bug("ex1_permutation_error", "fn(x)[:, perm]", "fn(x)[:, perm.argsort()]",
                        {"ex1_permutation_error_tests"}, "outputs put back with the inverse permutation"),
    "perm_first_batch": Bug("ex1_permutation_error", "return float((fn(x[:, perm]) - fn(x)[:, perm]).abs().max())",
                            "return float((fn(x[:, perm]) - fn(x)[:, perm])[0].abs().max())",
                            {"ex1_permutation_error_tests"}, "the largest error of batch element 0 only"),
    "perm_output_not_permuted": Bug("ex1_permutation_error", "fn(x)[:, perm]", "fn(x)",
                                    {"ex1_permutation_error_tests"}, "outputs compared without permuting them"),
    "pe_halves": Bug("ex2_sinusoidal_positions",
                     "pe[:, 0::2] = torch.sin(position * omega)\n    pe[:, 1::2] = torch.cos(position * omega)",
                     "pe = torch.cat([torch.sin(position * omega), torch.cos(position * omega)], dim=-1)",
                     {"ex2_sinusoidal_positions_tests"}, "sin in the first half, cos in the second"),
    "pe_exponent": Bug("ex2_sinusoidal_positions", "torch.arange(0, E, 2, device=device).float() / E",
                       "torch.arange(E // 2, device=device).float() / E", {"ex2_sinusoidal_positions_tests"},
                       "frequencies 10000^(−i/E) instead of 10000^(−2i/E)"),
    "pe_device": Bug("ex2_sinusoidal_positions", "torch.arange(T, device=device)", "torch.arange(T)",
                     {"ex2_sinusoidal_positions_tests"}, "positions made on the CPU whatever `device=` says"),
    "pe_sin_outside": Bug("ex2_sinusoidal_positions", "torch.sin(position * omega)", "torch.sin(position) * omega",
                          {"ex2_sinusoidal_positions_tests"}, "`sin(position) * ω` for `sin(position · ω)` (make mutants)"),
    "pe_omega_times_E": Bug("ex2_sinusoidal_positions", "float() / E)", "float() * E)",
                            {"ex2_sinusoidal_positions_tests"}, "ω from −2i·E instead of −2i/E (make mutants)"),
    "rope_direction": Bug("ex3_apply_rope", "torch.cat([-x[..., D // 2:], x[..., :D // 2]], dim=-1)",
                          "torch.cat([x[..., D // 2:], -x[..., :D // 2]], dim=-1)", {"ex3_apply_rope_tests"},
                          "rotate_half turning the other way"),
    "rope_pairing": Bug("ex3_apply_rope", "torch.cat([angles, angles], dim=-1)", "angles.repeat_interleave(2, dim=-1)",
                        {"ex3_apply_rope_tests"}, "angles repeated pairwise (interleaved) with rotate_half"),
    "rope_positions_ignored": Bug("ex3_apply_rope", "positions.to(q.device, torch.float64)",
                                  "torch.arange(q.size(-2), device=q.device, dtype=torch.float64)",
                                  {"ex3_apply_rope_tests"}, "RoPE at 0, 1, 2, … whatever `positions` says"),
    "rope_device": Bug("ex3_apply_rope", "dtype=torch.float64, device=q.device) / D)", "dtype=torch.float64) / D)",
                       {"ex3_apply_rope_tests"}, "frequencies made on the CPU, not on q's device"),
    "layout_inverse": Bug("ex4_interleaved_to_half", "weight.view(n_head, D // 2, 2, E)",
                          "weight.view(n_head, 2, D // 2, E)", {"ex4_interleaved_to_half_tests"},
                          "the conversion the other way (half to interleaved)"),
    "layout_no_heads": Bug("ex4_interleaved_to_half", "weight.view(n_head, D // 2, 2, E).transpose(1, 2)",
                           "weight.view(rows // 2, 2, E).transpose(0, 1)", {"ex4_interleaved_to_half_tests"},
                           "rows reordered across heads"),
    "relative_sign": Bug("ex5_relative_score", "torch.tensor([offset], device=k.device)",
                         "torch.tensor([-offset], device=k.device)", {"ex5_relative_score_tests"},
                         "the key turned by m − n instead of n − m"),
    "relative_sum_axis_1": Bug("ex5_relative_score", "return (q * k_turned[..., 0, :]).sum(dim=-1)",
                               "return (q * k_turned[..., 0, :]).sum(dim=1)", {"ex5_relative_score_tests"},
                               "the inner product over axis 1: right for (N, D) only (make mutants)"),
    "relative_both_turned": Bug("ex5_relative_score",
                                "_, k_turned = rope(k[..., None, :], k[..., None, :],",
                                "q, k_turned = rope(q[..., None, :], k[..., None, :],",
                                {"ex5_relative_score_tests"}, "query and key both turned by the offset"),
    "cache_positions_restart": Bug("ex6_rope_cache", "torch.arange(T_past, T_past + T_new, device=x_new.device)",
                                   "torch.arange(T_new, device=x_new.device)", {"ex6_rope_cache_tests"},
                                   "positions restart at 0 on every call"),
    "cache_mask_offset": Bug("ex6_rope_cache", ".tril(diagonal=T_past)", ".tril()", {"ex6_rope_cache_tests"},
                             "cache mask `tril()` without the `T_past` offset"),
    "cache_v_not_joined": Bug("ex6_rope_cache", ", torch.cat([cache[1], v], dim=2)", ", v",
                              {"ex6_rope_cache_tests"}, "values not joined to the cache (a shape error)"),
    "cache_no_proj": Bug("ex6_rope_cache", "return attn.c_proj(y), (k, v)", "return y, (k, v)",
                         {"ex6_rope_cache_tests"}, "c_proj forgotten"),
    # The cache holds keys before rotation and the whole cache is turned on every call: right outputs, wrong cache.
    "cache_unrotated_keys": Bug(
        "ex6_rope_cache",
        "    q, k = rope(q, k, positions)\n    if cache is not None:\n"
        "        k, v = torch.cat([cache[0], k], dim=2), torch.cat([cache[1], v], dim=2)  # (B, H, T_all, D)\n"
        + CACHE_TAIL + "    return attn.c_proj(y), (k, v)",
        "    if cache is not None:\n        k, v = torch.cat([cache[0], k], dim=2), torch.cat([cache[1], v], dim=2)\n"
        "    raw_k, q = k, rope(q, q, positions)[0]\n"
        "    k = rope(k, k, torch.arange(T_past + T_new, device=x_new.device))[1]\n"
        + CACHE_TAIL + "    return attn.c_proj(y), (raw_k, v)",
        {"ex6_rope_cache_tests"}, "keys cached before rotation, the whole cache turned on every call"),
    "alibi_sign": Bug("ex7_alibi_bias", "return -m[:, None, None] * distance", "return m[:, None, None] * distance",
                      {"ex7_alibi_bias_tests"}, "bias +m·(i − j): far keys favoured"),
    "alibi_slope_start": Bug("ex7_alibi_bias", "2 ** (-8 * (h + 1) / n) for h in range(n)",
                             "2 ** (-8 * h / n) for h in range(n)", {"ex7_alibi_bias_tests"},
                             "slopes from 2⁰ = 1 (exponent h, not h + 1)"),
    "alibi_not_power_of_two": Bug(
        "ex7_alibi_bias",
        "slopes = [2 ** (-8 * (h + 1) / n) for h in range(n)]\n"
        "    slopes += [2 ** (-8 * (j + 1) / (2 * n)) for j in range(0, 2 * (n_head - n), 2)]",
        "slopes = [2 ** (-8 * (h + 1) / n_head) for h in range(n_head)]", {"ex7_alibi_bias_tests"},
        "2^(−8(h+1)/H) when H is not a power of 2"),
    "alibi_float64": Bug("ex7_alibi_bias", "m = torch.tensor(slopes, device=device)",
                         "m = torch.tensor(slopes, dtype=torch.float64, device=device)", {"ex7_alibi_bias_tests"},
                         "slopes in float64: a float64 bias"),
    "alibi_device": Bug("ex7_alibi_bias", "m = torch.tensor(slopes, device=device)", "m = torch.tensor(slopes)",
                        {"ex7_alibi_bias_tests"}, "slopes made on the CPU whatever `device=` says"),
    "cross_causal": Bug("ex8_cross_attention", "        weights = torch.softmax(scores, dim=-1)\n        y = (weights @ v)",
                        "        scores = scores.masked_fill(~torch.ones(T_q, T_k, dtype=torch.bool).tril(), float(\"-inf\"))\n"
                        "        weights = torch.softmax(scores, dim=-1)\n        y = (weights @ v)",
                        {"ex8_cross_attention_tests"}, "a causal mask in cross-attention"),
    "cross_mask_inverted": Bug("ex8_cross_attention", "scores.masked_fill(key_padding_mask[:, None, None, :]",
                               "scores.masked_fill(~key_padding_mask[:, None, None, :]", {"ex8_cross_attention_tests"},
                               "padding mask inverted (True taken as keep)"),
    "cross_kv_from_x": Bug("ex8_cross_attention", "self.k_proj(memory).view(B, T_k, H, D)", "self.k_proj(x).view(B, T_q, H, D)",
                           {"ex8_cross_attention_tests"}, "keys from the decoder's sequence, not the encoder's"),
    "cross_no_out_proj": Bug("ex8_cross_attention", "        return self.out_proj(y), weights",
                             "        return y, weights", {"ex8_cross_attention_tests"}, "out_proj forgotten"),
    "cross_floor_head_dim": Bug("ex8_cross_attention", "self.head_dim = course.resolve_head_dim(embed_dim, n_head)",
                                "self.head_dim = embed_dim // n_head", {"ex8_cross_attention_tests"},
                                "head_dim = embed_dim // n_head: no error when E does not divide into H heads"),
    "cross_scale_e": Bug("ex8_cross_attention", "scores = q @ k.transpose(-2, -1) / math.sqrt(D)",
                         "scores = q @ k.transpose(-2, -1) / math.sqrt(E)", {"ex8_cross_attention_tests"},
                         "scores divided by √E instead of √D"),
}
