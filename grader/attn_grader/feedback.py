"""Feedback pages in the assignment's language (nbgrader's feedback template is English), readable offline."""
from __future__ import annotations

import re
from pathlib import Path

import nbformat

from .feedback_exporter import ALT_PLACEHOLDER
from .feedback_offline import offline
from .messages import assignment_language, text
from .preprocessors.decide_hidden_tests import tested_names

# nbgrader's labels (nbgrader 0.9, formgrader/templates/feedback) and the message that replaces each.
_LABELS = [
    ("Score:", "feedback_score", "{}:"),
    ("Test cell", "feedback_test_cell", "{}"), ("Coding free-response", "feedback_free_response", "{}"),
    ("Written response", "feedback_written", "{}"), ("Late submission penalty", "feedback_late", "{}"),
    ("Student's answer", "feedback_answer", "{}"), ("Student's task", "feedback_task", "{}"),
    ("Grade cell:", "feedback_grade_cell", "{}:"), ("Task:", "feedback_task", "{}:"),
    ("Comments:", "feedback_comment", "{}:"), ("Comment", "feedback_comment", "{}"),
    ("(Top)", "feedback_top", "({})"),
]

# nbgrader's SaveAutoGrades comments "No response." on an answer cell whose checksum is the release's: the cell
# is as it was handed out. Rendered as "（なし）" it read as "no comment", the opposite of what it says.
_NO_RESPONSE = re.compile(r"(<b>Comments:</b>\s*<p>)No response\.(</p>)")
# The summary lists a "Comment" link before an answer's exercise, and numbers it among the exercises (<ol>).
_TOC = re.compile(r'(<div id="toc">\s*<ol>)(.*?)(</ol>)', re.S)
_TOC_COMMENT = re.compile(r'\s*<li><a href="#comment-([^"]+)">Comment</a></li>')
_FOOTER = r'<a name="comment-{}"></a>.*?<b>Comments:</b>\s*(.*?)\s*</div>'
_LATE = re.compile(r'(<li class="late-penalty">)\s*Late submission penalty \(Score: (-?[\d.]+)\)\s*(</li>)')


_STYLES = re.compile(r"(<style\b.*?</style>)", re.S | re.I)

# The template's table of contents names every grade cell "Test cell": name the exercise instead.
_TOC_TEST_CELL = re.compile(r'(<a href="#(ex(\d+)_(\w+?)_tests)">)Test cell(</a>)')


def exercise_label(number: str, name: str, lang: str) -> str:
    """演習 1：attention_scores / 연습 문제 1: attention_scores, from a grade id ex1_attention_scores_tests."""
    return text("feedback_exercise", lang, n=int(number), name=name)


def learner_names(notebook: Path) -> dict[str, str]:
    """grade id -> what its hidden tests test, as the learner named it ("attend_rope_with_cache"), read from
    the autograded notebook: the grade id's own words ("rope_cache") are the course's, not the learner's."""
    if not notebook.exists():
        return {}
    cells = nbformat.read(notebook, 4).cells
    names = {c.metadata.get("nbgrader", {}).get("grade_id"): ", ".join(tested_names(c.source))
             for c in cells if c.cell_type == "code"}
    return {grade_id: name for grade_id, name in names.items() if grade_id and name}


def _summary_comments(html: str, lang: str) -> str:
    """Take nbgrader's "Comment" entries out of the summary's numbered list: an unchanged answer marks its
    exercise's line instead (未着手), any other comment (a grader's, from formgrader) becomes a link on it."""
    toc = _TOC.search(html)
    if not toc:
        return html
    items, extra = toc[2], []
    for grade_id in _TOC_COMMENT.findall(items):
        footer = re.search(_FOOTER.format(re.escape(grade_id)), html, re.S)
        unchanged = bool(footer and footer[1] == "<p>No response.</p>")
        note = (f' · {text("report_not_attempted", lang)}' if unchanged else
                f' · <a href="#comment-{grade_id}">{text("feedback_comment", lang)}</a>')
        line = re.compile(r'(<li><a href="#' + re.escape(grade_id) + r'_tests">.*?)(</li>)')
        if line.search(items):
            items = line.sub(lambda m: m[1] + note + m[2], items, count=1)
        elif not unchanged:
            extra.append(f'<li><a href="#comment-{grade_id}">{text("feedback_comment", lang)}</a></li>')
    items = _TOC_COMMENT.sub("", items)
    after = f'<ul style="list-style: none; padding-left: 0">{"".join(extra)}</ul>' if extra else ""
    return html[:toc.start()] + toc[1] + items + toc[3] + after + html[toc.end():]


def _late_line(html: str, lang: str, late: tuple | None) -> str:
    """The late penalty's line says how late and by which rule: late = (seconds late, the plugin) or None."""
    if late is None:
        return html
    from .late_penalty import lateness_text, rule_text
    seconds, plugin = late
    return _LATE.sub(lambda m: m[1] + text("feedback_late_line", lang, label=text("feedback_late", lang),
                                           late=lateness_text(seconds, lang), rule=rule_text(plugin, lang),
                                           score=text("feedback_score", lang), points=m[2]) + m[3], html)


def localize_feedback(folder: Path, assignment: str, autograded: Path | None = None, late: tuple | None = None) -> None:
    """autograded: the learner's autograded notebooks, whose grade cells name each exercise; late: (seconds late,
    the late-submission plugin) for a late submission, or None."""
    lang = assignment_language(assignment)
    for page in Path(folder).glob("*.html"):
        html = page.read_text(encoding="utf-8")
        names = learner_names(Path(autograded) / f"{page.stem}.ipynb") if autograded else {}
        html = _summary_comments(html, lang)
        html = _NO_RESPONSE.sub(lambda m: m[1] + text("feedback_unchanged_answer", lang) + m[2], html)
        html = _late_line(html, lang, late)
        html = _TOC_TEST_CELL.sub(lambda m: m[1] + exercise_label(m[3], names.get(m[2], m[4]), lang) + m[5], html)
        # Only the template's own markup is touched: labels sit between tags, not in notebook text, nor in
        # the page's style sheets (whose comments say "Comment").
        parts = _STYLES.split(html)
        for english, key, form in sorted(_LABELS, key=lambda x: -len(x[0])):
            label = form.format(text(key, lang))
            parts = [part if i % 2 else re.sub(r"(?<=[>\s(])" + re.escape(english) + r"(?=[\s<])", label, part)
                     for i, part in enumerate(parts)]
        html = "".join(parts)
        html = html.replace("<html>", f'<html lang="{lang}">', 1)
        html = html.replace(f'alt="{ALT_PLACEHOLDER}"', f'alt="{text("feedback_figure_alt", lang)}"')
        page.write_text(offline(html), encoding="utf-8")
