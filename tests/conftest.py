"""Shared fixtures: the repository root, a throwaway course, both languages, the references, judging a probe."""
import os
from collections import namedtuple
from pathlib import Path

import pytest

from attn_course import messages
from attn_course.messages import t
from attn_course.validate import CheckFailed

ROOT = Path(__file__).resolve().parent.parent
REFERENCE = ROOT / "autograder" / "reference"

# One graded submission per classic bug: the solution cell it edits, the text replaced and its
# replacement, the grade cells that must then score 0 (every other keeps its points), and a title
# for README's grade tables.
Bug = namedtuple("Bug", "cell old new fails title")


@pytest.fixture(scope="session")
def course_copy(tmp_path_factory) -> Path:
    """A throwaway nbgrader course: config, reference and sources from the repository."""
    from classroom import course_skeleton
    return course_skeleton(tmp_path_factory.mktemp("course"))


@pytest.fixture(params=["ja", "ko"])
def lang(request):
    messages.set_language(request.param)
    yield request.param
    messages.set_language("ja")


def fails_with(check, arg, hint_key, **fields):
    """check(arg) must fail with the hint hint_key, in the current language."""
    with pytest.raises(CheckFailed) as info:
        check(arg)
    expected = t(hint_key, **fields)
    assert expected in str(info.value), f"expected hint {hint_key!r}, got:\n{info.value}"
    return info.value


def reference(lesson: str):
    """autograder/reference/<lesson>.py, loaded as the grader loads it."""
    from attn_grader.references import load
    return load(REFERENCE, lesson)


def judged(hidden_test, *learner_objects, seed: int = 20261123):
    """Run a probe as the kernel would and judge it as the grader would: None, or the Mismatch."""
    from attn_course.probes import SEED_ENV
    from attn_grader.verdict import decide
    saved = os.environ.get(SEED_ENV)
    os.environ[SEED_ENV] = str(seed)
    try:
        payload = hidden_test.record(*learner_objects)
    finally:
        if saved is None:
            os.environ.pop(SEED_ENV)
        else:
            os.environ[SEED_ENV] = saved
    return decide(REFERENCE, seed, hidden_test.test, payload)


def passes(hidden_test, *learner_objects, seed: int = 20261123) -> None:
    from attn_grader.verdict import localize
    failure = judged(hidden_test, *learner_objects, seed=seed)
    assert failure is None, localize(failure, "ja")


def fails(hidden_test, *learner_objects, key: str | None = None, seed: int = 20261123):
    """The hidden test must fail; with key, for that reason (a message key)."""
    failure = judged(hidden_test, *learner_objects, seed=seed)
    assert failure is not None, f"{hidden_test.test} passed"
    if key:
        assert failure.key == key, (failure.key, failure.fields)
    return failure
