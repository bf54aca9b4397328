"""Every solution notebook runs top to bottom on a fresh kernel: no error, nothing on stderr.

Each is executed once in this environment per test run. tests/test_browser.py runs it in
JupyterLab and saves it (conftest's EXECUTED); this file, on the same worker and after it, reads
what was saved. Where the browser tests cannot run (no chromium), the notebook is executed here
with nbclient instead, as `make bench` runs it. (The grader executes every solution with
nbclient too, in tests/test_grading.py, and tests/test_colab_stack.py on Colab's stack.)
"""
import nbformat
import pytest

import bench
from conftest import EXECUTED, ROOT, SESSION_START

# On the browser tests' worker, after them (conftest.py, "Scheduling").
pytestmark = pytest.mark.xdist_group("browser")

SOLUTIONS = sorted((ROOT / "solutions").glob("*/*.ipynb"))


def _code(nb) -> list[str]:
    return [c.source for c in nb.cells if c.cell_type == "code"]


def executed(path):
    """The notebook as the browser test saved it in this session, or else as nbclient runs it now."""
    saved = EXECUTED / path.parent.name / path.name
    if saved.exists() and saved.stat().st_mtime >= SESSION_START:
        nb = nbformat.read(saved, 4)
        assert _code(nb) == _code(nbformat.read(path, 4)), f"{saved} is not {path} as run"
        return nb
    return bench.run(path)["executed"]


@pytest.mark.parametrize("path", SOLUTIONS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_solution_notebook_runs_clean(path):
    outputs = [o for c in executed(path).cells if c.cell_type == "code" for o in c.outputs]
    assert [f"{o.ename}: {o.evalue}" for o in outputs if o.output_type == "error"] == []
    # Glyph warnings, deprecation warnings and the like all land on stderr.
    assert [o.text for o in outputs if o.output_type == "stream" and o.name == "stderr"] == []
    # Every lesson ends in the explorer, driven by the learner's own code.
    assert any("application/vnd.jupyter.widget-view+json" in o.get("data", {}) for o in outputs)
