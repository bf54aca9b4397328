"""The class report for instructors (attn_grader.report), on the bug-submission class `make autograde` grades
(conftest's `graded`, shared with tests/test_grading.py) and on small classes of verdicts written here.

Each planted bug must be counted under the mistake its entry in tools/planted/ names for each grade cell it fails
(Bug.fails): the visible checks' hint key, found by the grader on that learner's results.
A later exercise that fails under the very hint of the bug's own exercise, through the learner's function from
there, is that mistake seen again: it is counted once, in the bug's exercise, and in the later one apart, as
carried over from it (attn_grader.verdict.carried_from). Under another hint it is counted under that hint.
"""
import csv
import json
import re
import shutil
import warnings

import pytest
from attn_grader.messages import text
from attn_grader.report import carried_outcome, report
import bug_packs
from conftest import ROOT, class_bugs, class_lessons

# One `make test` worker runs these and tests/test_grading.py: `graded` (conftest.py, "Scheduling").
pytestmark = pytest.mark.xdist_group("graded")

LESSONS = class_lessons()
BUGS = class_bugs()

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
    alone (full marks), each bug under the hint its entry names, the untouched release and its skip-tagged copy
    (not attempted)."""
    want = {}
    for cell in LESSONS[stem].points:
        exercise = cell.removesuffix("_tests")
        counts = want[exercise] = {"pass": 1, "unknown": 0, "not_attempted": 1 if lang == "ko" else 2}
        if lang == "ko":
            continue
        for pack in bug_packs.packs(stem):  # a submission each; no cell fails for two of its bugs
            bug = next((BUGS[stem][name] for name in pack if cell in BUGS[stem][name].fails), None)
            key = bug.fails[cell] if bug else "pass"
            if bug and cell != f"{bug.cell}_tests" and key == bug.fails.get(f"{bug.cell}_tests"):
                key = carried_outcome(int(re.match(r"ex(\d+)_", bug.cell)[1]), key)
            counts[key] = counts.get(key, 0) + 1
    return want


def test_every_planted_bug_names_a_hint_in_each_cell_it_fails_its_own_among_them():
    for stem, bugs in BUGS.items():
        for name, bug in bugs.items():
            assert isinstance(bug.fails, dict), (stem, name, "fails: {grade cell: hint key}")
            assert set(bug.fails) <= set(LESSONS[stem].points), (stem, name)
            assert all(isinstance(key, str) and key for key in bug.fails.values()), (stem, name)
            if bug.fails:
                assert f"{bug.cell}_tests" in bug.fails, (stem, name)


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


@pytest.mark.skipif("01_attention" not in LESSONS, reason="lesson 1 is not in this run's class (ATTN_TEST_LESSONS)")
def test_a_mistake_carried_into_a_later_exercise_is_counted_once_and_a_later_ones_own_still_counts(tmp_path):
    """One notebook, graded: attention_scores (exercise 1) does not scale, so attention (exercise 4), which calls it,
    fails with the same hint: counted once, under exercise 1, and in exercise 4 as carried over from it. The module
    (exercise 5) also calls the failing attention, but its own mistake (no W_o) shows a hint of its own: counted."""
    import subprocess
    import sys

    from attn_grader.report import summarize
    from classroom import course_skeleton, submission, submit
    assignment, stem = "01-attention-ja", "01_attention"
    course = course_skeleton(tmp_path / "course")
    bugs = BUGS[stem]
    planted = [(bugs[n].cell, bugs[n].old, bugs[n].new) for n in ("missing_scaling", "w_o_missing")]
    submit(course, "aiko", assignment, stem, submission("01-attention", stem, "ja", planted))
    subprocess.run([sys.executable, "-m", "attn_grader.grade", "--course", str(course), "--assignment", assignment],
                   check=True, capture_output=True)
    carried = carried_outcome(1, "hint_no_scale")
    outcomes = {ex.grade_id.removesuffix("_tests"): dict(ex.outcomes) for ex in summarize(course, assignment).exercises}
    assert outcomes["ex1_attention_scores"] == {"hint_no_scale": 1}
    assert outcomes["ex4_attention"] == {carried: 1}
    assert outcomes["ex5_attention_module"] == {"hint_w_o_missing": 1}
    assert {key for key, _, _ in summarize(course, assignment).most_common()} == {"hint_no_scale", "hint_w_o_missing"}
    counts = read_counts(course / "report" / f"{assignment}.csv", "ja")
    assert counts["ex4_attention"][carried] == 1 and "hint_no_scale" not in counts["ex4_attention"]
    # The report says where the later failure came from, on the lesson's page and on the learner's.
    said = text("report_carried", "ja", n=1)
    assert said in (course / "report" / f"{assignment}.html").read_text("utf-8")
    learner = next((course / "report" / assignment).glob("learner-*.html")).read_text("utf-8")
    assert said in learner and text("report_named_mistake", "ja") in learner


def test_a_failure_is_carried_over_only_through_an_earlier_failure_with_the_same_hint():
    from attn_grader.verdict import carried_from
    earlier = {1: ("hint_no_scale", 1), 4: ("hint_no_scale", 1), 3: ("hint_softmax_axis", 3)}
    assert carried_from((4, "attention"), "hint_no_scale", earlier) == 1        # through 4, from 1: counted at 1
    assert carried_from((3, "softmax_last"), "hint_softmax_axis", earlier) == 3
    assert carried_from((4, "attention"), "hint_w_o_missing", earlier) is None  # the exercise's own mistake
    assert carried_from(None, "hint_no_scale", earlier) is None                 # calls no earlier failure
    assert carried_from((4, "attention"), None, earlier) is None                # no hint: an unknown mistake


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
