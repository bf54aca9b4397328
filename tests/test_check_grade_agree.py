"""✔ in the notebook means full marks, ✘ means lost points (issue 40), for lessons 1, 3 and 7: answers written for
the classes the checks and the grader once parted on (a size the notebook binds, a detach, .data, torch.no_grad(),
another dtype, a mask on the CPU, a softmax without the row max, a buffer of 32), and right answers written another
way. Each is run through the visible check and judged as the grader judges it under five learners' seeds: the same
verdict on every seed, the check's."""
import contextlib
import io
import math

import pytest
import torch

from attn_course import messages
from attn_course.checks import lesson1 as c1
from attn_course.checks import lesson3 as c3
from attn_course.checks import lesson7 as c7
from attn_course.probes import lesson1 as p1
from attn_course.probes import lesson3 as p3
from attn_course.probes import lesson7 as p7
from attn_course.validate import CheckFailed
from conftest import judged, reference

SEEDS = [11, 22, 33, 44, 55]
SCORES = "def f(Q, K):\n    return {}\n"
SOFTMAX = "def f(s):\n{}\n"
ATTENTION = "def f(Q, K, V):\n{}\n"
MODULE_1 = "class M(r1.Attention):\n    def forward(self, x):\n{}\n"
MODULE_3 = "class M(r3.CausalSelfAttention):\n    def forward(self, x, lengths=None, use_sdpa=False):\n{}\n"
SHIFT = "    e = torch.exp(s - s.amax(-1, keepdim=True){})\n    return e / e.sum(-1, keepdim=True)"
# (exercise, the answer's source, the notebook's globals it runs with, whether it is right)
ANSWERS = {
    "scores_detached": ("scores", SCORES.format("(Q @ K.transpose(-2, -1) / math.sqrt(Q.size(-1))).detach()"),
                        {}, False),
    "scores_data": ("scores", SCORES.format("Q.data @ K.transpose(-2, -1) / math.sqrt(Q.size(-1))"), {}, False),
    "scores_global_4": ("scores", SCORES.format("Q @ K.transpose(-2, -1) / math.sqrt(d_k)"), {"d_k": 4}, False),
    "scores_global_64": ("scores", SCORES.format("Q @ K.transpose(-2, -1) / math.sqrt(d_k)"), {"d_k": 64}, False),
    "scores_shape_2": ("scores", SCORES.format("Q @ K.transpose(-2, -1) / math.sqrt(Q.shape[2])"), {}, False),
    "scores_double": ("scores", SCORES.format("Q.double() @ K.double().mT / math.sqrt(Q.size(-1))"), {}, False),
    "scores_power": ("scores", SCORES.format("Q @ K.mT * Q.size(-1) ** -0.5"), {}, True),
    "softmax_float32": ("softmax", SOFTMAX.format(SHIFT.replace("s - s.amax(-1, keepdim=True){}",
                                                                "(s - s.amax(-1, keepdim=True)).float()")), {}, False),
    "softmax_zeros": ("softmax", SOFTMAX.format("    out = torch.zeros(s.shape)\n" + SHIFT.format("").replace(
        "    return e / e.sum(-1, keepdim=True)", "    out[:] = e / e.sum(-1, keepdim=True)\n    return out")),
        {}, False),
    "softmax_detached": ("softmax", SOFTMAX.format(SHIFT.replace("s - s.amax", "s.detach() - s.amax")
                                                   .format("")), {}, False),
    "softmax_no_grad": ("softmax", SOFTMAX.format("    with torch.no_grad():\n" + SHIFT.format("").replace(
        "\n", "\n    ").replace("    e =", "        e =", 1)), {}, False),
    "softmax_max_detached": ("softmax", SOFTMAX.format(SHIFT.format(".detach()")), {}, True),
    "attention_no_grad": ("attention", ATTENTION.format("    with torch.no_grad():\n        w = softmax_last("
                                                        "attention_scores(Q, K))\n    return w @ V, w"), {}, False),
    "attention_v_detached": ("attention", ATTENTION.format("    w = softmax_last(attention_scores(Q, K))\n"
                                                           "    return w @ V.detach(), w"), {}, False),
    "attention_global_512": ("attention", ATTENTION.format("    w = softmax_last(Q @ K.mT / math.sqrt(d_k))\n"
                                                           "    return w @ V, w"), {"d_k": 512}, False),
    "attention_float32": ("attention", ATTENTION.format("    w = softmax_last(attention_scores(Q, K)).float()\n"
                                                        "    return (w @ V.float()).to(V.dtype), w"), {}, False),
    "module_x_detached": ("Attention", MODULE_1.format("        return super().forward(x.detach())"), {}, False),
    "module_w_o_no_grad": ("Attention", MODULE_1.format(
        "        y, w = attention(self.W_q(x), self.W_k(x), self.W_v(x))\n        with torch.no_grad():\n"
        "            out = self.W_o(y)\n        return out, w"), {}, False),
    "module_weight_data": ("Attention", MODULE_1.format(
        "        y, w = attention(x @ self.W_q.weight.data.T, self.W_k(x), self.W_v(x))\n"
        "        return self.W_o(y), w"), {}, False),
    "module_float32": ("Attention", MODULE_1.format("        y, w = super().forward(x)\n        return y.float(), w"),
                       {}, False),
    "causal_x_detached": ("CausalSelfAttention", MODULE_3.format(
        "        return super().forward(x.detach(), lengths, use_sdpa)"), {}, False),
    "causal_no_grad": ("CausalSelfAttention", MODULE_3.format(
        "        with torch.no_grad():\n            return super().forward(x, lengths, use_sdpa)"), {}, False),
    "causal_weights_detached": ("CausalSelfAttention", MODULE_3.format(
        "        y, w = super().forward(x, lengths, use_sdpa)\n        return y, (w if w is None else w.detach())"),
        {}, False),
    "mask_on_cpu": ("causal_mask", "def f(T, device=None):\n    return torch.ones(T, T, dtype=torch.bool).tril()\n",
                    {}, False),
    "mask_by_arange": ("causal_mask", "def f(T, device=None):\n    i = torch.arange(T, device=device)\n"
                       "    return i[:, None] >= i\n", {}, True),
    "safe_softmax_no_row_max": ("safe_softmax", "def f(s):\n    e = s.exp()\n"
                                "    return (e / e.sum(-1, keepdim=True)).nan_to_num(0.0)\n", {}, False),
    "safe_softmax_row_max": ("safe_softmax", "def f(s):\n    e = (s - s.max(-1, keepdim=True).values).exp()\n"
                             "    return (e / e.sum(-1, keepdim=True)).nan_to_num(0.0)\n", {}, True),
    "causal_buffer_of_32": ("CausalSelfAttention", "class M(r3.CausalSelfAttention):\n"
                            "    def __init__(self, embed_dim, n_head, head_dim=None, dropout=0.0, max_len=32):\n"
                            "        super().__init__(embed_dim, n_head, head_dim, dropout, max_len)\n"
                            "        self.register_buffer('causal', r3.causal_mask(32), persistent=False)\n",
                            {}, False),
    "padding_on_cpu": ("padding_keep", "def f(lengths, T):\n    return torch.arange(T) < lengths[:, None]\n", {},
                       False),
    "padding_by_where": ("padding_keep", "def f(lengths, T):\n    t = torch.arange(T, device=lengths.device)\n"
                         "    return torch.where(t < lengths[:, None], True, False)\n", {}, True),
    "safe_softmax_float32": ("safe_softmax", "def f(s):\n    return torch.softmax(s.float(), -1).nan_to_num(0.0)\n",
                             {}, False),
}
# Lesson 7: apply_rope and CrossAttention's gradients and float32 (✔, then 0 with no cause), sizes its notebook binds.
ROPE = ("def f(q, k, positions, base=10000.0):\n    D = q.size(-1)\n"
        "    inv_freq = base ** (-torch.arange(0, D, 2, dtype=torch.float64, device=q.device) / D)\n"
        "    angles = positions.to(q.device, torch.float64)[:, None] * inv_freq\n"
        "    emb = torch.cat([angles, angles], dim=-1)\n"
        "    cos, sin = emb.cos().to(q.dtype), emb.sin().to(q.dtype)\n"
        "    half = lambda x: torch.cat([-x[..., D // 2:], x[..., :D // 2]], dim=-1)\n"
        "    return q * cos + half(q) * sin, k * cos + half(k) * sin\n")
CROSS = "class M(r7.CrossAttention):\n    def forward(self, x, memory, key_padding_mask=None):\n{}\n"
ANSWERS.update({
    "rope_detached": ("apply_rope", ROPE.replace("    return q *", "    q, k = q.detach(), k.detach()\n    return q *"),
                      {}, False),
    "rope_no_grad": ("apply_rope", ROPE.replace("    return q *", "    with torch.no_grad():\n        return q *"), {},
                     False),
    "rope_tables_float32": ("apply_rope", ROPE.replace("dtype=torch.float64, ", "").replace(
        "positions.to(q.device, torch.float64)", "positions.to(q.device).float()"), {}, True),
    "rope_global_head_dim": ("apply_rope", ROPE.replace("D = q.size(-1)", "D = D_"), {"D_": 16}, False),
    "pe_global_width": ("sinusoidal_positions", "def f(T, E, base=10000.0, device=None):\n"
                        "    p = torch.arange(T, device=device).float()[:, None]\n"
                        "    w = base ** (-torch.arange(0, E_pe, 2, device=device).float() / E_pe)\n"
                        "    return torch.stack([(p * w).sin(), (p * w).cos()], -1).flatten(-2)\n",
                        {"E_pe": 16}, False),
    "cross_x_detached": ("CrossAttention", CROSS.format(
        "        return super().forward(x.detach(), memory, key_padding_mask)"), {}, False),
    "cross_no_grad": ("CrossAttention", CROSS.format("        with torch.no_grad():\n"
                                                     "            return super().forward(x, memory, key_padding_mask)"),
                      {}, False),
    "cross_out_float64": ("CrossAttention", CROSS.format("        y, w = super().forward(x, memory, key_padding_mask)\n"
                                                         "        return y.double(), w"), {}, False),
})
EXERCISES = {"scores": (c1.check_attention_scores, p1.attention_scores),
             "softmax": (c1.check_softmax, p1.softmax_last), "attention": (c1.check_attention, p1.attention),
             "Attention": (c1.check_attention_module, p1.attention_module),
             "causal_mask": (c3.check_causal_mask, p3.causal_mask), "safe_softmax": (c3.check_safe_softmax,
                                                                                     p3.safe_softmax),
             "CausalSelfAttention": (c3.check_causal_module, p3.module),
             "padding_keep": (c3.check_padding_keep, p3.padding_keep),
             "apply_rope": (c7.check_apply_rope, p7.apply_rope),
             "sinusoidal_positions": (c7.check_sinusoidal_positions, p7.sinusoidal_positions),
             "CrossAttention": (c7.check_cross_attention, p7.cross_attention)}


def _define(source: str, **notebook_globals):
    """The answer as a notebook defines it: at top level, beside the notebook's globals and earlier answers."""
    r1, r3 = reference("lesson1"), reference("lesson3")
    space = {"math": math, "torch": torch, "__name__": "__main__", "r1": r1, "r3": r3, "r7": reference("lesson7"),
             "softmax_last": r1.softmax_last, "attention_scores": r1.attention_scores, "attention": r1.attention,
             **notebook_globals}
    exec(source, space)  # noqa: S102 - the test's own source
    return space["M" if source.startswith("class") else "f"]


@pytest.mark.parametrize("answer", sorted(ANSWERS))
def test_the_check_and_the_grade_agree(answer):
    messages.set_language("ja")
    exercise, source, notebook_globals, right = ANSWERS[answer]
    check, probe = EXERCISES[exercise]
    code = _define(source, **notebook_globals)
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            check(code)
        ticked = True
    except CheckFailed:
        ticked = False
    verdicts = [judged(probe, code, seed=seed) for seed in SEEDS]
    assert ticked == right, answer
    if right:
        assert verdicts == [None] * len(SEEDS), [v.key for v in verdicts if v]
    else:   # lost points on every seed, each with a likely cause named
        assert all(v is not None and v.hint for v in verdicts), [(v.key, v.hint) if v else None for v in verdicts]
