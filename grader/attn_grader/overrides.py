"""An instructor's override of one learner's grade for one lesson, with its reason (`make override`).

    python -m attn_grader.overrides --student ID --assignment 03-masks --score 12 --reason "…"   (set)
    python -m attn_grader.overrides --student ID --assignment 03-masks --remove --reason "…"     (remove)
    python -m attn_grader.overrides --list

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

import argparse
import csv
import datetime
import sys
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


def check(course: Path, student: str, assignment: str, score: float | None) -> None:
    """Refuse an override the gradebook cannot place: an unknown learner or assignment, or a score outside
    0 … the lesson's points."""
    from nbgrader.api import Gradebook, MissingEntry
    with Gradebook(f"sqlite:///{Path(course) / 'gradebook.db'}") as gb:
        try:
            gb.find_student(student)
        except MissingEntry:
            raise ValueError(f"{student} is not in nbgrader's student table (nbgrader db student add {student}, "
                             f"or make autograde after their submission)") from None
        matching = [a for a in gb.assignments if assignment in (a.name, lesson_of(a.name))]
        if not matching:
            raise ValueError(f"no assignment {assignment} in the gradebook (every id: README, quick start)")
        top = max(float(a.max_score) for a in matching)
    if score is not None and not 0 <= score <= top:
        raise ValueError(f"score {score:g} is outside 0 … {top:g}, the points of {assignment}")


def after_change(course: Path) -> None:
    """grades.csv and the class report redrawn with the override (the LMS files: make export LMS=…)."""
    from .grade import export_grades, write_report
    export_grades(course)
    write_report(course, (Path(course) / "report-names").exists(), {})


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--course", type=Path, default=Path.cwd() / "autograder")
    parser.add_argument("--student")
    parser.add_argument("--assignment", help="a lesson (03-masks) or one language of it (03-masks-ja)")
    parser.add_argument("--score", type=float, help="the grade that counts, in the lesson's points")
    parser.add_argument("--remove", action="store_true", help="remove the override in force")
    parser.add_argument("--reason", default="")
    parser.add_argument("--list", action="store_true", help="the overrides in force")
    parser.add_argument("--no-redraw", action="store_true", help="leave grades.csv and the report as they are")
    args = parser.parse_args(argv)
    course = args.course.resolve()
    if args.list:
        for o in current(course).values():
            print(f"{o.student_id}\t{o.assignment}\t{o.score:g}\t{o.time}\t{o.reason}")
        return
    if not args.student or not args.assignment or (args.score is None) == (not args.remove):
        parser.error("give STUDENT, ASSIGNMENT and either SCORE or REMOVE=1 (and REASON)")
    try:
        if args.remove and (args.student, args.assignment) not in current(course):
            raise ValueError(f"no override in force for {args.student} {args.assignment} (--list shows them)")
        check(course, args.student, args.assignment, args.score)
        override = write(course, args.student, args.assignment, None if args.remove else args.score, args.reason)
    except ValueError as e:
        sys.exit(f"override: {e}")
    what = "removed" if args.remove else f"{args.score:g}"
    print(f"override {args.student} {args.assignment}: {what} ({override.reason}); {course / FILE}")
    if not args.no_redraw:
        after_change(course)
        print(f"grades.csv and the class report redrawn; the LMS files: make export LMS=canvas (or moodle)")


if __name__ == "__main__":
    main()
