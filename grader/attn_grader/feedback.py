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
    # nbgrader's SaveAutoGrades writes this as the comment on an answer no one commented on.
    ("No response.", "feedback_no_comment", "{}"),
]


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


def localize_feedback(folder: Path, assignment: str, autograded: Path | None = None) -> None:
    """autograded: the learner's autograded notebooks, whose grade cells name each exercise."""
    lang = assignment_language(assignment)
    for page in Path(folder).glob("*.html"):
        html = page.read_text(encoding="utf-8")
        names = learner_names(Path(autograded) / f"{page.stem}.ipynb") if autograded else {}
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
