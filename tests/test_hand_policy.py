"""attn_course/hand_policy.py: what a by-hand exercise's code may reach, and what could undo the guards.

One policy, read from the learner's source: the grader decides with it, the visible check shows it. A cell the
exercise's code does not reach costs nothing; code that could undo the kernel's guards costs every by-hand
exercise; honest solutions and planted mistakes hold neither.
"""
import builtins
import sysconfig
from pathlib import Path

import nbformat
import pytest
import torch
import torch.nn.functional as F

from attn_course import by_hand
from attn_course import hand_policy as hp
from attn_course.checks import lesson1 as checks
from attn_course.exercises import EXERCISES
from attn_grader.scan import exercise_refusals, policy_cells
from conftest import ROOT, fails_with

SETUP = hp.Cell("setup", "import math\nimport torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n"
                         "import attn_course as course", True)
HONEST_ATTENTION = ("def attention(Q, K, V):\n    w = torch.softmax(Q @ K.mT / math.sqrt(Q.size(-1)), -1)\n"
                    "    return w @ V, w")


def refused(*cells, families=("attention",), start=None, keyword=None):
    """The policy's findings (why, what) for an exercise whose code is the last cell (or cell `start`)."""
    cells = [SETUP] + [hp.Cell(f"cell {i + 2}", c, False) for i, c in enumerate(cells)]
    start = len(cells) - 1 if start is None else start + 1
    return {(f.why, f.what) for f in hp.refusals(cells, families, keyword, start=start)}


def tampered(*cells):
    cells = [SETUP] + [hp.Cell(f"cell {i + 2}", c, False) for i, c in enumerate(cells)]
    return {f.why for f in hp.tampering(cells)}


# ------------------------------------------------------------------------------------------- reached, refused
@pytest.mark.parametrize("code, why", [
    ("def attention(Q, K, V):\n    return F.scaled_dot_product_attention(Q, K, V), None", "reach_attention"),
    ("def attention(Q, K, V, a=F.scaled_dot_product_attention):\n    return a(Q, K, V), None", "reach_attention"),
    ("def attention(Q, K, V):\n    import torch.nn.functional as G\n    return G.scaled_dot_product_attention(Q, K, V)",
     "reach_attention"),
    ("def attention(Q, K, V):\n    return getattr(F, 'scaled_dot_' + 'product_attention')(Q, K, V)", "reach_attention"),
    ("def attention(Q, K, V):\n    return torch.ops.aten.scaled_dot_product_attention(Q, K, V)", "reach_attention"),
    ("def attention(Q, K, V):\n    return torch.ops.aten._scaled_dot_product_attention_math(Q, K, V)", "reach_attention"),
    ("def attention(Q, K, V):\n    return nn.MultiheadAttention(4, 1)(Q, K, V)[0]", "reach_attention"),
    ("def attention(Q, K, V):\n    return torch.jit.script(f)(Q, K, V)", "reach_outside"),
    ("def attention(Q, K, V):\n    return torch.compile(f)(Q, K, V)", "reach_outside"),
    ("def attention(Q, K, V):\n    import threading\n    return Q", "reach_outside"),
    ("def attention(Q, K, V):\n    return getattr(F, name)(Q, K, V)", "reach_dynamic"),
    ("def attention(Q, K, V):\n    return course.checks.lesson1.right_scores(Q, K)", "reach_course"),
    ("def attention(Q, K, V):\n    return course.hf.something(Q)", "reach_course"),
    ("def attention(Q, K, V):\n    return eval('Q')", "reach_outside"),
    ("def attention(Q, K, V):\n    return Q.f_back", "reach_outside"),
])
def test_what_the_exercise_reaches_is_refused(code, why):
    assert why in {w for w, _ in refused(code)}, refused(code)


def test_through_the_learners_own_definitions_in_any_cell():
    helper = "from torch.nn.functional import scaled_dot_product_attention as sdpa\ndef helper(Q, K, V):\n" \
             "    return sdpa(Q, K, V)"
    assert ("reach_attention", "torch.nn.functional.scaled_dot_product_attention") in refused(
        helper, "def attention(Q, K, V):\n    return helper(Q, K, V), None")


def test_a_value_filled_in_elsewhere_is_reached():
    # A thread, a callback or a pool started in another cell fills a global the exercise only reads.
    for fill in ("box = []\ndef work(Q, K, V):\n    box.append(F.scaled_dot_product_attention(Q, K, V))",
                 "box = {}\ndef work(Q, K, V):\n    box['y'] = F.scaled_dot_product_attention(Q, K, V)",
                 "box = [None]\nimport threading\nthreading.Thread(target=lambda: box.__setitem__(0, 1)).start()"):
        found = refused(fill, "def attention(Q, K, V):\n    return box[0], None")
        assert found, fill


def test_the_softmax_and_concat_families_only_where_declared():
    code = "def softmax_last(s):\n    return torch.softmax(s, -1)"
    assert ("reach_softmax", "torch.softmax") in refused(code, families=("attention", "softmax"))
    assert refused(code) == set()
    assert ("reach_softmax", "Tensor.softmax") in refused("def f(s):\n    return s.softmax(-1)",
                                                          families=("attention", "softmax"))
    assert ("reach_concat", "torch.cat") in refused("def f(a, b):\n    return torch.cat([a, b])", families=("concat",))
    # A concat-only exercise (lesson 8's preallocated cache) may call the library's attention and its mask helpers,
    # as its text says (a learner's right answer with causal_lower_right was refused).
    sdpa = ("from torch.nn.attention.bias import causal_lower_right\n"
            "def f(q, k, v, t):\n    return F.scaled_dot_product_attention(q, k, v, attn_mask=causal_lower_right(t, t))")
    assert refused(sdpa, families=("concat",)) == set()
    assert refused(sdpa)   # where attention is refused, so is SDPA's mask helper


def test_the_library_path_may_call_the_library():
    code = ("class M(nn.Module):\n    def forward(self, x, use_sdpa=False):\n        if use_sdpa:\n"
            "            return F.scaled_dot_product_attention(x, x, x)\n        return x @ x.mT")
    assert refused(code, keyword="use_sdpa") == set()
    assert refused(code)
    sdpa, manual = "F.scaled_dot_product_attention(x, x, x)", "x @ x.mT"
    head = "class M(nn.Module):\n    def forward(self, x, use_sdpa=False):\n"
    # The library path however the branch is written (a learner's `if not use_sdpa: … else: SDPA` was refused).
    for body in (f"        if not use_sdpa:\n            y = {manual}\n        else:\n            y = {sdpa}\n"
                 "        return y",
                 f"        if not use_sdpa:\n            return {manual}\n        return {sdpa}",
                 f"        return {sdpa} if use_sdpa else {manual}",
                 f"        if not self.training and use_sdpa:\n            return {sdpa}\n        return {manual}"):
        assert refused(head + body, keyword="use_sdpa") == set(), body
    # The path that runs without the keyword stays by hand.
    for body in (f"        if not use_sdpa:\n            return {sdpa}\n        return {manual}",
                 f"        if use_sdpa:\n            return {manual}\n        return {sdpa}",
                 f"        return {manual} if use_sdpa else {sdpa}",
                 f"        if not use_sdpa or self.training:\n            return {sdpa}\n        return {manual}",
                 f"        if use_sdpa or True:\n            return {sdpa}\n        return {manual}"):
        assert refused(head + body, keyword="use_sdpa"), body


@pytest.mark.parametrize("code", [
    HONEST_ATTENTION,
    "def attention(Q, K, V):\n    w = torch.stack([q @ k.mT for q, k in zip(Q, K)]).softmax(-1)\n    return w @ V, w",
    "def f(x):\n    return torch.trace(x) + x.trace() + torch.einsum('ij->', x)",
    "def f(x, n: int) -> torch.Tensor:\n    import math\n    return x.view(*x.shape[:-1], n, -1) / math.sqrt(n)",
    "class M(nn.Module):\n    def __init__(self, e):\n        super().__init__()\n        self.W = nn.Linear(e, e)\n"
    "        nn.init.normal_(self.W.weight, std=0.02)\n    def forward(self, x):\n        return getattr(self, 'W')(x)",
    "def f(x):\n    course.expect_qkv(x, x, x)\n    return x.masked_fill(torch.ones_like(x, dtype=torch.bool).tril(), "
    "float('-inf'))",
    "def f(x):\n    return torch.nn.Transformer.generate_square_subsequent_mask(x.size(-1))",
])
def test_a_right_answer_written_any_way_is_not_refused(code):
    assert refused(code) == set()


def test_a_cell_the_exercise_does_not_reach_costs_nothing():
    own = ["from pathlib import Path\nimport matplotlib.pyplot as plt\nplt.plot([1, 2])\nplt.savefig(Path('f.png'))",
           "with open('notes.txt', 'w') as f:\n    f.write('attention')",
           "import inspect\nprint(inspect.signature(attention))",
           "import time\nfast = torch.compile(lambda x: x * 2)\nt0 = time.time()\nfast(torch.ones(2))",
           "for name in ('W_q', 'W_k'):\n    getattr(copy, name).weight.data.copy_(getattr(single, name).weight.data)",
           "print(torch._C._get_sdp_priority_order())",
           "with torch.nn.attention.sdpa_kernel(torch.nn.attention.SDPBackend.MATH):\n"
           "    y = F.scaled_dot_product_attention(q, q, q)",
           "!pip install seaborn\nimport numpy as np\nprint(np.asarray([1]))",
           "import threading\nprint(threading.active_count())"]
    for cell in own:
        assert refused(cell, HONEST_ATTENTION) == set(), cell
        assert tampered(cell, HONEST_ATTENTION) == set(), cell


# ------------------------------------------------------------------------------------------- tampering
@pytest.mark.parametrize("code, why", [
    ("torch.softmax = lambda s, dim: s", "tamper_patch"),
    ("T = torch.Tensor\nT.__matmul__ = lambda a, b: a", "tamper_patch"),
    ("setattr(F, 'softmax', None)", "tamper_patch"),
    ("course.probes.lesson1.attention = lambda fn: None", "tamper_course"),
    ("from attn_course.by_hand import Guard", "tamper_course"),
    ("m = __import__('sys').modules", "tamper_code"),
    ("import importlib\nm = importlib.import_module('attn_course.' + 'checks.lesson1')", "tamper_course"),
    ("c = getattr(course, 'che' + 'cks')", "tamper_course"),
    ("import sys\nf = sys._getframe(1)", "tamper_insides"),
    ("import sys\nsys.setprofile(None)", "tamper_insides"),
    ("g = fn.__globals__", "tamper_insides"),
    ("import gc\ngc.get_objects()", "tamper_insides"),
    ("import inspect\ninspect.currentframe()", "tamper_insides"),
    ("torch._C._pop_torch_function_stack()", "tamper_torch"),
    ("with torch._C.DisableTorchFunction():\n    pass", "tamper_torch"),
    ("lib = torch.library.Library('aten', 'IMPL')", "tamper_torch"),
    ("from torch.overrides import TorchFunctionMode", "tamper_torch"),
    ("exec('y = 1')", "tamper_code"),
    ("%run other.py", "tamper_code"),
    ("import pickle\npickle.loads(blob)", "tamper_code"),
    ("import my_helpers_written_to_a_file", "tamper_code"),
])
def test_what_could_undo_the_guards_is_found_in_any_cell(code, why):
    assert why in tampered(code), tampered(code)


# ------------------------------------------------------------------------------------------- the course's notebooks
def _solved(stem, lang="ja"):
    return nbformat.read(next((ROOT / "autograder" / "source").glob(f"*-{lang}/{stem}.ipynb")), 4)


@pytest.mark.parametrize("lang", ["ja", "ko"])
@pytest.mark.parametrize("stem", sorted(EXERCISES))
def test_no_honest_solution_is_refused(stem, lang):
    # Every honest solution notebook, in both languages (16): nothing refused, nothing that tampers.
    nb = _solved(stem, lang)
    for cell in nb.cells:   # every solution cell as a learner would write it: read as theirs
        if cell.metadata.get("nbgrader", {}).get("solution"):
            cell.source += "\n# mine"
    cells = policy_cells(nb, _solved(stem, lang))
    assert hp.tampering(cells) == []
    assert exercise_refusals(cells, stem) == {}


def test_the_planted_mistakes_are_refused_only_where_they_break_the_rule():
    # A planted mistake loses points for what it gets wrong; the policy refuses only one that is not by hand
    # (lesson 8's sink through SDPA), in the cells it fails anyway, and none holds a way round the guards.
    from classroom import submission
    from conftest import class_bugs, class_lessons
    lessons = class_lessons()
    for stem, bugs in class_bugs().items():
        for name, bug in bugs.items():
            nb = submission(lessons[stem].assignment, stem, "ja", (bug.cell, bug.old, bug.new))
            cells = policy_cells(nb, _solved(stem))
            assert hp.tampering(cells) == [], (stem, name)
            assert {cell + "_tests" for cell in exercise_refusals(cells, stem)} <= set(bug.fails), (stem, name)


def test_the_course_own_cells_are_not_read_as_the_learners():
    # A locked cell's text (the tests call course.checks) is restored by nbgrader, whatever was typed there.
    nb = _solved("01_attention")
    tests = next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "ex4_attention_tests")
    tests.source += "\nimport sys; sys._getframe()"
    assert hp.tampering(policy_cells(nb, _solved("01_attention"))) == []


def test_the_kernel_knows_the_course_cells_by_their_text():
    from attn_course.exercises import COURSE_CELLS
    for path in (ROOT / "notebooks" / "ko").glob("0*.ipynb"):
        nb = nbformat.read(path, 4)
        own = [c for c in nb.cells if c.cell_type == "code" and not c.metadata.get("nbgrader", {}).get("solution")]
        assert all(hp.cell_key(c.source) in COURSE_CELLS for c in own if c.source.strip()), path


# ------------------------------------------------------------------------------------------- found by machine
def _public(space):
    return sorted(n for n in dir(space) if not n.startswith("_") and callable(getattr(space, n, None)))


def test_every_public_tensor_operation_is_allowed_unless_refused_by_family():
    families = ("attention", "softmax")
    spaces = {"torch": torch, "torch.nn.functional": F, "torch.linalg": torch.linalg}
    count = 0
    for prefix, space in spaces.items():
        for name in _public(space):
            if isinstance(getattr(space, name), type(torch)):
                continue   # a module: judged by what is called in it
            why = hp.path_why(f"{prefix}.{name}", families)
            assert (why is None) == (hp.family_of(name, families) is None
                                     and name not in hp.TORCH_NOT_OPS), (prefix, name, why)
            count += 1
    assert count > 1000   # torch 2.13: 1,058


def test_every_public_tensor_operation_runs_under_the_kernels_guard(lang):
    """Each public function of torch, Tensor, F and linalg outside the refused families, called inside a by-hand
    exercise's guard: whatever it raises for its arguments, it is never refused (torch.stack was, as inspect's)."""
    rule = by_hand.Rule(("attention", "softmax"), None)
    skip = ("set_", "use_", "manual_seed", "seed", "compile", "save", "load", "share_memory", "cuda", "pin_memory",
            "record_stream", "set", "storage", "untyped_storage", "wait", "backward", "register", "requires_grad_",
            "from_file", "to_sparse", "sym_", "vmap", "cond", "export", "autocast", "is_", "get_", "xpu", "mps",
            "dequantize", "detach_", "resize", "fill_", "copy_", "init_", "random_", "normal_", "uniform_")
    x = torch.ones(2, 2)
    calls = 0
    for space in (torch, torch.Tensor, F, torch.linalg):
        for name in _public(space):
            fn = getattr(space, name)
            if hp.family_of(name, rule.families) or name.startswith(skip) or isinstance(fn, (type, type(torch))):
                continue
            guard = by_hand.Guard(name, rule)
            with torch.random.fork_rng(devices=[]):
                try:
                    with guard:
                        fn(x.clone()) if space is not torch.Tensor else fn(x.clone())
                except Exception:  # noqa: BLE001 - a wrong argument is fine; a refusal is not
                    pass
            assert guard.refused is None, (name, guard.refused)
            calls += 1
    assert calls > 1200


def _stdlib_workers() -> set:
    """Python's own modules whose source starts a thread or a process, read from their files."""
    starts = ("threading.Thread(", "Thread(target", "start_new_thread", "os.fork(", "subprocess.Popen(", "posix_spawn",
              "_posixsubprocess", "Process(")
    found = set()
    for path in Path(sysconfig.get_paths()["stdlib"]).rglob("*.py"):
        if "test" in path.parts or "idlelib" in path.parts or "site-packages" in path.parts:
            continue
        try:
            text = path.read_text(encoding="utf-8", errors="ignore")
        except OSError:
            continue
        if any(s in text for s in starts):
            found.add(path.relative_to(sysconfig.get_paths()["stdlib"]).with_suffix("").as_posix().replace("/", ".")
                      .removesuffix(".__init__"))
    return found


def test_no_module_that_starts_a_thread_or_a_process_is_reachable():
    modules = _stdlib_workers() | {"_thread", "_posixsubprocess"}
    assert {"threading", "concurrent.futures.thread", "multiprocessing.pool", "subprocess", "socketserver"} <= modules
    for module in modules:
        assert hp.path_why(module, ("attention",)) == "reach_outside", module
        code = f"def attention(Q, K, V):\n    import {module} as worker\n    return Q, None"
        assert refused(code), module


def test_builtins_are_allowed_but_the_ways_in():
    for name in dir(builtins):
        code = f"def f(x):\n    return {name}"
        found = refused(code)
        assert bool(found) == (name in hp.BUILTINS_REFUSED or name in hp.BY_NAME), (name, found)


# ------------------------------------------------------------------------------------------- the visible check
def test_the_visible_check_shows_what_the_grader_refuses(lang, monkeypatch):
    cells = [hp.Cell("In [1]", SETUP.source, True),
             hp.Cell("In [2]", "box = []\ndef fill(Q, K, V):\n    box.append(F.scaled_dot_product_attention(Q, K, V))",
                     False),
             hp.Cell("In [3]", "def attention(Q, K, V):\n    w = torch.softmax(Q @ K.mT / math.sqrt(Q.size(-1)), -1)\n"
                               "    fill(Q, K, V)\n    return w @ V, w", False)]
    monkeypatch.setattr(by_hand, "history", lambda: cells)

    def attention(Q, K, V):
        w = torch.softmax(Q @ K.mT / Q.size(-1) ** 0.5, -1)
        return w @ V, w
    failure = fails_with(checks.check_attention, attention, "hint_by_hand_reach")
    assert "In [2]" in failure.message and "scaled_dot_product_attention" in failure.message


# ------------------------------------------------------------------------------------------- the grader's verdicts
def _graded(nb, tmp_path, lang="ja"):
    """DecideHiddenTests on a notebook whose grade cells hold right results, with the released source beside it."""
    from attn_grader.preprocessors import DecideHiddenTests
    from conftest import REFERENCE
    from nbformat.v4 import new_output
    assignment = f"01-attention-{lang}"
    source_dir = tmp_path / "source"
    (source_dir / assignment).mkdir(parents=True)
    released = ROOT / "autograder" / "source" / assignment / "01_attention.ipynb"
    (source_dir / assignment / "01_attention.ipynb").write_bytes(released.read_bytes())
    decide = DecideHiddenTests(reference_dir=str(REFERENCE), source_dir=str(source_dir))
    resources = {"nbgrader": {"assignment": assignment, "notebook": "01_attention", "student": "s"},
                 "attn_grading": {"seed": 7}}
    decide._verdict = lambda tests, bundles, source: None   # every probe's results right: only the policy decides
    for cell in nb.cells:
        if cell.metadata.get("nbgrader", {}).get("grade"):
            cell.outputs = [new_output("stream", name="stdout", text="✔\n")]
    nb, resources = decide.preprocess(nb, resources)
    failed = {c.metadata["nbgrader"]["grade_id"]: c.outputs[-1].evalue for c in nb.cells
              if c.metadata.get("nbgrader", {}).get("grade") and c.outputs[-1].output_type == "error"}
    return failed, resources["attn_grading"]["verdicts"]


def _released(lang="ja"):
    return nbformat.read(ROOT / "autograder" / "source" / f"01-attention-{lang}" / "01_attention.ipynb", 4)


@pytest.mark.parametrize("lang", ["ja", "ko"])
def test_tampering_fails_every_by_hand_exercise_said_once(tmp_path, lang):
    nb = _released(lang)
    nb.cells.insert(3, nbformat.v4.new_code_cell("import sys\n_hook = sys.getprofile"))
    failed, verdicts = _graded(nb, tmp_path, lang)
    by_hand_ = {tests for tests, cell in EXERCISES["01_attention"].items() if cell["by_hand"]}
    assert set(failed) == by_hand_
    assert all(verdicts[g]["hint"] == "hint_by_hand_tamper" for g in by_hand_)
    full = [g for g, message in failed.items() if "sys.getprofile" in message]
    assert full == ["ex1_attention_scores_tests"], failed         # in full once, in the first by-hand exercise
    assert all(("演習 1" in m if lang == "ja" else "연습 문제 1" in m) for g, m in failed.items() if g not in full)
    assert all("{" not in m and "考えられる原因" not in m for m in failed.values())


def test_what_one_exercise_reaches_fails_it_and_its_callers_only(tmp_path):
    nb = _released()
    cell = next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "ex4_attention")
    cell.source = cell.source.replace("return weights @ V, weights",
                                      "return F.scaled_dot_product_attention(Q, K, V), weights")
    cell.source = "import torch.nn.functional as F\n" + cell.source
    failed, verdicts = _graded(nb, tmp_path)
    assert set(failed) == {"ex4_attention_tests", "ex5_attention_module_tests"}
    assert "演習 4 のセルの" in failed["ex5_attention_module_tests"] and "対処: " in failed["ex4_attention_tests"]
    from attn_grader.report import hint_text
    assert hint_text(verdicts["ex4_attention_tests"]["hint"], "ja", {}).startswith("手で書く演習の決まり")


def test_an_honest_notebook_with_cells_of_its_own_keeps_its_verdicts(tmp_path):
    nb = _released()
    nb.cells.insert(3, nbformat.v4.new_code_cell("from pathlib import Path\nimport inspect\nprint(Path('.'))"))
    failed, verdicts = _graded(nb, tmp_path)
    assert failed == {} and verdicts and all(v["passed"] for v in verdicts.values())



def checked_in_place(nb) -> object:
    """nb with each solution cell also calling its exercise's visible check, as a learner checks in the same cell."""
    import re
    cells = {c.metadata.get("nbgrader", {}).get("grade_id"): c for c in nb.cells}
    for grade_id, cell in cells.items():
        tests = cells.get(f"{grade_id}_tests") if cell.metadata.get("nbgrader", {}).get("solution") else None
        if tests is not None:
            visible = re.sub(r"### BEGIN HIDDEN TESTS.*?### END HIDDEN TESTS", "", tests.source, flags=re.S)
            cell.source += "\n" + "\n".join(line for line in visible.splitlines() if "course.checks." in line)
    return nb


def test_a_visible_check_called_in_the_exercise_cell_is_no_escape():
    # It returns nothing and grades nothing; the checks' other names (right answers) and its insides stay refused.
    for call in ("course.checks.lesson1.check_attention(attention)", "course.checks.check_attention(attention)",
                 "from attn_course.checks.lesson1 import check_attention\ncheck_attention(attention)"):
        assert refused(HONEST_ATTENTION + "\n" + call) == set(), call
        assert tampered(HONEST_ATTENTION + "\n" + call) == set(), call
    for code in ("y = course.checks.lesson1.right_scores(q, q)", "from attn_course.checks import lesson1",
                 "f = course.checks.lesson1.check_attention.__wrapped__",
                 "from attn_course.checks.lesson1 import right_scores", "y = course.checks.lesson8.sink_variants(q)",
                 "from attn_course.checks.lesson7_cross import to_torch_mha"):
        assert tampered(code) == {"tamper_course"}, code
    for stem in sorted(EXERCISES):
        nb = checked_in_place(_solved(stem))
        cells = policy_cells(nb, _solved(stem))
        assert any("course.checks." in c.source for c in cells if not c.course), stem
        assert hp.tampering(cells) == [] and exercise_refusals(cells, stem) == {}, stem


def test_an_honest_notebook_that_checks_in_its_exercise_cells_keeps_its_verdicts(tmp_path):
    failed, verdicts = _graded(checked_in_place(_released()), tmp_path)
    assert failed == {} and verdicts and all(v["passed"] for v in verdicts.values())


# ------------------------------------------------------------------------------------------- a red team's findings
CU = "_cu = torch.jit.CompilationUnit('def sm(s: Tensor) -> Tensor:\\n    return torch.softmax(s, -1)\\n')"


@pytest.mark.parametrize("cells", [
    ("lib_sm = torch.softmax", "globals().update(sm2=lib_sm)", "def softmax_last(s):\n    return sm2(s)"),
    ("lib_sm = torch.softmax", "def softmax_last(s, lib_sm=lib_sm):\n    return lib_sm(s)"),
    ("def swap(fn):\n    return torch.softmax", "@swap\ndef softmax_last(s):\n    swap = None\n    return s"),
    ("lib_sm = torch.softmax", "if False:\n    lib_sm = None", "def softmax_last(s):\n    return lib_sm(s)"),
    ("lib_sm = torch.softmax", "class _A:\n    lib_sm = None\n    def run(s):\n        return lib_sm(s)",
     "def softmax_last(s):\n    return _A.run(s)"),
    ("from math import sqrt as lib_sm", "lib_sm = torch.softmax", "def softmax_last(s):\n    return lib_sm(s)"),
    ("def softmax_last(s):\n    return globals()['torch'].softmax(s, -1)",),
    ("def softmax_last(s):\n    return type(s).softmax(s, -1)",),
    ("def softmax_last(s):\n    sm = s.softmax\n    return sm(-1)",),
    ("def softmax_last(s):\n    return next(iter(Out.values()))(s)",),
])
def test_a_library_softmax_reached_by_a_path_the_reading_did_not_expect_is_refused(cells):
    assert refused(*cells, families=("attention", "softmax")), cells


def test_a_name_rebound_between_the_solution_and_its_tests_is_what_is_tested():
    cells = [SETUP, hp.Cell("ex3", "def softmax_last(s):\n    e = s.exp()\n    return e / e.sum(-1, keepdim=True)", False),
             hp.Cell("cell 3", "softmax_last = lambda s: torch.softmax(s, -1)", False),
             hp.Cell("ex3_tests", "course.checks.lesson1.check_softmax(softmax_last)", True)]
    found = hp.refusals(cells, ("attention", "softmax"), start=1, until=3)
    assert [(f.label, f.why) for f in found] == [("cell 3", "reach_softmax")]


@pytest.mark.parametrize("code, why", [
    (CU, "tamper_code"),
    ("_bh = getattr(course, ''.join(['by', '_hand']))\n_bh.family_of = None", "tamper_course"),
    ("m = getattr(sys, name)", "tamper_code"),
    ("f.__globals__.update(x=1)", "tamper_insides"),
    ("import sys\nm = sys.modules['attn' + '_course.by_hand']", "tamper_course"),
    ("import sys\nm = sys.modules\nm['x'] = None", "tamper_insides"),
])
def test_more_ways_round_the_guards(code, why):
    assert why in tampered("import sys", code), tampered("import sys", code)


@pytest.mark.parametrize("cells", [
    ("from torch.nn.functional import softmax", "def softmax(x):\n    e = torch.exp(x - x.amax(-1, keepdim=True))\n"
     "    return e / e.sum(-1, keepdim=True)", "def softmax_last(s):\n    return softmax(s)"),
    ("w = F.scaled_dot_product_attention(q, q, q)",
     "def attention(Q, K, V):\n    [w := (Q @ K.mT).exp() for _ in range(1)]\n    return w @ V, w"),
    ("def attention(Q, K, V):\n    match Q.shape:\n        case (b, t, d):\n            w = (Q @ K.mT / d).exp()\n"
     "    return w @ V, w",),
    ("def attention(Q, K, V):\n    w = torch.func.vmap(lambda q: (q @ K[0].mT).exp())(Q)\n    return w @ V, w",),
    ("class _Core:\n    def attention(self, Q, K, V):\n        w = (Q @ K.mT).exp()\n        return w @ V, w",
     "def module(Q, K, V):\n    core = _Core()\n    return core.attention(Q, K, V)"),
    ("from sympy import symbols, exp, diff", "def softmax_last(s):\n    exp = torch.exp(s)\n"
     "    return exp / exp.sum(-1, keepdim=True)"),
    ("import operator", "def f(a, b):\n    return operator.matmul(a, b)"),
    ("def helper(mod, c):\n    return getattr(mod, f'W_{c}')",),
])
def test_right_answers_the_red_team_found_refused_are_not(cells):
    assert refused(*cells, families=("attention", "softmax")) == set(), cells


@pytest.mark.parametrize("code", [
    "import importlib.util, subprocess, sys\nif importlib.util.find_spec('seaborn') is None:\n    print('missing')",
    "import sys\nIN_COLAB = 'google.colab' in sys.modules",
    "import sys\ntry:\n    1 / 0\nexcept ZeroDivisionError:\n    print(sys.exc_info()[0])",
    "import functools\nf = functools.lru_cache(len)\nprint(f.__wrapped__)",
    "%load_ext autoreload",
    "print(torch._C._GLIBCXX_USE_CXX11_ABI)",
    # An operator called by its aten name changes nothing: reached by an exercise, it is refused there (a learner of
    # lesson 3 lost every by-hand exercise for one such call in ex6).
    "y = torch.ops.aten._scaled_dot_product_attention_math(q, q, q)[0]",
])
def test_honest_cells_the_red_team_found_tampering_are_not(code):
    assert tampered(code) == set(), tampered(code)


def test_native_code_loaded_into_torch_ops_is_tampering():
    assert tampered("torch.ops.load_library('./mine.so')") == {"tamper_code"}
