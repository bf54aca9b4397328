"""Adversarial submissions, graded with the rest of a class by the real tools/grade.py.

Each case attacks the grading of lesson 1 in one way, and must score 0 on the
tests it attacks or be flagged in flags.csv; two honest learners graded in the
same run must get exactly their usual marks. README's table for instructors
(case -> score -> what caught it) is this file's CASES.
"""
import csv
import http.server
import os
import subprocess
import sys
import threading

import nbformat
import pytest
from classroom import course_skeleton, submission, submit
from nbgrader.api import Gradebook

from conftest import ROOT

ASSIGNMENT, STEM = "01-attention-ja", "01_attention"
POINTS = {"ex1_attention_scores_tests": 3, "ex2_variance_tests": 2, "ex3_softmax_last_tests": 2,
          "ex4_attention_tests": 3, "ex5_attention_module_tests": 4, "ex6_n_params_tests": 1}
SCORES = "    return Q @ K.transpose(-2, -1) / math.sqrt(d_k)   # (..., T_q, T_k)\n"
WRONG_SCORES = "    return Q @ K.transpose(-2, -1)\n"  # the scaling forgotten
SCORES_CELLS = {"ex1_attention_scores_tests", "ex4_attention_tests", "ex5_attention_module_tests"}
ALL = set(POINTS)


def _prepend(cell_id, code):
    """Put code at the top of one solution cell (after its first line when that is a def)."""
    return ("prepend", cell_id, code)


# case: (edits, test cells that must score 0, must it be flagged)
CASES = {
    "01 skip-execution / raises-exception tags on a wrong answer": (
        [("replace", "ex1_attention_scores", SCORES, WRONG_SCORES), ("tag_tests",)], SCORES_CELLS, False),
    "02 showtraceback and sys.excepthook silenced": (
        [("replace", "ex1_attention_scores", SCORES, WRONG_SCORES),
         _prepend("ex1_attention_scores", "import sys\nget_ipython().showtraceback = lambda *a, **k: None\n"
                                          "sys.excepthook = lambda *a: None\n")], SCORES_CELLS, True),
    "03 torch.allclose, assert_close, builtins, Tensor.__eq__ patched": (
        [("replace", "ex1_attention_scores", SCORES, WRONG_SCORES),
         _prepend("ex1_attention_scores", "import builtins\ntorch.allclose = lambda *a, **k: True\n"
                                          "torch.equal = lambda *a, **k: True\n"
                                          "torch.testing.assert_close = lambda *a, **k: None\n"
                                          "torch.Tensor.__eq__ = lambda *a: True\nbuiltins.abs = lambda x: 0\n")],
        SCORES_CELLS, True),
    "04 a Tensor subclass that claims equality": (
        [("replace", "ex1_attention_scores", SCORES,
          "    class Yes(torch.Tensor):\n"
          "        @classmethod\n"
          "        def __torch_function__(cls, func, types, args=(), kwargs=None):\n"
          "            if func in (torch.allclose, torch.equal):\n                return True\n"
          "            return super().__torch_function__(func, types, args, kwargs or {})\n"
          "    return (Q @ K.transpose(-2, -1)).as_subclass(Yes)\n")], SCORES_CELLS, True),
    "04b a fake object that claims equality": (
        [("replace", "ex1_attention_scores", SCORES,
          "    class Fake:\n        shape = (Q.shape[0], Q.shape[-2], K.shape[-2])\n"
          "        def __eq__(self, other):\n            return True\n    return Fake()\n")], SCORES_CELLS, True),
    "05 the reference and the gradebook read from the kernel": (
        [("replace", "ex1_attention_scores", SCORES,
          "    try:\n        open({gradebook!r}).read()\n    except OSError:\n        pass\n"
          "    return course.checks.reference('lesson1').attention_scores(Q, K)\n")], set(), True),
    "06 the gradebook written from the kernel": (
        [_prepend("ex1_attention_scores", "import sqlite3\ntry:\n"
                  "    db = sqlite3.connect({gradebook!r})\n"
                  "    db.execute('UPDATE grade SET manual_score = 100')\n    db.commit()\nexcept Exception:\n    pass\n")],
        set(), True),
    "07 locked cells edited, retyped, deleted and duplicated": (
        [("replace", "ex1_attention_scores", SCORES, WRONG_SCORES), ("edit_locked",)], SCORES_CELLS, False),
    "08 an infinite loop and a long sleep": (
        [_prepend("ex2_variance", "import time\ntime.sleep(10 ** 6)\n"),
         _prepend("ex3_softmax_last", "while True:\n    pass\n")],
        {"ex2_variance_tests", "ex3_softmax_last_tests", "ex4_attention_tests", "ex5_attention_module_tests"}, False),
    "09 a flood of output": (
        [_prepend("ex2_variance", "while True:\n    print('x' * 100_000)\n")], {"ex2_variance_tests"}, False),
    "10 a huge allocation": (
        [_prepend("ex2_variance", "hog = bytearray(64 << 30)\n")], {"ex2_variance_tests"}, False),
    "11 a fork loop": (
        [_prepend("ex2_variance", "import os\nwhile True:\n    os.fork()\n")], {"ex2_variance_tests"}, True),
    "12 os._exit partway through": (
        [_prepend("ex4_attention", "import os\nos._exit(0)\n")], {"ex4_attention_tests", "ex5_attention_module_tests",
                                                                  "ex6_n_params_tests"}, True),
    "12b sys.exit partway through": (
        [_prepend("ex2_variance", "import sys\nsys.exit(0)\n")], {"ex2_variance_tests"}, True),
    "13 different behaviour under NBGRADER_EXECUTION": (
        [("replace", "ex1_attention_scores", SCORES,
          "    import os\n    if os.environ.get('NBGRADER_EXECUTION'):\n        return Q @ K.transpose(-2, -1)\n" + SCORES)],
        SCORES_CELLS, True),
    "14 nn.functional's attention wrapped in a from-scratch exercise": (
        [("replace_all", "ex4_attention", None,
          "import torch.nn.functional as F\n\n"
          "def attention(Q, K, V):\n"
          "    y = F.scaled_dot_product_attention(Q, K, V)\n"
          "    return y, torch.softmax(Q @ K.transpose(-2, -1) / math.sqrt(Q.size(-1)), dim=-1)\n")],
        {"ex4_attention_tests", "ex5_attention_module_tests"}, True),
    "16 the network": (
        [("replace", "ex2_variance", "answer_var_raw = 512",
          "import urllib.request\n"
          "answer_var_raw = float(urllib.request.urlopen('http://127.0.0.1:{port}/', timeout=5).read())")],
        {"ex2_variance_tests"}, True),
    # Not stopped at run time (the hidden tests call the replaced function itself): flagged only.
    "15 the course's own check entry point replaced": (
        [("replace", "ex1_attention_scores", SCORES, WRONG_SCORES),
         _prepend("ex1_attention_scores", "class _Pass:\n    def __getattr__(self, name):\n"
                                          "        return lambda *a, **k: None\n"
                                          "course.checks.reference = lambda lesson: _Pass()\n"
                                          "for _name in dir(course.checks):\n"
                                          "    if _name.startswith('check_'):\n"
                                          "        setattr(course.checks, _name, lambda *a, **k: None)\n")],
        set(), True),
}


def _apply(nb, edits, gradebook, port):
    cells = {c.metadata.get("nbgrader", {}).get("grade_id"): c for c in nb.cells}
    for edit in edits:
        kind = edit[0]
        if kind == "replace":
            cell = cells[edit[1]]
            assert edit[2] in cell.source, edit[2]
            cell.source = cell.source.replace(edit[2], edit[3].replace("{gradebook!r}", repr(gradebook)).replace("{port}", str(port)))
        elif kind == "replace_all":
            cells[edit[1]].source = edit[3]
        elif kind == "prepend":
            cell = cells[edit[1]]
            cell.source = edit[2].replace("{gradebook!r}", repr(gradebook)) + cell.source
        elif kind == "tag_tests":
            for grade_id in SCORES_CELLS:
                cells[grade_id].metadata["tags"] = ["skip-execution", "raises-exception"]
        elif kind == "edit_locked":
            cells["ex1_attention_scores_tests"].source = "pass"
            cells["ex4_attention_tests"].cell_type = "markdown"
            cells["ex4_attention_tests"].pop("outputs", None)
            cells["ex4_attention_tests"].pop("execution_count", None)
            nb.cells.remove(cells["ex5_attention_module_tests"])
            nb.cells.append(nbformat.from_dict(dict(cells["ex1_attention_scores_tests"])))
    return nb


class _Answer(http.server.BaseHTTPRequestHandler):
    def do_GET(self):  # noqa: N802 - the name http.server calls
        self.send_response(200)
        self.end_headers()
        self.wfile.write(b"512")

    def log_message(self, *args):
        pass


# Defences that need root (a uid of the kernel's own, a network namespace): without root
# the grader runs kernels as itself, and these cases are not defended, only flagged.
NEEDS_ROOT = {"05", "06", "11", "16"}


@pytest.fixture(scope="module")
def tamper_graded(tmp_path_factory):
    course = course_skeleton(tmp_path_factory.mktemp("tamper"))
    # Case 16's learner fetches the right answer from a server on the grader's own loopback.
    server = http.server.HTTPServer(("127.0.0.1", 0), _Answer)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    gradebook = str(course / "gradebook.db")
    students = {"honest": submission("01-attention", STEM, "ja"),
                "honest-bug": submission("01-attention", STEM, "ja",
                                         ("ex1_attention_scores", SCORES, WRONG_SCORES))}
    for i, (case, (edits, _, _)) in enumerate(CASES.items()):
        students[f"case{case.split()[0]}"] = _apply(submission("01-attention", STEM, "ja"), edits, gradebook,
                                                    server.server_port)
    for student, nb in students.items():
        submit(course, student, ASSIGNMENT, STEM, nb)
    env = {**os.environ, "ATTN_CELL_TIMEOUT": "20"}
    try:
        run = subprocess.run([sys.executable, str(ROOT / "tools" / "grade.py"), "--course", str(course)],
                             env=env, capture_output=True, text=True, timeout=1200)
    finally:
        server.shutdown()
    assert run.returncode == 0, run.stderr[-3000:]
    scores = {}
    with Gradebook(f"sqlite:///{gradebook}") as gb:
        for student in students:
            try:
                nb = gb.find_submission_notebook(STEM, ASSIGNMENT, student)
                scores[student] = {g.name: g.score for g in nb.grades}
            except Exception:  # noqa: BLE001 - a submission that could not be graded at all
                scores[student] = {}
    with open(course / "flags.csv", newline="", encoding="utf-8") as f:
        flags = {}
        for row in csv.DictReader(f):
            flags.setdefault(row["student_id"], []).append(row["rule"])
    return scores, flags, run.stdout


def test_honest_learners_are_graded_as_usual(tamper_graded):
    scores, flags, _ = tamper_graded
    assert scores["honest"] == {k: float(v) for k, v in POINTS.items()}
    assert scores["honest-bug"] == {k: (0.0 if k in SCORES_CELLS else float(v)) for k, v in POINTS.items()}
    assert "honest" not in flags and "honest-bug" not in flags


@pytest.mark.parametrize("case", sorted(CASES))
def test_attack_scores_zero_or_is_flagged(tamper_graded, case):
    scores, flags, _ = tamper_graded
    _, attacked, must_flag = CASES[case]
    student = f"case{case.split()[0]}"
    if case.split()[0] in NEEDS_ROOT and os.geteuid() != 0:
        pytest.skip("this defence needs the grader to run as root")
    got = scores[student]
    for cell in attacked:
        assert got.get(cell, 0.0) == 0.0, (cell, got)
    if must_flag:
        assert student in flags, flags
    if not attacked:
        assert student in flags


def test_the_gradebook_was_not_written_by_a_learner(tamper_graded):
    # Case 06 sets every manual score to 100: a grade above its cell's points would show it.
    scores, _, _ = tamper_graded
    assert all(score <= POINTS[cell] for per in scores.values() for cell, score in per.items())
