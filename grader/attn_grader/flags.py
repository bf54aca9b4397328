"""flags.csv, and what grade.py keeps between runs about submissions it could not grade or time.

flags.csv is written for the whole class on every run, also when only one learner was graded: a submission
that could not be graded keeps its row (verdicts/<assignment>/<student>.not-graded.txt holds why, on the
grader's side) until it is graded. Rows an export writes (a learner the Moodle file leaves out) are kept by
a grading run and replaced by the next such export.
"""
from __future__ import annotations

import csv
from pathlib import Path

NOT_GRADED_SUFFIX = ".not-graded.txt"


def not_graded_path(course: Path, assignment: str, student: str) -> Path:
    return course / "verdicts" / assignment / f"{student}{NOT_GRADED_SUFFIX}"


def remember_not_graded(course: Path, failed: dict) -> None:
    """failed: {(assignment, student): error}. Kept beside the verdicts, which only the grader's user reads."""
    for (assignment, student), error in failed.items():
        path = not_graded_path(course, assignment, student)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(error, encoding="utf-8")


def forget_not_graded(course: Path, assignment: str, student: str) -> None:
    not_graded_path(course, assignment, student).unlink(missing_ok=True)


def not_graded(course: Path) -> dict:
    """{(assignment, student): the end of the error} for every submission whose last grading failed."""
    found = {}
    for path in sorted((course / "verdicts").glob(f"*/*{NOT_GRADED_SUFFIX}")):
        found[path.parent.name, path.name.removesuffix(NOT_GRADED_SUFFIX)] = path.read_text(encoding="utf-8")
    return found


# note: what the rule means, in the instructor's language (ClassReport.language; English when none is chosen).
HEADER = ["student_id", "assignment", "notebook", "cell", "rule", "line", "code", "note"]
# Rows an export writes (exports/moodle.py): about the student table, not a grading, so a grading run keeps
# them, and the next export of that kind replaces them.
EXPORT_RULES = ("lms_left_out",)


def _read(course: Path) -> list[list[str]]:
    try:
        with open(course / "flags.csv", newline="", encoding="utf-8-sig") as f:
            return list(csv.reader(f))[1:]
    except FileNotFoundError:
        return []


# What each rule means (its note), by rule; the by-hand policy's many reach_… and tamper_… rules by family.
NOTES = {"no_isolation": "flag_no_isolation", "not_graded": "flag_not_graded", "no_timestamp": "flag_no_timestamp",
         "timestamp_no_zone": "flag_timestamp_no_zone", "same_as_solution": "flag_same_as_solution",
         "same_as_learner": "flag_same_as_learner",
         "lms_left_out": "flag_lms_left_out", "files": "flag_files", "process": "flag_process",
         "network": "flag_network", "environment": "flag_environment", "fake_equality": "flag_fake_equality",
         "kernel": "flag_kernel", "reach": "flag_reach", "tamper": "flag_tamper"}


def note(rule: str, lang: str) -> str:
    """What a rule means, for the instructor, in lang."""
    from .messages import text
    family = rule.split("_")[0] if rule.startswith(("reach_", "tamper_")) else rule
    return text(NOTES.get(family, "flag_other"), lang)


def _write(course: Path, rows) -> None:
    from .messages import instructor_language
    lang = instructor_language(course) or "en"
    # With a BOM, as the exports: opened in a spreadsheet program, Korean and Japanese notes read as written.
    with open(course / "flags.csv", "w", newline="", encoding="utf-8-sig") as f:
        writer = csv.writer(f)
        writer.writerow(HEADER)
        writer.writerows([*r[:7], note(r[4], lang)] for r in rows)


def set_export_flags(course: Path, rule: str, rows: list[tuple]) -> None:
    """Replace flags.csv's rows of one export rule with rows (student, assignment, notebook, cell, line, why)."""
    kept = [r for r in _read(course) if len(r) > 4 and r[4] != rule]
    _write(course, kept + [(s, a, nb, cell, rule, line, why) for s, a, nb, cell, line, why in rows])


def write_flags(course: Path, work: list[tuple[str, str]], isolation: str = "", failed: dict | None = None,
                untimed: list[tuple[str, str]] = (), zoneless: list[tuple[str, str]] = ()) -> int:
    """Scan every submission in work; write flags.csv; return how many submissions were flagged.

    A class graded without sandboxes gets one row that says so, first; a submission that could not be graded
    gets a row of its own with the end of the error; one whose assignment has a due date but that has no
    timestamp.txt (copied by hand) gets a row saying its lateness could not be judged, and one whose timestamp.txt
    names no time zone a row saying it was read as UTC.
    """
    from .scan import read_submissions, scan_notebook  # here: an export's own rows (set_export_flags) need no scan
    rows = [("*", "*", "*", "-", "no_isolation", 0, isolation)] if isolation else []
    for (assignment, student), error in sorted((failed or {}).items()):
        rows.append((student, assignment, "*", "-", "not_graded", 0, " ".join(error.split())[-300:]))
    for assignment, student in untimed:
        rows.append((student, assignment, "*", "-", "no_timestamp", 0,
                     f"no submitted/{student}/{assignment}/timestamp.txt: lateness not judged"))
    for assignment, student in zoneless:
        rows.append((student, assignment, "*", "-", "timestamp_no_zone", 0,
                     f"submitted/{student}/{assignment}/timestamp.txt names no time zone: read as UTC"))
    handed_in = read_submissions(course, work)
    for s in handed_in:
        rows += [(s.student, s.assignment, s.name, *flag)
                 for flag in scan_notebook(s.notebook, s.source, Path(s.name).stem)]
    from .similarity import flags as similar   # a look across the class: the same code as the solution or another's
    rows += similar(course, handed_in)
    rows += [r for r in _read(course) if len(r) > 4 and r[4] in EXPORT_RULES]
    _write(course, rows)
    return len({(r[0], r[1]) for r in rows if r[0] != "*" and r[4] not in EXPORT_RULES})
