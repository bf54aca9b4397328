"""Make a throwaway nbgrader course and fake learners' submissions, for tests and benchmarks."""
from __future__ import annotations

import re
import shutil
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parent.parent
MARKERS = re.compile(r"^[ \t]*### (BEGIN|END) SOLUTION\n?", re.M)


def course_skeleton(course: Path) -> Path:
    """Config, reference and sources from the repository, in `course` (the preprocessors are attn_grader's)."""
    course.mkdir(parents=True, exist_ok=True)
    shutil.copy(ROOT / "autograder" / "nbgrader_config.py", course / "nbgrader_config.py")
    shutil.copytree(ROOT / "autograder" / "reference", course / "reference")
    shutil.copytree(ROOT / "autograder" / "source", course / "source")
    return course


def submission(assignment: str, stem: str, lang: str, edit=None, *, untouched=False, tag_tests_skip=False):
    """The release notebook with the solutions filled in, as a learner would submit it.

    edit = (grade_id, old, new) replaces text in one solution cell: a classic bug.
    """
    source = nbformat.read(ROOT / "autograder" / "source" / f"{assignment}-{lang}" / f"{stem}.ipynb", 4)
    solutions = {c.metadata["nbgrader"]["grade_id"]: MARKERS.sub("", c.source)
                 for c in source.cells if c.metadata.get("nbgrader", {}).get("solution")}
    nb = nbformat.read(ROOT / "notebooks" / lang / f"{stem}.ipynb", 4)
    for cell in nb.cells:
        meta = cell.metadata.get("nbgrader", {})
        if meta.get("solution") and not untouched:
            cell.source = solutions[meta["grade_id"]]
            if edit and edit[0] == meta["grade_id"]:
                assert edit[1] in cell.source, f"bug fixture no longer matches the solution: {edit[1]!r}"
                cell.source = cell.source.replace(edit[1], edit[2])
        if tag_tests_skip and meta.get("grade"):
            cell.metadata["tags"] = ["skip-execution", "raises-exception"]
    return nb


def submit(course: Path, student: str, assignment: str, stem: str, nb) -> None:
    folder = course / "submitted" / student / assignment
    folder.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, folder / f"{stem}.ipynb")
