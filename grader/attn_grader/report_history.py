"""The class report's page per learner across every lesson (report/learners/learner-<k>.html): for each lesson
what counts now (exports/table.py, as grades.csv and the LMS files have it: graded, not handed in, not graded,
or the instructor's override), then every grading of it kept in history.csv and every override and removal in
overrides.csv, oldest first: when, the submission's time, how late, the score before and after the late
penalty and the flags. In the instructor's language when one is chosen, else in the learner's.

Learners are numbered as on the lessons' pages (report_learners.numbering), once for the whole class, so a
learner's number here is not the one of their lesson pages; ids only with --names.
"""
from __future__ import annotations

import html
from pathlib import Path

from . import history, overrides
from .late_penalty import lateness_text
from .messages import lesson_of, text
from .report_learners import numbering, page_name, reason

FOLDER = "learners"
STATUS = {"graded": "history_status_graded", "missing": "history_status_missing",
          "not_graded": "history_status_not_graded"}


def _class_rows(course: Path) -> list:
    from nbgrader.api import Gradebook

    from .exports.table import rows
    if not (course / "gradebook.db").exists():
        return []
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        return rows(gb, course, submitted_too=True)


def write_pages(course: Path, out: Path, names: bool, style: str, instructor: str | None) -> int:
    """report/learners/index.html and a page per learner in the gradebook; return how many pages."""
    course = Path(course)
    table, graded, changes = _class_rows(course), history.read(course), overrides.log(course)
    folder = out / FOLDER
    folder.mkdir(parents=True, exist_ok=True)
    for old in folder.glob("learner-*.html"):
        old.unlink()
    students = sorted({r.student_id for r in table} | {h["student_id"] for h in graded})
    numbers = numbering(FOLDER, students)
    listed = []
    for student in students:
        mine = [r for r in table if r.student_id == student]
        langs = [r.language for r in mine if r.language]
        lang = instructor or (max(set(langs), key=langs.count) if langs else "ja")
        label = text("report_learner", lang, k=numbers[student]) + (f" ({student})" if names else "")
        events = [h for h in graded if h["student_id"] == student]
        set_by_hand = [o for o in changes if o.student_id == student]
        (folder / page_name(numbers[student])).write_text(
            _page(label, lang, mine, events, set_by_hand, style, names), encoding="utf-8")
        listed.append((numbers[student], label))
    lang = instructor or "ja"
    links = "".join(f'<li><a href="{page_name(k)}">{html.escape(label)}</a></li>' for k, label in sorted(listed))
    (folder / "index.html").write_text(
        f'<!DOCTYPE html>\n<html lang="{lang}"><head><meta charset="utf-8"><title>'
        f"{html.escape(text('history_link', lang))}</title><style>{style}</style></head><body>"
        f'<p><a href="../index.html">← {html.escape(text("report_index_title", lang))}</a></p>'
        f"<h1>{html.escape(text('history_link', lang))}</h1><ul>{links}</ul></body></html>\n", encoding="utf-8")
    return len(listed)


def _late(seconds: str, due: str, submitted: str, lang: str) -> str:
    if not due:
        return text("history_no_due", lang)
    if not submitted:   # copied by hand without timestamp.txt: flags.csv's no_timestamp
        return text("history_not_judged", lang)
    if not seconds or float(seconds) <= 0:
        return text("history_on_time", lang)
    return lateness_text(float(seconds), lang)


def _page(label: str, lang: str, rows: list, events: list[dict], changes: list, style: str, names: bool) -> str:
    esc = html.escape
    parts = [f'<!DOCTYPE html>\n<html lang="{lang}"><head><meta charset="utf-8">',
             f"<title>{esc(text('history_title', lang, learner=label))}</title><style>{style}</style></head><body>",
             f'<p><a href="index.html">← {esc(text("history_link", lang))}</a></p>',
             f"<h1>{esc(text('history_title', lang, learner=label))}</h1>"]
    head = ["history_when", "history_event", "history_submitted", "history_late", "history_before",
            "history_penalty", "history_after", "history_flags"]
    lessons = sorted({r.lesson for r in rows} | {lesson_of(h["assignment"]) for h in events}
                     | {lesson_of(o.assignment) for o in changes})
    for lesson in lessons:
        row = next((r for r in rows if r.lesson == lesson), None)
        parts.append(f"<h2>{esc(lesson)}</h2>")
        if row is not None:
            status = text(STATUS[row.status], lang)
            score = "–" if row.score is None else text("report_out_of", lang, score=f"{row.score:g}",
                                                         total=f"{row.max_score:g}")
            if row.override is not None:
                status += " · " + text("report_override", lang, score=f"{row.override.score:g}",
                                       total=f"{row.max_score:g}", reason=reason(row.override, lang, names),
                                       time=row.override.time)
            parts.append(f"<p>{esc(row.assignment)} · {esc(text('history_counts', lang, score=score, status=status))}"
                         "</p>")
        lines, seen = [], set()
        # An override's own rows in history.csv are said below, from overrides.csv, with their reason.
        for h in (h for h in events if lesson_of(h["assignment"]) == lesson and h.get("event") != history.OVERRIDE):
            if h["status"] != "graded":
                what = text("history_not_graded", lang)
            elif not seen:
                what = text("history_graded", lang)
            else:
                what = text("history_regraded" if h["submission"] in seen else "history_resubmitted", lang)
            seen.add(h["submission"])
            lines.append((h["graded_at"], [what + f" ({h['assignment']})", h["submitted_at"],
                                           _late(h["seconds_late"], h["duedate"], h["submitted_at"], lang),
                                           h["raw_score"],
                                           h["late_penalty"], h["score"], h["flags"]]))
        for o in (o for o in changes if lesson_of(o.assignment) == lesson):
            why = reason(o, lang, names)
            what = text("history_override_removed", lang, reason=why) if o.score is None else \
                text("history_override_set", lang, score=f"{o.score:g}", reason=why)
            lines.append((o.time, [what + f" ({o.assignment})", "", "", "", "", "", ""]))
        if lines:
            parts.append("<table><tr>" + "".join(f"<th>{esc(text(k, lang))}</th>" for k in head) + "</tr>")
            for when, cells in sorted(lines, key=lambda line: line[0]):
                parts.append("<tr>" + "".join(f"<td>{esc(c)}</td>" for c in [when] + cells) + "</tr>")
            parts.append("</table>")
    parts.append("</body></html>\n")
    return "\n".join(parts)
