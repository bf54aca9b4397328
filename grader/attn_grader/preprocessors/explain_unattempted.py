"""Feedback: a demonstration cell that failed only because an exercise it uses was left undone says so in one line."""
import re
from pathlib import Path

import nbformat
from nbgrader.preprocessors import NbGraderPreprocessor
from traitlets import Unicode

from ..cell_names import bound, parse, read_first
from ..messages import assignment_language, text
from .record_verdicts import is_stub

# A frame line of an IPython traceback: "Cell In[11], line 4, in attention(Q, K, V)" or
# "…, in Attention.__init__(self, embed_dim, key_dim)" (ANSI colours removed).
_FRAME = re.compile(r", in ([\w.]+)\(")
_ANSI = re.compile(r"\x1b\[[0-9;]*m")
_EXERCISE = re.compile(r"ex(\d+)_(\w+)")


def _union(source: str, names_of) -> set[str]:
    """names_of(statement) over the cell's top-level statements; nothing for code that does not parse."""
    try:
        tree = parse(source)
    except SyntaxError:
        return set()
    return set().union(*(names_of(s) for s in tree.body))


def _names(source: str) -> set[str]:
    return _union(source, bound)


def _reads(source: str) -> set[str]:
    return _union(source, read_first)


class ExplainUnattempted(NbGraderPreprocessor):
    """nbgrader's feedback shows each cell as the grader ran it. After an exercise the learner left as released
    (`raise NotImplementedError()`), every demonstration cell that uses it fails too, with a traceback the
    learner can do nothing with (`NotImplementedError`, or `KeyError: 'alibi'` from a table whose training
    loop stopped). Such a cell's error becomes one line in the learner's language that names the exercise.

    A cell counts as failing for that reason when its error is the stub's NotImplementedError, or when it
    reads a name that such a cell (or a stub) was to bind; any other error is the learner's and stays.
    Graded cells are left alone: their own message already says the exercise is not done.
    """

    source_dir = Unicode("", help="autograder/source: what each solution cell was released as").tag(config=True)

    def preprocess(self, nb, resources):
        info = resources.get("nbgrader", {})
        self._lang = assignment_language(info.get("assignment", ""))
        released = {}
        path = Path(self.source_dir) / info.get("assignment", "") / f"{info.get('notebook', '')}.ipynb"
        if self.source_dir and path.exists():
            released = {c.metadata["nbgrader"]["grade_id"]: c.source for c in nbformat.read(path, 4).cells
                        if c.metadata.get("nbgrader", {}).get("solution")}
        self._released = released
        self._undone = {}   # name a stub (or a cell that failed because of one) binds -> the exercise's grade id
        self._stubs = {}    # the stub's own names -> grade id
        self._titles = {}   # grade id -> what the learner's stub defines ("attend_rope_with_cache")
        return super().preprocess(nb, resources)

    def preprocess_cell(self, cell, resources, index):
        if cell.cell_type != "code":
            return cell, resources
        meta = cell.metadata.get("nbgrader", {})
        if meta.get("solution"):
            grade_id = meta.get("grade_id", "")
            if grade_id in self._released and is_stub(cell.source, self._released[grade_id]):
                for name in _names(cell.source):
                    self._stubs[name] = self._undone[name] = grade_id
                # The stub's own `raise NotImplementedError()` (an answers cell raises it when run).
                self._one_line(cell, text("exercise_not_attempted", self._lang))
                self._titles[grade_id] = ", ".join(n for n in sorted(_names(cell.source)) if not n.startswith("answer_"))
            return cell, resources
        if meta.get("grade"):
            return cell, resources
        errors = [o for o in cell.get("outputs", []) if o.output_type == "error"]
        if not errors or not self._stubs:
            return cell, resources
        exercise = self._cause(cell.source, errors[0])
        if exercise is None:
            return cell, resources
        for name in _names(cell.source):  # what this cell was to make is missing too
            self._undone.setdefault(name, exercise)
        match = _EXERCISE.match(exercise)
        number, name = (match[1], match[2]) if match else ("?", exercise)
        self._one_line(cell, text("demo_needs_exercise", self._lang, n=int(number) if match else number,
                                  name=self._titles.get(exercise) or name))
        return cell, resources

    @staticmethod
    def _one_line(cell, message: str) -> None:
        """The cell's error, whatever its traceback, becomes the message."""
        for output in cell.get("outputs", []):
            if output.output_type == "error":
                output.ename, output.evalue, output.traceback = "", message, [f"✘ {message}"]

    def _cause(self, source: str, error) -> str | None:
        """The exercise the cell's error comes from, or None when the error is not explained by one."""
        trace = _ANSI.sub("", "\n".join(error.get("traceback", [])))
        if error.get("ename") == "NotImplementedError":
            for frame in reversed(_FRAME.findall(trace)):  # innermost first: the stub that raised
                if frame.split(".")[0] in self._stubs:
                    return self._stubs[frame.split(".")[0]]
            return None
        used = [self._undone[name] for name in sorted(_reads(source)) if name in self._undone]
        return min(used, key=_order) if used else None


def _order(grade_id: str) -> tuple:
    match = _EXERCISE.match(grade_id)
    return (int(match[1]) if match else 1 << 30, grade_id)

