"""Lesson 7's exercises: each one's cases (the probe, run in the kernel) and its procedure (the verdict on what the
probe recorded, given the right implementation). The grader runs a procedure with the hidden reference, the visible
check (attn_course.checks.lesson7) with the right answer the course's public facts give, on a seed of its own.

Exercises 5 and 6 take the rotation as an argument; here they get a right RoPE with a base drawn by
name (the visible checks' `rope`), so a mistake in exercise 3 costs exercise 3 only.
"""
import math

import torch
import torch.nn as nn

from ..checks import lesson7_mistakes as checks
from ..checks import lesson7_alibi as alibi
from ..checks import lesson7_cross as cross
from ..checks import lesson7_sinusoid as pe
from ..checks.engine import raised
from ..checks.heads import merged_out_of_order
from ..checks.lesson7_mistakes import cache_call, largest_error_last, perm_variants, same_error
from ..checks.lesson7_cross import NO_MASK_CALL
from ..findings import dtype_finding, grad_finding
from ..judging import (
    DTYPE_CASES, Mismatch, cache_step, expect_close, expect_device, expect_finding, expect_layout, max_error, procedure,
)
from ..sizes import in_role
from .cases import backward_with_probe, differentiable
from .codec import NoValues
from .gpt2_module import NAME, build, configs
from .recorder import probe
from .rope import BASES, turn_with


# The notebook's sizes by role (attn_course.sizes): code that reads its H_, D_, E_pe or a T_ instead of the input's
# size fails on every seed. Not all of them in every draw: its loops bind 2, 3, 4, 7 and 8 too (m, n), which would
# leave too few sizes below 9.
LENGTHS = in_role(7, "T_", "T_a", "T_r", "T_pe", "T_train")
HEADS = in_role(7, "H_")
HALF_DIMS = in_role(7, "D_", scale=lambda v: v // 2)
HALF_WIDTHS = in_role(7, "E_", "E_pe", scale=lambda v: v // 2)


def perm_setup(draws):
    b, t, e = draws.sizes("sizes", 3, low=2, high=10)
    t += 3                                                            # at least 5 tokens
    x = draws.randn("x", b, t, e)
    # One cycle through every token: none stays put and no two swap, so on every row the output left
    # unpermuted, permuted back, and permuted right are three different rows, and the mistakes differ.
    order = torch.randperm(t, generator=draws.gen("perm"))
    perm = torch.empty_like(order)
    perm[order] = order.roll(-1)
    w1, w2 = draws.randn("w1", e, e, scale=e ** -0.5), draws.randn("w2", e, e, scale=e ** -0.5)
    table = draws.randn("positions", t, e)

    def attend(z, causal):
        s = (z @ w1) @ (z @ w2).transpose(-2, -1) / math.sqrt(e)
        if causal:
            n = z.size(1)
            s = s.masked_fill(~torch.ones(n, n, dtype=torch.bool).tril(), float("-inf"))
        return torch.softmax(s, -1) @ z

    functions = {
        "rowwise": lambda z: torch.tanh(z @ w1) @ w2,                 # equivariant
        "attention": lambda z: attend(z, False),                      # equivariant
        "causal": lambda z: attend(z, True),                          # not
        "positions": lambda z: attend(z + table, False),              # not
    }
    x = largest_error_last(x, perm, functions["causal"])
    # A draw on which two classic mistakes give the same number on every function names the first of them for
    # both (batch element 0 alone matched the signed maximum on 3 seeds in 400): draw again until they differ.
    for attempt in range(1, 20):
        if separates_mistakes(x, perm, functions):
            break
        x = largest_error_last(draws.randn(f"x{attempt}", b, t, e), perm, functions["causal"])
    return x, perm, functions


def separates_mistakes(x, perm, functions) -> bool:
    rows = [perm_variants(f, x, perm) for f in functions.values()]
    keys = list(rows[0])
    hint = lambda key: key[0] if isinstance(key, tuple) else key   # noqa: E731 - (hint, variant): one hint
    return all(any(not same_error(row[a], row[b]) for row in rows)
               for i, a in enumerate(keys) for b in keys[i + 1:] if hint(a) != hint(b))


def pe_sizes(draws):
    lengths = draws.sizes("T", 3, low=2, high=40, avoid={v - 1 for v in LENGTHS})
    halves = draws.sizes("half", 3, low=1, high=20, avoid=HALF_WIDTHS)
    return [(int(t) + 1, 2 * int(h)) for t, h in zip(lengths, halves)]


def rope_setup(draws, case, dtype):
    b, h, t = draws.sizes(f"{case}.sizes", 3, low=2, high=9, avoid=HEADS | LENGTHS)
    d = 2 * int(draws.sizes(f"{case}.half", 1, low=2, high=9, avoid=HALF_DIMS)[0])
    base = BASES[int(draws.randint(f"{case}.base", 0, len(BASES), (1,)))]
    positions = torch.randperm(12, generator=draws.gen(f"{case}.positions"))[:t]   # any order, all below 12
    # transformers rounds the angles to float32: its error grows with the position and with |q|. At positions
    # below 12 and |q| about 1/4, it stays below 4.2e-7 over 600 seeds, under the judge's 1e-6.
    q, k = (draws.randn(f"{case}.{n}", b, h, t, d, dtype=dtype, scale=0.25) for n in "qk")
    return q, k, positions, base


def layout_setup(draws):
    h, half, e = draws.sizes("sizes", 3, low=2, high=9)
    half += 1   # at D = 4 the conversion is its own inverse: the other-way bug would pass
    return draws.randn("weight", h * 2 * half, e), h


def relative_setup(draws):
    n, half = draws.sizes("sizes", 2, low=2, high=9)
    q, k = draws.randn("q", n, 2 * half), draws.randn("k", n, 2 * half)
    offsets = [int(o) for o in draws.randint("offsets", -15, 16, (3,))] + [0]
    base = BASES[int(draws.randint("base", 0, len(BASES), (1,)))]
    return q, k, offsets, base


def relative_ranks(draws, q, k) -> dict:
    """q and k as one vector (D,), and with two leading axes (2, N, D): the exercise's (…, D)."""
    q3, k3 = (draws.randn(f"{x}3", 2, *q.shape) for x in "qk")
    return {"q (D,)": (q[0].clone(), k[0].clone()), "q (2, N, D)": (q3, k3)}


class CacheHost(nn.Module):
    """GPT-2's attention weights (c_attn, c_proj) and n_head, with no forward of its own."""

    def __init__(self, embed_dim, n_head):
        super().__init__()
        self.embed_dim, self.n_head, self.head_dim = embed_dim, n_head, embed_dim // n_head
        self.c_attn = nn.Linear(embed_dim, 3 * embed_dim)
        self.c_proj = nn.Linear(embed_dim, embed_dim)


def cache_setup(draws):
    """The attention weights, the whole input, the chunks it is fed in (a prefill, then a token at a
    time, then two at once) and the base of the rotation."""
    b, h, half, t = draws.sizes("sizes", 4, low=2, high=9)
    t += 6
    host = CacheHost(h * 2 * half, h).double().eval()
    draws.fill_parameters(host, "host")
    x = draws.randn("x", b, t, h * 2 * half)
    prefill = max(2, int(draws.randint("prefill", 1, t - 2, (1,))))
    while prefill in (b, h, 2 * half) and prefill < t - 2:   # a prefill of B, H or D tokens lets a mixed-up axis run
        prefill += 1
    chunks = [(0, prefill)] + [(i, i + 1) for i in range(prefill, t - 2)] + [(t - 2, t)]
    base = BASES[int(draws.randint("base", 0, len(BASES), (1,)))]
    return host, x, chunks, base


def alibi_sizes(draws):
    """A power of two and two other head counts, with lengths; and H = 20, where slopes computed with `//` are
    wrong in both lists (n = 16: −8(h+1)/16 and −8(j+1)/32 are not whole), whatever the draws."""
    t1, t2, t3 = draws.sizes("T", 3, low=2, high=20)
    power = 2 ** int(draws.randint("power", 0, 5, (1,)))
    others = [int(h) for h in draws.sizes("heads", 2, low=3, high=24) if h & (h - 1)] or [12]
    return [(power, t1)] + list(zip(others, (t2, t3))) + [(20, t3)]


def cross_setup(draws, case, dtype):
    h, d = draws.sizes("args", 2, low=2, high=7, avoid=HEADS | in_role(7, "D_"))
    b, t_q, t_k = draws.sizes(f"{case}.sizes", 3, low=2, high=10)
    t_k += 1
    # T_k ≠ T_q, as every judge's hint assumes; nor D or E, where k_proj(memory).transpose(1, 2).view(B, T_k, H, D)
    # would run, and not raise
    while t_k in (d, h * d, t_q):
        t_k += 1
    x = draws.randn(f"{case}.x", b, t_q, h * d, dtype=dtype)
    memory = draws.randn(f"{case}.memory", b, t_k, h * d, dtype=dtype)
    lengths = draws.randint(f"{case}.lengths", 1, t_k + 1, (b,))
    pad = torch.arange(t_k)[None, :] >= lengths[:, None]                             # True = padding
    return (h * d, h), x, memory, pad


@probe("lesson7.module_buffer")
def module_buffer(rec, cls):
    """Section 1 removes the mask by setting the `causal` buffer all True: forward must read that buffer."""
    b, t, h, d = next(configs(rec))
    module, layout = build(rec, cls, NAME, h, d, max_len=32)
    rec.put("layout", layout)
    module = module.double().eval()
    rec.call(f"{NAME}.causal", lambda: module.causal.fill_(True))
    with torch.no_grad():
        rec.put("open", rec.call(NAME, module, rec.randn("x", b, t, h * d)))


@probe("lesson7.permutation_error")
def permutation_error(rec, fn):
    x, perm, functions = perm_setup(rec)
    for label, f in functions.items():
        # As returned: the exercise asks for a Python float, and a 0-dim tensor is judged as one that is not.
        rec.put(label, rec.call("permutation_error", fn, f, x.clone(), perm.clone()))


@probe("lesson7.sinusoidal_positions")
def sinusoidal_positions(rec, fn):
    for t, e in pe_sizes(rec):
        rec.put(f"T={t}, E={e}", rec.call("sinusoidal_positions", fn, t, e))
    rec.put("base=100", rec.call("sinusoidal_positions", fn, 7, 6, 100.0))
    rec.put("meta", rec.call("sinusoidal_positions", fn, 3, 4, device=torch.device("meta")))


@probe("lesson7.apply_rope")
def apply_rope(rec, fn):
    for case, dtype in DTYPE_CASES:
        rec.put(case, rec.call("apply_rope", fn, *rope_setup(rec, case, dtype)))
    args = differentiable(rope_setup(rec, "grad", torch.float64))
    got = rec.call("apply_rope", fn, *args)
    rec.put("grad", got)
    rec.put("grad.inputs", backward_with_probe(rec, got, args[:2]))
    q, k, positions, base = rope_setup(rec, "meta", torch.float64)
    rec.put("meta", rec.call("apply_rope", fn, q.to("meta"), k.to("meta"), positions.to("meta"), base))


@probe("lesson7.interleaved_to_half")
def interleaved_to_half(rec, fn):
    weight, n_head = layout_setup(rec)
    rec.put("weight", rec.call("interleaved_to_half", fn, weight.clone(), n_head))


@probe("lesson7.relative_score")
def relative_score(rec, fn):
    q, k, offsets, base = relative_setup(rec)
    for offset in offsets:
        rec.put(f"offset={offset}", rec.call("relative_score", fn, q.clone(), k.clone(), offset, turn_with(base)))
    for label, (q_, k_) in relative_ranks(rec, q, k).items():   # (…, D) is any rank: dim=1 fits (N, D) only
        rec.put(label, rec.call(f"relative_score, {label}", fn, q_, k_, offsets[0], turn_with(base)))


@probe("lesson7.rope_cache")
def rope_cache(rec, fn):
    host, x, chunks, base = cache_setup(rec)
    cache, outputs, shapes = None, [], []
    with torch.no_grad():
        for lo, hi in chunks:
            # Named by the call: a shape error in a call with a cache is the cache joined wrongly.
            result = rec.call(cache_call(cache), fn, host, x[:, lo:hi], cache, turn_with(base))
            if not (isinstance(result, tuple) and len(result) == 2):
                rec.put("result", result)
                return
            y, cache = result
            outputs.append(y)
            shapes.append([list(c.shape) if isinstance(c, torch.Tensor) else None for c in cache]
                          if isinstance(cache, tuple) else None)
            # Recorded after every call: when a later call raises, the grader judges the outputs before it first.
            rec.put("outputs", outputs)
            rec.put("cache_shapes", shapes)
    rec.put("cache", cache)


@probe("lesson7.alibi_bias")
def alibi_bias(rec, fn):
    for h, t in alibi_sizes(rec):
        rec.put(f"H={h}, T={t}", rec.call("alibi_bias", fn, h, t))
    rec.put("meta", rec.call("alibi_bias", fn, 2, 3, device=torch.device("meta")))


@probe("lesson7.cross_attention")
def cross_attention(rec, cls):
    name = "CrossAttention"
    args = cross_setup(rec, "float64", torch.float64)[0]
    module = rec.call(name, cls, *args).double()
    rec.put("layout", rec.fill_parameters(module))
    module.eval()
    for case, dtype in DTYPE_CASES:
        _, x, memory, pad = cross_setup(rec, case, dtype)
        module.to(dtype)
        with torch.no_grad():
            rec.put(case, rec.call(f"{name}.forward", module, x, memory, pad))
            rec.put(f"{case}.no_mask", rec.call(NO_MASK_CALL, module, x, memory))
    rec.put("error_on_10_3", raised(cls, 10, 3))
    module.double()
    # The lesson asks forward to refuse bad input with the course's error (course.expect_tokens): the visible
    # check tries these two, and so does the grader, or a forward without the check would lose nothing.
    _, x, memory, _ = cross_setup(rec, "bad", torch.float64)
    for what, bad in (("memory", (x, memory[..., :-1])), ("x", (x[0], memory))):
        rec.put(f"error_on_bad_{what}", [raised(module, *bad), [list(z.shape) for z in bad]])
    _, x, memory, pad = cross_setup(rec, "grad", torch.float64)
    x, memory = x.requires_grad_(True), memory.requires_grad_(True)
    got = rec.call(f"{name}.forward", module, x, memory, pad)
    rec.put("grad", got)
    rec.put("grad.inputs", backward_with_probe(rec, got, [x, memory, *module.parameters()]))


# --------------------------------------------------------------------------- the procedures
# res: what the probe recorded (attn_course.judging.Results); right: the right implementation, the grader's hidden
# reference or the visible check's right_* (attn_course.checks.lesson7).
def _likely(got, variants: dict, tol: float, view=lambda z: z):
    """The key of the classic bug whose result got equals, if any."""
    if not isinstance(got, torch.Tensor):
        return None
    # nan_to_num: a bug that leaves NaN rows (an inverted padding mask) matches its variant's NaN rows
    return next((key for key, value in variants.items() if key and got.shape == value.shape
                 and max_error(*(torch.nan_to_num(view(z)) for z in (got, value))) <= tol), None)


def _expect(case, got, want, tol, variants=None, check_dtype=True, view=lambda z: z, hint_tol=None, dtype_hint=None):
    try:
        expect_close(case, view(got) if isinstance(got, torch.Tensor) else got, view(want), tol, check_dtype)
    except Mismatch as mismatch:
        # A wrong dtype is no wrong value: the variants, compared by value, would name a mistake not made
        # (apply_rope's float64 output read as "base ignored").
        mismatch.hint = dtype_hint if mismatch.key == "hidden_dtype" else \
            _likely(got, variants or {}, hint_tol or max(tol, 1e-6), view)
        raise


def _kind(got) -> str:
    return getattr(got, "kind", type(got).__name__)


def _pair(got, name: str, key: str = "returned_not_pair"):
    if not (isinstance(got, tuple) and len(got) == 2):
        raise Mismatch(key, name=name, kind=_kind(got))
    return got


@procedure()
def judge_module_buffer(res, right):
    """right: the module class. With its buffer all True it is attention without a mask; a module still masked
    builds its own mask instead of reading the buffer."""
    b, t, h, d = next(configs(res))
    ref = right(h * d, h, max_len=32)
    expect_layout(res, ref)
    res.fill_parameters(ref, f"params.{h}.{d}")
    ref = ref.double().eval()
    x = res.randn("x", b, t, h * d)
    got = _pair(res["open"], f"{NAME}.forward")
    with torch.no_grad():
        masked = ref(x)[0]
        ref.causal.fill_(True)
        want = ref(x)[0]
    try:
        _expect(f"{NAME} (causal = True)", got[0], want, 1e-9, {"hint_mask_not_from_buffer": masked})
    except Mismatch as mismatch:   # said as what the open buffer should have done
        if mismatch.key != "hidden_mismatch":
            raise
        raise Mismatch("buffer_open_differs", hint=mismatch.hint, err=mismatch.fields["err"]) from None


# The hidden functions, as a failure names them to the learner.
PERM_NAMES = {"rowwise": "perm_fn_rowwise", "attention": "perm_fn_attention", "causal": "perm_fn_causal",
              "positions": "perm_fn_positions"}


@procedure(on_error=checks.perm_error)
def judge_permutation_error(res, right):
    x, perm, functions = perm_setup(res)
    answers, wrong = [], None
    for label, f in functions.items():
        got, want = res[label], right(f, x, perm)
        if isinstance(got, bool) or not isinstance(got, (int, float)):   # a 0-dim tensor is not the float asked for
            raise Mismatch("perm_not_float", hint="hint_perm_float" if isinstance(got, torch.Tensor) else None,
                           kind=_kind(got))
        answers.append((got, perm_variants(f, x, perm)))
        if wrong is None and not same_error(got, want):
            wrong = label
    if wrong:
        raise Mismatch("perm_hidden_differs", hint=checks.likely_perm_mistake(answers), fn=(PERM_NAMES[wrong],))


@procedure(on_error=pe.pe_error)
def judge_sinusoidal_positions(res, right):
    for t, e in pe_sizes(res):
        want, got = right(t, e), res[f"T={t}, E={e}"]
        variants = {k: v.float() for k, v in pe.sinusoid_variants(t, e).items()}
        try:
            _expect(f"sinusoidal_positions(T={t}, E={e})", got, want, 1e-4, variants,
                    hint_tol=pe.PE_HINT_TOL, dtype_hint="hint_pe_dtype")
        except Mismatch as mismatch:  # no classic mistake's table: where it is wrong says which
            if mismatch.hint is None and isinstance(got, torch.Tensor) and got.shape == want.shape:
                mismatch.hint = pe.pe_hint(got, want)
            elif mismatch.key == "hidden_shape":
                mismatch.hint = pe.pe_shape_hint(got, t, e)
            raise
    _expect("sinusoidal_positions(T=7, E=6, base=100)", res["base=100"], right(7, 6, 100.0), 1e-4,
            {"hint_pe_base": right(7, 6)})
    expect_device("sinusoidal_positions(device=meta)", res["meta"], "meta", "hint_pe_device")


@procedure(on_error=checks.rope_error)
def judge_apply_rope(res, right):
    for case, dtype in DTYPE_CASES:
        q, k, positions, base = rope_setup(res, case, dtype)
        want, got = right(q, k, positions, base), _pair(res[case], "apply_rope", "rope_not_pair")
        for part, g, w, x, other in zip("qk", got, want, (q, k), (k, q)):
            tol = 1e-6 if case == "float64" else 1e-4
            try:
                _expect(f"apply_rope(q, k, positions, base={base:g}) → {part} ({case})", g, w, tol,
                        checks.rope_variants(x, positions, base, other), dtype_hint="hint_rope_dtype")
            except Mismatch as mismatch:   # no classic mistake's: what the result says of itself
                if mismatch.key == "hidden_mismatch" and (mismatch.hint is None or mismatch.hint ==
                                                          "hint_rope_unrotated" and not checks.exactly(g, x)):
                    mismatch.hint = checks.rope_hint(g, x, max(tol, 1e-5))
                raise
    args = differentiable(rope_setup(res, "grad", torch.float64))
    want = right(*args)
    for g, w in zip(_pair(res["grad"], "apply_rope", "rope_not_pair"), want):
        expect_close("apply_rope (grad)", g, w.detach(), 1e-6)
    grads = backward_with_probe(res, want, args[:2])
    expect_finding(grad_finding("apply_rope", res["grad.inputs"], grads, ["q", "k"], checks.ROPE_GRAD_TOL))
    for part, g in zip("qk", _pair(res["meta"], "apply_rope", "rope_not_pair")):
        expect_device(f"apply_rope (device=meta), {part}", g, "meta", "hint_rope_device")


@procedure(on_error=checks.layout_error)
def judge_interleaved_to_half(res, right):
    weight, n_head = layout_setup(res)
    try:
        _expect(f"interleaved_to_half(H={n_head}, weight {tuple(weight.shape)})", res["weight"],
                right(weight, n_head), 0.0)
    except Mismatch as mismatch:
        if mismatch.key != "hidden_dtype":   # the variants, a 4-D result, rows reordered wrongly or mixed
            mismatch.hint = checks.layout_hint(res["weight"], weight, n_head)
        raise


@procedure(on_error=checks.relative_error, partial=True)   # a wrong value before a raise is named
def judge_relative_score(res, right):
    q, k, offsets, base = relative_setup(res)
    for offset in offsets:
        want, got = right(q, k, offset, turn_with(base)), res[f"offset={offset}"]
        try:
            _expect(f"relative_score(offset={offset}), base={base:g}", got, want, 1e-9,
                    checks.relative_variants(q, k, offset, base))
        except Mismatch as mismatch:
            if mismatch.key == "hidden_shape":   # the rope's position axis kept
                mismatch.hint = "hint_relative_shape"
            elif mismatch.key != "hidden_dtype" and mismatch.hint is None:   # the position axis added or taken off
                mismatch.hint = checks.relative_hint(got, q, k, offset, base, 1e-6)
            raise
    for label, (q_, k_) in relative_ranks(res, q, k).items():
        want = right(q_, k_, offsets[0], turn_with(base))
        try:
            _expect(f"relative_score({label}, offset={offsets[0]}), base={base:g}", res[label], want, 1e-9, {})
        except Mismatch as mismatch:
            mismatch.hint = mismatch.hint or "hint_relative_last_axis"
            raise


def _cache_output(index, lo, hi, got, shape, fields, want, b, h, d, e):
    """One call's output: its shape, then its cache's (a cache wrong after the first call, without a cache, is the
    heads split wrongly, not the join), then its values."""
    if isinstance(got, torch.Tensor) and tuple(got.shape) != (b, hi - lo, e):
        swapped = tuple(got.shape) == (hi - lo, b, e)
        raise Mismatch("hidden_shape", hint=("swapped_axes", {"a": 0, "b": 1, "name_a": "B", "name_b": "T_new"})
                       if swapped else None, case=("case_cache_token" if hi - lo == 1 else "case_cache_tokens",
                                                   fields), want=(b, hi - lo, e), got=tuple(got.shape))
    if index == 0 and shape != [[b, h, hi, d]] * 2:
        raise Mismatch("hidden_cache_shape", hint="hint_rope_cache_shapes", name="attend_rope_with_cache", n=hi,
                       want=(b, h, hi, d), got=shape)
    expect_close(cache_step("attend_rope_with_cache", fields["sizes"], lo, hi, shape, (b, h, hi, d)), got, want,
                 1e-9)


# partial: the outputs of the calls before one that raised are judged first.
@procedure(on_error=checks.rope_cache_error, partial=True)
def judge_rope_cache(res, right):
    """right(attn, x, rope): RoPE attention over the whole sequence at once, causal, what a KV cache must give."""
    host, x, chunks, base = cache_setup(res)
    if "result" in res:
        raise Mismatch("returned_not_cache_pair", name="attend_rope_with_cache", kind=_kind(res["result"]))
    b, t, e = x.shape
    h, d = host.n_head, host.head_dim
    turn = turn_with(base)
    with torch.no_grad():
        full = right(host, x, turn)
        contents = checks.cache_contents(host, x, turn)
    outputs, shapes = res["outputs"], res["cache_shapes"]
    if not isinstance(outputs, list) or not isinstance(shapes, list) or len(outputs) != len(shapes) or \
            len(outputs) > len(chunks):
        raise Mismatch("hidden_mismatch", case="attend_rope_with_cache", err=float("inf"))
    if isinstance(outputs[0], tuple) and shapes[0] is None:   # return (k, v), attn.c_proj(y)
        raise Mismatch("hidden_not_tensor", hint="hint_rope_cache_return_order", case="attend_rope_with_cache",
                       kind="tuple")
    for index, ((lo, hi), got, shape) in enumerate(zip(chunks, outputs, shapes)):
        fields = {"name": "attend_rope_with_cache", "sizes": f"B={b}, H={h}, D={d}, base={base:g}", "lo": lo,
                  "last": hi - 1}
        try:
            _cache_output(index, lo, hi, got, shape, fields, full[:, lo:hi], b, h, d, e)
        except Mismatch as mismatch:
            if mismatch.key == "hidden_mismatch" and isinstance(got, torch.Tensor):
                with torch.no_grad():
                    name, found = checks.cache_hint(got, index, host, x, chunks, turn, full[:, lo:hi], 1e-6) or \
                        (None, {})
                mismatch.hint = (name, found) if found else name
            raise
    if len(outputs) < len(chunks):   # a later call raised: its error speaks (decide reads this as no verdict)
        raise Mismatch("results_unreadable", why=("why_missing_value", {"key": "outputs"}))
    cache = res["cache"]   # after the last call: every token's key, rotated once, and its value
    if not isinstance(cache, tuple) or len(cache) != 2:
        raise Mismatch("cache_not_pair", kind=_kind(cache))
    for part, got, want, bug, other in zip("KV", cache, contents[None], contents["hint_rope_cache_unrotated"],
                                           contents[None][::-1]):
        try:
            _expect(("case_cache_part", {"name": "attend_rope_with_cache", "n": t, "part": part}), got, want, 1e-9,
                    {"hint_rope_cache_unrotated": bug, "hint_cache_kv_swapped": other} if part == "K"
                    else {"hint_cache_kv_swapped": other})
        except Mismatch as mismatch:   # the right tokens in another order: new ones joined first
            if mismatch.hint is None and checks.tokens_reordered(got, want):
                mismatch.hint = "hint_cache_cat_order"
            raise


@procedure(on_error=alibi.alibi_error)
def judge_alibi_bias(res, right):
    results = []
    for h, t in alibi_sizes(res):
        case, got = f"alibi_bias(n_head={h}, T={t})", res[f"H={h}, T={t}"]
        if isinstance(got, torch.Tensor) and tuple(got.shape) != (h, t, t):   # before lower(), which broadcasts
            raise Mismatch("hidden_shape", hint=alibi.alibi_shape_hint(tuple(got.shape), h), case=case,
                           want=(h, t, t), got=tuple(got.shape))
        if isinstance(got, torch.Tensor) and got.dtype != torch.float32:
            raise Mismatch("alibi_dtype", hint="hint_alibi_dtype", got=got.dtype)
        results.append((case, got, h, t))
    for case, got, h, t in results:
        try:
            _expect(case, got, right(h, t), 1e-6, check_dtype=False, view=alibi.lower)
        except Mismatch as mismatch:   # named from every head count
            if all(isinstance(r[1], torch.Tensor) for r in results):
                mismatch.hint = alibi.alibi_hint([r[1:] for r in results])
            raise
    got = res["meta"]
    if isinstance(got, NoValues) and tuple(got.shape) != (2, 3, 3):
        raise Mismatch("hidden_shape", case="alibi_bias(2, 3, device=meta)", want=(2, 3, 3), got=tuple(got.shape))
    expect_device("alibi_bias(device=meta)", got, "meta", "hint_alibi_device")


CROSS_TOLERANCE = {"float64": 1e-9, "float32": 1e-4}


def _cross_case(ref, case, dtype, label, got, want, variants) -> None:
    """One call's (output, weights): their dtype, then shapes, then values, weights first."""
    expect_finding(dtype_finding("CrossAttention.forward", got, dtype))
    b, _, t_q, t_k = want[1].shape   # weights (B, T_q, T_k): averaged over the heads (MultiheadAttention's default)
    if isinstance(got[1], torch.Tensor) and tuple(got[1].shape) == (b, t_q, t_k):
        raise Mismatch("hidden_shape", hint="hint_cross_heads_averaged", case=f"{label}: weights",
                       want=tuple(want[1].shape), got=tuple(got[1].shape))
    for what, g, w, hint in (("out", got[0], want[0], "hint_cross_q_from_memory"),
                             ("weights", got[1], want[1], "hint_cross_kv_from_x")):
        if isinstance(g, torch.Tensor) and g.shape != w.shape:
            raise Mismatch("hidden_shape", hint=hint, case=f"{label}: {what}", want=tuple(w.shape), got=tuple(g.shape))
    tol = CROSS_TOLERANCE[case]
    for what, index in (("weights", 1), ("out", 0)):
        try:
            expect_close(f"{label}: {what}", got[index], want[index], tol)
        except Mismatch as mismatch:
            g = got[index]
            if mismatch.key != "hidden_dtype" and isinstance(g, torch.Tensor):
                mismatch.hint = cross.cross_hint(g, variants, index, max(tol, 1e-6))
                if mismatch.hint is None and index == 0 and merged_out_of_order(
                        g, ref.out_proj, variants[None][0], max(tol, 1e-6)):
                    mismatch.hint = "hint_cross_merge"
                if mismatch.hint is None and not torch.isfinite(g).all():   # NaN rows: a mask on another axis
                    mismatch.hint = "hint_cross_nan"
            raise


# partial: outputs recorded before a call raised are judged first (a mask applied only when there is none: the masked
# call's outputs, unmasked, name it, before the call without a mask raises).
@procedure(on_error=cross.cross_error, partial=True)
def judge_cross_attention(res, right):
    """right: the module class; the outputs it must match are nn.MultiheadAttention's with its weights."""
    ref = right(*cross_setup(res, "float64", torch.float64)[0]).double()
    expect_layout(res, ref)
    res.fill_parameters(ref)
    ref.eval()
    for case, dtype in DTYPE_CASES:
        _, x, memory, pad = cross_setup(res, case, dtype)
        ref.to(dtype)
        with torch.no_grad():
            for suffix, mask in (("", pad), (".no_mask", None)):
                want = cross.to_torch_mha(ref)(x, memory, memory, key_padding_mask=mask, need_weights=True,
                                                average_attn_weights=False)
                variants = cross.cross_variants(ref, x, memory, pad if mask is not None else torch.zeros_like(pad))
                got = _pair(res[case + suffix], "CrossAttention.forward")
                _cross_case(ref, case, dtype, f"CrossAttention {case}{suffix}", got, want, variants)
    if res["error_on_10_3"] != "ValueError":
        raise Mismatch("hint_cross_head_dim", e=10, h=3)
    for what in ("memory", "x"):
        error, shapes = res[f"error_on_bad_{what}"]
        if error != "ValueError":
            # The shapes as text: hint_of drops tuple fields (a tuple there is a message of its own).
            raise Mismatch("hint_cross_no_input_check", x=str(tuple(shapes[0])), memory=str(tuple(shapes[1])))
    ref.double()
    _, x, memory, pad = cross_setup(res, "grad", torch.float64)
    x, memory = x.requires_grad_(True), memory.requires_grad_(True)
    want = ref(x, memory, pad)
    for g, w in zip(_pair(res["grad"], "CrossAttention.forward"), want):
        expect_close("CrossAttention (grad)", g, w.detach(), 1e-9)
    grads = backward_with_probe(res, want, [x, memory, *ref.parameters()])
    names = ["x", "memory", *(n for n, _ in ref.named_parameters())]
    expect_finding(grad_finding("CrossAttention.forward", res["grad.inputs"], grads, names))
