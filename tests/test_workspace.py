"""`make workspace` copies the learner notebooks and never overwrites one."""
import shutil
import subprocess

from conftest import ROOT


def test_make_workspace_keeps_the_learners_edits(tmp_path):
    shutil.copy(ROOT / "Makefile", tmp_path / "Makefile")
    shutil.copytree(ROOT / "notebooks", tmp_path / "notebooks")
    subprocess.run(["make", "-s", "workspace"], cwd=tmp_path, check=True)
    mine = tmp_path / "workspace" / "ja" / "01_attention.ipynb"
    assert mine.read_bytes() == (ROOT / "notebooks" / "ja" / "01_attention.ipynb").read_bytes()
    mine.write_text("my answers")
    (tmp_path / "workspace" / "ko" / "00_home.ipynb").unlink()
    subprocess.run(["make", "-s", "workspace"], cwd=tmp_path, check=True)
    assert mine.read_text() == "my answers"
    assert (tmp_path / "workspace" / "ko" / "00_home.ipynb").exists()
