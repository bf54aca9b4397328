"""The README's lesson table, and the grade and by-hand tables of docs/instructors.md, generated from the lesson
sources and the tests.

    make readme                     # rewrite the generated parts of both files (tests/ and tools/ on the path)
    python tools/readme.py --check  # the same, only checking: exit 1 when one of them is out of date

Points and titles come from lessons/*.md (tools/lessons.py), the classic bugs from tools/planted/, so no number
is written twice. tests/test_grading.py asserts every row
against a real `make autograde` run: a bug's row is the lesson's points with its failing cells at 0.
"""
from __future__ import annotations

import re
import sys
from pathlib import Path

import planted
from lessons import lessons

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
INSTRUCTORS = ROOT / "docs" / "instructors.md"
# The files with generated parts (<!-- generated: NAME -->): any part may stand in any of them.
FILES = (README, INSTRUCTORS)
BLOCK = re.compile(r"(<!-- generated: (\w+) -->\n).*?(<!-- /generated -->)", re.S)


def _cell_title(grade_id: str, points: int) -> str:
    name = grade_id.removesuffix("_tests")
    number, _, rest = name.partition("_")
    return f"{number} {rest} ({points})"


def _row(title: str, points: dict, zero: set) -> str:
    scores = [0 if cell in zero else p for cell, p in points.items()]
    return "| " + " | ".join([title, *map(str, scores), str(sum(scores))]) + " |"


def lessons_table() -> str:
    from build import COLAB  # built from the one GITHUB_REPO constant
    rows = ["| # | ja | ko | exercises | points | open in Colab |", "|---|---|---|---|---|---|"]
    for x in lessons():
        links = " · ".join(f"[{lang}]({COLAB}/notebooks/{lang}/{x.stem}.ipynb)" for lang in ("ja", "ko"))
        rows.append(f"| {x.number} | {x.titles.get('ja', '')} | {x.titles.get('ko', '')} | {len(x.points)} "
                    f"| {x.total} | {links} |")
    return "\n".join(rows) + "\n"


def grade_tables() -> str:
    out = []
    for lesson in lessons():
        bugs = planted.bugs(lesson.number)
        points = lesson.points
        out.append(f"Lesson {lesson.number}, ja:\n")
        out.append("| submission | " + " | ".join(_cell_title(c, p) for c, p in points.items())
                   + f" | total /{lesson.total} |")
        out.append("|---" * (len(points) + 2) + "|")
        out.append(_row("solution (ja and ko)", points, set()))
        out.append(_row("untouched release (ja and ko)", points, set(points)))
        out.append(_row("release with every test cell tagged skip-execution", points, set(points)))
        out += [_row(bug.title, points, set(bug.fails)) for bug in bugs.values()]
        out.append("")
    return "\n".join(out)


def by_hand_table() -> str:
    """The by-hand tamper cases of tests/test_tamper_by_hand.py, with the score each must get."""
    from test_tamper_by_hand import CASES
    points = {lesson.stem: lesson for lesson in lessons()}
    rows = ["| case | lesson | score (cells at 0) |", "|---|---|---|"]
    for case, (stem, _, zero) in CASES.items():
        lesson = points[stem]
        score = sum(p for cell, p in lesson.points.items() if cell not in zero)
        cells = ", ".join(c.split("_", 1)[0] for c in lesson.points if c in zero)
        rows.append(f"| {case} | {lesson.number} | {score}/{lesson.total} ({cells}) |")
    return "\n".join(rows) + "\n"


GENERATORS = {"lessons": lessons_table, "grades": grade_tables, "by_hand": by_hand_table}


def render(text: str) -> str:
    return BLOCK.sub(lambda m: m.group(1) + GENERATORS[m.group(2)]() + m.group(3), text)


def main() -> None:
    stale = []
    for path in FILES:
        text = path.read_text(encoding="utf-8")
        new = render(text)
        if new != text:
            stale.append(str(path.relative_to(ROOT)))
            if "--check" not in sys.argv:
                path.write_text(new, encoding="utf-8")
    if "--check" in sys.argv and stale:
        sys.exit(f"{', '.join(stale)} out of date: run python tools/readme.py")


if __name__ == "__main__":
    main()
