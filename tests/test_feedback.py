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


# An untouched answer, a graded answer with a grader's comment, and a late penalty, as nbgrader 0.9's template
# writes them (the summary's <ol>, then each answer cell's anchor, heading and footer).
PAGE_WITH_COMMENTS = """<html><body>
<div id="toc">
          <ol>
            <li><a href="#comment-ex1_attention_scores">Comment</a></li>
            <li><a href="#ex1_attention_scores_tests">Test cell</a> (Score: 0.0 / 3.0)</li>
            <li><a href="#comment-ex2_variance">Comment</a></li>
            <li><a href="#ex2_variance_tests">Test cell</a> (Score: 2.0 / 2.0)</li>
            <li class="late-penalty">Late submission penalty (Score: -2.8)</li>
          </ol>
        </div>
<a name="comment-ex1_attention_scores"></a><div class="panel-heading"><span class="nbgrader-label">Student's answer</span></div>
<div class="panel-footer">
  <div>
    <b>Comments:</b> <p>No response.</p>
  </div>
</div>
<a name="comment-ex2_variance"></a><div class="panel-heading"><span class="nbgrader-label">Student's answer</span></div>
<div class="panel-footer">
  <div>
    <b>Comments:</b> <p>Nice: you measured it.</p>
  </div>
</div>
</body></html>
"""


@pytest.mark.parametrize("lang", ["ja", "ko"])
def test_the_summary_numbers_only_exercises_and_an_unchanged_answer_says_so(tmp_path, lang):
    """Issue 42: "コメント" entries were numbered among the exercises, and "No response." (nbgrader: the answer
    cell is as released) read "（なし）", as if no one had commented."""
    import re
    page = tmp_path / "01_attention.html"
    page.write_text(PAGE_WITH_COMMENTS, encoding="utf-8")
    localize_feedback(tmp_path, f"01-attention-{lang}")
    html = page.read_text(encoding="utf-8")
    numbered = re.findall(r"<li>(.*?)</li>", re.search(r"<ol>(.*?)</ol>", html, re.S)[1])
    assert len(numbered) == 2, numbered
    for item, n, name in zip(numbered, (1, 2), ("attention_scores", "variance")):
        assert text("feedback_exercise", lang, n=n, name=name) in item
    assert text("report_not_attempted", lang) in numbered[0]
    assert f'<a href="#comment-ex2_variance">{text("feedback_comment", lang)}</a>' in numbered[1]
    assert text("feedback_unchanged_answer", lang) in html and "Nice: you measured it." in html
    assert "No response." not in html and ("（なし）" if lang == "ja" else "(없음)") not in html


@pytest.mark.parametrize("lang, seconds, method, grace, expected", [
    ("ja", 2 * 86400 + 3 * 3600 + 59, "per_day", 0, "提出遅れの減点：2 日 3 時間遅れ、1 日ごとに 10%（1 日に満たない遅れも 1 日と数えます）（得点: -2.8）"),
    ("ko", 2 * 86400 + 3 * 3600, "per_day", 0, "지각 제출 감점: 2일 3시간 늦음, 하루마다 10%(하루가 안 되는 지각도 하루로 셉니다) (점수: -2.8)"),
    ("ja", 5400, "per_day", 30, "1 時間 30 分遅れ、1 日ごとに 10%（1 日に満たない遅れも 1 日と数えます）、締め切りから 30 分までは遅れに数えません"),
    ("ko", 86400, "zero", 0, "1일 늦음, 마감을 넘긴 제출은 0점"),
    ("ja", 20, "per_day", 0, "1 分遅れ"),
])
def test_the_late_penalty_line_says_how_late_and_by_which_rule(tmp_path, lang, seconds, method, grace, expected):
    from attn_grader.late_penalty import LatePenalty
    page = tmp_path / "01_attention.html"
    page.write_text(PAGE_WITH_COMMENTS, encoding="utf-8")
    localize_feedback(tmp_path, f"01-attention-{lang}", late=(seconds, LatePenalty(penalty_method=method,
                                                                                  grace_minutes=grace)))
    html = page.read_text(encoding="utf-8")
    assert expected in html and "Late submission penalty" not in html
