import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))


@pytest.fixture(scope="session")
def course_copy(tmp_path_factory) -> Path:
    """A throwaway nbgrader course: config, preprocessors, reference and sources from the repository."""
    from classroom import course_skeleton
    return course_skeleton(tmp_path_factory.mktemp("course"))
