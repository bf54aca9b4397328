"""nbgrader, run for real through attn_grader.grade (what `make autograde` runs), on fixture submissions
(conftest's `graded` class).

Each lesson's classic bugs (tools/planted/lessonN.py) are planted several to a submission where no graded
cell sees two of them (tests/bug_packs.py). A bug must lose exactly the points of the grade cells that should
catch it and keep every other point. Points come from the lesson sources (tools/lessons.py), the one place they
live.
"""
import csv
from collections import Counter

import pytest
from attn_grader.messages import MESSAGES as GRADER_MESSAGES
import bug_packs
from conftest import class_bugs, class_lessons

# One `make test` worker runs these and tests/test_report.py: `graded` (conftest.py, "Scheduling").
pytestmark = pytest.mark.xdist_group("graded")

LESSONS = class_lessons()
BUGS = class_bugs()


# The class itself is graded once per session by conftest's `graded` fixture, which tests/test_report.py shares.
@pytest.mark.parametrize("stem", sorted(LESSONS))
def test_solutions_get_full_marks(graded, stem):
    _, scores = graded
    for lang in ("ja", "ko"):
        assert scores[stem, f"solution-{lang}"] == {k: float(v) for k, v in LESSONS[stem].points.items()}


@pytest.mark.parametrize("stem", sorted(LESSONS))
def test_untouched_release_gets_zero(graded, stem):
    _, scores = graded
    for lang in ("ja", "ko"):
        assert sum(scores[stem, f"release-{lang}"].values()) == 0


@pytest.mark.parametrize("stem", sorted(LESSONS))
def test_skip_execution_tags_do_not_skip_tests(graded, stem):
    _, scores = graded
    assert sum(scores[stem, "skiptags-ja"].values()) == 0


@pytest.mark.parametrize("stem,bug", [(stem, bug) for stem, bugs in BUGS.items() for bug in sorted(bugs)])
def test_bug_loses_exactly_the_points_that_catch_it(graded, stem, bug):
    """Several bugs may share a submission (tests/bug_packs.py): no graded cell sees two of them, so each cell
    scores as it would for the one bug it sees: 0 where that bug is caught, full marks where none is."""
    _, scores = graded
    fails = BUGS[stem][bug].fails
    assert set(fails) <= set(LESSONS[stem].points), fails
    student = bug_packs.student(stem, bug)
    assert scores[stem, student] == bug_packs.expected(stem, bug_packs.students(stem)[student]), student


def test_packed_bugs_are_each_seen_by_their_own_cells():
    """A pack never joins two bugs of one cell, two bugs caught by one grade cell, or two bugs that one graded
    or marked cell can both depend on; and every planted bug is in exactly one submission."""
    for stem, bugs in BUGS.items():
        packs = bug_packs.packs(stem)
        assert sorted(b for p in packs for b in p) == sorted(bugs), stem
        cells, at = bug_packs.code_cells(stem), bug_packs.bug_cells(stem)
        watched = [i for i, (gid, _, skip) in enumerate(cells) if skip or gid in LESSONS[stem].points]
        for pack in packs:
            assert len({at[b] for b in pack}) == len(pack), pack
            fails = [c for b in pack for c in bugs[b].fails]
            assert len(fails) == len(set(fails)), pack
            for w in watched:
                assert sum(at[b] in bug_packs.reaches(stem)[w] for b in pack) <= 1, (stem, pack, w)
    # Lesson 8's exercises are independent of one another: its bugs in as many submissions as one cell has bugs, at
    # most (the rolling cache's), so a bug planted there costs the class one submission at most.
    if "08_deployed" in LESSONS:
        per_cell = Counter(bug.cell for bug in BUGS["08_deployed"].values())
        assert len(bug_packs.packs("08_deployed")) == max(per_cell.values())
    if "05_heads" not in LESSONS:
        return
    # What the reading must find: lesson 5 trains `model` in place (`losses = train(model)`, which calls
    # train_step), so the cell that grades answers read off the trained model depends on train_step's cell,
    # although no statement that binds `model` names it (grading_marks.depends_on alone misses it).
    from grading_marks import depends_on
    cells = bug_packs.code_cells("05_heads")
    train_step = next(i for i, c in enumerate(cells) if c[0] == "ex1_train_step")
    answers = next(i for i, c in enumerate(cells) if c[0] == "ex4_head_answers_tests")
    assert train_step in bug_packs.reaches("05_heads")[answers]
    assert train_step not in depends_on([source for _, source, _ in cells], answers)


def test_grades_csv_and_feedback_are_written(graded):
    course, _ = graded
    with open(course / "grades.csv", newline="", encoding="utf-8-sig") as f:
        rows = {(r["assignment"], r["student_id"]): float(r["raw_score"]) for r in csv.DictReader(f)}
    for stem, lesson in LESSONS.items():
        assert rows[(f"{lesson.assignment}-ja", "solution-ja")] == lesson.total
        assert rows[(f"{lesson.assignment}-ja", "release-ja")] == 0
        assert (course / "feedback" / "solution-ko" / f"{lesson.assignment}-ko" / f"{stem}.html").exists()


@pytest.mark.parametrize("lang,score_label", [("ja", "得点"), ("ko", "점수")])
def test_feedback_is_localized_and_hides_the_hidden_tests(graded, lang, score_label):
    course, _ = graded
    for stem, lesson in LESSONS.items():
        html = (course / "feedback" / f"solution-{lang}" / f"{lesson.assignment}-{lang}" / f"{stem}.html").read_text("utf-8")
        assert score_label in html and f'<html lang="{lang}">' in html
        for english in ("Score:", "Test cell", "(Top)", "Student's answer"):
            assert english not in html, english
        # The hidden tests' calls must not be readable in feedback, nor the results they sent.
        assert "course.probes" not in html and "HIDDEN TESTS" not in html
        assert "vnd.attn-course" not in html
        assert GRADER_MESSAGES["feedback_hidden_tests"][lang].lstrip("# ") in html


@pytest.mark.skipif("05_heads" not in LESSONS, reason="lesson 5 is not in this run's class")
def test_hidden_verdicts_are_written_in_the_learners_language(graded):
    course, _ = graded
    student = bug_packs.student("05_heads", "prev_head_wrong")
    html = (course / "feedback" / student / "05-heads-ja" / "05_heads.html").read_text("utf-8")
    # Since the visible check of lesson 5's exercise 4 reads the trained model (issue 29), it catches this bug as
    # well, and the cell's first failure is the check's: either label must be the learner's language, never English.
    assert ("✘ 隠しテスト不合格" in html or "✘ チェック不合格" in html) and "HiddenTestFailed" not in html


# Planted bugs that break a by-hand rule are flagged for the instructor, as a learner's would be; nothing else is.
from attn_grader.similarity import RULES as SIMILAR  # noqa: E402
FLAGGED_BUGS = {("08_deployed", "sink_through_sdpa", "reach_attention"), ("08_deployed", "static_cat", "reach_concat")}


def test_no_honest_submission_is_flagged(graded):
    course, _ = graded
    with open(course / "flags.csv", newline="", encoding="utf-8-sig") as f:
        rows = list(csv.DictReader(f))
    # A class made of the solution notebooks is the same code throughout (attn_grader.similarity): a look, set aside.
    assert {(r["student_id"], r["rule"]) for r in rows if r["rule"] not in SIMILAR} == \
        {(bug_packs.student(stem, bug), rule) for stem, bug, rule in FLAGGED_BUGS if stem in LESSONS}


def test_a_submission_that_could_not_be_graded_is_no_zero(tmp_path):
    """nbgrader keeps a failed grading with every cell at 0; the grade files must not pass that off as a grade
    (their blank scores: tests/test_exports.py), and flags.csv says why, in every later run too."""
    from attn_grader.flags import not_graded, remember_not_graded, write_flags
    failed = {("01-attention-ja", "bora"): "Traceback ...\nDeadKernelError: Kernel died before replying"}
    remember_not_graded(tmp_path, failed)
    assert not_graded(tmp_path) == failed
    assert write_flags(tmp_path, [("01-attention-ja", "bora")], failed=not_graded(tmp_path)) == 1
    with open(tmp_path / "flags.csv", newline="", encoding="utf-8-sig") as f:
        (row,) = list(csv.DictReader(f))
    assert (row["student_id"], row["rule"]) == ("bora", "not_graded") and "Kernel died" in row["code"]
