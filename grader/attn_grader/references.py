"""Load the hidden references (autograder/reference/lessonN.py) into the grader's process, and find a test's judge.

They are imported here, in the grader, and nowhere else: a learner's kernel never
imports, caches or reads them (its sandbox has no path to them).
"""
from __future__ import annotations

from pathlib import Path

from .judge import JUDGES
from .loading import load  # noqa: F401 - the grader and tools load references through here


def judge_for(folder: Path, test: str):
    """The judge registered for "lessonN.name", loading lessonN's reference first."""
    lesson = test.split(".", 1)[0]
    if not lesson.startswith("lesson") or not lesson[6:].isdigit():
        return None
    if not (Path(folder) / f"{lesson}.py").exists():
        return None
    load(folder, lesson)
    return JUDGES.get(test)
