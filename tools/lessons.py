"""The course's lessons as their sources define them: the one place a lesson's points live.

    for lesson in lessons(): lesson.number, lesson.stem, lesson.assignment, lesson.points, lesson.titles

Tests, the README's tables and the build read points from here, never from a copy.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import jupytext

ROOT = Path(__file__).resolve().parent.parent
HEADING = re.compile(r"^#\s+(?:第\d+回|\d+강)\s*(.+)$", re.M)


@dataclass
class Lesson:
    number: int
    stem: str                                    # 01_attention: lessons/<stem>.md, notebooks/<lang>/<stem>.ipynb
    assignment: str | None                       # 01-attention; the nbgrader assignment is <assignment>-<lang>
    points: dict = field(default_factory=dict)   # grade cell id -> points, in notebook order
    titles: dict = field(default_factory=dict)   # lang -> the lesson's title

    @property
    def total(self) -> int:
        return sum(self.points.values())


def read(path: Path) -> Lesson:
    nb = jupytext.read(path)
    meta = nb.metadata.get("course", {})
    points = {c.metadata["id"]: int(c.metadata["points"]) for c in nb.cells
              if c.cell_type == "code" and c.metadata.get("kind") == "tests"}
    titles = {}
    for cell in nb.cells:
        lang = cell.metadata.get("lang")
        match = HEADING.search(cell.source) if lang else None
        if match and lang not in titles:
            titles[lang] = match.group(1).strip()
    return Lesson(int(meta.get("lesson", 0)), path.stem, meta.get("assignment"), points, titles)


def lessons(graded_only: bool = True) -> list[Lesson]:
    found = [read(p) for p in sorted((ROOT / "lessons").glob("[0-9][0-9]_*.md"))]
    return [lesson for lesson in found if lesson.assignment or not graded_only]
