"""attn_course/by_hand.py: in a by-hand exercise, the library's attention refuses to run however it is reached.

Each attack is a learner's lesson-1 `attention` that hands back the library's output instead of its own,
by a path the old attribute swap did not expect. The visible check and the hidden test must both fail
it, and name the rule; the honest function must pass both; every guard must be down again afterwards,
so demo cells can call the library as before. tests/test_tamper_by_hand.py grades the same attacks.
"""
import math
import sys
import threading

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.functional import scaled_dot_product_attention as sdpa_alias

import attn_course as course
from attn_course.validate import CheckFailed
from attn_course import by_hand
from attn_course.checks import lesson1 as checks
from attn_course.probes import lesson1 as probes
from conftest import fails, fails_with, passes


def scores(Q, K):
    return Q @ K.transpose(-2, -1) / math.sqrt(Q.size(-1))


def softmax_last(s):
    e = (s - s.amax(-1, keepdim=True)).exp()
    return e / e.sum(-1, keepdim=True)


def honest(Q, K, V):
    course.expect_qkv(Q, K, V)
    weights = softmax_last(scores(Q, K))
    return weights @ V, weights


def returning(output):
    """An `attention` whose weights are the learner's own and whose output comes from `output`."""
    def attention(Q, K, V):
        return output(Q, K, V), softmax_last(scores(Q, K))
    return attention


def _in_a_thread(Q, K, V):
    out = []
    worker = threading.Thread(target=lambda: out.append(F.scaled_dot_product_attention(Q, K, V)))
    worker.start()
    worker.join()
    return out[0] if out else honest(Q, K, V)[0]


def _mha(Q, K, V):
    mha = nn.MultiheadAttention(Q.size(-1), 1, bias=False, batch_first=True).to(Q.dtype)
    mha(Q, K, V)
    return honest(Q, K, V)[0]


def _caught(Q, K, V):
    try:
        return F.scaled_dot_product_attention(Q, K, V)
    except Exception:  # noqa: BLE001 - the learner's code swallows the refusal: it still counts
        return honest(Q, K, V)[0]


def _flex(Q, K, V):
    from torch.nn.attention.flex_attention import flex_attention
    return flex_attention(Q[:, None], K[:, None], V[:, None])[:, 0]


def _default(Q, K, V, attend=F.scaled_dot_product_attention):
    return attend(Q, K, V)


_RAW = torch.ops.aten._scaled_dot_product_attention_math.default._op  # aten's own handle: it has no name

ATTACKS = {
    "F.scaled_dot_product_attention": (lambda Q, K, V: F.scaled_dot_product_attention(Q, K, V), "hint_from_scratch"),
    "an alias imported earlier": (lambda Q, K, V: sdpa_alias(Q, K, V), "hint_from_scratch"),
    "torch.ops.aten": (lambda Q, K, V: torch.ops.aten.scaled_dot_product_attention(Q, K, V), "hint_from_scratch"),
    "torch.ops.aten's raw handle": (lambda Q, K, V: _RAW(Q, K, V)[0], "hint_from_scratch"),
    "torch._C._nn": (lambda Q, K, V: torch._C._nn.scaled_dot_product_attention(Q, K, V), "hint_from_scratch"),
    "a default argument": (_default, "hint_from_scratch"),
    "the refusal caught": (_caught, "hint_from_scratch"),
    "nn.MultiheadAttention": (_mha, "hint_from_scratch"),
    "flex_attention": (_flex, "hint_from_scratch"),
}


def test_a_thread_started_inside_is_refused(lang):
    # torch's function modes do not reach into a new thread: none of the learner's may start while the guard is up.
    fails_with(checks.check_attention, returning(_in_a_thread), "hint_by_hand_threads", name="attention")
    failure = fails(probes.attention, returning(_in_a_thread), key="hidden_by_hand_threads")
    assert failure.hint[0] == "hint_by_hand_threads"
    _guards_are_down()


def _guards_are_down():
    assert torch.backends.cuda.math_sdp_enabled() and torch.backends.cuda.flash_sdp_enabled()
    assert sys.getprofile() is None and threading.getprofile() is None
    assert torch._C._len_torch_function_stack() == 0
    q = torch.randn(1, 2, 3, 4)
    F.scaled_dot_product_attention(q, q, q)  # a demo cell after the check still calls the library


def test_honest_code_passes(lang):
    checks.check_attention(honest)
    passes(probes.attention, honest)
    _guards_are_down()


@pytest.mark.parametrize("attack", sorted(ATTACKS))
def test_attack_fails_visible_and_hidden(lang, attack):
    output, hint = ATTACKS[attack]
    fails_with(checks.check_attention, returning(output), hint, name="attention")
    failure = fails(probes.attention, returning(output), key="hidden_by_hand")
    assert failure.hint == (hint, {"name": "attention"})
    _guards_are_down()


def test_softmax_family_only_where_declared(lang):
    # Lesson 1 ex3 forbids torch's softmax; ex4 (attention) may use it.
    fails_with(checks.check_softmax, lambda s: torch.softmax(s, -1), "hint_softmax_by_hand", name="softmax_last")
    checks.check_attention(lambda Q, K, V: (torch.softmax(scores(Q, K), -1) @ V, torch.softmax(scores(Q, K), -1)))


def test_results_without_the_guards_record_fail(monkeypatch):
    # A probe that ran without its guards (the learner's code replaced the course's) sends no record.
    from attn_grader.verdict import decide
    from conftest import REFERENCE
    from attn_course.probes import SEED_ENV
    monkeypatch.setenv(SEED_ENV, "7")
    payload = probes.attention.record(honest)
    assert payload["by_hand"] == {"calls": 3, "intact": True}
    assert decide(REFERENCE, 7, "lesson1.attention", payload) is None
    for forged in (None, {"calls": 3, "intact": False}, {"calls": 0, "intact": True}, {"calls": "3", "intact": True}):
        bad = {k: v for k, v in payload.items() if k != "by_hand"} | ({"by_hand": forged} if forged else {})
        assert decide(REFERENCE, 7, "lesson1.attention", bad).key == "hidden_by_hand_unproven"


def test_library_path_may_call_the_library(lang):
    # Lesson 3 ex6: use_sdpa=True is the library's path, by keyword or by position; use_sdpa=False is by hand.
    rule = by_hand.PROBE_RULES["lesson3.module"]
    assert rule.library_path == ("use_sdpa", True)

    class Module(nn.Module):
        def forward(self, x, lengths=None, use_sdpa=False):
            return x
    assert rule.exempts(Module(), (torch.zeros(1), None, True), {})
    assert rule.exempts(Module(), (torch.zeros(1),), {"use_sdpa": True})
    assert not rule.exempts(Module(), (torch.zeros(1),), {})


def test_the_declarations_come_from_the_lesson_sources():
    # lesson 3 ex6 and lesson 7 ex8 were by hand to the probes but missing from the scan's own list.
    assert "ex6_causal_module" in by_hand.RULES["03_masks"]
    assert "ex8_cross_attention" in by_hand.RULES["07_positions"]
    assert by_hand.RULES["01_attention"]["ex3_softmax_last"] == (("attention", "softmax"), None)
    assert "lesson7.cross_attention" in by_hand.PROBE_RULES and "lesson7.check_cross_attention" in by_hand.CHECK_RULES
    assert "lesson2.to_torch_mha" not in by_hand.PROBE_RULES  # meant to call the library


def test_refused_names_are_every_name_of_the_family():
    from attn_course.hand_policy import family_of
    for name in ("scaled_dot_product_attention", "multi_head_attention_forward", "_native_multi_head_attention",
                 "flex_attention", "_scaled_dot_product_flash_attention_for_cpu", "MultiheadAttention"):
        assert family_of(name, ("attention",)) == "attention", name
    for name in ("stack", "trace", "einsum", "matmul", "bmm", "tril", "masked_fill"):
        assert family_of(name, ("attention", "softmax")) is None, name


def test_lesson3_hand_path_may_not_call_sdpa(lang):
    # The issue's first row: SDPA in ex6's use_sdpa=False path passed the visible check and lost 5 points.
    from attn_course.checks import lesson3 as checks3
    from attn_course.probes import lesson3 as probes3
    from conftest import reference
    ref = reference("lesson3")

    class Delegates(ref.CausalSelfAttention):
        def forward(self, x, lengths=None, use_sdpa=False):
            return super().forward(x, lengths, use_sdpa=True)
    checks3.check_causal_module(ref.CausalSelfAttention)
    # The text lets use_sdpa=True call the library: the hint says so (a Japanese learner's reading of lesson 6).
    fails_with(checks3.check_causal_module, Delegates, "hint_from_scratch_path", name="CausalSelfAttention",
               path="use_sdpa=True")
    assert fails(probes3.module, Delegates, key="hidden_by_hand").hint[0] == "hint_from_scratch_path"
    _guards_are_down()


# --------------------------------------------------------------------------- paths the red team found
@torch.jit.script
def _scripted(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor):
    return torch.ops.aten._scaled_dot_product_attention_math(q, k, v)[0]


def _warm_pool():
    from concurrent.futures import ThreadPoolExecutor
    pool = ThreadPoolExecutor(1)
    pool.submit(lambda: None).result()  # started before the guards go up
    return pool


def test_a_thread_started_earlier_is_refused(lang, monkeypatch):
    monkeypatch.setattr(by_hand, "in_kernel", lambda: True)   # in a test run, threads are the tests' own
    pool = _warm_pool()
    try:
        attack = returning(lambda Q, K, V: pool.submit(torch.ops.aten._scaled_dot_product_attention_math, Q, K, V)
                           .result()[0])
        fails_with(checks.check_attention, attack, "hint_by_hand_threads")
        assert fails(probes.attention, attack).key == "hidden_by_hand_threads"
    finally:
        pool.shutdown()
    checks.check_attention(honest)   # the pool is gone: nothing of the learner's runs beside the check
    _guards_are_down()


OUTSIDE_THE_MODE = {  # the function mode does not see these: the policy, read from the cells, does
    "torch functions disabled": ("def off(Q, K, V):\n    with torch._C.DisableTorchFunction():\n"
                                 "        return F.scaled_dot_product_attention(Q, K, V)", "off(Q, K, V)"),
    "the function mode popped": ("def popped(Q, K, V):\n    mode = torch._C._pop_torch_function_stack()\n"
                                 "    try:\n        return F.scaled_dot_product_attention(Q, K, V)\n"
                                 "    finally:\n        torch._C._push_on_torch_function_stack(mode)",
                                 "popped(Q, K, V)"),
    "the course's checks through importlib": ("import importlib\ndef answer(Q, K, V):\n"
                                              "    m = importlib.import_module('attn_course.checks.' + 'lesson1')\n"
                                              "    return m.right_scores(Q, K).softmax(-1) @ V", "answer(Q, K, V)"),
    "frames walked": ("import inspect\ndef framed(Q, K, V):\n    inspect.currentframe().f_back.f_locals.get('self')\n"
                      "    return F.scaled_dot_product_attention(Q, K, V)", "framed(Q, K, V)"),
    "the guard's state through sys.getprofile": ("import sys\nhook = sys.getprofile()", "w @ V"),
    "a TorchScript function of aten's math kernel": (
        "@torch.jit.script\ndef fused(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor):\n"
        "    return torch.ops.aten._scaled_dot_product_attention_math(q, k, v)[0]", "fused(Q, K, V)"),
    "aten's math kernel through map, with torch functions disabled": (
        "def mapped(Q, K, V):\n    with torch._C.DisableTorchFunction():\n"
        "        return next(map(torch._scaled_dot_product_attention_math, [Q], [K], [V]))[0]", "mapped(Q, K, V)"),
    "aten's raw handle": ("RAW = torch.ops.aten._scaled_dot_product_attention_math.default._op", "RAW(Q, K, V)[0]"),
}


@pytest.mark.parametrize("attack", sorted(OUTSIDE_THE_MODE))
def test_attack_outside_the_function_mode_is_shown_by_the_policy(lang, attack, monkeypatch):
    from attn_course.hand_policy import Cell
    helper, call = OUTSIDE_THE_MODE[attack]
    monkeypatch.setattr(by_hand, "history", lambda: [
        Cell("In [1]", "import math\nimport torch\nimport torch.nn.functional as F", True),
        Cell("In [2]", helper, False),
        Cell("In [3]", f"def attention(Q, K, V):\n    w = (Q @ K.mT / math.sqrt(Q.size(-1))).softmax(-1)\n"
                       f"    return {call}, w", False)])
    with pytest.raises(CheckFailed):
        checks.check_attention(_named_attention())
    _guards_are_down()


def _named_attention():
    def attention(Q, K, V):
        return honest(Q, K, V)
    return attention


def test_softmax_through_cross_entropy_or_logsumexp_is_refused(lang):
    def by_cross_entropy(s):
        flat = s.reshape(-1, s.size(-1))
        classes = torch.arange(s.size(-1)).repeat(flat.size(0))
        rows = flat.repeat_interleave(s.size(-1), 0)
        return torch.exp(-F.cross_entropy(rows, classes, reduction="none")).reshape(s.shape)

    def by_logsumexp(s):
        return torch.exp(s - s.logsumexp(-1, keepdim=True))
    for library in (by_cross_entropy, by_logsumexp):
        fails_with(checks.check_softmax, library, "hint_softmax_by_hand", name="softmax_last")


def test_a_forward_property_does_not_run_outside_the_guards(lang):
    # Lesson 3's library path is read from the class, without calling the learner's code.
    from conftest import reference
    ref = reference("lesson3")
    ran = []

    class Sneaky(ref.CausalSelfAttention):
        @property
        def forward(self):
            ran.append(by_hand.current() is not None and sys.getprofile() is not None)
            return super().forward
    module = Sneaky(8, 2, 4, max_len=8)
    assert not by_hand.PROBE_RULES["lesson3.module"].exempts(module, (torch.zeros(1, 2, 8),), {"use_sdpa": None})
    assert ran == []


def test_a_lazy_result_in_a_tuple_subclass_is_refused(lang):
    class Pair(tuple):
        pass
    fails_with(checks.check_attention, lambda Q, K, V: Pair(honest(Q, K, V)), "tensor_subclass", name="attention")


def test_a_library_helper_that_is_no_attention_may_be_called(lang):
    # nn.Transformer's mask helper builds a -inf triangle; it does not attend, so a by-hand exercise may use it.
    def masked(Q, K, V):
        mask = torch.nn.Transformer.generate_square_subsequent_mask(Q.size(-2))
        return honest(Q, K, V)[0] + 0 * mask.isinf().sum(), honest(Q, K, V)[1]
    checks.check_attention(masked)
    _guards_are_down()


def test_the_visible_check_called_in_the_exercise_cell_passes(lang, monkeypatch):
    from attn_course.hand_policy import Cell
    monkeypatch.setattr(by_hand, "history", lambda: [
        Cell("In [1]", "import math\nimport torch\nimport attn_course as course", True),
        Cell("In [2]", "def attention(Q, K, V):\n    w = (Q @ K.mT / math.sqrt(Q.size(-1))).softmax(-1)\n"
                       "    return w @ V, w\ncourse.checks.lesson1.check_attention(attention)", False)])
    checks.check_attention(_named_attention())
