"""Keep each learner's per-cell verdict on the grader's side, for the class report (report.py)."""
import json
import os
import re
import tempfile
import time
from pathlib import Path

import nbformat
from nbgrader import utils
from nbgrader.preprocessors import NbGraderPreprocessor
from traitlets import Unicode

from .decide_hidden_tests import TESTS_SUFFIX

_REGION = re.compile(r"^([ \t]*)### BEGIN SOLUTION[ \t]*\n.*?^[ \t]*### END SOLUTION[ \t]*$", re.S | re.M)


def _code_lines(source: str) -> list[str]:
    """The lines that run: comments, blank lines and trailing spaces dropped (the stub's comment is in ja or ko)."""
    return [line.rstrip() for line in source.splitlines() if line.strip() and not line.strip().startswith("#")]


def is_stub(submitted: str, source: str) -> bool:
    """True when a solution cell still holds what the release gave the learner: the source cell
    with each solution region replaced by `raise NotImplementedError()` (nbgrader's ClearSolutions)."""
    release = _REGION.sub(lambda m: f"{m.group(1)}raise NotImplementedError()", source)
    return _code_lines(submitted) == _code_lines(release)


def status(score: float | None, points: float, attempted: bool, hint: str | None) -> str:
    if not attempted:
        return "not_attempted"
    if score is not None and score >= points:
        return "pass"
    return "mistake" if hint else "unknown_mistake"


class RecordVerdicts(NbGraderPreprocessor):
    """Write verdict_dir/<assignment>/<student>.json: for every grade cell, its score (as
    SaveAutoGrades computes it), its status (pass, mistake, unknown_mistake, not_attempted)
    and the classic mistake DecideHiddenTests found (a message key).

    verdict_dir is the course's own folder, beside the gradebook: a learner's kernel sees only
    its own autograded folder (sandbox.py), and this runs after that kernel has stopped.
    A learner graded again (a late submission) replaces their file, so the report follows.
    """

    verdict_dir = Unicode("", help="where verdicts are kept; empty: not kept").tag(config=True)
    source_dir = Unicode("", help="autograder/source: what each solution cell was released as").tag(config=True)

    def preprocess(self, nb, resources):
        if not self.verdict_dir:
            return nb, resources
        info = resources["nbgrader"]
        decided = resources.get("attn_grading", {}).get("verdicts", {})
        source_path = Path(self.source_dir) / info["assignment"] / f"{info['notebook']}.ipynb"
        released = {}
        if source_path.exists():
            released = {c.metadata["nbgrader"]["grade_id"]: c.source for c in nbformat.read(source_path, 4).cells
                        if c.metadata.get("nbgrader", {}).get("solution")}
        submitted = {c.metadata["nbgrader"]["grade_id"]: c.source for c in nb.cells
                     if c.metadata.get("nbgrader", {}).get("solution")}
        cells = {}
        for cell in nb.cells:
            if not utils.is_grade(cell) or utils.is_solution(cell):
                continue
            grade_id = cell.metadata["nbgrader"]["grade_id"]
            score, points = utils.determine_grade(cell, self.log)
            exercise = grade_id.removesuffix(TESTS_SUFFIX)
            attempted = not (exercise in released and exercise in submitted
                             and is_stub(submitted[exercise], released[exercise]))
            verdict = decided.get(grade_id, {})
            cells[grade_id] = {"points": points, "score": score,
                               "status": status(score, points, attempted, verdict.get("hint")),
                               "hint": verdict.get("hint"), "hint_fields": verdict.get("hint_fields", {}),
                               "mismatch": verdict.get("mismatch"), "cause": verdict.get("cause"),
                               "carried_from": verdict.get("carried_from")}
        try:
            self._write(info["assignment"], info["student"], info["notebook"], cells)
        except OSError:  # the grade stands; only the report will miss this learner
            self.log.exception("could not keep the verdicts of %s", info["student"])
        return nb, resources

    def _write(self, assignment: str, student: str, notebook: str, cells: dict) -> None:
        folder = Path(self.verdict_dir) / assignment
        folder.mkdir(parents=True, exist_ok=True)
        os.chmod(self.verdict_dir, 0o700)  # the grader's alone, like the gradebook
        path = folder / f"{student}.json"
        record = {"student": student, "assignment": assignment, "notebooks": {}}
        if path.exists():  # one file per learner and assignment; an assignment may hold several notebooks
            try:
                record["notebooks"] = json.loads(path.read_text(encoding="utf-8")).get("notebooks", {})
            except (OSError, ValueError):
                pass
        record["notebooks"][notebook] = {"graded": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "cells": cells}
        with tempfile.NamedTemporaryFile("w", dir=folder, suffix=".tmp", delete=False, encoding="utf-8") as f:
            json.dump(record, f, ensure_ascii=False, indent=1, default=repr)  # a hint's field may be any value
        os.replace(f.name, path)  # a report read meanwhile sees the old file or the new one, never half
