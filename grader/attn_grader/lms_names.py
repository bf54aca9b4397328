"""A submitted notebook under the name an LMS or a browser gave its download, graded as the lesson's notebook.

nbgrader grades submitted/<student>/<assignment>/<notebook>.ipynb only under the release's own name: a notebook
saved as `02_multihead (1).ipynb` (a browser's second download), `02_multihead-1.ipynb` (Canvas's name for a
resubmission), `satoaiko_1234_5678_02_multihead.ipynb` (Canvas's "Download Submissions"), `Copy of
02_multihead.ipynb` or `02_multihead のコピー.ipynb` (a copy made in Colab or Drive) was skipped as an unknown
notebook, and the assignment stopped with "did you forget to run generate_assignment?" and a traceback.

Before grading, such a notebook is renamed to the lesson's name when it is the only one that can be it. When
two could be (the lesson's own name and a download of it, or two downloads), or when no notebook in the folder
can be it, the submission is not graded, with one line saying why: grading one of two notebooks picked by a
rule would give a learner the grade of a file they may not have meant to hand in.
"""
from __future__ import annotations

import re
from pathlib import Path

# What is added to a name, at its end: " (1)" and "(1)" (browsers), "-1" and "_1" (Canvas, resubmissions),
# " 2" (macOS), " - Copy", " - コピー", " - 복사본" (Windows' copy in English, Japanese and Korean), "のコピー"
# and "의 사본" (Google Drive's copy in Japanese and Korean).
_SUFFIX = re.compile(r"(?:\s*\(\d+\)|[-_ ]\d{1,3}|\s*-\s*(?:copy|コピー|복사본)|\s*のコピー|\s*의 사본)$", re.I)
# ... and at its start: "Copy of " (Colab, Drive), "コピー ～ " (older Windows in Japanese); Canvas's
# "<name>_<user id>_<submission id>_" and "<name>_late_<user id>_<submission id>_" are matched as an ending.
_PREFIX = re.compile(r"^(?:copy of\s+|コピー\s*[〜～~]\s*)", re.I)


def is_download_of(stem: str, lesson_stem: str) -> bool:
    """Is a notebook named stem (no .ipynb) a download or copy of the lesson's notebook lesson_stem?"""
    name = _PREFIX.sub("", stem.strip())
    for _ in range(3):  # "Copy of 02_multihead (1) (2)"
        if name == lesson_stem or name.endswith((f"_{lesson_stem}", f" {lesson_stem}")):
            return True
        shorter = _SUFFIX.sub("", name)
        if shorter == name:
            break
        name = shorter
    return name == lesson_stem or name.endswith((f"_{lesson_stem}", f" {lesson_stem}"))


def resolve(course: Path, assignment: str, student: str) -> tuple[list[tuple[str, str]], str | None]:
    """Rename, in submitted/<student>/<assignment>/, a notebook that can only be one of the assignment's
    notebooks to that notebook's name. Returns ([(old name, new name)], None), or ([], why it cannot be graded)."""
    folder = course / "submitted" / student / assignment
    expected = sorted(p.stem for p in (course / "source" / assignment).glob("*.ipynb"))
    present = sorted(p.name for p in folder.glob("*.ipynb"))
    if not expected:
        return [], None  # nbgrader says itself that the assignment has no notebooks
    plan, why = [], []
    for stem in expected:
        own = f"{stem}.ipynb"
        downloads = [name for name in present if name != own and name[:-len(".ipynb")] not in expected
                     and is_download_of(name[:-len(".ipynb")], stem)]
        if own in present and downloads:
            why.append(f"two notebooks could be {own}: {', '.join(map(repr, [own] + downloads))}; "
                       f"keep the one to grade as {own} and move the other out of submitted/{student}/{assignment}/")
        elif len(downloads) > 1:
            why.append(f"{len(downloads)} notebooks could be {own}: {', '.join(map(repr, downloads))}; "
                       f"keep the one to grade as {own} and move the others out of submitted/{student}/{assignment}/")
        elif downloads:
            plan.append((downloads[0], own))
        elif own not in present:
            found = ", ".join(map(repr, present)) or "no notebook at all"
            why.append(f"no {own} in submitted/{student}/{assignment}/ (found {found}); "
                       f"save the learner's notebook there as {own}")
    if why:
        return [], "; ".join(why)
    for old, new in plan:
        (folder / old).rename(folder / new)
    return plan, None
