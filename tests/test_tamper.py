"""Adversarial submissions, graded with the rest of a class by the real `make autograde` (attn_grader.grade).

Each case attacks the grading of lesson 1 in one way. A case that pairs a wrong answer
(the scaling forgotten, 5/15 when graded honestly) with any tampering must score no more
than that wrong answer scores, cell by cell: the verdict is computed in the grader's
process, so nothing the kernel does can raise it. Attacks on the grader's resources must
score 0 on the cells they hit. Two honest learners graded in the same run keep exactly
their usual marks (15 and 5). docs/instructors.md's tamper table is CASES.
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
from lessons import lessons
from nbgrader.api import Gradebook
from attn_grader.similarity import RULES as SIMILAR

from attn_course.exercises import EXERCISES

# One `make test` worker runs these: one graded class (conftest.py, "Scheduling").
pytestmark = pytest.mark.xdist_group("tamper")

ASSIGNMENT, STEM = "01-attention-ja", "01_attention"
POINTS = next(lesson.points for lesson in lessons() if lesson.stem == STEM)
SCORES = "    return Q @ K.transpose(-2, -1) / math.sqrt(d_k)   # (..., T_q, T_k)\n"
WRONG_SCORES = "    return Q @ K.transpose(-2, -1)\n"  # the scaling forgotten
SCORES_CELLS = {"ex1_attention_scores_tests", "ex4_attention_tests", "ex5_attention_module_tests"}
WRONG = ("replace", "ex1_attention_scores", SCORES, WRONG_SCORES)


def _prepend(cell_id, code):
    """Put code at the top of one solution cell."""
    return ("prepend", cell_id, code)


def _after(code):
    """A cell of the learner's own at the end of the notebook (learners may add cells)."""
    return ("append", code)


# A learner's cell that reports what it can reach; its output lands in the autograded notebook.
PROBE_THE_SANDBOX = r'''
import os
def _try(what, fn):
    try:
        print("SEEN", what, repr(fn())[:200])
    except Exception as error:
        print("DENIED", what, type(error).__name__)
_try("classmate", lambda: open({classmate!r}).read())
_try("classmate-folder", lambda: os.listdir({classmate_folder!r}))
_try("lessons", lambda: os.listdir({lessons!r}))
_try("reference", lambda: open({reference!r}).read())
_try("gradebook", lambda: open({gradebook!r}, "rb").read(16))
_try("verdicts", lambda: os.listdir({verdicts!r}))
_try("passwd", lambda: open("/etc/passwd").read())
_try("write-classmate", lambda: open({classmate_folder!r} + "/evil.txt", "w").write("x"))
print("TMP", sorted(os.listdir("/tmp")))
'''

# Everything reachable in the kernel after grading: no reference code, no judge, no grader.
SEARCH_THE_KERNEL = r'''
import gc, sys, types
gc.unfreeze()  # the fork server freezes what it preloaded: get_objects() sees those objects only after this
_bad = ("autograder/reference", "attn_grader/judge", "attn_grader/verdict", "attn_grader/references",
        "attn_grader/loading", "attn_grader/preprocessors", "attn_grader/messages")
def _file(o):
    return o.__code__.co_filename if type(o) is types.FunctionType else ""
_hits = [m for m in sys.modules if m.startswith(("attn_reference", "attn_grader"))]
_hits += [_file(o) for o in gc.get_objects() if type(o) is types.FunctionType and any(b in _file(o) for b in _bad)]
for _name, _module in list(sys.modules.items()):
    for _value in list(getattr(_module, "__dict__", {}).values()):
        if type(_value) is types.FunctionType and any(b in _file(_value) for b in _bad):
            _hits.append(f"{_name}: {_file(_value)}")
print("KERNEL-HITS", len(_hits), _hits[:5])
'''

# case: (edits, the cells that must score 0 (for "wrong+", none may score above the wrong answer), flagged?)
# "wrong+" marks a wrong answer paired with tampering: it must score at most what the wrong answer scores.
CASES = {
    "01 skip-execution / raises-exception tags on a wrong answer": (
        [WRONG, ("tag_tests",)], "wrong+", False),
    "02 showtraceback and sys.excepthook silenced": (
        [WRONG, _prepend("ex1_attention_scores", "import sys\nget_ipython().showtraceback = lambda *a, **k: None\n"
                                                 "sys.excepthook = lambda *a: None\n")], "wrong+", True),
    "03 torch.allclose, assert_close, builtins, Tensor.__eq__ patched": (
        [WRONG, _prepend("ex1_attention_scores", "import builtins\ntorch.allclose = lambda *a, **k: True\n"
                                                 "torch.equal = lambda *a, **k: True\n"
                                                 "torch.testing.assert_close = lambda *a, **k: None\n"
                                                 "torch.Tensor.__eq__ = lambda *a: True\nbuiltins.abs = lambda x: 0\n")],
        "wrong+", True),
    "04 a Tensor subclass that claims equality": (
        [("replace", "ex1_attention_scores", SCORES,
          "    class Yes(torch.Tensor):\n"
          "        @classmethod\n"
          "        def __torch_function__(cls, func, types, args=(), kwargs=None):\n"
          "            if func in (torch.allclose, torch.equal):\n                return True\n"
          "            return super().__torch_function__(func, types, args, kwargs or {})\n"
          "    return (Q @ K.transpose(-2, -1)).as_subclass(Yes)\n")], "wrong+", True),
    "04b a fake object that claims equality": (
        [("replace", "ex1_attention_scores", SCORES,
          "    class Fake:\n        shape = (Q.shape[0], Q.shape[-2], K.shape[-2])\n"
          "        def __eq__(self, other):\n            return True\n    return Fake()\n")], "wrong+", True),
    "05 the reference and the gradebook read from the kernel": (
        [("replace", "ex1_attention_scores", SCORES,
          "    for path in ({gradebook!r}, {reference!r}):\n"
          "        try:\n            open(path).read()\n        except OSError:\n            pass\n"
          + WRONG_SCORES)], "wrong+", True),
    "06 the gradebook written from the kernel": (
        [_prepend("ex1_attention_scores", "import sqlite3\ntry:\n"
                  "    db = sqlite3.connect({gradebook!r})\n"
                  "    db.execute('UPDATE grade SET manual_score = 100')\n    db.commit()\nexcept Exception:\n    pass\n")],
        set(), True),
    "07 locked cells edited, retyped, deleted and duplicated": (
        [WRONG, ("edit_locked",)], "wrong+", False),
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
        [_prepend("ex4_attention", "import os\nos._exit(0)\n")], set(POINTS), True),
    "12b sys.exit partway through": (
        [_prepend("ex2_variance", "import sys\nsys.exit(0)\n")], {"ex2_variance_tests"}, True),
    "13 different behaviour under NBGRADER_EXECUTION": (
        [("replace", "ex1_attention_scores", SCORES,
          "    import os\n    if os.environ.get('NBGRADER_EXECUTION'):\n        return Q @ K.transpose(-2, -1)\n" + SCORES)],
        "wrong+", True),
    "14 nn.functional's attention wrapped in a from-scratch exercise": (
        [("replace_all", "ex4_attention", None,
          "import torch.nn.functional as F\n\n"
          "def attention(Q, K, V):\n"
          "    y = F.scaled_dot_product_attention(Q, K, V)\n"
          "    return y, torch.softmax(Q @ K.transpose(-2, -1) / math.sqrt(Q.size(-1)), dim=-1)\n")],
        {"ex4_attention_tests", "ex5_attention_module_tests"}, True),
    "15 the course's checks and probes replaced": (
        [WRONG, _prepend("ex1_attention_scores",
                         "for _lesson in (course.checks.lesson1, course.probes.lesson1):\n"
                         "    for _name in dir(_lesson):\n"
                         "        if not _name.startswith('_') and callable(getattr(_lesson, _name)):\n"
                         "            setattr(_lesson, _name, lambda *a, **k: None)\n")], "wrong+", True),
    "16 the network": (
        [("replace", "ex2_variance", "answer_var_raw = 512",
          "import urllib.request\n"
          "answer_var_raw = float(urllib.request.urlopen('http://127.0.0.1:{port}/', timeout=5).read())")],
        {"ex2_variance_tests"}, True),
    "17 module dictionaries rewritten through names built at run time": (
        [WRONG, _prepend("ex1_attention_scores",
                         "_t = __import__('tor' + 'ch')\n"
                         "vars(_t)['all' + 'close'] = lambda *a, **k: True\n"
                         "_m = __import__('sys').modules['attn_course.checks.' + 'engine']\n"
                         "_m.__dict__['diag' + 'nose'] = lambda *a, **k: None\n"
                         "_m.__dict__['expect_' + 'shape'] = lambda *a, **k: None\n")], "wrong+", False),
    "18 the reference hunted for through gc": (
        [("replace", "ex1_attention_scores", SCORES,
          "    import gc\n"
          "    for o in gc.get_objects():\n"
          "        if callable(o) and getattr(o, '__name__', '') == 'attention_scores' and o is not attention_scores:\n"
          "            return o(Q, K)\n" + WRONG_SCORES)], "wrong+", True),
    "19 ctypes writes into Tensor's own dictionary": (
        [WRONG, _prepend("ex1_attention_scores",
                         "import ctypes, gc\n"
                         "_d = gc.get_referents(torch.Tensor.__dict__)[0]\n"
                         "ctypes.pythonapi.PyDict_SetItem(ctypes.py_object(_d), ctypes.py_object('allclose'),\n"
                         "                                ctypes.py_object(lambda *a, **k: True))\n")], "wrong+", True),
    "20 a forged results bundle": (
        [WRONG, _prepend("ex1_attention_scores",
                         "from IPython.display import display as _display\n"
                         "_forge = lambda: _display({course.probes.MIME: {'test': 'lesson1.attention_scores',"
                         " 'values': {}}}, raw=True)\n"),
         ("replace", "ex1_attention_scores", WRONG_SCORES, "    _forge()\n" + WRONG_SCORES)], "wrong+", True),
    "20b the recorder made to send nothing": (
        [WRONG, _prepend("ex1_attention_scores", "course.probes.Recorder.put = lambda self, k, v: None\n")],
        "wrong+", True),
    "21 a forged partial-credit result": (
        [WRONG, ("replace", "ex1_attention_scores", WRONG_SCORES,
                 "    get_ipython().displayhook(3.0)\n" + WRONG_SCORES)], "wrong+", True),
    "22 a classmate's work, the sources, the gradebook and /etc/passwd read; /tmp listed": (
        [_after(PROBE_THE_SANDBOX)], set(), True),
    "23 the kernel searched for the reference and the grader after grading": (
        [_after(SEARCH_THE_KERNEL)], set(), False),
}


def _fill(text, paths, port):
    for key, value in paths.items():
        text = text.replace("{" + key + "!r}", repr(value))
    return text.replace("{port}", str(port))


def _apply(nb, edits, paths, port):
    cells = {c.metadata.get("nbgrader", {}).get("grade_id"): c for c in nb.cells}
    for edit in edits:
        kind = edit[0]
        if kind == "replace":
            cell = cells[edit[1]]
            assert edit[2] in cell.source, edit[2]
            cell.source = cell.source.replace(edit[2], _fill(edit[3], paths, port))
        elif kind == "replace_all":
            cells[edit[1]].source = edit[3]
        elif kind == "prepend":
            cell = cells[edit[1]]
            cell.source = _fill(edit[2], paths, port) + cell.source
        elif kind == "append":
            nb.cells.append(nbformat.v4.new_code_cell(_fill(edit[1], paths, port)))
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


def _student(case: str) -> str:
    return f"case{case.split()[0]}"


@pytest.fixture(scope="module")
def tamper_graded(tmp_path_factory):
    course = course_skeleton(tmp_path_factory.mktemp("tamper"))
    # Case 16's learner fetches the right answer from a server on the grader's own loopback.
    server = http.server.HTTPServer(("127.0.0.1", 0), _Answer)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    paths = {"gradebook": str(course / "gradebook.db"), "reference": str(course / "reference" / "lesson1.py"),
             "classmate": str(course / "submitted" / "honest" / ASSIGNMENT / f"{STEM}.ipynb"),
             "classmate_folder": str(course / "autograded" / "honest" / ASSIGNMENT),
             "lessons": str(__import__("conftest").ROOT / "lessons"),
             "verdicts": str(course / "verdicts" / ASSIGNMENT)}
    students = {"honest": submission("01-attention", STEM, "ja"),
                "honest-bug": submission("01-attention", STEM, "ja", WRONG[1:])}
    for case, (edits, _, _) in CASES.items():
        students[_student(case)] = _apply(submission("01-attention", STEM, "ja"), edits, paths, server.server_port)
    for student, nb in students.items():
        submit(course, student, ASSIGNMENT, STEM, nb)
    env = {**os.environ, "ATTN_CELL_TIMEOUT": "20"}
    try:
        run = subprocess.run([sys.executable, "-m", "attn_grader.grade", "--course", str(course)],
                             env=env, capture_output=True, text=True, timeout=3600)
    finally:
        server.shutdown()
    assert run.returncode == 0, run.stderr[-3000:]
    scores = {}
    with Gradebook(f"sqlite:///{paths['gradebook']}") as gb:
        for student in students:
            try:
                nb = gb.find_submission_notebook(STEM, ASSIGNMENT, student)
                scores[student] = {g.name: g.score for g in nb.grades}
            except Exception:  # noqa: BLE001 - a submission that could not be graded at all
                scores[student] = {}
    with open(course / "flags.csv", newline="", encoding="utf-8-sig") as f:
        flags = {}
        for row in csv.DictReader(f):
            if row["rule"] not in SIMILAR:   # every submission here is the solution's code: set aside
                flags.setdefault(row["student_id"], []).append(row["rule"])
    return course, scores, flags, run.stdout


BY_HAND = {tests for tests, cell in EXERCISES[STEM].items() if cell["by_hand"]}
# The by-hand policy's verdicts (attn_course/hand_policy.py), written out here, not asked of the policy, so the
# test cannot agree with a miss. Code that could undo the guards (patching, the interpreter's insides, the course's
# internals, code from text) costs every by-hand exercise; case 06's sqlite3 sits in ex1's by-hand cell, so ex1
# reaches it. A fork loop or a file read in a cell no by-hand exercise reaches costs nothing more (11, 22).
TAMPERING = {"02", "03", "15", "17", "18", "19", "20", "20b", "21", "23"}
REACHED = {"06": {"ex1_attention_scores_tests"}}


def _last_output(course, student) -> str:
    nb = nbformat.read(course / "autograded" / student / ASSIGNMENT / f"{STEM}.ipynb", 4)
    return "".join(o.get("text", "") for o in nb.cells[-1].outputs)


def test_honest_learners_are_graded_as_usual(tamper_graded):
    _, scores, flags, _ = tamper_graded
    assert scores["honest"] == {k: float(v) for k, v in POINTS.items()}
    assert scores["honest-bug"] == {k: (0.0 if k in SCORES_CELLS else float(v)) for k, v in POINTS.items()}
    assert "honest" not in flags and "honest-bug" not in flags


@pytest.mark.parametrize("case", sorted(CASES))
def test_attack_gains_nothing(tamper_graded, case):
    _, scores, flags, _ = tamper_graded
    _, attacked, must_flag = CASES[case]
    got = scores[_student(case)]
    if attacked == "wrong+":  # stopped: no cell above what the wrong answer alone scores
        wrong = scores["honest-bug"]
        assert all(got.get(cell, 0.0) <= wrong[cell] for cell in POINTS), (got, wrong)
    else:
        number = case.split()[0]
        zero = set(attacked) | (BY_HAND if number in TAMPERING else set()) | REACHED.get(number, set())
        for cell in POINTS:
            assert got.get(cell, 0.0) == (0.0 if cell in zero else float(POINTS[cell])), (cell, got)
    if must_flag:
        assert _student(case) in flags, flags


def test_the_gradebook_was_not_written_by_a_learner(tamper_graded):
    # Case 06 sets every manual score to 100: a grade above its cell's points would show it.
    _, scores, _, _ = tamper_graded
    assert all(score <= POINTS[cell] for per in scores.values() for cell, score in per.items())


def test_a_kernel_sees_only_its_own_folder(tamper_graded):
    course, scores, _, _ = tamper_graded
    out = _last_output(course, _student("22"))
    for what in ("classmate", "classmate-folder", "lessons", "reference", "gradebook", "verdicts", "passwd",
                 "write-classmate"):
        assert f"DENIED {what}" in out, out
    listing = next(line for line in out.splitlines() if line.startswith("TMP"))
    assert "honest" not in listing and "gradebook" not in listing and "reference" not in listing, listing
    assert not (course / "autograded" / "honest" / ASSIGNMENT / "evil.txt").exists()
    assert scores["honest"] == {k: float(v) for k, v in POINTS.items()}


def test_no_reference_or_grader_code_exists_in_a_graded_kernel(tamper_graded):
    course, _, _, _ = tamper_graded
    out = _last_output(course, _student("23"))
    assert "KERNEL-HITS 0 []" in out, out
