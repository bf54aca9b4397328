"""The class's grades as every export writes them: one row per learner and lesson, in the language the learner
handed in, read from nbgrader's gradebook (and its student table: names, e-mails, LMS ids).

Which lessons: those assigned to the class, that is with a due date (`nbgrader db assignment add …
--duedate=…`) in at least one language. One learner's early submission does not assign a lesson: an LMS file
has no column for a lesson without a due date, and no learner gets a 0 for it. grades.csv, the instructor's
own file, still lists such a submission as graded (its duedate blank), with no row for the others.
Which language: the one the learner submitted. A learner who has not submitted an assigned lesson gets a 0
(`missing`) in the language of their other submissions when the lesson has a due date in that language, and
no row when it has none there (a lesson assigned in Japanese only is not missing from a Korean learner's
work). A learner with no submission at all is listed in the one language the lesson is assigned in, or, when
it is assigned in both, under the lesson's id with a blank language. A learner who submitted both languages
counts with the better score.

A submission that was collected but could not be graded has no verdict (verdicts/, RecordVerdicts); its score
is None, so no export passes nbgrader's zeros off as a grade.

An instructor's override (overrides.py) is the score of its row, in every export, whatever the status.
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

from ..messages import lesson_of
from ..overrides import current, find

LANGS = ("ja", "ko")
GRADED, MISSING, NOT_GRADED = "graded", "missing", "not_graded"
# With a byte-order mark: Excel, the usual way into these files in Japan and Korea, reads a CSV without one in
# the machine's code page (Shift_JIS, CP949) and garbles every name; Canvas, Moodle and csv readers skip it.
ENCODING = "utf-8-sig"




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
    override: object = None    # the instructor's override in force (overrides.Override), or None

    @property
    def score(self) -> float | None:
        """What the learner gets: an override's score, else graded_score."""
        return self.override.score if self.override is not None else self.graded_score

    @property
    def graded_score(self) -> float | None:
        """The grader's score less the late penalty, never below 0; None when not graded."""
        if self.raw_score is None:
            return None
        return max(0.0, self.raw_score - (self.penalty or 0.0))

    @property
    def counts(self) -> bool:
        """Whether the row carries a grade: graded, missing (0), or set by an override."""
        return self.status != NOT_GRADED or self.override is not None


@dataclass
class Lesson:
    lesson: str
    assignments: dict          # language -> nbgrader Assignment
    max_score: float
    exercises: list            # (grade id, points), in notebook order

    @property
    def assigned(self) -> set[str]:
        """The languages this lesson has a due date in: where a learner without a submission is missing it."""
        return {lang for lang, a in self.assignments.items() if a.duedate is not None}


def lessons(gb: Gradebook, only: list[str] | None = None, submitted_too: bool = False) -> list[Lesson]:
    """The lessons assigned to the class, with a due date (only: assignment or lesson ids to keep), in order;
    submitted_too: also a lesson without one that a learner handed in (grades.csv lists their grade)."""
    grouped: dict[str, dict] = {}
    for assignment in gb.assignments:
        grouped.setdefault(lesson_of(assignment.name), {})[assignment.name.rpartition("-")[2]] = assignment
    found = []
    for lesson, by_lang in sorted(grouped.items()):
        if only:
            # "03-masks-ja" keeps that language alone: the file is about what the instructor asked for.
            by_lang = {lang: a for lang, a in by_lang.items() if lesson in only or a.name in only}
            if not by_lang:
                continue
        if not any(a.duedate is not None or (submitted_too and len(a.submissions) > 0) for a in by_lang.values()):
            continue
        first = next(iter(by_lang.values()))
        exercises = sorted(((cell.name, float(cell.max_score)) for notebook in first.notebooks
                            for cell in notebook.grade_cells), key=lambda c: _exercise_order(c[0]))
        found.append(Lesson(lesson, by_lang, float(first.max_score), exercises))
    return found


def unassigned(gb: Gradebook, only: list[str] | None = None) -> dict[str, int]:
    """assignment -> submissions, for every assignment (only: those asked for) handed in without a due date:
    what an LMS file leaves out, and the exporters say so."""
    asked = lambda a: bool(only) and (a.name in only or lesson_of(a.name) in only)  # noqa: E731
    return {a.name: len(a.submissions) for a in gb.assignments
            if a.duedate is None and (len(a.submissions) > 0 or asked(a)) and (not only or asked(a))}


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


def _not_graded_before_nbgrader(course: Path, assignment: str, student: str) -> bool:
    """A submission grade.py refused before nbgrader saw it (two notebooks that could each be the lesson's) is in
    no gradebook submission, only in verdicts/ (flags.py): it was handed in, so it is not_graded, never missing."""
    return (course / "verdicts" / assignment / f"{student}.not-graded.txt").exists()


def rows(gb: Gradebook, course: Path, students: list[str] | None = None, only: list[str] | None = None,
         submitted_too: bool = False) -> list[Row]:
    """Every learner (students: ids to keep) × every lesson assigned, one row each where the lesson is theirs;
    submitted_too: also the rows of lessons handed in without a due date (lessons())."""
    given = lessons(gb, only, submitted_too)
    overrides = current(course)
    # A learner's language, from everything they handed in: a file of one lesson (only) must not take a Korean
    # learner who has not handed that lesson in for a Japanese one.
    submitted: dict[str, Counter] = {}
    for assignment in gb.assignments:
        lang = assignment.name.rpartition("-")[2]
        if lang in LANGS:
            for submission in assignment.submissions:
                submitted.setdefault(submission.student_id, Counter())[lang] += 1
    table = []
    for student in sorted(gb.students, key=lambda s: s.id):
        if students and student.id not in students:
            continue
        usual = submitted.get(student.id, Counter()).most_common(1)
        for lesson in given:
            handed_in = []
            for lang, assignment in lesson.assignments.items():
                try:
                    handed_in.append(_row(gb, course, student, lesson, lang))
                except MissingEntry:
                    if _not_graded_before_nbgrader(course, assignment.name, student.id):
                        handed_in.append(Row(student.id, student.first_name or "", student.last_name or "",
                                             student.email or "", student.lms_user_id or "", lesson.lesson,
                                             assignment.name, lang, NOT_GRADED, duedate=assignment.duedate,
                                             max_score=float(assignment.max_score),
                                             exercises={name: (None, points) for name, points in lesson.exercises}))
            if handed_in:
                table.append(max(handed_in, key=lambda r: (r.status == GRADED, r.score or 0.0)))
                table[-1].override = find(overrides, student.id, table[-1].assignment)
                continue
            # Nothing handed in: missing only where the lesson has a due date in the learner's language.
            assigned = lesson.assigned
            if usual:
                if usual[0][0] not in assigned:
                    continue
                lang = usual[0][0]
            elif len(assigned) == 1:
                lang = next(iter(assigned))
            elif assigned:
                lang = ""  # assigned in both languages, and nothing says which is theirs
            else:
                continue
            assignment = lesson.assignments.get(lang)
            table.append(Row(student.id, student.first_name or "", student.last_name or "", student.email or "",
                             student.lms_user_id or "", lesson.lesson, assignment.name if assignment else lesson.lesson,
                             lang, MISSING, duedate=assignment.duedate if assignment else None,
                             max_score=lesson.max_score, raw_score=0.0, penalty=0.0,
                             exercises={name: (0.0, points) for name, points in lesson.exercises},
                             override=find(overrides, student.id, assignment.name if assignment else lesson.lesson)))
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

    def rows(self, gradebook, submitted_too: bool = False) -> list[Row]:
        return rows(gradebook, self.course_dir(), [str(s) for s in self.student] or None, self.only(), submitted_too)

    def lessons(self, gradebook, submitted_too: bool = False) -> list[Lesson]:
        return lessons(gradebook, self.only(), submitted_too)

    def warn_unassigned(self, gradebook, what: str) -> list[str]:
        """Say which handed-in (or asked-for) assignments have no due date, so are not in this file; return them."""
        left = unassigned(gradebook, self.only())
        for name, n in sorted(left.items()):
            self.log.warning("%s: %s has no due date, so it is not assigned and not in this file (%d submission(s)); "
                             "to count it: nbgrader db assignment add %s --duedate=\"YYYY-MM-DD HH:MM:SS Zone\"",
                             what, name, n, name)
        return sorted(left)

    def say_overrides(self, table: list[Row], what: str) -> None:
        """One line per override in the file: the score it sets and why (overrides.py)."""
        for r in table:
            if r.override is not None:
                self.log.warning("%s: %s %s: override %s (%s, %s)", what, r.student_id, r.lesson,
                                 number(r.override.score), r.override.reason, r.override.time)

    def only(self) -> list[str] | None:
        return [str(a) for a in self.assignment] or None


def number(x: float | None, blank: str = "") -> str:
    """15.0 -> "15", 7.5 -> "7.5"; None -> blank."""
    return blank if x is None else f"{round(x, 2):g}"
