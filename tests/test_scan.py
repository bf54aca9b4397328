"""grader/attn_grader/scan.py: what flags.csv shows an instructor, read from the learner's source in the grader.

The scan reads names however they are written: aliases bound in another cell, strings built
from pieces, import paths. The honest solutions raise no flag, in any lesson.
"""
import nbformat
import pytest
from attn_grader.scan import by_hand_cells, scan_notebook, scan_source

from conftest import ROOT

BY_HAND = (("attention",), None)
LIBRARY_PATH = (("attention",), "use_sdpa")


def rules(source, rule=None, aliases=frozenset(), concat_aliases=frozenset()):
    return {flag[0] for flag in scan_source(source, rule, aliases, concat_aliases)}


@pytest.mark.parametrize("code, rule, aliases, want", [
    ("from torch.nn.functional import scaled_dot_product_attention as sdpa", None, set(), "library_attention"),
    ("y = sdpa(q, k, v)", None, {"sdpa"}, "library_attention"),
    ("y = F.scaled_dot_product_attention(q, k, v)", BY_HAND, set(), "library_attention"),
    ("y = torch.ops.aten.scaled_dot_product_attention(q, k, v)", BY_HAND, set(), "library_attention"),
    ("y = torch._C._nn.scaled_dot_product_attention(q, k, v)", BY_HAND, set(), "library_attention"),
    ("def f(q, k, v, a=F.scaled_dot_product_attention):\n    return a(q, k, v)", BY_HAND, set(), "library_attention"),
    ("m = nn.MultiheadAttention(8, 2)", BY_HAND, set(), "library_attention"),
    ("from torch.nn.attention.flex_attention import flex_attention", None, set(), "library_attention"),
    ("w = torch.softmax(s, -1)", (("attention", "softmax"), None), set(), "library_softmax"),
    ("p = torch.exp(-F.cross_entropy(rows, classes))", (("attention", "softmax"), None), set(), "library_softmax"),
    ("v = course.checks.lesson1.score_variants(Q, K)", None, set(), "course_internals"),
    ("from attn_course.checks.lesson1 import score_variants", None, set(), "course_internals"),
    ("m = importlib.import_module('attn_course.' + 'checks.lesson1')", None, set(), "course_internals"),
    ("c = getattr(course, 'che' + 'cks')", None, set(), "course_internals"),
    ("c = getattr(course, f\"{'pro'}bes\")", None, set(), "course_internals"),
    ("m = __import__('sys').modules[''.join(['attn_course', '.by_hand'])]", None, set(), "course_internals"),
    ("torch._C._pop_torch_function_stack()", None, set(), "by_hand_guard"),
    ("with torch._C.DisableTorchFunction():\n    pass", None, set(), "by_hand_guard"),
    ("torch.backends.cuda.enable_math_sdp(True)", None, set(), "by_hand_guard"),
    ("import sys\nsys.setprofile(None)", None, set(), "by_hand_guard"),
    ("import os\nprint(os.environ)", None, set(), "environment"),
])
def test_flagged_however_it_is_written(code, rule, aliases, want):
    assert want in rules(code, rule, aliases), scan_source(code, rule, aliases)


def test_the_library_path_may_call_the_library():
    code = ("if use_sdpa:\n    y = F.scaled_dot_product_attention(Q, K, V, attn_mask=keep)\n"
            "scores = Q @ K.mT\n")
    assert "library_attention" not in rules(code, LIBRARY_PATH)
    assert "library_attention" in rules("y = F.scaled_dot_product_attention(Q, K, V)", LIBRARY_PATH)


def test_a_concat_alias_is_flagged_where_joining_is_refused():
    concat = (("concat",), None)
    assert "library_concat" in rules("k_all = join([a, b], dim=2)", concat, concat_aliases={"join"})
    assert rules("k_all = join([a, b], dim=2)", None, concat_aliases={"join"}) == set()   # lesson 6 joins by cat


def test_a_modules_own_eval_is_not_pythons():
    # A learner who changed lesson 5's demo cell was flagged for `deep.eval()` (issue 28's demo class found it).
    assert rules("deep.eval()\nmodel.compile()") == set()
    assert "dynamic_code" in rules("x = builtins.eval('1 + 1')")
    assert "dynamic_code" in rules("b = __builtins__\ny = b.eval(source)")
    assert "dynamic_code" in rules("f = model.eval\nf()")   # not called with nothing where it is named: flagged


def test_prose_in_strings_is_not_a_name():
    assert rules("print('all checks passed; the probes are fine')") == set()


def test_an_alias_in_one_cell_is_seen_where_it_is_called(tmp_path):
    stem = "01_attention"
    source = ROOT / "autograder" / "source" / "01-attention-ja" / f"{stem}.ipynb"
    nb = nbformat.read(source, 4)
    cell = next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "ex4_attention")
    cell.source = "def attention(Q, K, V):\n    return attend(Q, K, V), None\n"
    nb.cells.insert(0, nbformat.v4.new_code_cell("from torch.nn.functional import scaled_dot_product_attention as attend"))
    path = tmp_path / f"{stem}.ipynb"
    nbformat.write(nb, path)
    flags = scan_notebook(path, source)
    assert ("cell 0", "library_attention", 1) in [f[:3] for f in flags], flags
    assert ("ex4_attention", "library_attention", 2) in [f[:3] for f in flags], flags


@pytest.mark.parametrize("stem", sorted(p.stem for p in (ROOT / "solutions" / "ja").glob("0[1-9]_*.ipynb")))
def test_honest_solutions_raise_no_flag(tmp_path, stem):
    # Every solution cell as a learner would write it (its text differs from the source's, so it is read).
    source = next((ROOT / "autograder" / "source").glob(f"*-ja/{stem}.ipynb"))
    nb = nbformat.read(source, 4)
    for cell in nb.cells:
        if cell.metadata.get("nbgrader", {}).get("solution"):
            cell.source += "\n# mine"
    nbformat.write(nb, tmp_path / f"{stem}.ipynb")
    assert scan_notebook(tmp_path / f"{stem}.ipynb", source) == []
    assert by_hand_cells(stem)  # every lesson has a by-hand exercise the scan reads
