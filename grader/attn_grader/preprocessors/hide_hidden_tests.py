"""Feedback shows a grade cell's score, never the hidden tests' source."""
import re

from nbgrader.preprocessors import NbGraderPreprocessor

from ..messages import assignment_language, text

_HIDDEN = re.compile(r"^[ \t]*### BEGIN HIDDEN TESTS.*?### END HIDDEN TESTS[ \t]*$", re.S | re.M)


# The course's own failures, named as the learner's notebook names them (✘ チェック不合格 / ✘ 검사 실패):
# any other error keeps Python's name for it.
_OWN_FAILURES = {"CheckFailed": "check_failed", "HiddenTestFailed": "hidden_failed_label"}


class HideHiddenTests(NbGraderPreprocessor):
    """nbgrader's feedback prints the autograded notebook, hidden tests included. The code
    between the markers becomes one comment, and a traceback keeps only its last line
    (the error and its message).
    """

    def preprocess_cell(self, cell, resources, index):
        if cell.cell_type != "code" or not _HIDDEN.search(cell.source):
            return cell, resources
        lang = assignment_language(resources["nbgrader"]["assignment"])
        cell.source = _HIDDEN.sub(lambda _: text("feedback_hidden_tests", lang), cell.source)
        for output in cell.get("outputs", []):
            if output.output_type == "error":
                key = _OWN_FAILURES.get(output.ename)
                name = f"✘ {text(key, lang)}" if key else output.ename
                output.traceback = [f"{name}: {output.evalue}"]
        return cell, resources
