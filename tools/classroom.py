"""Make a throwaway nbgrader course and fake learners' submissions, for tests, benchmarks and trying the grader.

    make classroom LESSON=03-masks STUDENTS=40     # into autograder/submitted/ (PYTHONPATH=tools)
"""
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

    edit = (grade_id, old, new) replaces text in one solution cell: a classic bug. A list of them plants several
    bugs, each in its own cell (tests/bug_packs.py).
    """
    edits = {} if not edit else {e[0]: e for e in (edit if isinstance(edit, list) else [edit])}
    assert not isinstance(edit, list) or len(edits) == len(edit), "two bugs in one cell would overlap"
    source = nbformat.read(ROOT / "autograder" / "source" / f"{assignment}-{lang}" / f"{stem}.ipynb", 4)
    solutions = {c.metadata["nbgrader"]["grade_id"]: MARKERS.sub("", c.source)
                 for c in source.cells if c.metadata.get("nbgrader", {}).get("solution")}
    nb = nbformat.read(ROOT / "notebooks" / lang / f"{stem}.ipynb", 4)
    for cell in nb.cells:
        meta = cell.metadata.get("nbgrader", {})
        if meta.get("solution") and not untouched:
            cell.source = solutions[meta["grade_id"]]
            if meta["grade_id"] in edits:
                old, new = edits[meta["grade_id"]][1:3]
                assert old in cell.source, f"bug fixture no longer matches the solution: {old!r}"
                cell.source = cell.source.replace(old, new)
        if tag_tests_skip and meta.get("grade"):
            cell.metadata["tags"] = ["skip-execution", "raises-exception"]
    return nb


def submit(course: Path, student: str, assignment: str, stem: str, nb) -> None:
    folder = course / "submitted" / student / assignment
    folder.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, folder / f"{stem}.ipynb")


def make_class(course: Path, lesson: str, students: int, start: int = 0, prefix: str = "student") -> list[str]:
    """students generated learners of one lesson ("03-masks") under course/submitted/: ja and ko in turn, each
    fifth one's notebook untouched, every other one with a classic bug of the lesson (tools/planted/, in turn), the
    rest right. Returns their ids."""
    from planted import bugs as planted
    stem = next(p.stem for p in (ROOT / "autograder" / "source" / f"{lesson}-ja").glob("*.ipynb"))
    bugs = list(planted(int(stem[:2])).values())
    ids = []
    for i in range(start, start + students):
        lang = ("ja", "ko")[i % 2]
        kind = i % 5
        edit = None if kind in (0, 2) else bugs[(i // 5) % len(bugs)] if kind in (1, 3) else None
        nb = submission(lesson, stem, lang, untouched=kind == 4,
                        edit=(edit.cell, edit.old, edit.new) if edit else None)
        student = f"{prefix}{i:02d}"
        submit(course, student, f"{lesson}-{lang}", stem, nb)
        ids.append(student)
    return ids


def main() -> None:
    import argparse
    parser = argparse.ArgumentParser(description="Put generated submissions into an nbgrader course, as learners "
                                                 "would hand them in (for trying the grader, and benchmarks).")
    parser.add_argument("--course", type=Path, default=ROOT / "autograder")
    parser.add_argument("--lesson", required=True, help="03-masks, 07-positions, …")
    parser.add_argument("--students", type=int, default=40)
    parser.add_argument("--start", type=int, default=0, help="number the learners from here")
    parser.add_argument("--prefix", default="student")
    args = parser.parse_args()
    ids = make_class(args.course, args.lesson, args.students, args.start, args.prefix)
    print(f"{len(ids)} submissions of {args.lesson} in {args.course / 'submitted'}: {ids[0]} … {ids[-1]}")


if __name__ == "__main__":
    main()
