"""Lesson 3's reference and its judges. Lives only in autograder/: never in a release, never in a kernel."""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F
from attn_course.checks import lesson3 as checks
from attn_course.checks.engine import SIZE_MISMATCH, pair_swapped
from attn_course.probes import lesson3 as probe
from attn_course.validate import expect_size, expect_tokens, resolve_head_dim
from attn_course.probes.cases import backward_with_probe
from attn_course.judging import (
    Mismatch, expect_close, expect_grads, expect_layout, matching_bug, max_error, naming,
)
from attn_grader.judge import judge, judged_by


def causal_mask(T, device=None):
    return torch.ones(T, T, dtype=torch.bool, device=device).tril()


def apply_mask(scores, keep):
    return scores.masked_fill(~keep, float("-inf"))


def padding_keep(lengths, T):
    return torch.arange(T, device=lengths.device) < lengths[:, None]


def mha_mask_to_sdpa(mask):
    return ~mask if mask.dtype == torch.bool else mask


def safe_softmax(scores):
    weights = torch.softmax(scores, dim=-1)
    return weights.nan_to_num(0.0)


def split_heads(x, n_head):
    B, T, HD = x.shape
    return x.view(B, T, n_head, HD // n_head).transpose(1, 2)


def merge_heads(x):
    B, H, T, D = x.shape
    return x.transpose(1, 2).contiguous().view(B, T, H * D)


class CausalSelfAttention(nn.Module):
    def __init__(self, embed_dim, n_head, head_dim=None, dropout=0.0, max_len=32):
        super().__init__()
        self.embed_dim = expect_size(embed_dim, "embed_dim")
        self.n_head = expect_size(n_head, "n_head")
        self.head_dim = resolve_head_dim(embed_dim, n_head, head_dim)
        self.max_len = expect_size(max_len, "max_len")
        inner = self.n_head * self.head_dim
        self.W_q = nn.Linear(embed_dim, inner, bias=False)
        self.W_k = nn.Linear(embed_dim, inner, bias=False)
        self.W_v = nn.Linear(embed_dim, inner, bias=False)
        self.W_o = nn.Linear(inner, embed_dim, bias=False)
        self.dropout = nn.Dropout(dropout)
        self.register_buffer("causal", causal_mask(max_len), persistent=False)

    def forward(self, x, lengths=None, use_sdpa=False):
        expect_tokens(x, self.embed_dim)
        B, T, _ = x.shape
        H = self.n_head
        Q, K, V = (split_heads(f(x), H) for f in (self.W_q, self.W_k, self.W_v))
        keep = self.causal[:T, :T]                                          # (T, T)
        if lengths is not None:
            keep = keep & padding_keep(lengths, T)[:, None, None, :]        # (B, 1, T, T)
        if use_sdpa:
            p = self.dropout.p if self.training else 0.0
            y = F.scaled_dot_product_attention(Q, K, V, attn_mask=keep, dropout_p=p)
            return self.W_o(merge_heads(y.nan_to_num(0.0))), None
        scores = apply_mask(Q @ K.transpose(-2, -1) / math.sqrt(self.head_dim), keep)
        weights = safe_softmax(scores)
        y = merge_heads(self.dropout(weights) @ V)
        return self.W_o(y), weights


# --------------------------------------------------------------------------- naming the module's mistake
# On a mismatch, the learner's results are compared with the visible check's classic bugs
# (attn_course.checks.lesson3), computed here on the grader's own inputs.
def _nan(*tensors) -> bool:
    return any(isinstance(x, torch.Tensor) and x.is_floating_point() and torch.isnan(x).any() for x in tensors)


def _pairs(res) -> bool:
    return all(isinstance(res[f"{label}.masked"], tuple) and len(res[f"{label}.masked"]) == 2
               for label in ("no_padding", "padding"))


def _weights_bug(res):
    """NaN rows, the weights' classic variants, the SDPA path: the visible check's order."""
    ref = _reference(res, 0.0).eval()
    x, lengths, _ = probe.module_inputs(res)
    if not _pairs(res):
        return None
    with torch.no_grad():
        for label, lens in (("no_padding", None), ("padding", lengths)):
            got = res[f"{label}.masked"]
            if _nan(*got, res[f"{label}.sdpa"]):
                return "hint_nan_fully_masked"
            variants, want_y = checks.causal_reference(ref, x, lens)
            key = matching_bug(got[1], variants, 1e-9)
            if key or not matching_bug(got[1], {"right": variants[None]}, 1e-9):
                return key
            if not matching_bug(got[0], {"right": want_y}, 1e-9):   # the weights right, the output not
                return matching_bug(got[0], checks.output_variants(ref, x, lens), 1e-9)
            sdpa = res[f"{label}.sdpa"]
            if isinstance(sdpa, torch.Tensor) and not matching_bug(sdpa, {"right": want_y}, 1e-7):
                return checks.sdpa_bug(ref, x, lens, sdpa)   # a tensor, not SDPA's (a None is another mistake)
    return None


def _w_o_bug(res):
    """The output is H·D wide, not E: W_o not applied (the visible check's hint for that shape)."""
    got = res["no_padding.masked"]
    _, _, h, d, e = probe.module_sizes(res)
    y = got[0] if isinstance(got, tuple) and got else None
    return "hint_w_o_missing" if isinstance(y, torch.Tensor) and y.shape[-1:] == (h * d,) != (e,) else None


def _meta_bug(res):
    meta = res["meta"]
    return "hint_mask_device" if meta is not None and "device" in str(meta) else None


def _dropout_eval_bug(res):
    """Dropout in eval: the learner's module with p = 0.5 must give what it gives with p = 0 (its own output)."""
    own = res["padding.masked"]
    if not (isinstance(own, tuple) and isinstance(own[0], torch.Tensor)):
        return None
    # NaN where the module's own output has NaN is no dropout (a missing nan_to_num is named on its own)
    same = all(matching_bug(res[k], {"own": own[0]}, 1e-9, nan=True) for k in ("eval.first", "eval.second"))
    if not same:
        return "hint_dropout_eval"
    if not matching_bug(res["eval.sdpa"], {"own": res["padding.sdpa"]}, 1e-9, nan=True):
        return "hint_dropout_eval_sdpa"
    return None


def _dropout_train_bug(res):
    """In training: dropout where it belongs (told only on a module that is otherwise right), then the weights
    returned from before dropout (told only when the learner's own eval weights sum to 1)."""
    got = res["train.masked"]
    if not (isinstance(got, tuple) and len(got) == 2 and isinstance(got[1], torch.Tensor)) or not _pairs(res):
        return None
    x = probe.module_inputs(res)[0]
    # Where dropout went is told only when the learner's eval output is right: else the mistake is elsewhere (W_o).
    if _weights_bug(res) is None and matching_bug(res["no_padding.masked"], {"right": _right_eval(res)}, 1e-9):
        with torch.no_grad():
            if matching_bug(got[0], {"no dropout": _reference(res, 0.0).eval()(x)[0]}, 1e-9):
                return "hint_dropout_train"
            variants = checks.dropout_variants(_reference(res, 0.5), x, res.integer("dropout"))
        if not matching_bug(got[0], {"right": variants[None]}, 1e-9):
            return matching_bug(got[0], variants, 1e-9) or "hint_dropout_placement"
    own = res["no_padding.masked"][1]   # in eval the learner's own weights sum to 1: in training they must too
    if isinstance(own, torch.Tensor) and matching_bug(own.sum(-1), {"ones": torch.ones_like(own.sum(-1))}, 1e-6):
        sums = got[1].sum(-1)
        if not matching_bug(sums, {"ones": torch.ones_like(sums)}, 1e-6):
            return "hint_weights_after_dropout"
    return None


def _right_eval(res):
    """The reference's (output, weights) in eval, without padding."""
    x = probe.module_inputs(res)[0]
    with torch.no_grad():
        return _reference(res, 0.0).eval()(x)


def _persistent_bug(res):
    return "hint_buffer_persistent" if "causal" in (res["state_dict"] or ()) else None


def _sdpa_nan_bug(res):
    """Where a GPU's SDPA gives NaN, the SDPA path must give what it gives here (nan_to_num(0.0)): compared with the
    module's own SDPA output, as the visible check does, not with the masked path's."""
    own = res["padding.sdpa"]
    if not isinstance(own, torch.Tensor) or _nan(own):
        return None
    return None if matching_bug(res["padding.sdpa_nan"], {"own": own}, 1e-9) else "hint_sdpa_nan_rows"


def _right_at_probe_t(res) -> bool:
    """Both paths right at the probe's own T, with and without padding."""
    x, lengths, _ = probe.module_inputs(res)
    ref = _reference(res, 0.0).eval()
    with torch.no_grad():
        for label, lens in (("no_padding", None), ("padding", lengths)):
            want = ref(x, lens)
            if not (matching_bug(res[f"{label}.masked"], {"right": want}, 1e-9)
                    and matching_bug(res[f"{label}.sdpa"], {"right": want[0]}, 1e-7)):
                return False
    return True


def _full_length_bug(res):
    """Both paths right at the probe's T, wrong or failing at T == max_len: the buffer sliced off its corner."""
    if not _right_at_probe_t(res):
        return None
    x = probe.module_inputs(res)[0]
    ref = _reference(res, 0.0).eval()
    with torch.no_grad():
        x_full = res.randn("x_full", x.size(0), probe.MAX_LEN, x.size(2))
        want = ref(x_full)[0]
    same = all(matching_bug(res[k], {"right": want}, 1e-7) for k in ("full.masked", "full.sdpa"))
    return None if same else "hint_causal_full_length"


def _long_right(res):
    """The max_len case (probes.lesson3.max_len_sizes): the reference built with that max_len, on x_long."""
    max_len, t = probe.max_len_sizes(res)
    e = probe.module_sizes(res)[4]
    with torch.no_grad():
        return _reference(res, 0.0, max_len).eval()(res.randn("x_long", 1, t, e))[0]


def _expect_max_len(res):
    """Built with a max_len above 32 and run at T > 32, as the visible check's _expect_max_len."""
    max_len, t = probe.max_len_sizes(res)
    shape = res["long.causal_shape"]
    if shape is not None and shape != [max_len, max_len]:
        raise Mismatch("causal_max_len_buffer", hint="hint_causal_max_len", max_len=max_len, got=tuple(shape))
    want = _long_right(res)
    for key, tol in (("long.masked", 1e-9), ("long.sdpa", 1e-7)):   # named by _max_len_bug
        expect_close(f"max_len={max_len}, T={t}", res[key], want, tol)


def _max_len_bug(res):
    """Right at the probe's own T, wrong with a max_len above 32 at T > 32: a buffer not sized by max_len."""
    max_len = probe.max_len_sizes(res)[0]
    shape = res["long.causal_shape"]
    if shape is not None and shape != [max_len, max_len]:
        return "hint_causal_max_len"
    if not _right_at_probe_t(res):
        return None
    want = _long_right(res)
    same = all(matching_bug(res[k], {"right": want}, 1e-7) for k in ("long.masked", "long.sdpa"))
    return None if same else "hint_causal_max_len"


# Each finds one classic mistake, independently of the others: the first names the failure, the rest are "also".
MODULE_FINDERS = (_weights_bug, _w_o_bug, _meta_bug, _dropout_eval_bug, _dropout_train_bug, _persistent_bug, _sdpa_nan_bug,
                  _full_length_bug, _max_len_bug)


def _module_bug(res):
    for finder in MODULE_FINDERS:
        if key := finder(res):
            return key
    return None


def _module_error(kind, message, call):
    """An error the module raised: at T == max_len, in the SDPA path, a padding mask meeting the scores (as the
    visible check names them), or the whole causal buffer."""
    if key := checks.module_error(kind, message, call):
        return key
    sizes = SIZE_MISMATCH.search(message)
    if sizes and "16" in sizes.groups():
        other = int(sizes[1]) if sizes[2] == "16" else int(sizes[2])
        return "hint_causal_slice", {"T": other, "max_len": 16}
    return None


# --------------------------------------------------------------------------- judges
# Each is the exercise's public procedure (attn_course.probes.lesson3) given this reference: the visible check runs
# the same procedure with the right answer the course's public facts give.
judged_by("lesson3.causal_mask", probe.judge_causal_mask, causal_mask)
judged_by("lesson3.apply_mask", probe.judge_apply_mask, apply_mask)
judged_by("lesson3.padding_keep", probe.judge_padding_keep, padding_keep)
judged_by("lesson3.mha_mask_to_sdpa", probe.judge_mha_mask_to_sdpa, mha_mask_to_sdpa)
judged_by("lesson3.safe_softmax", probe.judge_safe_softmax, safe_softmax)


def _reference(res, dropout, max_len=probe.MAX_LEN):
    _, _, h, d, e = probe.module_sizes(res)
    ref = CausalSelfAttention(e, h, d, dropout=dropout, max_len=max_len).double()
    expect_layout(res, ref)
    res.fill_parameters(ref)
    return ref


def _pair(case, got, want, tol=1e-9):
    if not (isinstance(got, tuple) and len(got) == 2):
        raise Mismatch("returned_not_pair", name="CausalSelfAttention.forward", kind=type(got).__name__)
    if pair_swapped(got, want[0].shape):
        raise Mismatch("hint_pair_order", name="CausalSelfAttention.forward")
    expect_close(case, got[0], want[0], tol)
    expect_close(case, got[1], want[1], tol)


@judge("lesson3.module", on_error=_module_error, partial=True)
def judge_module(res):
    with naming(lambda: _module_bug(res), *(lambda f=f: f(res) for f in MODULE_FINDERS)):
        _judge_module(res)


def _judge_module(res):
    ref = _reference(res, 0.0).eval()
    x, lengths, changed = probe.module_inputs(res)
    masked, sdpa = ("case_masked_path",), ("case_sdpa_path",)
    with torch.no_grad():
        for label, lens in (("no_padding", None), ("padding", lengths)):
            want = ref(x, lens)
            _pair(masked, res[f"{label}.masked"], want)
            expect_close(sdpa, res[f"{label}.sdpa"], want[0], 1e-7)
        expect_close(sdpa, res["padding.sdpa_nan"], want[0], 1e-7)   # NaN where a GPU's SDPA gives it
        x_full = res.randn("x_full", x.size(0), probe.MAX_LEN, x.size(2))   # T == max_len: the rule is T ≤ max_len
        want_full = ref(x_full)[0]
        expect_close(masked, res["full.masked"], want_full, 1e-9)
        expect_close(sdpa, res["full.sdpa"], want_full, 1e-7)
        _expect_max_len(res)
        for cut, x2 in enumerate(changed):
            want = ref(x2)[0]
            got = res[f"changed_{cut}.masked"]
            if isinstance(got, torch.Tensor) and got.shape == want.shape and \
                    max_error(got[:, :cut + 1], want[:, :cut + 1]) > 1e-9:
                raise Mismatch("hint_not_causal", t=cut)
            expect_close(masked, got, want, 1e-9)
            expect_close(sdpa, res[f"changed_{cut}.sdpa"], want, 1e-7)
    noisy = _reference(res, 0.5).eval()
    with torch.no_grad():
        want = noisy(x, lengths)[0]
        determinism = ("case_eval_determinism",)
        for key in ("eval.first", "eval.second"):
            expect_close(determinism, res[key], want, 1e-9)
        expect_close(determinism, res["eval.sdpa"], want, 1e-7)
        noisy.train()
        torch.manual_seed(res.integer("dropout"))
        want = noisy(x)
    got = res["train.masked"]
    if not (isinstance(got, tuple) and len(got) == 2 and all(isinstance(g, torch.Tensor) for g in got)) or \
            got[0].shape != want[0].shape or got[1].shape != want[1].shape:
        raise Mismatch("hidden_dropout_train", err=float("inf"))
    err = max(max_error(got[0], want[0]), max_error(got[1], want[1]))
    if not err <= 1e-9:
        raise Mismatch("hidden_dropout_train", err=err)
    meta = res["meta"]
    if meta is not None:  # as on a GPU: the visible check runs the module on the meta device too
        raise Mismatch("hidden_raised", name="CausalSelfAttention (meta)", error=str(meta)[:300])
    if _persistent_bug(res):
        raise Mismatch("hint_buffer_persistent")
    # Gradients last, by the check's rule (attn_course.findings.grad_finding): once every output is right.
    leaf = x.clone().requires_grad_(True)
    grads = backward_with_probe(res, ref(leaf), [leaf, *ref.parameters()])
    expect_grads("CausalSelfAttention", res["grad.inputs"], grads, ["x", *(n for n, _ in ref.named_parameters())])
