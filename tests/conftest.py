import shutil
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))


@pytest.fixture(scope="session")
def course_copy(tmp_path_factory) -> Path:
    """A throwaway nbgrader course: config, preprocessors, reference and sources from the repository."""
    course = tmp_path_factory.mktemp("course")
    for name in ("nbgrader_config.py", "course_preprocessors.py"):
        shutil.copy(ROOT / "autograder" / name, course / name)
    shutil.copytree(ROOT / "autograder" / "reference", course / "reference")
    shutil.copytree(ROOT / "autograder" / "source", course / "source")
    return course
