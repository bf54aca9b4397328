"""Feedback: a widget's output (the attention explorer) says what stood there, instead of an empty Out[…]."""
import nbformat
from nbgrader.preprocessors import NbGraderPreprocessor

from ..messages import assignment_language, text

WIDGET = "application/vnd.jupyter.widget-view+json"


class ExplainWidgets(NbGraderPreprocessor):
    """A widget lives in the kernel that drew it: the grader's kernel has stopped when the feedback page is written,
    and nothing saved its state, so the page would show an empty output. The output becomes one line in the
    learner's language saying that the widget is drawn, and can be moved, in their own notebook."""

    def preprocess_cell(self, cell, resources, index):
        if cell.cell_type != "code" or not any(WIDGET in o.get("data", {}) for o in cell.get("outputs", [])):
            return cell, resources
        lang = assignment_language(resources["nbgrader"]["assignment"])
        note = nbformat.v4.new_output("stream", name="stdout", text=text("feedback_widget", lang) + "\n")
        cell.outputs = [note if WIDGET in o.get("data", {}) else o for o in cell.outputs]
        return cell, resources
