"""The two nbgrader fixes, on their own."""
import sys

from conftest import ROOT

sys.path.insert(0, str(ROOT / "autograder"))
from course_preprocessors import only_warnings  # noqa: E402


def test_printed_warnings_are_recognised():
    one = "/x/y.py:3: UserWarning: hello\n  warnings.warn('hello')\n"
    multi = ("/r/lesson2.py:138: UserWarning: Converting a tensor with requires_grad=True to a scalar\n"
             "Consider using tensor.detach() first. (Triggered internally at foo.cpp:822.)\n"
             "  err = max(float(a), float(b))\n")
    ipython = "/tmp/ipykernel_1/2.py:4: DeprecationWarning: old\n  old()\n"
    assert only_warnings(one) and only_warnings(multi) and only_warnings(one + ipython)


def test_other_stderr_is_not_forgiven():
    assert not only_warnings("")
    assert not only_warnings("Traceback (most recent call last):\n  File x\nValueError: no\n")
    assert not only_warnings("my own message\n/x.py:3: UserWarning: w\n  w()\n")
    # After a warning's source line, a plain line is not part of any warning.
    assert not only_warnings("/x.py:3: UserWarning: w\n  w()\nI failed\n")
