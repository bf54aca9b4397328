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


def _softmax_in_float32(cls):
    class Mine(cls):
        def forward(self, x, use_sdpa=False):
            B, T, E = x.shape
            q, k, v = (z.view(B, T, self.n_head, -1).transpose(1, 2) for z in self.c_attn(x).split(E, dim=2))
            weights = (q @ k.mT / self.head_dim ** 0.5).masked_fill(~self.causal[:T, :T], float("-inf"))
            weights = weights.float().softmax(dim=-1)
            return self.c_proj((weights @ v).transpose(1, 2).reshape(B, T, E)), weights
    return Mine


def _scaled_in_place(cls):
    class Mine(cls):
        def forward(self, x, use_sdpa=False):
            B, T, E = x.shape
            q, k, v = (z.view(B, T, self.n_head, -1).transpose(1, 2) for z in self.c_attn(x).split(E, dim=2))
            q /= self.head_dim ** 0.5
            weights = (q @ k.mT).masked_fill(~self.causal[:T, :T], float("-inf")).softmax(dim=-1)
            return self.c_proj((weights @ v).transpose(1, 2).reshape(B, T, E)), weights
    return Mine


@pytest.mark.parametrize("bug,gloss", [(_softmax_in_float32, "error_gloss_dtype"),
                                       (_scaled_in_place, "error_gloss_inplace_view")])
def test_english_errors_a_learner_met_are_explained_on_both_sides(lang, bug, gloss):
    from attn_course.probes import lesson4 as probes
    from attn_grader.verdict import localize
    from conftest import judged
    from attn_course.messages import t
    mine = bug(gpt2_module())
    with pytest.raises(CheckFailed) as failure:
        checks.check_gpt2_module(mine)
    part = t(gloss, error="", op="", a="", b="")[-24:]   # the gloss's closing words, in the learner's language
    assert part in failure.value.message, failure.value.message
    assert part in localize(judged(probes.module, mine), lang)
