"""`make override`: set or remove an instructor's override (overrides.py), then redraw what shows it.

    python -m attn_grader.override_command --student ID --assignment 03-masks --score 12 --reason "…"   (set)
    python -m attn_grader.override_command --student ID --assignment 03-masks --remove --reason "…"     (remove)
    python -m attn_grader.override_command --list

history.csv gets the override's row at once (history.record_override); grades.csv and the class report are redrawn
at once; the LMS files at the next `make export LMS=…`.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .grade import export_grades, write_report
from .history import record_override
from .messages import lesson_of
from .overrides import FILE, current, write


def check(course: Path, student: str, assignment: str, score: float | None) -> None:
    """Refuse an override the gradebook cannot place: an unknown learner or assignment, or a score outside
    0 … the lesson's points."""
    from nbgrader.api import Gradebook, MissingEntry
    if not (Path(course) / "gradebook.db").exists():   # nbgrader's Gradebook would make an empty one
        raise ValueError(f"no gradebook in {course}: make assignments and make autograde come first")
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
    record_override(course, override)   # the record, not a drawing: --no-redraw leaves it in
    what = "removed" if args.remove else f"{args.score:g}"
    print(f"override {args.student} {args.assignment}: {what} ({override.reason}); {course / FILE}")
    if not args.no_redraw:
        after_change(course)
        print("grades.csv and the class report redrawn; the LMS files: make export LMS=canvas (or moodle)")


if __name__ == "__main__":
    main()
