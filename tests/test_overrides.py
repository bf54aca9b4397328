"""An instructor's override of one learner's grade (attn_grader.overrides, `make override`: override_command.py),
and formgrader.

The gradebook is made with nbgrader's own API, no kernel runs (small_class.py).
"""
import csv
import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest
from attn_grader import override_command, overrides
from attn_grader.exports import CanvasExport, CourseGradesExport, MoodleExport
from attn_grader.messages import text
from attn_grader.report import report
from nbgrader.api import Gradebook
from small_class import grade, make_course, write_sources

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def course(tmp_path):
    return make_course(tmp_path)


def read(path):
    with open(path, newline="", encoding="utf-8-sig") as f:
        return list(csv.reader(f))


def exports(course) -> dict:
    """{file: {student: row as a dict}} for grades.csv, the Canvas file and the Moodle file."""
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        for exporter, to in ((CourseGradesExport, "grades.csv"), (CanvasExport, "canvas.csv"),
                             (MoodleExport, "moodle.csv")):
            exporter(to=str(course / to), course=str(course)).export(gb)
    out = {}
    for to, key, skip in (("grades.csv", "student_id", 0), ("canvas.csv", "SIS Login ID", 1),
                          ("moodle.csv", "ID number", 0)):
        rows = read(course / to)
        out[to] = {r[rows[0].index(key)].lower(): dict(zip(rows[0], r)) for r in rows[1 + skip:]}
    return out


def override(course, *args):
    override_command.main(["--course", str(course), "--no-redraw", *args])


def test_an_override_is_the_grade_in_every_export_with_its_reason(course):
    before = exports(course)
    assert before["grades.csv"]["bora"]["score"] == "3" and before["canvas.csv"]["bora"]["03-masks"] == "3"
    override(course, "--student", "bora", "--assignment", "03-masks", "--score", "4.5",
             "--reason", "late: the network was down (ticket 12)")
    # A learner whose notebook could not be graded can be given a grade too (sent by e-mail, graded by hand).
    override(course, "--student", "eri", "--assignment", "03-masks-ja", "--score", "5", "--reason", "graded by hand")
    after = exports(course)
    bora, eri, aiko = (after["grades.csv"][s] for s in ("bora", "eri", "aiko"))
    assert (bora["score"], bora["raw_score"], bora["late_submission_penalty"]) == ("4.5", "5", "2")
    assert (bora["override"], bora["override_reason"]) == ("4.5", "late: the network was down (ticket 12)")
    assert (eri["status"], eri["score"], eri["override"], eri["override_reason"]) == \
        ("not_graded", "5", "5", "graded by hand")
    assert (aiko["score"], aiko["override"], aiko["override_reason"]) == ("3", "", "")
    assert (after["canvas.csv"]["bora"]["03-masks"], after["canvas.csv"]["eri"]["03-masks"]) == ("4.5", "5")
    assert after["canvas.csv"]["aiko"]["03-masks"] == "3"
    moodle = after["moodle.csv"]
    assert (moodle["bora"]["03-masks"], moodle["bora"]["03-masks feedback"]) == \
        ("4.5", "late: the network was down (ticket 12)")
    assert (moodle["eri"]["03-masks"], moodle["aiko"]["03-masks feedback"]) == ("5", "")


def test_an_override_stands_through_a_regrade_and_a_resubmission_until_removed(course):
    override(course, "--student", "aiko", "--assignment", "03-masks", "--score", "4", "--reason", "partial credit")
    grade(course, "aiko", "03-masks-ja", (2.0, 3.0))                                  # regraded: now 5
    assert exports(course)["grades.csv"]["aiko"]["score"] == "4"
    grade(course, "aiko", "03-masks-ja", (0.0, 3.0), notebook_text='{"cells": []}')  # resubmitted: 3
    rows = exports(course)
    assert (rows["grades.csv"]["aiko"]["raw_score"], rows["grades.csv"]["aiko"]["score"]) == ("3", "4")
    assert rows["canvas.csv"]["aiko"]["03-masks"] == "4"
    override(course, "--student", "aiko", "--assignment", "03-masks", "--remove", "--reason", "resubmitted")
    rows = exports(course)
    assert (rows["grades.csv"]["aiko"]["score"], rows["grades.csv"]["aiko"]["override"]) == ("3", "")
    assert "03-masks feedback" not in rows["moodle.csv"]["aiko"]
    # Append-only: the setting and its removal are both kept, each with its time and reason.
    log = overrides.log(course)
    assert [(o.student_id, o.score, o.reason) for o in log] == [("aiko", 4.0, "partial credit"),
                                                                  ("aiko", None, "resubmitted")]
    assert overrides.current(course) == {}


def test_an_override_and_its_removal_are_in_history_csv_at_once(course):
    """Not only at the next grading: history.csv is the record of every grade a learner had, and when."""
    from attn_grader import history
    from attn_grader.report_history import write_pages
    history.record(course, [("03-masks-ko", "bora")])
    override(course, "--student", "bora", "--assignment", "03-masks", "--score", "4.5", "--reason", "network down")
    override(course, "--student", "bora", "--assignment", "03-masks", "--remove", "--reason", "resubmitted")
    graded, set_, removed = history.read(course)
    setting, removal = overrides.log(course)
    assert (graded["event"], graded["score"], graded["override"]) == (history.GRADING, "3", "")
    assert (set_["event"], set_["graded_at"], set_["assignment"]) == (history.OVERRIDE, setting.time, "03-masks-ko")
    assert (set_["raw_score"], set_["score"], set_["override"], set_["override_reason"]) == \
        ("5", "3", "4.5", "network down")
    assert (removed["event"], removed["graded_at"], removed["override"]) == (history.OVERRIDE, removal.time, "")
    # The learner's page says the override once, from overrides.csv with its reason, not again as a grading.
    write_pages(course, course, True, "", "en")
    page = next(t for p in (course / "learners").glob("learner-*.html") if "(bora)" in (t := p.read_text("utf-8")))
    assert page.count(f'<td>{text("history_graded", "en")} (03-masks-ko)</td>') == 1
    assert text("history_regraded", "en") not in page
    assert text("history_override_set", "en", score="4.5", reason="network down") in page


def test_history_csv_from_before_the_event_column_gets_it_for_every_earlier_row(course):
    from attn_grader import history
    history.record(course, [("03-masks-ko", "bora")])
    with open(course / history.FILE, newline="", encoding="utf-8-sig") as f:
        old = [r[:-1] for r in csv.reader(f)]
    with open(course / history.FILE, "w", newline="", encoding="utf-8-sig") as f:
        csv.writer(f).writerows(old)
    override(course, "--student", "bora", "--assignment", "03-masks-ko", "--score", "4", "--reason", "x")
    assert [(r["student_id"], r["event"]) for r in history.read(course)] == \
        [("bora", history.GRADING), ("bora", history.OVERRIDE)]


def test_an_override_before_any_grading_is_refused_and_makes_no_gradebook(tmp_path):
    with pytest.raises(SystemExit, match="no gradebook"):
        override(tmp_path, "--student", "aiko", "--assignment", "03-masks", "--score", "1", "--reason", "x")
    assert not list(tmp_path.iterdir())


def test_an_override_of_one_language_comes_before_the_lessons(course):
    override(course, "--student", "bora", "--assignment", "03-masks", "--score", "1", "--reason", "lesson")
    override(course, "--student", "bora", "--assignment", "03-masks-ko", "--score", "2", "--reason", "language")
    assert overrides.find(overrides.current(course), "bora", "03-masks-ko").score == 2.0
    assert exports(course)["grades.csv"]["bora"]["score"] == "2"


@pytest.mark.parametrize("args, says", [
    (["--student", "zoe", "--assignment", "03-masks", "--score", "1", "--reason", "x"], "zoe is not in"),
    (["--student", "aiko", "--assignment", "09-none", "--score", "1", "--reason", "x"], "no assignment 09-none"),
    (["--student", "aiko", "--assignment", "03-masks", "--score", "6", "--reason", "x"], "outside 0 … 5"),
    (["--student", "aiko", "--assignment", "03-masks", "--score", "4", "--reason", " "], "needs a reason"),
    (["--student", "aiko", "--assignment", "03-masks", "--remove", "--reason", "x"], "no override in force"),
])
def test_an_override_the_gradebook_cannot_place_is_refused_and_nothing_is_written(course, args, says):
    with pytest.raises(SystemExit) as stop:
        override(course, *args)
    assert says in str(stop.value)
    assert not (course / overrides.FILE).exists()


def test_the_class_report_shows_the_override_and_a_grade_entered_in_formgrader(course):
    write_sources(course)
    # Without --no-redraw (as make override runs it): grades.csv and the class report are redrawn at once.
    override_command.main(["--course", str(course), "--student", "bora", "--assignment", "03-masks", "--score", "4.5",
                    "--reason", "network down"])
    grades = {r[3]: r for r in read(course / "grades.csv")[1:]}
    assert grades["bora"][-2:] == ["4.5", "network down"]
    # report/ may be shown to the class: it shows the override, and its reason only in report-names/.
    shown = (course / "report" / "03-masks-ko.html").read_text("utf-8")
    assert "4.5" in shown and text("report_reason_elsewhere", "ko") in shown and "network down" not in shown
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:   # what formgrader saves
        gb.find_grade("ex2_apply_mask_tests", "03_nb", "03-masks-ja", "aiko").manual_score = 3.0
        gb.db.commit()
    report(course, names=True, jobs=1)
    page = (course / "report-names" / "03-masks-ko.html").read_text("utf-8")
    assert "4.5" in page and "network down" in page
    learner = next((course / "report-names" / "03-masks-ko").glob("learner-*.html")).read_text("utf-8")
    assert text("report_override", "ko", score="4.5", total="5", reason="network down",
                time=overrides.current(course)["bora", "03-masks"].time) in learner
    aiko = next((course / "report-names" / "03-masks-ja").glob("learner-*.html")).read_text("utf-8")
    assert text("report_manual", "ja", auto="1", comment="") in aiko
    assert text("report_out_of", "ja", score="5", total="5") in aiko   # 2 + 3 by hand, as the exports count it
    assert exports(course)["grades.csv"]["aiko"]["score"] == "5"


def test_make_override_runs_the_module_with_the_instructors_words():
    dry = subprocess.run(["make", "-n", "override", "STUDENT=aiko", "ASSIGNMENT=03-masks", "SCORE=4",
                          "REASON=partial credit", f"STAMP={ROOT / 'Makefile'}"], cwd=ROOT, capture_output=True,
                         text=True, check=True).stdout
    dry = " ".join(dry.split())
    assert '-m attn_grader.override_command --course autograder --student "aiko" --assignment "03-masks"' in dry
    assert '--score "4"' in dry and '--reason "partial credit"' in dry
    removal = subprocess.run(["make", "-n", "override", "STUDENT=aiko", "ASSIGNMENT=03-masks", "REMOVE=1",
                              "REASON=x", f"STAMP={ROOT / 'Makefile'}"], cwd=ROOT, capture_output=True, text=True,
                             check=True).stdout
    assert "--remove" in removal and "--score" not in removal


def test_make_formgrader_opens_formgrader_on_this_course_locally(monkeypatch):
    """The command's settings, read as JupyterLab and nbgrader's formgrader read them, without starting a server:
    on 127.0.0.1, opening /formgrader, the course folder its root and nbgrader_config.py's course; the
    formgrader extension enabled in this environment."""
    spec = importlib.util.spec_from_file_location("course_tool", ROOT / "tools" / "course.py")
    setup_tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(setup_tool)
    from jupyter_server.extension.config import ExtensionConfigManager
    from jupyter_server.serverapp import ServerApp
    from jupyterlab.labapp import LabApp
    from nbgrader.server_extensions.formgrader.formgrader import FormgradeExtension
    command = setup_tool.formgrader_command(Path(sys.executable))
    assert command[1:4] == ["-m", "jupyter", "lab"]
    # JupyterLab's own default page (/lab) wins over the server's: the URL it prints is LabApp's default_url.
    lab = LabApp()
    lab.parse_command_line([a for a in command[4:] if a.startswith("--")])
    assert lab.default_url == "/formgrader"
    app = ServerApp(config=lab.config)
    assert (app.ip, app.open_browser) == ("127.0.0.1", False)
    assert Path(app.root_dir) == ROOT / "autograder"
    enabled = ExtensionConfigManager(read_config_path=app.config_file_paths).get_jpserver_extensions()
    assert enabled.get("nbgrader.server_extensions.formgrader") is True
    monkeypatch.chdir(ROOT / "autograder")   # where tools/course.py starts it: formgrader reads the config there
    formgrader = FormgradeExtension()
    formgrader.root_dir = app.root_dir
    formgrader.initialize([])
    assert Path(formgrader.coursedir.root) == ROOT / "autograder" and formgrader.url_prefix == "."
    assert formgrader.coursedir.course_id == "attention-head-by-head"
    make = subprocess.run(["make", "-n", "formgrader", f"STAMP={ROOT / 'Makefile'}"], cwd=ROOT, capture_output=True,
                          text=True, check=True).stdout
    assert "tools/course.py formgrader" in make
