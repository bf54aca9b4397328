"""Lesson 4's planted bugs: one graded submission per classic bug, a replacement in one solution cell of the ja
source, with the grade cells it must fail and the hint the grader must name in each (planted/__init__.py).
"""
from planted import Bug

SPLIT_4 = ("    q, k, v = qkv.split(three_e // 3, dim=2)                                     # (B, T, E) each\n"
           "    return tuple(z.view(B, T, n_head, -1).transpose(1, 2) for z in (q, k, v))   # (B, H, T, D) each")
SCORES = ('scores = q @ k.transpose(-2, -1) / math.sqrt(self.head_dim)               # (B, H, T, T)\n'
          '            scores = scores.masked_fill(~self.causal[:T, :T], float("-inf"))\n'
          '            weights = torch.softmax(scores, dim=-1)                                   # (B, H, T, T)')
EXPORT = ("hf.c_attn.weight.copy_(mine.c_attn.weight.T)      # Linear (3E, E) -> Conv1D (E, 3E)\n"
          "        hf.c_attn.bias.copy_(mine.c_attn.bias)\n"
          "        hf.c_proj.weight.copy_(mine.c_proj.weight.T)\n"
          "        hf.c_proj.bias.copy_(mine.c_proj.bias)")
EXPORT_BACKWARDS = ("mine.c_attn.weight.copy_(hf.c_attn.weight.T)\n"
                    "        mine.c_attn.bias.copy_(hf.c_attn.bias)\n"
                    "        mine.c_proj.weight.copy_(hf.c_proj.weight.T)\n"
                    "        mine.c_proj.bias.copy_(hf.c_proj.bias)")
# A wrong split breaks everything built on the learner's module, loading and exporting included: those name the
# root, exercise 1's split_qkv, which the module calls (hint_split_cascade); a module's own mistake, the module
# (hint_module_cascade).
LOAD_C_ATTN = "mine.c_attn.weight.copy_(hf.c_attn.weight.T)      # Conv1D (E, 3E) -> Linear (3E, E)"
BUGS = {
    "conv1d_not_transposed": Bug("ex5_load_from_hf", "mine.c_proj.weight.copy_(hf.c_proj.weight.T)",
                                 "mine.c_proj.weight.copy_(hf.c_proj.weight)",
                                 {"ex5_load_from_hf_tests": "hint_conv1d_transpose"},
                                 "Conv1D weight not transposed (square c_proj, no error)"),
    "interleaved_heads": Bug("ex1_split_qkv", SPLIT_4,
                             "    return tuple(z.transpose(1, 2) for z in qkv.view(B, T, n_head, -1).chunk(3, dim=-1))",
                             {"ex1_split_qkv_tests": "hint_interleaved_qkv",
                              "ex2_gpt2_module_tests": "hint_interleaved_qkv",
                              "ex5_load_from_hf_tests": "hint_split_cascade",
                              "ex6_export_to_hf_tests": "hint_split_cascade"},
                             "interleaved heads, `view(B, T, H, 3D).chunk(3)`"),
    "qkv_wrong_order": Bug("ex1_split_qkv", "for z in (q, k, v)", "for z in (k, q, v)",
                           {"ex1_split_qkv_tests": "hint_qkv_order", "ex2_gpt2_module_tests": "hint_qkv_order",
                            "ex5_load_from_hf_tests": "hint_split_cascade",
                            "ex6_export_to_hf_tests": "hint_split_cascade"}, "Q, K, V in the wrong order"),
    "bias_not_loaded": Bug("ex5_load_from_hf", "        mine.c_attn.bias.copy_(hf.c_attn.bias)            # (3E,)\n", "",
                           {"ex5_load_from_hf_tests": "hint_missing_bias"}, "bias not copied when loading"),
    "module_without_bias": Bug("ex2_gpt2_module", "nn.Linear(embed_dim, 3 * embed_dim)",
                               "nn.Linear(embed_dim, 3 * embed_dim, bias=False)",
                               {"ex2_gpt2_module_tests": "layer_missing_bias",
                                "ex5_load_from_hf_tests": "hint_bias_from_module",
                                "ex6_export_to_hf_tests": "hint_bias_from_module"},
                               "module built without bias"),
    "missing_mask": Bug("ex2_gpt2_module",
                        '            scores = scores.masked_fill(~self.causal[:T, :T], float("-inf"))\n', "",
                        {"ex2_gpt2_module_tests": "hint_missing_mask", "ex5_load_from_hf_tests": "hint_module_cascade",
                         "ex6_export_to_hf_tests": "hint_module_cascade"}, "causal mask missing"),
    "scale_by_embed_dim": Bug("ex2_gpt2_module", "/ math.sqrt(self.head_dim)", "/ math.sqrt(E)",
                              {"ex2_gpt2_module_tests": "hint_scale_head_dim",
                               "ex5_load_from_hf_tests": "hint_module_cascade",
                               "ex6_export_to_hf_tests": "hint_module_cascade"},
                              "scores divided by √E instead of √D"),
    "causal_buffer_unsliced": Bug("ex2_gpt2_module", "~self.causal[:T, :T]", "~self.causal",
                                  {"ex2_gpt2_module_tests": "hint_causal_slice",
                                   "ex5_load_from_hf_tests": "hint_module_cascade",
                                   "ex6_export_to_hf_tests": "hint_module_cascade"},
                                  "causal buffer used whole, without `[:T, :T]`"),
    "sdpa_dropout_in_eval": Bug("ex2_gpt2_module", "p = self.dropout.p if self.training else 0.0",
                                "p = self.dropout.p", {"ex2_gpt2_module_tests": "hint_dropout_eval_sdpa"},
                                "SDPA path: `dropout_p=self.dropout.p` in eval too"),
    "weights_after_dropout": Bug("ex2_gpt2_module", "y = self.dropout(weights) @ v",
                                 "weights = self.dropout(weights)\n            y = weights @ v",
                                 {"ex2_gpt2_module_tests": "hint_weights_after_dropout"},
                                 "weights returned after dropout"),
    "output_dropout": Bug("ex2_gpt2_module", "        return self.c_proj(y), weights",
                          "        return self.dropout(self.c_proj(y)), weights",
                          {"ex2_gpt2_module_tests": "hint_dropout_output"},
                          "dropout on the output too, after c_proj (Hugging Face's resid_dropout)"),
    # Each was ✔ in the check and the grader (built with the default, or max_len=32, and run short), and failed in
    # lessons 5 to 7, which build the module with max_len=: both now build it with max_len=80 (70 to 90), run past 64.
    "buffer_fixed_64": Bug("ex2_gpt2_module", "torch.ones(max_len, max_len, dtype=torch.bool)",
                           "torch.ones(64, 64, dtype=torch.bool)", {"ex2_gpt2_module_tests": "hint_max_len_buffer"},
                           "causal buffer of a fixed 64, whatever max_len"),
    "block_size_keyword": Bug("ex2_gpt2_module",
                              "def __init__(self, embed_dim: int, n_head: int, max_len: int = 64, dropout: float = 0.0):",
                              "def __init__(self, embed_dim: int, n_head: int, block_size: int = 64, dropout: float = 0.0):\n"
                              "        max_len = block_size", {"ex2_gpt2_module_tests": "hint_max_len_keyword"},
                              "constructor keyword named block_size, not max_len"),
    # ✘ in the notebook as in grading: the check draws sizes the notebook binds nowhere, and tests gradients and a
    # copy's invariants by the grader's rule.
    "split_reads_global_sizes": Bug("ex1_split_qkv", "z.view(B, T, n_head, -1)", "z.view(B, T, H, D)",
                                    dict.fromkeys(("ex1_split_qkv_tests", "ex2_gpt2_module_tests",
                                                   "ex5_load_from_hf_tests",
                                                   "ex6_export_to_hf_tests"), "hint_global_size"),
                                    "split_qkv reads the demo's globals `H` and `D`"),
    "module_detaches_x": Bug("ex2_gpt2_module", "split_qkv(self.c_attn(x), self.n_head)",
                             "split_qkv(self.c_attn(x.detach()), self.n_head)",
                             {"ex2_gpt2_module_tests": "hint_grad_cut"},
                             "forward works on `x.detach()`: no gradient reaches x"),
    "scores_under_no_grad": Bug("ex2_gpt2_module", SCORES, "with torch.no_grad():\n                "
                                + SCORES.replace("\n            ", "\n                "),
                                {"ex2_gpt2_module_tests": "hint_grad_cut"},
                                "scores and weights computed under `torch.no_grad()`"),
    "load_shares_memory": Bug("ex5_load_from_hf", "mine.c_attn.bias.copy_(hf.c_attn.bias)",
                              "mine.c_attn.bias = hf.c_attn.bias",
                              {"ex5_load_from_hf_tests": "hint_copy_shares_memory_into"},
                              "bias assigned as hf's own Parameter: memory shared with hf"),
    # ✔ and full marks before the check and the grader tried the meta device (a crash on a Colab GPU).
    "mask_made_on_cpu": Bug("ex2_gpt2_module", "scores.masked_fill(~self.causal[:T, :T]",
                            "scores.masked_fill(~torch.ones(T, T, dtype=torch.bool).tril()",
                            {"ex2_gpt2_module_tests": "hint_module_device"},
                            "forward makes its causal mask on the CPU (no device=x.device), not from the buffer"),
    "export_copies_backwards": Bug("ex6_export_to_hf", EXPORT, EXPORT_BACKWARDS,
                                   {"ex6_export_to_hf_tests": "hint_copy_direction"},
                                   "export copied the wrong way: `mine.….copy_(hf.…)` overwrites mine"),
    # The Japanese learner of lesson 4: each was ✔ in the notebook and lost points, or got full marks, in grading;
    # the check and the grader now judge it by one function. A global only a later cell binds (the loop's E) is
    # tested in test_lesson4_learner.py, not planted: the hint sweep runs every plain cell before judging, so it
    # sees E bound where grading raises NameError.
    "count_without_biases": Bug("ex4_n_params", "answer_n_params = 4 * 768 * 768 + 4 * 768",
                                "answer_n_params = 4 * 768 * 768", {"ex4_n_params_tests": "hint_count_no_bias"},
                                "parameter count without the biases (4E²)"),
    "init_ignores_n_layer": Bug("ex3_gpt2_init", "std=0.02 / math.sqrt(2 * n_layer)", "std=0.02 / math.sqrt(2 * 12)",
                                {"ex3_gpt2_init_tests": "hint_init_n_layer"}, "init's c_proj std hard-codes n_layer = 12"),
    "sdpa_never_drops": Bug("ex2_gpt2_module", "p = self.dropout.p if self.training else 0.0", "p = 0.0",
                            {"ex2_gpt2_module_tests": "hint_dropout_train_sdpa"}, "SDPA path: `dropout_p=0.0` in training too"),
    "buffer_persistent": Bug("ex2_gpt2_module", "tril(), persistent=False)", "tril(), persistent=True)",
                             {"ex2_gpt2_module_tests": "hint_buffer_persistent"},
                             "causal buffer registered with persistent=True"),
    "load_into_new_module": Bug("ex5_load_from_hf", LOAD_C_ATTN,
                                "mine = GPT2SelfAttention(mine.embed_dim, mine.n_head)\n        " + LOAD_C_ATTN,
                                {"ex5_load_from_hf_tests": "hint_copy_into_target"},
                                "load fills a new module and returns it: mine unchanged"),
    "export_into_deepcopy": Bug("ex6_export_to_hf",
                                "def export_to_hf(mine: GPT2SelfAttention, hf: nn.Module) -> nn.Module:\n",
                                "import copy\n\n\ndef export_to_hf(mine: GPT2SelfAttention, hf: nn.Module) -> nn.Module:\n"
                                "    hf = copy.deepcopy(hf)\n", {"ex6_export_to_hf_tests": "hint_copy_into_target"},
                                "export writes into a deepcopy of hf: hf unchanged"),
}
