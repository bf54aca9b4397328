"""Lesson 4's visible checks: the fused QKV split, the GPT-2 module, its init, loading from and exporting to HF."""
from __future__ import annotations

import math

import torch

from ..hf import hf_attention, hf_forward
from ..messages import t
from ..validate import CheckFailed
from .engine import (
    check_count_answer, close, diagnose, expect_dropout_rules, expect_returned_pair, expect_shape, inputs,
    linear_problem, max_error, merge_heads, passed, run, run_forward, split_heads, tril,
)

# Sizes all different: batch, sequence, heads, head width; E = H·D = 12.
B, T, H, D = 2, 5, 3, 4
E = H * D
def qkv_variants(qkv, H) -> dict:
    Bq, T, three_e = qkv.shape
    E = three_e // 3
    D = E // H
    right = tuple(split_heads(z, H) for z in qkv.split(E, dim=-1))
    chunked = qkv.view(Bq, T, H, 3 * D).chunk(3, dim=-1)
    return {None: right, "hint_interleaved_qkv": tuple(z.transpose(1, 2) for z in chunked),
            ("hint_qkv_order", "kqv"): (right[1], right[0], right[2]),
            ("hint_qkv_order", "vkq"): (right[2], right[1], right[0]),
            ("hint_qkv_order", "qvk"): (right[0], right[2], right[1])}


def check_split_qkv(fn) -> None:
    name = "split_qkv"
    (qkv,) = inputs((B, T, 3 * E), seed=16)
    got = run(name, fn, qkv, H)
    if not (isinstance(got, tuple) and len(got) == 3):
        raise CheckFailed(t("hint_returns_triple", name=name, kind=type(got).__name__))
    for part in got:
        missing = isinstance(part, torch.Tensor) and tuple(part.shape) == (B, T, H, D)
        expect_shape(part, (B, H, T, D), ("B", "H", "T", "D"), name,
                     t("hint_missing_transpose") if missing else None)
    variants = qkv_variants(qkv, H)
    if all(torch.equal(a, b) for a, b in zip(got, variants[None])):
        passed(name)
        return
    # Which of q, k, v are wrong, and by how much: every part has the right shape by now.
    wrong = [(part, max_error(a, b)) for part, a, b in zip("qkv", got, variants[None]) if not torch.equal(a, b)]
    failure = t("split_differs", name=name, parts=", ".join(p for p, _ in wrong), err=max(e for _, e in wrong))
    for key, value in variants.items():
        if key is not None and all(torch.equal(a, b) for a, b in zip(got, value)):
            raise CheckFailed(failure, t(key[0] if isinstance(key, tuple) else key))
    raise CheckFailed(failure)


def gpt2_expected(module, x, masked=True):
    Bx, T, E = x.shape
    qkv = module.c_attn(x)
    keep = tril(T)
    variants = {}
    for key, (q, k, v) in qkv_variants(qkv, module.n_head).items():
        raw = q @ k.transpose(-2, -1) / math.sqrt(E // module.n_head)
        w = torch.softmax(raw.masked_fill(~keep, float("-inf")), -1)
        variants[key] = module.c_proj(merge_heads(w @ v))
        if key is None:
            variants["hint_missing_mask"] = module.c_proj(merge_heads(torch.softmax(raw, -1) @ v))
            # Divided by √E, the embedding width, instead of √D, one head's.
            by_e = (raw * math.sqrt(E // module.n_head) / math.sqrt(E)).masked_fill(~keep, float("-inf"))
            variants[("hint_scale_head_dim", "E")] = module.c_proj(merge_heads(torch.softmax(by_e, -1) @ v))
    return variants


def check_gpt2_module(cls) -> None:
    expect_gpt2_module(cls)
    passed("GPT2SelfAttention")


def expect_gpt2_module(cls) -> None:
    """Lesson 4's checks of the module, without the line saying they passed: lesson 7 adds its own after them."""
    name = "GPT2SelfAttention"
    max_len = 64  # the constructor's default, which the checked module is built with
    module = run(name, cls, E, H)
    for layer, (n_in, n_out) in {"c_attn": (E, 3 * E), "c_proj": (E, E)}.items():
        problem = linear_problem(module, layer, n_in, n_out, "", bias=True)
        if problem:
            raise problem
    if "causal" not in dict(module.named_buffers()):
        raise CheckFailed(t("hint_buffer_missing"))
    module = module.double().eval()
    (x,) = inputs((B, T, E), seed=17)
    with torch.no_grad():
        y, _ = expect_returned_pair(run_forward(f"{name}.forward", module, x, max_len=max_len), f"{name}.forward")
        expect_shape(y, (B, T, E), ("B", "T", "E"), t("what_output"))
        variants = gpt2_expected(module, x)
        diagnose(y, variants, "what_output")
        y_sdpa = run(f"{name}.forward(use_sdpa=True)", module, x, True)[0]
        if not close(y_sdpa, variants[None], 1e-6):
            raise CheckFailed(t("values_differ", what="use_sdpa=True", err=max_error(y_sdpa, variants[None])))
    noisy = run(name, cls, E, H, dropout=0.5).double()
    noisy.load_state_dict(module.state_dict(), strict=False)
    forward = lambda m, use_sdpa: expect_returned_pair(run(f"{name}.forward", m, x, use_sdpa), f"{name}.forward")  # noqa: E731
    expect_dropout_rules(noisy, forward, variants[None])


def check_gpt2_init(fn, cls) -> None:
    name = "gpt2_init"
    torch.manual_seed(0)
    module = run(name, fn, cls(768, 12), 12)
    for layer, want in (("c_attn", 0.02), ("c_proj", 0.02 / math.sqrt(2 * 12))):
        weight = getattr(module, layer).weight.detach()
        if abs(float(weight.std()) - want) > 0.1 * want or abs(float(weight.mean())) > 0.1 * want:
            raise CheckFailed(t("hint_init_std", name=f"{layer}.weight", got=float(weight.std()), want=want))
        bias = getattr(module, layer).bias
        if bias is not None and float(bias.detach().abs().max()) != 0.0:
            raise CheckFailed(t("hint_init_bias", name=f"{layer}.bias"))
    passed(name)


def hf_pair_problem(mine: dict, hf: dict) -> str | None:
    """The hint key of the classic loading bug that makes mine differ from hf (parameters by name), if any."""
    def same(a, b, transposed=False):
        if not (isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor)):
            return False
        b = b.T if transposed else b  # Conv1D keeps (in, out), nn.Linear (out, in)
        return a.shape == b.shape and torch.equal(a.detach().to(b.dtype), b.detach())
    if not all(same(mine.get(f"{n}.weight"), hf.get(f"{n}.weight"), True) for n in ("c_attn", "c_proj")):
        return "hint_conv1d_transpose"
    if not all(same(mine.get(f"{n}.bias"), hf.get(f"{n}.bias")) for n in ("c_attn", "c_proj")):
        return "hint_missing_bias"
    return None


def _hf_pair_hint(mine, hf) -> str | None:
    key = hf_pair_problem(dict(mine.named_parameters()), dict(hf.named_parameters()))
    return t(key) if key else None


def hf_copy_error(kind: str, message: str, call: str = "") -> str:
    """The hint key for an error raised while copying between the two modules (the grader uses it too).

    Assigning a tensor to a parameter and copy_ outside no_grad are mistakes in how to copy,
    not in the layout, so "transpose" would send the learner the wrong way.
    """
    if kind == "TypeError" and "as parameter" in message:   # mine.c_attn.weight = hf.c_attn.weight.T
        return "hint_param_assign"
    if "leaf Variable" in message:                          # .copy_ outside torch.no_grad()
        return "hint_copy_no_grad"
    return "hint_conv1d_transpose"


def check_load_from_hf(fn, cls) -> None:
    name = "load_from_hf"
    hf = hf_attention(E, H, seed=18)
    mine = run(name, fn, cls(E, H), hf, on_error=hf_copy_error)
    problem = _hf_pair_hint(mine, hf)
    (x,) = inputs((B, T, E), seed=19, dtype=torch.float32)
    with torch.no_grad():
        y, want = mine.eval()(x)[0], hf_forward(hf, x)
    if problem or not close(y, want, 1e-5):
        raise CheckFailed(t("values_differ", what=name, err=max_error(y, want)), problem)
    passed(name)


def check_export_to_hf(fn, cls) -> None:
    name = "export_to_hf"
    source = hf_attention(E, H, seed=20)
    mine = cls(E, H)
    with torch.no_grad():
        mine.c_attn.weight.copy_(source.c_attn.weight.T)
        mine.c_attn.bias.copy_(source.c_attn.bias)
        mine.c_proj.weight.copy_(source.c_proj.weight.T)
        mine.c_proj.bias.copy_(source.c_proj.bias)
    hf = run(name, fn, mine, hf_attention(E, H, seed=21), on_error=hf_copy_error)
    problem = _hf_pair_hint(mine, hf)
    (x,) = inputs((B, T, E), seed=22, dtype=torch.float32)
    with torch.no_grad():
        y, got = mine.eval()(x)[0], hf_forward(hf, x)
    if problem or not close(y, got, 1e-5):
        raise CheckFailed(t("values_differ", what=name, err=max_error(y, got)), problem)
    passed(name)


def check_gpt2_param_answer(answer, cls) -> None:
    """Lesson 4: the parameter count of GPT-2 small's attention, GPT2SelfAttention(768, 12)."""
    check_count_answer("answer_n_params", answer, cls, (768, 12), check_gpt2_module)
