"""nbgrader preprocessors of this course, registered in nbgrader_config.py."""
import asyncio
import json
import re

import nbformat
from nbgrader.preprocessors import Execute, NbGraderPreprocessor
from traitlets import Integer

from attn_course.messages import MESSAGES

def assignment_language(assignment: str) -> str:
    """Assignments are named NN-topic-ja / NN-topic-ko."""
    return "ko" if assignment.endswith("-ko") else "ja"


_EXECUTION_TAGS = {"skip-execution", "raises-exception"}

# warnings.showwarning prints "path.py:12: SomeWarning: text", maybe more lines of text,
# then the offending source line, indented.
_WARNING_HEADER = re.compile(r"^\S.*:\d+: \w*Warning: ")


def only_warnings(text: str) -> bool:
    """True when every line of text belongs to a printed Python warning."""
    lines = [line for line in text.splitlines() if line.strip()]
    in_warning = False
    for line in lines:
        if _WARNING_HEADER.match(line):
            in_warning = True
        elif not in_warning:
            return False
        elif line[:1] in (" ", "\t"):
            in_warning = False  # the source line closes this warning
    return bool(lines)


class StripSkipTags(NbGraderPreprocessor):
    """Remove tags that change how a cell executes, in every cell of a submission.

    nbgrader restores a locked cell's source from the gradebook but keeps the
    tags the learner set. A grade cell tagged skip-execution would never run,
    print no error and score full marks.
    """

    def preprocess_cell(self, cell, resources, index):
        tags = cell.get("metadata", {}).get("tags")
        if tags:
            cell.metadata.tags = [tag for tag in tags if tag not in _EXECUTION_TAGS]
        return cell, resources


class ForgiveWarnings(NbGraderPreprocessor):
    """Move Python warnings on stderr to stdout in grade cells.

    nbgrader gives zero to a grade cell with any stderr output, so a harmless
    UserWarning (from torch, say) would zero a correct answer. Only text made
    entirely of warnings moves; any other stderr text still counts as failure.
    """

    def preprocess_cell(self, cell, resources, index):
        if cell.cell_type != "code" or not cell.metadata.get("nbgrader", {}).get("grade"):
            return cell, resources
        for output in cell.outputs:
            if output.output_type == "stream" and output.name == "stderr" and only_warnings(output.text):
                output.name = "stdout"
        return cell, resources


class GuardedExecute(Execute):
    """nbgrader's Execute, with a cap on how much output one cell may send.

    A learner's `while True: print(...)` would otherwise pile gigabytes into the
    grader's memory before the cell timeout. Past the cap the rest is dropped,
    the kernel is interrupted (the cell then fails) and a note says why.
    """

    max_output_bytes = Integer(1 << 20).tag(config=True)

    def output(self, outs, msg, display_id, cell_index):
        used = getattr(self, "_output_bytes", {})
        self._output_bytes = used
        content = msg.get("content", {})
        size = len(content["text"]) if "text" in content else len(json.dumps(content))
        used[cell_index] = used.get(cell_index, 0) + size
        if used[cell_index] <= self.max_output_bytes:
            return super().output(outs, msg, display_id, cell_index)
        if used[cell_index] - size <= self.max_output_bytes:
            outs.append(nbformat.v4.new_output("stream", name="stderr",
                                               text=f"\n[output over {self.max_output_bytes} bytes: cut off]\n"))
            asyncio.ensure_future(self.km.interrupt_kernel())
        return None


_HIDDEN = re.compile(r"^[ \t]*### BEGIN HIDDEN TESTS.*?### END HIDDEN TESTS[ \t]*$", re.S | re.M)


class HideHiddenTests(NbGraderPreprocessor):
    """Feedback shows a grade cell's score, never the hidden tests' source.

    nbgrader's feedback prints the autograded notebook, hidden tests included. The
    code between the markers becomes one comment, and a traceback from inside a
    hidden test keeps only its last line (the error and its message), so no line
    of the reference leaks through a stack trace either.
    """

    def preprocess_cell(self, cell, resources, index):
        if cell.cell_type != "code" or not _HIDDEN.search(cell.source):
            return cell, resources
        note = MESSAGES["feedback_hidden_tests"][assignment_language(resources["nbgrader"]["assignment"])]
        cell.source = _HIDDEN.sub(lambda _: note, cell.source)
        for output in cell.get("outputs", []):
            if output.output_type == "error":
                output.traceback = [f"{output.ename}: {output.evalue}"]
        return cell, resources
