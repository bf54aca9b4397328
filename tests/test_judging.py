"""attn_course.judging.verify, the visible check's half of an exercise's one procedure."""
import pytest
import torch

from attn_course.checks import lesson4 as checks
from attn_course.validate import CheckFailed
from test_lesson4 import gpt2_module


@pytest.mark.parametrize("bug", [None, "weights_after_dropout"])
def test_a_check_leaves_the_notebooks_random_stream_alone(bug, capsys):
    # The module's procedure seeds dropout to rebuild the right training output; the learner's next
    # torch.rand must draw what it would have drawn without the check.
    torch.manual_seed(5)
    expected = torch.rand(3)
    torch.manual_seed(5)
    try:
        checks.check_gpt2_module(gpt2_module(bug=bug))
    except CheckFailed:
        assert bug is not None
    assert torch.equal(torch.rand(3), expected)
