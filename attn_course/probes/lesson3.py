"""Lesson 3's exercises: each one's cases (the probe, run in the kernel) and, for the mask functions, its procedure
(the verdict on what the probe recorded, given the right implementation). The grader runs a procedure with the hidden
reference, the visible check (attn_course.checks.lesson3) with the right answer the course's public facts give, on a
seed of its own."""
import torch

from ..checks.engine import NanRowsSDPA, close
from ..checks.masks import tril
from ..findings import dtype_finding
from ..judging import Mismatch, expect_close, expect_device, judge_function, matching_bug, naming, procedure
from ..sizes import avoided
from .cases import backward_with_probe, function_cases
from .recorder import probe

# No size drawn here is one the notebook binds at top level (attn_course.sizes): lesson 3's demos bind none today,
# and a size a later demo binds is then avoided here without another change.
NOTEBOOK = avoided(3)


def module_sizes(draws):
    # the first five as when five were drawn
    b, t, h, d, e, spare = draws.sizes("sizes", 6, low=2, high=14, avoid=NOTEBOOK)
    # Not the visible check's head width (a √4 written as a number would pass here as it does there), nor a size
    # whose root or value is √4 = 2 (a √4 would read as D without the root, or as √T or √H)
    d = d + 1 if d in (2, 4) else d
    t, h = (5 if n == 4 else n for n in (t, h))
    # Nor E = D² (√E = D: the wrong width would read as no root) or E = 4 (√E = √4: the wrong width would read as
    # √4 written as a number), so one mistake is named alike on every seed.
    e = next((n for n in (e, spare) if n not in (d * d, 4)), 13)
    return b, t, h, d, e


def module_inputs(draws):
    """x, padding lengths (the first sequence full, the last empty, one partly padded), and for every cut a copy of
    x changed after it."""
    b, t, _, _, e = module_sizes(draws)
    x = draws.randn("x", b, t, e)
    lengths = draws.randint("lengths", 0, t + 1, (b,))
    partly = 1 + int(lengths[1]) % (t - 1)   # 1 … t-1 tokens: padded queries too (a mask on the query axis shows)
    lengths[0], lengths[-1] = t, 0  # one sequence without padding, one all padding (every key masked)
    lengths[1 if b > 2 else 0] = partly
    changed = []
    for cut in range(t - 1):
        x2 = x.clone()
        x2[:, cut + 1:] = draws.randn(f"x_after_{cut}", b, t - cut - 1, e)
        changed.append(x2)
    return x, lengths, changed


def mask_scores(draws):
    b, h, t = draws.sizes("sizes", 3, avoid=NOTEBOOK)
    keep = draws.rand("keep", b, 1, t, t) > 0.4
    # Query 1 sees key 0 and query 0 does not see key 1, in every sequence: a keep transposed (keep.mT) differs on
    # every seed, not only where the random keep happens not to be symmetric.
    keep[..., 1, 0], keep[..., 0, 1] = True, False
    return draws.randn("scores", b, h, t, t), keep


def padding_inputs(draws):
    b, t = draws.sizes("sizes", 2, low=3, high=15, avoid=NOTEBOOK)
    return draws.randint("lengths", 0, t + 1, (b,)), t


def padding_cases(draws):
    """{key: (lengths, T)}: the drawn lengths, and beside them one sequence full but one, one short, one empty."""
    return {"keep": padding_inputs(draws), "edges": (torch.tensor([5, 2, 0]), 6)}


def mha_masks(draws):
    mask = draws.rand("mask", 4, 6) > 0.5
    return mask, torch.zeros(4, 6, dtype=torch.float64).masked_fill(mask, float("-inf"))


def softmax_scores(draws, case, dtype):
    """Masked scores (B, T_q, T_k). Rows around +800 and rows around -800: exp overflows (inf / inf) or underflows
    (0 / 0) there even in float64 unless each row's own max is subtracted first. Some keys -inf (never the first),
    and the first query's row all -inf, whose weights are 0; not in the gradient case, where softmax's derivative
    on such a row is 0 / 0 (NaN) in the reference too."""
    b, t, u = draws.sizes(f"{case}.sizes", 3, low=3, avoid=NOTEBOOK)
    offset = torch.where(torch.arange(t) % 2 == 1, 800.0, -800.0)[None, :, None]
    hidden = draws.rand(f"{case}.hidden", b, t, u) > 0.6
    hidden[..., 0] = False
    if case != "grad":
        hidden[:, 0] = True
    s = draws.randn(f"{case}.scores", b, t, u, scale=5.0).add(offset).masked_fill(hidden, float("-inf"))
    return (s.to(dtype),)


def causal_sizes(draws):
    """The sequence lengths causal_mask is tried on (the visible check draws them alike, on its own seed)."""
    return draws.sizes("T", 3, low=1, high=20, avoid=NOTEBOOK)


@probe("lesson3.causal_mask")
def causal_mask(rec, fn):
    for T in causal_sizes(rec):
        rec.put(f"T={T}", rec.call("causal_mask", fn, T))
    rec.put("meta", rec.call("causal_mask", fn, 3, device=torch.device("meta")))


def apply_mask_cases(draws):
    """{key: (scores, keep)}: both forms of keep the text allows, a (B, 1, T, T) keep (causal and padding, per
    sequence) and a causal (T, T) one. Each call gets scores of its own (a masked_fill_ may change them)."""
    scores, keep = mask_scores(draws)
    return {"masked": (scores, keep), "causal": (scores.clone(), tril(scores.size(-1)))}


@probe("lesson3.apply_mask")
def apply_mask(rec, fn):
    for key, (scores, keep) in apply_mask_cases(rec).items():
        rec.put(key, rec.call("apply_mask", fn, scores, keep))


@probe("lesson3.padding_keep")
def padding_keep(rec, fn):
    for key, (lengths, T) in padding_cases(rec).items():
        rec.put(key, rec.call("padding_keep", fn, lengths, T))
    lengths, T = padding_inputs(rec)
    # The meta device stands in for a GPU, as the visible check's: the mask follows lengths' device.
    rec.put("meta", rec.call("padding_keep(lengths.to('meta'), T)", fn, lengths.to("meta"), T))


@probe("lesson3.mha_mask_to_sdpa")
def mha_mask_to_sdpa(rec, fn):
    for name, mask in zip(("bool", "additive"), mha_masks(rec)):
        rec.put(name, rec.call("mha_mask_to_sdpa", fn, mask))


@probe("lesson3.safe_softmax")
def safe_softmax(rec, fn):
    function_cases(rec, "safe_softmax", fn, softmax_scores)


MAX_LEN = 16   # the module's buffer, as the visible check's (lesson 3's checks.MAX_LEN)


def max_len_sizes(draws):
    """A max_len above the constructor's default 32, and a sequence longer than 32 that fits in it: a causal buffer
    whose size is written as a number (causal_mask(32)) fails there. The visible check draws them alike."""
    max_len = draws.sizes("max_len", 1, low=40, high=56, avoid=NOTEBOOK)[0]
    return max_len, max_len - draws.sizes("shorter", 1, low=1, high=5)[0]


def buffer_shape(module) -> list | None:
    """The causal buffer's shape, or None (no module, no buffer): the check's and the probe's alike."""
    causal = dict(module.named_buffers()).get("causal") if isinstance(module, torch.nn.Module) else None
    return list(causal.shape) if isinstance(causal, torch.Tensor) else None


def max_len_calls(name: str, max_len: int, T: int) -> tuple:
    """The calls' names in the max_len case, masked and SDPA (an error in one is named by them: "max_len=")."""
    return tuple(f"{name}(…, max_len={max_len}).forward(x{kw})  # T = {T}" for kw in ("", ", use_sdpa=True"))


def _build(rec, cls, dropout):
    _, _, h, d, e = module_sizes(rec)
    module = rec.call("CausalSelfAttention", cls, e, h, d, dropout=dropout, max_len=MAX_LEN).double()
    layout = rec.fill_parameters(module)
    return module, layout


@probe("lesson3.module")
def module(rec, cls):
    name = "CausalSelfAttention"
    mine, layout = _build(rec, cls, 0.0)
    rec.put("layout", layout)
    rec.put("state_dict", sorted(mine.state_dict()))   # persistent=False: the causal buffer is not saved
    x, lengths, changed = module_inputs(rec)
    mine.eval()
    with torch.no_grad():
        for label, lens in (("no_padding", None), ("padding", lengths)):
            call = name if lens is None else f"{name}(x, lengths)"
            rec.put(f"{label}.masked", rec.call(call, mine, x, lens))
            rec.put(f"{label}.sdpa", rec.call(f"{call}(use_sdpa=True)", mine, x, lens, use_sdpa=True)[0])
        with NanRowsSDPA():   # as a GPU's SDPA: NaN where every key is masked, unless the module zeroes it
            rec.put("padding.sdpa_nan", rec.call(f"{name}(x, lengths)(use_sdpa=True)", mine, x, lengths,
                                                 use_sdpa=True)[0])
        # Causality: what changes after position `cut` must not reach the outputs up to it.
        for cut, x2 in enumerate(changed):
            rec.put(f"changed_{cut}.masked", rec.call(name, mine, x2)[0])
            rec.put(f"changed_{cut}.sdpa", rec.call(f"{name}(use_sdpa=True)", mine, x2, use_sdpa=True)[0])
    # Dropout: off in eval (twice the same, equal to no dropout), on the weights in training.
    noisy, _ = _build(rec, cls, 0.5)
    noisy.eval()
    with torch.no_grad():
        rec.put("eval.first", rec.call(name, noisy, x, lengths)[0])
        rec.put("eval.second", rec.call(name, noisy, x, lengths)[0])
        rec.put("eval.sdpa", rec.call(f"{name}(x, lengths)(use_sdpa=True)", noisy, x, lengths, use_sdpa=True)[0])
        noisy.train()
        torch.manual_seed(rec.integer("dropout"))
        rec.put("train.masked", rec.call(name, noisy, x))
        # The meta device stands in for a GPU: a mask made on the CPU inside forward fails there.
        rec.put("meta", meta_error(noisy.eval(), x))
        # Gradients with respect to x and every parameter, as the visible check's (the module is trained).
        with torch.enable_grad():
            leaf = x.clone().requires_grad_(True)
            got = rec.call(name, mine, leaf)
            rec.put("grad.inputs", backward_with_probe(rec, got, [leaf, *(p for _, p in mine.named_parameters())]))
        # The text's rule is T ≤ max_len: T == max_len too (a slice off the buffer's corner fails only there). Last,
        # so that an error here leaves every other result recorded.
        x_full = rec.randn("x_full", x.size(0), MAX_LEN, x.size(2))
        for key, sdpa in (("full.masked", False), ("full.sdpa", True)):
            call = f"{name}(x{', use_sdpa=True' if sdpa else ''})  # T = max_len = {MAX_LEN}"
            rec.put(key, rec.call(call, mine, x_full, use_sdpa=sdpa)[0])
        # A max_len above the default 32, and T > 32: the buffer's size comes from max_len. Last, as the above.
        max_len, t = max_len_sizes(rec)
        _, _, h, d, e = module_sizes(rec)
        long = rec.call(f"{name}(…, max_len={max_len})", cls, e, h, d, max_len=max_len)
        rec.put("long.causal_shape", buffer_shape(long))
        rec.fill_parameters(long.double().eval())
        x_long = rec.randn("x_long", 1, t, e)
        for key, call, sdpa in zip(("long.masked", "long.sdpa"), max_len_calls(name, max_len, t), (False, True)):
            rec.put(key, rec.call(call, long, x_long, use_sdpa=sdpa)[0])


def meta_error(module, x) -> str | None:
    """The error the module raises on the meta device (as on a GPU, for a mask left on the CPU), or None."""
    try:
        module.to("meta")(x.to("meta"))
    except Exception as error:  # noqa: BLE001 - what failed is the grader's to judge
        return f"{type(error).__name__}: {error}"[:300]
    return None


# --------------------------------------------------------------------------- the mask functions' classic mistakes
def causal_mask_error(kind: str, message: str, call: str) -> str | None:
    """An error that names the device (causal_mask without a device= argument, a mask on another device): the
    device hint. Any other error is named by its own text."""
    return "hint_mask_device" if "device" in message else None


def apply_mask_error(kind: str, message: str, call: str) -> str | None:
    """`1 - keep` on a bool keep: PyTorch refuses to subtract from a bool tensor (the course inverts with ~)."""
    return "hint_bool_subtract" if "Subtraction, the `-` operator, with a bool tensor" in message else None


def padding_keep_error(kind: str, message: str, call: str) -> str | None:
    """padding_keep on the meta device (a GPU's stand-in): values read out of lengths (.tolist(), .item(), int())
    cannot be read there; any other error there is the positions made on another device than lengths'."""
    if "copy out of meta tensor" in message or "cannot be called on meta tensors" in message:
        return "hint_meta_values"
    return "hint_padding_device" if "meta" in call or "device" in message else None


def to_sdpa_error(kind: str, message: str, call: str) -> str | None:
    """`~` on a float mask is Python's TypeError: the additive mask was to come back unchanged."""
    return "hint_invert_float_mask" if kind == "TypeError" and "invert" in message else None


def causal_mask_variants(T: int) -> dict:
    """The right causal mask and the classic wrong ones."""
    ones = torch.ones(T, T, dtype=torch.bool)
    return {None: ones.tril(), "hint_upper_triangle": ones.triu(), "hint_inverted_mask": ~ones.tril(),
            "hint_mask_diagonal": ones.tril(diagonal=-1), ("hint_mask_diagonal", "future"): ones.tril(diagonal=1),
            "hint_mask_no_tril": ones}


def apply_mask_variants(scores, keep) -> dict:
    """apply_mask's right result and the classic wrong ones, for a (T, T) or a (B, 1, T, T) keep."""
    inf = float("-inf")
    out = {None: scores.masked_fill(~keep, inf), "hint_inverted_mask": scores.masked_fill(keep, inf),
           "hint_mask_multiplied": scores * keep, "hint_mask_not_applied": scores,
           ("hint_fill_not_inf", "-1e9"): scores.masked_fill(~keep, -1e9),
           ("hint_fill_not_inf", "finfo"): scores.masked_fill(~keep, torch.finfo(scores.dtype).min)}
    with torch.no_grad():
        out["hint_additive_nan"] = scores + (~keep) * inf
    # keep turned round (.T, .mT): the learner's causal mask may be right, the transpose is apply_mask's own
    out["hint_keep_transposed"] = scores.masked_fill(~keep.transpose(-2, -1), inf)
    return out


def padding_variants(lengths, T: int) -> dict:
    position = torch.arange(T, device=lengths.device)
    return {None: position < lengths[:, None], "hint_padding_off_by_one": position <= lengths[:, None],
            "hint_padding_short_by_one": position + 1 < lengths[:, None],   # arange(1, T + 1) < lengths
            "hint_padding_inverted": position >= lengths[:, None],
            ("hint_padding_inverted", ">"): position > lengths[:, None]}


def safe_softmax_variants(scores) -> dict:
    """The right weights, and -inf replaced by a large negative number: a row with every key masked
    then gets 1/T everywhere instead of zeros."""
    return {None: torch.softmax(scores, -1).nan_to_num(0.0),
            "hint_safe_softmax_uniform": torch.softmax(scores.clamp(min=-1e9), -1),
            ("hint_softmax_axis", (("axis", 0),)): torch.softmax(scores, 0).nan_to_num(0.0),
            ("hint_softmax_axis", (("axis", -2),)): torch.softmax(scores, -2).nan_to_num(0.0)}


def safe_softmax_bug(scores, got) -> str | tuple | None:
    """The classic mistake safe_softmax's result shows, or None."""
    if not isinstance(got, torch.Tensor) or got.shape != scores.shape:
        return None
    got = got.detach()
    dead = torch.isneginf(scores).all(-1)
    if torch.isnan(got[dead]).any():
        return "hint_nan_fully_masked"
    if dtype_finding("safe_softmax", got, scores.dtype):
        return "hint_keep_dtype"
    variants = safe_softmax_variants(scores)
    key = matching_bug(got, variants, 1e-9)
    if key:
        return key
    live = got[~dead]
    if not torch.isfinite(live).all() or (live == 0).all(-1).any():
        return "hint_safe_softmax_overflow"   # exp without each row's max first: inf / inf, 0 / 0
    if dead.any() and close(got[~dead], variants[None][~dead], 1e-9):
        return "hint_dead_rows_not_zero"   # nan_to_num(1.0), or another number, where every key is masked
    sums = live.sum(-1)   # rows that see a key must sum to 1
    if not close(sums, torch.ones_like(sums), 1e-3):
        return "hint_rows_not_normalised", {"lo": float(sums.min()), "hi": float(sums.max())}
    return None


def _not_bool(got):
    return ("hint_mask_not_bool", {"dtype": str(got.dtype)}) if isinstance(got, torch.Tensor) \
        and got.dtype != torch.bool else None


def _causal_mask_bug(res):
    for T in causal_sizes(res):
        got = res[f"T={T}"]
        if T > 1 and (key := _not_bool(got) or matching_bug(got, causal_mask_variants(T), 0.0)):
            return key
    meta = res["meta"]
    return "hint_mask_device" if isinstance(meta, torch.Tensor) and meta.device.type != "meta" else None


def _apply_mask_bug(res):
    for key, (scores, keep) in apply_mask_cases(res).items():
        got = res[key]
        if isinstance(got, torch.Tensor) and got.dim() > scores.dim():
            return "hint_keep_as_given"
        if isinstance(got, torch.Tensor) and got.dtype != scores.dtype:
            return "hint_dtype_changed", {"got": str(got.dtype), "want": str(scores.dtype)}
        # NaN where the variant has NaN (0 × -inf), -inf where it has -inf
        if bug := matching_bug(got, apply_mask_variants(scores, keep), 0.0, nan=True):
            return bug
    return None


def _padding_bug(res):
    for key, (lens, size) in padding_cases(res).items():
        got = res[key]
        if bug := _not_bool(got) or matching_bug(got, padding_variants(lens, size), 0.0):
            return bug
    return None


def _to_sdpa_bug(res):
    mask, additive = mha_masks(res)
    if matching_bug(res["bool"], {"hint_same_convention": mask}, 0.0):
        return "hint_same_convention"
    if not matching_bug(res["additive"], {"right": additive}, 0.0):
        return "hint_additive_changed"
    return _not_bool(res["bool"])


def _safe_softmax_bug(res):
    """On the first case that went wrong (float64, float32, then the gradient's)."""
    for case, dtype in (("float64", torch.float64), ("float32", torch.float32), ("grad", torch.float64)):
        (scores,) = softmax_scores(res, case, dtype)
        if key := safe_softmax_bug(scores, res[case]):
            return key
    return None


def expect_mask(what: str, got, want) -> None:
    """A mask, or scores masked with -inf (where a difference is NaN): how many places differ, not a max error."""
    if isinstance(got, torch.Tensor) and got.shape == want.shape and got.dtype == want.dtype \
            and got.device == want.device:
        wrong = int((got != want).sum())   # NaN differs from everything, -inf equals -inf
        if wrong:
            raise Mismatch("mask_differs", what=what, n=wrong, total=want.numel())
        return
    expect_close(what, got, want, 0.0)   # not a tensor, another shape or dtype: said as such


# --------------------------------------------------------------------------- the procedures
# res: what the probe recorded (attn_course.judging.Results); right: the right implementation.
@procedure(on_error=causal_mask_error)
def judge_causal_mask(res, right):
    with naming(lambda: _causal_mask_bug(res)):
        for T in causal_sizes(res):
            expect_mask(f"causal_mask({T})", res[f"T={T}"], right(T))
        expect_device("causal_mask(3, device=meta)", res["meta"], "meta")


@procedure(on_error=apply_mask_error)
def judge_apply_mask(res, right):
    with naming(lambda: _apply_mask_bug(res)):
        for key, (scores, keep) in apply_mask_cases(res).items():
            expect_mask(f"apply_mask(scores {tuple(scores.shape)}, keep {tuple(keep.shape)})", res[key],
                        right(scores, keep))


# An error on the meta device is the positions made on the CPU (arange without device=).
@procedure(on_error=padding_keep_error)
def judge_padding_keep(res, right):
    lengths, T = padding_inputs(res)
    with naming(lambda: _padding_bug(res)):
        for key, (lens, size) in padding_cases(res).items():
            expect_mask(f"padding_keep(torch.tensor({lens.tolist()}), {size})", res[key], right(lens, size))
    with naming(lambda: "hint_padding_device"):
        expect_device(f"padding_keep(lengths.to('meta'), {T})", res["meta"], "meta")


@procedure(on_error=to_sdpa_error)
def judge_mha_mask_to_sdpa(res, right):
    with naming(lambda: _to_sdpa_bug(res)):
        for name, mask in zip(("bool", "additive"), mha_masks(res)):
            expect_mask(f"mha_mask_to_sdpa({name} mask)", res[name], right(mask))


@procedure()
def judge_safe_softmax(res, right):
    with naming(lambda: _safe_softmax_bug(res)):
        judge_function(res, right, softmax_scores)
