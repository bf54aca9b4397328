"""Setting up without make (tools/course.py, what Windows learners run) and the workspace that is never overwritten."""
import os
import shutil
import subprocess
import sys

import course
import pytest
from conftest import ROOT


@pytest.mark.parametrize("how", ["make", "python"])
def test_workspace_keeps_the_learners_edits(tmp_path, how):
    shutil.copy(ROOT / "Makefile", tmp_path / "Makefile")
    shutil.copytree(ROOT / "tools", tmp_path / "tools")
    shutil.copytree(ROOT / "notebooks", tmp_path / "notebooks")
    step = (["make", "-s", "workspace", f"PYTHON={sys.executable}"] if how == "make"
            else [sys.executable, "tools/course.py", "workspace"])
    subprocess.run(step, cwd=tmp_path, check=True)
    mine = tmp_path / "workspace" / "ja" / "01_attention.ipynb"
    assert mine.read_bytes() == (ROOT / "notebooks" / "ja" / "01_attention.ipynb").read_bytes()
    mine.write_text("my answers")
    (tmp_path / "workspace" / "ko" / "00_home.ipynb").unlink()
    subprocess.run(step, cwd=tmp_path, check=True)
    assert mine.read_text() == "my answers"
    assert (tmp_path / "workspace" / "ko" / "00_home.ipynb").exists()


def test_the_environment_is_found_where_windows_puts_it(monkeypatch, tmp_path):
    monkeypatch.setattr(os, "name", "nt")
    assert course.venv_python(tmp_path) == tmp_path / "Scripts" / "python.exe"
    monkeypatch.setattr(os, "name", "posix")
    assert course.venv_python(tmp_path) == tmp_path / "bin" / "python"


def test_setup_is_what_built_this_environment_and_does_nothing_when_current(monkeypatch):
    # `make test` built .venv through tools/course.py setup: its stamp is newer than every input.
    assert course.STAMP.exists()
    ran = []
    monkeypatch.setattr(course.subprocess, "run", lambda *a, **k: ran.append(a))
    assert course.setup() == course.venv_python()
    assert ran == []


def test_the_lab_opens_on_the_learners_own_copies():
    # The URL JupyterLab prints is LabApp's default_url; the server's own is overridden by JupyterLab's /lab, which
    # opened on the repository's top folder (solutions/ beside notebooks/) instead of workspace/.
    from jupyterlab.labapp import LabApp
    from pathlib import Path
    command = course.lab_command(Path(sys.executable))
    lab = LabApp()
    lab.parse_command_line([a for a in command if a.startswith("--")])
    assert lab.default_url == "/lab/tree/workspace"
