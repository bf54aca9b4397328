"""Feedback pages in the learner's language: nbgrader's English labels replaced, exercises named."""
import pytest
from attn_grader.feedback import localize_feedback
from attn_grader.messages import text

# The score summary and one cell heading as nbgrader 0.9's feedback template writes them
# (formgrader/templates/feedback/index.html.j2), for two grade cells of lesson 1.
PAGE = """<!DOCTYPE html>
<html>
<body>
<h4>01_attention (Score: 3.0 / 5.0)</h4>
<div id="toc">
<ol>
<li><a href="#ex1_attention_scores_tests">Test cell</a> (Score: 3.0 / 3.0)</li>
<li><a href="#ex2_variance_tests">Test cell</a> (Score: 0.0 / 2.0)</li>
<li><a href="#free">Test cell</a> (Score: 0.0 / 1.0)</li>
</ol>
</div>
<a name="ex1_attention_scores_tests"></a><div class="panel-heading"><span class="nbgrader-label">Grade cell: <code>ex1_attention_scores_tests</code></span>
<span class="pull-right">
      Score: 3.0 / 3.0 <a href="#top">(Top)</a>
  </span></div>
</body>
</html>
"""


@pytest.mark.parametrize("lang", ["ja", "ko"])
def test_the_summary_names_each_exercise_in_the_learners_language(tmp_path, lang):
    page = tmp_path / "01_attention.html"
    page.write_text(PAGE, encoding="utf-8")
    localize_feedback(tmp_path, f"01-attention-{lang}")
    html = page.read_text(encoding="utf-8")
    first = text("feedback_exercise", lang, n=1, name="attention_scores")
    second = text("feedback_exercise", lang, n=2, name="variance")
    assert f'<a href="#ex1_attention_scores_tests">{first}</a> ({text("feedback_score", lang)}: 3.0 / 3.0)' in html
    assert f'<a href="#ex2_variance_tests">{second}</a>' in html
    # A grade cell that is not an exercise keeps the generic label; nothing English is left.
    assert f'<a href="#free">{text("feedback_test_cell", lang)}</a>' in html
    for english in ("Test cell", "Score:", "Grade cell:", "(Top)"):
        assert english not in html, english
    assert f'<html lang="{lang}">' in html


def test_an_exercise_is_named_as_the_learner_wrote_it(tmp_path):
    """The grade id says rope_cache; the learner wrote attend_rope_with_cache, and reads that name."""
    import nbformat
    from nbformat.v4 import new_code_cell, new_notebook
    page = tmp_path / "feedback" / "07_positions.html"
    page.parent.mkdir()
    page.write_text('<html><a href="#ex6_rope_cache_tests">Test cell</a></html>', encoding="utf-8")
    cell = new_code_cell("### BEGIN HIDDEN TESTS\ncourse.probes.lesson7.rope_cache(attend_rope_with_cache)\n"
                         "### END HIDDEN TESTS\ncourse.checks.lesson7.check_rope_cache(attend_rope_with_cache)\n")
    cell.metadata["nbgrader"] = {"grade": True, "grade_id": "ex6_rope_cache_tests"}
    (tmp_path / "autograded").mkdir()
    nbformat.write(new_notebook(cells=[cell]), tmp_path / "autograded" / "07_positions.ipynb")
    localize_feedback(page.parent, "07-positions-ko", tmp_path / "autograded")
    expected = text("feedback_exercise", "ko", n=6, name="attend_rope_with_cache")
    assert f'<a href="#ex6_rope_cache_tests">{expected}</a>' in page.read_text(encoding="utf-8")
