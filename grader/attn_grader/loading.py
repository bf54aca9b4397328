"""Load a hidden reference module (autograder/reference/NAME.py) into the grader's process, once.

Below both the judges and the references' registry: a reference module loads another one (attn_grader.judge's
sibling) with this, and the grader finds a test's judge through references.py.
"""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

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
