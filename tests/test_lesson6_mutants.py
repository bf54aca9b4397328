"""Lesson 6: the mistakes make mutants generated (issue 29), each named by the visible check and by the grader
with the same hint: the reference's source with one piece replaced, as a learner would write it."""
import pytest

from attn_course.checks import lesson6 as checks
from attn_course.probes import lesson6 as probes
from attn_course.validate import CheckFailed
from conftest import check_names, fails, fails_with, reference


def _edit(name, old, new):
    """The reference's function or class `name` with a piece of its source replaced (make mutants' mistakes, by
    hand), defined among the reference's own names."""
    import inspect
    import textwrap
    module = reference("lesson6")
    source = textwrap.dedent(inspect.getsource(getattr(module, name)))
    assert old in source, old
    obj = getattr(module, name)
    functions = [obj] if inspect.isfunction(obj) else [v for v in vars(obj).values() if inspect.isfunction(v)]
    namespace = dict(functions[0].__globals__)   # the module it is defined in (a shared one, say)
    exec(source.replace(old, new), namespace)  # noqa: S102 - the test's own edit of the reference
    return namespace[name]


TILED_MISTAKES = [
    ("kb, vb = k[:, :, start:start + block_size], v[:, :, start:start + block_size]",
     "vb, kb = k[:, :, start:start + block_size], v[:, :, start:start + block_size]", "hint_tiled_kv_swapped"),
    ("range(0, k.size(2), block_size)", "range(0, block_size, k.size(2))", "hint_tiled_tail"),
    ("p = torch.exp(s - m_new)", "p = torch.exp(s) - m_new", "hint_tiled_p"),
    ("scale = torch.exp(m - m_new)", "scale = torch.exp(m + m_new)", "hint_tiled_scale"),
    ("acc = acc * scale + p @ vb", "acc = acc * scale - p @ vb", "hint_tiled_update"),
    ("return acc / l", "return acc * l", "hint_tiled_final"),
    ("/ math.sqrt(D)", "/ D", "hint_scale_d_6"),
    ("range(0, k.size(2), block_size)", "range(0, k, block_size)", "hint_tiled_size"),
    # A Japanese learner's reading: no hint, or the wrong cause ("transpose K") before.
    ("m = m_new", "m = m", "hint_tiled_max_update"),
    ("acc = acc * scale + p @ vb", "acc = acc * scale + p @ kb", "hint_tiled_kv_swapped"),
    ("s.amax(dim=-1, keepdim=True)", "s.amax(dim=-2, keepdim=True)", "hint_tiled_row_axis"),
]


@pytest.mark.parametrize("old,new,hint", TILED_MISTAKES, ids=[m[2] for m in TILED_MISTAKES])
def test_tiled_formula_mistakes_are_named_alike(old, new, hint):
    """Each formula of the loop written wrong (make mutants: 23 of 79 caught without a hint) is named by the check
    and by the grader with the same hint."""
    fn = _edit("tiled_attention", old, new)
    check_names(checks.check_tiled_attention, fn, hint)
    got = fails(probes.tiled_attention, fn).hint
    assert (got[0] if isinstance(got, tuple) else got) == hint


GQA_MISTAKES = [
    ("self.n_head = expect_size(n_head, \"n_head\")", "self.heads = expect_size(n_head, \"n_head\")",
     "hint_gqa_attributes"),
    ("expect_tokens(x, self.embed_dim)", "expect_tokens(x, self.head_dim)", "hint_gqa_expect_tokens"),
    ("resolve_kv_groups(n_head, n_kv_head)", "resolve_kv_groups(n_kv_head, n_head)", "hint_gqa_init_args"),
    ("q = self.q_proj(x).view", "q = x.view", "hint_gqa_q_not_projected"),
    ("weights = torch.softmax(scores, dim=-1)", "weights = scores", "hint_no_softmax"),
    ("_merge(weights @ v)", "(weights @ v).transpose(1, 3).reshape(B, T, E)", "hint_merge_order_6"),
    ("return self.c_proj(_merge(weights @ v)), weights", "return weights, self.c_proj(_merge(weights @ v))",
     "hint_pair_order"),
    ("self.q_proj(x).view(B, T, self.n_head, self.head_dim).transpose(1, 2)",
     "self.q_proj(x).transpose(1, 2).view(B, T, self.n_head, self.head_dim)", "hint_gqa_shapes"),
    ("z.view(B, T, self.n_kv_head, self.head_dim)", "z.view(B, T, self.head_dim, self.head_dim)", "hint_gqa_sizes"),
    ("k, v = k.repeat_interleave(group", "k, v = k.repeat_interleave(self.n_head / self.n_kv_head", "hint_int_division"),
    # repeat_interleave(G): the heads' axis differs, as for a head split out of order; the hint names both now.
    ("group = self.n_head // self.n_kv_head", "group = self.n_kv_head", "hint_gqa_shapes"),
]


@pytest.mark.parametrize("old,new,hint", GQA_MISTAKES, ids=[m[2] for m in GQA_MISTAKES])
def test_gqa_mistakes_are_named_alike(old, new, hint):
    """make mutants' GQA mistakes (32 of 139 caught without a hint, 2 named apart): the check and the grader name
    each with the same hint."""
    cls = _edit("GroupedQueryAttention", old, new)
    fails_with(checks.check_gqa_module, cls, hint, **({"name": "GroupedQueryAttention.forward"}
                                                      if hint == "hint_pair_order" else {}))
    got = fails(probes.gqa, cls).hint
    assert (got[0] if isinstance(got, tuple) else got) == hint


CACHE_MISTAKES = [
    ("return attn.c_proj(merge_heads(torch.softmax(scores, dim=-1) @ v)), (k, v)",
     "return (k, v), attn.c_proj(merge_heads(torch.softmax(scores, dim=-1) @ v))", "hint_cache_return_order"),
    ("if cache is not None:", "if cache is None:", "hint_cache_none"),
    ("past = k.size(2) - T_new", "past = k - T_new", "hint_cache_past_tensor"),
    ("merge_heads(torch.softmax(scores, dim=-1) @ v)", "(torch.softmax(scores, dim=-1) @ v).reshape(B, T_new, E)",
     "hint_merge_order_6"),
    ("merge_heads(torch.softmax(scores, dim=-1) @ v)", "(torch.softmax(scores, dim=-1) @ v).transpose(1, 3).reshape(B, T_new, E)",
     "hint_merge_order_6"),
    ("torch.softmax(scores, dim=-1)", "torch.softmax(scores, dim=1)", "hint_softmax_axis"),
    ("torch.softmax(scores, dim=-1) @ v", "scores @ v", "hint_no_softmax"),
    ("tril(diagonal=past)", "tril(diagonal=past - 1)", "hint_cache_mask_diagonal"),
    ("past = k.size(2) - T_new", "past = 0 if cache is None else cache[0].size(1)", "hint_cache_past_axis"),
    ("E // H", "E / H", "hint_cache_float_dim"),
    # After the join: tril(diagonal=H - T_new), "no mask" at the check's prefill and "diagonal - 1" at the grader's
    # (make mutants: named apart); the later chunks tell them apart on both sides.
    ("past = k.size(2) - T_new", "past = k.size(1) - T_new", "hint_cache_past_axis"),
]


@pytest.mark.parametrize("old,new,hint", CACHE_MISTAKES, ids=[m[2] for m in CACHE_MISTAKES])
def test_cache_mistakes_are_named_alike(old, new, hint):
    """make mutants' KV-cache mistakes (16 of 93 caught without a hint): the check and the grader name each alike."""
    fn = _edit("attend_with_cache", old, new)
    check_names(checks.check_attend_with_cache, fn, hint)
    got = fails(probes.attend_with_cache, fn).hint
    assert (got[0] if isinstance(got, tuple) else got) == hint


def test_weights_and_values_multiplied_the_other_way_are_named_alike():
    """v @ weights runs where T = D (the check's sizes) and raises elsewhere (most of the grader's): both name it."""
    cls = _edit("GroupedQueryAttention", "_merge(weights @ v)", "_merge(v @ weights)")
    fails_with(checks.check_gqa_module, cls, "hint_gqa_shapes")
    assert fails(probes.gqa, cls, seed=1).hint == "hint_gqa_shapes"


def test_kv_proj_of_the_wrong_size_says_why_two_g_d():
    from attn_course.messages import t
    from attn_grader.verdict import localize
    cls = _edit("GroupedQueryAttention", "nn.Linear(embed_dim, 2 * n_kv_head * self.head_dim)",
                "nn.Linear(embed_dim, 2 * embed_dim)")
    failure = pytest.raises(CheckFailed, checks.check_gqa_module, cls).value
    assert t("why_kv_proj") in str(failure)
    mismatch = fails(probes.gqa, cls, key="hidden_layout")
    assert "2·G·D" in localize(mismatch, "ja") and "2·G·D" in localize(mismatch, "ko")
