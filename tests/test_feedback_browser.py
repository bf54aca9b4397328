"""Feedback pages in Chromium with nothing fetched (tools/feedback_pages.py): formulas drawn as MathML, output lines
inside the page, and after an exercise left undone, one line in the learner's language instead of a traceback.

The pages are those conftest's `graded` class got (the same pages learners get).
"""
import os
from pathlib import Path

import pytest
from attn_grader.messages import text
from conftest import class_lessons

CHROMIUM = Path("/usr/bin/chromium")
if not CHROMIUM.exists():
    if os.geteuid() == 0:  # `make test` installs it as root: its absence is a failure there
        raise RuntimeError(f"{CHROMIUM} is missing: `make test` installs it with apt-get")
    pytest.skip(f"{CHROMIUM} is missing and only root can install it (apt-get install chromium)",
                allow_module_level=True)

from feedback_pages import inspect  # noqa: E402 - tools/ is on pytest's pythonpath (pyproject.toml)

LESSONS = class_lessons()

pytestmark = pytest.mark.xdist_group("graded")  # on the worker that grades conftest's class (Scheduling)


def _page(course, student, stem, lang):
    return course / "feedback" / student / f"{LESSONS[stem].assignment}-{lang}" / f"{stem}.html"


def test_feedback_pages_draw_formulas_and_keep_lines_inside_with_nothing_fetched(graded):
    course, _ = graded
    pages = [_page(course, "solution-ja", "01_attention", "ja"), _page(course, "release-ko", "07_positions", "ko"),
             _page(course, "release-ja", "03_masks", "ja")]
    for page, measures in inspect(pages, width=900).items():
        assert measures["fetched"] == [], page
        assert measures["maths"] > 10 and measures["drawn"] == measures["maths"], (page, measures)
        assert measures["raw_tex"] == 0, page
        assert measures["overflowing"] == [] and measures["page_width"] <= measures["view_width"], (page, measures)


@pytest.mark.parametrize("lang", ["ja", "ko"])
def test_a_demonstration_after_an_undone_exercise_says_so_in_one_line(graded, lang):
    course, _ = graded
    html = _page(course, f"release-{lang}", "07_positions", lang).read_text("utf-8")
    one_line = text("demo_needs_exercise", lang, n=3, name="apply_rope")
    assert one_line in html
    assert text("exercise_not_attempted", lang) in html
    # No traceback of the learner's untouched stubs is left in a demonstration cell.
    assert "Traceback (most recent call last)" not in html
