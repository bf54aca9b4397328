"""Feedback shows a grade cell's score, never the hidden tests' source."""
import re

from nbgrader.preprocessors import NbGraderPreprocessor

from ..messages import assignment_language, text

_HIDDEN = re.compile(r"^[ \t]*### BEGIN HIDDEN TESTS.*?### END HIDDEN TESTS[ \t]*$", re.S | re.M)


class HideHiddenTests(NbGraderPreprocessor):
    """nbgrader's feedback prints the autograded notebook, hidden tests included. The code
    between the markers becomes one comment, and a traceback keeps only its last line
    (the error and its message).
    """

    def preprocess_cell(self, cell, resources, index):
        if cell.cell_type != "code" or not _HIDDEN.search(cell.source):
            return cell, resources
        note = text("feedback_hidden_tests", assignment_language(resources["nbgrader"]["assignment"]))
        cell.source = _HIDDEN.sub(lambda _: note, cell.source)
        for output in cell.get("outputs", []):
            if output.output_type == "error":
                output.traceback = [f"{output.ename}: {output.evalue}"]
        return cell, resources
