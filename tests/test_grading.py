"""nbgrader, run for real through tools/grade.py (what `make autograde` runs), on fixture submissions.

Each classic bug is one submission. It must lose exactly the points of the test
cells that should catch it and keep every other point. Two tampering attempts
from the foundation issue are graded alongside.
"""
import csv
import subprocess
import sys

import pytest
from attn_course.messages import MESSAGES
from classroom import submission, submit
from nbgrader.api import Gradebook

from conftest import ROOT

# Lesson 1 -----------------------------------------------------------------------------------
POINTS_1 = {"ex1_attention_scores_tests": 3, "ex2_variance_tests": 2, "ex3_softmax_last_tests": 2,
            "ex4_attention_tests": 3, "ex5_attention_module_tests": 4, "ex6_n_params_tests": 1}
SCORES_THEN_ATTENTION = {"ex1_attention_scores_tests", "ex4_attention_tests", "ex5_attention_module_tests"}
# name: (solution cell, text in the solution, replacement, test cells that must fail)
BUGS_1 = {
    "wrong_shape_kq": ("ex1_attention_scores", "return Q @ K.transpose(-2, -1)", "return K @ Q.transpose(-2, -1)",
                       SCORES_THEN_ATTENTION),
    "missing_scaling": ("ex1_attention_scores", " / math.sqrt(d_k)", "", SCORES_THEN_ATTENTION),
    "scale_by_dk": ("ex1_attention_scores", "/ math.sqrt(d_k)", "/ d_k", SCORES_THEN_ATTENTION),
    "k_not_transposed": ("ex1_attention_scores", "K.transpose(-2, -1)", "K.T", SCORES_THEN_ATTENTION),
    "softmax_wrong_axis": ("ex3_softmax_last", "dim=-1", "dim=-2",
                           {"ex3_softmax_last_tests", "ex4_attention_tests", "ex5_attention_module_tests"}),
    "w_o_missing": ("ex5_attention_module", "return self.W_o(y), weights", "return y, weights",
                    {"ex5_attention_module_tests"}),
    "variance_as_std": ("ex2_variance", "answer_var_raw = 512", "answer_var_raw = 22.6", {"ex2_variance_tests"}),
    # Not a bug: a harmless warning on stderr inside a graded call keeps full marks.
    "warns_but_right": ("ex1_attention_scores", "    d_k = Q.size(-1)\n",
                        "    d_k = Q.size(-1)\n    import warnings; warnings.warn('harmless')\n", set()),
}

# Lesson 2 -----------------------------------------------------------------------------------
POINTS_2 = {"ex1_split_heads_tests": 2, "ex2_merge_heads_tests": 2, "ex3_mha_module_tests": 4,
            "ex4_n_params_tests": 1, "ex5_head_as_single_tests": 3, "ex6_to_torch_mha_tests": 2}
SPLIT = "return x.view(B, T, n_head, HD // n_head).transpose(1, 2)"
MERGE = "return x.transpose(1, 2).contiguous().view(B, T, H * D)"
BUGS_2 = {
    "view_without_transpose": ("ex1_split_heads", SPLIT, "return x.view(B, n_head, T, HD // n_head)",
                               {"ex1_split_heads_tests", "ex3_mha_module_tests"}),
    "interleaved_heads": ("ex1_split_heads", SPLIT, "return x.view(B, T, HD // n_head, n_head).permute(0, 3, 1, 2)",
                          {"ex1_split_heads_tests", "ex3_mha_module_tests"}),
    "transpose_without_contiguous": ("ex2_merge_heads", MERGE, "return x.transpose(1, 2).view(B, T, H * D)",
                                     {"ex2_merge_heads_tests", "ex3_mha_module_tests"}),
    "heads_in_wrong_order": ("ex2_merge_heads", MERGE, "return x.flip(1).transpose(1, 2).contiguous().view(B, T, H * D)",
                             {"ex2_merge_heads_tests", "ex3_mha_module_tests"}),
    "w_o_forgotten": ("ex3_mha_module", "return self.W_o(y), weights", "return y, weights",
                      {"ex3_mha_module_tests"}),
    "head_slice_rows_for_w_o": ("ex5_head_as_single", "mha.W_o.weight[:, rows]", "mha.W_o.weight[rows].T",
                                {"ex5_head_as_single_tests"}),
    "in_proj_order_kqv": ("ex6_to_torch_mha", "[mha.W_q.weight, mha.W_k.weight, mha.W_v.weight]",
                          "[mha.W_k.weight, mha.W_q.weight, mha.W_v.weight]", {"ex6_to_torch_mha_tests"}),
}

# Lesson 3 -----------------------------------------------------------------------------------
POINTS_3 = {"ex1_causal_mask_tests": 2, "ex2_apply_mask_tests": 2, "ex3_mha_mask_to_sdpa_tests": 2,
            "ex4_padding_keep_tests": 2, "ex5_safe_softmax_tests": 2, "ex6_causal_module_tests": 5}
MODULE_3 = "ex6_causal_module_tests"
SCORES_3 = ("scores = apply_mask(Q @ K.transpose(-2, -1) / math.sqrt(self.head_dim), keep)  # (B, H, T, T)\n"
            "        weights = safe_softmax(scores)")
BUGS_3 = {
    "mask_after_softmax": ("ex6_causal_module", SCORES_3,
                           "scores = Q @ K.transpose(-2, -1) / math.sqrt(self.head_dim)\n"
                           "        weights = safe_softmax(scores).masked_fill(~keep, 0.0)", {MODULE_3}),
    "inverted_mask": ("ex2_apply_mask", "scores.masked_fill(~keep,", "scores.masked_fill(keep,",
                      {"ex2_apply_mask_tests", MODULE_3}),
    "upper_triangle": ("ex1_causal_mask", ".tril()", ".triu()", {"ex1_causal_mask_tests", MODULE_3}),
    "mask_left_on_cpu": ("ex1_causal_mask", ", device=device)", ")", {"ex1_causal_mask_tests"}),
    "mask_built_on_cpu_in_forward": ("ex6_causal_module", "keep = self.causal[:T, :T]",
                                     "keep = torch.ones(T, T, dtype=torch.bool).tril()", {MODULE_3}),
    "nan_on_fully_masked_row": ("ex5_safe_softmax", "torch.softmax(scores, dim=-1).nan_to_num(0.0)",
                                "torch.softmax(scores, dim=-1)", {"ex5_safe_softmax_tests", MODULE_3}),
    "dropout_active_in_eval": ("ex6_causal_module", "self.dropout(weights)", "F.dropout(weights, self.dropout.p)",
                               {MODULE_3}),
    "same_mask_convention": ("ex3_mha_mask_to_sdpa", "return ~mask if", "return mask if",
                             {"ex3_mha_mask_to_sdpa_tests"}),
    "padding_off_by_one": ("ex4_padding_keep", "< lengths[:, None]", "<= lengths[:, None]",
                           {"ex4_padding_keep_tests", MODULE_3}),
}

# Lesson 4 -----------------------------------------------------------------------------------
POINTS_4 = {"ex1_split_qkv_tests": 2, "ex2_gpt2_module_tests": 5, "ex3_gpt2_init_tests": 2,
            "ex4_n_params_tests": 1, "ex5_load_from_hf_tests": 3, "ex6_export_to_hf_tests": 2}
SPLIT_4 = ("    q, k, v = qkv.split(three_e // 3, dim=2)                                     # (B, T, E) each\n"
           "    return tuple(z.view(B, T, n_head, -1).transpose(1, 2) for z in (q, k, v))   # (B, H, T, D) each")
# A wrong split breaks everything built on the learner's module, loading and exporting included.
USES_MODULE_4 = {"ex2_gpt2_module_tests", "ex5_load_from_hf_tests", "ex6_export_to_hf_tests"}
BUGS_4 = {
    "conv1d_not_transposed": ("ex5_load_from_hf", "mine.c_proj.weight.copy_(hf.c_proj.weight.T)",
                              "mine.c_proj.weight.copy_(hf.c_proj.weight)", {"ex5_load_from_hf_tests"}),
    "interleaved_heads": ("ex1_split_qkv", SPLIT_4,
                          "    return tuple(z.transpose(1, 2) for z in qkv.view(B, T, n_head, -1).chunk(3, dim=-1))",
                          {"ex1_split_qkv_tests"} | USES_MODULE_4),
    "qkv_wrong_order": ("ex1_split_qkv", "for z in (q, k, v)", "for z in (k, q, v)",
                        {"ex1_split_qkv_tests"} | USES_MODULE_4),
    "bias_not_loaded": ("ex5_load_from_hf", "        mine.c_attn.bias.copy_(hf.c_attn.bias)            # (3E,)\n", "",
                        {"ex5_load_from_hf_tests"}),
    "module_without_bias": ("ex2_gpt2_module", "nn.Linear(embed_dim, 3 * embed_dim)",
                            "nn.Linear(embed_dim, 3 * embed_dim, bias=False)", USES_MODULE_4),
    "missing_mask": ("ex2_gpt2_module",
                     '            scores = scores.masked_fill(~self.causal[:T, :T], float("-inf"))\n', "",
                     USES_MODULE_4),
}

# Lesson 5 -----------------------------------------------------------------------------------
POINTS_5 = {"ex0_gpt2_attention_tests": 1, "ex1_train_step_tests": 3, "ex2_head_entropy_tests": 2, "ex3_loss_without_head_tests": 3,
            "ex4_head_answers_tests": 2}
# The interpretation answer is checked on the learner's own trained model: a train_step that still
# trains (gradients accumulated, softmax twice) keeps it; one that never updates loses it too.
BUGS_5 = {
    "no_zero_grad": ("ex1_train_step", "    optimizer.zero_grad()\n", "", {"ex1_train_step_tests"}),
    "zero_grad_after_backward": ("ex1_train_step", "    optimizer.zero_grad()\n    loss.backward()\n",
                                 "    loss.backward()\n    optimizer.zero_grad()\n",
                                 {"ex1_train_step_tests", "ex4_head_answers_tests"}),
    "softmax_before_cross_entropy": ("ex1_train_step", "F.cross_entropy(logits.reshape(",
                                     "F.cross_entropy(logits.softmax(-1).reshape(", {"ex1_train_step_tests"}),
    "entropy_plain_log": ("ex2_head_entropy", "-torch.special.xlogy(weights, weights)",
                          "-(weights * weights.log())", {"ex2_head_entropy_tests"}),
    "entropy_log2": ("ex2_head_entropy", "-torch.special.xlogy(weights, weights)",
                     "-torch.special.xlogy(weights, weights) / math.log(2)", {"ex2_head_entropy_tests"}),
    "entropy_mean_wrong_axes": ("ex2_head_entropy", ".mean(dim=(0, 2))", ".mean(dim=(0, 1))",
                                {"ex2_head_entropy_tests"}),
    "ablation_hook_left": ("ex3_loss_without_head", "        handle.remove()", "        pass",
                           {"ex3_loss_without_head_tests"}),
    "ablation_on_output": ("ex3_loss_without_head", "attn.c_proj.register_forward_pre_hook(zero_head)",
                           "attn.c_proj.register_forward_hook(lambda m, i, out: zero_head(m, (out,))[0])",
                           {"ex3_loss_without_head_tests"}),
    "ablation_one_column": ("ex3_loss_without_head", "heads[..., head * D:(head + 1) * D] = 0",
                            "heads[..., head] = 0", {"ex3_loss_without_head_tests"}),
    "prev_head_wrong": ("ex4_head_answers", "int(prev.argmax())", "int(prev.argmin())",
                        {"ex4_head_answers_tests"}),
}

# Lesson 6 -----------------------------------------------------------------------------------
POINTS_6 = {"ex0_gpt2_attention_tests": 1, "ex1_attention_flops_tests": 2, "ex2_tiled_attention_tests": 4,
            "ex3_gqa_tests": 3, "ex4_kv_cache_bytes_tests": 2, "ex5_attend_with_cache_tests": 3}
BUGS_6 = {
    "module_missing_mask": ("ex0_gpt2_attention",
                            'torch.softmax(scores.masked_fill(~self.causal[:T, :T], float("-inf")), dim=-1)',
                            "torch.softmax(scores, dim=-1)", {"ex0_gpt2_attention_tests"}),
    "flops_multiply_adds": ("ex1_attention_flops", '"scores": 2 * B * H * T * T * D,', '"scores": B * H * T * T * D,',
                            {"ex1_attention_flops_tests"}),
    "flops_one_head": ("ex1_attention_flops", '"weighted_sum": 2 * B * H * T * T * D,',
                       '"weighted_sum": 2 * B * T * T * D,', {"ex1_attention_flops_tests"}),
    "tiled_no_rescale": ("ex2_tiled_attention", "acc = acc * scale + p @ vb", "acc = acc + p @ vb",
                         {"ex2_tiled_attention_tests"}),
    "tiled_no_normalize": ("ex2_tiled_attention", "return acc / l", "return acc", {"ex2_tiled_attention_tests"}),
    "tiled_drops_tail": ("ex2_tiled_attention", "range(0, k.size(2), block_size)",
                         "range(0, k.size(2) - block_size + 1, block_size)", {"ex2_tiled_attention_tests"}),
    "tiled_no_causal": ("ex2_tiled_attention", 's = s.masked_fill(cols > rows, float("-inf"))', "s = s",
                        {"ex2_tiled_attention_tests"}),
    "gqa_repeat": ("ex3_gqa", "k.repeat_interleave(H // G, dim=1), v.repeat_interleave(H // G, dim=1)",
                   "k.repeat(1, H // G, 1, 1), v.repeat(1, H // G, 1, 1)", {"ex3_gqa_tests"}),
    "gqa_no_mask": ("ex3_gqa", '.masked_fill(~keep, float("-inf"))', "", {"ex3_gqa_tests"}),
    "kv_forgets_values": ("ex4_kv_cache_bytes", "return 2 * n_layer", "return n_layer", {"ex4_kv_cache_bytes_tests"}),
    "kv_bits": ("ex4_kv_cache_bytes", ".element_size()", ".element_size() * 8", {"ex4_kv_cache_bytes_tests"}),
    "cache_no_offset": ("ex5_attend_with_cache", ".tril(diagonal=T_past)", ".tril()", {"ex5_attend_with_cache_tests"}),
    "cache_not_used": ("ex5_attend_with_cache",
                       "k, v = torch.cat([cache[0], k], dim=2), torch.cat([cache[1], v], dim=2)", "pass",
                       {"ex5_attend_with_cache_tests"}),
}

LESSONS = {  # stem: (assignment, points, bugs)
    "01_attention": ("01-attention", POINTS_1, BUGS_1),
    "02_multihead": ("02-multihead", POINTS_2, BUGS_2),
    "03_masks": ("03-masks", POINTS_3, BUGS_3),
    "04_gpt2": ("04-gpt2", POINTS_4, BUGS_4),
    "05_heads": ("05-heads", POINTS_5, BUGS_5),
    "06_costs": ("06-costs", POINTS_6, BUGS_6),
}
def _submission(stem: str, lang: str, edit=None, **kwargs):
    return submission(LESSONS[stem][0], stem, lang, edit, **kwargs)


@pytest.fixture(scope="module")
def graded(course_copy):
    students = {}  # (stem, student) -> notebook; a student id names the lesson so ids stay unique per run
    for stem, (_, _, bugs) in LESSONS.items():
        for lang in ("ja", "ko"):
            students[stem, f"solution-{lang}"] = _submission(stem, lang)
            students[stem, f"release-{lang}"] = _submission(stem, lang, untouched=True)
        # Tamper: every grade cell tagged to be skipped, on an empty submission.
        students[stem, "skiptags-ja"] = _submission(stem, "ja", untouched=True, tag_tests_skip=True)
        for name, (cell, old, new, _) in bugs.items():
            students[stem, f"{name}-ja"] = _submission(stem, "ja", (cell, old, new))
    for (stem, student), nb in students.items():
        submit(course_copy, student, f"{LESSONS[stem][0]}-{student.rsplit('-', 1)[1]}", stem, nb)
    subprocess.run([sys.executable, str(ROOT / "tools" / "grade.py"), "--course", str(course_copy)], check=True)
    scores = {}
    with Gradebook(f"sqlite:///{course_copy / 'gradebook.db'}") as gb:
        for stem, student in students:
            lang = student.rsplit("-", 1)[1]
            nb = gb.find_submission_notebook(stem, f"{LESSONS[stem][0]}-{lang}", student)
            scores[stem, student] = {g.name: g.score for g in nb.grades}
    return course_copy, scores


@pytest.mark.parametrize("stem", sorted(LESSONS))
def test_solutions_get_full_marks(graded, stem):
    _, scores = graded
    points = LESSONS[stem][1]
    for lang in ("ja", "ko"):
        assert scores[stem, f"solution-{lang}"] == {k: float(v) for k, v in points.items()}


@pytest.mark.parametrize("stem", sorted(LESSONS))
def test_untouched_release_gets_zero(graded, stem):
    _, scores = graded
    for lang in ("ja", "ko"):
        assert sum(scores[stem, f"release-{lang}"].values()) == 0


@pytest.mark.parametrize("stem", sorted(LESSONS))
def test_skip_execution_tags_do_not_skip_tests(graded, stem):
    _, scores = graded
    assert sum(scores[stem, "skiptags-ja"].values()) == 0


@pytest.mark.parametrize("stem,bug", [(stem, bug) for stem, (_, _, bugs) in LESSONS.items() for bug in sorted(bugs)])
def test_bug_loses_exactly_the_points_that_catch_it(graded, stem, bug):
    _, scores = graded
    points, bugs = LESSONS[stem][1], LESSONS[stem][2]
    expected = {k: (0.0 if k in bugs[bug][3] else float(v)) for k, v in points.items()}
    assert scores[stem, f"{bug}-ja"] == expected


def test_grades_csv_and_feedback_are_written(graded):
    course, _ = graded
    with open(course / "grades.csv", newline="") as f:
        rows = {(r["assignment"], r["student_id"]): float(r["raw_score"]) for r in csv.DictReader(f)}
    for stem, (assignment, points, _) in LESSONS.items():
        assert rows[(f"{assignment}-ja", "solution-ja")] == sum(points.values())
        assert rows[(f"{assignment}-ja", "release-ja")] == 0
        assert (course / "feedback" / "solution-ko" / f"{assignment}-ko" / f"{stem}.html").exists()


@pytest.mark.parametrize("lang,score_label", [("ja", "得点"), ("ko", "점수")])
def test_feedback_is_localized_and_hides_the_hidden_tests(graded, lang, score_label):
    course, _ = graded
    for stem, (assignment, _, _) in LESSONS.items():
        html = (course / "feedback" / f"solution-{lang}" / f"{assignment}-{lang}" / f"{stem}.html").read_text("utf-8")
        assert score_label in html and f'<html lang="{lang}">' in html
        for english in ("Score:", "Test cell", "(Top)", "Student's answer"):
            assert english not in html, english
        # The hidden tests' calls into the reference must not be readable in feedback.
        assert "reference(" not in html and "HIDDEN TESTS" not in html
        assert MESSAGES["feedback_hidden_tests"][lang].lstrip("# ") in html


def test_no_honest_submission_is_flagged(graded):
    course, _ = graded
    with open(course / "flags.csv", newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert rows == []
