"""One learner graded again, late work, and a quiet terminal: `python -m attn_grader.grade --student … --assignment …`
(`make autograde STUDENT=… ASSIGNMENT=…`) on a small lesson-1 class.

A class of three is graded; then a learner hands in late (timestamp.txt after the due date) and only that
learner is graded: the others keep their grading untouched, the late one loses the penalty nbgrader's
late-submission plugin (LatePenalty) gives, and grades.csv, the Canvas file and the class report cover
everyone. No SQLAlchemy warning reaches the terminal.
"""
import csv
import json
import os
import subprocess
import sys

import pytest
from classroom import course_skeleton, submission, submit

ASSIGNMENT = "01-attention-ja"
DUE = "2026-12-08 23:59:00 Asia/Tokyo"

pytestmark = pytest.mark.xdist_group("regrade")  # one worker builds the module's class (conftest, Scheduling)


def grade(course, *args) -> subprocess.CompletedProcess:
    env = {**os.environ, "PATH": f"{os.path.dirname(sys.executable)}{os.pathsep}{os.environ['PATH']}"}
    run = subprocess.run([sys.executable, "-m", "attn_grader.grade", "--course", str(course), *args],
                         env=env, capture_output=True, text=True)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-4000:]
    return run


def nbgrader(course, *args) -> None:
    env = {**os.environ, "PATH": f"{os.path.dirname(sys.executable)}{os.pathsep}{os.environ['PATH']}"}
    subprocess.run([sys.executable, "-m", "nbgrader", *args, "--log-level=WARN"], cwd=course, env=env, check=True)


def rows(path):
    with open(path, newline="", encoding="utf-8-sig") as f:  # the grade files start with a BOM, for Excel
        return list(csv.DictReader(f))


@pytest.fixture(scope="module")
def term(tmp_path_factory):
    course = course_skeleton(tmp_path_factory.mktemp("term"))
    (course / "students.csv").write_text("id,first_name,last_name,email,lms_user_id\n"
                                         "aiko,愛子,佐藤,aiko@example.jp,11\nbora,보라,김,bora@example.kr,12\n"
                                         "chen,陳,王,chen@example.jp,13\ndana,ダナ,金,dana@example.jp,14\n", encoding="utf-8")
    submit(course, "aiko", ASSIGNMENT, "01_attention", submission("01-attention", "01_attention", "ja"))
    submit(course, "bora", ASSIGNMENT, "01_attention",
           submission("01-attention", "01_attention", "ja", ("ex1_attention_scores", " / math.sqrt(d_k)", "")))
    (course / "submitted" / "aiko" / ASSIGNMENT / "timestamp.txt").write_text("2026-12-08 20:00:00 Asia/Tokyo")
    first = grade(course, "--jobs", "2")  # releases the assignment into the gradebook, grades aiko and bora
    nbgrader(course, "db", "student", "import", "students.csv")
    nbgrader(course, "db", "assignment", "add", ASSIGNMENT, f"--duedate={DUE}")
    before = {s: (course / "verdicts" / ASSIGNMENT / f"{s}.json").stat().st_mtime_ns for s in ("aiko", "bora")}
    # chen hands in a day and a half late, by hand: the instructor writes the time it came in. The notebook
    # keeps the name the browser gave its second download (issue 42).
    submit(course, "chen", ASSIGNMENT, "01_attention (1)", submission("01-attention", "01_attention", "ja"))
    (course / "submitted" / "chen" / ASSIGNMENT / "timestamp.txt").write_text("2026-12-10 12:00:00 Asia/Tokyo")
    # dana's folder has the lesson's notebook and a download of it: which one she meant is not for a rule to pick.
    for name in ("01_attention", "01_attention-1"):
        submit(course, "dana", ASSIGNMENT, name, submission("01-attention", "01_attention", "ja"))
    late = grade(course, "--student", "chen", "dana", "--assignment", ASSIGNMENT)
    subprocess.run([sys.executable, "-m", "nbgrader", "export", "--exporter=attn_grader.exports.CanvasExport",
                    "--to=canvas.csv", "--log-level=WARN"], cwd=course, check=True,
                   env={**os.environ, "PATH": f"{os.path.dirname(sys.executable)}{os.pathsep}{os.environ['PATH']}"})
    return course, first, late, before


def test_only_the_learner_asked_for_is_graded_again(term):
    course, _, late, before = term
    after = {s: (course / "verdicts" / ASSIGNMENT / f"{s}.json").stat().st_mtime_ns for s in ("aiko", "bora")}
    assert after == before
    assert "graded 1/2" in late.stdout
    assert json.loads((course / "verdicts" / ASSIGNMENT / "chen.json").read_text("utf-8"))["student"] == "chen"


def test_a_notebook_named_as_a_download_is_graded_and_two_candidates_are_not(term):
    """chen's `01_attention (1).ipynb` is graded as 01_attention.ipynb; dana's two notebooks are NOT GRADED with
    one line of reason on the terminal and in flags.csv, and no traceback."""
    course, _, late, _ = term
    assert "renamed: chen/01-attention-ja: '01_attention (1).ipynb' is graded as 01_attention.ipynb" in late.stdout
    assert (course / "submitted" / "chen" / ASSIGNMENT / "01_attention.ipynb").exists()
    reason = [line for line in late.stderr.splitlines() if line.startswith("could not grade dana/")]
    assert len(reason) == 1 and "two notebooks could be 01_attention.ipynb" in reason[0], late.stderr[-2000:]
    assert "Traceback" not in late.stderr and "generate_assignment" not in late.stderr
    assert "NOT GRADED: 1 submission(s)" in late.stderr
    flagged = {r["student_id"]: r["code"] for r in rows(course / "flags.csv") if r["rule"] == "not_graded"}
    assert "'01_attention-1.ipynb'" in flagged["dana"]


@pytest.mark.parametrize("name, lesson, expected", [
    ("02_multihead (1)", "02_multihead", True), ("02_multihead(2)", "02_multihead", True),
    ("02_multihead-2", "02_multihead", True), ("02_multihead 2", "02_multihead", True),
    ("satoaiko_1234_5678_02_multihead", "02_multihead", True), ("satoaiko_late_1234_5678_02_multihead-1", "02_multihead", True),
    ("Copy of 02_multihead", "02_multihead", True), ("02_multihead のコピー", "02_multihead", True),
    ("02_multihead의 사본", "02_multihead", True), ("02_multihead - コピー (2)", "02_multihead", True),
    ("02_multihead_ko", "02_multihead", False), ("03_masks (1)", "02_multihead", False),
    ("Untitled", "02_multihead", False), ("02_multiheads", "02_multihead", False),
])
def test_download_names(name, lesson, expected):
    from attn_grader.lms_names import is_download_of
    assert is_download_of(name, lesson) is expected


def test_a_folder_without_the_lessons_notebook_says_what_it_found(tmp_path):
    from attn_grader.lms_names import resolve
    (tmp_path / "source" / "02-multihead-ja").mkdir(parents=True)
    (tmp_path / "source" / "02-multihead-ja" / "02_multihead.ipynb").write_text("{}")
    folder = tmp_path / "submitted" / "aiko" / "02-multihead-ja"
    folder.mkdir(parents=True)
    (folder / "Untitled.ipynb").write_text("{}")
    assert resolve(tmp_path, "02-multihead-ja", "aiko") == \
        ([], "no 02_multihead.ipynb in submitted/aiko/02-multihead-ja/ (found 'Untitled.ipynb'); "
             "save the learner's notebook there as 02_multihead.ipynb")
    (folder / "02_multihead (1).ipynb").write_text("{}")
    (folder / "02_multihead (2).ipynb").write_text("{}")
    renamed, why = resolve(tmp_path, "02-multihead-ja", "aiko")
    assert not renamed and why.startswith("2 notebooks could be 02_multihead.ipynb")
    (folder / "02_multihead (2).ipynb").unlink()
    assert resolve(tmp_path, "02-multihead-ja", "aiko") == ([("02_multihead (1).ipynb", "02_multihead.ipynb")], None)
    assert sorted(p.name for p in folder.iterdir()) == ["02_multihead.ipynb", "Untitled.ipynb"]


def test_late_work_loses_the_configured_penalty_and_the_class_files_cover_everyone(term):
    course, _, late, _ = term
    table = {r["student_id"]: r for r in rows(course / "grades.csv")}
    assert set(table) == {"aiko", "bora", "chen", "dana"} and table["dana"]["status"] == "not_graded"
    # Due 2026-12-08 23:59 JST, in 2026-12-10 12:00 JST: 1.5 days late, two days started, 10% each.
    assert (table["chen"]["raw_score"], table["chen"]["late_submission_penalty"], table["chen"]["score"]) == \
        ("15", "3", "12")
    assert (table["aiko"]["score"], table["bora"]["score"]) == ("15", "5")
    assert table["chen"]["last_name"] == "王" and table["chen"]["email"] == "chen@example.jp"
    assert "late: chen/01-attention-ja" in late.stdout
    canvas = {r["SIS Login ID"]: r for r in rows(course / "canvas.csv") if r["Student"] != "Points Possible"}
    assert (canvas["chen"]["ID"], canvas["chen"]["01-attention"]) == ("13", "12")
    report = (course / "report" / f"{ASSIGNMENT}.html").read_text("utf-8")
    assert "3 / 3" in report or "/ 3<" in report  # counts out of the three learners graded, over both runs
    assert len(list((course / "report" / ASSIGNMENT).glob("learner-*.html"))) == 3


def test_each_run_adds_what_it_graded_to_the_history_and_keeps_the_rest(term):
    """history.csv (attn_grader.history): the first run's gradings of aiko and bora stay as they were; the second
    run adds chen's late one (before and after the penalty, how late) and dana's, which could not be graded."""
    course, _, _, _ = term
    kept = rows(course / "history.csv")
    assert [(r["student_id"], r["status"]) for r in kept] == \
        [("aiko", "graded"), ("bora", "graded"), ("chen", "graded"), ("dana", "not_graded")]
    aiko, bora, chen, dana = kept
    assert aiko["graded_at"] == bora["graded_at"] < chen["graded_at"] == dana["graded_at"]
    assert (aiko["raw_score"], aiko["duedate"], bora["raw_score"]) == ("15", "", "5")
    # Due 2026-12-08 23:59 JST, in 2026-12-10 12:00 JST: 36 hours and a minute late.
    assert (chen["raw_score"], chen["late_penalty"], chen["score"], chen["seconds_late"]) == ("15", "3", "12", "129660")
    assert "no_timestamp" not in chen["flags"] and "not_graded" in dana["flags"] and dana["score"] == ""
    assert len(list((course / "report" / "learners").glob("learner-*.html"))) == 4


def test_a_submission_without_a_timestamp_is_flagged_once_there_is_a_due_date(term):
    course, first, late, _ = term
    flagged = {(r["student_id"], r["rule"]) for r in rows(course / "flags.csv")}
    # bora's notebook was copied without timestamp.txt. Graded before the due date was set, it was not
    # flagged then; flags.csv is the whole class's, so the run that graded only chen flags it. chen's and
    # aiko's have one.
    assert "no_timestamp" not in first.stdout
    assert ("bora", "no_timestamp") in flagged and "bora/01-attention-ja" in late.stdout
    assert ("chen", "no_timestamp") not in flagged and ("aiko", "no_timestamp") not in flagged
    # Only the learner graded this time is reported late on the terminal.
    assert "late: aiko" not in late.stdout and "late: bora" not in late.stdout


def test_the_late_learner_sees_the_penalty_in_their_language(term):
    course, _, _, _ = term
    page = (course / "feedback" / "chen" / ASSIGNMENT / "01_attention.html").read_text("utf-8")
    assert "提出遅れの減点" in page and "-3" in page and "Late submission penalty" not in page
    # How late and by which rule (issue 42): due 12-08 23:59, handed in 12-10 12:00 (JST).
    assert "1 日 12 時間遅れ、1 日ごとに 10%" in page
    on_time = (course / "feedback" / "aiko" / ASSIGNMENT / "01_attention.html").read_text("utf-8")
    assert "提出遅れの減点" not in on_time


@pytest.mark.parametrize("method, seconds_late, score, penalty", [
    ("per_day", 1, 15.0, 1.5),              # a second late is a day started
    ("per_day", 86400, 15.0, 1.5),          # exactly a day: one day
    ("per_day", 86401, 15.0, 3.0),
    ("per_day", 30 * 86400, 15.0, 15.0),    # never more than the score
    ("per_day", 0, 15.0, None),
    ("none", 5 * 86400, 15.0, None),
    ("zero", 60, 15.0, 15.0),               # nbgrader's own: a late notebook scores 0
])
def test_late_penalty_plugin(method, seconds_late, score, penalty):
    from attn_grader.late_penalty import LatePenalty
    plugin = LatePenalty(penalty_method=method)
    assert plugin.late_submission_penalty("aiko", score, seconds_late) in (penalty, *((0, 0.0) if penalty is None else ()))


def test_late_penalty_grace_minutes():
    from attn_grader.late_penalty import LatePenalty
    plugin = LatePenalty(grace_minutes=30)
    assert plugin.late_submission_penalty("aiko", 10.0, 29 * 60) is None
    assert plugin.late_submission_penalty("aiko", 10.0, 31 * 60) == 1.0


def test_the_terminal_gets_no_sqlalchemy_warning(term):
    _, first, late, _ = term
    for run in (first, late):
        assert "SAWarning" not in run.stderr and "Warning" not in run.stderr.replace("WARNING: kernels NOT", "")


def test_a_submission_refused_for_two_notebooks_keeps_no_earlier_verdict_or_feedback(tmp_path, capsys):
    """Graded once, then handed in again as a second download beside the first: the old score and page must not
    stand for a notebook that may not be the one meant."""
    from attn_grader.grade import lms_names
    (tmp_path / "source" / "01-attention-ja").mkdir(parents=True)
    (tmp_path / "source" / "01-attention-ja" / "01_attention.ipynb").write_text("{}")
    for folder, name in (("submitted", "01_attention.ipynb"), ("submitted", "01_attention (1).ipynb"),
                         ("feedback", "01_attention.html")):
        (tmp_path / folder / "aiko" / "01-attention-ja").mkdir(parents=True, exist_ok=True)
        (tmp_path / folder / "aiko" / "01-attention-ja" / name).write_text("{}")
    (tmp_path / "verdicts" / "01-attention-ja").mkdir(parents=True)
    (tmp_path / "verdicts" / "01-attention-ja" / "aiko.json").write_text("{}")
    refused = lms_names(tmp_path, [("01-attention-ja", "aiko")])
    assert list(refused) == [("01-attention-ja", "aiko")]
    assert not (tmp_path / "verdicts" / "01-attention-ja" / "aiko.json").exists()
    assert not (tmp_path / "feedback" / "aiko" / "01-attention-ja").exists()
    assert len(list((tmp_path / "submitted" / "aiko" / "01-attention-ja").iterdir())) == 2  # the learner's files stay
