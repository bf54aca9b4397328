"""Lesson 1's planted bugs: one graded submission per classic bug, a replacement in one solution cell of the ja
source, with the grade cells it must fail and the hint the grader must name in each (planted/__init__.py).
"""
from planted import Bug

SCORES_THEN_ATTENTION = ("ex1_attention_scores_tests", "ex4_attention_tests", "ex5_attention_module_tests")
BUGS = {
    "wrong_shape_kq": Bug("ex1_attention_scores", "return Q @ K.transpose(-2, -1)", "return K @ Q.transpose(-2, -1)",
                          {"ex1_attention_scores_tests": "hint_kq_order", "ex4_attention_tests": "hint_kq_order",
                           "ex5_attention_module_tests": "hint_wrong_projection"}, "scores as K Qᵀ (wrong shape)"),
    "missing_scaling": Bug("ex1_attention_scores", " / math.sqrt(d_k)", "",
                           dict.fromkeys(SCORES_THEN_ATTENTION, "hint_no_scale"), "no scaling"),
    "scale_by_dk": Bug("ex1_attention_scores", "/ math.sqrt(d_k)", "/ d_k",
                       dict.fromkeys(SCORES_THEN_ATTENTION, "hint_scale_dk"), "divided by d_k"),
    "k_not_transposed": Bug("ex1_attention_scores", "K.transpose(-2, -1)", "K.T",
                            dict.fromkeys(SCORES_THEN_ATTENTION, "hint_dot_T"),
                            "`K.T` instead of `K.transpose(-2, -1)`"),
    "softmax_wrong_axis": Bug("ex3_softmax_last", "dim=-1", "dim=-2",
                              dict.fromkeys(("ex3_softmax_last_tests", "ex4_attention_tests",
                                             "ex5_attention_module_tests"), "hint_softmax_axis"),
                              "softmax over dim=-2"),
    "w_o_missing": Bug("ex5_attention_module", "return self.W_o(y), weights", "return y, weights",
                       {"ex5_attention_module_tests": "hint_w_o_missing"}, "W_o not applied"),
    # make mutants' kind: an error that says the widths differ must also say why
    "k_not_projected": Bug("ex5_attention_module", "self.W_q(x), self.W_k(x), self.W_v(x)", "self.W_q(x), x, self.W_v(x)",
                           {"ex5_attention_module_tests": "hint_qk_not_projected"}, "K = x: W_k not applied"),
    # make mutants' kind: both raise in a matrix product, and "transpose K" is not their cause
    "values_before_weights": Bug("ex4_attention", "return weights @ V, weights", "return V @ weights, weights",
                                 dict.fromkeys(("ex4_attention_tests",
                                                "ex5_attention_module_tests"), "hint_weights_v_order"),
                                 "`V @ weights` for the output"),
    "keys_before_queries": Bug("ex1_attention_scores", "return Q @ K.transpose(-2, -1)",
                               "return K.transpose(-2, -1) @ Q", dict.fromkeys(SCORES_THEN_ATTENTION, "hint_kq_order"),
                               "scores as `Kᵀ @ Q`"),
    "variance_as_std": Bug("ex2_variance", "answer_var_raw = 512", "answer_var_raw = 22.6",
                           {"ex2_variance_tests": "answer_std_not_var"},
                           "variance answered as the standard deviation"),
    # ✔ in the notebook before its checks ran the grader's cases: a size the notebook binds, a cut gradient.
    "attention_reads_global_dk": Bug("ex4_attention", "weights = softmax_last(attention_scores(Q, K))",
                                     "weights = softmax_last(Q @ K.transpose(-2, -1) / math.sqrt(d_k))",
                                     dict.fromkeys(("ex4_attention_tests",
                                                    "ex5_attention_module_tests"), "hint_global_size"),
                                     "attention reads the table's global `d_k` instead of `Q.size(-1)`"),
    "module_detaches_x": Bug("ex5_attention_module", "Q, K, V = self.W_q(x), self.W_k(x), self.W_v(x)",
                             "x = x.detach()\n        Q, K, V = self.W_q(x), self.W_k(x), self.W_v(x)",
                             {"ex5_attention_module_tests": "hint_grad_cut"},
                             "forward works on `x.detach()`: no gradient reaches x"),
    "weights_under_no_grad": Bug("ex4_attention", "    weights = softmax_last(attention_scores(Q, K))",
                                 "    with torch.no_grad():\n        weights = softmax_last(attention_scores(Q, K))",
                                 dict.fromkeys(("ex4_attention_tests", "ex5_attention_module_tests"), "hint_grad_cut"),
                                 "weights computed under `torch.no_grad()`"),
    # Not a bug: a harmless warning on stderr inside a graded call keeps full marks.
    "warns_but_right": Bug("ex1_attention_scores", "    d_k = Q.size(-1)\n",
                           "    d_k = Q.size(-1)\n    import warnings; warnings.warn('harmless')\n", {},
                           "solution that prints a warning on stderr"),
}
