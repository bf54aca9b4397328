"""Every grading kept (attn_grader.history, history.csv) and a learner's page across every lesson in the class
report (report_history.py): scores before and after the late penalty, lateness, flags, overrides, not graded.

The gradebook is made with nbgrader's own API, no kernel runs (small_class.py).
"""
import datetime
import re

import pytest
from attn_grader import history, overrides
from attn_grader.flags import write_flags
from attn_grader.late_penalty import lateness_text
from attn_grader.messages import text
from attn_grader.report import report
from nbgrader.api import Gradebook
from small_class import grade, make_course, write_sources

T = datetime.datetime(2026, 12, 9, 1, 0, tzinfo=datetime.timezone.utc)


@pytest.fixture
def course(tmp_path):
    course = make_course(tmp_path)
    write_sources(course)
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        gb.add_student("dana")          # assigned 03-masks, handed nothing in
    return course


def test_every_grading_is_kept_with_its_time_score_flags_and_submission(course):
    history.record(course, [("03-masks-ja", "aiko"), ("03-masks-ko", "bora"), ("03-masks-ja", "eri")], now=T)
    grade(course, "aiko", "03-masks-ja", (2.0, 3.0))                                  # the same work regraded
    history.record(course, [("03-masks-ja", "aiko")], now=T + datetime.timedelta(hours=1))
    grade(course, "aiko", "03-masks-ja", (0.0, 3.0), notebook_text='{"cells": []}')  # resubmitted
    (course / "flags.csv").write_text("student_id,assignment,notebook,cell,rule,line,code\n"
                                      "aiko,03-masks-ja,03_nb.ipynb,ex1,network,3,urlopen(u)\n", encoding="utf-8")
    overrides.write(course, "aiko", "03-masks", 4.0, "partial credit", now=T)
    history.record(course, [("03-masks-ja", "aiko")], now=T + datetime.timedelta(hours=2))
    rows = history.read(course)
    assert [(r["student_id"], r["graded_at"][11:16]) for r in rows] == \
        [("aiko", "01:00"), ("bora", "01:00"), ("eri", "01:00"), ("aiko", "02:00"), ("aiko", "03:00")]
    first, regrade, resubmission = (r for r in rows if r["student_id"] == "aiko")
    assert (first["raw_score"], first["score"], first["status"], first["flags"]) == ("3", "3", "graded", "")
    assert (regrade["raw_score"], regrade["submission"]) == ("5", first["submission"])
    assert resubmission["submission"] != first["submission"]
    assert (resubmission["raw_score"], resubmission["flags"]) == ("3", "network")
    assert (resubmission["override"], resubmission["override_reason"]) == ("4", "partial credit")
    bora = next(r for r in rows if r["student_id"] == "bora")
    assert (bora["raw_score"], bora["late_penalty"], bora["score"], bora["seconds_late"]) == ("5", "2", "3", "86400")
    assert bora["submitted_at"] == "2026-12-09T14:59:00+00:00" and bora["duedate"] == "2026-12-08T14:59:00+00:00"
    eri = next(r for r in rows if r["student_id"] == "eri")
    assert (eri["status"], eri["score"]) == ("not_graded", "")


def test_a_learners_page_shows_every_lesson_across_gradings(course):
    history.record(course, [("03-masks-ja", "aiko"), ("03-masks-ko", "bora"), ("03-masks-ja", "eri")], now=T)
    grade(course, "aiko", "03-masks-ja", (2.0, 3.0))
    history.record(course, [("03-masks-ja", "aiko")], now=T + datetime.timedelta(hours=1))
    grade(course, "aiko", "03-masks-ja", (0.0, 3.0), notebook_text='{"cells": []}')
    history.record(course, [("03-masks-ja", "aiko")], now=T + datetime.timedelta(hours=2))
    overrides.write(course, "aiko", "03-masks", 4.0, "partial credit", now=T + datetime.timedelta(hours=3))
    report(course, names=True, jobs=1)
    folder = course / "report-names" / "learners"
    index = (folder / "index.html").read_text("utf-8")
    pages = {re.search(r"<h1>[^<]*\((\w+)\)", p.read_text("utf-8"))[1]: p.read_text("utf-8")
             for p in folder.glob("learner-*.html")}
    assert set(pages) == {"aiko", "bora", "dana", "eri"} and all(f"({s})" in index for s in pages)
    assert 'href="learners/index.html"' in (course / "report-names" / "index.html").read_text("utf-8")
    aiko = pages["aiko"]
    # In the order they happened: graded, regraded, resubmitted, the override; what counts now first.
    order = [text(k, "ja") for k in ("history_graded", "history_regraded", "history_resubmitted")] + \
        [text("history_override_set", "ja", score="4", reason="partial credit")]
    assert [aiko.index(s) for s in order] == sorted(aiko.index(s) for s in order)
    assert text("report_override", "ja", score="4", total="5", reason="partial credit",
                time=overrides.current(course)["aiko", "03-masks"].time) in aiko
    bora = pages["bora"]                                  # a Korean learner's page is in Korean, without a choice
    assert '<html lang="ko">' in bora and lateness_text(86400, "ko") in bora
    assert re.search(r"<td>5</td><td>2</td><td>3</td>", bora)     # before the penalty, the penalty, after it
    assert text("history_status_missing", "ja") in pages["dana"]
    assert text("history_not_graded", "ja") in pages["eri"] and text("history_status_not_graded", "ja") in pages["eri"]
    # report/ (for the class) numbers the same pages, names no one, and keeps the override's reason apart.
    for page in (course / "report" / "learners").glob("*.html"):
        words = set(re.findall(r"\w+", page.read_text("utf-8")))
        assert not {"aiko", "bora", "dana", "eri", "partial"} & words, page


@pytest.mark.parametrize("seconds, due, submitted, says", [
    ("", "", "", "history_no_due"), ("0", "2026-12-08T14:59:00+00:00", "", "history_not_judged"),
    ("0", "2026-12-08T14:59:00+00:00", "2026-12-08T13:59:00+00:00", "history_on_time"),
])
def test_lateness_on_a_learners_page_says_why_there_is_none(seconds, due, submitted, says):
    """No due date, no timestamp.txt (copied by hand: not judged, never "on time"), or in time."""
    from attn_grader.report_history import _late
    assert _late(seconds, due, submitted, "ko") == text(says, "ko")


def test_flags_csv_rows_are_unchanged_by_a_history_record(course):
    write_flags(course, [], untimed=[("03-masks-ja", "aiko")])
    before = (course / "flags.csv").read_text("utf-8")
    history.record(course, [("03-masks-ja", "aiko")], now=T)
    assert (course / "flags.csv").read_text("utf-8") == before
    assert history.read(course)[0]["flags"] == "no_timestamp"
