"""The class report for instructors (attn_grader.report), on the bug-submission class `make autograde` grades
(conftest's `graded`, shared with tests/test_grading.py) and on small classes of verdicts written here.

NAMED is the mistake each planted bug must be counted under, in every grade cell it fails: the visible
checks' hint key, found by the grader on that learner's results. Each bug's own exercise names it. A
None would be a mistake no classic bug explains, counted as "unknown"; no planted bug has one now (the last,
lesson 3's module built on an apply_mask that returns 6-D scores, is named by its unpacking error since issue 29).
"""
import csv
import json
import os
import re
import shutil
import warnings

import pytest
from attn_grader.messages import text
from attn_grader.report import report
import bug_packs
from conftest import ROOT, class_bugs, class_lessons

# One `make test` worker runs these and tests/test_grading.py: `graded` (conftest.py, "Scheduling").
pytestmark = pytest.mark.xdist_group("graded")

LESSONS = class_lessons()
BUGS = class_bugs()

NAMED = {
    "01_attention": {
        "wrong_shape_kq": {"ex1_attention_scores": "hint_kq_order", "ex4_attention": "hint_kq_order",
                           "ex5_attention_module": "hint_wrong_projection"},
        "missing_scaling": dict.fromkeys(("ex1_attention_scores", "ex4_attention", "ex5_attention_module"),
                                         "hint_no_scale"),
        "scale_by_dk": dict.fromkeys(("ex1_attention_scores", "ex4_attention", "ex5_attention_module"),
                                     "hint_scale_dk"),
        "k_not_transposed": dict.fromkeys(("ex1_attention_scores", "ex4_attention", "ex5_attention_module"),
                                          "hint_dot_T"),
        "values_before_weights": dict.fromkeys(("ex4_attention", "ex5_attention_module"), "hint_weights_v_order"),
        "keys_before_queries": dict.fromkeys(("ex1_attention_scores", "ex4_attention", "ex5_attention_module"),
                                             "hint_kq_order"),
        "softmax_wrong_axis": dict.fromkeys(("ex3_softmax_last", "ex4_attention", "ex5_attention_module"),
                                            "hint_softmax_axis"),
        "w_o_missing": {"ex5_attention_module": "hint_w_o_missing"},
        "k_not_projected": {"ex5_attention_module": "hint_qk_not_projected"},
        "variance_as_std": {"ex2_variance": "answer_std_not_var"},
        "warns_but_right": {},
        # Issue 40: named as the check names them (attn_course.findings, attn_course.sizes).
        "attention_reads_global_dk": dict.fromkeys(("ex4_attention", "ex5_attention_module"), "hint_global_size"),
        "module_detaches_x": {"ex5_attention_module": "hint_grad_cut"},
        "weights_under_no_grad": dict.fromkeys(("ex4_attention", "ex5_attention_module"), "hint_grad_cut"),
    },
    "02_multihead": {
        "view_without_transpose": dict.fromkeys(("ex1_split_heads", "ex3_mha_module"), "hint_view_without_transpose"),
        "interleaved_heads": dict.fromkeys(("ex1_split_heads", "ex3_mha_module"), "hint_interleaved"),
        "transpose_without_contiguous": dict.fromkeys(("ex2_merge_heads", "ex3_mha_module"), "hint_contiguous"),
        "heads_in_wrong_order": dict.fromkeys(("ex2_merge_heads", "ex3_mha_module"), "hint_heads_order"),
        "w_o_forgotten": {"ex3_mha_module": "hint_w_o_missing"},
        "head_slice_rows_for_w_o": {"ex5_head_as_single": "hint_head_slice"},
        "in_proj_order_kqv": {"ex6_to_torch_mha": "hint_in_proj_order"},
        "copy_outside_no_grad": {"ex5_head_as_single": "hint_copy_no_grad"},
        "weights_never_copied": {"ex5_head_as_single": "hint_head_not_copied"},
        "float_division": dict.fromkeys(("ex1_split_heads", "ex3_mha_module"), "hint_int_division"),
        "answer_as_float": {"ex4_n_params": "hint_answer_not_int"},
        # make mutants (issue 29); a module on a broken split_heads or merge_heads is named by forward's error
        # (W_o given another width, or a 3-D tensor unpacked as four sizes), and the feedback names exercise 1 or 2
        "split_transposes_other_axes": {"ex1_split_heads": "hint_split_transpose_axes", "ex3_mha_module": "hint_w_o_input"},
        "split_without_view": {"ex1_split_heads": "hint_split_no_view", "ex3_mha_module": "hint_unpack_tensor"},
        "merge_transposes_other_axes": dict.fromkeys(("ex2_merge_heads", "ex3_mha_module"), "hint_merge_transpose_axes"),
        "merge_without_view": {"ex2_merge_heads": "hint_merge_no_view", "ex3_mha_module": "hint_w_o_input"},
        "head_count_from_head_dim": {"ex3_mha_module": "hint_head_count"},
        "w_q_with_bias": {"ex3_mha_module": "hint_has_bias"},
        "torch_mha_args_swapped": {"ex6_to_torch_mha": "hint_torch_mha_args"},
        "in_proj_as_list": {"ex6_to_torch_mha": "hint_list_not_tensor"},
        "torch_mha_not_batch_first": {"ex6_to_torch_mha": "hint_torch_mha_setup"},
        "values_before_weights": {"ex3_mha_module": "hint_weights_v_order"},
        "keys_before_queries": {"ex3_mha_module": "hint_scores_operand_order"},
        # Issue 40: named as the check names them (attn_course.findings, attn_course.sizes).
        "split_reads_global_d": dict.fromkeys(("ex1_split_heads", "ex3_mha_module"), "hint_global_size"),
        "module_detaches_x": {"ex3_mha_module": "hint_grad_cut"},
        "weights_under_no_grad": {"ex3_mha_module": "hint_grad_cut"},
        "head_shares_memory": {"ex5_head_as_single": "hint_copy_shares_memory"},
        "out_proj_copied_backwards": {"ex6_to_torch_mha": "hint_copy_direction"},
    },
    "03_masks": {
        "mask_after_softmax": {"ex6_causal_module": "hint_mask_after_softmax"},
        "inverted_mask": dict.fromkeys(("ex2_apply_mask", "ex6_causal_module"), "hint_inverted_mask"),
        "upper_triangle": dict.fromkeys(("ex1_causal_mask", "ex6_causal_module"), "hint_upper_triangle"),
        "mask_left_on_cpu": {"ex1_causal_mask": "hint_mask_device"},
        "mask_built_on_cpu_in_forward": {"ex6_causal_module": "hint_mask_device"},
        "nan_on_fully_masked_row": dict.fromkeys(("ex5_safe_softmax", "ex6_causal_module"), "hint_nan_fully_masked"),
        "dropout_active_in_eval": {"ex6_causal_module": "hint_dropout_eval"},
        "same_mask_convention": {"ex3_mha_mask_to_sdpa": "hint_same_convention"},
        "padding_off_by_one": dict.fromkeys(("ex4_padding_keep", "ex6_causal_module"), "hint_padding_off_by_one"),
        "sdpa_dropout_in_eval": {"ex6_causal_module": "hint_dropout_eval_sdpa"},
        "weights_after_dropout": {"ex6_causal_module": "hint_weights_after_dropout"},
        # The module's error comes from apply_mask's 6-D result: the grader names exercise 2 as its cause, then
        # the unpacking error itself (B, T, E = … met a tensor of another rank).
        "keep_with_extra_axes": {"ex2_apply_mask": "hint_keep_as_given", "ex6_causal_module": "hint_unpack_tensor"},
        "dropout_on_scores": {"ex6_causal_module": "hint_dropout_on_scores"},
        "mask_diagonal_below": dict.fromkeys(("ex1_causal_mask", "ex6_causal_module"), "hint_mask_diagonal"),
        "fill_minus_1e9": dict.fromkeys(("ex2_apply_mask", "ex6_causal_module"), "hint_fill_not_inf"),
        "fill_finfo_min": dict.fromkeys(("ex2_apply_mask", "ex6_causal_module"), "hint_fill_not_inf"),
        "additive_mask_nan": dict.fromkeys(("ex2_apply_mask", "ex6_causal_module"), "hint_additive_nan"),
        "fill_zero": dict.fromkeys(("ex2_apply_mask", "ex6_causal_module"), "hint_mask_multiplied"),
        "scale_sqrt_e": {"ex6_causal_module": "hint_scale_head_dim"},
        "padding_mask_b1t": {"ex6_causal_module": "hint_padding_broadcast"},
        "buffer_persistent": {"ex6_causal_module": "hint_buffer_persistent"},
        "sdpa_without_nan_to_num": {"ex6_causal_module": "hint_sdpa_nan_rows"},
        "padding_joined_with_or": {"ex6_causal_module": "hint_padding_or"},
        "invert_float_mask": {"ex3_mha_mask_to_sdpa": "hint_invert_float_mask"},
        "causal_slice_off_corner": {"ex6_causal_module": "hint_causal_full_length"},
        "sdpa_without_w_o": {"ex6_causal_module": "hint_w_o_missing"},
        "sdpa_heads_not_merged": {"ex6_causal_module": "hint_sdpa_merge"},
        "sdpa_scale_sqrt_e": {"ex6_causal_module": "hint_scale_head_dim"},
        "padding_keep_max_len": {"ex6_causal_module": "hint_padding_max_len"},
        "padding_on_query_axis": {"ex6_causal_module": "hint_padding_query_axis"},
        "keep_and_in_place": {"ex6_causal_module": "hint_inplace_and_buffer"},
        # ex2's transpose reaches the module as an upper triangle of weights (the feedback names exercise 2 first)
        "keep_transposed": {"ex2_apply_mask": "hint_keep_transposed", "ex6_causal_module": "hint_upper_triangle"},
        "keep_one_minus": dict.fromkeys(("ex2_apply_mask", "ex6_causal_module"), "hint_bool_subtract"),
        "scores_to_float": {"ex2_apply_mask": "hint_dtype_changed", "ex6_causal_module": "hint_dtype_mixed"},
        "padding_from_one": dict.fromkeys(("ex4_padding_keep", "ex6_causal_module"), "hint_padding_short_by_one"),
        "padding_values_read": {"ex4_padding_keep": "hint_meta_values"},
        "scale_written_as_number": {"ex6_causal_module": "hint_scale_as_number"},
        "dead_rows_to_one": dict.fromkeys(("ex5_safe_softmax", "ex6_causal_module"), "hint_dead_rows_not_zero"),
        "softmax_over_queries": dict.fromkeys(("ex5_safe_softmax", "ex6_causal_module"), "hint_softmax_axis"),
        # Issue 40: named as the check names them (attn_course.findings).
        "module_detaches_x": {"ex6_causal_module": "hint_grad_cut"},
        "scores_under_no_grad": {"ex6_causal_module": "hint_grad_cut"},
        "softmax_without_row_max": {"ex5_safe_softmax": "hint_safe_softmax_overflow"},
        "causal_buffer_of_32": {"ex6_causal_module": "hint_causal_max_len"},
    },
    "04_gpt2": {
        "conv1d_not_transposed": {"ex5_load_from_hf": "hint_conv1d_transpose"},
        # Loading and export copy the parameters right; the module they fill (exercise 2) is named as the cause.
        "interleaved_heads": {"ex1_split_qkv": "hint_interleaved_qkv", "ex2_gpt2_module": "hint_interleaved_qkv",
                              "ex5_load_from_hf": "hint_module_cascade", "ex6_export_to_hf": "hint_module_cascade"},
        "qkv_wrong_order": {"ex1_split_qkv": "hint_qkv_order", "ex2_gpt2_module": "hint_qkv_order",
                            "ex5_load_from_hf": "hint_module_cascade", "ex6_export_to_hf": "hint_module_cascade"},
        "bias_not_loaded": {"ex5_load_from_hf": "hint_missing_bias"},
        # Loading into a module without biases copies into None: the missing bias is named there too.
        "module_without_bias": {"ex2_gpt2_module": "layer_missing_bias", "ex5_load_from_hf": "hint_bias_from_module",
                                "ex6_export_to_hf": "hint_bias_from_module"},
        "missing_mask": {"ex2_gpt2_module": "hint_missing_mask", "ex5_load_from_hf": "hint_module_cascade",
                         "ex6_export_to_hf": "hint_module_cascade"},
        "causal_buffer_unsliced": {"ex2_gpt2_module": "hint_causal_slice", "ex5_load_from_hf": "hint_module_cascade",
                                   "ex6_export_to_hf": "hint_module_cascade"},
        "scale_by_embed_dim": {"ex2_gpt2_module": "hint_scale_head_dim", "ex5_load_from_hf": "hint_module_cascade",
                               "ex6_export_to_hf": "hint_module_cascade"},
        "sdpa_dropout_in_eval": {"ex2_gpt2_module": "hint_dropout_eval_sdpa"},
        "weights_after_dropout": {"ex2_gpt2_module": "hint_weights_after_dropout"},
        "output_dropout": {"ex2_gpt2_module": "hint_dropout_output"},
        "buffer_fixed_64": {"ex2_gpt2_module": "hint_max_len_buffer"},
        "block_size_keyword": {"ex2_gpt2_module": "hint_max_len_keyword"},
        # Issue 40: named as the check names them (attn_course.findings, attn_course.sizes).
        "split_reads_global_sizes": dict.fromkeys(("ex1_split_qkv", "ex2_gpt2_module", "ex5_load_from_hf",
                                                   "ex6_export_to_hf"), "hint_global_size"),
        "module_detaches_x": {"ex2_gpt2_module": "hint_grad_cut"},
        "scores_under_no_grad": {"ex2_gpt2_module": "hint_grad_cut"},
        "load_shares_memory": {"ex5_load_from_hf": "hint_copy_shares_memory_into"},
        "export_copies_backwards": {"ex6_export_to_hf": "hint_copy_direction"},
        "mask_made_on_cpu": {"ex2_gpt2_module": "hint_module_device"},
        # ---- Issue 40, the Japanese learner of lesson 4 (h40c)
        "count_without_biases": {"ex4_n_params": "hint_count_no_bias"},
        "init_ignores_n_layer": {"ex3_gpt2_init": "hint_init_n_layer"},
        "sdpa_never_drops": {"ex2_gpt2_module": "hint_dropout_train_sdpa"},
        "buffer_persistent": {"ex2_gpt2_module": "hint_buffer_persistent"},
        "load_into_new_module": {"ex5_load_from_hf": "hint_copy_into_target"},
        "export_into_deepcopy": {"ex6_export_to_hf": "hint_copy_into_target"},
    },
    "05_heads": {
        "pasted_sdpa_dropout_in_eval": {"ex0_gpt2_attention": "hint_dropout_eval_sdpa"},
        "pasted_weights_after_dropout": {"ex0_gpt2_attention": "hint_weights_after_dropout"},
        "no_zero_grad": {"ex1_train_step": "hint_zero_grad"},
        "zero_grad_after_backward": {"ex1_train_step": "hint_train_order",
                                     "ex4_head_answers": "hint_prev_untrained"},
        "returns_loss_tensor": {"ex1_train_step": "hint_loss_item"},
        "softmax_before_cross_entropy": {"ex1_train_step": "hint_loss_softmax_twice"},
        "entropy_plain_log": {"ex2_head_entropy": "hint_entropy_nan"},
        "entropy_log2": {"ex2_head_entropy": "hint_entropy_log2"},
        "entropy_mean_wrong_axes": {"ex2_head_entropy": "hint_entropy_mean_axes"},
        "ablation_hook_left": {"ex3_loss_without_head": "hint_ablation_remove"},
        "ablation_on_output": {"ex3_loss_without_head": "hint_ablation_output"},
        "ablation_one_column": {"ex3_loss_without_head": "hint_ablation_slice"},
        "ablation_float_width": {"ex3_loss_without_head": "hint_head_width_int"},
        # Issue 40: named as the check names them (attn_course.checks.lesson5, attn_course.sizes).
        "zero_grad_after_step": {"ex1_train_step": "hint_zero_grad_after_step"},
        "loss_reads_notebook_T": {"ex1_train_step": "hint_global_size"},
        "entropy_clamp_underflows": {"ex2_head_entropy": "hint_entropy_nan_float32"},
        "entropy_in_float64": {"ex2_head_entropy": "hint_entropy_dtype"},
        "ablation_reads_notebook_V": {"ex3_loss_without_head": "hint_global_size"},
        "prev_mean_all_heads": {"ex4_head_answers": "hint_prev_mean_heads"},
        "prev_argmax_not_over_heads": {"ex4_head_answers": "hint_prev_flat_argmax"},
        "prev_head_wrong": {"ex4_head_answers": "hint_prev_argmax"},
    },
    "06_costs": {
        "module_missing_mask": {"ex0_gpt2_attention": "hint_missing_mask"},
        "pasted_sdpa_dropout_in_eval": {"ex0_gpt2_attention": "hint_dropout_eval_sdpa"},
        "pasted_weights_after_dropout": {"ex0_gpt2_attention": "hint_weights_after_dropout"},
        "flops_multiply_adds": {"ex1_attention_flops": "hint_flops_macs"},
        "flops_one_head": {"ex1_attention_flops": "hint_flops_heads"},
        "tiled_no_rescale": {"ex2_tiled_attention": "hint_tiled_rescale"},
        "tiled_no_normalize": {"ex2_tiled_attention": "hint_tiled_normalize"},
        "tiled_drops_tail": {"ex2_tiled_attention": "hint_tiled_tail"},
        "tiled_no_causal": {"ex2_tiled_attention": "hint_causal_6"},
        "gqa_repeat": {"ex3_gqa": "hint_gqa_repeat"},
        "gqa_no_mask": {"ex3_gqa": "hint_causal_6"},
        "kv_forgets_values": {"ex4_kv_cache_bytes": "hint_kv_both"},
        "kv_bits": {"ex4_kv_cache_bytes": "hint_kv_bits"},
        "cache_no_offset": {"ex5_attend_with_cache": "hint_cache_mask_offset"},
        "cache_not_used": {"ex5_attend_with_cache": "hint_cache_concat"},
        # SDPA's is_causal with a cache aligns the mask top-left: the offset the cache needs is missing.
        "cache_sdpa_is_causal": {"ex5_attend_with_cache": "hint_cache_mask_offset"},
        "cache_past_sign": {"ex5_attend_with_cache": "hint_cache_mask_sign"},
        "cache_keep_not_inverted": {"ex5_attend_with_cache": "hint_inverted_mask"},
        "cache_additive_nan": {"ex5_attend_with_cache": "hint_additive_nan"},
        # 2·B·T·E / E: a float, E·E short of the count: a / where a * belongs.
        "flops_float_formula": {"ex1_attention_flops": "hint_count_divided"},
        "flops_float_head_dim": {"ex1_attention_flops": "hint_count_float"},
        "kv_tensor_element": {"ex4_kv_cache_bytes": "hint_kv_tensor"},
        "tiled_kv_swapped": {"ex2_tiled_attention": "hint_tiled_kv_swapped"},
        "tiled_scale_d": {"ex2_tiled_attention": "hint_scale_d_6"},
        "gqa_q_not_projected": {"ex3_gqa": "hint_gqa_q_not_projected"},
        "cache_returns_swapped": {"ex5_attend_with_cache": "hint_cache_return_order"},
        "pasted_buffer_64": {"ex0_gpt2_attention": "hint_max_len_buffer"},
        "pasted_block_size_keyword": {"ex0_gpt2_attention": "hint_max_len_keyword"},
        "pasted_sdpa_weights": {"ex0_gpt2_attention": "hint_sdpa_weights_none"},
        "tiled_whole_scores": {"ex2_tiled_attention": "hint_tiled_full"},
        "tiled_sum_no_device": {"ex2_tiled_attention": "hint_tiled_device"},
        "tiled_sum_no_dtype": {"ex2_tiled_attention": "hint_tiled_dtype"},
        "gqa_mask_cpu": {"ex3_gqa": "hint_mask_device"},
        "tiled_query_blocks": {"ex2_tiled_attention": "hint_tiled_query_blocks"},
        "cache_last_token_only": {"ex5_attend_with_cache": "hint_cache_output_tokens"},
        "tiled_no_grad": {"ex2_tiled_attention": "hint_grad_cut"},
        "kv_finfo": {"ex4_kv_cache_bytes": "hint_kv_element_size"},
        "cache_mask_cpu": {"ex5_attend_with_cache": "hint_cache_device"},
    },
    "07_positions": {
        "module_missing_mask": {"ex0_gpt2_attention": "hint_missing_mask"},
        "pasted_output_dropout": {"ex0_gpt2_attention": "hint_dropout_output"},
        "mask_not_from_buffer": {"ex0_gpt2_attention": "hint_mask_not_from_buffer"},
        "pasted_buffer_64": {"ex0_gpt2_attention": "hint_max_len_buffer"},
        "pasted_block_size_keyword": {"ex0_gpt2_attention": "hint_max_len_keyword"},
        "pasted_sdpa_mask_on_cpu": {"ex0_gpt2_attention": "hint_module_device"},
        "perm_inverse": {"ex1_permutation_error": "hint_perm_inverse"},
        "perm_returns_tensor": {"ex1_permutation_error": "hint_perm_float"},
        "perm_output_not_permuted": {"ex1_permutation_error": "hint_perm_output"},
        "perm_first_batch": {"ex1_permutation_error": "hint_perm_first_batch"},
        "pe_device": {"ex2_sinusoidal_positions": "hint_pe_device"},
        "pe_exponent": {"ex2_sinusoidal_positions": "hint_pe_exponent"},
        "pe_halves": {"ex2_sinusoidal_positions": "hint_pe_halves"},
        "pe_sin_outside": {"ex2_sinusoidal_positions": "hint_pe_sin_columns"},
        "pe_omega_times_E": {"ex2_sinusoidal_positions": "hint_pe_angle"},
        "rope_device": {"ex3_apply_rope": "hint_rope_device"},
        "rope_direction": {"ex3_apply_rope": "hint_rope_direction"},
        "rope_pairing": {"ex3_apply_rope": "hint_rope_pairing"},
        "rope_positions_ignored": {"ex3_apply_rope": "hint_rope_positions"},
        "layout_inverse": {"ex4_interleaved_to_half": "hint_layout_inverse"},
        "layout_no_heads": {"ex4_interleaved_to_half": "hint_layout_heads"},
        "relative_sign": {"ex5_relative_score": "hint_relative_sign"},
        "relative_both_turned": {"ex5_relative_score": "hint_relative_shape"},
        "relative_sum_axis_1": {"ex5_relative_score": "hint_relative_last_axis"},
        "cache_mask_offset": {"ex6_rope_cache": "hint_cache_mask_offset"},
        "cache_positions_restart": {"ex6_rope_cache": "hint_rope_cache_restart"},
        "cache_v_not_joined": {"ex6_rope_cache": "hint_rope_cache_concat"},
        "cache_no_proj": {"ex6_rope_cache": "hint_rope_cache_no_proj"},
        "cache_unrotated_keys": {"ex6_rope_cache": "hint_rope_cache_unrotated"},
        "alibi_device": {"ex7_alibi_bias": "hint_alibi_device"},
        "alibi_floor_div": {"ex7_alibi_bias": "hint_alibi_floor_div"},
        "rope_cos_sin_swapped": {"ex3_apply_rope": "hint_rope_cos_sin"},
        "cache_new_keys_first": {"ex6_rope_cache": "hint_cache_cat_order"},
        "cross_view_after_transpose": {"ex8_cross_attention": "hint_cross_view"},
        "alibi_float64": {"ex7_alibi_bias": "hint_alibi_dtype"},
        "alibi_not_power_of_two": {"ex7_alibi_bias": "hint_alibi_power_of_two"},
        "alibi_sign": {"ex7_alibi_bias": "hint_alibi_sign"},
        "alibi_slope_start": {"ex7_alibi_bias": "hint_alibi_start"},
        "cross_causal": {"ex8_cross_attention": "hint_cross_causal"},
        # Keys and values from x: a shape error, which in cross-attention is the two lengths mixed up.
        "cross_kv_from_x": {"ex8_cross_attention": "hint_cross_lengths"},
        "cross_mask_inverted": {"ex8_cross_attention": "hint_cross_mask_inverted"},
        "cross_scale_e": {"ex8_cross_attention": "hint_cross_scale_e"},
        "cross_no_out_proj": {"ex8_cross_attention": "hint_cross_out_proj"},
        "cross_floor_head_dim": {"ex8_cross_attention": "hint_cross_head_dim"},
        # make mutants, this round: each was caught without a hint (or, the last, its grader message raised)
        "pasted_no_super_init": {"ex0_gpt2_attention": "hint_super_init"},
        "perm_fn_once": {"ex1_permutation_error": "hint_perm_fn_once"},
        "pe_cos_replaces_table": {"ex2_sinusoidal_positions": "hint_pe_half_table"},
        "layout_not_reshaped": {"ex4_interleaved_to_half": "hint_layout_reshape"},
        "relative_key_without_axis": {"ex5_relative_score": "hint_relative_shape"},
        "cross_no_input_check": {"ex8_cross_attention": "hint_cross_no_input_check"},
    },
    "08_deployed": {
        "rope_direction": {"ex0_apply_rope": "hint_rope_direction"},
        "rope_positions_ignored": {"ex0_apply_rope": "hint_rope_positions"},
        "mods_causal_strict": {"ex1_mask_mods": "hint_flex_strict"},
        "mods_cache_top_left": {"ex1_mask_mods": "hint_flex_top_left"},
        "mods_padding_queries": {"ex1_mask_mods": "hint_flex_padding_queries"},
        "mods_padding_off_by_one": {"ex1_mask_mods": "hint_flex_padding_off_by_one"},
        "mods_python_and": {"ex1_mask_mods": "hint_flex_control_flow"},
        "alibi_mod_sign": {"ex2_alibi_score_mod": "hint_alibi_mod_sign"},
        "alibi_mod_score_dropped": {"ex2_alibi_score_mod": "hint_alibi_mod_score_dropped"},
        "alibi_mod_batch": {"ex2_alibi_score_mod": "hint_alibi_mod_batch"},
        "window_plus_one": {"ex3_sliding_window": "hint_window_plus_one"},
        "window_no_causal": {"ex3_sliding_window": "hint_window_no_causal"},
        "window_top_left": {"ex3_sliding_window": "hint_window_top_left"},
        "rolling_positions_restart": {"ex4_rolling_cache": "hint_rolling_positions"},
        "rolling_window_plus_one": {"ex4_rolling_cache": "hint_rolling_window"},
        "rolling_empty_slots": {"ex4_rolling_cache": "hint_rolling_empty"},
        "rolling_ring_swapped": {"ex4_rolling_cache": "hint_cache_kv_swapped"},
        "rolling_join_order": {"ex4_rolling_cache": "hint_rolling_join_order"},
        "rolling_ring_replaced": {"ex4_rolling_cache": "hint_rolling_replaced"},
        "stream_sink_order": {"ex5_streaming_cache": "hint_stream_sink_order"},
        "stream_tail_slice": {"ex5_streaming_cache": "hint_stream_tail_slice"},
        "stream_query_from_zero": {"ex5_streaming_cache": "hint_stream_query_from_zero"},
        "rolling_seen_off": {"ex4_rolling_cache": "hint_rolling_seen_off"},
        "rolling_weights_keys": {"ex4_rolling_cache": "hint_weights_times_keys"},
        "decode_norm_twice": {"ex8_mla_decode": "hint_mla_norm_twice"},
        "bytes_window_uncapped": {"ex12_cache_bytes": "hint_bytes_window_uncapped"},
        "stream_new_first": {"ex5_streaming_cache": "hint_cache_cat_order"},
        "decode_cache_order": {"ex8_mla_decode": "hint_mla_cache_order"},
        "decode_merge_axes": {"ex8_mla_decode": "hint_merge_wrong_axes"},
        "decode_mask_transposed": {"ex8_mla_decode": "hint_mla_mask_transposed"},
        "decode_cache_not_joined": {"ex8_mla_decode": "hint_mla_cache_not_joined"},
        "static_qkv_order": {"ex9_preallocated": "hint_qkv_order"},
        "rolling_grows": {"ex4_rolling_cache": "hint_rolling_grows"},
        "rolling_rope_restart": {"ex4_rolling_cache": "hint_rolling_rope_restart"},
        "rolling_no_modulo": {"ex4_rolling_cache": "hint_rolling_modulo"},
        "stream_no_sink": {"ex5_streaming_cache": "hint_stream_no_sink"},
        "stream_is_causal": {"ex5_streaming_cache": "hint_stream_is_causal"},
        "stream_budget": {"ex5_streaming_cache": "hint_stream_budget"},
        "stream_rotated_cache": {"ex5_streaming_cache": "hint_stream_rotated_cache"},
        "sink_missing": {"ex6_sink_attention": "hint_sink_missing"},
        "sink_scaled": {"ex6_sink_attention": "hint_sink_scaled"},
        "sink_wrong_column": {"ex6_sink_attention": "hint_sink_wrong_column"},
        "sink_through_sdpa": {"ex6_sink_attention": "hint_from_scratch"},
        "mla_no_norm": {"ex7_mla": "hint_mla_norm"},
        "mla_scale_nope": {"ex7_mla": "hint_mla_scale"},
        "mla_kv_split": {"ex7_mla": "hint_mla_kv_split"},
        "mla_q_split": {"ex7_mla": "hint_mla_q_split"},
        "decode_positions_restart": {"ex8_mla_decode": "hint_mla_positions"},
        "decode_absorb_swapped": {"ex8_mla_decode": "hint_mla_absorb_swapped"},
        "decode_not_absorbed": {"ex8_mla_decode": "hint_mla_not_absorbed"},
        "decode_mask_offset": {"ex8_mla_decode": "hint_cache_mask_offset"},
        "static_at_zero": {"ex9_preallocated": "hint_static_offset"},
        "static_cat": {"ex9_preallocated": "hint_concat_by_hand"},
        "static_no_proj": {"ex9_preallocated": "hint_static_no_proj"},
        "static_unsliced": {"ex9_preallocated": "hint_static_unsliced"},
        "paged_divmod": {"ex10_paged_cache": "hint_paged_divmod"},
        "paged_no_table": {"ex10_paged_cache": "hint_paged_table"},
        "paged_start_ignored": {"ex10_paged_cache": "hint_paged_start"},
        "paged_floor": {"ex10_paged_cache": "hint_paged_floor"},
        "paged_uncut": {"ex10_paged_cache": "hint_paged_length"},
        "packed_positions_not_reset": {"ex11_packed": "hint_packed_positions"},
        "packed_boundary": {"ex11_packed": "hint_packed_boundary"},
        "packed_not_causal": {"ex11_packed": "hint_packed_not_causal"},
        "packed_no_docs": {"ex11_packed": "hint_packed_no_docs"},
        "bytes_latent_twice": {"ex12_cache_bytes": "hint_bytes_latent_twice"},
        "bytes_kv_once": {"ex12_cache_bytes": "hint_bytes_kv_once"},
        "bytes_window_ignored": {"ex12_cache_bytes": "hint_bytes_window_ignored"},
        "bytes_window_all_layers": {"ex12_cache_bytes": "hint_bytes_window_all"},
    },
}
CATEGORIES = ("report_full_marks", "report_unknown", "report_not_attempted")


def read_counts(path, lang) -> dict:
    """{exercise: {outcome: count}} from a report's CSV; outcome: "pass", "unknown", "not_attempted" or a hint key."""
    labels = {text(key, lang): name for key, name in zip(CATEGORIES, ("pass", "unknown", "not_attempted"))}
    counts = {}
    with open(path, newline="", encoding="utf-8-sig") as f:
        for exercise, label, key, _hint, n, *_names in list(csv.reader(f))[1:]:
            counts.setdefault(exercise, {})[key or labels[label]] = int(n)
    return counts


def expected_counts(stem: str, lang: str) -> dict:
    """What the class of conftest's `graded` must give: the solution, the bug submissions that leave the cell
    alone (full marks), each bug under NAMED, the untouched release and its skip-tagged copy (not attempted)."""
    want = {}
    for cell in LESSONS[stem].points:
        exercise = cell.removesuffix("_tests")
        counts = want[exercise] = {"pass": 1, "unknown": 0, "not_attempted": 1 if lang == "ko" else 2}
        if lang == "ko":
            continue
        for pack in bug_packs.packs(stem):  # a submission each; no cell fails for two of its bugs
            name = next((name for name in pack if cell in BUGS[stem][name].fails), None)
            if name is None:
                counts["pass"] += 1
                continue
            key = NAMED[stem][name][exercise] or "unknown"
            counts[key] = counts.get(key, 0) + 1
    return want


def test_named_mistakes_cover_every_failing_cell_of_every_bug():
    assert set(NAMED) == set(BUGS) or (os.environ.get("ATTN_TEST_LESSONS") and set(BUGS) <= set(NAMED))
    for stem, bugs in BUGS.items():
        assert set(NAMED[stem]) == set(bugs), stem
        for name, bug in bugs.items():
            assert set(NAMED[stem][name]) == {c.removesuffix("_tests") for c in bug.fails}, (stem, name)
            if bug.fails:
                assert NAMED[stem][name][bug.cell], (stem, name)


# --------------------------------------------------------------------------- the graded class
@pytest.mark.parametrize("lang", ["ja", "ko"])
@pytest.mark.parametrize("stem", sorted(LESSONS))
def test_the_class_report_counts_each_planted_bug_under_its_own_name(graded, stem, lang):
    course, _ = graded
    assignment = f"{LESSONS[stem].assignment}-{lang}"
    assert read_counts(course / "report" / f"{assignment}.csv", lang) == expected_counts(stem, lang)


def test_the_class_report_pages_and_index(graded):
    course, _ = graded
    index = (course / "report" / "index.html").read_text("utf-8")
    for stem, lesson in LESSONS.items():
        for lang in ("ja", "ko"):
            assignment = f"{lesson.assignment}-{lang}"
            page = (course / "report" / f"{assignment}.html").read_text("utf-8")
            assert f'<html lang="{lang}">' in page and f'href="{assignment}.html"' in index
            # Counts only by default: no learner's id, so the page can be shown to the class.
            assert "solution-ja" not in page and "release-ja" not in page and "-ja</" not in page
            # Self-contained: every picture is a data URI, nothing is fetched.
            # (base64 pictures left out of the search: a PNG's bytes once spelled "http")
            text_only = re.sub(r"data:image/png;base64,[A-Za-z0-9+/=]*", "", page).replace("http-equiv", "")
            assert "data:image/png;base64," in page and "http" not in text_only
    assert text("report_median", "ja") in index and text("report_median", "ko") in index


def test_verdicts_stay_on_the_graders_side(graded):
    course, _ = graded
    verdicts = list((course / "verdicts").rglob("*.json"))
    assert verdicts and (course / "verdicts").stat().st_mode & 0o077 == 0
    # Nothing of them in what a learner's kernel sees (its autograded folder) or gets back (feedback).
    for folder in ("autograded", "feedback"):
        for path in (course / folder).rglob("*"):
            assert "verdict" not in path.name
            if path.suffix in (".ipynb", ".html"):
                assert '"hint_fields"' not in path.read_text("utf-8")


# --------------------------------------------------------------------------- small classes written here
def _course(tmp_path):
    for assignment in ("01-attention-ja", "01-attention-ko"):
        shutil.copytree(ROOT / "autograder" / "source" / assignment, tmp_path / "source" / assignment)
    return tmp_path


def _verdict(course, student, assignment, cells):
    """cells: {exercise: (score, status, hint)}; the other exercises get full marks."""
    from lessons import lessons   # every lesson's, whichever ones this run's class holds (ATTN_TEST_LESSONS)
    points = next(lesson for lesson in lessons() if lesson.stem == "01_attention").points
    record = {"student": student, "assignment": assignment, "notebooks": {"01_attention": {"cells": {}}}}
    for cell, p in points.items():
        score, status, hint = cells.get(cell.removesuffix("_tests"), (p, "pass", None))
        record["notebooks"]["01_attention"]["cells"][cell] = {"points": p, "score": score, "status": status,
                                                               "hint": hint, "hint_fields": {}}
    path = course / "verdicts" / assignment / f"{student}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(record), encoding="utf-8")
    (course / "submitted" / student / assignment).mkdir(parents=True, exist_ok=True)


def test_a_regrade_updates_the_report_and_names_appear_only_when_asked(tmp_path):
    course = _course(tmp_path)
    for student in ("aiko", "bora", "chen"):
        _verdict(course, student, "01-attention-ja", {"ex1_attention_scores": (0, "mistake", "hint_no_scale")})
    _verdict(course, "dana", "01-attention-ja", {"ex1_attention_scores": (0, "not_attempted", None)})
    (course / "submitted" / "eri" / "01-attention-ja").mkdir(parents=True)  # submitted, could not be graded
    report(course, jobs=1)
    counts = read_counts(course / "report" / "01-attention-ja.csv", "ja")
    assert counts["ex1_attention_scores"] == {"pass": 0, "hint_no_scale": 3, "unknown": 0, "not_attempted": 1}
    page = (course / "report" / "01-attention-ja.html").read_text("utf-8")
    assert "aiko" not in page and text("report_not_graded", "ja", n=1) in page
    # A late submission, graded in a later run, replaces that learner's verdict only.
    _verdict(course, "bora", "01-attention-ja", {})
    report(course, names=True, jobs=1)
    counts = read_counts(course / "report-names" / "01-attention-ja.csv", "ja")
    assert counts["ex1_attention_scores"] == {"pass": 1, "hint_no_scale": 2, "unknown": 0, "not_attempted": 1}
    page = (course / "report-names" / "01-attention-ja.html").read_text("utf-8")
    assert "aiko, chen" in page and "bora" in page
    index = (course / "report-names" / "index.html").read_text("utf-8")
    assert text("report_lesson", "ja") in index and "01-attention-ja.html" in index
    # The report with ids is a file of its own: the one meant for the class still names no one (issue 42).
    for path in (course / "report").rglob("*.*"):
        assert not {"aiko", "bora", "chen", "dana"} & set(re.findall(r"\w+", path.read_text("utf-8"))), path
    report(course, jobs=1)
    counts = read_counts(course / "report" / "01-attention-ja.csv", "ja")
    assert counts["ex1_attention_scores"] == {"pass": 1, "hint_no_scale": 2, "unknown": 0, "not_attempted": 1}
    assert "aiko" in (course / "report-names" / "01-attention-ja.html").read_text("utf-8")


def test_the_report_is_in_the_assignments_language_and_its_charts_have_every_glyph(tmp_path):
    course = _course(tmp_path)
    _verdict(course, "jun", "01-attention-ko", {"ex3_softmax_last": (0, "mistake", "hint_softmax_axis"),
                                                "ex4_attention": (0, "unknown_mistake", None)})
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        report(course, jobs=1)  # in this process, so a "Glyph ... missing" warning would be caught here
    assert not [w for w in caught if "Glyph" in str(w.message)]
    page = (course / "report" / "01-attention-ko.html").read_text("utf-8")
    assert '<html lang="ko">' in page and text("report_full_marks", "ko") in page
    assert text("report_unknown", "ko") in page and "소프트맥스" in page
    with open(course / "report" / "01-attention-ko.csv", encoding="utf-8-sig") as f:
        assert next(csv.reader(f))[0] == text("report_exercise", "ko")
