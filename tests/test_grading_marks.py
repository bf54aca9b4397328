"""`:grading: skip`: the build refuses a mark something later depends on (tools/grading_marks.py), and the
grader's verdicts are the same whether the marked cells run or not, for the solution and every planted bug.

The run with the marked cells skipped is conftest's `graded` class (`make autograde` skips them by default);
the run with them is graded here with `--run-demo-cells`, for the lessons that have marks only.
"""
import json
import subprocess
import sys

import jupytext
import pytest
from classroom import course_skeleton, submission, submit
from conftest import ROOT, class_bugs, class_lessons
from grading_marks import check

LESSONS = class_lessons()
BUGS = class_bugs()


def marked(stem: str) -> list[int]:
    nb = jupytext.read(ROOT / "lessons" / f"{stem}.md")
    code = [c for c in nb.cells if c.cell_type == "code"]
    return [i for i, c in enumerate(code) if c.metadata.get("grading")]


WITH_MARKS = [stem for stem in sorted(LESSONS) if marked(stem)]
pytestmark = pytest.mark.xdist_group("grading_marks")  # one worker grades the module's classes (conftest, Scheduling)


# --------------------------------------------------------------------------- what the build refuses
def cells(*sources, marks=(), kinds=None):
    kinds = kinds or {}
    return [(kinds.get(i, ""), s, "skip" if i in marks else None) for i, s in enumerate(sources)]


def test_a_mark_on_a_cell_whose_names_are_read_later_is_refused():
    problems = check(cells("accuracy = train()", "plot(accuracy)", marks={0}))
    assert problems and "'accuracy'" in problems[0] and "code cell 1" in problems[0]
    # Also when the reader is a function defined later and called by a graded cell.
    assert check(cells("model = train()", "def answer():\n    return model.weight", marks={0}))
    # Read by a cell that is skipped too, or bound again before it is read: allowed.
    assert check(cells("accuracy = train()", "plot(accuracy)", marks={0, 1})) == []
    assert check(cells("x = slow()", "x = 1\nprint(x)", marks={0})) == []
    # A loop that binds its own target reads no earlier one.
    assert check(cells("T_ = 5", "for T_ in (1, 2):\n    print(T_)", marks={0})) == []


def test_a_mark_that_changes_an_object_a_later_cell_uses_is_refused():
    assert check(cells("model = make()", "model.eval()", "answer = model(x)", marks={1}))
    assert check(cells("model = make()", "nn.init.zeros_(model.bias)", "answer = model(x)", marks={1}))
    assert check(cells("model = make()", "model.c_proj.weight[0] = 0", "answer = model(x)", marks={1}))
    # A new object made and changed in the cell itself is the cell's own.
    assert check(cells("deep = make().eval()\ntrain(deep)", "answer = 1", marks={0})) == []


def test_graded_cells_and_unknown_marks_are_refused():
    assert check(cells("x = 1", kinds={0: "tests"}, marks={0}))
    assert check([("", "x = 1", "short")])


def test_every_lesson_source_passes_the_check_with_its_marks():
    for stem in LESSONS:
        nb = jupytext.read(ROOT / "lessons" / f"{stem}.md")
        code = [(c.metadata.get("kind", ""), c.source, c.metadata.get("grading")) for c in nb.cells
                if c.cell_type == "code"]
        assert check(code) == [], stem
    # The lessons that cost most to grade carry marks: lesson 5's and lesson 7's training runs among them.
    assert {"05_heads", "07_positions"} <= set(WITH_MARKS)


def test_the_source_notebooks_carry_the_marks_and_the_releases_match_them():
    from attn_grader.preprocessors.skip_demo_cells import marked_sources
    for stem in WITH_MARKS:
        for lang in ("ja", "ko"):
            source = ROOT / "autograder" / "source" / f"{LESSONS[stem].assignment}-{lang}" / f"{stem}.ipynb"
            assert len(marked_sources(source)) == len(marked(stem)), (stem, lang)


# --------------------------------------------------------------------------- the same verdicts either way
def _verdicts(course, assignment: str, student: str) -> dict:
    record = json.loads((course / "verdicts" / assignment / f"{student}.json").read_text(encoding="utf-8"))
    cells = {}
    for notebook in record["notebooks"].values():
        cells.update({k: (v["score"], v["status"], v["hint"]) for k, v in notebook["cells"].items()})
    return cells


@pytest.fixture(scope="module")
def graded_with_demo_cells(tmp_path_factory):
    """The lessons with marks, solution and every planted bug (ja), graded with every cell run."""
    course = course_skeleton(tmp_path_factory.mktemp("demo-cells-run"))
    for stem in WITH_MARKS:
        assignment = LESSONS[stem].assignment
        submit(course, "solution-ja", f"{assignment}-ja", stem, submission(assignment, stem, "ja"))
        for name, bug in BUGS[stem].items():
            submit(course, f"{name}-ja", f"{assignment}-ja", stem,
                   submission(assignment, stem, "ja", (bug.cell, bug.old, bug.new)))
    subprocess.run([sys.executable, "-m", "attn_grader.grade", "--course", str(course), "--run-demo-cells"],
                   check=True, stdout=subprocess.DEVNULL)
    return course


@pytest.mark.parametrize("stem", WITH_MARKS)
def test_verdicts_are_the_same_with_and_without_the_skipped_cells(graded_with_demo_cells, request, stem):
    # conftest's `graded` is asked for only now: as an argument it would be made first (a session fixture comes
    # before a module one), and this worker would wait on the other's lock instead of grading its own class.
    skipped, _ = request.getfixturevalue("graded")
    assignment = f"{LESSONS[stem].assignment}-ja"
    for student in ["solution-ja"] + [f"{name}-ja" for name in BUGS[stem]]:
        assert _verdicts(skipped, assignment, student) == _verdicts(graded_with_demo_cells, assignment, student), \
            (stem, student)
    # And the skipped cells were skipped: the graded class's feedback says so in the learner's language.
    from attn_grader.messages import text
    page = (skipped / "feedback" / "solution-ja" / assignment / f"{stem}.html").read_text("utf-8")
    assert page.count(text("demo_skipped", "ja")) == len(marked(stem))
