"""An instructor's override of one learner's grade for one lesson, with its reason (`make override`, which runs
override_command.py).

An override is the grade that counts for that learner and lesson, whatever the grader scored (no late penalty
is taken from it): grades.csv, the LMS files (exports/table.py), the class report and the learner's history
(report_history.py) all show it with its reason. It lives in overrides.csv, apart from the gradebook and the
verdicts a grading run replaces, so it stands through a regrade and a resubmission until it is removed.
overrides.csv is append-only: every override and every removal is a row with its time, and the last row for a
learner and an assignment is the one in force. `--assignment` takes the lesson (03-masks: whichever language
the learner handed in) or one language (03-masks-ja); an override of one language comes before one of the lesson.

Per-exercise scores changed by hand in formgrader (nbgrader's manual grades, `make formgrader`) are the
gradebook's own: they too stand through a regrade, and the class report marks them.
"""
from __future__ import annotations

import csv
import datetime
from dataclasses import dataclass
from pathlib import Path

from .messages import lesson_of

FILE = "overrides.csv"
HEADER = ["time", "student_id", "assignment", "score", "reason"]
ENCODING = "utf-8-sig"  # opened in a spreadsheet program, like the exports (exports/table.py)


@dataclass(frozen=True)
class Override:
    time: str          # UTC, ISO 8601
    student_id: str
    assignment: str    # a lesson (03-masks) or one language of it (03-masks-ja)
    score: float | None   # None: a removal
    reason: str


def log(course: Path) -> list[Override]:
    """Every row of overrides.csv, oldest first (settings and removals)."""
    try:
        with open(Path(course) / FILE, newline="", encoding=ENCODING) as f:
            rows = list(csv.DictReader(f))
    except FileNotFoundError:
        return []
    return [Override(r["time"], r["student_id"], r["assignment"], float(r["score"]) if r["score"] else None,
                     r["reason"]) for r in rows]


def current(course: Path) -> dict[tuple[str, str], Override]:
    """(student, assignment as given) -> the override in force."""
    found = {}
    for o in log(course):
        if o.score is None:
            found.pop((o.student_id, o.assignment), None)
        else:
            found[o.student_id, o.assignment] = o
    return found


def find(overrides: dict, student: str, assignment: str) -> Override | None:
    """The override in force for a learner's assignment (03-masks-ja): of that language, else of the lesson."""
    return overrides.get((student, assignment)) or overrides.get((student, lesson_of(assignment)))


def write(course: Path, student: str, assignment: str, score: float | None, reason: str,
          now: datetime.datetime | None = None) -> Override:
    """Append a setting (score) or a removal (score None) to overrides.csv."""
    if not reason.strip():
        raise ValueError("an override needs a reason (REASON=…): the reports and the exports show it")
    when = (now or datetime.datetime.now(datetime.timezone.utc)).astimezone(datetime.timezone.utc)
    override = Override(when.isoformat(timespec="seconds"), student, assignment, score, " ".join(reason.split()))
    path = Path(course) / FILE
    new = not path.exists()
    with open(path, "a", newline="", encoding=ENCODING if new else "utf-8") as f:
        writer = csv.writer(f)
        if new:
            writer.writerow(HEADER)
        writer.writerow([override.time, student, assignment, "" if score is None else f"{score:g}", override.reason])
    return override
