"""`:grading: skip`: the build refuses a mark something later depends on (tools/grading_marks.py), and the
grader's verdicts are the same whether the marked cells run or not, for the solution and every planted bug
that a marked cell can see.

The run with the marked cells skipped is conftest's `graded` class (`make autograde` skips them by default).
The run with them is graded here, for the lessons that have marks only: the solution with every marked cell
(`--run-demo-cells`), and each planted bug's submission (tests/bug_packs.py: a marked cell sees at most one bug
of it) with the marked cells whose outcome can depend on a bug's cell.
Lesson 7's five-model training, 25 s a notebook, runs for the 12 bugs of what it trains, not for all 34: a
marked cell that reads nothing the bug changed runs as it does for the solution; and for a bug it trains for a
few steps only, the solution's in full (tests/short_demos.py; issue 28).
"""
import ast
import json
import re
import subprocess
import sys

import jupytext
import nbformat
import pytest
from attn_grader.cell_names import parse
from attn_grader.preprocessors.skip_demo_cells import _code
import bug_packs
import short_demos
from classroom import MARKERS, course_skeleton, submission, submit
from conftest import ROOT, class_bugs, class_lessons
from grading_marks import check, depends_on

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


def demo_runs(stem: str) -> dict[str, list[int]]:
    """student -> the marked code cells (indices among the lesson's code cells) run for them: every one for the
    solution; for a planted bug, those whose outcome can depend on the bug's cell (grading_marks.depends_on),
    with the marked cells they in turn read. A bug no marked cell depends on gets none and is not graded again:
    there the marked cells run the solution's code on the solution's values, and the solution is compared."""
    source = nbformat.read(ROOT / "autograder" / "source" / f"{LESSONS[stem].assignment}-ja" / f"{stem}.ipynb", 4)
    code = [c for c in source.cells if c.cell_type == "code"]
    sources = [MARKERS.sub("", c.source) for c in code]
    marks = [i for i, c in enumerate(code) if c.metadata.get("attn_course", {}).get("grading") == "skip"]
    needs = {m: depends_on(sources, m) for m in marks}
    runs = {"solution-ja": marks}
    for student, pack in bug_packs.students(stem).items():  # no marked cell reads two bugs of a pack
        run = {m for m in marks for name in pack if bug_packs.bug_cells(stem)[name] in needs[m]}
        run |= {e for m in run for e in needs[m] if e in marks}
        runs[student] = sorted(run)
    return runs


def with_cells_run(nb, stem: str, run: list[int]):
    """The submission with the marked cells in run changed, as a learner may change them: each `train(…)` call
    shortened (tests/short_demos.py: a bug reaches a training through its first steps), and a comment line. The
    grader runs a demonstration cell the learner changed (SkipDemoCells), and skips the others as `make autograde`
    does."""
    from attn_grader.preprocessors.skip_demo_cells import marked_sources
    marked = marked_sources(ROOT / "autograder" / "source" / f"{LESSONS[stem].assignment}-ja" / f"{stem}.ipynb")
    order = dict(zip(map(tuple, marked), DEMO[stem]))
    for cell in nb.cells:
        if cell.cell_type == "code" and order.get(tuple(_code(cell.source))) in run:
            cell.source = short_demos.shorten(cell.source)
            cell.source += "\n# run while grading (tests/test_grading_marks.py)"
    return nb


DEMO = {stem: demo_runs(stem)["solution-ja"] for stem in WITH_MARKS}


@pytest.fixture(scope="module")
def graded_with_demo_cells(tmp_path_factory):
    """The lessons with marks graded again with marked cells run: the solution (ja) with every one, by
    `--run-demo-cells`; each planted bug (ja) with those its cell can change, as a class of its own. Returns
    {student: course} for every student graded."""
    everything = course_skeleton(tmp_path_factory.mktemp("demo-cells-run"))
    some = course_skeleton(tmp_path_factory.mktemp("demo-cells-some"))
    where = {}
    for stem in WITH_MARKS:
        assignment = LESSONS[stem].assignment
        submit(everything, "solution-ja", f"{assignment}-ja", stem, submission(assignment, stem, "ja"))
        for student, pack in bug_packs.students(stem).items():
            run = demo_runs(stem)[student]
            if run:
                nb = with_cells_run(submission(assignment, stem, "ja", bug_packs.edits(stem, pack)), stem, run)
                submit(some, student, f"{assignment}-ja", stem, nb)
                where[stem, student] = some
        where.update({(stem, "solution-ja"): everything})
    # The two classes are graded at once: one after the other, the three solutions' long demonstrations ran on one
    # core while the other waited (issue 28).
    runs = [subprocess.Popen([sys.executable, "-m", "attn_grader.grade", "--course", str(course), *flags],
                             stdout=subprocess.DEVNULL)
            for course, flags in ((everything, ["--run-demo-cells", "--jobs", "1"]), (some, ["--jobs", "2"]))]
    assert [run.wait() for run in runs] == [0, 0]
    return where


def test_demo_runs_find_what_each_marked_cell_calls():
    """depends_on against a cruder reading: a marked cell that names a function or class an exercise defines is
    run for every planted bug of that exercise; and lessons 5 and 7 train for the bugs of what their training uses."""
    from attn_grader.cell_names import bound
    for stem in WITH_MARKS:
        source = nbformat.read(ROOT / "autograder" / "source" / f"{LESSONS[stem].assignment}-ja" / f"{stem}.ipynb", 4)
        code = [c for c in source.cells if c.cell_type == "code"]
        runs = demo_runs(stem)
        for name, bug in BUGS[stem].items():
            cell = next(c for c in code if c.metadata.get("nbgrader", {}).get("grade_id") == bug.cell)
            defined = {n for s in parse(MARKERS.sub("", cell.source)).body
                       if isinstance(s, (ast.FunctionDef, ast.ClassDef)) for n in bound(s)}
            for m in DEMO[stem]:
                if any(re.search(rf"\b{n}\b", code[m].source) for n in defined):
                    assert m in runs[bug_packs.student(stem, name)], (stem, name, m)
    assert {bug_packs.student("05_heads", b) for b in ("no_zero_grad", "ablation_one_column")} <= \
        {s for s, run in demo_runs("05_heads").items() if run}
    trains = next(m for m in DEMO["07_positions"] if "train(kind)" in _source(m))
    assert {s for s, run in demo_runs("07_positions").items() if trains in run} >= \
        {bug_packs.student("07_positions", b) for b in ("rope_pairing", "alibi_sign", "pe_halves")}


def test_bug_demonstrations_train_briefly_and_still_train():
    """Every `train(…)` of a marked cell a bug runs is shortened, and lessons 5 and 7 do still train for bugs."""
    calls = {}
    for stem in WITH_MARKS:
        nb = with_cells_run(submission(LESSONS[stem].assignment, stem, "ja"), stem, DEMO[stem])
        sources = [c.source for c in nb.cells if c.cell_type == "code" and "# run while grading" in c.source]
        assert len(sources) == len(DEMO[stem]), stem
        calls[stem] = [call for s in sources for call in short_demos.calls(s)]
        assert all(f"steps={short_demos.STEPS}" in call for call in calls[stem]), calls[stem]
    assert len(calls["05_heads"]) == 2 and len(calls["07_positions"]) == 1, calls


def _source(m: int) -> str:
    source = nbformat.read(ROOT / "autograder" / "source" / "07-positions-ja" / "07_positions.ipynb", 4)
    return [c for c in source.cells if c.cell_type == "code"][m].source


@pytest.mark.parametrize("stem", WITH_MARKS)
def test_verdicts_are_the_same_with_and_without_the_skipped_cells(graded_with_demo_cells, request, stem):
    # conftest's `graded` is asked for only now: as an argument it would be made first (a session fixture comes
    # before a module one), and this worker would wait on the other's lock instead of grading its own class.
    skipped, _ = request.getfixturevalue("graded")
    assignment = f"{LESSONS[stem].assignment}-ja"
    students = [s for (lesson, s) in graded_with_demo_cells if lesson == stem]
    assert "solution-ja" in students and len(students) > 1, stem
    for student in students:
        assert _verdicts(skipped, assignment, student) == \
            _verdicts(graded_with_demo_cells[stem, student], assignment, student), (stem, student)
        # The marked cells meant to run did run: none of them carries the note of a skipped cell.
        from attn_grader.messages import text
        nb = nbformat.read(graded_with_demo_cells[stem, student] / "autograded" / student / assignment /
                           f"{stem}.ipynb", 4)
        notes = sum(text("demo_skipped", "ja") in "".join(o.get("text", "") for o in c.get("outputs", []))
                    for c in nb.cells if c.cell_type == "code")
        assert notes == len(DEMO[stem]) - len(demo_runs(stem)[student]), (stem, student, notes)
    # And the skipped cells were skipped: the graded class's feedback says so in the learner's language.
    from attn_grader.messages import text
    page = (skipped / "feedback" / "solution-ja" / assignment / f"{stem}.html").read_text("utf-8")
    assert page.count(text("demo_skipped", "ja")) == len(marked(stem))
