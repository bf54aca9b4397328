"""nbgrader, run for real through tools/grade.py (what `make autograde` runs), on fixture submissions.

Each classic bug is one submission. It must lose exactly the points of the test
cells that should catch it and keep every other point. Two tampering attempts
from the foundation issue are graded alongside.
"""
import csv
import re
import subprocess
import sys

import nbformat
import pytest
from nbgrader.api import Gradebook

from conftest import ROOT

LESSON = "01_attention"
POINTS = {"ex1_attention_scores_tests": 3, "ex2_variance_tests": 2, "ex3_softmax_last_tests": 2,
          "ex4_attention_tests": 3, "ex5_attention_module_tests": 4, "ex6_n_params_tests": 1}
TOTAL = sum(POINTS.values())
SCORES_THEN_ATTENTION = {"ex1_attention_scores_tests", "ex4_attention_tests", "ex5_attention_module_tests"}

# name: (solution cell, text in the solution, replacement, test cells that must fail)
BUGS = {
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
}
# Not bugs but attacks or accidents that must not change the grade the code deserves.
EXTRA = {
    # A harmless warning on stderr inside a graded call keeps full marks.
    "warns_but_right": ("ex1_attention_scores", "    d_k = Q.size(-1)\n",
                        "    d_k = Q.size(-1)\n    import warnings; warnings.warn('harmless')\n", set()),
}
MARKERS = re.compile(r"^[ \t]*### (BEGIN|END) SOLUTION\n?", re.M)


def _submission(lang: str, edit=None, *, untouched=False, tag_tests_skip=False):
    """The release notebook with the solutions filled in, as a learner would submit it."""
    source = nbformat.read(ROOT / "autograder" / "source" / f"01-attention-{lang}" / f"{LESSON}.ipynb", 4)
    solutions = {c.metadata["nbgrader"]["grade_id"]: MARKERS.sub("", c.source)
                 for c in source.cells if c.metadata.get("nbgrader", {}).get("solution")}
    nb = nbformat.read(ROOT / "notebooks" / lang / f"{LESSON}.ipynb", 4)
    for cell in nb.cells:
        meta = cell.metadata.get("nbgrader", {})
        if meta.get("solution") and not untouched:
            cell.source = solutions[meta["grade_id"]]
            if edit and edit[0] == meta["grade_id"]:
                assert edit[1] in cell.source, f"bug fixture no longer matches the solution: {edit[1]!r}"
                cell.source = cell.source.replace(edit[1], edit[2])
        if tag_tests_skip and meta.get("grade"):
            cell.metadata["tags"] = ["skip-execution", "raises-exception"]
    return nb


@pytest.fixture(scope="module")
def graded(course_copy):
    students = {
        "solution-ja": _submission("ja"),
        "solution-ko": _submission("ko"),
        "release-ja": _submission("ja", untouched=True),
        "release-ko": _submission("ko", untouched=True),
        # Tamper: every grade cell tagged to be skipped, on an empty submission.
        "skiptags-ja": _submission("ja", untouched=True, tag_tests_skip=True),
    }
    for name, (cell, old, new, _) in {**BUGS, **EXTRA}.items():
        students[f"{name}-ja"] = _submission("ja", (cell, old, new))
    for student, nb in students.items():
        lang = student.rsplit("-", 1)[1]
        folder = course_copy / "submitted" / student / f"01-attention-{lang}"
        folder.mkdir(parents=True)
        nbformat.write(nb, folder / f"{LESSON}.ipynb")
    subprocess.run([sys.executable, str(ROOT / "tools" / "grade.py"), "--course", str(course_copy)], check=True)
    scores = {}
    with Gradebook(f"sqlite:///{course_copy / 'gradebook.db'}") as gb:
        for student in students:
            lang = student.rsplit("-", 1)[1]
            nb = gb.find_submission_notebook(LESSON, f"01-attention-{lang}", student)
            scores[student] = {g.name: g.score for g in nb.grades}
    return course_copy, scores


def test_solutions_get_full_marks(graded):
    _, scores = graded
    for lang in ("ja", "ko"):
        assert scores[f"solution-{lang}"] == {k: float(v) for k, v in POINTS.items()}


def test_untouched_release_gets_zero(graded):
    _, scores = graded
    for lang in ("ja", "ko"):
        assert sum(scores[f"release-{lang}"].values()) == 0


def test_skip_execution_tags_do_not_skip_tests(graded):
    _, scores = graded
    assert sum(scores["skiptags-ja"].values()) == 0


def test_harmless_warning_keeps_full_marks(graded):
    _, scores = graded
    assert sum(scores["warns_but_right-ja"].values()) == TOTAL


@pytest.mark.parametrize("bug", sorted(BUGS))
def test_bug_loses_exactly_the_points_that_catch_it(graded, bug):
    _, scores = graded
    failing = BUGS[bug][3]
    expected = {k: (0.0 if k in failing else float(v)) for k, v in POINTS.items()}
    assert scores[f"{bug}-ja"] == expected


def test_grades_csv_and_feedback_are_written(graded):
    course, scores = graded
    with open(course / "grades.csv", newline="") as f:
        rows = {(r["assignment"], r["student_id"]): float(r["raw_score"]) for r in csv.DictReader(f)}
    assert rows[("01-attention-ja", "solution-ja")] == TOTAL
    assert rows[("01-attention-ja", "release-ja")] == 0
    assert (course / "feedback" / "solution-ko" / "01-attention-ko" / f"{LESSON}.html").exists()
