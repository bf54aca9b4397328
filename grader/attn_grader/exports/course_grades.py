"""grades.csv: nbgrader's own columns, one row per learner and lesson given; grades-exercises.csv beside it."""
from __future__ import annotations

import csv
import datetime
from pathlib import Path

from .table import ENCODING, CourseExport, number

# nbgrader's CsvExportPlugin's columns, in its order, then what it cannot say.
COLUMNS = ["assignment", "duedate", "timestamp", "student_id", "last_name", "first_name", "email", "raw_score",
           "late_submission_penalty", "score", "max_score", "lesson", "language", "status", "override",
           "override_reason"]


def utc(when) -> str:
    """nbgrader stores times in UTC without saying so; the instructor typed the due date in their own zone
    ("2026-12-08 23:59:00 Asia/Tokyo"), so say it: 2026-12-08 14:59:00+00:00."""
    if when is None:
        return ""
    return str(when.astimezone(datetime.timezone.utc) if when.tzinfo else when.replace(tzinfo=datetime.timezone.utc))


def exercises_path(grades: Path) -> Path:
    """grades.csv -> grades-exercises.csv."""
    return grades.with_name(f"{grades.stem}-exercises{grades.suffix or '.csv'}")


class CourseGradesExport(CourseExport):
    """nbgrader's grades.csv, with a row only for what each learner was given or handed in.

    nbgrader's own exporter writes every learner × every assignment in the gradebook: 16 rows each here
    (8 lessons × 2 languages), 0 for a lesson not given yet or in the other language. Here a row is one
    lesson assigned (a due date), in the language the learner handed in, or a lesson handed in without a due
    date, for that learner only (table.py). `status` says graded, missing (0) or not_graded (scores blank: the
    grader could not run the notebook). `override` and `override_reason`: the instructor's override in force
    (overrides.py), which is then the row's `score`; raw_score and the penalty stay the grader's.

    grades-exercises.csv: one row per learner, a column per exercise of every lesson given
    ("03-masks ex1_causal_mask (2)"), each the score of the learner's graded notebook.
    """

    def export(self, gradebook) -> None:
        dest = Path(self.to or "grades.csv")
        table = self.rows(gradebook, submitted_too=True)
        with open(dest, "w", newline="", encoding=ENCODING) as f:
            writer = csv.writer(f)
            writer.writerow(COLUMNS)
            for r in table:
                writer.writerow([r.assignment, utc(r.duedate), utc(r.timestamp), r.student_id, r.last_name,
                                 r.first_name, r.email, number(r.raw_score), number(r.penalty), number(r.score),
                                 number(r.max_score), r.lesson, r.language, r.status,
                                 number(r.override.score) if r.override else "",
                                 r.override.reason if r.override else ""])
        given = self.lessons(gradebook, submitted_too=True)
        columns = [(lesson.lesson, grade_id, points) for lesson in given for grade_id, points in lesson.exercises]
        by_student: dict[str, dict] = {}
        for r in table:
            cells = by_student.setdefault(r.student_id, {})
            for grade_id, (score, _) in r.exercises.items():
                cells[r.lesson, grade_id] = score
        with open(exercises_path(dest), "w", newline="", encoding=ENCODING) as f:
            writer = csv.writer(f)
            writer.writerow(["student_id"] + [f"{lesson} {grade_id.removesuffix('_tests')} ({number(points)})"
                                              for lesson, grade_id, points in columns])
            for student, cells in by_student.items():
                writer.writerow([student] + [number(cells.get((lesson, grade_id))) for lesson, grade_id, _ in columns])
        self.log.info("grades: %s and %s (%d rows)", dest, exercises_path(dest), len(table))
