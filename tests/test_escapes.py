"""grader/attn_grader/escapes.py: code that could undo the by-hand guards from inside the learner's kernel.

The guards run where the learner's code runs, so the grader also reads the learner's cells. A
notebook holding any of these ways in scores 0 on every by-hand exercise (DecideHiddenTests);
no honest solution and no planted mistake of the course holds one.
"""
import nbformat
import pytest
from attn_grader.escapes import escapes, notebook_escapes
from attn_grader.preprocessors import DecideHiddenTests
from nbformat.v4 import new_code_cell, new_output

from conftest import REFERENCE, ROOT

ESCAPES = {  # what red-team learners wrote, with the reason the learner is told
    "exec('y = F.scaled_dot_product_attention(q, k, v)')": "escape_code",
    "f = eval('F.scaled_' + 'dot_product_attention')": "escape_code",
    "import importlib\nm = importlib.import_module('torch.nn.functional')": "escape_code",
    "f = getattr(F, name)": "escape_code",
    "from functools import reduce\nf = reduce(getattr, ['nn', 'functional'], torch)": "escape_code",
    "%run other.py": "escape_code",
    "!pip install something": "escape_code",
    "ip = get_ipython()": "escape_code",
    "import sys\nf = sys._getframe(1)": "escape_insides",
    "g = sys.getprofile().__self__": "escape_insides",
    "frame = tb.tb_frame.f_back": "escape_insides",
    "cells = check.__closure__": "escape_insides",
    "import gc\ngc.get_objects()": "escape_insides",
    "import inspect\ninspect.currentframe()": "escape_insides",
    "names = vars(course)": "escape_insides",
    "from concurrent.futures import ThreadPoolExecutor\npool = ThreadPoolExecutor(1)": "escape_threads",
    "import threading\nthreading.Thread(target=run).start()": "escape_threads",
    "import os\nos.fork()": "escape_threads",
    "fused = torch.jit.script(fn)": "escape_torch",
    "y = torch.ops.aten._scaled_dot_product_attention_math(q, k, v)": "escape_torch",
    "lib = torch.library.Library('aten', 'IMPL')": "escape_torch",
    "with torch._C.DisableTorchFunction():\n    pass": "escape_torch",
    "fast = torch.compile(model)": "escape_torch",
    "from torch.nn.attention import sdpa_kernel": "escape_torch",
    "torch.backends.cuda.enable_math_sdp(True)": "escape_torch",
    "with open('/tmp/x.py', 'w') as f:\n    f.write(code)": "escape_files",
    "import pickle\npickle.loads(blob)": "escape_files",
    "course.probes.lesson1.attention = fake": "escape_course",
    "from attn_course.by_hand import Guard": "escape_course",
    "torch.softmax = my_softmax": "escape_patch",
}
HONEST = [  # what learners write that holds no way in
    "def attention(Q, K, V):\n    w = torch.softmax(Q @ K.mT / math.sqrt(Q.size(-1)), -1)\n    return w @ V, w",
    "class M(nn.Module):\n    def forward(self, x):\n        return self._proj(x) + getattr(self, 'bias')",
    "from types import SimpleNamespace\ncfg = SimpleNamespace(n_head=2)",
    "model.c_attn.weight.copy_(hf.c_attn.weight.T)",
    "y = F.scaled_dot_product_attention(q, k, v, is_causal=True)",  # the library itself: for the guards, not this
    "for name, p in model.named_parameters():\n    print(name, p.shape)",
    "self.cache = torch.zeros(1, 2)\nself._k = None",
]


@pytest.mark.parametrize("code", sorted(ESCAPES))
def test_every_way_in_is_found_with_its_reason(code):
    assert ESCAPES[code] in {why for _, _, why in escapes(code)}, escapes(code)


@pytest.mark.parametrize("code", HONEST)
def test_what_learners_write_is_no_way_in(code):
    assert escapes(code) == []


def _sources():
    return sorted((ROOT / "autograder" / "source").glob("*/0*.ipynb"))


@pytest.mark.parametrize("source", _sources(), ids=lambda p: f"{p.parent.name}")
def test_no_honest_solution_holds_a_way_in(source):
    solutions = {p.stem: p for p in (ROOT / "solutions" / source.parent.name.rsplit("-", 1)[1]).glob("*.ipynb")}
    released = nbformat.read(source, 4)
    solved = nbformat.read(solutions[source.stem], 4)
    answers = {c.metadata.get("nbgrader", {}).get("grade_id"): c.source for c in solved.cells}
    for cell in released.cells:
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        if cell.metadata.get("nbgrader", {}).get("solution") and grade_id in answers:
            cell.source = answers[grade_id]
    assert notebook_escapes(released, nbformat.read(source, 4)) == []


def test_the_planted_mistakes_hold_no_way_in():
    from classroom import submission
    from conftest import class_bugs, class_lessons
    lessons = class_lessons()
    for stem, bugs in class_bugs().items():
        source = nbformat.read(next((ROOT / "autograder" / "source").glob(f"*-ja/{stem}.ipynb")), 4)
        for name, bug in bugs.items():
            nb = submission(lessons[stem].assignment, stem, "ja", (bug.cell, bug.old, bug.new))
            assert notebook_escapes(nb, source) == [], (stem, name)


def test_the_course_own_cells_are_not_read():
    # A locked cell's text (the tests call course.checks) is restored by nbgrader, whatever was typed there.
    source = nbformat.read(ROOT / "autograder" / "source" / "01-attention-ja" / "01_attention.ipynb", 4)
    submitted = nbformat.read(ROOT / "autograder" / "source" / "01-attention-ja" / "01_attention.ipynb", 4)
    tests = next(c for c in submitted.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "ex4_attention_tests")
    tests.source += "\nimport sys; sys._getframe()"
    assert notebook_escapes(submitted, source) == []


def _graded(nb, tmp_path, lang="ja"):
    """DecideHiddenTests on a notebook whose grade cells hold right results, with the released source beside it."""
    assignment = f"01-attention-{lang}"
    source_dir = tmp_path / "source"
    (source_dir / assignment).mkdir(parents=True)
    released = ROOT / "autograder" / "source" / assignment / "01_attention.ipynb"
    (source_dir / assignment / "01_attention.ipynb").write_bytes(released.read_bytes())
    decide = DecideHiddenTests(reference_dir=str(REFERENCE), source_dir=str(source_dir))
    resources = {"nbgrader": {"assignment": assignment, "notebook": "01_attention", "student": "s"},
                 "attn_grading": {"seed": 7}}
    decide._verdict = lambda tests, bundles, source: None   # every probe's results right: only the escape decides
    for cell in nb.cells:
        if cell.metadata.get("nbgrader", {}).get("grade"):
            cell.outputs = [new_output("stream", name="stdout", text="✔\n")]
    nb, resources = decide.preprocess(nb, resources)
    return nb, resources["attn_grading"]["verdicts"]


@pytest.mark.parametrize("lang", ["ja", "ko"])
def test_a_way_in_scores_every_by_hand_exercise_zero_and_names_the_line(tmp_path, lang):
    from attn_course.exercises import EXERCISES
    nb = nbformat.read(ROOT / "autograder" / "source" / f"01-attention-{lang}" / "01_attention.ipynb", 4)
    nb.cells.insert(3, new_code_cell("import sys\n_hook = sys.getprofile"))
    nb, verdicts = _graded(nb, tmp_path, lang)
    by_hand = {tests for tests, cell in EXERCISES["01_attention"].items() if cell["by_hand"]}
    assert {g for g, v in verdicts.items() if not v["passed"]} == by_hand
    assert all(verdicts[g]["mismatch"] == "hidden_by_hand_escape" for g in by_hand)
    failed = next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "ex4_attention_tests")
    message = failed.outputs[-1].evalue
    assert "sys.getprofile" in message and ("4 番目" in message if lang == "ja" else "4번째" in message)
    assert "{" not in message


def test_an_honest_notebook_keeps_its_verdicts(tmp_path):
    nb = nbformat.read(ROOT / "autograder" / "source" / "01-attention-ja" / "01_attention.ipynb", 4)
    nb.cells.insert(3, new_code_cell("from types import SimpleNamespace\nprint(SimpleNamespace(a=1))"))
    _, verdicts = _graded(nb, tmp_path)
    assert verdicts and all(v["passed"] for v in verdicts.values())
