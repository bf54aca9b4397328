"""Set up the course and open it, with nothing but Python 3.11+ (no make, no WSL): what Windows learners run.

    python tools/course.py lab         # set everything up, then open the course in JupyterLab
    python tools/course.py setup       # only the environment (.venv with the pinned packages)
    python tools/course.py workspace   # only copy the learner notebooks to workspace/ (never overwrites)
    python tools/course.py formgrader  # instructors: nbgrader's formgrader for autograder/ (make formgrader)

On Windows, `py -3.11 tools\\course.py lab`. The Makefile's `make lab` and `make test` run these
same steps, so this path is what every test run exercises.
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VENV = ROOT / ".venv"
STAMP = VENV / ".installed"
# What the environment is built from: a newer one of these means the environment is stale.
INPUTS = [ROOT / "requirements.txt", ROOT / "pyproject.toml", ROOT / "grader" / "pyproject.toml"]


def venv_python(folder: Path = VENV) -> Path:
    """The environment's interpreter: Scripts\\python.exe on Windows, bin/python elsewhere."""
    return folder / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


def setup(folder: Path = VENV) -> Path:
    """Create the environment and install the pinned packages, unless it is already up to date."""
    stamp = folder / ".installed"
    if stamp.exists() and all(stamp.stat().st_mtime >= p.stat().st_mtime for p in INPUTS):
        return venv_python(folder)
    if not venv_python(folder).exists():
        venv.EnvBuilder(with_pip=True).create(folder)
    python = str(venv_python(folder))
    pip = [python, "-m", "pip", "install", "-q"]
    subprocess.run(pip + ["--upgrade", "pip"], check=True)
    subprocess.run(pip + ["-r", str(ROOT / "requirements.txt")], check=True)
    # The learner package and the grading package, both editable: the course's own code. setuptools warns
    # about every editable install ("Please be careful with folders in your working directory with the same
    # name as your package"), which says nothing about this course; the filter reaches its build process.
    quiet = ",".join(w for w in (os.environ.get("PYTHONWARNINGS"), "ignore:Editable installation") if w)
    subprocess.run(pip + ["--no-deps", "-e", str(ROOT), "-e", str(ROOT / "grader")], check=True,
                   env={**os.environ, "PYTHONWARNINGS": quiet})
    stamp.touch()
    return venv_python(folder)


def workspace(root: Path = ROOT) -> list[Path]:
    """Copy every learner notebook into workspace/ unless a copy is already there; return what was copied."""
    copied = []
    for source in sorted((root / "notebooks").rglob("*.ipynb")):
        target = root / "workspace" / source.relative_to(root / "notebooks")
        if not target.exists():
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
            copied.append(target)
    print("workspace/ is ready (files already there were left as they were).")
    return copied


def lab() -> None:
    python = setup()
    workspace()
    print("JupyterLab: open the URL printed below; your own copies are in workspace/ja and workspace/ko.")
    command = lab_command(python)
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        command.append("--allow-root")
    sys.exit(subprocess.call(command))


def lab_command(python: Path) -> list[str]:
    """JupyterLab on the repository, opening on workspace/ (the learner's own copies). LabApp's default_url: the
    server's is overridden by JupyterLab's own /lab, which would open on the repository's top folder."""
    return [str(python), "-m", "jupyter", "lab", "--ip=127.0.0.1", "--no-browser",
            f"--ServerApp.root_dir={ROOT}", "--LabApp.default_url=/lab/tree/workspace"]


def formgrader_command(python: Path, course: Path = ROOT / "autograder") -> list[str]:
    """JupyterLab in the course folder, which nbgrader's formgrader (a server extension nbgrader enables when it is
    installed) takes for the course: it reads that folder's nbgrader_config.py. On 127.0.0.1 only: the gradebook
    holds the class's grades. The URL it prints opens formgrader (LabApp's default_url: JupyterLab's own /lab
    wins over the server's default_url)."""
    command = [str(python), "-m", "jupyter", "lab", "--ip=127.0.0.1", "--no-browser",
               f"--ServerApp.root_dir={course}", "--LabApp.default_url=/formgrader"]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        command.append("--allow-root")
    return command


def formgrader() -> None:
    python = setup()
    course = ROOT / "autograder"
    print("formgrader: open the URL printed below (…/formgrader?token=…); manual grades are saved in "
          f"{course / 'gradebook.db'} (docs/instructors-grades.md).")
    sys.exit(subprocess.call(formgrader_command(python, course), cwd=course))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("step", choices=["lab", "setup", "workspace", "formgrader"])
    step = parser.parse_args().step
    if step == "setup":
        print(setup())
    elif step == "workspace":
        workspace()
    elif step == "formgrader":
        formgrader()
    else:
        lab()


if __name__ == "__main__":
    main()
