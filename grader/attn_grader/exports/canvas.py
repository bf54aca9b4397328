"""The CSV Canvas's gradebook import reads ("Import" in the Gradebook's menu).

What Canvas reads, from its documentation (Instructor Guide, "How do I import grades in the Gradebook?") and
its importer (canvas-lms, app/models/gradebook_importer.rb): a header row whose first cells are `Student`,
`ID`, `SIS User ID`, `SIS Login ID`, `Section`, then one column per assignment, named `Title (id)` for an
assignment Canvas has (its id) or a plain title, which Canvas matches by title or offers to create; an
optional second row whose first cell is `Points Possible`; then a row per student. A student is found by
`ID` (Canvas's numeric user id), else by `SIS User ID` / `SIS Login ID`, else by name. A blank grade leaves
Canvas's grade as it is.
"""
from __future__ import annotations

import csv
from pathlib import Path

from traitlets import Dict

from .table import ENCODING, CourseExport, number

HEADER = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]


class CanvasExport(CourseExport):
    """One column per lesson given (the learner's language does not matter to Canvas), the score after any
    late penalty, or the instructor's override; blank for a submission the grader could not grade. Canvas's
    import reads grades only (any other column becomes an assignment), so an override's reason is not in this
    file: grades.csv, the class report and the terminal give it.

    From nbgrader's student table (`nbgrader db student import students.csv`): `Student` is "last, first" as
    Canvas sorts names, `ID` is lms_user_id (Canvas's user id, the `ID` column of Canvas's own gradebook
    export), `SIS Login ID` is nbgrader's student id (JupyterHub's login, usually the institution's).
    """

    assignment_ids = Dict({}, help="lesson -> Canvas assignment id, e.g. {'03-masks': 1234}: the column becomes "
                                   "'03-masks (1234)' and fills that Canvas assignment").tag(config=True)

    def export(self, gradebook) -> None:
        dest = Path(self.to or "canvas-grades.csv")
        given, table = self.lessons(gradebook), self.rows(gradebook)
        self.warn_unassigned(gradebook, "Canvas")
        titles = [f"{x.lesson} ({self.assignment_ids[x.lesson]})" if x.lesson in self.assignment_ids else x.lesson
                  for x in given]
        learners: dict[str, list] = {}
        scores: dict[tuple, str] = {}
        for r in table:
            name = ", ".join(p for p in (r.last_name, r.first_name) if p) or r.student_id
            learners.setdefault(r.student_id, [name, r.lms_user_id, "", r.student_id, ""])
            scores[r.student_id, r.lesson] = number(r.score) if r.counts else ""
        with open(dest, "w", newline="", encoding=ENCODING) as f:
            writer = csv.writer(f)
            writer.writerow(HEADER + titles)
            writer.writerow(["Points Possible", "", "", "", ""] + [number(x.max_score) for x in given])
            for student, cells in learners.items():
                writer.writerow(cells + [scores.get((student, x.lesson), "") for x in given])
        self.say_overrides(table, "Canvas")
        self.log.info("Canvas: %s (%d learners, %d assignments)", dest, len(learners), len(given))
