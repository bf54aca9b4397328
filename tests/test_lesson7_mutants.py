"""Lesson 7: mistakes `make mutants` made in the solution that the checks did not name, or named apart from the
grader (issue 29), each named now by the visible check and the hidden test alike."""
import math

import pytest
import torch

from attn_course.checks import lesson7 as checks
from attn_course.messages import t
from attn_course.probes import lesson4 as probes4
from attn_course.probes import lesson7 as probes
from attn_course.validate import CheckFailed
from conftest import fails, fails_with, reference


def mutant(solution: str, old: str, new: str, name: str):
    """The solution's `name` with old replaced by new (once): a mutant as make mutants makes it."""
    import attn_course as course
    assert old in solution
    namespace = {"torch": torch, "nn": torch.nn, "F": torch.nn.functional, "math": math, "course": course}
    exec(solution.replace(old, new, 1), namespace)
    return namespace[name]


# --------------------------------------------------------------------------- exercise 2: no hint before
# Named from where the table is wrong: values past ±1, the sine or the cosine columns, the angle, a broadcast.
PE_SOLUTION = """
def sinusoidal_positions(T, E, base=10000.0, device=None):
    position = torch.arange(T, device=device).float()[:, None]             # (T, 1)
    omega = base ** (-torch.arange(0, E, 2, device=device).float() / E)    # (E/2,)
    pe = torch.zeros(T, E, device=device)
    pe[:, 0::2] = torch.sin(position * omega)
    pe[:, 1::2] = torch.cos(position * omega)
    return pe
"""
SIN, COS, OMEGA = "torch.sin(position * omega)", "torch.cos(position * omega)", "float() / E)"
PE_MUTANTS = [
    (SIN, "torch.sin(position) * omega", "hint_pe_sin_columns"), (SIN, "torch.sin(position / omega)", "hint_pe_sin_columns"),
    (COS, "torch.cos(position) * omega", "hint_pe_cos_columns"), (COS, "torch.cos(position / omega)", "hint_pe_cos_columns"),
    (SIN, "(position * omega)", "hint_pe_unbounded"), (COS, "(position * omega)", "hint_pe_unbounded"),
    (OMEGA, "float() * E)", "hint_pe_angle"), (OMEGA, "float() // E)", "hint_pe_angle"),
    ("-torch.arange(0, E, 2, device=device).float() / E", "E / -torch.arange(0, E, 2, device=device).float()",
     "hint_pe_angle"), ("torch.arange(0, E, 2, device=device)", "torch.arange(0, 2, E, device=device)", "hint_pe_angle"),
    ("float()[:, None]", "float()", "hint_pe_broadcast"), ("float()[:, None]", "float()[None]", "hint_pe_broadcast"),
    ("pe[:, 0::2] = torch.sin", "pe[0::2] = torch.sin", "hint_pe_broadcast"),
    # this round: the table replaced by its cosine half; torch.float called as a function
    ("pe[:, 1::2] = torch.cos", "pe = torch.cos", "hint_pe_half_table"),
    ("torch.arange(T, device=device).float()", "torch.float().arange(T, device=device)", "hint_pe_float_call"),
]


@pytest.mark.parametrize("old,new,hint", PE_MUTANTS)
def test_sinusoidal_positions_generated_mistakes_are_named(lang, old, new, hint):
    fn = mutant(PE_SOLUTION, old, new, "sinusoidal_positions")
    fails_with(checks.check_sinusoidal_positions, fn, hint)
    assert fails(probes.sinusoidal_positions, fn).hint == hint


# --------------------------------------------------------------------------- exercise 3: the hints disagreed
@pytest.mark.parametrize("half", [0, 1])
def test_apply_rope_float64_output_is_named_a_dtype_mistake_by_both(lang, half):
    """`emb.cos()` without `.to(q.dtype)`: the visible check said dtype, the grader said "base ignored" (its
    variants are compared by value)."""
    ref = reference("lesson7")

    def apply_rope(q, k, positions, base=10000.0):
        out = list(ref.apply_rope(q, k, positions, base))
        out[half] = out[half].double()
        return tuple(out)
    fails_with(checks.check_apply_rope, apply_rope, "hint_rope_dtype")
    assert fails(probes.apply_rope, apply_rope, key="hidden_dtype").hint == "hint_rope_dtype"


# --------------------------------------------------------------------------- exercise 7: `//` passed, no hint before
ALIBI_SOLUTION = """
def alibi_bias(n_head, T, device=None):
    n = 2 ** math.floor(math.log2(n_head))
    slopes = [2 ** (-8 * (h + 1) / n) for h in range(n)]
    slopes += [2 ** (-8 * (j + 1) / (2 * n)) for j in range(0, 2 * (n_head - n), 2)]
    m = torch.tensor(slopes, device=device)
    i = torch.arange(T, device=device)
    distance = (i[:, None] - i[None, :]).float()
    return -m[:, None, None] * distance
"""
FIRST, REST, RANGE = "(-8 * (h + 1) / n)", "(-8 * (j + 1) / (2 * n))", "range(0, 2 * (n_head - n), 2)"
ALIBI_MUTANTS = [
    # `//` in an exponent: whole at the lesson's H = 4 and 6 (it passed the visible check, then lost points)
    (FIRST, "(-8 * (h + 1) // n)", "hint_alibi_floor_div"), (REST, "(-8 * (j + 1) // (2 * n))", "hint_alibi_floor_div"),
    ("math.floor(math.log2(n_head))", "math.log2(n_head)", "hint_alibi_largest_power"),
    ("math.floor(math.log2(n_head))", "math.log2(math.floor(n_head))", "hint_alibi_largest_power"),
    ("math.floor(math.log2(n_head))", "math.floor(n_head)", "hint_alibi_count"),
    (FIRST, "(-8 * h / n)", "hint_alibi_start"),  # the planted alibi_slope_start: the first n slopes only
    (FIRST, "(n / (-8 * (h + 1)))", "hint_alibi_slopes_first"), (FIRST, "(-8 * (h + 1) * n)", "hint_alibi_slopes_first"),
    (FIRST, "(-8 / (h + 1) / n)", "hint_alibi_slopes_first"), (FIRST, "(-8 * (h - 1) / n)", "hint_alibi_slopes_first"),
    (REST, "((2 * n) / (-8 * (j + 1)))", "hint_alibi_slopes_rest"), (REST, "(-8 * (j + 1) * (2 * n))", "hint_alibi_slopes_rest"),
    (REST, "(-8 * (j - 1) / (2 * n))", "hint_alibi_slopes_rest"), (REST, "(-8 * (j + 1) / (2 / n))", "hint_alibi_slopes_rest"),
    (RANGE, "range(2 * (n_head - n), 0, 2)", "hint_alibi_count"), (RANGE, "range(0, 2, 2 * (n_head - n))", "hint_alibi_count"),
    (RANGE, "range(0, 2 / (n_head - n), 2)", "hint_alibi_count"), (RANGE, "range(0, 2 * (n - n_head), 2)", "hint_alibi_count"),
    (RANGE, "range(0, 2 * (n_head + n), 2)", "hint_alibi_count"),
    ("(i[:, None] - i[None, :])", "(i[:, None] + i[None, :])", "hint_alibi_distance"),
    ("-m[:, None, None] * distance", "-m[:, None, None] / distance", "hint_alibi_distance"),
    ("(i[:, None] - i[None, :])", "(i - i[None, :])", "hint_alibi_broadcast"),
    ("-m[:, None, None] * distance", "-m * distance", "hint_alibi_broadcast"),
    ("-m[:, None, None] * distance", "-m[:, None] * distance", "hint_alibi_broadcast"),
    ("(i[:, None] - i[None, :])", "(i[None, :] - i[:, None])", "hint_alibi_sign"),
]


@pytest.mark.parametrize("old,new,hint", ALIBI_MUTANTS)
def test_alibi_bias_generated_mistakes_are_named_alike(lang, old, new, hint):
    fn = mutant(ALIBI_SOLUTION, old, new, "alibi_bias")
    fails_with(checks.check_alibi_bias, fn, hint)
    assert fails(probes.alibi_bias, fn).hint == hint


def test_alibi_bias_floor_division_is_caught_on_every_grading_seed():
    fn = mutant(ALIBI_SOLUTION, FIRST, "(-8 * (h + 1) // n)", "alibi_bias")
    for seed in range(5):
        assert fails(probes.alibi_bias, fn, seed=seed).hint == "hint_alibi_floor_div"


# --------------------------------------------------------------------------- exercise 8: no hint, or named apart
CROSS_SOLUTION = """
class CrossAttention(nn.Module):
    def __init__(self, embed_dim, n_head):
        super().__init__()
        self.embed_dim, self.n_head = embed_dim, n_head
        self.head_dim = course.resolve_head_dim(embed_dim, n_head)
        self.q_proj = nn.Linear(embed_dim, embed_dim)
        self.k_proj = nn.Linear(embed_dim, embed_dim)
        self.v_proj = nn.Linear(embed_dim, embed_dim)
        self.out_proj = nn.Linear(embed_dim, embed_dim)

    def forward(self, x, memory, key_padding_mask=None):
        course.expect_tokens(x, self.embed_dim)
        course.expect_tokens(memory, self.embed_dim)
        B, T_q, E = x.shape
        T_k = memory.size(1)
        H, D = self.n_head, self.head_dim
        q = self.q_proj(x).view(B, T_q, H, D).transpose(1, 2)
        k = self.k_proj(memory).view(B, T_k, H, D).transpose(1, 2)
        v = self.v_proj(memory).view(B, T_k, H, D).transpose(1, 2)
        scores = q @ k.transpose(-2, -1) / math.sqrt(D)
        if key_padding_mask is not None:
            scores = scores.masked_fill(key_padding_mask[:, None, None, :], float("-inf"))
        weights = torch.softmax(scores, dim=-1)
        y = (weights @ v).transpose(1, 2).contiguous().view(B, T_q, E)
        return self.out_proj(y), weights
"""
SCORES, MERGE = "q @ k.transpose(-2, -1) / math.sqrt(D)", "(weights @ v).transpose(1, 2)"
CROSS_MUTANTS = [
    ("self.k_proj(memory).view(B, T_k, H, D).transpose(1, 2)", "self.k_proj(memory).transpose(1, 2).view(B, T_k, H, D)",
     "hint_cross_view"),
    (MERGE + ".contiguous()", MERGE, "hint_cross_view"),
    ("if key_padding_mask is not None:", "if key_padding_mask is None:", "hint_cross_no_mask"),
    ("self.embed_dim, self.n_head = embed_dim, n_head", "self.n_head, self.embed_dim = embed_dim, n_head",
     "hint_cross_expect_tokens"),
    ("self.embed_dim, self.n_head = embed_dim, n_head", "self.head_dim, self.n_head = embed_dim, n_head",
     "hint_cross_attributes"),
    ("course.expect_tokens(x, self.embed_dim)", "course.expect_tokens(self.embed_dim, x)", "hint_cross_expect_tokens"),
    ("course.expect_tokens(x, self.embed_dim)", "course.expect_tokens(x, self.head_dim)", "hint_cross_expect_tokens"),
    ("q = self.q_proj(x).view", "q = x.view", "hint_cross_in_proj"),
    ("v = self.v_proj(memory).view", "v = memory.view", "hint_cross_in_proj"),
    (SCORES, "math.sqrt(D) / (q @ k.transpose(-2, -1))", "hint_scale_inverted"),
    (SCORES, "q @ k.transpose(-2, -1) * math.sqrt(D)", "hint_scale_mul"),
    (SCORES, "q @ k.transpose(-2, -1) // math.sqrt(D)", "hint_scale_floor"),
    (SCORES, "q @ k.transpose(-2, -1) / D", "hint_scale_dk"),
    ("torch.softmax(scores, dim=-1)", "torch.softmax(scores, dim=0)", "hint_softmax_axis"),
    (MERGE, "(weights @ v).transpose(0, 2)", "hint_cross_merge"), (MERGE, "(weights @ v).transpose(1, 3)", "hint_cross_merge"),
    (MERGE + ".contiguous()", "(weights @ v).contiguous()", "hint_cross_merge"),
]


@pytest.mark.parametrize("old,new,hint", CROSS_MUTANTS)
def test_cross_attention_generated_mistakes_are_named_alike(lang, old, new, hint):
    cls = mutant(CROSS_SOLUTION, old, new, "CrossAttention")
    with pytest.raises(CheckFailed) as info:
        checks.check_cross_attention(cls)
    assert t(hint, axis=0) in str(info.value), str(info.value)
    for seed in range(3):   # the view before the transpose ran where T_k was D or E (it raises nowhere else)
        got = fails(probes.cross_attention, cls, seed=seed).hint
        assert (got[0] if isinstance(got, tuple) else got) == hint


# --------------------------------------------------------------------------- exercise 3: no hint before
ROPE_SOLUTION = """
def apply_rope(q, k, positions, base=10000.0):
    D = q.size(-1)
    inv_freq = base ** (-torch.arange(0, D, 2, dtype=torch.float64, device=q.device) / D)
    angles = positions.to(q.device, torch.float64)[:, None] * inv_freq
    emb = torch.cat([angles, angles], dim=-1)
    cos, sin = emb.cos().to(q.dtype), emb.sin().to(q.dtype)

    def rotate_half(x):
        return torch.cat([-x[..., D // 2:], x[..., :D // 2]], dim=-1)

    return q * cos + rotate_half(q) * sin, k * cos + rotate_half(k) * sin
"""
FREQ, RETURN = "device=q.device) / D)", "return q * cos + rotate_half(q) * sin, k * cos + rotate_half(k) * sin"
ROPE_MUTANTS = [
    (FREQ, "device=q.device) * D)", "hint_rope_angles"), (FREQ, "device=q.device) // D)", "hint_rope_angles"),
    ("[:, None] * inv_freq", "[:, None] / inv_freq", "hint_rope_angles"),
    # frequencies all but 0 (D / −2i): nearly unrotated at base 10000, plainly turned by wrong angles at 100
    ("-torch.arange(0, D, 2, dtype=torch.float64, device=q.device) / D", "D / (-torch.arange(0, D, 2, "
     "dtype=torch.float64, device=q.device))", "hint_rope_angles"),
    ("positions.to(q.device, torch.float64)", "positions.to(torch.float64, q.device)", "hint_rope_to"),
    ("cos, sin = emb.cos()", "sin, cos = emb.cos()", "hint_rope_cos_sin"),
    ("cos, sin = emb.cos().to(q.dtype)", "cos, sin = emb.to(q.dtype)", "hint_rope_not_rotation"),
    ("torch.cat([-x[..., D // 2:], x[..., :D // 2]], dim=-1)", "[-x[..., D // 2:], x[..., :D // 2]]",
     "hint_rope_not_rotation"),
    ("torch.cat([-x[..., D // 2:], x[..., :D // 2]], dim=-1)", "torch.cat([x[..., :D // 2], -x[..., D // 2:]], dim=-1)",
     "hint_rope_not_rotation"),
    ("-x[..., D // 2:]", "-x[..., D / 2:]", "hint_rope_half_index"),
    (RETURN, "return k * cos + rotate_half(k) * sin, q * cos + rotate_half(q) * sin", "hint_rope_pair_order"),
    (RETURN, "return q / cos + rotate_half(q) * sin, k * cos + rotate_half(k) * sin", "hint_rope_not_rotation"),
    (RETURN, "return q * cos + rotate_half(q) * sin, k * cos + k * sin", "hint_rope_not_rotation"),
]


@pytest.mark.parametrize("old,new,hint", ROPE_MUTANTS)
def test_apply_rope_generated_mistakes_are_named_alike(lang, old, new, hint):
    fn = mutant(ROPE_SOLUTION, old, new, "apply_rope")
    fails_with(checks.check_apply_rope, fn, hint)
    assert fails(probes.apply_rope, fn).hint == hint


# --------------------------------------------------------------------------- exercise 6: no hint, or named apart
CACHE_SOLUTION = """
def attend_rope_with_cache(attn, x_new, cache, rope):
    B, T_new, E = x_new.shape
    H = attn.n_head
    D = E // H
    q, k, v = (z.view(B, T_new, H, D).transpose(1, 2) for z in attn.c_attn(x_new).split(E, dim=2))
    T_past = 0 if cache is None else cache[0].size(2)
    positions = torch.arange(T_past, T_past + T_new, device=x_new.device)
    q, k = rope(q, k, positions)
    if cache is not None:
        k, v = torch.cat([cache[0], k], dim=2), torch.cat([cache[1], v], dim=2)
    keep = torch.ones(T_new, T_past + T_new, dtype=torch.bool, device=x_new.device).tril(diagonal=T_past)
    scores = (q @ k.transpose(-2, -1) / math.sqrt(D)).masked_fill(~keep, float("-inf"))
    y = (torch.softmax(scores, dim=-1) @ v).transpose(1, 2).contiguous().view(B, T_new, E)
    return attn.c_proj(y), (k, v)
"""
SPLIT, CAT = "z.view(B, T_new, H, D).transpose(1, 2)", "k, v = torch.cat([cache[0], k], dim=2), torch.cat([cache[1], v], dim=2)"
KEEP, SCORES6 = ".tril(diagonal=T_past)", "(q @ k.transpose(-2, -1) / math.sqrt(D)).masked_fill(~keep, float(\"-inf\"))"
CACHE_MUTANTS = [
    ("q, k, v = (z", "k, q, v = (z", "hint_rope_cache_qk_swapped"), ("q, k, v = (z", "q, v, k = (z", "hint_qkv_order"),
    (SPLIT, "z.view(B, T_new, H, D).transpose(-1, 2)", "hint_rope_cache_shapes"),
    (SPLIT, "z.view(B, T_new, D, H).transpose(1, 2)", "hint_rope_cache_shapes"),
    (SPLIT, "z.transpose(1, 2).view(B, T_new, H, D)", "hint_rope_cache_shapes"),
    ("T_past = 0 if cache is None else cache[0].size(2)", "T_past = 0", "hint_rope_cache_restart"),
    ("T_past = 0 if cache is None else cache[0].size(2)", "T_past = cache[0].size(2)", "hint_rope_cache_none"),
    ("if cache is not None:", "if cache is None:", "hint_rope_cache_none"),
    ("q, k = rope(q, k, positions)", "k, q = rope(q, k, positions)", "hint_rope_cache_qk_swapped"),
    (CAT, "v, k = torch.cat([cache[0], k], dim=2), torch.cat([cache[1], v], dim=2)", "hint_cache_kv_swapped"),
    (CAT, "k, v = torch.cat([k, cache[0]], dim=2), torch.cat([cache[1], v], dim=2)", "hint_cache_cat_order"),
    (CAT, "k, v = torch.cat([cache[0], k], dim=2), torch.cat([v, cache[1]], dim=2)", "hint_cache_cat_order"),
    (CAT, "k, v = torch.cat([k, cache[0]], dim=2), torch.cat([v, cache[1]], dim=2)", "hint_cache_cat_order"),  # planted
    (KEEP, ".triu(diagonal=T_past)", "hint_upper_triangle"), (KEEP, "", "hint_causal_6"),
    ("masked_fill(~keep, float(\"-inf\"))", "masked_fill(~keep, 0.0)", "hint_mask_multiplied"),
    ("masked_fill(~keep, float(\"-inf\"))", "masked_fill(keep, float(\"-inf\"))", "hint_inverted_mask"),
    (SCORES6, "(q @ k.transpose(-2, -1) / math.sqrt(D)) + (~keep) * float(\"-inf\")", "hint_additive_nan"),
    (SCORES6, "(q @ k.transpose(-2, -1) / math.sqrt(D))", "hint_causal_6"),
    ("/ math.sqrt(D))", "* math.sqrt(D))", "hint_scale_mul"), ("/ math.sqrt(D))", "// math.sqrt(D))", "hint_scale_floor"),
    ("/ math.sqrt(D))", "/ D)", "hint_scale_dk"),
    ("torch.softmax(scores, dim=-1) @ v", "scores @ v", "hint_no_softmax"),
    ("torch.softmax(scores, dim=-1)", "torch.softmax(scores, dim=-2)", "hint_softmax_axis"),
    ("@ v).transpose(1, 2)", "@ v).transpose(0, 2)", "hint_rope_cache_merge"),
    ("@ v).transpose(1, 2).contiguous()", "@ v).contiguous()", "hint_rope_cache_merge"),
    ("return attn.c_proj(y), (k, v)", "return attn.c_proj(y), (v, k)", "hint_cache_kv_swapped"),
    ("return attn.c_proj(y), (k, v)", "return (k, v), attn.c_proj(y)", "hint_rope_cache_return_order"),
]


@pytest.mark.parametrize("old,new,hint", CACHE_MUTANTS)
def test_rope_cache_generated_mistakes_are_named_alike(lang, old, new, hint):
    fn = mutant(CACHE_SOLUTION, old, new, "attend_rope_with_cache")
    with pytest.raises(CheckFailed) as info:
        checks.check_rope_cache(fn)
    assert t(hint, axis=-2) in str(info.value), str(info.value)
    for seed in range(3):   # a prefill of B, H or D tokens let a mixed-up split run into the cached call
        got = fails(probes.rope_cache, fn, seed=seed).hint
        assert (got[0] if isinstance(got, tuple) else got) == hint, seed


def test_cross_attention_error_in_init_is_not_named_an_input_check(lang):
    """resolve_head_dim(n_head, embed_dim): the course's own error in __init__ says what is wrong; the grader named
    it expect_tokens' mistake, which is about forward's inputs (make mutants)."""
    from attn_course.validate import CourseError
    cls = mutant(CROSS_SOLUTION, "resolve_head_dim(embed_dim, n_head)", "resolve_head_dim(n_head, embed_dim)",
                 "CrossAttention")
    with pytest.raises(CourseError):
        checks.check_cross_attention(cls)
    assert fails(probes.cross_attention, cls).hint != "hint_cross_expect_tokens"


# --------------------------------------------------------------------------- this round: exercises 0, 1, 4, 5
# Each was caught without a hint (or the visible check crashed); now the check and the grader name it alike.
RELATIVE_SOLUTION = """
def relative_score(q, k, offset, rope):
    _, k_turned = rope(k[..., None, :], k[..., None, :], torch.tensor([offset], device=k.device))
    return (q * k_turned[..., 0, :]).sum(dim=-1)
"""
LAYOUT_SOLUTION = """
def interleaved_to_half(weight, n_head):
    rows, E = weight.shape
    D = rows // n_head
    return weight.view(n_head, D // 2, 2, E).transpose(1, 2).reshape(rows, E)
"""
PERM_SOLUTION = """
def permutation_error(fn, x, perm):
    with torch.no_grad():
        return float((fn(x[:, perm]) - fn(x)[:, perm]).abs().max())
"""
GPT2_SOLUTION = """
class GPT2SelfAttention(nn.Module):
    def __init__(self, embed_dim, n_head, max_len=64, dropout=0.0):
        super().__init__()
        self.embed_dim, self.n_head = course.expect_size(embed_dim, "embed_dim"), course.expect_size(n_head, "n_head")
        self.head_dim = course.resolve_head_dim(embed_dim, n_head)
        self.c_attn = nn.Linear(embed_dim, 3 * embed_dim)
        self.c_proj = nn.Linear(embed_dim, embed_dim)
        self.dropout = nn.Dropout(dropout)
        self.register_buffer("causal", torch.ones(max_len, max_len, dtype=torch.bool).tril(), persistent=False)

    def forward(self, x, use_sdpa=False):
        course.expect_tokens(x, self.embed_dim)
        B, T, E = x.shape
        q, k, v = (z.view(B, T, self.n_head, self.head_dim).transpose(1, 2) for z in self.c_attn(x).split(E, dim=2))
        if use_sdpa:
            p = self.dropout.p if self.training else 0.0
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True, dropout_p=p)
            return self.c_proj(y.transpose(1, 2).contiguous().view(B, T, E)), None
        scores = q @ k.transpose(-2, -1) / math.sqrt(self.head_dim)
        weights = torch.softmax(scores.masked_fill(~self.causal[:T, :T], float("-inf")), dim=-1)
        y = (self.dropout(weights) @ v).transpose(1, 2).contiguous().view(B, T, E)
        return self.c_proj(y), weights
"""
TURNED, LAYOUT = "_, k_turned = rope(k[..., None, :], k[..., None, :],", ".transpose(1, 2).reshape(rows, E)"
VIEW, DIFFERENCE = "weight.view(n_head, D // 2, 2, E)", "(fn(x[:, perm]) - fn(x)[:, perm])"
SIZES = 'self.embed_dim, self.n_head = course.expect_size(embed_dim, "embed_dim")'
# exercise: (solution, the name it defines, visible check, the hidden probe that fails first)
EXERCISES = {
    "ex0": (GPT2_SOLUTION, "GPT2SelfAttention", checks.check_gpt2_module, probes4.module),
    "ex1": (PERM_SOLUTION, "permutation_error", checks.check_permutation_error, probes.permutation_error),
    "ex4": (LAYOUT_SOLUTION, "interleaved_to_half", checks.check_interleaved_to_half, probes.interleaved_to_half),
    "ex5": (RELATIVE_SOLUTION, "relative_score", checks.check_relative_score, probes.relative_score),
}
ROUND_MUTANTS = [
    ("ex0", "        super().__init__()\n", "", "hint_super_init"),
    ("ex0", SIZES, SIZES.replace("self.embed_dim,", "self.head_dim,"), "hint_module_attributes"),
    ("ex0", SIZES, SIZES.replace("self.n_head =", "self.head_dim ="), "hint_module_attributes"),
    ("ex0", "self.head_dim = course.resolve_head_dim", "self.n_head = course.resolve_head_dim", "hint_module_attributes"),
    ("ex0", 'self.register_buffer("causal", torch.ones(max_len, max_len, dtype=torch.bool).tril(),',
     'self.register_buffer(torch.ones(max_len, max_len, dtype=torch.bool).tril(), "causal",', "hint_register_buffer_args"),
    # the course's input checks refusing right inputs: called the other way round, or on attributes mixed up
    ("ex0", SIZES, SIZES.replace("self.embed_dim, self.n_head", "self.n_head, self.embed_dim"), "hint_module_input_checks"),
    ("ex0", 'course.expect_size(n_head, "n_head")', 'course.expect_size("n_head", n_head)', "hint_module_input_checks"),
    ("ex0", "course.expect_tokens(x, self.embed_dim)", "course.expect_tokens(x, self.head_dim)", "hint_module_input_checks"),
    ("ex0", "course.expect_tokens(x, self.embed_dim)", "course.expect_tokens(self.embed_dim, x)", "hint_module_input_checks"),
    # (None, y) from the SDPA path: the visible check crashed on it, the grader named the SDPA call
    ("ex0", "return self.c_proj(y.transpose(1, 2).contiguous().view(B, T, E)), None",
     "return None, self.c_proj(y.transpose(1, 2).contiguous().view(B, T, E))", "hint_sdpa_call"),
    ("ex1", DIFFERENCE, "(fn(x[:, perm]) + fn(x)[:, perm])", "hint_perm_plus"),
    ("ex1", DIFFERENCE, "(x[:, perm] - fn(x)[:, perm])", "hint_perm_fn_once"),
    ("ex1", DIFFERENCE, "(fn(x[:, perm]) - x[:, perm])", "hint_perm_fn_once"),
    ("ex4", LAYOUT, ".transpose(1, 2)", "hint_layout_reshape"),
    ("ex4", LAYOUT, ".transpose(0, 2).reshape(rows, E)", "hint_layout_order"),
    ("ex4", VIEW, "weight.view(D // 2, n_head, 2, E)", "hint_layout_order"),
    ("ex4", LAYOUT, ".transpose(-1, 2).reshape(rows, E)", "hint_layout_mixed"),
    ("ex4", LAYOUT, ".transpose(1, 3).reshape(rows, E)", "hint_layout_mixed"),
    ("ex4", VIEW, "weight.view(n_head, D // 2, E, 2)", "hint_layout_mixed"),
    # the key's position axis added or taken off wrongly: what hint_relative_shape describes
    ("ex5", TURNED, "_, k_turned = rope(k[..., None, :], k,", "hint_relative_shape"),
    ("ex5", TURNED, "_, k_turned = rope(k[..., None, :], k[..., None],", "hint_relative_shape"),
    ("ex5", "k_turned[..., 0, :]", "k_turned[..., 0]", "hint_relative_shape"),
]


@pytest.mark.parametrize("exercise,old,new,hint", ROUND_MUTANTS)
def test_this_rounds_generated_mistakes_are_named_alike(lang, exercise, old, new, hint):
    solution, name, check, probe = EXERCISES[exercise]
    fn = mutant(solution, old, new, name)
    fails_with(check, fn, hint)
    for seed in range(3):
        got = fails(probe, fn, seed=seed).hint
        assert (got[0] if isinstance(got, tuple) else got) == hint, seed
