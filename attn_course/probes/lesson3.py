"""Lesson 3's exercises: each one's cases (the probe, run in the kernel) and, for the mask functions, its procedure
(the verdict on what the probe recorded, given the right implementation). The grader runs a procedure with the hidden
reference, the visible check (attn_course.checks.lesson3) with the right answer the course's public facts give, on a
seed of its own."""
import torch

from ..checks.engine import NanRowsSDPA, pair_swapped
from ..checks.gpt2_mistakes import buffer_shape as buffer_size
from ..checks.masks import tril
from ..judging import (
    Mismatch, expect_close, expect_device, expect_grads, expect_layout, expect_pair_close, judge_function, matching_bug,
    max_error, naming, procedure,
)
from ..sizes import avoided
from .cases import backward_with_probe, function_cases
from .lesson3_mistakes import (
    MAX_LEN, apply_mask_error, apply_mask_variants, causal_mask_error, causal_mask_variants, dropout_variants,
    module_error, output_variants, padding_keep_error, padding_variants, safe_softmax_bug, sdpa_bug, to_sdpa_error,
    weight_variants,
)
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
    # Nor E = D² (√E = D: the wrong width would read as no root), E = 4 (√E = √4: the wrong width would read as
    # √4 written as a number) or E = D (√E = √D: the wrong width would pass), so one mistake is named alike on every
    # seed.
    e = next((n for n in (e, spare) if n not in (d * d, 4, d)), 13 if d != 13 else 11)
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


def max_len_sizes(draws):
    """A max_len above the constructor's default 32, and a sequence longer than 32 that fits in it: a causal buffer
    whose size is written as a number (causal_mask(32)) fails there. The visible check draws them alike."""
    max_len = draws.sizes("max_len", 1, low=40, high=56, avoid=NOTEBOOK)[0]
    return max_len, max_len - draws.sizes("shorter", 1, low=1, high=5)[0]


def buffer_shape(module) -> list | None:
    """The causal buffer's shape, or None (no module, no buffer)."""
    shape = buffer_size(module)
    return None if shape is None else list(shape)


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
    rec.put("buffer", buffer_shape(mine))   # the text's register_buffer("causal", …)
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


# --------------------------------------------------------------------------- the module's procedure
# right: the module class. Each finder names one classic mistake from the recorded results, independently of the
# others: the first that names one is the failure's hint, the rest are "also" lines.
def _reference(res, right, dropout=0.0, max_len=MAX_LEN):
    _, _, h, d, e = module_sizes(res)
    ref = right(e, h, d, dropout=dropout, max_len=max_len).double()
    expect_layout(res, ref)
    res.fill_parameters(ref)
    return ref


def _nan(*tensors) -> bool:
    return any(isinstance(x, torch.Tensor) and x.is_floating_point() and torch.isnan(x).any() for x in tensors)


def _pairs(res) -> bool:
    return all(isinstance(res[f"{label}.masked"], tuple) and len(res[f"{label}.masked"]) == 2
               for label in ("no_padding", "padding"))


def _weights_bug(res, right):
    """NaN rows, the weights' classic variants, the output's after right weights, the SDPA path."""
    ref = _reference(res, right).eval()
    x, lengths, _ = module_inputs(res)
    if not _pairs(res):
        return None
    with torch.no_grad():
        for label, lens in (("no_padding", None), ("padding", lengths)):
            got, sdpa = res[f"{label}.masked"], res[f"{label}.sdpa"]
            if _nan(*got, sdpa):
                return "hint_nan_fully_masked"
            variants, want_y = weight_variants(ref, x, lens)
            key = matching_bug(got[1], variants, 1e-9)
            if key or not matching_bug(got[1], {"right": variants[None]}, 1e-9):
                return key
            if not matching_bug(got[0], {"right": want_y}, 1e-9):   # the weights right, the output not
                return matching_bug(got[0], output_variants(ref, x, lens), 1e-9)
            if isinstance(sdpa, torch.Tensor) and not matching_bug(sdpa, {"right": want_y}, 1e-7):
                return sdpa_bug(ref, x, lens, sdpa)   # a tensor, not SDPA's (a None is another mistake)
    return None


def _w_o_bug(res, right):
    """The output is H·D wide, not E: W_o not applied."""
    got = res["no_padding.masked"]
    _, _, h, d, e = module_sizes(res)
    y = got[0] if isinstance(got, tuple) and got else None
    return "hint_w_o_missing" if isinstance(y, torch.Tensor) and y.shape[-1:] == (h * d,) != (e,) else None


def _meta_bug(res, right):
    meta = res["meta"]
    return "hint_mask_device" if meta is not None and "device" in str(meta) else None


def _dropout_eval_bug(res, right):
    """Dropout in eval: the learner's module with p = 0.5 must give what it gives with p = 0 (its own output)."""
    own = res["padding.masked"]
    if not (isinstance(own, tuple) and isinstance(own[0], torch.Tensor)):
        return None
    # NaN where the module's own output has NaN is no dropout (a missing nan_to_num is named on its own)
    if not all(matching_bug(res[k], {"own": own[0]}, 1e-9, nan=True) for k in ("eval.first", "eval.second")):
        return "hint_dropout_eval"
    if not matching_bug(res["eval.sdpa"], {"own": res["padding.sdpa"]}, 1e-9, nan=True):
        return "hint_dropout_eval_sdpa"
    return None


def _dropout_train_bug(res, right):
    """In training: dropout where it belongs (told only on a module that is otherwise right), then the weights
    returned from before dropout (told only when the learner's own eval weights sum to 1)."""
    got = res["train.masked"]
    if not (isinstance(got, tuple) and len(got) == 2 and isinstance(got[1], torch.Tensor)) or not _pairs(res):
        return None
    x = module_inputs(res)[0]
    with torch.no_grad():
        want = _reference(res, right).eval()(x)
    # Where dropout went is told only when the learner's eval output is right: else the mistake is elsewhere (W_o).
    if _weights_bug(res, right) is None and matching_bug(res["no_padding.masked"], {"right": want}, 1e-9):
        if matching_bug(got[0], {"no dropout": want[0]}, 1e-9):
            return "hint_dropout_train"
        with torch.no_grad():
            variants = dropout_variants(_reference(res, right, 0.5), x, res.integer("dropout"))
        if not matching_bug(got[0], {"right": variants[None]}, 1e-9):
            return matching_bug(got[0], variants, 1e-9) or "hint_dropout_placement"
    own = res["no_padding.masked"][1]   # in eval the learner's own weights sum to 1: in training they must too
    if isinstance(own, torch.Tensor) and matching_bug(own.sum(-1), {"ones": torch.ones_like(own.sum(-1))}, 1e-6):
        sums = got[1].sum(-1)
        if not matching_bug(sums, {"ones": torch.ones_like(sums)}, 1e-6):
            return "hint_weights_after_dropout"
    return None


def _persistent_bug(res, right):
    return "hint_buffer_persistent" if "causal" in (res["state_dict"] or ()) else None


def _sdpa_nan_bug(res, right):
    """Where a GPU's SDPA gives NaN, the SDPA path must give what it gives here (nan_to_num(0.0)): compared with the
    module's own SDPA output, not with the masked path's."""
    own = res["padding.sdpa"]
    if not isinstance(own, torch.Tensor) or _nan(own):
        return None
    return None if matching_bug(res["padding.sdpa_nan"], {"own": own}, 1e-9) else "hint_sdpa_nan_rows"


def _wrong_only_in(res, right, keys, want, hint):
    """hint when both paths are right at the probe's own T, with and without padding, and wrong (or failed) in keys:
    the case they record is what differs."""
    x, lengths, _ = module_inputs(res)
    ref = _reference(res, right).eval()
    with torch.no_grad():
        for label, lens in (("no_padding", None), ("padding", lengths)):
            at_t = ref(x, lens)
            if not (matching_bug(res[f"{label}.masked"], {"right": at_t}, 1e-9)
                    and matching_bug(res[f"{label}.sdpa"], {"right": at_t[0]}, 1e-7)):
                return None
    return None if all(matching_bug(res[k], {"right": want}, 1e-7) for k in keys) else hint


def _full_right(res, right):
    """The right output at T == max_len (the text's rule is T ≤ max_len: a slice off the buffer's corner fails
    only there)."""
    x = module_inputs(res)[0]
    with torch.no_grad():
        return _reference(res, right).eval()(res.randn("x_full", x.size(0), MAX_LEN, x.size(2)))[0]


def _full_length_bug(res, right):
    return _wrong_only_in(res, right, ("full.masked", "full.sdpa"), _full_right(res, right), "hint_causal_full_length")


def _long_right(res, right):
    """The right output built with a max_len above 32, at T > 32 (max_len_sizes)."""
    max_len, t = max_len_sizes(res)
    with torch.no_grad():
        return _reference(res, right, max_len=max_len).eval()(res.randn("x_long", 1, t, module_sizes(res)[4]))[0]


def _max_len_bug(res, right):
    """A buffer not sized by max_len: of another shape, or the module right at the probe's T and wrong past 32."""
    shape = res["long.causal_shape"]
    if shape is not None and shape != [max_len_sizes(res)[0]] * 2:
        return "hint_causal_max_len"
    return _wrong_only_in(res, right, ("long.masked", "long.sdpa"), _long_right(res, right), "hint_causal_max_len")


MODULE_FINDERS = (_weights_bug, _w_o_bug, _meta_bug, _dropout_eval_bug, _dropout_train_bug, _persistent_bug,
                  _sdpa_nan_bug, _full_length_bug, _max_len_bug)


def _module_bug(res, right):
    for finder in MODULE_FINDERS:
        if key := finder(res, right):
            return key
    return None


# partial: a missing buffer is named from what was recorded before the error it caused
@procedure(on_error=module_error, partial=True)
def judge_module(res, right):
    with naming(lambda: _module_bug(res, right), *(lambda f=f: f(res, right) for f in MODULE_FINDERS)):
        _judge_module(res, right)


def _expect_pair(case, got, want, tol=1e-9):
    if not (isinstance(got, tuple) and len(got) == 2):
        raise Mismatch("returned_not_pair", name="CausalSelfAttention.forward", kind=type(got).__name__)
    if pair_swapped(got, want[0].shape):
        raise Mismatch("hint_pair_order", name="CausalSelfAttention.forward")
    expect_close(case, got[0], want[0], tol)
    expect_close(case, got[1], want[1], tol)


def _judge_module(res, right):
    ref = _reference(res, right).eval()
    if res["buffer"] is None:
        raise Mismatch("hint_buffer_missing")
    x, lengths, changed = module_inputs(res)
    masked, sdpa = ("case_masked_path",), ("case_sdpa_path",)
    with torch.no_grad():
        for label, lens in (("no_padding", None), ("padding", lengths)):
            want = ref(x, lens)
            _expect_pair(masked, res[f"{label}.masked"], want)
            expect_close(sdpa, res[f"{label}.sdpa"], want[0], 1e-7)
        expect_close(sdpa, res["padding.sdpa_nan"], want[0], 1e-7)   # NaN where a GPU's SDPA gives it
    want_full = _full_right(res, right)
    expect_close(masked, res["full.masked"], want_full, 1e-9)
    expect_close(sdpa, res["full.sdpa"], want_full, 1e-7)
    max_len, t = max_len_sizes(res)
    shape = res["long.causal_shape"]
    if shape is not None and shape != [max_len, max_len]:
        raise Mismatch("causal_max_len_buffer", hint="hint_causal_max_len", max_len=max_len, got=tuple(shape))
    want_long = _long_right(res, right)
    for key, tol in (("long.masked", 1e-9), ("long.sdpa", 1e-7)):   # named by _max_len_bug
        expect_close(f"max_len={max_len}, T={t}", res[key], want_long, tol)
    with torch.no_grad():
        for cut, x2 in enumerate(changed):
            want = ref(x2)[0]
            got = res[f"changed_{cut}.masked"]
            if isinstance(got, torch.Tensor) and got.shape == want.shape and \
                    max_error(got[:, :cut + 1], want[:, :cut + 1]) > 1e-9:
                raise Mismatch("hint_not_causal", t=cut)
            expect_close(masked, got, want, 1e-9)
            expect_close(sdpa, res[f"changed_{cut}.sdpa"], want, 1e-7)
        noisy = _reference(res, right, 0.5).eval()
        want = noisy(x, lengths)[0]
        determinism = ("case_eval_determinism",)
        for key, tol in (("eval.first", 1e-9), ("eval.second", 1e-9), ("eval.sdpa", 1e-7)):
            expect_close(determinism, res[key], want, tol)
        noisy.train()
        torch.manual_seed(res.integer("dropout"))
        want = noisy(x)
    expect_pair_close("dropout_train_differs", res["train.masked"], want, 1e-9)
    if res["meta"] is not None:   # as on a GPU
        raise Mismatch("hidden_raised", name="CausalSelfAttention (meta)", error=str(res["meta"])[:300])
    if _persistent_bug(res, right):
        raise Mismatch("hint_buffer_persistent")
    # Gradients last, by the check's rule (attn_course.findings.grad_finding): once every output is right.
    leaf = x.clone().requires_grad_(True)
    grads = backward_with_probe(res, ref(leaf), [leaf, *ref.parameters()])
    expect_grads("CausalSelfAttention", res["grad.inputs"], grads, ["x", *(n for n, _ in ref.named_parameters())])
