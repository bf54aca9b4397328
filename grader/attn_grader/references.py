"""Load the hidden references (autograder/reference/lessonN.py) into the grader's process, and find a test's judge.

They are imported here, in the grader, and nowhere else: a learner's kernel never
imports, caches or reads them (its sandbox has no path to them).
"""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

from .judge import JUDGES

_LOADED: dict[Path, object] = {}


def load(folder: Path, lesson: str):
    path = (Path(folder) / f"{lesson}.py").resolve()
    if path not in _LOADED:
        spec = importlib.util.spec_from_file_location(f"attn_reference.{lesson}", path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module  # dataclasses and pickling look modules up by name
        spec.loader.exec_module(module)
        _LOADED[path] = module
    return _LOADED[path]


def judge_for(folder: Path, test: str):
    """The judge registered for "lessonN.name", loading lessonN's reference first."""
    lesson = test.split(".", 1)[0]
    if not lesson.startswith("lesson") or not lesson[6:].isdigit():
        return None
    if not (Path(folder) / f"{lesson}.py").exists():
        return None
    load(folder, lesson)
    return JUDGES.get(test)
