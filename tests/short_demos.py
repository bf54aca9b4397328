"""Demonstration trainings shortened for tests that run a demonstration for what else it exercises.

Lessons 5 and 7 train small models in cells marked `:grading: skip` (600 steps, 20-28 s a notebook here). Two
kinds of test run those cells for something other than the trained model: the skip class (tests/
test_grading_marks.py), for a planted bug's reach into them, and the Colab stack (tests/test_colab_stack.py), for
whether every line runs on Colab's versions. There each `train(…)` call in a marked cell gets `steps=STEPS`: the
same lines run (forward, backward, the optimizer, the figures after), only fewer times. The full trainings still
run where their results are the point: the solutions in JupyterLab (tests/test_browser.py) and the skip class's
solution (issue 28).
"""
import re

STEPS = 8
# A call, not lesson 7's `def train(kind, …)` in a marked cell of its own.
TRAIN_CALL = re.compile(r"(?<!def )\btrain\((\w+)")


def shorten(source: str) -> str:
    return TRAIN_CALL.sub(rf"train(\1, steps={STEPS}", source)


def calls(source: str) -> list[str]:
    """Each `train(…` call of source, up to its first closing parenthesis."""
    return re.findall(r"(?<!def )\btrain\([^)]*", source)


def marked(cell) -> bool:
    return cell.get("metadata", {}).get("attn_course", {}).get("grading") == "skip"
