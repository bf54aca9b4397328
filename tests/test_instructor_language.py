"""The class report, each learner's pages and flags.csv's notes in the instructor's language (ja, ko or en),
whatever the learners' languages: ClassReport.language in nbgrader_config.py, or ATTN_REPORT_LANG
(`make autograde REPORT_LANG=ko`).

The class is made with nbgrader's own API and verdicts written here, no kernel runs (small_class.py).
"""
import csv
import json
import re
import subprocess
from pathlib import Path

import pytest
from attn_grader.flags import HEADER, write_flags
from attn_grader.messages import COURSE_MESSAGES, MESSAGES, REPORT_LANGS, instructor_language, text
from attn_grader.report import report
from small_class import TITLES, make_course, write_sources

ROOT = Path(__file__).resolve().parent.parent
HINT = "hint_no_scale"   # a hint the learners' checks show, in ja and ko


@pytest.fixture
def course(tmp_path):
    course = make_course(tmp_path)
    write_sources(course)
    # aiko (Japanese) made a known mistake in ex2.
    path = course / "verdicts" / "03-masks-ja" / "aiko.json"
    record = json.loads(path.read_text("utf-8"))
    record["notebooks"]["03_nb"]["cells"]["ex2_apply_mask_tests"].update(status="mistake", hint=HINT, score=0.0)
    path.write_text(json.dumps(record), encoding="utf-8")
    return course


def visible(path: Path) -> str:
    page = re.sub(r'src="data:[^"]*"', "", path.read_text("utf-8"))
    return re.sub(r"<[^>]+>", " ", page.split("</style>")[-1])


def test_every_text_of_the_instructors_pages_is_in_each_language_they_may_choose():
    keys = [k for k in MESSAGES if k.startswith(("report_", "history_", "flag_", "late_days", "late_hours",
                                                 "late_minutes"))]
    assert len(keys) > 60
    for key in keys:
        assert set(REPORT_LANGS) <= set(MESSAGES[key]), key
        fields = set(re.findall(r"\{(\w+)", MESSAGES[key]["ja"]))
        for lang in REPORT_LANGS:   # the same fields in every language, so no text fails where another works
            assert set(re.findall(r"\{(\w+)", MESSAGES[key][lang])) == fields, (key, lang)


def test_a_korean_instructor_reads_the_japanese_learners_report_in_korean(course, monkeypatch):
    monkeypatch.setenv("ATTN_REPORT_LANG", "ko")
    report(course, jobs=1)
    page = visible(course / "report" / "03-masks-ja.html")
    assert '<html lang="ko">' in (course / "report" / "03-masks-ja.html").read_text("utf-8")
    # Headings, counts and the exercises' titles in Korean (titles from the lesson's Korean notebook) ...
    assert text("report_title", "ko", title=TITLES["ko"][0]) in page and TITLES["ko"][2] in page
    assert TITLES["ja"][2] not in page and text("report_full_marks", "ko") in page
    # ... and the hint the Japanese learner was shown, in Korean: the same hint, in the instructor's language.
    assert COURSE_MESSAGES[HINT]["ko"] in page and COURSE_MESSAGES[HINT]["ja"] not in page
    learner = visible(next((course / "report" / "03-masks-ja").glob("learner-*.html")))
    assert text("report_named_mistake", "ko") in learner and COURSE_MESSAGES[HINT]["ko"] in learner
    index = visible(course / "report" / "index.html")
    assert text("report_language_ja", "ko") in index and text("report_index_title", "ja") not in index
    across = visible(next((course / "report" / "learners").glob("learner-*.html")))
    assert text("history_link", "ko") in across


def test_an_english_report_gives_a_hint_without_english_text_in_the_learners_language_and_says_so(course, monkeypatch):
    monkeypatch.setenv("ATTN_REPORT_LANG", "en")
    report(course, jobs=1)
    page = visible(course / "report" / "03-masks-ja.html")
    assert text("report_title", "en", title=TITLES["ja"][0]) in page and text("report_full_marks", "en") in page
    said = text("report_hint_in", "en", lang=text("report_language_ja", "en"))
    assert said == " (in the learner's language: Japanese)"
    assert COURSE_MESSAGES[HINT]["ja"] + said in page.replace("&#x27;", "'")
    index = visible(course / "report" / "index.html")
    assert "Japanese" in index and "Korean" in index and text("report_lesson", "ja") not in index


def test_without_a_choice_each_lesson_is_reported_in_its_learners_language(course, monkeypatch):
    monkeypatch.delenv("ATTN_REPORT_LANG", raising=False)
    assert instructor_language(course) is None   # no nbgrader_config.py in this course: nothing chosen
    report(course, jobs=1)
    assert '<html lang="ja">' in (course / "report" / "03-masks-ja.html").read_text("utf-8")
    assert '<html lang="ko">' in (course / "report" / "03-masks-ko.html").read_text("utf-8")
    assert COURSE_MESSAGES[HINT]["ja"] in visible(course / "report" / "03-masks-ja.html")


def test_the_choice_is_read_from_nbgrader_config_and_the_environment_wins(tmp_path, monkeypatch):
    monkeypatch.delenv("ATTN_REPORT_LANG", raising=False)
    (tmp_path / "nbgrader_config.py").write_text('c = get_config()\nc.ClassReport.language = "ko"\n')
    assert instructor_language(tmp_path) == "ko"
    monkeypatch.setenv("ATTN_REPORT_LANG", "en")
    assert instructor_language(tmp_path) == "en"
    monkeypatch.setenv("ATTN_REPORT_LANG", "fr")
    with pytest.raises(ValueError, match="one of ja, ko, en"):
        instructor_language(tmp_path)
    monkeypatch.delenv("ATTN_REPORT_LANG")
    # The course's own nbgrader_config.py chooses nothing: each lesson in its learners' language.
    assert instructor_language(ROOT / "autograder") is None


@pytest.mark.parametrize("lang", REPORT_LANGS)
def test_flags_csv_says_what_each_rule_means_in_the_instructors_language(course, monkeypatch, lang):
    monkeypatch.setenv("ATTN_REPORT_LANG", lang)
    write_flags(course, [], isolation="no sandbox here", failed={("03-masks-ja", "eri"): "Traceback …"},
                untimed=[("03-masks-ko", "bora")])
    with open(course / "flags.csv", newline="", encoding="utf-8-sig") as f:
        rows = list(csv.reader(f))
    assert rows[0] == HEADER and HEADER[-1] == "note"
    notes = {r[4]: r[-1] for r in rows[1:]}
    assert notes == {rule: text(f"flag_{rule}", lang) for rule in ("no_isolation", "not_graded", "no_timestamp")}


def test_make_autograde_passes_the_instructors_language():
    dry = subprocess.run(["make", "-n", "autograde", "REPORT_LANG=ko", f"STAMP={ROOT / 'Makefile'}"], cwd=ROOT,
                         capture_output=True, text=True, check=True).stdout
    # The grading line, wherever make -n puts it (a sub-make's "Entering directory", the set-up line when make
    # finds the stamp older than requirements.txt in a fresh clone).
    line = next(line for line in dry.splitlines() if "-m attn_grader.grade" in line)
    assert line.startswith("ATTN_REPORT_LANG=ko ")
    # make export rewrites flags.csv's notes (a Moodle export's rows) in the same language.
    dry = subprocess.run(["make", "-n", "export", "LMS=moodle", "REPORT_LANG=ko", f"STAMP={ROOT / 'Makefile'}"],
                         cwd=ROOT, capture_output=True, text=True, check=True).stdout
    assert "cd autograder && ATTN_REPORT_LANG=ko " in dry and "MoodleExport" in dry
