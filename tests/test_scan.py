"""grader/attn_grader/scan.py: what flags.csv shows an instructor, read from the learner's source in the grader.

flags.csv lists the by-hand policy's findings (attn_course.hand_policy: tests/test_hand_policy.py) and what no
honest answer needs but changes no score. The honest solutions raise no flag, in any lesson.
"""
import nbformat
import pytest
from attn_course.by_hand import RULES
from attn_grader.scan import scan_notebook, scan_source

from conftest import ROOT


def rules(source):
    return {flag[0] for flag in scan_source(source)}


@pytest.mark.parametrize("code, want", [
    ("import os\nprint(os.environ)", "environment"),
    ("import os\nprint(os.listdir('..'))", "files"),
    ("import requests", "network"),
    ("import os\nos._exit(0)", "process"),
    ("!ls", "process"),
    ("class Fake(torch.Tensor):\n    def __eq__(self, other):\n        return True", "fake_equality"),
    ("print(open('/srv/autograder/gradebook.db').read())", "files"),
])
def test_flagged(code, want):
    assert want in rules(code), scan_source(code)


def test_a_modules_own_eval_is_not_pythons():
    # A learner who changed lesson 5's demo cell was flagged for `deep.eval()` (issue 28's demo class found it).
    assert rules("deep.eval()\nmodel.compile()") == set()


@pytest.mark.parametrize("code", [
    "from pathlib import Path\nfig.savefig(Path('figures') / 'weights.png')",
    "with open('notes.txt', 'w', encoding='utf-8') as f:\n    f.write('attention')",
    "import shutil\nshutil.copy('weights.png', 'weights-old.png')",
])
def test_saving_a_figure_or_a_note_is_not_flagged(code):
    # The kernel writes only its own copy of its folder: an honest figure is no look for the instructor.
    assert rules(code) == set(), scan_source(code)


def test_prose_in_strings_is_not_a_name():
    assert rules("print('all checks passed; the probes are fine')") == set()


def test_the_policy_findings_are_flagged_where_they_are():
    stem = "01_attention"
    source = ROOT / "autograder" / "source" / "01-attention-ja" / f"{stem}.ipynb"
    nb = nbformat.read(source, 4)
    cell = next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "ex4_attention")
    cell.source = "def attention(Q, K, V):\n    return attend(Q, K, V), None\n"
    nb.cells.insert(1, nbformat.v4.new_code_cell("from torch.nn.functional import scaled_dot_product_attention as attend"))
    nb.cells.insert(2, nbformat.v4.new_code_cell("import sys\nsys.setprofile(None)"))
    flags = [f[:3] for f in scan_notebook(nb, nbformat.read(source, 4), stem)]
    assert ("ex4_attention", "reach_attention", 2) in flags, flags   # the alias read where it is called
    assert ("cell 3", "tamper_insides", 2) in flags, flags


@pytest.mark.parametrize("stem", sorted(p.stem for p in (ROOT / "solutions" / "ja").glob("0[1-9]_*.ipynb")))
def test_honest_solutions_raise_no_flag(stem):
    # Every solution cell as a learner would write it (its text differs from the source's, so it is read).
    source = next((ROOT / "autograder" / "source").glob(f"*-ja/{stem}.ipynb"))
    nb = nbformat.read(source, 4)
    for cell in nb.cells:
        if cell.metadata.get("nbgrader", {}).get("solution"):
            cell.source += "\n# mine"
    assert scan_notebook(nb, nbformat.read(source, 4), stem) == []
    assert RULES[stem]  # every lesson has a by-hand exercise the policy reads
