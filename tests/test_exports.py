"""The course's nbgrader exporters (attn_grader.exports): grades.csv, grades-exercises.csv, Canvas, Moodle.

The gradebook is made here with nbgrader's own API (no kernel runs), so every number is known: each
export's header is checked against the format its LMS documents, and its numbers are read back.
"""
import csv
import datetime
import json
import subprocess
import sys
from pathlib import Path

import pytest
from attn_grader.exports import CanvasExport, CourseGradesExport, MoodleExport
from attn_grader.exports.course_grades import COLUMNS, exercises_path
from nbgrader.api import Gradebook

CELLS = {"ex1_causal_mask_tests": 2.0, "ex2_apply_mask_tests": 3.0}   # a lesson of 5 points
DUE = datetime.datetime(2026, 12, 8, 14, 59)                          # UTC
# student -> (first, last, email, lms id, {assignment: (scores per cell, penalty)}) ; no verdict: not graded
CLASS = {
    # aiko also handed lesson 8 in early: it has no due date, so it is assigned to no one (issue 42).
    "aiko": ("愛子", "佐藤", "aiko@example.jp", "1001", {"03-masks-ja": ((2.0, 3.0), 0.0),
                                                         "08-deployed-ja": ((1.0, 1.0), 0.0)}),
    "bora": ("보라", "김", "bora@example.kr", "1002", {"03-masks-ko": ((2.0, 1.0), 0.6)}),  # late
    "chen": ("", "", "", "", {"03-masks-ja": ((0.0, 0.0), 0.0)}),                          # not in the table
    "dana": ("Dana", "Kim", "dana@example.kr", "1004", {}),                                # handed in nothing
    "eri": ("絵里", "田中", "eri@example.jp", "1005", {"03-masks-ja": ((2.0, 0.0), 0.0)}),  # not graded
    # both languages: the better one counts
    "fumi": ("史", "山本", "fumi@example.jp", "1006", {"03-masks-ja": ((2.0, 0.0), 0.0),
                                                       "03-masks-ko": ((2.0, 3.0), 0.0)}),
}
NOT_GRADED = {("eri", "03-masks-ja")}
# 05-heads is assigned (a due date) in Japanese only, and no one has handed it in yet.
ASSIGNMENTS = {"03-masks-ja": DUE, "03-masks-ko": DUE, "04-gpt2-ja": None, "04-gpt2-ko": None,
               "05-heads-ja": DUE, "08-deployed-ja": None}

pytestmark = pytest.mark.xdist_group("exports")  # one worker builds the module's class (conftest, Scheduling)
ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    course = tmp_path_factory.mktemp("exports")
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        for name, due in ASSIGNMENTS.items():
            gb.add_assignment(name, duedate=due)
            gb.add_notebook(name.split("-")[0] + "_nb", name)
            for cell, points in CELLS.items():
                gb.add_grade_cell(cell, name.split("-")[0] + "_nb", name, max_score=points, cell_type="code")
        for student, (first, last, email, lms, handed_in) in CLASS.items():
            gb.add_student(student, first_name=first, last_name=last, email=email, lms_user_id=lms)
            for assignment, (scores, penalty) in handed_in.items():
                late = datetime.timedelta(days=1) if penalty else datetime.timedelta(hours=-1)
                gb.add_submission(assignment, student, timestamp=DUE + late)
                notebook = gb.find_submission_notebook(assignment.split("-")[0] + "_nb", assignment, student)
                for grade, score in zip(sorted(notebook.grades, key=lambda g: g.name), scores):
                    grade.auto_score = score
                notebook.late_submission_penalty = penalty
                gb.db.commit()
                if (student, assignment) not in NOT_GRADED:
                    folder = course / "verdicts" / assignment
                    folder.mkdir(parents=True, exist_ok=True)
                    (folder / f"{student}.json").write_text(json.dumps({"student": student}), encoding="utf-8")
        for exporter, to in ((CourseGradesExport, "grades.csv"), (CanvasExport, "canvas.csv"), (MoodleExport, "moodle.csv")):
            exporter(to=str(course / to), course=str(course),
                     **({"assignment_ids": {"03-masks": 777}} if exporter is CanvasExport else {})).export(gb)
    return course


def read(path):
    with open(path, newline="", encoding="utf-8-sig") as f:
        return list(csv.reader(f))


def expected_score(student):
    """What the learner gets for 03-masks: the better language, less its penalty; None when not graded."""
    handed_in = {a: v for a, v in CLASS[student][4].items() if a.startswith("03-masks")}
    options = [(sum(scores) - penalty) for a, (scores, penalty) in handed_in.items()
               if (student, a) not in NOT_GRADED]
    if not handed_in:
        return 0.0
    return max(options) if options else None


def test_grades_csv_has_a_row_per_learner_and_lesson_given_in_their_language(course):
    rows = read(course / "grades.csv")
    assert rows[0] == COLUMNS
    table = {r[3]: dict(zip(COLUMNS, r)) for r in rows[1:] if r[11] == "03-masks"}
    # 04-gpt2 has neither a due date nor a submission: not given, no row. One row per learner.
    assert len(table) == len(CLASS) and {r[11] for r in rows[1:]} == {"03-masks", "05-heads", "08-deployed"}
    assert (table["aiko"]["assignment"], table["aiko"]["language"], table["aiko"]["score"]) == ("03-masks-ja", "ja", "5")
    assert (table["bora"]["raw_score"], table["bora"]["late_submission_penalty"], table["bora"]["score"]) == \
        ("3", "0.6", "2.4")
    assert (table["dana"]["assignment"], table["dana"]["status"], table["dana"]["score"]) == ("03-masks", "missing", "0")
    assert (table["eri"]["status"], table["eri"]["raw_score"], table["eri"]["score"]) == ("not_graded", "", "")
    assert (table["fumi"]["assignment"], table["fumi"]["score"]) == ("03-masks-ko", "5")
    assert table["aiko"]["email"] == "aiko@example.jp" and table["aiko"]["last_name"] == "佐藤"
    # nbgrader keeps times in UTC; the file says so (the instructor gave the due date in Asia/Tokyo).
    assert (table["aiko"]["duedate"], table["aiko"]["timestamp"]) == ("2026-12-08 14:59:00+00:00",
                                                                      "2026-12-08 13:59:00+00:00")
    assert table["dana"]["timestamp"] == ""


def test_grades_exercises_csv_has_a_column_per_exercise(course):
    rows = read(exercises_path(course / "grades.csv"))
    assert rows[0][:3] == ["student_id", "03-masks ex1_causal_mask (2)", "03-masks ex2_apply_mask (3)"]
    table = {r[0]: r[1:3] for r in rows[1:]}
    assert table["aiko"] == ["2", "3"] and table["bora"] == ["2", "1"] and table["eri"] == ["", ""]
    assert table["dana"] == ["0", "0"]


def test_canvas_file_is_what_canvas_imports_and_its_numbers_read_back(course):
    rows = read(course / "canvas.csv")
    # Canvas's importer: row 0 starts Student, ID; SIS User ID then SIS Login ID; the last student column is
    # Section; an assignment column is "Title (id)"; row 1 starting "Points Possible" gives the points.
    assert rows[0] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "03-masks (777)", "05-heads"]
    assert rows[1] == ["Points Possible", "", "", "", "", "5", "5"]
    table = {r[3]: r for r in rows[2:]}
    assert set(table) == set(CLASS)
    assert table["aiko"][:2] == ["佐藤, 愛子", "1001"] and table["chen"][0] == "chen"
    for student in CLASS:
        got = table[student][5]
        want = expected_score(student)
        assert (float(got) if got else None) == (None if want is None else pytest.approx(want)), student


def test_moodle_file_is_what_moodle_imports_and_its_numbers_read_back(course, capsys):
    rows = read(course / "moodle.csv")
    assert rows[0] == ["First name", "Last name", "ID number", "Email address", "03-masks", "05-heads"]
    table = {r[3]: r for r in rows[1:]}
    # Moodle stops an import at a user it cannot find: no row without the e-mail it is mapped by.
    assert "" not in table and len(table) == len(CLASS) - 1
    by_email = {CLASS[s][2]: s for s in CLASS if CLASS[s][2]}
    for email, row in table.items():
        want = expected_score(by_email[email])
        assert (None if row[4] == "-" else float(row[4])) == (None if want is None else pytest.approx(want)), email


def test_nbgrader_export_runs_the_course_exporters(course):
    """Through nbgrader's own command line and its plugin mechanism, from the course folder."""
    (course / "nbgrader_config.py").write_text("c = get_config()\nc.CourseDirectory.root = "
                                               f"{str(course)!r}\n", encoding="utf-8")
    for exporter, to in (("CanvasExport", "via-nbgrader.csv"), ("CourseGradesExport", "grades-cli.csv")):
        subprocess.run([sys.executable, "-m", "nbgrader", "export", f"--exporter=attn_grader.exports.{exporter}",
                        f"--to={to}", "--log-level=WARN"], cwd=course, check=True)
    # The same learners and numbers; the header has no Canvas id (none configured for this run).
    assert read(course / "via-nbgrader.csv")[2:] == read(course / "canvas.csv")[2:]
    assert read(course / "grades-cli.csv") == read(course / "grades.csv")


def test_moodle_by_id_number_leaves_out_and_names_a_learner_without_one(course, capsys):
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        MoodleExport(to=str(course / "moodle-id.csv"), course=str(course), identify_by="lms_user_id").export(gb)
    rows = read(course / "moodle-id.csv")
    assert {r[2] for r in rows[1:]} == {CLASS[s][3] for s in CLASS if CLASS[s][3]}
    assert "chen" in capsys.readouterr().err  # no LMS id, so not in the file, and the instructor is told


def test_nbgrader_export_uses_the_course_grades_by_default():
    """README: `nbgrader export` run in autograder/ writes the course's grades.csv, not nbgrader's."""
    from traitlets.config.loader import PyFileConfigLoader
    root = ROOT / "autograder"
    config = PyFileConfigLoader("nbgrader_config.py", path=str(root)).load_config()
    assert config.ExportApp.plugin_class is CourseGradesExport



def make_n(*args):
    run = subprocess.run(["make", "-n", *args], cwd=ROOT, capture_output=True, text=True)
    return run.returncode, run.stdout + run.stderr


def test_make_autograde_passes_several_learners_and_a_lesson():
    _, out = make_n("autograde", "STUDENT=aiko bora", "ASSIGNMENT=03-masks")
    assert "-m attn_grader.grade --course autograder --student aiko bora" in out and "--assignment 03-masks" in out


@pytest.mark.parametrize("lms, exporter, to", [("canvas", "CanvasExport", "canvas-grades.csv"),
                                               ("moodle", "MoodleExport", "moodle-grades.csv"),
                                               ("grades", "CourseGradesExport", "grades.csv")])
def test_make_export_runs_the_lms_exporter(lms, exporter, to):
    code, out = make_n("export", f"LMS={lms}")
    assert code == 0 and f"--exporter=attn_grader.exports.{exporter}" in out and f"--to={to}" in out


def test_make_export_refuses_an_lms_it_has_no_exporter_for():
    run = subprocess.run(["make", "export", "LMS=blackboard"], cwd=ROOT, capture_output=True, text=True)
    assert run.returncode != 0 and "LMS=blackboard is not one of: grades canvas moodle" in run.stderr
    assert "nbgrader" not in run.stdout


def test_several_learners_and_a_lesson_select_their_submissions(tmp_path):
    from attn_grader.grade import submissions
    for student, assignment in (("aiko", "03-masks-ja"), ("bora", "03-masks-ko"), ("bora", "07-positions-ko"),
                                ("chen", "03-masks-ja")):
        (tmp_path / "submitted" / student / assignment).mkdir(parents=True)
    assert submissions(tmp_path, ["aiko", "bora"], ["03-masks"]) == [("03-masks-ja", "aiko"), ("03-masks-ko", "bora")]
    assert submissions(tmp_path, ["bora"]) == [("03-masks-ko", "bora"), ("07-positions-ko", "bora")]
    assert submissions(tmp_path, [], ["03-masks-ja"]) == [("03-masks-ja", "aiko"), ("03-masks-ja", "chen")]
    assert submissions(tmp_path, ["nobody"]) == []


# --------------------------------------------------------------------------- issue 42: only what was assigned
def test_a_lesson_counts_when_it_has_a_due_date_not_when_one_learner_hands_it_in(course):
    """aiko's early lesson 8 (no due date) is her grade in grades.csv and nobody's 0; the LMS files have no
    column for it. 05-heads is due in Japanese only: a Japanese learner who has not handed it in gets a 0, a
    Korean one no row, and a learner with no work at all the Japanese row, never a blank language."""
    rows = [dict(zip(COLUMNS, r)) for r in read(course / "grades.csv")[1:]]
    lesson8 = [r for r in rows if r["lesson"] == "08-deployed"]
    assert [(r["student_id"], r["status"], r["score"], r["duedate"]) for r in lesson8] == [("aiko", "graded", "2", "")]
    heads = {r["student_id"]: r for r in rows if r["lesson"] == "05-heads"}
    assert (heads["aiko"]["assignment"], heads["aiko"]["status"], heads["aiko"]["score"]) == ("05-heads-ja", "missing", "0")
    assert "bora" not in heads
    assert (heads["dana"]["language"], heads["dana"]["assignment"]) == ("ja", "05-heads-ja")
    assert all(r["language"] in ("ja", "ko") for r in rows if r["status"] != "missing" or r["lesson"] == "05-heads")
    for lms in ("canvas.csv", "moodle.csv"):
        header = read(course / lms)[0]
        assert not [h for h in header if h.startswith(("08-deployed", "04-gpt2"))], header
    canvas = {r[3]: dict(zip(read(course / "canvas.csv")[0], r)) for r in read(course / "canvas.csv")[2:]}
    assert (canvas["aiko"]["05-heads"], canvas["bora"]["05-heads"]) == ("0", "")  # bora: no grade, not a 0


def test_the_lms_files_start_with_a_byte_order_mark_so_excel_reads_the_names(course):
    for name in ("canvas.csv", "moodle.csv", "grades.csv", "grades-exercises.csv"):
        assert (course / name).read_bytes().startswith(b"\xef\xbb\xbf"), name
    assert "佐藤, 愛子" in (course / "canvas.csv").read_bytes().decode("utf-8-sig")


def test_an_export_can_be_limited_to_one_assignment_and_says_what_has_no_due_date(course):
    """nbgrader's own --assignment (make export ASSIGNMENT=…) reaches the course's exporters."""
    (course / "nbgrader_config.py").write_text("c = get_config()\nc.CourseDirectory.root = "
                                               f"{str(course)!r}\n", encoding="utf-8")
    run = lambda *args: subprocess.run([sys.executable, "-m", "nbgrader", "export", "--log-level=WARN",  # noqa: E731
                                        "--exporter=attn_grader.exports.CanvasExport", *args],
                                       cwd=course, capture_output=True, text=True, check=True)
    run("--to=one.csv", "--assignment=05-heads-ja")
    one = read(course / "one.csv")
    # bora (Korean) was not assigned 05-heads-ja: she is not in a file of that lesson alone.
    assert one[0][5:] == ["05-heads"] and {r[3] for r in one[2:]} == set(CLASS) - {"bora"}
    run("--to=two.csv", "--assignment=03-masks", "--assignment=05-heads")
    assert read(course / "two.csv")[0][5:] == ["03-masks", "05-heads"]
    # A lesson with no due date is not exported even when asked for, and the instructor is told how to assign it.
    said = run("--to=eight.csv", "--assignment=08-deployed-ja").stderr
    assert read(course / "eight.csv")[0][5:] == []
    assert "08-deployed-ja has no due date" in said and "nbgrader db assignment add 08-deployed-ja" in said
    # One language: bora handed in 03-masks-ko, so a file of 03-masks-ja has no row for her; aiko keeps her score.
    run("--to=ja.csv", "--assignment=03-masks-ja")
    ja = {r[3]: r[5] for r in read(course / "ja.csv")[2:]}
    assert ja["aiko"] == "5" and "bora" not in ja


def test_make_export_passes_the_assignment_filter_to_nbgrader():
    code, out = make_n("export", "LMS=canvas", "ASSIGNMENT=02-multihead-ja 03-masks")
    assert code == 0 and "--assignment=02-multihead-ja --assignment=03-masks" in out
    # A file of its own: the whole class's canvas-grades.csv is not replaced by a part of it.
    assert "--to=canvas-grades-02-multihead-ja+03-masks.csv" in out
    _, out = make_n("export", "LMS=moodle")
    assert "--assignment" not in out and "--to=moodle-grades.csv" in out


def test_a_learner_the_moodle_file_leaves_out_is_in_flags_csv(course):
    """Not one terminal line only: flags.csv says who, and why; a grading run keeps the row (flags.write_flags)."""
    from attn_grader.flags import write_flags
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        MoodleExport(to=str(course / "moodle-flags.csv"), course=str(course)).export(gb)
    def left_out():
        with open(course / "flags.csv", newline="", encoding="utf-8-sig") as f:
            return {(r["student_id"], r["rule"]): r["code"] for r in csv.DictReader(f) if r["rule"] == "lms_left_out"}
    assert list(left_out()) == [("chen", "lms_left_out")] and left_out()["chen", "lms_left_out"] == "email"
    write_flags(course, [])
    assert list(left_out()) == [("chen", "lms_left_out")]


def test_students_csv_and_the_named_report_are_never_committed():
    """The class's names, e-mails and LMS ids, and the report with ids, stay on the instructor's machine."""
    run = subprocess.run(["git", "check-ignore", "autograder/students.csv", "autograder/report-names/index.html"],
                         cwd=ROOT, capture_output=True, text=True)
    assert run.stdout.split() == ["autograder/students.csv", "autograder/report-names/index.html"]
    run = subprocess.run(["git", "check-ignore", "autograder/canvas-grades-02-multihead.csv",
                          "autograder/grades-02-multihead-exercises.csv"], cwd=ROOT, capture_output=True, text=True)
    assert len(run.stdout.split()) == 2


def test_a_timestamp_without_a_time_zone_is_said_not_taken_silently(course, tmp_path):
    # nbgrader reads "2026-12-08 23:30:00" as UTC: for a learner in Seoul 29 minutes early, 8.5 hours late, with a
    # penalty. The exchange's "… UTC" and an instructor's "… Asia/Seoul" name their zone.
    import shutil
    from attn_grader.flags import write_flags
    from attn_grader.grade import lateness, zone_missing
    assert zone_missing("2026-12-08 23:30:00") and zone_missing("2026-12-08T23:30:00")
    assert not any(zone_missing(s) for s in ("2026-12-08 23:30:00 Asia/Seoul", "2026-12-08 14:30:00.123456 UTC",
                                             "2026-12-08T23:30:00+09:00", "2026-12-08 23:30:00 +0900"))
    shutil.copy(course / "gradebook.db", tmp_path / "gradebook.db")
    for student, assignment, stamp in (("bora", "03-masks-ko", "2026-12-09 23:59:00"),
                                       ("aiko", "03-masks-ja", "2026-12-08 22:59:00 Asia/Tokyo")):
        folder = tmp_path / "submitted" / student / assignment
        folder.mkdir(parents=True)
        (folder / "03_masks.ipynb").write_text("{}")
        (folder / "timestamp.txt").write_text(stamp + "\n")
    late, untimed, zoneless = lateness(tmp_path, [("03-masks-ko", "bora"), ("03-masks-ja", "aiko")])
    assert zoneless == [("03-masks-ko", "bora")] and untimed == []
    write_flags(tmp_path, [], zoneless=zoneless)
    assert [r[4] for r in read(tmp_path / "flags.csv")[1:]] == ["timestamp_no_zone"]
