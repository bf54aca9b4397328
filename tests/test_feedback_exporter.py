"""grader/attn_grader/feedback_exporter.py: the page nbconvert's HTMLExporter writes, without its BeautifulSoup pass."""
import re

import nbformat
import pytest
from attn_grader.feedback import localize_feedback
from attn_grader.feedback_exporter import ALT_PLACEHOLDER, FeedbackHTMLExporter, add_accessibility
from attn_grader.messages import text
from bs4 import BeautifulSoup
from conftest import ROOT
from nbconvert.exporters import HTMLExporter
from traitlets.config import Config

NBCONVERT_ALT = "No description has been provided for this image"
WIDGET_ID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def _notebook():
    """A graded page's kinds of output: a plot with no alt text, a markdown image with one, a widget, an error."""
    nb = nbformat.v4.new_notebook(metadata={"language_info": {"name": "python", "pygments_lexer": "ipython3"}})
    png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
    nb.cells = [
        nbformat.v4.new_markdown_cell('![a diagram](data:image/png;base64,' + png + ')\n\n<img src="x.png" alt="kept">'),
        nbformat.v4.new_code_cell("plot()", outputs=[nbformat.v4.new_output("display_data", {"image/png": png})]),
        nbformat.v4.new_code_cell("1 / 0", outputs=[nbformat.v4.new_output(
            "error", ename="ZeroDivisionError", evalue="division by zero", traceback=["ZeroDivisionError"])]),
        nbformat.v4.new_code_cell("print('<img src=1>')", outputs=[nbformat.v4.new_output(
            "stream", name="stdout", text="<img src=1>\n")]),
    ]
    return nb


@pytest.mark.parametrize("source", ["fixture", "lesson 7"])
def test_the_page_is_htmlexporters_own(source):
    """The same tree as HTMLExporter's, attribute for attribute, once the placeholder is nbconvert's English text
    (widget ids are random in both)."""
    nb = _notebook() if source == "fixture" else nbformat.read(ROOT / "solutions" / "ko" / "07_positions.ipynb", 4)
    config = Config()
    config.HTMLExporter.template_name = "lab"
    theirs, _ = HTMLExporter(config=config).from_notebook_node(nb)
    ours, _ = FeedbackHTMLExporter(config=config).from_notebook_node(nb)
    assert ours.count(ALT_PLACEHOLDER) == theirs.count(NBCONVERT_ALT) >= (1 if source == "fixture" else 0)
    ours = str(BeautifulSoup(ours.replace(ALT_PLACEHOLDER, NBCONVERT_ALT), features="html.parser"))
    assert WIDGET_ID.sub("id", ours) == WIDGET_ID.sub("id", theirs)
    assert 'tabindex="0"' in theirs


def test_markup_is_added_only_to_start_tags():
    html = ('<div class="jp-Cell-inputWrapper" tabindex="-1"><img src="a.png"/><img alt="" src="b"></div>'
            '<pre>&lt;img src=1&gt;</pre><div class="jp-OutputArea-output-not">x</div>')
    assert add_accessibility(html) == (
        f'<div class="jp-Cell-inputWrapper" tabindex="0"><img src="a.png" alt="{ALT_PLACEHOLDER}"/>'
        '<img alt="" src="b"></div><pre>&lt;img src=1&gt;</pre><div class="jp-OutputArea-output-not">x</div>')


@pytest.mark.parametrize("lang", ["ja", "ko"])
def test_a_figure_is_described_in_the_learners_language(tmp_path, lang):
    config = Config()
    config.HTMLExporter.template_name = "lab"
    page, _ = FeedbackHTMLExporter(config=config).from_notebook_node(_notebook())
    (tmp_path / "01_attention.html").write_text(page, encoding="utf-8")
    localize_feedback(tmp_path, f"01-attention-{lang}")
    html = (tmp_path / "01_attention.html").read_text(encoding="utf-8")
    assert f'alt="{text("feedback_figure_alt", lang)}"' in html
    assert ALT_PLACEHOLDER not in html and NBCONVERT_ALT not in html
