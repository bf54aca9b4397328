"""The class's grades as every export writes them: one row per learner and lesson, in the language the learner
handed in, read from nbgrader's gradebook (and its student table: names, e-mails, LMS ids).

Which lessons: those given to the class, that is with a due date (`nbgrader db assignment add … --duedate=…`)
or with at least one submission, in either language. Released but not yet given, a lesson has no row.
Which language: the one the learner submitted. A learner who has not submitted a lesson is listed in the
language of their other submissions (or, with none, under the lesson's id) with a score of 0. A learner who
submitted both languages counts with the better score.

A submission that was collected but could not be graded has no verdict (verdicts/, RecordVerdicts); its score
is None, so no export passes nbgrader's zeros off as a grade.
"""
from __future__ import annotations

import os
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from nbgrader.api import Gradebook, MissingEntry
from nbgrader.plugins import ExportPlugin
from traitlets import Unicode

LANGS = ("ja", "ko")
GRADED, MISSING, NOT_GRADED = "graded", "missing", "not_graded"


def lesson_of(assignment: str) -> str:
    """03-masks-ja -> 03-masks."""
    stem, _, lang = assignment.rpartition("-")
    return stem if lang in LANGS else assignment


@dataclass
class Row:
    student_id: str
    first_name: str
    last_name: str
    email: str
    lms_user_id: str
    lesson: str
    assignment: str            # the nbgrader assignment (03-masks-ja), or the lesson when the language is unknown
    language: str              # "ja", "ko", or "" when the learner submitted nothing at all
    status: str                # GRADED, MISSING or NOT_GRADED
    duedate: object = None
    timestamp: object = None
    max_score: float = 0.0
    raw_score: float | None = None
    penalty: float | None = None
    exercises: dict = field(default_factory=dict)   # grade id -> (score or None, points)

    @property
    def score(self) -> float | None:
        """What the learner gets: the score less the late penalty, never below 0; None when not graded."""
        if self.raw_score is None:
            return None
        return max(0.0, self.raw_score - (self.penalty or 0.0))


@dataclass
class Lesson:
    lesson: str
    assignments: dict          # language -> nbgrader Assignment
    max_score: float
    exercises: list            # (grade id, points), in notebook order


def _given(assignment) -> bool:
    return assignment.duedate is not None or len(assignment.submissions) > 0


def lessons(gb: Gradebook, only: list[str] | None = None) -> list[Lesson]:
    """The lessons given to the class (only: assignment or lesson ids to keep), in order."""
    grouped: dict[str, dict] = {}
    for assignment in gb.assignments:
        grouped.setdefault(lesson_of(assignment.name), {})[assignment.name.rpartition("-")[2]] = assignment
    found = []
    for lesson, by_lang in sorted(grouped.items()):
        if only and lesson not in only and not any(a.name in only for a in by_lang.values()):
            continue
        if not any(_given(a) for a in by_lang.values()):
            continue
        first = next(iter(by_lang.values()))
        exercises = sorted(((cell.name, float(cell.max_score)) for notebook in first.notebooks
                            for cell in notebook.grade_cells), key=lambda c: _exercise_order(c[0]))
        found.append(Lesson(lesson, by_lang, float(first.max_score), exercises))
    return found


def _exercise_order(grade_id: str) -> tuple:
    """ex2_… before ex10_…; a grade id of another form after them, by name."""
    match = re.match(r"ex(\d+)_", grade_id)
    return (int(match[1]) if match else 1 << 30, grade_id)


def _verdict_exists(course: Path, assignment: str, student: str) -> bool:
    return (course / "verdicts" / assignment / f"{student}.json").exists()


def _row(gb: Gradebook, course: Path, student, lesson: Lesson, lang: str) -> Row:
    assignment = lesson.assignments[lang]
    row = Row(student.id, student.first_name or "", student.last_name or "", student.email or "",
              student.lms_user_id or "", lesson.lesson, assignment.name, lang, GRADED,
              duedate=assignment.duedate, max_score=float(assignment.max_score))
    submission = gb.find_submission(assignment.name, student.id)
    row.timestamp = submission.timestamp
    if not _verdict_exists(course, assignment.name, student.id):
        row.status = NOT_GRADED
        row.exercises = {name: (None, points) for name, points in lesson.exercises}
        return row
    row.raw_score, row.penalty = float(submission.score), float(submission.late_submission_penalty or 0.0)
    grades = {g.name: float(g.score) for notebook in submission.notebooks for g in notebook.grades}
    row.exercises = {name: (grades.get(name), points) for name, points in lesson.exercises}
    return row


def rows(gb: Gradebook, course: Path, students: list[str] | None = None, only: list[str] | None = None) -> list[Row]:
    """Every learner (students: ids to keep) × every lesson given, one row each."""
    given = lessons(gb, only)
    submitted: dict[str, Counter] = {}
    for lesson in given:
        for lang, assignment in lesson.assignments.items():
            for submission in assignment.submissions:
                submitted.setdefault(submission.student_id, Counter())[lang] += 1
    table = []
    for student in sorted(gb.students, key=lambda s: s.id):
        if students and student.id not in students:
            continue
        usual = submitted.get(student.id, Counter()).most_common(1)
        for lesson in given:
            handed_in = []
            for lang in lesson.assignments:
                try:
                    handed_in.append(_row(gb, course, student, lesson, lang))
                except MissingEntry:
                    continue
            if handed_in:
                table.append(max(handed_in, key=lambda r: (r.status == GRADED, r.score or 0.0)))
                continue
            lang = usual[0][0] if usual and usual[0][0] in lesson.assignments else ""
            assignment = lesson.assignments.get(lang)
            table.append(Row(student.id, student.first_name or "", student.last_name or "", student.email or "",
                             student.lms_user_id or "", lesson.lesson, assignment.name if assignment else lesson.lesson,
                             lang, MISSING, duedate=assignment.duedate if assignment else None,
                             max_score=lesson.max_score, raw_score=0.0, penalty=0.0,
                             exercises={name: (0.0, points) for name, points in lesson.exercises}))
    return table


class CourseExport(ExportPlugin):
    """What the course's exporters share: the course folder, whose verdicts/ tell graded from not graded."""

    course = Unicode("", help="the course folder (default: nbgrader export's own course root, else the "
                              "current folder)").tag(config=True)

    def course_dir(self) -> Path:
        if self.course:
            return Path(self.course)
        coursedir = getattr(self.parent, "coursedir", None)
        return Path(coursedir.root if coursedir is not None else os.getcwd())

    def rows(self, gradebook) -> list[Row]:
        return rows(gradebook, self.course_dir(), [str(s) for s in self.student] or None, self.only())

    def lessons(self, gradebook) -> list[Lesson]:
        return lessons(gradebook, self.only())

    def only(self) -> list[str] | None:
        return [str(a) for a in self.assignment] or None


def number(x: float | None, blank: str = "") -> str:
    """15.0 -> "15", 7.5 -> "7.5"; None -> blank."""
    return blank if x is None else f"{round(x, 2):g}"
