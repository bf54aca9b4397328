"""The class report's page per learner: every exercise with its score, the mistake the grader named and the
hint the learner was shown (report/<assignment>/learner-<k>.html), and the list of them on the assignment's page;
an instructor's override (overrides.py) and a score entered by hand in formgrader are shown where they apply.

Learners are numbered, not named: k orders them by a hash of the assignment and their id, so the numbers say
nothing about names or scores and stay the same from one run to the next. Their ids appear only with --names.
"""
from __future__ import annotations

import hashlib
import html
from pathlib import Path

from .messages import text

STATUS_KEYS = {"pass": "report_full_marks", "unknown_mistake": "report_unknown", "not_attempted": "report_not_attempted"}


def numbering(assignment: str, students) -> dict[str, int]:
    """student -> 1, 2, …, in an order that says nothing about the student."""
    key = lambda s: hashlib.sha256(f"{assignment}\0{s}".encode()).hexdigest()  # noqa: E731
    return {s: i + 1 for i, s in enumerate(sorted(students, key=key))}


def page_name(k: int) -> str:
    return f"learner-{k:03d}.html"


def learner_label(summary, student: str, k: int, names: bool) -> str:
    label = text("report_learner", summary.lang, k=k)
    return f"{label} ({student})" if names else label


def index_table(summary, names: bool) -> str:
    """The assignment page's list of learners, best score first, each linked to their page."""
    esc, lang = html.escape, summary.lang
    numbers = numbering(summary.assignment, summary.totals)
    parts = [f"<h2>{esc(text('report_learners_heading', lang))}</h2>",
             f"<table><tr><th>{esc(text('report_names', lang))}</th><th>{esc(text('report_score', lang))}</th></tr>"]
    for student, total in sorted(summary.totals.items(), key=lambda st: (-st[1], numbers[st[0]])):
        k = numbers[student]
        override = summary.overrides.get(student)
        counted = "" if override is None else \
            f" → {override.score:g} ({text('report_override_short', lang)}: {reason(override, lang, names)})"
        parts.append(f'<tr><td><a href="{esc(summary.assignment)}/{page_name(k)}">'
                     f"{esc(learner_label(summary, student, k, names))}</a></td><td class=\"n\">"
                     f"{esc(text('report_out_of', lang, score=f'{total:g}', total=f'{summary.total:g}'))}"
                     f"{esc(counted)}</td></tr>")
    parts.append("</table>")
    return "\n".join(parts)


def reason(override, lang: str, names: bool) -> str:
    """An override's reason in the report with ids only: the instructor's own words may say who (a learner's
    illness), and report/ may be shown to the class."""
    return override.reason if names else text("report_reason_elsewhere", lang)


def override_line(summary, student: str, names: bool) -> str:
    """The instructor's override in force for this learner and lesson, with its reason, or ""."""
    override = summary.overrides.get(student)
    if override is None:
        return ""
    return "<p><strong>" + html.escape(text("report_override", summary.lang, score=f"{override.score:g}",
                                            total=f"{summary.total:g}", reason=reason(override, summary.lang, names),
                                            time=override.time)) + "</strong></p>"


def write_pages(summary, out: Path, names: bool, style: str, hint_text) -> None:
    """report/<assignment>/learner-<k>.html for every learner graded (the folder is drawn anew each time)."""
    folder = out / summary.assignment
    folder.mkdir(parents=True, exist_ok=True)
    for old in folder.glob("learner-*.html"):
        old.unlink()
    numbers = numbering(summary.assignment, summary.totals)
    for student, record in summary.records.items():
        k = numbers[student]
        (folder / page_name(k)).write_text(_page(summary, student, record, k, names, style, hint_text),
                                           encoding="utf-8")


def _page(summary, student: str, record: dict, k: int, names: bool, style: str, hint_text) -> str:
    esc, lang = html.escape, summary.lang
    cells = {}
    for notebook in record.get("notebooks", {}).values():
        cells.update(notebook.get("cells", {}))
    title = f"{text('report_title', lang, title=summary.title)} — {learner_label(summary, student, k, names)}"
    total = summary.totals.get(student, 0.0)
    parts = [f'<!DOCTYPE html>\n<html lang="{lang}"><head><meta charset="utf-8">',
             f"<title>{esc(title)}</title><style>{style}</style></head><body>",
             f'<p><a href="../{esc(summary.assignment)}.html">← {esc(summary.title)}</a></p>',
             f"<h1>{esc(learner_label(summary, student, k, names))}</h1>",
             f"<p>{esc(summary.assignment)} · "
             f"{esc(text('report_out_of', lang, score=f'{total:g}', total=f'{summary.total:g}'))}</p>",
             override_line(summary, student, names),
             f"<table><tr><th>{esc(text('report_exercise', lang))}</th><th>{esc(text('report_score', lang))}</th>"
             f"<th>{esc(text('report_outcome', lang))}</th><th>{esc(text('report_hint_shown', lang))}</th></tr>"]
    for ex in summary.exercises:
        verdict = cells.get(ex.grade_id, {})
        status = verdict.get("status")
        score = verdict.get("score")
        if status == "mistake":
            carried = verdict.get("carried_from")
            outcome = text("report_carried", lang, n=carried) if carried else text("report_named_mistake", lang)
            hint = hint_text(verdict.get("hint"), lang, verdict.get("hint_fields") or {}, summary.learners_lang)
        else:
            outcome, hint = text(STATUS_KEYS.get(status, "report_not_graded_cell"), lang), ""
        by_hand = summary.manual.get((student, ex.grade_id))
        if by_hand:
            score, auto, comment = by_hand
            outcome += " · " + text("report_manual", lang, auto="–" if auto is None else f"{auto:g}",
                                    comment=f": {comment}" if comment else "")
        points = text("report_out_of", lang, score="–" if score is None else f"{score:g}", total=f"{ex.points:g}")
        parts.append(f"<tr><td>{esc(ex.title)}<br><span class=\"names\">{esc(ex.grade_id.removesuffix('_tests'))}"
                     f"</span></td><td class=\"n\">{esc(points)}</td><td>{esc(outcome)}</td><td>{esc(hint)}</td></tr>")
    parts.append("</table></body></html>\n")
    return "\n".join(parts)
