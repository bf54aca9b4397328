"""One lesson in one place: every graded lesson has its module in every layer, under one id."""
import subprocess

import pytest
from conftest import ROOT
from lessons import lessons

LAYERS = ("attn_course/checks/lesson{n}.py", "attn_course/messages/lesson{n}.py", "attn_course/probes/lesson{n}.py",
          "autograder/reference/lesson{n}.py", "tests/test_lesson{n}.py", "tools/planted/lesson{n}.py")


@pytest.mark.parametrize("lesson", lessons(), ids=lambda lesson: lesson.stem)
def test_every_layer_has_the_lesson(lesson):
    assert lesson.stem.startswith(f"{lesson.number:02d}_") and lesson.assignment.startswith(f"{lesson.number:02d}-")
    missing = [layer.format(n=lesson.number) for layer in LAYERS if not (ROOT / layer.format(n=lesson.number)).exists()]
    assert not missing, missing


def test_no_layer_has_a_lesson_without_a_source():
    numbers = {lesson.number for lesson in lessons()}
    for layer in LAYERS:
        folder, pattern = (ROOT / layer).parent, (ROOT / layer).name.replace("{n}", "*")
        for path in folder.glob(pattern):
            n = int("".join(ch for ch in path.stem if ch.isdigit()))
            assert n in numbers, f"{path.relative_to(ROOT)} has no lessons/{n:02d}_*.md"


def _tracked_python():
    files = subprocess.run(["git", "ls-files", "*.py"], cwd=ROOT, capture_output=True, text=True, check=True)
    return [ROOT / f for f in files.stdout.split()]


def test_no_hand_written_module_is_over_600_lines():
    long = {str(p.relative_to(ROOT)): n for p in _tracked_python() if (n := len(p.read_text().splitlines())) > 600}
    assert not long, long


def test_no_line_of_a_check_probe_or_reference_is_over_120_characters():
    folders = ("attn_course/checks/", "attn_course/probes/", "autograder/reference/")
    long = [f"{p.relative_to(ROOT)}:{i}" for p in _tracked_python() if str(p.relative_to(ROOT)).startswith(folders)
            for i, line in enumerate(p.read_text().splitlines(), 1) if len(line) > 120]
    assert not long, long


def test_packages_are_found_without_editing_sys_path():
    edit = "sys.path" + ".insert"  # spelled apart so that this file does not find itself
    assert not [str(p.relative_to(ROOT)) for p in _tracked_python() if edit in p.read_text()]
