"""The class workflow through nbgrader's exchange, as on JupyterHub, with the shipped config.

Instructor: release_assignment. Learner: fetch_assignment, work, submit. Instructor:
collect, then `python -m attn_grader.grade` (what `make autograde` runs), then release_feedback.
Learner: fetch_feedback, in their own language. Every step is nbgrader's own command
line, reading autograder/jupyterhub/etc-jupyter/nbgrader_config.py as /etc/jupyter would.
"""
import getpass
import os
import subprocess
import sys

import nbformat
from classroom import course_skeleton, submission
from nbgrader.api import Gradebook

from conftest import ROOT

COURSE_ID = "attention-head-by-head"


def test_release_fetch_submit_collect_grade_feedback(tmp_path):
    course = course_skeleton(tmp_path / "course")
    exchange, home = tmp_path / "exchange", tmp_path / "learner"
    exchange.mkdir()
    exchange.chmod(0o777)
    home.mkdir()
    env = {**os.environ, "JUPYTER_CONFIG_DIR": str(ROOT / "autograder" / "jupyterhub" / "etc-jupyter"),
           "NBGRADER_EXCHANGE": str(exchange),
           "PATH": f"{os.path.dirname(sys.executable)}{os.pathsep}{os.environ['PATH']}"}

    def nbgrader(cwd, *args):
        subprocess.run([sys.executable, "-m", "nbgrader", *args, "--log-level=WARN"], cwd=cwd, env=env, check=True)

    from attn_grader.release import generate_release
    generate_release(course, "01-attention-ko", "ko")
    nbgrader(course, "release_assignment", "01-attention-ko")

    nbgrader(home, "fetch_assignment", "01-attention-ko", "--course", COURSE_ID)
    fetched = home / "01-attention-ko" / "01_attention.ipynb"
    assert "raise NotImplementedError()" in fetched.read_text(encoding="utf-8")
    nbformat.write(submission("01-attention", "01_attention", "ko"), fetched)
    nbgrader(home, "submit", "01-attention-ko", "--course", COURSE_ID)

    nbgrader(course, "collect", "01-attention-ko")
    student = getpass.getuser()
    assert (course / "submitted" / student / "01-attention-ko" / "01_attention.ipynb").exists()
    subprocess.run([sys.executable, "-m", "attn_grader.grade", "--course", str(course)], env=env, check=True)
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        assert gb.find_submission("01-attention-ko", student).score == 15

    nbgrader(course, "release_feedback", "01-attention-ko")
    nbgrader(home, "fetch_feedback", "01-attention-ko", "--course", COURSE_ID)
    pages = list((home / "01-attention-ko" / "feedback").rglob("01_attention.html"))
    assert pages and "점수" in pages[0].read_text(encoding="utf-8")
