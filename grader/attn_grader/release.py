"""Running nbgrader's own commands for the course: the environment they need, and releasing an assignment."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


def nbgrader_env(**extra: str) -> dict:
    """The environment for running nbgrader: it calls `alembic` for its gradebook, so our
    interpreter's bin/ must come first on PATH."""
    # nbgrader's own gradebook code warns "Object of type <SubmittedAssignment> not in session" on every
    # submission it adds; nothing an instructor can act on, and it buried the lines that matter.
    quiet = ",".join(w for w in (os.environ.get("PYTHONWARNINGS"), "ignore:Object of type") if w)
    return {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
            "PYTHONWARNINGS": quiet, **extra}


def generate_release(course_root: Path, assignment: str, lang: str) -> None:
    """nbgrader generate_assignment; ATTN_COURSE_LANG tells nbgrader_config.py the language of the stubs."""
    subprocess.run(
        [sys.executable, "-m", "nbgrader", "generate_assignment", assignment, "--force", "--log-level=WARN"],
        cwd=course_root, check=True, env=nbgrader_env(ATTN_COURSE_LANG=lang),
    )


def generate_releases(course_root: Path, assignments: list[str]) -> None:
    """Release several assignments (named <id>-<lang>). Where they are every assignment of a language in
    source/, one nbgrader process releases them all through a glob: the same release/ files and gradebook
    entries as one process each (tests/test_release.py), without paying nbgrader's ~3 s start-up 16 times."""
    by_lang: dict[str, list[str]] = {}
    for assignment in assignments:
        by_lang.setdefault(assignment.rsplit("-", 1)[1], []).append(assignment)
    for lang, names in sorted(by_lang.items()):
        every = {p.name for p in (course_root / "source").glob(f"*-{lang}") if p.is_dir()}
        if len(names) > 1 and set(names) == every:
            generate_release(course_root, f"*-{lang}", lang)
        else:
            for name in sorted(names):
                generate_release(course_root, name, lang)
