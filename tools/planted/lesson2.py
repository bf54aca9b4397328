"""Lesson 2's planted bugs: one graded submission per classic bug, a replacement in one solution cell of the ja
source, with the grade cells it must fail and the hint the grader must name in each (planted/__init__.py).
"""
from planted import Bug

SPLIT = "return x.view(B, T, n_head, HD // n_head).transpose(1, 2)"
COPIES = ("    with torch.no_grad():\n"
          + "".join(f"        single.{w}.weight.copy_(mha.{w}.weight[rows])          # (D, E)\n" for w in ("W_q", "W_k", "W_v"))
          + "        single.W_o.weight.copy_(mha.W_o.weight[:, rows])       # (E, D)")
MERGE = "return x.transpose(1, 2).contiguous().view(B, T, H * D)"
WEIGHTS = ("scores = Q @ K.transpose(-2, -1) / math.sqrt(self.head_dim)   # (B, H, T, T)\n"
           "        weights = torch.softmax(scores, dim=-1)                # (B, H, T, T)")
BUGS = {
    "view_without_transpose": Bug("ex1_split_heads", SPLIT, "return x.view(B, n_head, T, HD // n_head)",
                                  dict.fromkeys(("ex1_split_heads_tests",
                                                 "ex3_mha_module_tests"), "hint_view_without_transpose"),
                                  "`view(B, H, T, D)` without transpose"),
    "interleaved_heads": Bug("ex1_split_heads", SPLIT, "return x.view(B, T, HD // n_head, n_head).permute(0, 3, 1, 2)",
                             dict.fromkeys(("ex1_split_heads_tests", "ex3_mha_module_tests"), "hint_interleaved"),
                             "interleaved heads, `view(B, T, D, H)`"),
    "transpose_without_contiguous": Bug("ex2_merge_heads", MERGE, "return x.transpose(1, 2).view(B, T, H * D)",
                                        dict.fromkeys(("ex2_merge_heads_tests",
                                                       "ex3_mha_module_tests"), "hint_contiguous"),
                                        "transpose without contiguous before view"),
    "heads_in_wrong_order": Bug("ex2_merge_heads", MERGE,
                                "return x.flip(1).transpose(1, 2).contiguous().view(B, T, H * D)",
                                dict.fromkeys(("ex2_merge_heads_tests", "ex3_mha_module_tests"), "hint_heads_order"),
                                "heads merged in the wrong order"),
    "w_o_forgotten": Bug("ex3_mha_module", "return self.W_o(y), weights", "return y, weights",
                         {"ex3_mha_module_tests": "hint_w_o_missing"}, "W_o forgotten"),
    "head_slice_rows_for_w_o": Bug("ex5_head_as_single", "mha.W_o.weight[:, rows]", "mha.W_o.weight[rows].T",
                                   {"ex5_head_as_single_tests": "hint_head_slice"}, "head i's W_o sliced by rows"),
    "in_proj_order_kqv": Bug("ex6_to_torch_mha", "[mha.W_q.weight, mha.W_k.weight, mha.W_v.weight]",
                             "[mha.W_k.weight, mha.W_q.weight, mha.W_v.weight]",
                             {"ex6_to_torch_mha_tests": "hint_in_proj_order"},
                             "in_proj_weight as K, Q, V"),
    # Found by a learner working through the lesson, and by make mutants (issue 29).
    "copy_outside_no_grad": Bug("ex5_head_as_single", COPIES, "\n".join(line[4:] for line in COPIES.splitlines()[1:]),
                                {"ex5_head_as_single_tests": "hint_copy_no_grad"},
                                "head's weights copied with `copy_` outside `torch.no_grad()`"),
    "weights_never_copied": Bug("ex5_head_as_single", COPIES, "", {"ex5_head_as_single_tests": "hint_head_not_copied"},
                                "head's weights never copied"),
    "float_division": Bug("ex1_split_heads", "HD // n_head", "HD / n_head",
                          dict.fromkeys(("ex1_split_heads_tests", "ex3_mha_module_tests"), "hint_int_division"),
                          "`HD / n_head` where the text says `//`"),
    "answer_as_float": Bug("ex4_n_params", "answer_n_params = 4 * 768 * 12 * 64",
                           "answer_n_params = float(4 * 768 * 12 * 64)", {"ex4_n_params_tests": "hint_answer_not_int"},
                           "the parameter count given as a float"),
    # make mutants (issue 29): caught without a hint, or named by the check and not by the grader.
    "split_transposes_other_axes": Bug("ex1_split_heads", SPLIT, "return x.view(B, T, n_head, HD // n_head).transpose(1, 3)",
                                       {"ex1_split_heads_tests": "hint_split_transpose_axes",
                                        "ex3_mha_module_tests": "hint_w_o_input"},
                                       "split_heads transposing axes 1 and 3"),
    "split_without_view": Bug("ex1_split_heads", SPLIT, "return x.transpose(1, 2)",
                              {"ex1_split_heads_tests": "hint_split_no_view",
                               "ex3_mha_module_tests": "hint_unpack_tensor"}, "split_heads without its view"),
    "merge_transposes_other_axes": Bug("ex2_merge_heads", MERGE, "return x.transpose(1, 3).contiguous().view(B, T, H * D)",
                                       dict.fromkeys(("ex2_merge_heads_tests",
                                                      "ex3_mha_module_tests"), "hint_merge_transpose_axes"),
                                       "merge_heads transposing axes 1 and 3"),
    "merge_without_view": Bug("ex2_merge_heads", MERGE, "return x.transpose(1, 2).contiguous()",
                              {"ex2_merge_heads_tests": "hint_merge_no_view", "ex3_mha_module_tests": "hint_w_o_input"},
                              "merge_heads without its view"),
    "head_count_from_head_dim": Bug("ex3_mha_module", "H = self.n_head", "H = self.head_dim",
                                    {"ex3_mha_module_tests": "hint_head_count"},
                                    "`H = self.head_dim`: D heads of width H"),
    "w_q_with_bias": Bug("ex3_mha_module", "self.W_q = nn.Linear(embed_dim, inner, bias=False)",
                         "self.W_q = nn.Linear(embed_dim, inner, bias=True)", {"ex3_mha_module_tests": "hint_has_bias"},
                         "W_q built with a bias"),
    "torch_mha_args_swapped": Bug("ex6_to_torch_mha", "nn.MultiheadAttention(mha.embed_dim, mha.n_head,",
                                  "nn.MultiheadAttention(mha.n_head, mha.embed_dim,",
                                  {"ex6_to_torch_mha_tests": "hint_torch_mha_args"},
                                  "nn.MultiheadAttention(n_head, embed_dim)"),
    "in_proj_as_list": Bug("ex6_to_torch_mha", "copy_(torch.cat([mha.W_q.weight, mha.W_k.weight, mha.W_v.weight], dim=0))",
                           "copy_([mha.W_q.weight, mha.W_k.weight, mha.W_v.weight])",
                           {"ex6_to_torch_mha_tests": "hint_list_not_tensor"},
                           "in_proj_weight copied from a list, torch.cat left out"),
    "torch_mha_not_batch_first": Bug("ex6_to_torch_mha", "batch_first=True)", "batch_first=False)",
                                     {"ex6_to_torch_mha_tests": "hint_torch_mha_setup"},
                                     "nn.MultiheadAttention without batch_first=True"),
    # make mutants (issue 29): forward's error was named "transpose K", which was not the cause.
    "values_before_weights": Bug("ex3_mha_module", "y = merge_heads(weights @ V)", "y = merge_heads(V @ weights)",
                                 {"ex3_mha_module_tests": "hint_weights_v_order"},
                                 "`V @ weights` for the weighted average"),
    "keys_before_queries": Bug("ex3_mha_module", "scores = Q @ K.transpose(-2, -1) /",
                               "scores = K.transpose(-2, -1) @ Q /",
                               {"ex3_mha_module_tests": "hint_scores_operand_order"},
                               "scores as `Kᵀ @ Q`: (D, D) weights"),
    # Issue 40: ✔ in the notebook and 0 (or full marks) in grading before the checks drew sizes the notebook binds
    # nowhere, tested gradients and a copy's invariants by the grader's rule.
    "split_reads_global_d": Bug("ex1_split_heads", SPLIT, "return x.view(B, T, n_head, D).transpose(1, 2)",
                                dict.fromkeys(("ex1_split_heads_tests", "ex3_mha_module_tests"), "hint_global_size"),
                                "split_heads reads the demo's global `D` instead of `HD // n_head`"),
    "module_detaches_x": Bug("ex3_mha_module", "H = self.n_head", "H = self.n_head\n        x = x.detach()",
                             {"ex3_mha_module_tests": "hint_grad_cut"},
                             "forward works on `x.detach()`: no gradient reaches x"),
    "weights_under_no_grad": Bug("ex3_mha_module", WEIGHTS, "with torch.no_grad():\n            "
                                 + WEIGHTS.replace("\n        ", "\n            "),
                                 {"ex3_mha_module_tests": "hint_grad_cut"},
                                 "scores and weights computed under `torch.no_grad()`"),
    "head_shares_memory": Bug("ex5_head_as_single", COPIES, "\n".join(
        f"    single.{w}.weight = nn.Parameter(mha.{w}.weight[{'rows' if w != 'W_o' else ':, rows'}])"
        for w in ("W_q", "W_k", "W_v", "W_o")), {"ex5_head_as_single_tests": "hint_copy_shares_memory"},
        "head's weights assigned as `nn.Parameter(mha.W_q.weight[rows])`: memory shared with mha"),
    "out_proj_copied_backwards": Bug("ex6_to_torch_mha", "torch_mha.out_proj.weight.copy_(mha.W_o.weight)",
                                     "mha.W_o.weight.copy_(torch_mha.out_proj.weight)",
                                     {"ex6_to_torch_mha_tests": "hint_copy_direction"},
                                     "out_proj copied the wrong way: `mha.W_o.weight.copy_(...)` overwrites mha"),
    # ---- learner ko (issue 40: lesson 2 worked through in Korean): ✔ in the notebook and full marks before; the
    # check and the grader now run B = 1 and T = 1, and a copy's parameters must be trainable (findings.untrainable).
    "module_squeezes_results": Bug("ex3_mha_module", "return self.W_o(y), weights",
                                   "return self.W_o(y).squeeze(), weights.squeeze()",
                                   {"ex3_mha_module_tests": "hint_squeeze"},
                                   "forward's results squeezed: B = 1 or T = 1 loses its axis"),
    "head_copy_frozen": Bug("ex5_head_as_single", COPIES, "    single.requires_grad_(False)\n" + "\n".join(
        line[4:] for line in COPIES.splitlines()[1:]), {"ex5_head_as_single_tests": "hint_copy_trainable"},
        "head's module frozen (`requires_grad_(False)`), then copied with gradients on"),
    "torch_mha_frozen": Bug("ex6_to_torch_mha", "torch_mha = torch_mha.to(mha.W_q.weight)\n    with torch.no_grad():",
                            "torch_mha = torch_mha.to(mha.W_q.weight)\n    torch_mha.requires_grad_(False)\n"
                            "    if True:",
                            {"ex6_to_torch_mha_tests": "hint_copy_trainable"},
                            "nn.MultiheadAttention frozen (`requires_grad_(False)`), then copied with gradients on"),
    # hints that named another cause or none (issue 43 point 3)
    "split_by_size": Bug("ex1_split_heads", SPLIT, "return torch.stack(x.split(n_head, dim=-1), dim=1)",
                         {"ex1_split_heads_tests": "hint_split_size", "ex3_mha_module_tests": "hint_head_count"},
                         "`x.split(n_head, -1)`: pieces of size n_head, not n_head pieces"),
    "split_to_float": Bug("ex1_split_heads", SPLIT, SPLIT + ".float()",
                          {"ex1_split_heads_tests": "hint_keep_dtype", "ex3_mha_module_tests": "hint_keep_dtype"},
                          "split_heads' result turned to float32 with `.float()`"),
    "merge_transpose_in_place": Bug("ex2_merge_heads", MERGE, "return x.transpose_(1, 2).reshape(B, T, H * D)",
                                    {"ex2_merge_heads_tests": "hint_input_in_place"}, "`x.transpose_(1, 2)`: the caller's tensor changed"),
    "merge_permute_d_before_h": Bug("ex2_merge_heads", MERGE, "return x.permute(0, 2, 3, 1).reshape(B, T, H * D)",
                                    {"ex2_merge_heads_tests": "hint_merge_interleaved", "ex3_mha_module_tests": "hint_merge_interleaved"},
                                    "`permute(0, 2, 3, 1)` before the merge: each head's components H apart"),
    "scores_in_float32": Bug("ex3_mha_module", WEIGHTS, WEIGHTS.replace("Q @ K", "Q.float() @ K.float()").replace(
        "dim=-1)  ", "dim=-1).to(x.dtype)"),
        {"ex3_mha_module_tests": "hint_float32_inside"}, "scores and softmax computed in float32"),
    "k_projected_by_w_q": Bug("ex3_mha_module", "K = split_heads(self.W_k(x), H)", "K = split_heads(self.W_q(x), H)",
                              {"ex3_mha_module_tests": "hint_projection_layer"}, "K projected with W_q (a line copied, left unchanged)"),
    "out_proj_transposed": Bug("ex6_to_torch_mha", "torch_mha.out_proj.weight.copy_(mha.W_o.weight)",
                               "torch_mha.out_proj.weight.copy_(mha.W_o.weight.T)",
                               {"ex6_to_torch_mha_tests": "hint_out_proj_transposed"},
                               "out_proj.weight copied from `W_o.weight.T`"),
    "torch_mha_default_args": Bug("ex6_to_torch_mha", "nn.MultiheadAttention(mha.embed_dim, mha.n_head, bias=False, "
                                  "batch_first=True)", "nn.MultiheadAttention(mha.embed_dim, mha.n_head)",
                                  {"ex6_to_torch_mha_tests": "hint_torch_mha_setup"},
                                  "nn.MultiheadAttention without bias=False nor batch_first"),
    # ---- end learner ko
}
