"""The CSV Moodle's gradebook import reads (Grades → Import → CSV file).

What Moodle reads, from its documentation ("Grade import": the import format is the export format; on the
mapping page, "Map from" Email address "Map to" useremail, or ID number to useridnumber) and its importer
(grade/import/csv/classes/load_data.php): a header row, a row per user, a user column that must name a user
Moodle has (one it cannot find, or a blank one, stops the whole import), and grade columns mapped to a grade
item or to a new one named after the header. `-` (or a blank, for an existing item) means no grade. The
user columns are those of Moodle's own plain-text export: First name, Last name, ID number, Email address.
"""
from __future__ import annotations

import csv
import sys
from pathlib import Path

from traitlets import Enum

from ..flags import set_export_flags
from .table import ENCODING, CourseExport, number

HEADER = ["First name", "Last name", "ID number", "Email address"]
FEEDBACK = "feedback"


class MoodleExport(CourseExport):
    """One column per lesson given, the score after any late penalty or the instructor's override, `-` for a
    submission the grader could not grade; for a lesson with an override, a column "<lesson> feedback" with its
    reason (map it to that lesson's feedback on Moodle's import page). ID number is nbgrader's lms_user_id,
    Email address its email (`nbgrader db student import`).

    Moodle stops a whole import at the first row whose user it cannot find, so a learner without the field
    the import is mapped by (identify_by) is left out, and named on stderr.
    """

    identify_by = Enum(("email", "lms_user_id"), "email",
                       help="the column Moodle's import will map users by: email (useremail) or lms_user_id "
                            "(ID number, useridnumber)").tag(config=True)

    def export(self, gradebook) -> None:
        dest = Path(self.to or "moodle-grades.csv")
        given, table = self.lessons(gradebook), self.rows(gradebook)
        self.warn_unassigned(gradebook, "Moodle")
        learners: dict[str, list] = {}
        scores: dict[tuple, str] = {}
        reasons: dict[tuple, str] = {}
        left_out = set()
        for r in table:
            if not getattr(r, self.identify_by):
                left_out.add(r.student_id)
                continue
            learners.setdefault(r.student_id, [r.first_name, r.last_name, r.lms_user_id, r.email])
            scores[r.student_id, r.lesson] = number(r.score) if r.counts else "-"
            if r.override:
                reasons[r.student_id, r.lesson] = r.override.reason
        # A feedback column for each lesson with an override: the reason, mapped on Moodle's import page to the
        # lesson's "Feedback" (a column left unmapped is ignored).
        explained = [x.lesson for x in given if any(lesson == x.lesson for _, lesson in reasons)]
        with open(dest, "w", newline="", encoding=ENCODING) as f:
            writer = csv.writer(f)
            writer.writerow(HEADER + [x.lesson for x in given] + [f"{lesson} {FEEDBACK}" for lesson in explained])
            for student, cells in learners.items():
                writer.writerow(cells + [scores.get((student, x.lesson), "-") for x in given]
                                + [reasons.get((student, lesson), "") for lesson in explained])
        self.say_overrides(table, "Moodle")
        # Said where the instructor looks after grading too, not in one terminal line only: flags.csv keeps a row
        # per learner left out until the next Moodle export (a grading run keeps them).
        field = "e-mail" if self.identify_by == "email" else "lms_user_id"
        # The code column names the missing field (email or lms_user_id); the note says what to do, in the
        # instructor's language.
        set_export_flags(self.course_dir(), "lms_left_out", [
            (student, "*", dest.name, "-", 0, self.identify_by)
            for student in sorted(left_out)])
        if left_out:
            print(f"Moodle: left out (no {field} in nbgrader's student table; flags.csv, rule lms_left_out): "
                  f"{', '.join(sorted(left_out))}", file=sys.stderr)
        self.log.info("Moodle: %s (%d learners, %d grade items)", dest, len(learners), len(given))
