"""Lesson 3's hidden tests, kernel side: run the learner's code on the grader's inputs and record it."""
import torch

from ..checks.engine import NanRowsSDPA
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


@probe("lesson3.apply_mask")
def apply_mask(rec, fn):
    rec.put("masked", rec.call("apply_mask", fn, *mask_scores(rec)))


@probe("lesson3.padding_keep")
def padding_keep(rec, fn):
    lengths, T = padding_inputs(rec)
    rec.put("keep", rec.call("padding_keep", fn, lengths, T))
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
