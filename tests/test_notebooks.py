"""Every solution notebook runs top to bottom on a fresh kernel: no error, nothing on stderr."""
import pytest

import bench
from conftest import ROOT

SOLUTIONS = sorted((ROOT / "solutions").glob("*/*.ipynb"))


@pytest.mark.parametrize("path", SOLUTIONS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_solution_notebook_runs_clean(path):
    result = bench.run(path)
    assert result["errors"] == 0
    # Glyph warnings, deprecation warnings and the like all land on stderr.
    assert result["stderr"] == []
    outputs = [o for c in result["executed"].cells if c.cell_type == "code" for o in c.outputs]
    # Every lesson ends in the explorer, driven by the learner's own code.
    assert any("application/vnd.jupyter.widget-view+json" in o.get("data", {}) for o in outputs)
