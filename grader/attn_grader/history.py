"""history.csv: every grading of every submission, kept. nbgrader's gradebook, the verdicts and the feedback keep
a learner's latest grading only; a resubmission or a regrade replaces them.

After each grading run grade.py appends one row per submission it graded or could not grade: when, the
submission's own time and lateness, the score before and after the late penalty, the flags.csv rules of that
submission, the override in force (overrides.py) and a fingerprint of the notebooks handed in, which tells a
resubmission (a new fingerprint) from a regrade of the same work. `make override` appends a row too, at once, for
each submission the override (or its removal) covers: event "override", at the override's own time, with the score
that counts from then on. Rows are never rewritten. The class report's page per learner (report_history.py) reads
it with overrides.csv, which says each override's reason in full.
"""
from __future__ import annotations

import csv
import datetime
import hashlib
from pathlib import Path

from .exports.table import ENCODING, rows

FILE = "history.csv"
HEADER = ["graded_at", "student_id", "assignment", "submitted_at", "duedate", "seconds_late", "raw_score",
          "late_penalty", "score", "max_score", "status", "flags", "submission", "override", "override_reason",
          "event"]
GRADING, OVERRIDE = "grading", "override"   # what added the row: a grading run, or `make override`


def fingerprint(folder: Path) -> str:
    """The notebooks handed in (names and bytes), hashed: the same for a regrade, new for a resubmission."""
    digest = hashlib.sha256()
    for path in sorted(Path(folder).glob("*.ipynb")):
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:12]


def _flags(course: Path) -> dict[tuple[str, str], list[str]]:
    """(assignment, student) -> the rules flags.csv names for that submission."""
    found: dict[tuple[str, str], set] = {}
    try:
        with open(course / "flags.csv", newline="", encoding="utf-8-sig") as f:
            for r in list(csv.reader(f))[1:]:
                if len(r) > 4:
                    found.setdefault((r[1], r[0]), set()).add(r[4])
    except FileNotFoundError:
        pass
    return {k: sorted(v) for k, v in found.items()}


def _time(when) -> str:
    if when is None:
        return ""
    when = when if when.tzinfo else when.replace(tzinfo=datetime.timezone.utc)
    return when.astimezone(datetime.timezone.utc).isoformat(timespec="seconds")


def _number(x) -> str:
    return "" if x is None else f"{round(x, 2):g}"


def record(course: Path, graded: list[tuple[str, str]], now: datetime.datetime | None = None,
           event: str = GRADING) -> int:
    """Append a row for each (assignment, student) graded, or tried, in this run (event OVERRIDE: whose grade an
    override set or removed); return how many."""
    from nbgrader.api import Gradebook, MissingEntry
    course = Path(course)
    when = _time(now or datetime.datetime.now(datetime.timezone.utc))
    flags = _flags(course)
    out = []
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        for assignment, student in sorted(graded, key=lambda job: (job[1], job[0])):
            found = [r for r in rows(gb, course, [student], [assignment], submitted_too=True)
                     if r.assignment == assignment]
            if not found:
                continue
            r = found[0]
            try:
                late = gb.find_submission(assignment, student).total_seconds_late
            except MissingEntry:
                late = None
            out.append([when, student, assignment, _time(r.timestamp), _time(r.duedate), _number(late),
                        _number(r.raw_score), _number(r.penalty), _number(r.graded_score), _number(r.max_score),
                        r.status, " ".join(flags.get((assignment, student), [])),
                        fingerprint(course / "submitted" / student / assignment),
                        _number(r.override.score) if r.override else "", r.override.reason if r.override else "",
                        event])
    path = course / FILE
    new = not path.exists()
    if not new and read(course) and "event" not in read(course)[0]:
        _add_event_column(path)
    with open(path, "a", newline="", encoding=ENCODING if new else "utf-8") as f:
        writer = csv.writer(f)
        if new:
            writer.writerow(HEADER)
        writer.writerows(out)
    return len(out)


def record_override(course: Path, override) -> int:
    """Append a row, at once, for each submission of the learner that an override (or its removal) covers: every
    language of the lesson, or the one language it names (overrides.find)."""
    from nbgrader.api import Gradebook

    from .exports.table import rows as table_rows
    with Gradebook(f"sqlite:///{Path(course) / 'gradebook.db'}") as gb:
        covered = [(r.assignment, r.student_id) for r in table_rows(gb, Path(course), [override.student_id],
                                                                     submitted_too=True)
                   if override.assignment in (r.assignment, r.lesson)]
    when = datetime.datetime.fromisoformat(override.time)
    return record(course, covered, now=when, event=OVERRIDE)


def _add_event_column(path: Path) -> None:
    """A history.csv written before rows said what added them: every row of it was a grading's."""
    with open(path, newline="", encoding=ENCODING) as f:
        old = list(csv.DictReader(f))
    with open(path, "w", newline="", encoding=ENCODING) as f:
        writer = csv.DictWriter(f, HEADER)
        writer.writeheader()
        writer.writerows({**row, "event": GRADING} for row in old)


def read(course: Path) -> list[dict]:
    """Every row of history.csv, oldest first."""
    try:
        with open(Path(course) / FILE, newline="", encoding=ENCODING) as f:
            return list(csv.DictReader(f))
    except FileNotFoundError:
        return []
