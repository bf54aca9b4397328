"""Shared fixtures: the repository root, a throwaway course, both languages, the references, judging a probe."""
import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from attn_course import messages
from attn_course.messages import t
from attn_course.validate import CheckFailed

ROOT = Path(__file__).resolve().parent.parent
REFERENCE = ROOT / "autograder" / "reference"
# Each solution notebook as JupyterLab saved it after tests/test_browser.py ran it, for
# tests/test_notebooks.py; a file older than this session is an earlier run's and is not read.
EXECUTED = ROOT / "test-artifacts" / "executed"
SESSION_START = time.time()



# ---------------------------------------------------------------------------- Scheduling
# `make test` runs two pytest-xdist workers with --dist loadgroup: the tests of a file that share a
# costly fixture are one group (its `pytestmark = pytest.mark.xdist_group(...)`) and run on one
# worker; every other test is a unit of its own. Units are handed out in collection order, so the
# longest go first and the many short tests fill in at the end. With whole files as units
# (--dist loadfile) a long file handed out last kept one worker busy while the other sat idle.
FIRST = ["test_grading", "test_report", "test_grading_marks", "test_browser", "test_notebooks", "test_colab_stack",
         "test_tamper", "test_tamper_by_hand", "test_regrade", "test_exchange", "test_build"]


@pytest.hookimpl(trylast=True)  # after xdist's own
def pytest_collection_modifyitems(config, items):
    rank = {name: n for n, name in enumerate(FIRST)}
    items.sort(key=lambda item: rank.get(item.module.__name__, len(FIRST)))  # stable: files keep their order
    # Each grouped test names its xdist group in its id, as pytest-xdist 3.8 means to: it writes `item._nodeid`,
    # which pytest 9 no longer reads, so --dist loadgroup split every group, and one worker waited 40 minutes
    # on the graded class's lock while the other graded it.
    if not (os.environ.get("PYTEST_XDIST_WORKER") and config.getvalue("loadgroup")):
        return
    from _pytest.nodeid import coerce_node_id
    for item in items:
        group = "_".join(sorted({str(m.args[0] if m.args else m.kwargs.get("name", "default"))
                                 for m in item.iter_markers("xdist_group")}))
        if group and not item.nodeid.endswith(f"@{group}"):
            item._id = coerce_node_id(f"{item.nodeid}@{group}")


@pytest.fixture(scope="session")
def course_copy(tmp_path_factory) -> Path:
    """A throwaway nbgrader course: config, reference and sources from the repository."""
    from classroom import course_skeleton
    return course_skeleton(tmp_path_factory.mktemp("course"))


def class_lessons() -> dict:
    """stem -> tools/lessons.py's Lesson, for every graded lesson; only those ATTN_TEST_LESSONS names
    (`make test-lesson LESSON=02_multihead`: one lesson's graded class, not every lesson's)."""
    from lessons import lessons
    only = {stem for stem in os.environ.get("ATTN_TEST_LESSONS", "").split(",") if stem}
    return {lesson.stem: lesson for lesson in lessons() if not only or lesson.stem in only}


def class_bugs() -> dict:
    """stem -> the lesson's planted bugs (tools/planted/lessonN.py)."""
    from planted import bugs
    return {stem: bugs(lesson.number) for stem, lesson in class_lessons().items()}


@pytest.fixture(scope="session")
def graded(tmp_path_factory):
    """The bug-submission class, graded once with `make autograde`'s own code: for every lesson, the
    solution and the untouched release in both languages, the release with every test cell tagged to be
    skipped, and the classic bugs (ja), several to a submission where no graded cell sees two of them
    (tests/bug_packs.py). Returns (course, {(stem, student): {cell: score}}).

    tests/test_grading.py and tests/test_report.py both read it. `make test`'s two workers may each
    run one of them: the first to ask grades the class in the workers' shared temporary folder, under
    a lock; the other waits and reads it (pytest-xdist's recipe for a session fixture made once).
    """
    import fcntl
    import json
    shared = tmp_path_factory.getbasetemp().parent if os.environ.get("PYTEST_XDIST_WORKER") else \
        tmp_path_factory.mktemp("graded")
    course, done = shared / "graded-class", shared / "graded-class.json"
    with open(shared / "graded-class.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        if not done.exists():
            scores = _grade_class(course)
            done.write_text(json.dumps([[stem, student, cells] for (stem, student), cells in scores.items()]))
    return course, {(stem, student): cells for stem, student, cells in json.loads(done.read_text())}


def _grade_class(course: Path) -> dict:
    import subprocess
    import sys

    import bug_packs
    from classroom import course_skeleton, submission, submit
    from nbgrader.api import Gradebook
    course_skeleton(course)
    lessons, students = class_lessons(), {}  # a student id names the lesson so ids stay unique per run
    for stem, bugs in class_bugs().items():
        make = lambda lang, edit=None, **kw: submission(lessons[stem].assignment, stem, lang, edit, **kw)  # noqa: E731
        for lang in ("ja", "ko"):
            students[stem, f"solution-{lang}"] = make(lang)
            students[stem, f"release-{lang}"] = make(lang, untouched=True)
        # Tamper: every grade cell tagged to be skipped, on an empty submission.
        students[stem, "skiptags-ja"] = make("ja", untouched=True, tag_tests_skip=True)
        # One submission per pack of planted bugs that no graded cell sees together (tests/bug_packs.py).
        for student, pack in bug_packs.students(stem).items():
            students[stem, student] = make("ja", bug_packs.edits(stem, pack))
    for (stem, student), nb in students.items():
        submit(course, student, f"{lessons[stem].assignment}-{student.rsplit('-', 1)[1]}", stem, nb)
    # No planted bug loops forever, so here the cell timeout only guards against a hang: lesson 7's
    # longest cell took 134 s of the course's 180 s while the machine ran at a load average of 10.
    env = {**os.environ, "ATTN_CELL_TIMEOUT": "1800"}
    subprocess.run([sys.executable, "-m", "attn_grader.grade", "--course", str(course)], env=env, check=True)
    scores = {}
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        for stem, student in students:
            lang = student.rsplit("-", 1)[1]
            nb = gb.find_submission_notebook(stem, f"{lessons[stem].assignment}-{lang}", student)
            scores[stem, student] = {g.name: g.score for g in nb.grades}
    return scores
@pytest.fixture(params=["ja", "ko"])
def lang(request):
    messages.set_language(request.param)
    yield request.param
    messages.set_language("ja")


def fails_with(check, arg, hint_key, **fields):
    """check(arg) must fail with the hint hint_key, in the current language."""
    with pytest.raises(CheckFailed) as info:
        check(arg)
    expected = t(hint_key, **fields)
    assert expected in str(info.value), f"expected hint {hint_key!r}, got:\n{info.value}"
    return info.value


def check_names(check, arg, hint_key, key: str | None = None) -> CheckFailed:
    """check(arg) must fail by its exercise's procedure (attn_course.judging.verify) with the likely mistake hint_key,
    shown in the current language with the fields the procedure found; with key, for that reason (a message key)."""
    from attn_course.judging import hint_of
    with pytest.raises(CheckFailed) as info:
        check(arg)
    failure = info.value
    found, fields = hint_of(failure.mismatch)
    assert found == hint_key, f"expected hint {hint_key!r}, got {found!r}:\n{failure}"
    if found:
        assert t(found, **fields) in str(failure)
    if key:
        assert failure.mismatch.key == key, (failure.mismatch.key, failure.mismatch.fields)
    return failure


def reference(lesson: str):
    """autograder/reference/<lesson>.py, loaded as the grader loads it."""
    from attn_grader.references import load
    return load(REFERENCE, lesson)


def judged(hidden_test, *learner_objects, seed: int = 20261123, source: str = ""):
    """Run a probe as the kernel would and judge it as the grader would: None, or the Mismatch. source: the learner's
    cell, which the grader reads too (a `.T` in it names the error)."""
    from attn_course.probes import SEED_ENV
    from attn_grader.verdict import decide
    saved = os.environ.get(SEED_ENV)
    os.environ[SEED_ENV] = str(seed)
    try:
        payload = hidden_test.record(*learner_objects)
    finally:
        if saved is None:
            os.environ.pop(SEED_ENV)
        else:
            os.environ[SEED_ENV] = saved
    return decide(REFERENCE, seed, hidden_test.test, payload, source)


def passes(hidden_test, *learner_objects, seed: int = 20261123) -> None:
    from attn_grader.verdict import localize
    failure = judged(hidden_test, *learner_objects, seed=seed)
    assert failure is None, localize(failure, "ja")


def fails(hidden_test, *learner_objects, key: str | None = None, seed: int = 20261123):
    """The hidden test must fail; with key, for that reason (a message key)."""
    failure = judged(hidden_test, *learner_objects, seed=seed)
    assert failure is not None, f"{hidden_test.test} passed"
    if key:
        assert failure.key == key, (failure.key, failure.fields)
    return failure


def pip(python, *args: str, env: dict | None = None) -> None:
    """Run pip; on failure, fail with what pip said minus the machine's warnings about absent mirrors.

    A CI machine's pip configuration may name local mirrors that do not exist there: pip then prints
    a warning per package, hundreds of lines that push its real error out of CI's excerpt. A full disk
    is the likeliest cause of an install that worked before (a torch wheel unpacks to about 1 GB).
    """
    run = subprocess.run([str(python), "-m", "pip", *args], env=env, capture_output=True, text=True)
    if run.returncode:
        said = [line for line in (run.stdout + run.stderr).splitlines() if "is ignored: it is neither" not in line]
        free = shutil.disk_usage(Path(str(python)).parent).free / 2**30
        pytest.fail(f"pip {' '.join(args)} exited {run.returncode} ({free:.1f} GiB free on its disk):\n"
                    + "\n".join(said[-40:]), pytrace=False)
