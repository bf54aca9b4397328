"""By hand means by hand: every way round the rule that a learner or a cheater found, graded by `make autograde`.

Each case is a real submission, graded with the rest of a small class by attn_grader.grade, with
made-up secrets in the grader's environment. A case whose by-hand exercise reaches the library's attention
(or anything else the policy refuses, attn_course/hand_policy.py) scores 0 on that exercise and on the
exercises whose code reaches the same line, keeps every other cell's points, and has a row in flags.csv;
a case with code that could undo the kernel's guards scores 0 on every by-hand exercise. HONEST are
notebooks with right answers written another way, or cells of the learner's own that the by-hand code
does not reach: full marks. docs/instructors.md's by-hand table is CASES.
"""
import csv
import os
import subprocess
import sys

import nbformat
import pytest
from attn_grader.similarity import RULES as SIMILAR
from classroom import course_skeleton, submission, submit
from lessons import lessons
from nbgrader.api import Gradebook

from attn_course.exercises import EXERCISES

pytestmark = pytest.mark.xdist_group("tamper_by_hand")  # one worker grades the class its tests share
POINTS = {lesson.stem: lesson.points for lesson in lessons()}
SECRETS = {"JUPYTERHUB_API_TOKEN": "hub-token-4f1c9e", "AWS_SECRET_ACCESS_KEY": "aws-secret-77ab30"}

L1_ATTENTION = "    weights = softmax_last(attention_scores(Q, K))   # (..., T_q, T_k)\n"
L1_RETURN = "    return weights @ V, weights                      # (..., T_q, d_v), (..., T_q, T_k)\n"
L1_SCORES = "    return Q @ K.transpose(-2, -1) / math.sqrt(d_k)   # (..., T_q, T_k)\n"
L3_Y = "        y = merge_heads(self.dropout(weights) @ V)                                     # (B, T, H*D)\n"
L7_Y = "        y = (weights @ v).transpose(1, 2).contiguous().view(B, T_q, E)             # (B, T_q, E)\n"
L1_ZERO_4 = {"ex4_attention_tests", "ex5_attention_module_tests"}   # ex5's module calls attention()
# Code that could undo the guards from inside the kernel (hand_policy.tampering) costs every by-hand exercise.
L1_BY_HAND = {tests for tests, cell in EXERCISES["01_attention"].items() if cell["by_hand"]}
SDPA_OUT = "    return {call}, weights\n"
# Lesson 8 ex9 (`:by_hand: concat`): the buffers are still written in place, so only the join breaks the rule.
L8_KEYS = '    scores = (q @ k_buf[:, :, :T_all].transpose(-2, -1) / math.sqrt(D)).masked_fill(~keep, float("-inf"))\n'
L8_ZERO_9 = {"ex9_preallocated_tests"}
L8_BY_HAND = {tests for tests, cell in EXERCISES["08_deployed"].items() if cell["by_hand"]}


def _l8_join(join: str, before: str = "") -> list:
    """Lesson 8 ex9 attending to keys joined from the past and the new ones, not to the buffer's slice."""
    return [("replace", "ex9_preallocated", L8_KEYS,
             before + f"    k_all = {join}\n"
             '    scores = (q @ k_all.transpose(-2, -1) / math.sqrt(D)).masked_fill(~keep, float("-inf"))\n')]


def _l1_output(call: str, before: str = "") -> list:
    """Lesson 1 ex4 returning the library's output instead of weights @ V (the weights stay the learner's own)."""
    return [("replace", "ex4_attention", L1_RETURN, before + SDPA_OUT.format(call=call))]


def _own_cell(code: str, before: str) -> tuple:
    """A cell of the learner's own, added above the solution cell `before` (learners may add cells)."""
    return ("insert_before", before, code)


# case: (lesson stem, edits, cells that must score 0)
CASES = {
    "01 F.scaled_dot_product_attention called in lesson 1 ex4": (
        "01_attention", _l1_output("F.scaled_dot_product_attention(Q, K, V)",
                                   "    import torch.nn.functional as F\n"), L1_ZERO_4),
    "02 imported under an alias in a cell of the learner's own": (
        "01_attention", [_own_cell("from torch.nn.functional import scaled_dot_product_attention as sdpa",
                                   "ex4_attention")] + _l1_output("sdpa(Q, K, V)"), L1_ZERO_4),
    "03 imported under an alias inside the exercise cell": (
        "01_attention", _l1_output("sdpa(Q, K, V)", "    from torch.nn.functional import "
                                                    "scaled_dot_product_attention as sdpa\n"), L1_ZERO_4),
    "04 torch.ops.aten.scaled_dot_product_attention": (
        "01_attention", _l1_output("torch.ops.aten.scaled_dot_product_attention(Q, K, V)"), L1_ZERO_4),
    "05 torch._C._nn.scaled_dot_product_attention": (
        "01_attention", _l1_output("torch._C._nn.scaled_dot_product_attention(Q, K, V)"), L1_BY_HAND),
    "06 a default argument bound when the function was defined": (
        "01_attention", [("replace_all", "ex4_attention",
                          "import torch.nn.functional as F\n\n"
                          "def attention(Q, K, V, _attend=F.scaled_dot_product_attention):\n"
                          "    course.expect_qkv(Q, K, V)\n"
                          "    weights = softmax_last(attention_scores(Q, K))\n"
                          "    return _attend(Q, K, V), weights\n")], L1_ZERO_4),
    "07 nn.MultiheadAttention built and called inside the module": (
        "01_attention", [("replace", "ex5_attention_module",
                          "        y, weights = attention(Q, K, V)                        # (B, T, D), (B, T, T)\n",
                          "        _, weights = attention(Q, K, V)\n"
                          "        mha = nn.MultiheadAttention(Q.size(-1), 1, bias=False, batch_first=True).to(x.dtype)\n"
                          "        with torch.no_grad():\n"
                          "            mha.in_proj_weight.copy_(torch.eye(Q.size(-1)).repeat(3, 1))\n"
                          "            mha.out_proj.weight.copy_(torch.eye(Q.size(-1)))\n"
                          "        y = mha(Q, K, V, need_weights=False)[0]\n")],
        {"ex5_attention_module_tests"}),
    "08 flex_attention": (
        "01_attention", _l1_output("flex_attention(Q[:, None], K[:, None], V[:, None])[:, 0]",
                                   "    from torch.nn.attention.flex_attention import flex_attention\n"),
        L1_ZERO_4),
    "09 the function mode popped inside the learner's code": (
        "01_attention", _l1_output("F.scaled_dot_product_attention(Q, K, V)",
                                   "    import torch.nn.functional as F\n"
                                   "    _mode = torch._C._pop_torch_function_stack()\n"
                                   "    torch.backends.cuda.enable_math_sdp(True)\n"), L1_BY_HAND),
    "10 torch functions disabled inside the learner's code": (
        "01_attention", [("replace", "ex4_attention", L1_RETURN,
                          "    import torch.nn.functional as F\n"
                          "    with torch._C.DisableTorchFunction():\n"
                          "        y = F.scaled_dot_product_attention(Q, K, V)\n"
                          "    return y, weights\n")], L1_BY_HAND),
    "11 the course's checks called for ex1's answer": (
        "01_attention", [("replace", "ex1_attention_scores", L1_SCORES,
                          "    return course.checks.lesson1.right_scores(Q, K)\n")],
        L1_BY_HAND),
    "12 the course's checks imported for ex1's answer": (
        "01_attention", [("replace", "ex1_attention_scores", L1_SCORES,
                          "    from attn_course.checks.lesson1 import right_scores\n"
                          "    return right_scores(Q, K)\n")],
        L1_BY_HAND),
    "13 the course's checks reached through importlib": (
        "01_attention", [("replace", "ex1_attention_scores", L1_SCORES,
                          "    import importlib\n"
                          "    _m = importlib.import_module('attn_course.' + 'checks.lesson1')\n"
                          "    return _m.right_scores(Q, K)\n")],
        L1_BY_HAND),
    "14 the course's checks reached through getattr and built strings": (
        "01_attention", [("replace", "ex1_attention_scores", L1_SCORES,
                          "    _c = getattr(getattr(course, 'che' + 'cks'), 'lesson' + str(1))\n"
                          "    return getattr(_c, 'right_' + 'scores')(Q, K)\n")],
        L1_BY_HAND),
    "15 torch.softmax where the softmax is to be written by hand": (
        "01_attention", [("replace_all", "ex3_softmax_last", None,
                          "def softmax_last(scores):\n    return torch.softmax(scores, dim=-1)\n")],
        {"ex3_softmax_last_tests"}),
    "16 SDPA in lesson 3 ex6's hand-written path (use_sdpa=False)": (
        "03_masks", [("replace", "ex6_causal_module", L3_Y,
                      "        y = merge_heads(F.scaled_dot_product_attention(Q, K, V, attn_mask=keep).nan_to_num(0.0))\n")],
        {"ex6_causal_module_tests"}),
    "17 SDPA under an alias from the learner's own cell, in lesson 3 ex6": (
        "03_masks", [_own_cell("from torch.nn.functional import scaled_dot_product_attention as sdpa",
                               "ex6_causal_module"),
                     ("replace", "ex6_causal_module", L3_Y,
                      "        y = merge_heads(sdpa(Q, K, V, attn_mask=keep).nan_to_num(0.0))\n")],
        {"ex6_causal_module_tests"}),
    "18 SDPA under an alias from the learner's own cell, in lesson 7 ex8": (
        "07_positions", [_own_cell("from torch.nn.functional import scaled_dot_product_attention as sdpa",
                                   "ex8_cross_attention"),
                         ("replace", "ex8_cross_attention", L7_Y,
                          "        keep = None if key_padding_mask is None else ~key_padding_mask[:, None, None, :]\n"
                          "        y = sdpa(q, k, v, attn_mask=keep).transpose(1, 2).reshape(B, T_q, E)\n")],
        {"ex8_cross_attention_tests"}),
    "19 TorchScript of aten's math kernel, made in a cell of the learner's own": (
        "01_attention", [_own_cell("@torch.jit.script\n"
                                   "def fused(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:\n"
                                   "    return torch.ops.aten._scaled_dot_product_attention_math(q, k, v)[0]",
                                   "ex4_attention")] + _l1_output("fused(Q, K, V)"), L1_ZERO_4),
    "20 the library run in a thread pool started in another cell": (
        "01_attention", [_own_cell("import torch.nn.functional as F\n"
                                   "from concurrent.futures import ThreadPoolExecutor\n_pool = ThreadPoolExecutor(1)",
                                   "ex4_attention")]
        + _l1_output("_pool.submit(F.scaled_dot_product_attention, Q, K, V).result()"), L1_ZERO_4),
    "21 the guard's own state reached through sys.getprofile": (
        "01_attention", _l1_output("F.scaled_dot_product_attention(Q, K, V)",
                                   "    import sys, torch.nn.functional as F\n"
                                   "    sys.getprofile().__self__.names = {}\n"), L1_BY_HAND),
    "22 the course's probe replaced by a forged one in another cell": (
        "01_attention", [_own_cell("course.probes.lesson1.attention = lambda fn: None", "ex4_attention")]
        + _l1_output("F.scaled_dot_product_attention(Q, K, V)", "    import torch.nn.functional as F\n"), L1_BY_HAND),
    "23 the softmax by way of cross_entropy": (
        "01_attention", [("replace_all", "ex3_softmax_last", None,
                          "import torch.nn.functional as F\n\n"
                          "def softmax_last(scores):\n"
                          "    flat = scores.reshape(-1, scores.size(-1))\n"
                          "    classes = torch.arange(scores.size(-1)).repeat(flat.size(0))\n"
                          "    rows = flat.repeat_interleave(scores.size(-1), 0)\n"
                          "    return torch.exp(-F.cross_entropy(rows, classes, reduction='none')).reshape(scores.shape)\n")],
        {"ex3_softmax_last_tests"}),
    "24 torch.cat where the cache is written in place (lesson 8 ex9)": (
        "08_deployed", _l8_join("torch.cat([k_buf[:, :, :T_past], k], dim=2)"), L8_ZERO_9),
    "25 torch.cat under an alias from the learner's own cell, in lesson 8 ex9": (
        "08_deployed", [_own_cell("from torch import cat as join", "ex9_preallocated")]
        + _l8_join("join([k_buf[:, :, :T_past], k], dim=2)"), L8_ZERO_9),
    "26 torch.stack's kin by another name: torch.column_stack of the flattened keys, in lesson 8 ex9": (
        "08_deployed", _l8_join("torch.column_stack([k_buf[:, :, :T_past].reshape(-1, T_past * D), "
                                "k.reshape(-1, T_new * D)]).view(B, H, T_all, D)"), L8_ZERO_9),
    "27 torch.ops.aten.cat in lesson 8 ex9": (
        "08_deployed", _l8_join("torch.ops.aten.cat([k_buf[:, :, :T_past], k], 2)"), L8_ZERO_9),
    # Pieces written out in the code are read as the name they spell (hand_policy.fold): refused as torch.cat,
    # not as a way round the guards, so only ex9 costs.
    "28 torch.cat found by getattr with a name joined from written-out pieces, in lesson 8 ex9": (
        "08_deployed", _l8_join("getattr(torch, 'c' + 'at')([k_buf[:, :, :T_past], k], dim=2)"), L8_ZERO_9),
    # Started in a cell of the learner's own, before the by-hand code runs: the library's attention in a thread or
    # a process the exercise hands its inputs to. Each through another module than the policy or the guard names.
    "29 a thread of _thread's, started in another cell, serving the library's attention": (
        "01_attention", [_own_cell("import _thread, queue\nimport torch.nn.functional as F\n"
                                   "_jobs, _done = queue.Queue(), queue.Queue()\n"
                                   "def _serve():\n    while True:\n        q, k, v = _jobs.get()\n"
                                   "        _done.put(F.scaled_dot_product_attention(q, k, v))\n"
                                   "_thread.start_new_thread(_serve, ())", "ex4_attention")]
        + _l1_output("(_jobs.put((Q, K, V)), _done.get())[1]"), L1_ZERO_4),
    "30 a daemon threading.Timer, started in another cell, filling a dict the exercise reads": (
        "01_attention", [_own_cell("import threading, time\nimport torch.nn.functional as F\n_box = {}\n"
                                   "def _fill():\n    while not time.sleep(0.01):\n"
                                   "        if 'qkv' in _box and 'y' not in _box:\n"
                                   "            _box['y'] = F.scaled_dot_product_attention(*_box['qkv'])\n"
                                   "_timer = threading.Timer(0.0, _fill)\n_timer.daemon = True\n_timer.start()",
                                   "ex4_attention")]
        + _l1_output("_box.pop('y')", "    _box['qkv'] = (Q, K, V)\n    while 'y' not in _box:\n        pass\n"),
        L1_ZERO_4),
    "31 a multiprocessing.dummy pool started in another cell": (
        "01_attention", [_own_cell("from multiprocessing.dummy import Pool\nimport torch.nn.functional as F\n"
                                   "def _attend(q, k, v):\n    return F.scaled_dot_product_attention(q, k, v)\n"
                                   "_workers = Pool(1)", "ex4_attention")]
        + _l1_output("_workers.apply(_attend, (Q, K, V))"), L1_ZERO_4),
    "32 a forked multiprocessing.Process serving the library's attention through a pipe": (
        "01_attention", [_own_cell("import multiprocessing as mp\nimport torch.nn.functional as F\n"
                                   "_fork = mp.get_context('fork')\n_conn, _child = _fork.Pipe()\n"
                                   "def _serve(c):\n    while True:\n        q, k, v = c.recv()\n"
                                   "        c.send(F.scaled_dot_product_attention(q, k, v))\n"
                                   "_proc = _fork.Process(target=_serve, args=(_child,), daemon=True)\n_proc.start()",
                                   "ex4_attention")]
        + _l1_output("(_conn.send((Q, K, V)), _conn.recv())[1]"), L1_ZERO_4),
    "33 a ProcessPoolExecutor of forked workers started in another cell": (
        "01_attention", [_own_cell("import multiprocessing\nfrom concurrent.futures import ProcessPoolExecutor\n"
                                   "import torch.nn.functional as F\n"
                                   "def _attend(q, k, v):\n    return F.scaled_dot_product_attention(q, k, v)\n"
                                   "_procs = ProcessPoolExecutor(1, mp_context=multiprocessing.get_context('fork'))\n"
                                   "_procs.submit(abs, 1).result()", "ex4_attention")]
        + _l1_output("_procs.submit(_attend, Q, K, V).result()"), L1_ZERO_4),
    "34 a pool of forked multiprocessing workers started in another cell": (
        "01_attention", [_own_cell("import multiprocessing as mp\nimport torch.nn.functional as F\n"
                                   "def _attend(q, k, v):\n    return F.scaled_dot_product_attention(q, k, v)\n"
                                   "_forks = mp.get_context('fork').Pool(1)", "ex4_attention")]
        + _l1_output("_forks.apply(_attend, (Q, K, V))"), L1_ZERO_4),
    "35 a result that computes the library's attention only when the probe unpacks it": (
        "01_attention", [_own_cell("import torch.nn.functional as F\nclass _Later:\n"
                                   "    def __init__(self, Q, K, V, w):\n        self.args, self.w = (Q, K, V), w\n"
                                   "    def __iter__(self):\n        yield F.scaled_dot_product_attention(*self.args)\n"
                                   "        yield self.w", "ex4_attention"),
                         ("replace", "ex4_attention", L1_RETURN, "    return _Later(Q, K, V, weights)\n")], L1_ZERO_4),
    "36 an output filled in by __del__ when the garbage collector frees a cycle, after the function returned": (
        "01_attention", [_own_cell("import torch.nn.functional as F\nclass _Filler:\n"
                                   "    def __init__(self, out, Q, K, V):\n        self.me, self.out, self.qkv = self, out, "
                                   "(Q, K, V)\n    def __del__(self):\n"
                                   "        self.out.copy_(F.scaled_dot_product_attention(*self.qkv))", "ex4_attention")]
        + _l1_output("out", "    out = torch.zeros_like(V)\n    _Filler(out, Q, K, V)\n"), L1_ZERO_4),
    "37 an output filled in by a signal handler on a timer set inside the function": (
        "01_attention", [_own_cell("import signal\nimport torch.nn.functional as F\n_late = {}\n"
                                   "def _on_alarm(*_):\n    try:\n"
                                   "        _late['out'].copy_(F.scaled_dot_product_attention(*_late['qkv']))\n"
                                   "    except Exception:\n        pass   # wherever it fires, it breaks no other cell\n"
                                   "signal.signal(signal.SIGALRM, _on_alarm)", "ex4_attention")]
        + _l1_output("_late['out']", "    _late.update(out=torch.zeros_like(V), qkv=(Q, K, V))\n"
                                     "    signal.setitimer(signal.ITIMER_REAL, 0.001)\n"), L1_ZERO_4),
}
# Right answers written another way, and cells of the learner's own the by-hand code never reaches: full marks.
L2_MERGE = "    return x.transpose(1, 2).contiguous().view(B, T, H * D)   # (B, T, H*D)\n"
L4_SPLIT = "    return tuple(z.view(B, T, n_head, -1).transpose(1, 2) for z in (q, k, v))   # (B, H, T, D) each\n"
OWN_CELLS = ("from pathlib import Path\nimport matplotlib.pyplot as plt\nfig = plt.figure()\nplt.plot([1, 2])\n"
             "fig.savefig(Path('figure.png'))\nplt.close(fig)",
             "with open('notes.txt', 'w', encoding='utf-8') as f:\n    f.write('attention')",
             "import inspect\nprint(inspect.signature(attention))",
             "import time\nfast = torch.compile(lambda x: x * 2 + 1)\nt0 = time.perf_counter()\nfast(torch.ones(4))\n"
             "print(time.perf_counter() - t0)",
             "copy = Attention(embed_dim=8, key_dim=4)\nfor name in ('W_q', 'W_k', 'W_v', 'W_o'):\n"
             "    getattr(copy, name).load_state_dict(getattr(module, name).state_dict())",
             "!pip --version",
             "import torch.nn.functional as F\nprint(torch._C._get_sdp_priority_order())\n"
             "from torch.nn.attention import sdpa_kernel, SDPBackend\n"
             "with sdpa_kernel(SDPBackend.MATH):\n    q = torch.randn(1, 2, 3, 4)\n"
             "    print(F.scaled_dot_product_attention(q, q, q).shape)",
             "import numpy as np\nimport threading\nprint(np.asarray([1, 2]).sum(), threading.active_count())")
HONEST = {
    "01 cells of the learner's own that save a figure, open a file, print a signature, time torch.compile, "
    "copy weights by literal names, run pip and try SDPA's backends": (
        "01_attention", [_own_cell(code, "ex6_n_params") for code in OWN_CELLS]),
    "02 merge_heads written with torch.stack": (
        "02_multihead", [("replace", "ex2_merge_heads", L2_MERGE,
                          "    return torch.stack([x[:, h] for h in range(H)], dim=2).reshape(B, T, H * D)\n")]),
    "03 split_qkv written with torch.stack and unbind": (
        "04_gpt2", [("replace", "ex1_split_qkv", L4_SPLIT,
                     "    return torch.stack((q, k, v)).view(3, B, T, n_head, -1).transpose(2, 3).unbind(0)\n")]),
    "04 every exercise cell also calling its visible check (def + course.checks.lesson2.check_… in one cell)": (
        "02_multihead", [("checked_in_place", None)]),
}
ENVIRONMENT_PRINT = "import os\nprint('ENV', dict(os.environ))"


def _assignment(stem: str) -> str:
    return next(lesson.assignment for lesson in lessons() if lesson.stem == stem) + "-ja"


def _apply(nb, edits):
    cells = {c.metadata.get("nbgrader", {}).get("grade_id"): c for c in nb.cells}
    for kind, cell_id, *rest in edits:
        cell = cells.get(cell_id)
        if kind == "replace":
            old, new = rest
            assert old in cell.source, old
            cell.source = cell.source.replace(old, new)
        elif kind == "replace_all":
            cell.source = rest[-1]
        elif kind == "insert_before":
            nb.cells.insert(nb.cells.index(cell), nbformat.v4.new_code_cell(rest[0]))
        elif kind == "checked_in_place":
            from test_hand_policy import checked_in_place
            checked_in_place(nb)
    return nb


def _student(case: str) -> str:
    return f"hand{case.split()[0]}"


@pytest.fixture(scope="module")
def by_hand_graded(tmp_path_factory):
    course = course_skeleton(tmp_path_factory.mktemp("by-hand"))
    students = {}
    for case, (stem, edits, _) in CASES.items():
        students[_student(case)] = (stem, _apply(submission(_assignment(stem).removesuffix("-ja"), stem, "ja"), edits))
    for case, (stem, edits) in HONEST.items():
        students[f"honest{case.split()[0]}"] = (stem, _apply(submission(_assignment(stem).removesuffix("-ja"), stem,
                                                                        "ja"), edits))
    honest = submission("01-attention", "01_attention", "ja")
    honest.cells.append(nbformat.v4.new_code_cell(ENVIRONMENT_PRINT))
    students["honest-env"] = ("01_attention", honest)
    for student, (stem, nb) in students.items():
        submit(course, student, _assignment(stem), stem, nb)
    run = subprocess.run([sys.executable, "-m", "attn_grader.grade", "--course", str(course)],
                         env={**os.environ, **SECRETS}, capture_output=True, text=True, timeout=1800)
    assert run.returncode == 0, run.stderr[-3000:]
    scores = {}
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        for student, (stem, _) in students.items():
            nb = gb.find_submission_notebook(stem, _assignment(stem), student)
            scores[student] = {g.name: g.score for g in nb.grades}
    flags = {}
    with open(course / "flags.csv", newline="", encoding="utf-8-sig") as f:
        for row in csv.DictReader(f):
            if row["rule"] not in SIMILAR:   # every submission here is the solution's code: set aside
                flags.setdefault(row["student_id"], []).append((row["cell"], row["rule"]))
    return course, scores, flags


@pytest.mark.parametrize("case", sorted(CASES))
def test_by_hand_rule_holds(by_hand_graded, case):
    _, scores, flags = by_hand_graded
    stem, _, zero = CASES[case]
    got = scores[_student(case)]
    want = {cell: 0.0 if cell in zero else float(points) for cell, points in POINTS[stem].items()}
    assert got == want, case
    assert _student(case) in flags, flags


@pytest.mark.parametrize("case", sorted(HONEST))
def test_an_honest_notebook_keeps_full_marks(by_hand_graded, case):
    _, scores, flags = by_hand_graded
    stem = HONEST[case][0]
    assert scores[f"honest{case.split()[0]}"] == {cell: float(p) for cell, p in POINTS[stem].items()}, case
    assert not [rule for _, rule in flags.get(f"honest{case.split()[0]}", []) if rule.startswith(("reach_", "tamper_"))]
    # and each cell of theirs ran as in JupyterLab: a figure saved, a file written (in the kernel's own copy of its
    # folder), so the feedback shows no error of the grader's making
    course = by_hand_graded[0]
    graded = nbformat.read(course / "autograded" / f"honest{case.split()[0]}" / _assignment(stem) / f"{stem}.ipynb", 4)
    # (a shell command too: IPython runs `!pip` on a pseudo-terminal, which the sandbox gives the kernel)
    assert not [(cell.source[:60], out.get("ename")) for cell in graded.cells if cell.cell_type == "code"
                for out in cell.get("outputs", []) if out.get("output_type") == "error"], case
    shell = [cell for cell in graded.cells if cell.cell_type == "code" and cell.source.startswith("!pip")]
    assert all("pip " in "".join(out.get("text", "") for out in cell.outputs) for cell in shell), shell


def test_no_secret_reaches_a_kernel(by_hand_graded):
    course, scores, flags = by_hand_graded
    assignment = _assignment("01_attention")
    graded = (course / "autograded" / "honest-env" / assignment / "01_attention.ipynb").read_text(encoding="utf-8")
    feedback = "".join(p.read_text(encoding="utf-8")
                       for p in (course / "feedback" / "honest-env" / assignment).glob("*.html"))
    assert "ENV" in graded and "ATTN_GRADING_SEED" in graded  # the print ran, and the kernel has what it needs
    for secret in (*SECRETS, *SECRETS.values()):
        assert secret not in graded and secret not in feedback, secret
    assert scores["honest-env"] == {cell: float(p) for cell, p in POINTS["01_attention"].items()}
    assert any(rule == "environment" for _, rule in flags["honest-env"]), flags.get("honest-env")


def test_the_class_report_counts_the_policys_refusals_as_a_category_of_their_own(by_hand_graded):
    # Not "a mistake no known bug explains": each refusal is counted under the by-hand rule it broke, named for
    # the instructor, in the exercise it zeroed.
    from attn_grader.messages import text
    from attn_grader.report import CATEGORIES, hint_text, summarize
    course, scores, _ = by_hand_graded
    exercises = {ex.grade_id: ex for ex in summarize(course, _assignment("01_attention")).exercises}
    zeroed = {cell: sum(1 for case, (stem, _, zero) in CASES.items() if stem == "01_attention" and cell in zero)
              for cell in L1_BY_HAND}
    for cell, n in zeroed.items():
        assert exercises[cell].outcomes["unknown_mistake"] == 0, (cell, exercises[cell].outcomes)
        assert sum(k != "pass" and c for k, c in exercises[cell].outcomes.items()) == n, exercises[cell].outcomes
    policy = {k: sum(ex.outcomes[k] for ex in exercises.values()) for k in CATEGORIES}
    assert policy["hint_by_hand_reach"] and policy["hint_by_hand_tamper"], policy
    for key, category in CATEGORIES.items():
        assert hint_text(key, "ja", {}) == text(category, "ja")
