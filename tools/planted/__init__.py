"""The planted bugs: for each graded lesson (planted/lessonN.py, BUGS), one graded submission per classic bug, and
what grading it must give.

Data the tests and the tools share (tests/test_grading.py and test_report.py grade them as a class; tools/readme.py
writes the grade tables from them; tools/hint_sweep.py, classroom.py and bench tools plant them). They are wrong
answers written from the solutions, so they stay in tools/: neither the learners' package (pyproject's package list)
nor the handout (tools/handout.py) takes anything from here.
"""
from __future__ import annotations

import importlib
from collections import namedtuple

# A bug: the solution cell it edits, the text replaced and its replacement, the grade cells that must then score 0
# (every other keeps its points), each with the hint key the grader must name there (its class report counts the
# learner under it), and a title for the grade tables of docs/instructors.md.
Bug = namedtuple("Bug", "cell old new fails title")


def bugs(number: int) -> dict[str, Bug]:
    """name -> Bug, lesson number's planted bugs in their order."""
    return importlib.import_module(f"planted.lesson{number}").BUGS


def named(lesson_bugs: dict[str, Bug]) -> dict[str, dict[str, str]]:
    """name -> {exercise: the hint key the grader must name there}, for every grade cell the bug fails."""
    return {name: {cell.removesuffix("_tests"): hint for cell, hint in bug.fails.items()}
            for name, bug in lesson_bugs.items()}
