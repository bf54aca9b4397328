"""Each of the course's nbgrader preprocessors on a small fixture notebook, as nbgrader's own tests do."""
import json
import os

import nbformat
import pytest
from attn_course.probes import MIME, SEED_ENV
from attn_course.probes import lesson1 as probes
from attn_grader.messages import text
from attn_grader.preprocessors import (
    DecideHiddenTests, ForgiveWarnings, GuardedExecute, HideHiddenTests, RecordVerdicts, StripSkipTags,
)
from attn_grader.preprocessors.decide_hidden_tests import tested_names as pass_line_names
from attn_grader.preprocessors.forgive_warnings import only_warnings
from attn_grader.preprocessors.record_verdicts import is_stub
from conftest import REFERENCE, ROOT, reference
from nbformat.v4 import new_code_cell, new_notebook, new_output


def _grade_cell(source, outputs=(), points=3, grade_id="ex1_attention_scores_tests"):
    cell = new_code_cell(source)
    cell.metadata["nbgrader"] = {"grade": True, "solution": False, "locked": True, "points": points,
                                 "grade_id": grade_id, "schema_version": 3}
    cell.outputs = list(outputs)
    return cell


def _resources(seed=None, assignment="01-attention-ja"):
    resources = {"nbgrader": {"assignment": assignment, "notebook": "01_attention", "student": "s"}}
    if seed is not None:
        resources["attn_grading"] = {"seed": seed}
    return resources


# As in the lessons: the hidden part first, so its results are sent even when the visible check fails.
HIDDEN = ("### BEGIN HIDDEN TESTS\ncourse.probes.lesson1.attention_scores(attention_scores)\n### END HIDDEN TESTS\n"
          "course.checks.lesson1.check_attention_scores(attention_scores)")


# --------------------------------------------------------------------------- StripSkipTags
def test_strip_skip_tags_removes_only_the_tags_that_change_execution():
    cell = _grade_cell("pass")
    cell.metadata["tags"] = ["skip-execution", "raises-exception", "mine"]
    nb, _ = StripSkipTags().preprocess(new_notebook(cells=[cell]), _resources())
    assert nb.cells[0].metadata.tags == ["mine"]


# --------------------------------------------------------------------------- ForgiveWarnings
def test_printed_warnings_are_recognised():
    one = "/x/y.py:3: UserWarning: hello\n  warnings.warn('hello')\n"
    multi = ("/r/lesson2.py:138: UserWarning: Converting a tensor with requires_grad=True to a scalar\n"
             "Consider using tensor.detach() first. (Triggered internally at foo.cpp:822.)\n"
             "  err = max(float(a), float(b))\n")
    ipython = "/tmp/ipykernel_1/2.py:4: DeprecationWarning: old\n  old()\n"
    assert only_warnings(one) and only_warnings(multi) and only_warnings(one + ipython)


def test_other_stderr_is_not_forgiven():
    assert not only_warnings("")
    assert not only_warnings("Traceback (most recent call last):\n  File x\nValueError: no\n")
    assert not only_warnings("my own message\n/x.py:3: UserWarning: w\n  w()\n")
    # After a warning's source line, a plain line is not part of any warning.
    assert not only_warnings("/x.py:3: UserWarning: w\n  w()\nI failed\n")


def test_forgive_warnings_moves_a_warning_but_keeps_other_stderr():
    warned = _grade_cell("pass", [new_output("stream", name="stderr", text="/x.py:3: UserWarning: w\n  w()\n")])
    failed = _grade_cell("pass", [new_output("stream", name="stderr", text="I failed\n")], grade_id="b")
    nb, _ = ForgiveWarnings().preprocess(new_notebook(cells=[warned, failed]), _resources())
    assert nb.cells[0].outputs[0].name == "stdout" and nb.cells[1].outputs[0].name == "stderr"


def test_a_progress_bar_left_open_by_an_earlier_cell_costs_nothing():
    """A demonstration that raised mid-loop leaves its tqdm bar open; it is redrawn on stderr in whatever grade cell
    runs when it is collected (lesson 7's training with a float64 ALiBi bias, then the cross-attention cell: 0/4)."""
    bar = _grade_cell("pass", [new_output("stream", name="stderr", text="\r位置の教え方:  60%|██████    | 3/5 "
                                                                         "[00:00<00:00,  3.76it/s]"),
                               new_output("stream", name="stderr", text="\n"),
                               new_output("stream", name="stderr", text="\x1b[A\r  0%|          | 0/8 [00:00<?, ?it/s]")])
    mixed = _grade_cell("pass", [new_output("stream", name="stderr", text="50%|█████     | 1/2 [00:01<00:01]\nI failed")],
                        grade_id="b")
    nb, _ = ForgiveWarnings().preprocess(new_notebook(cells=[bar, mixed]), _resources())
    assert [o.name for o in nb.cells[0].outputs] == ["stdout"] * 3 and nb.cells[1].outputs[0].name == "stderr"


# --------------------------------------------------------------------------- GuardedExecute
def test_guarded_execute_gives_the_kernel_its_seed_and_caps_a_flood():
    cells = [new_code_cell(f"import os\nprint(os.environ['{SEED_ENV}'])"),
             new_code_cell("while True:\n    print('x' * 100_000)")]
    resources = _resources()
    resources["metadata"] = {"path": os.getcwd()}
    execute = GuardedExecute(timeout=60, max_output_bytes=1 << 20)
    os.environ.pop(SEED_ENV, None)   # whatever another test in this process left there
    nb, resources = execute.preprocess(new_notebook(cells=cells), resources)
    assert nb.cells[0].outputs[0].text.strip() == str(resources["attn_grading"]["seed"])
    flood = nb.cells[1].outputs
    assert sum(len(o.get("text", "")) for o in flood) < 2 << 20
    assert any(o.output_type == "error" for o in flood)
    assert SEED_ENV not in os.environ


def test_guarded_execute_spares_every_results_bundle_of_a_cell_up_to_their_own_cap():
    # A grade cell with two hidden tests sends two bundles; the print cap must not cut the second.
    emit = (f"from IPython.display import display\n"
            f"for _ in range({{n}}):\n    display({{{{'{MIME}': {{{{'pad': 'x' * 3000}}}}}}}}, raw=True)")
    resources = _resources()
    resources["metadata"] = {"path": os.getcwd()}
    execute = GuardedExecute(timeout=60, max_output_bytes=1000, max_results_bytes=10_000)
    nb, _ = execute.preprocess(new_notebook(cells=[new_code_cell(emit.format(n=2)), new_code_cell(emit.format(n=4))]),
                               resources)
    assert [o.output_type for o in nb.cells[0].outputs] == ["display_data"] * 2
    kept = [o for o in nb.cells[1].outputs if o.output_type == "display_data"]
    notes = [o.text for o in nb.cells[1].outputs if o.output_type == "stream"]
    assert len(kept) == 3 and any("a results bundle of" in t for t in notes)


# --------------------------------------------------------------------------- DecideHiddenTests
def _bundle(fn, seed):
    os.environ[SEED_ENV] = str(seed)
    try:
        return new_output("display_data", data={MIME: probes.attention_scores.record(fn)})
    finally:
        del os.environ[SEED_ENV]


def _decide(cell, seed=7):
    decide = DecideHiddenTests(reference_dir=str(REFERENCE))
    nb, _ = decide.preprocess(new_notebook(cells=[cell]), _resources(seed))
    return nb.cells[0].outputs


def test_decide_passes_right_results_and_says_so_in_the_learners_language():
    outputs = _decide(_grade_cell(HIDDEN, [_bundle(reference("lesson1").attention_scores, 7)]))
    assert [o.output_type for o in outputs] == ["stream"] and "隠しテスト" in outputs[0].text


def test_decide_names_what_the_learner_wrote_in_its_pass_line():
    outputs = _decide(_grade_cell(HIDDEN, [_bundle(reference("lesson1").attention_scores, 7)]))
    assert outputs[0].text.startswith("✔ attention_scores:")
    # The probe's own name may differ ("rope_cache"); later arguments are what the lesson gave.
    source = ("### BEGIN HIDDEN TESTS\ncourse.probes.lesson7.rope_cache(attend_rope_with_cache)\n"
              "course.probes.lesson5.head_answers(model, answer_prev_head, answer_prev_weight)\n"
              "course.probes.lesson4.init(gpt2_init, GPT2SelfAttention)\n### END HIDDEN TESTS\n")
    assert pass_line_names(source) == ["attend_rope_with_cache", "answer_prev_head", "answer_prev_weight", "gpt2_init"]


def test_decide_fails_wrong_results_after_the_visible_line_and_says_which_passed():
    from nbformat.v4 import new_output as out
    wrong = _bundle(lambda Q, K: Q @ K.mT, 7)
    visible = out("stream", name="stdout", text="✔ attention_scores\n")
    outputs = _decide(_grade_cell(HIDDEN, [wrong, visible]))
    assert [o.output_type for o in outputs] == ["stream", "error"]
    assert outputs[1].evalue.startswith("上のチェックには合格しましたが") and "参照実装と一致しません" in outputs[1].evalue


def test_decide_fails_wrong_results_so_the_cell_scores_zero():
    wrong = _bundle(lambda Q, K: Q @ K.mT, 7)
    forged = new_output("execute_result", data={"text/plain": "3.0"}, execution_count=1)
    outputs = _decide(_grade_cell(HIDDEN, [forged, wrong]))
    assert outputs[0].output_type == "error" and "参照実装と一致しません" in outputs[0].evalue
    assert not any(o.output_type == "execute_result" or MIME in o.get("data", {}) for o in outputs)


def test_decide_fails_results_drawn_from_another_seed():
    outputs = _decide(_grade_cell(HIDDEN, [_bundle(reference("lesson1").attention_scores, 8)]), seed=7)
    assert outputs[0].output_type == "error"


@pytest.mark.parametrize("bundles", [0, 2])
def test_decide_fails_a_cell_with_missing_or_extra_results(bundles):
    right = _bundle(reference("lesson1").attention_scores, 7)
    outputs = _decide(_grade_cell(HIDDEN, [right] * bundles))
    assert outputs[0].output_type == "error" and "読み取れませんでした" in outputs[0].evalue


def test_decide_leaves_a_cell_that_already_failed_as_it_was_but_names_its_mistake():
    error = new_output("error", ename="CheckFailed", evalue="no", traceback=["no"])
    unscaled = _bundle(lambda Q, K: Q @ K.transpose(-2, -1), 7)
    decide = DecideHiddenTests(reference_dir=str(REFERENCE))
    nb, resources = decide.preprocess(new_notebook(cells=[_grade_cell(HIDDEN, [unscaled, error])]), _resources(7))
    assert [o.output_type for o in nb.cells[0].outputs] == ["error"] and nb.cells[0].outputs[0].evalue == "no"
    verdict = resources["attn_grading"]["verdicts"]["ex1_attention_scores_tests"]
    assert verdict["passed"] is False and verdict["hint"] == "hint_no_scale"


def test_decide_fails_and_names_an_error_the_learners_code_raised():
    dot_t = _bundle(lambda Q, K: Q @ K.T, 7)  # 4-D K: .T reverses every axis, the product fails
    assert dot_t.data[MIME]["raised"]["call"] == "attention_scores"
    outputs = _decide(_grade_cell(HIDDEN, [dot_t]))
    assert outputs[0].output_type == "error" and "attention_scores" in outputs[0].evalue


@pytest.mark.parametrize("lang", ["ja", "ko"])
def test_decide_says_a_failure_that_is_its_own_hint_once(lang):
    """hint_answer_not_int is both the failure and the mistake it names: the learner reads it once, not again as
    its own likely cause."""
    source = ("### BEGIN HIDDEN TESTS\ncourse.probes.lesson1.n_params(answer_n_params)\n### END HIDDEN TESTS\n"
              "course.checks.lesson1.check_param_answer(answer_n_params, Attention)")
    os.environ[SEED_ENV] = "7"
    try:
        bundle = new_output("display_data", data={MIME: probes.n_params.record(4 * 768 * 64 / 1)})
    finally:
        del os.environ[SEED_ENV]
    decide = DecideHiddenTests(reference_dir=str(REFERENCE))
    cell = _grade_cell(source, [bundle], points=1, grade_id="ex6_n_params_tests")
    nb, resources = decide.preprocess(new_notebook(cells=[cell]), _resources(7, f"01-attention-{lang}"))
    message = nb.cells[0].outputs[0].evalue
    said = text("hint_answer_not_int", lang, name="answer_n_params", got="196608.0")
    assert said in message and message.count(said) == 1, message
    assert text("hidden_likely", lang, hint="") not in message, message
    verdict = resources["attn_grading"]["verdicts"]["ex6_n_params_tests"]
    assert verdict["hint"] == "hint_answer_not_int"   # the class report still counts it under its hint


def test_decide_without_a_seed_fails_rather_than_trusts():
    decide = DecideHiddenTests(reference_dir=str(REFERENCE))
    cell = _grade_cell(HIDDEN, [_bundle(reference("lesson1").attention_scores, 7)])
    nb, _ = decide.preprocess(new_notebook(cells=[cell]), _resources(None))
    assert nb.cells[0].outputs[0].output_type == "error"


# --------------------------------------------------------------------------- HideHiddenTests
@pytest.mark.parametrize("lang,note", [("ja", "隠しテスト"), ("ko", "숨겨진 테스트")])
def test_feedback_hides_the_hidden_part_and_cuts_tracebacks(lang, note):
    error = new_output("error", ename="HiddenTestFailed", evalue="x", traceback=["line 1", "line 2"])
    nb, _ = HideHiddenTests().preprocess(new_notebook(cells=[_grade_cell(HIDDEN, [error])]),
                                          _resources(assignment=f"01-attention-{lang}"))
    cell = nb.cells[0]
    assert "course.probes" not in cell.source and note in cell.source
    failed = {"ja": "✘ 隠しテスト不合格: x", "ko": "✘ 숨겨진 테스트 실패: x"}[lang]
    assert "check_attention_scores" in cell.source and cell.outputs[0].traceback == [failed]


# --------------------------------------------------------------------------- RecordVerdicts
def test_a_solution_cell_left_as_released_is_a_stub_and_an_answer_is_not():
    source = nbformat.read(ROOT / "autograder" / "source" / "01-attention-ko" / "01_attention.ipynb", 4)
    release = nbformat.read(ROOT / "notebooks" / "ko" / "01_attention.ipynb", 4)
    released = {c.metadata["nbgrader"]["grade_id"]: c.source for c in release.cells
                if c.metadata.get("nbgrader", {}).get("solution")}
    for cell in source.cells:
        if cell.metadata.get("nbgrader", {}).get("solution"):
            stub, answer = released[cell.metadata["nbgrader"]["grade_id"]], cell.source.replace("### ", "# ")
            assert is_stub(stub, cell.source) and is_stub(stub + "\n# a note\n", cell.source)
            assert not is_stub(answer, cell.source) and not is_stub(stub + "\nx = 1", cell.source)


def test_record_verdicts_keeps_score_status_and_mistake_outside_the_learners_folder(tmp_path):
    source = nbformat.read(ROOT / "autograder" / "source" / "01-attention-ja" / "01_attention.ipynb", 4)
    (tmp_path / "source" / "01-attention-ja").mkdir(parents=True)
    nbformat.write(source, tmp_path / "source" / "01-attention-ja" / "01_attention.ipynb")
    nb = nbformat.read(ROOT / "notebooks" / "ja" / "01_attention.ipynb", 4)  # the untouched release
    for cell in nb.cells:
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        if grade_id == "ex1_attention_scores":
            cell.source = "def attention_scores(Q, K):\n    return Q @ K.mT\n"
        if grade_id == "ex1_attention_scores_tests":
            cell.outputs = [new_output("error", ename="CheckFailed", evalue="no", traceback=["no"])]
        if grade_id == "ex2_variance_tests":
            cell.outputs = []
    resources = _resources(7, "01-attention-ja")
    resources["attn_grading"]["verdicts"] = {"ex1_attention_scores_tests": {"hint": "hint_no_scale", "hint_fields": {},
                                                                            "mismatch": "hidden_mismatch"}}
    RecordVerdicts(verdict_dir=str(tmp_path / "verdicts"), source_dir=str(tmp_path / "source")).preprocess(nb, resources)
    record = json.loads((tmp_path / "verdicts" / "01-attention-ja" / "s.json").read_text())
    cells = record["notebooks"]["01_attention"]["cells"]
    assert cells["ex1_attention_scores_tests"] | {"hint_fields": None} == {
        "points": 3.0, "score": 0, "status": "mistake", "hint": "hint_no_scale", "hint_fields": None,
        "mismatch": "hidden_mismatch", "cause": None, "carried_from": None}
    assert cells["ex3_softmax_last_tests"]["status"] == "not_attempted"
    assert cells["ex2_variance_tests"]["status"] == "not_attempted"  # its stub is still there, whatever the score
    assert (tmp_path / "verdicts").stat().st_mode & 0o077 == 0


@pytest.mark.parametrize("lang", ["ja", "ko"])
def test_a_widget_in_feedback_says_what_stood_there(lang):
    # The explorer's output is a widget view only its kernel could draw: the feedback page showed an empty Out[…].
    from attn_grader.preprocessors import ExplainWidgets
    widget = new_output("display_data", data={"text/plain": "AttentionExplorer(…)",
                                              "application/vnd.jupyter.widget-view+json": {"model_id": "x"}})
    printed = new_output("stream", name="stdout", text="weights (1, 6, 6)\n")
    nb = new_notebook(cells=[new_code_cell("course.AttentionExplorer(w, words)", outputs=[printed, widget])])
    nb, _ = ExplainWidgets().preprocess(nb, {"nbgrader": {"assignment": f"03-masks-{lang}"}})
    outputs = nb.cells[0].outputs
    assert outputs[0] == printed and outputs[1].text == text("feedback_widget", lang) + "\n"
