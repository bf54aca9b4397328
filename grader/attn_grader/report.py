"""The class report for instructors: which mistakes the class made, exercise by exercise.

    python -m attn_grader.report [--course DIR] [--names]      (`make autograde` writes it at the end)

For every assignment graded so far, report/<assignment>.html and .csv, in the assignment's
language: the class's score distribution, then per exercise the learners with full marks,
with each classic mistake (named by the same diagnosis the visible checks use, run in the
grader on each learner's results: DecideHiddenTests), with a mistake no known bug explains,
and who left the stub in, each count out of the learners graded; then a page per learner
(report_learners.py). report/index.html: every lesson × language, with the median score
and the most common mistake (every one of them when several tie).

It reads only the grader's own records, verdicts/<assignment>/<student>.json (RecordVerdicts),
one per learner, replaced whenever that learner is graded again: a class graded in several
runs (late submissions) gets a report of everyone's latest grading. By default it gives
counts only, so it can be shown to the class; --names writes a second report, with the learners' ids, in
report-names/, and leaves report/ as it was.
"""
from __future__ import annotations

import argparse
import base64
import csv
import html
import io
import json
import re
import statistics
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

from . import report_history, report_learners
from .messages import COURSE_MESSAGES, MESSAGES, assignment_language, instructor_language, text
from .overrides import current, find

VERDICTS, REPORT = "verdicts", "report"
# --names writes here, never over report/: report/ names no one and may be shown to the class.
REPORT_NAMES = "report-names"


def report_dir(course: Path, names: bool) -> Path:
    return Path(course) / (REPORT_NAMES if names else REPORT)
LANGS = ("ja", "ko")
# The learners' languages named in the instructor's language.
LANGUAGE_NAMES = {"ja": "report_language_ja", "ko": "report_language_ko"}
COLORS = {"pass": "#4c9f70", "mistake": "#dd8452", "unknown_mistake": "#8c8c8c", "not_attempted": "#c9c9c9",
          "carried": "#e8b89a"}
# A failure carried over from an earlier exercise (verdict.carried_from: the same hint, through the learner's earlier
# function that failed) is that mistake seen again: it is counted where it was made, and here apart, as
# "carried:<exercise>:<hint>", never among the most common mistakes.
CARRIED = "carried"


def carried_outcome(n: int, hint: str) -> str:
    return f"{CARRIED}:{n}:{hint}"


def carried_parts(outcome: str) -> tuple[int, str] | None:
    """(the exercise it came from, the hint) of a carried outcome, else None."""
    if not outcome.startswith(CARRIED + ":"):
        return None
    _, n, hint = outcome.split(":", 2)
    return int(n), hint
CIRCLED = "①②③④⑤⑥⑦⑧⑨⑩⑪⑫⑬⑭⑮⑯⑰⑱⑲⑳"
SHORT = 18  # characters of a hint in a chart's label; the table beside it has the whole text


@dataclass
class Exercise:
    grade_id: str
    title: str
    points: float
    outcomes: Counter = field(default_factory=Counter)   # "pass", "unknown_mistake", "not_attempted", or a hint key
    names: dict = field(default_factory=dict)             # outcome -> [student]
    fields: dict = field(default_factory=dict)            # hint key -> the fields its text was shown with

    def mistakes(self) -> list[tuple[str, int]]:
        """Named mistakes made in this exercise, most common first."""
        return sorted(((k, n) for k, n in self.outcomes.items() if k not in COLORS and not carried_parts(k)),
                      key=lambda kn: (-kn[1], kn[0]))

    def carried(self) -> list[tuple[str, int]]:
        """Failures carried over from earlier exercises, by exercise, then hint."""
        return sorted(((k, n) for k, n in self.outcomes.items() if carried_parts(k)),
                      key=lambda kn: carried_parts(kn[0]))


@dataclass
class Summary:
    assignment: str
    lang: str                  # the report's language: the instructor's (ClassReport.language), or the learners'
    title: str
    total: float
    exercises: list[Exercise]
    totals: dict[str, float]   # student -> score
    not_graded: int
    records: dict = field(default_factory=dict)   # student -> their verdicts (RecordVerdicts), for their own page
    learners_lang: str = "ja"                     # the language the learners were shown their hints in
    overrides: dict = field(default_factory=dict)  # student -> the instructor's override in force (overrides.py)
    manual: dict = field(default_factory=dict)     # (student, grade id) -> (score by hand, grader's score, comment)

    def median(self) -> float | None:
        return statistics.median(self.totals.values()) if self.totals else None

    def most_common(self) -> list[tuple[str, int, Exercise]]:
        """The mistakes made most often, all of them when several tie (exercise order), or []."""
        named = [(n, key, ex) for ex in self.exercises for key, n in ex.mistakes()]
        top = max((n for n, _, _ in named), default=0)
        return [(key, n, ex) for n, key, ex in named if n == top and top > 0]


# --------------------------------------------------------------------------- reading
_MATH = ((re.compile(r"\^\\top"), "ᵀ"), (re.compile(r"\\sqrt\{([^}]*)\}"), r"√\1"), (re.compile(r"\\cdot"), "·"),
         (re.compile(r"\\(\w+)"), r"\1"), (re.compile(r"[`*${}]"), ""))


def _heading(cell) -> str | None:
    """The cell's last heading, as plain text (markdown and LaTeX marks dropped)."""
    headings = [line.lstrip("#").strip() for line in cell.source.splitlines() if line.startswith("#")]
    if not headings:
        return None
    title = headings[-1]
    for pattern, replacement in _MATH:
        title = pattern.sub(replacement, title)
    return title


def _exercises(source: Path) -> tuple[str, list[Exercise]]:
    """The notebook's title and its grade cells in order, each titled by the heading above its solution."""
    nb = nbformat.read(source, 4)
    title, heading, headings, found = None, None, {}, []
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            heading = _heading(cell) or heading
            title = title or heading
            continue
        meta = cell.metadata.get("nbgrader", {})
        if meta.get("solution"):
            headings[meta["grade_id"]] = heading
        elif meta.get("grade"):
            exercise = meta["grade_id"].removesuffix("_tests")
            found.append(Exercise(meta["grade_id"], headings.get(exercise) or exercise, float(meta.get("points", 0))))
    return title or source.stem, found


def _records(course: Path, assignment: str) -> dict[str, dict]:
    records = {}
    for path in sorted((course / VERDICTS / assignment).glob("*.json")):
        try:
            record = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        records[record.get("student", path.stem)] = record
    return records


def _titles(course: Path, assignment: str) -> tuple[str, list[Exercise]]:
    sources = sorted((course / "source" / assignment).glob("*.ipynb"))
    title, exercises = _exercises(sources[0]) if sources else (assignment, [])
    for extra in sources[1:]:
        exercises += _exercises(extra)[1]
    return title, exercises


def _manual_grades(course: Path, assignment: str) -> dict:
    """(student, grade id) -> (score entered in formgrader, the grader's score, comment) from the gradebook."""
    from nbgrader.api import Gradebook, MissingEntry
    found = {}
    if not (course / "gradebook.db").exists():
        return found
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        try:
            submissions = gb.find_assignment(assignment).submissions
        except MissingEntry:
            return found
        for submission in submissions:
            for notebook in submission.notebooks:
                comments = {c.name: c.manual_comment for c in notebook.comments if c.manual_comment}
                for g in notebook.grades:
                    if g.manual_score is not None:
                        found[submission.student_id, g.name] = (float(g.manual_score), g.auto_score,
                                                                comments.get(g.name.removesuffix("_tests"), ""))
    return found


def summarize(course: Path, assignment: str, lang: str | None = None) -> Summary:
    """lang: the report's language (the instructor's); by default the learners'."""
    learners_lang = assignment_language(assignment)
    lang = lang or learners_lang
    title, exercises = _titles(course, assignment)
    sibling = f"{assignment.rpartition('-')[0]}-{lang}"
    if lang != learners_lang and (course / "source" / sibling).is_dir():
        # The exercises' titles in the instructor's language, from the lesson's notebook in that language.
        title, theirs = _titles(course, sibling)
        titles = {ex.grade_id: ex.title for ex in theirs}
        for ex in exercises:
            ex.title = titles.get(ex.grade_id, ex.title)
    by_id = {ex.grade_id: ex for ex in exercises}
    records = _records(course, assignment)
    manual = _manual_grades(course, assignment)
    totals = {}
    for student, record in records.items():
        total = 0.0
        for notebook in record.get("notebooks", {}).values():
            for grade_id, verdict in notebook.get("cells", {}).items():
                ex = by_id.get(grade_id)
                if ex is None:
                    continue
                outcome = verdict.get("hint") if verdict.get("status") == "mistake" else verdict.get("status")
                if verdict.get("status") == "mistake" and verdict.get("carried_from"):
                    outcome = carried_outcome(verdict["carried_from"], outcome)
                ex.outcomes[outcome] += 1
                ex.names.setdefault(outcome, []).append(student)
                if verdict.get("status") == "mistake":
                    ex.fields.setdefault(outcome, verdict.get("hint_fields") or {})
                # A score entered by hand in formgrader is the gradebook's, and so the exports': here too.
                by_hand = manual.get((student, grade_id))
                total += by_hand[0] if by_hand else verdict.get("score") or 0.0
        totals[student] = total
    submitted = {p.parent.name for p in (course / "submitted").glob(f"*/{assignment}")}
    overrides = current(course)
    mine = {s: o for s in set(records) | submitted if (o := find(overrides, s, assignment))}
    return Summary(assignment, lang, title, sum(ex.points for ex in exercises), exercises, totals,
                   len(submitted - set(records)), records, learners_lang, mine, manual)


# The by-hand policy's verdicts are counted as a category of their own, named for the instructor, not by the
# instruction the learner was shown (attn_grader.verdict.INSTRUCTIONS).
CATEGORIES = {"hint_by_hand_reach": "report_by_hand_reach", "hint_by_hand_tamper": "report_by_hand_tamper",
              "hint_by_hand_threads": "report_by_hand_threads"}


def hint_text(key: str, lang: str, fields: dict, learners_lang: str | None = None) -> str:
    """The hint as learners read it, in lang where it has that language (a ja or ko hint for an instructor of the
    other language), else in learners_lang, said so; a field no verdict recorded shows as its placeholder."""
    if carried_parts(key):
        key = carried_parts(key)[1]
    if key in CATEGORIES:
        return text(CATEGORIES[key], lang)
    entry = MESSAGES.get(key) or COURSE_MESSAGES.get(key) or {}
    use = lang if lang in entry or not learners_lang else learners_lang
    suffix = "" if use == lang else text("report_hint_in", lang, lang=text(LANGUAGE_NAMES[use], lang))
    try:
        return text(key, use, **fields) + suffix
    except (KeyError, ValueError, IndexError):
        return entry.get(use, key) + suffix


def _learner_hint(key: str | None, lang: str, fields: dict, learners_lang: str | None = None) -> str:
    return hint_text(key, lang, fields, learners_lang) if key else ""


# --------------------------------------------------------------------------- pictures
class Charts:
    """Bar charts in seaborn's theme on figures of their own (no pyplot state), as PNG data URIs.

    The CJK fonts (attn_course.fonts) are registered once: reading the font files is what costs.
    Layout is fixed rather than constrained: it halves the time of each chart.
    """

    def __init__(self):
        import matplotlib
        import seaborn as sns
        from attn_course.fonts import use_cjk_fonts
        self.matplotlib, self.sns = matplotlib, sns
        with matplotlib.rc_context():
            families = use_cjk_fonts("ja")  # IPAexGothic (kana, kanji) first, then NanumGothic (Hangul)
        cjk, rest = families[:-1], families[-1:]
        self.families = {"ja": families, "ko": cjk[::-1] + rest, "en": families}

    def _png(self, draw, size, lang, left) -> str:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
        with self.matplotlib.rc_context():
            self.sns.set_theme(style="whitegrid", rc={"font.family": self.families[lang], "axes.unicode_minus": False})
            fig = Figure(figsize=size, dpi=100)
            FigureCanvasAgg(fig)
            draw(fig.add_subplot())
            fig.subplots_adjust(left=left, right=0.96, top=1 - 0.15 / size[1], bottom=0.55 / size[1])
            out = io.BytesIO()
            fig.savefig(out, format="png")
        return "data:image/png;base64," + base64.b64encode(out.getvalue()).decode("ascii")

    def exercise(self, labels: list[str], counts: list[int], colors: list[str], lang: str) -> str:
        def draw(ax):
            # Plain barh under seaborn's theme: seaborn's barplot (a hue per bar) took twice as long per chart, and a
            # class report draws one chart per exercise.
            rows = range(len(labels))
            ax.barh(rows, counts, color=[self.sns.desaturate(c, 0.75) for c in colors], height=0.8)  # as barplot
            ax.set_yticks(rows, labels)
            ax.set_ylim(len(labels) - 0.5, -0.5)
            ax.grid(False, axis="y")
            ax.set_xlabel(text("report_count_axis", lang))
            ax.set_ylabel("")
            ax.set_xlim(0, max(counts + [1]) * 1.12)
            ax.xaxis.get_major_locator().set_params(integer=True)
            for container in ax.containers:
                ax.bar_label(container, padding=3)
        # Room for the longest label: a CJK character is about 16 px wide at 11 pt and 100 dpi, Latin half that.
        width = max(sum(16 if ord(c) > 0x2000 else 8 for c in label) for label in labels)
        return self._png(draw, (7.5, 0.36 * len(labels) + 0.75), lang, left=min(0.55, (width + 24) / 750))

    def distribution(self, totals: list[float], total: float, lang: str) -> str:
        def draw(ax):
            self.sns.histplot(x=totals, discrete=True, color=COLORS["pass"], ax=ax)
            ax.set_xlim(-0.5, total + 0.5)
            ax.set_xlabel(text("report_score_axis", lang, total=_num(total)))
            ax.set_ylabel(text("report_count_axis", lang))
            ax.yaxis.get_major_locator().set_params(integer=True)
        return self._png(draw, (7.5, 2.4), lang, left=0.09)


def _num(x: float) -> str:
    return f"{x:g}"


# --------------------------------------------------------------------------- writing
def _rows(ex: Exercise, lang: str, learners_lang: str | None = None):
    """(outcome, label for the chart, label for the table, hint text or "", color) in the report's order."""
    yield "pass", text("report_full_marks", lang), text("report_full_marks", lang), "", COLORS["pass"]
    for i, (key, _) in enumerate(ex.mistakes()):
        mark = CIRCLED[i] if i < len(CIRCLED) else f"({i + 1})"
        hint = hint_text(key, lang, ex.fields.get(key, {}), learners_lang)
        short = hint if len(hint) <= SHORT else hint[:SHORT - 1] + "…"
        yield key, f"{mark} {short}", f"{mark} {text('report_mistake', lang, n=i + 1)}", hint, COLORS["mistake"]
    for key, _ in ex.carried():
        n = carried_parts(key)[0]
        hint = hint_text(key, lang, ex.fields.get(key, {}), learners_lang)
        short = hint if len(hint) <= SHORT else hint[:SHORT - 1] + "…"
        yield key, f"{text('report_carried_short', lang, n=n)}: {short}", text("report_carried", lang, n=n), hint, \
            COLORS["carried"]
    yield "unknown_mistake", text("report_unknown", lang), text("report_unknown", lang), "", COLORS["unknown_mistake"]
    yield "not_attempted", text("report_not_attempted", lang), text("report_not_attempted", lang), "", \
        COLORS["not_attempted"]


STYLE = """
body { font-family: "Noto Sans CJK JP", "Noto Sans CJK KR", "Hiragino Sans", "Malgun Gothic", sans-serif;
       max-width: 1100px; margin: 2em auto; padding: 0 1em; color: #222; line-height: 1.5; }
h1 { font-size: 1.6em; } h2 { font-size: 1.25em; margin-top: 2em; border-bottom: 1px solid #ddd; }
table { border-collapse: collapse; margin: 0.5em 0; } td, th { border: 1px solid #ddd; padding: 0.3em 0.6em;
       vertical-align: top; } th { background: #f4f4f4; text-align: left; white-space: nowrap; } td.n { text-align: right; }
.summary span { margin-right: 2em; } .names { color: #555; font-size: 0.9em; } img { max-width: 100%; }
"""


def page(summary: Summary, charts: Charts, names: bool) -> str:
    lang, esc = summary.lang, html.escape
    median = summary.median()
    parts = [f'<!DOCTYPE html>\n<html lang="{lang}"><head><meta charset="utf-8">',
             f"<title>{esc(text('report_title', lang, title=summary.title))}</title><style>{STYLE}</style></head><body>",
             f"<h1>{esc(text('report_title', lang, title=summary.title))}</h1>",
             f"<p>{esc(summary.assignment)} · {esc(text('report_intro', lang))}</p>",
             f'<p class="summary"><span>{esc(text("report_learners", lang, n=len(summary.totals)))}</span>']
    if median is not None:
        parts.append(f"<span>{esc(text('report_median', lang))}: "
                     f"{esc(text('report_out_of', lang, score=_num(median), total=_num(summary.total)))}"
                     f"{esc(text('report_of_n', lang, n=len(summary.totals)))}</span>"
                     f"<span>{esc(text('report_mean', lang))}: "
                     f"{esc(text('report_out_of', lang, score=f'{statistics.mean(summary.totals.values()):.1f}', total=_num(summary.total)))}</span>")
    if summary.not_graded:
        parts.append(f"<span>{esc(text('report_not_graded', lang, n=summary.not_graded))}</span>")
    parts.append("</p>")
    if summary.totals:
        parts.append(f"<h2>{esc(text('report_distribution', lang))}</h2>"
                     f'<img alt="" src="{charts.distribution(list(summary.totals.values()), summary.total, lang)}">')
    for ex in summary.exercises:
        rows = list(_rows(ex, lang, summary.learners_lang))
        parts.append(f"<h2>{esc(ex.title)}</h2><p class=\"names\">{esc(ex.grade_id.removesuffix('_tests'))} · "
                     f"{esc(text('report_points', lang, points=_num(ex.points)))}</p>")
        parts.append(f"<table><tr><th>{esc(text('report_outcome', lang))}</th><th>{esc(text('report_count_axis', lang))}"
                     f"</th><th>{esc(text('report_hint_shown', lang))}</th>"
                     + (f"<th>{esc(text('report_names', lang))}</th>" if names else "") + "</tr>")
        size = len(summary.totals)
        for outcome, _, label, hint, _ in rows:
            who = ", ".join(sorted(ex.names.get(outcome, [])))
            parts.append(f'<tr><td>{esc(label)}</td><td class="n">{ex.outcomes.get(outcome, 0)} / {size}</td>'
                         f"<td>{esc(hint)}</td>" + (f'<td class="names">{esc(who)}</td>' if names else "") + "</tr>")
        parts.append("</table>")
        if summary.totals:
            chart = charts.exercise([r[1] for r in rows], [ex.outcomes.get(r[0], 0) for r in rows],
                                    [r[4] for r in rows], lang)
            parts.append(f'<img alt="" src="{chart}">')
    if summary.totals:
        parts.append(report_learners.index_table(summary, names))
    parts.append("</body></html>\n")
    return "\n".join(parts)


def write_csv(summary: Summary, path: Path, names: bool) -> None:
    lang = summary.lang
    header = [text(k, lang) for k in ("report_exercise", "report_outcome", "report_hint_key", "report_hint_shown",
                                      "report_count_axis", "report_class_size")]
    with open(path, "w", newline="", encoding="utf-8-sig") as f:  # with a BOM, so spreadsheet programs read CJK
        writer = csv.writer(f)
        writer.writerow(header + ([text("report_names", lang)] if names else []))
        for ex in summary.exercises:
            for outcome, _, label, hint, _ in _rows(ex, lang, summary.learners_lang):
                key = outcome if outcome not in COLORS else ""
                row = [ex.grade_id.removesuffix("_tests"), label, key, hint, ex.outcomes.get(outcome, 0),
                       len(summary.totals)]
                writer.writerow(row + ([" ".join(sorted(ex.names.get(outcome, [])))] if names else []))


def index(summaries: dict[str, Summary], instructor: str | None = None) -> str:
    """Every lesson × the learners' language; in the instructor's language when one is chosen, else each column in
    its learners' language and the headings in both."""
    esc = html.escape
    langs = (instructor,) if instructor else LANGS
    both = lambda key, **f: " / ".join(text(key, lang, **f) for lang in langs)  # noqa: E731
    lessons = sorted({a.rsplit("-", 1)[0] for a in summaries})
    parts = [f'<!DOCTYPE html>\n<html lang="{instructor or "ja"}"><head><meta charset="utf-8">',
             f"<title>{esc(both('report_index_title'))}</title><style>{STYLE}</style></head><body>",
             f'<h1>{esc(both("report_index_title"))}</h1>'
             f'<p><a href="{report_history.FOLDER}/index.html">{esc(both("history_link"))}</a></p>'
             f'<table style="width: 100%"><tr><th>{esc(both("report_lesson"))}</th>']
    parts += [f'<th lang="{instructor or col}" style="width: 45%">'
              f'{esc(text(LANGUAGE_NAMES[col], instructor) if instructor else text("report_language", col))}</th>'
              for col in LANGS]
    parts.append("</tr>")
    for lesson in lessons:
        parts.append(f"<tr><td>{esc(lesson)}</td>")
        for col in LANGS:
            summary = summaries.get(f"{lesson}-{col}")
            if summary is None:
                parts.append("<td></td>")
                continue
            lang = summary.lang
            median, common = summary.median(), summary.most_common()
            size = len(summary.totals)
            cell = [f'<a href="{esc(summary.assignment)}.html">{esc(summary.title)}</a>',
                    esc(text("report_learners", lang, n=size))]
            if median is not None:
                cell.append(f"{esc(text('report_median', lang))}: "
                            f"{esc(text('report_out_of', lang, score=_num(median), total=_num(summary.total)))}"
                            f"{esc(text('report_of_n', lang, n=size))}")
            if common:
                # Tied mistakes are all shown: picking one would hide what the class did as often.
                head = text("report_most_common" if len(common) == 1 else "report_most_common_tied", lang)
                items = []
                for key, n, ex in common:
                    hint = hint_text(key, lang, ex.fields.get(key, {}), summary.learners_lang)
                    short = hint if len(hint) <= 3 * SHORT else hint[:3 * SHORT - 1] + "…"
                    items.append(f'<li><span title="{esc(hint)}">{esc(short)}</span>'
                                 f" {esc(text('report_in_exercise', lang, exercise=ex.grade_id.removesuffix('_tests')))}"
                                 f" — {esc(text('report_people_of', lang, n=n, size=size))}</li>")
                cell.append(f"{esc(head)}:<ul>{''.join(items)}</ul>")
            else:
                cell.append(f"{esc(text('report_most_common', lang))}: {esc(text('report_none', lang))}")
            parts.append(f'<td lang="{lang}">' + "<br>".join(cell) + "</td>")
        parts.append("</tr>")
    parts.append("</table></body></html>\n")
    return "\n".join(parts)


_JOB: dict = {}  # what the forked workers render: set before the pool forks, so nothing is pickled


def _render(assignment: str) -> None:
    summary, course, names = _JOB["summaries"][assignment], _JOB["course"], _JOB["names"]
    out = report_dir(course, names)
    (out / f"{assignment}.html").write_text(page(summary, _JOB["charts"], names), encoding="utf-8")
    write_csv(summary, out / f"{assignment}.csv", names)
    report_learners.write_pages(summary, out, names, STYLE, _learner_hint)


def report(course: Path, names: bool = False, jobs: int | None = None) -> dict:
    """Write report/<assignment>.html and .csv for every assignment with verdicts, and report/index.html (with
    names: the same in report-names/, with the learners' ids; report/ is left as it is).
    Pages are drawn one assignment per worker process (forked, so seaborn and the fonts load once).
    Returns {"report_s": seconds, "report_pages": n}."""
    import multiprocessing
    import os
    start = time.perf_counter()
    course = Path(course)
    assignments = sorted(p.name for p in (course / VERDICTS).glob("*") if p.is_dir())
    report_dir(course, names).mkdir(exist_ok=True)
    instructor = instructor_language(course)
    summaries = {a: summarize(course, a, instructor) for a in assignments}
    _JOB.update(summaries=summaries, course=course, names=names, charts=Charts())
    try:
        jobs = min(jobs or os.cpu_count() or 1, len(assignments))
        if jobs > 1:
            with multiprocessing.get_context("fork").Pool(jobs) as pool:
                pool.map(_render, assignments)
        else:
            for assignment in assignments:
                _render(assignment)
    finally:
        _JOB.clear()
    (report_dir(course, names) / "index.html").write_text(index(summaries, instructor), encoding="utf-8")
    report_history.write_pages(course, report_dir(course, names), names, STYLE, instructor)
    return {"report_s": round(time.perf_counter() - start, 2), "report_pages": len(summaries)}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--course", type=Path, default=Path.cwd() / "autograder")
    parser.add_argument("--names", action="store_true",
                        help="a report with the learners' ids, in report-names/ (report/ is left as it is)")
    args = parser.parse_args()
    done = report(args.course.resolve(), names=args.names)
    print(f"class report{' with ids' if args.names else ''}: {report_dir(args.course, args.names) / 'index.html'} "
          f"({done['report_pages']} assignments, {done['report_s']} s)")


if __name__ == "__main__":
    main()
