"""Grade every submission in autograder/submitted/<student>/<assignment>/.

    python tools/grade.py [--course DIR]     # DIR defaults to autograder/

Releases each submitted assignment into the gradebook if needed, runs nbgrader
autograde and generate_feedback, and exports autograder/grades.csv.
"""
import argparse
import os
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from build import ROOT, generate_release  # noqa: E402



def nbgrader(course: Path, *args: str) -> None:
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    subprocess.run([sys.executable, "-m", "nbgrader", *args, "--log-level=WARN"], cwd=course, check=True, env=env)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--course", type=Path, default=ROOT / "autograder")
    course = parser.parse_args().course.resolve()
    submitted = course / "submitted"
    assignments = sorted({p.name for p in submitted.glob("*/*") if p.is_dir()})
    if not assignments:
        sys.exit(f"no submissions under {submitted}/<student>/<assignment>/")
    for assignment in assignments:
        generate_release(course, assignment, assignment.rsplit("-", 1)[1])
        nbgrader(course, "autograde", assignment, "--force")
        nbgrader(course, "generate_feedback", assignment, "--force")
    nbgrader(course, "export", "--to", str(course / "grades.csv"))
    print(f"grades: {course / 'grades.csv'}; feedback: {course / 'feedback'}")


if __name__ == "__main__":
    main()
