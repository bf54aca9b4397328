"""Input validation and messages every lesson shares: localized errors, both languages, the same fields."""
import re
import string

import pytest
import torch

import attn_course as course
from attn_course import messages
from attn_course.messages import MESSAGES, t
from test_lesson1 import AttentionOK

# --------------------------------------------------------------------------- bad input
def test_bad_input_gets_a_localized_error(lang):
    with pytest.raises(ValueError, match=re.escape(t("embed_mismatch", want=8, got=5, shape=(2, 6, 5)))):
        AttentionOK(8, 4)(torch.randn(2, 6, 5))
    with pytest.raises(ValueError) as info:
        AttentionOK(8, 4)(torch.randn(6, 8))
    assert "(B, T, E)" in str(info.value)
    with pytest.raises(ValueError, match=re.escape(t("qk_dim_mismatch", dq=4, dk=3))):
        course.expect_qkv(torch.randn(2, 5, 4), torch.randn(2, 5, 3))
    with pytest.raises(ValueError, match=re.escape(t("kv_len_mismatch", tk=5, tv=6))):
        course.expect_qkv(torch.randn(2, 5, 4), torch.randn(2, 5, 4), torch.randn(2, 6, 4))
    with pytest.raises(ValueError):
        course.expect_qkv(torch.randn(2, 5, 4), torch.randn(3, 5, 4))
    with pytest.raises(ValueError):
        course.expect_size(0, "key_dim")
    with pytest.raises(ValueError):
        course.AttentionExplorer(torch.rand(3, 3), ["a", "b"])


def test_unknown_language_is_refused_in_both_languages():
    with pytest.raises(ValueError) as info:
        messages.set_language("en")
    assert "言語" in str(info.value) and "언어" in str(info.value)


def test_every_message_exists_in_both_languages_with_the_same_fields():
    fields = lambda s: sorted(f for _, f, _, _ in string.Formatter().parse(s) if f)  # noqa: E731
    for key, texts in MESSAGES.items():
        assert set(texts) == {"ja", "ko"}, key
        assert texts["ja"].strip() and texts["ko"].strip(), key
        assert fields(texts["ja"]) == fields(texts["ko"]), key
