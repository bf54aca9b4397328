"""Lesson 6: FLOPs, KV-cache bytes, tiled attention, grouped-query attention, the KV cache.

Visible checks (right code passes, each classic bug gets its own hint, in both languages),
hidden tests (probe in the kernel, judge in the grader: the reference passes, bugs fail).
Its planted bugs (a graded submission per classic bug, which tests/test_grading.py grades as a class) are in
tools/planted/lesson6.py.
"""
import math

import pytest
import torch
import torch.nn as nn

from attn_course.checks import lesson6 as checks
from attn_course.messages import t
from attn_course.probes import lesson6 as probes
from attn_course.validate import CheckFailed
from conftest import check_names, fails, fails_with, passes, reference

@pytest.fixture(scope="module")
def ref():
    return reference("lesson6")


def _flops(mac=1, heads=True, qkv=3, batch=True):
    def attention_flops(B, T, E, H):
        b, h = (B if batch else 1), (H if heads else 1)
        f = {"qkv": 2 * b * T * E * qkv * E, "scores": 2 * b * h * T * T * (E // H),
             "weighted_sum": 2 * b * h * T * T * (E // H), "out_proj": 2 * b * T * E * E}
        return {k: v // (2 if mac == 0 else 1) for k, v in f.items()}
    return attention_flops


def _flops_float_d(B, T, E, H):
    D = E / H   # a float D: every count right, but a float
    return {"qkv": 2 * B * T * E * 3 * E, "scores": 2 * B * H * T * T * D, "weighted_sum": 2 * B * H * T * T * D,
            "out_proj": 2 * B * T * E * E}


def _flops_divided_by_d(B, T, E, H):
    D = E // H
    return {"qkv": 2 * B * T * E * 3 * E, "scores": 2 * B * H * T * T / D, "weighted_sum": 2 * B * H * T * T * D,
            "out_proj": 2 * B * T * E * E}


def test_attention_flops_bugs_get_their_hints(lang, ref):
    checks.check_attention_flops(ref.attention_flops)
    checks.check_attention_flops(_flops())
    fails_with(checks.check_attention_flops, _flops(mac=0), "hint_flops_macs")
    fails_with(checks.check_attention_flops, _flops(heads=False), "hint_flops_heads")
    fails_with(checks.check_attention_flops, _flops(qkv=1), "hint_flops_qkv3")
    fails_with(checks.check_attention_flops, _flops(batch=False), "hint_flops_batch")
    with pytest.raises(CheckFailed):  # floats are not counts
        checks.check_attention_flops(lambda *a: {k: float(v) for k, v in ref.attention_flops(*a).items()})
    fails_with(checks.check_attention_flops, _flops_float_d, "hint_count_float")
    failure = fails_with(checks.check_attention_flops, _flops_divided_by_d, "hint_count_divided", factor="D")
    assert "1/(D·D)" in str(failure)
    with pytest.raises(CheckFailed):
        checks.check_attention_flops(lambda *a: sum(ref.attention_flops(*a).values()))


def test_kv_cache_bytes_bugs_get_their_hints(lang, ref):
    size = lambda dtype: torch.empty((), dtype=dtype).element_size()  # noqa: E731
    checks.check_kv_cache_bytes(ref.kv_cache_bytes)
    fails_with(checks.check_kv_cache_bytes, lambda L, B, T, G, D, dt: L * B * T * G * D * size(dt), "hint_kv_both")
    fails_with(checks.check_kv_cache_bytes, lambda L, B, T, G, D, dt: 16 * L * B * T * G * D * size(dt), "hint_kv_bits")
    fails_with(checks.check_kv_cache_bytes, lambda L, B, T, G, D, dt: 2 * B * T * G * D * size(dt), "hint_kv_layers")
    fails_with(checks.check_kv_cache_bytes, lambda L, B, T, G, D, dt: 8 * L * B * T * G * D, "hint_kv_dtype")
    fails_with(checks.check_kv_cache_bytes, lambda L, B, T, G, D, dt: 4 * L * B * T * G * D, "hint_kv_dtype")
    # A / where a * belongs: named by the size divided (at float16 element_size() ties with n_kv_head = 2).
    fails_with(checks.check_kv_cache_bytes, lambda L, B, T, G, D, dt: 2 * L * B * T * G * D / size(dt),
               "hint_count_divided", factor="element_size()")
    fails_with(checks.check_kv_cache_bytes, lambda L, B, T, G, D, dt: 2 * L * B * T / G * D * size(dt),
               "hint_count_divided", factor="n_kv_head")
    fails_with(checks.check_kv_cache_bytes, lambda L, B, T, G, D, dt: 2 * L * B * T * G * D * torch.empty((), dtype=dt),
               "hint_kv_tensor")


def test_hidden_names_counts_that_are_no_int(ref):
    """The grader names a float or a tensor count as the check does (make mutants: both said only "not an int")."""
    size = lambda dtype: torch.empty((), dtype=dtype).element_size()  # noqa: E731
    assert fails(probes.attention_flops, _flops_float_d).hint == "hint_count_float"
    assert fails(probes.attention_flops, _flops_divided_by_d).hint == ("hint_count_divided", {"factor": "D"})
    assert fails(probes.kv_cache_bytes, lambda L, B, T, G, D, dt: 2 * L * B * T * G * D / size(dt)).hint == \
        ("hint_count_divided", {"factor": "element_size()"})
    assert fails(probes.kv_cache_bytes, lambda L, B, T, G, D, dt: 2 * L * B * T * G * D * torch.empty((), dtype=dt)
                 ).hint == "hint_kv_tensor"


def _tiled(rescale=True, normalize=True, tail=True, sum_blocks=False, causal_mask=True):
    def tiled_attention(q, k, v, block_size, causal=False):
        B_, H_, T_, D_ = q.shape
        if sum_blocks:
            out = torch.zeros_like(q)
            for j in range(0, T_, block_size):
                s = q @ k[:, :, j:j + block_size].transpose(-2, -1) / math.sqrt(D_)
                if causal:
                    s = s.masked_fill(torch.arange(j, min(j + block_size, T_), device=q.device)
                                      > torch.arange(T_, device=q.device)[:, None], float("-inf"))
                out = out + torch.softmax(s, -1).nan_to_num() @ v[:, :, j:j + block_size]
            return out
        m = torch.full((B_, H_, T_, 1), float("-inf"), dtype=q.dtype, device=q.device)
        l, acc = torch.zeros_like(m), torch.zeros_like(q)
        end = T_ if tail else (T_ // block_size) * block_size
        for j in range(0, end, block_size):
            kb, vb = k[:, :, j:j + block_size], v[:, :, j:j + block_size]
            s = q @ kb.transpose(-2, -1) / math.sqrt(D_)
            if causal and causal_mask:
                s = s.masked_fill(torch.arange(j, j + kb.size(2), device=q.device)
                                  > torch.arange(T_, device=q.device)[:, None], float("-inf"))
            m_new = torch.maximum(m, s.amax(-1, keepdim=True))
            p = torch.exp(s - m_new)
            scale = torch.exp(m - m_new)
            l = l * scale + p.sum(-1, keepdim=True)
            acc = (acc * scale if rescale else acc) + p @ vb
            m = m_new
        return acc / l if normalize else acc
    return tiled_attention


def test_tiled_attention_bugs_get_their_hints(lang, ref):
    checks.check_tiled_attention(ref.tiled_attention)
    checks.check_tiled_attention(_tiled())
    fails_with(checks.check_tiled_attention, _tiled(sum_blocks=True), "hint_tiled_sum")
    fails_with(checks.check_tiled_attention, _tiled(rescale=False), "hint_tiled_rescale")
    fails_with(checks.check_tiled_attention, _tiled(normalize=False), "hint_tiled_normalize")
    check_names(checks.check_tiled_attention, _tiled(tail=False), "hint_tiled_tail")
    fails_with(checks.check_tiled_attention, _tiled(causal_mask=False), "hint_causal_6")
    sdpa = lambda q, k, v, b, causal=False: torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=causal)  # noqa: E731
    fails_with(checks.check_tiled_attention, sdpa, "hint_from_scratch", name="tiled_attention")


def _gqa(ref, repeat="interleave", mask=True, swap=False, validate=True):
    class GQA(ref.GroupedQueryAttention):
        def __init__(self, embed_dim, n_head, n_kv_head):
            if not validate:  # build with whatever sizes were asked for
                nn.Module.__init__(self)
                self.embed_dim, self.n_head, self.n_kv_head = embed_dim, n_head, n_kv_head
                self.head_dim = embed_dim // n_head
                self.q_proj = nn.Linear(embed_dim, embed_dim)
                self.kv_proj = nn.Linear(embed_dim, 2 * n_kv_head * self.head_dim)
                self.c_proj = nn.Linear(embed_dim, embed_dim)
            else:
                super().__init__(embed_dim, n_head, n_kv_head)

        def forward(self, x):
            B_, T_, E_ = x.shape
            H_, G_, D_ = self.n_head, self.n_kv_head, self.head_dim
            q = self.q_proj(x).view(B_, T_, H_, D_).transpose(1, 2)
            k, v = (z.view(B_, T_, G_, D_).transpose(1, 2) for z in self.kv_proj(x).split(G_ * D_, dim=2))
            if swap:
                k, v = v, k
            grow = (lambda z: z.repeat_interleave(H_ // G_, 1)) if repeat == "interleave" else (lambda z: z.repeat(1, H_ // G_, 1, 1))
            k, v = grow(k), grow(v)
            s = q @ k.transpose(-2, -1) / math.sqrt(D_)
            if mask:
                s = s.masked_fill(~torch.ones(T_, T_, dtype=torch.bool, device=x.device).tril(), float("-inf"))
            w = torch.softmax(s, -1)
            return self.c_proj((w @ v).transpose(1, 2).reshape(B_, T_, E_)), w
    return GQA


def test_gqa_bugs_get_their_hints(lang, ref):
    checks.check_gqa_module(ref.GroupedQueryAttention)
    checks.check_gqa_module(_gqa(ref))
    fails_with(checks.check_gqa_module, _gqa(ref, repeat="repeat"), "hint_gqa_repeat")
    fails_with(checks.check_gqa_module, _gqa(ref, mask=False), "hint_causal_6")
    fails_with(checks.check_gqa_module, _gqa(ref, swap=True), "hint_gqa_kv_swapped")
    fails_with(checks.check_gqa_module, _gqa(ref, validate=False), "hint_gqa_error")


def _cached(offset=True, use_cache=True, mask=True, cat_dim=2, return_full=True, additive=False, device=True):
    def attend_with_cache(attn, x_new, cache=None):
        B_, T_new, E_ = x_new.shape
        H_ = attn.n_head
        q, k, v = (z.view(B_, T_new, H_, E_ // H_).transpose(1, 2) for z in attn.c_attn(x_new).split(E_, dim=2))
        full_k, full_v = k, v
        if cache is not None:
            full_k, full_v = torch.cat([cache[0], k], dim=cat_dim), torch.cat([cache[1], v], dim=cat_dim)
        kk, vv = (full_k, full_v) if use_cache else (k, v)
        past = kk.size(2) - T_new
        s = q @ kk.transpose(-2, -1) / math.sqrt(E_ // H_)
        if mask:
            on = {"device": x_new.device} if device else {}
            keep = torch.ones(T_new, kk.size(2), dtype=torch.bool, **on).tril(diagonal=past if offset else 0)
            s = s + (~keep) * float("-inf") if additive else s.masked_fill(~keep, float("-inf"))
        y = (torch.softmax(s, -1) @ vv).transpose(1, 2).reshape(B_, T_new, E_)
        return attn.c_proj(y), ((full_k, full_v) if return_full else (k, v))
    return attend_with_cache


def test_attend_with_cache_bugs_get_their_hints(lang, ref):
    checks.check_attend_with_cache(ref.attend_with_cache)
    checks.check_attend_with_cache(_cached())
    fails_with(checks.check_attend_with_cache, _cached(offset=False), "hint_cache_mask_offset")
    fails_with(checks.check_attend_with_cache, _cached(use_cache=False), "hint_cache_unused")
    fails_with(checks.check_attend_with_cache, _cached(mask=False), "hint_causal_6")
    fails_with(checks.check_attend_with_cache, _cached(cat_dim=3), "hint_cat_dim")
    fails_with(checks.check_attend_with_cache, _cached(return_full=False), "hint_cache_concat")
    # A mask made on the CPU: a crash on a GPU, named on the meta device by the check and the grader alike.
    fails_with(checks.check_attend_with_cache, _cached(device=False), "hint_cache_device")
    assert fails(probes.attend_with_cache, _cached(device=False)).hint == "hint_cache_device"
    fails_with(checks.check_attend_with_cache, lambda attn, x, cache=None: _cached()(attn, x, cache)[0],
               "returned_not_cache_pair", name="attend_with_cache", kind="Tensor")


def _last_token_only(attn, x_new, cache=None):
    """The output of the last new token alone (y[:, -1:]), as generation uses it: a prefill drops the others."""
    y, cache = reference("lesson6").attend_with_cache(attn, x_new, cache)
    return y[:, -1:], cache


def test_an_output_with_fewer_tokens_than_given_is_named(lang, ref):
    fails_with(checks.check_attend_with_cache, _last_token_only, "hint_cache_output_tokens")
    failure = fails(probes.attend_with_cache, _last_token_only, key="hidden_shape")
    assert failure.hint == "hint_cache_output_tokens"


def _recorded(fn, seed=20261123):
    """What the kernel sends for the cache's hidden test (conftest.judged, before the judging)."""
    from attn_course.probes import SEED_ENV
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(SEED_ENV, str(seed))
        return probes.attend_with_cache.record(fn)


def test_the_cache_judge_wants_every_chunk(ref):
    """Fewer results than chunks with no error recorded (the probe cut short) fail, and say so; a call that
    raised still fails for its error, the results before it judged first."""
    from attn_grader.verdict import decide
    from conftest import REFERENCE
    payload = _recorded(ref.attend_with_cache)
    assert decide(REFERENCE, 20261123, "lesson6.attend_with_cache", payload) is None
    for key in ("outputs", "cache_shapes", "caches"):
        payload["values"][key]["l"] = payload["values"][key]["l"][:2]
    failure = decide(REFERENCE, 20261123, "lesson6.attend_with_cache", payload)
    assert failure is not None and failure.key == "cache_steps_missing" and failure.hint == "hint_cache_steps"
    del payload["values"]["calls"]   # and with no record of the calls at all: no verdict can pass
    assert decide(REFERENCE, 20261123, "lesson6.attend_with_cache", payload) is not None
    calls = []

    def raises_third(attn, x_new, cache=None):
        calls.append(1)
        if len(calls) == 3:
            raise RuntimeError("boom")
        return ref.attend_with_cache(attn, x_new, cache)
    failure = decide(REFERENCE, 20261123, "lesson6.attend_with_cache", _recorded(raises_third))
    assert failure.key == "hidden_raised", failure.key


def _sdpa_cached(mask):
    """attend_with_cache through SDPA: mask "is_causal" (top-left aligned), "keep" or "lower_right"."""
    from torch.nn.attention.bias import causal_lower_right
    F = torch.nn.functional

    def attend_with_cache(attn, x_new, cache=None):
        B_, T_new, E_ = x_new.shape
        H_ = attn.n_head
        q, k, v = (z.view(B_, T_new, H_, E_ // H_).transpose(1, 2) for z in attn.c_attn(x_new).split(E_, dim=2))
        if cache is not None:
            k, v = torch.cat([cache[0], k], dim=2), torch.cat([cache[1], v], dim=2)
        T_all = k.size(2)
        if mask == "is_causal":
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        elif mask == "keep":
            keep = torch.ones(T_new, T_all, dtype=torch.bool, device=x_new.device).tril(diagonal=T_all - T_new)
            y = F.scaled_dot_product_attention(q, k, v, attn_mask=keep)
        else:
            y = F.scaled_dot_product_attention(q, k, v, attn_mask=causal_lower_right(T_new, T_all))
        return attn.c_proj(y.transpose(1, 2).reshape(B_, T_new, E_)), (k, v)
    return attend_with_cache


def test_sdpa_is_causal_in_a_cache_is_named(lang, ref):
    # is_causal=True aligns the mask top-left: with a cache, a new token sees only the first keys.
    failure = fails_with(checks.check_attend_with_cache, _sdpa_cached("is_causal"), "hint_cache_mask_offset")
    assert "is_causal=True" in str(failure) and "causal_lower_right" in str(failure)
    checks.check_attend_with_cache(_sdpa_cached("keep"))
    checks.check_attend_with_cache(_sdpa_cached("lower_right"))
    fails(probes.attend_with_cache, _sdpa_cached("is_causal"), key="hidden_mismatch")
    passes(probes.attend_with_cache, _sdpa_cached("lower_right"))


def test_is_causal_is_top_left_aligned_and_the_three_right_forms_are_not():
    # What lesson 6 section 7 shows: one new query over 5 keys (T_past = 4); with one new token no
    # mask at all is right too (is_causal=False, as transformers' sdpa_attention does for q_length 1).
    from torch.nn.attention.bias import causal_lower_right
    F = torch.nn.functional
    q, k = torch.randn(1, 1, 1, 8), torch.randn(1, 1, 5, 8)
    eye = torch.eye(5).view(1, 1, 5, 5)  # as values, the output is the row of weights
    top_left = F.scaled_dot_product_attention(q, k, eye, is_causal=True)[0, 0, 0]
    assert top_left.tolist() == [1.0, 0.0, 0.0, 0.0, 0.0]
    want = torch.softmax(q @ k.mT / math.sqrt(8), -1)[0, 0, 0]
    keep = torch.ones(1, 5, dtype=torch.bool).tril(diagonal=4)
    for mask in (keep, causal_lower_right(1, 5)):
        assert torch.allclose(F.scaled_dot_product_attention(q, k, eye, attn_mask=mask)[0, 0, 0], want, atol=1e-6)
    assert torch.allclose(F.scaled_dot_product_attention(q, k, eye, is_causal=False)[0, 0, 0], want, atol=1e-6)


def test_transformers_drops_the_mask_for_one_new_token():
    # Lesson 6 says Hugging Face runs a one-token query with no mask: its SDPA path sets is_causal
    # only for q_length > 1, and the mask builder skips the mask when q_length == 1.
    from transformers.masking_utils import _ignore_causal_mask_sdpa
    assert _ignore_causal_mask_sdpa(None, q_length=1, kv_length=5, q_offset=4, kv_offset=0)
    assert not _ignore_causal_mask_sdpa(None, q_length=2, kv_length=5, q_offset=3, kv_offset=0)


def test_a_one_token_chunk_is_named_as_one_position(lang):
    # "positions 3 or more and less than 4" read badly for a single token.
    failure = check_names(checks.check_attend_with_cache, _cached(offset=False), "hint_cache_mask_offset")
    case = failure.mismatch.fields["case"]
    assert case[0] == "case_cache_token" and t(*case[:1], **case[1]) in failure.message
    assert "以上" not in failure.message and "이상" not in failure.message


def test_tiled_attention_says_passed_once(capsys, ref):
    checks.check_tiled_attention(ref.tiled_attention)
    assert capsys.readouterr().out.count("✔") == 1


# exercise -> (its check, wrong answers given the reference module): each a classic mistake the procedure names.
AGREE = {
    "attention_flops": (checks.check_attention_flops, [lambda ref: _flops(mac=0), lambda ref: _flops_float_d,
                                                       lambda ref: _flops_divided_by_d]),
    "kv_cache_bytes": (checks.check_kv_cache_bytes, [
        lambda ref: lambda L, B, T, G, D, dt: 4 * L * B * T * G * D,
        lambda ref: lambda L, B, T, G, D, dt: ref.kv_cache_bytes(L, B, T, G, D, dt) / G]),
    "tiled_attention": (checks.check_tiled_attention, [lambda ref: _tiled(rescale=False),
                                                       lambda ref: _tiled(tail=False),
                                                       lambda ref: _tiled(causal_mask=False)]),
    "gqa": (checks.check_gqa_module, [lambda ref: _gqa(ref, repeat="repeat"), lambda ref: _gqa(ref, swap=True),
                                      lambda ref: _gqa(ref, validate=False)]),
    "attend_with_cache": (checks.check_attend_with_cache, [lambda ref: _cached(offset=False),
                                                           lambda ref: _cached(additive=True),
                                                           lambda ref: _cached(return_full=False)]),
}


@pytest.mark.parametrize("exercise,answer", [(e, i) for e, (_, wrong) in AGREE.items() for i in range(len(wrong))])
def test_the_check_is_the_graders_procedure_on_a_seed_of_its_own(ref, lang, exercise, answer):
    """The visible check and the grader run one procedure: on the check's seed, the grader with the hidden reference
    reaches the very verdict the check reached with the course's right answer (its message key, fields and hint)."""
    from attn_grader.verdict import hint_of
    from conftest import judged
    check, wrong = AGREE[exercise]
    obj = wrong[answer](ref)
    with pytest.raises(CheckFailed) as info:
        check(obj)
    seed = checks.SEEDS[exercise]
    graded = judged(getattr(probes, exercise), obj, seed=seed)
    seen = info.value.mismatch
    # repr: an err of NaN (a mask that leaves a row no key) is the same verdict, though NaN != NaN.
    assert repr((graded.key, graded.fields, hint_of(graded))) == repr((seen.key, seen.fields, hint_of(seen)))


def test_peak_memory_sees_an_allocation_and_prints_nothing(capfd):
    from attn_course.device import peak_memory, time_it
    size = 4 * 2**20
    assert peak_memory(lambda: torch.empty(size, dtype=torch.uint8).fill_(1), "cpu") >= size
    assert peak_memory(lambda: None, "cpu") < 2**16
    assert time_it(lambda: None, "cpu") >= 0
    out, err = capfd.readouterr()
    assert err == "" and out == ""


# --------------------------------------------------------------------------- hidden tests
def test_reference_passes_its_own_hidden_tests(ref):
    passes(probes.attention_flops, ref.attention_flops)
    passes(probes.kv_cache_bytes, ref.kv_cache_bytes)
    passes(probes.tiled_attention, ref.tiled_attention)
    passes(probes.gqa, ref.GroupedQueryAttention)
    passes(probes.attend_with_cache, ref.attend_with_cache)


def test_hidden_catches_what_the_visible_sizes_might_not(ref):
    # A FLOPs count that is off by one, and a cache size fixed at 2 bytes.
    fails(probes.attention_flops, lambda B, T, E, H: ref.attention_flops(B, T, E, H) | {"out_proj": 2 * B * T * E * E + 1})
    fails(probes.kv_cache_bytes, lambda L, B, T, G, D, dtype: 4 * L * B * T * G * D)


def test_library_attention_is_refused_in_a_from_scratch_exercise(ref):
    failure = fails(probes.tiled_attention, lambda q, k, v, b, causal=False:
                    torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=causal), key="hidden_by_hand")
    assert failure.hint == ("hint_from_scratch", {"name": "tiled_attention"})


def test_hidden_names_an_additive_mask_on_every_seed(ref):
    """A one-token prefill has no masked key: there `+ (~keep) * -inf` and an inverted mask both give a NaN row, and
    the grader named the inverted mask for the planted additive bug on 39 seeds in 300 (`make hint-sweep`). The
    prefill is two tokens at least now; these seeds drew one."""
    from attn_course.probes import Draws
    one_token = []
    for seed in range(300):
        draws = Draws(seed, "lesson6.attend_with_cache")
        t = probes.cache_setup(draws)[1].size(1)
        if int(torch.randint(1, t - 2, (1,), generator=draws.gen("prefill"))) == 1:
            one_token.append(seed)
    assert len(one_token) > 10
    for seed in one_token[:12]:
        assert fails(probes.attend_with_cache, _cached(additive=True), seed=seed).hint == "hint_additive_nan", seed


def test_hidden_catches_a_cache_that_forgets_the_offset(ref):
    fails(probes.attend_with_cache, _cached(offset=False))
    fails(probes.gqa, _gqa(ref, repeat="repeat"))


# --------------------------------------------------------------------------- dtype and SDPA backends (no GPU here)
def _fake_gpu(monkeypatch, capability, bf16_supported=True):
    """A CUDA device of the given compute capability; is_bf16_supported answers as torch >= 2.3 does on a T4."""
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "get_device_capability", lambda device=None: capability)
    monkeypatch.setattr(torch.cuda, "is_bf16_supported", lambda including_emulation=True: bf16_supported)


@pytest.mark.parametrize("capability,want", [((7, 5), torch.float16), ((7, 0), torch.float16),
                                             ((8, 0), torch.bfloat16), ((8, 9), torch.bfloat16),
                                             ((9, 0), torch.bfloat16), ((12, 0), torch.bfloat16)])
def test_compute_dtype_follows_the_compute_capability_not_is_bf16_supported(monkeypatch, capability, want):
    from attn_course.device import compute_dtype
    _fake_gpu(monkeypatch, capability, bf16_supported=True)  # True on a T4 too: emulation counts
    assert compute_dtype(torch.device("cuda")) == want
    assert compute_dtype("cuda:0", cpu=torch.bfloat16) == want  # autocast on a GPU: the same choice


@pytest.mark.parametrize("major", [6, 7, 8, 9, 10, 12])
def test_compute_dtype_is_is_bf16_supported_without_emulation(monkeypatch, major):
    # Lesson 6: is_bf16_supported(including_emulation=False) (torch 2.4 on) is the same test as
    # compute_dtype's by hand, on an NVIDIA GPU; with emulation counted it answers True below 8.0 too.
    import types
    from attn_course.device import compute_dtype
    monkeypatch.setattr(torch.version, "hip", None)
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "current_device", lambda: 0)
    monkeypatch.setattr(torch.cuda, "get_device_properties", lambda device=None: types.SimpleNamespace(major=major))
    monkeypatch.setattr(torch.cuda, "get_device_capability", lambda device=None: (major, 0))
    monkeypatch.setattr(torch.cuda, "_check_bf16_tensor_supported", lambda device: True)  # emulation works
    native = torch.cuda.is_bf16_supported(including_emulation=False)
    assert (compute_dtype("cuda") == torch.bfloat16) == native == (major >= 8)
    assert torch.cuda.is_bf16_supported()  # the default counts emulation: True on a T4 (sm75)


def test_sdpa_priority_order(monkeypatch):
    # SDPA takes the first backend in this order whose conditions pass; lesson 6 prints it.
    from torch.nn.attention import SDPBackend
    from attn_course.device import sdpa_priority_order
    assert sdpa_priority_order() == ["FLASH_ATTENTION", "EFFICIENT_ATTENTION", "MATH", "CUDNN_ATTENTION"]
    cudnn_first = [SDPBackend.CUDNN_ATTENTION, SDPBackend.FLASH_ATTENTION, SDPBackend.EFFICIENT_ATTENTION,
                   SDPBackend.MATH, SDPBackend.OVERRIDEABLE]
    monkeypatch.setattr(torch._C, "_get_sdp_priority_order", lambda: [int(b) for b in cudnn_first])  # sm90, new cuDNN
    assert sdpa_priority_order() == ["CUDNN_ATTENTION", "FLASH_ATTENTION", "EFFICIENT_ATTENTION", "MATH"]
    monkeypatch.delattr(torch._C, "_get_sdp_priority_order")
    assert sdpa_priority_order() == []


def test_sdpa_kernel_set_priority_reorders():
    # The lesson names sdpa_kernel([...], set_priority=True): the list's order becomes the priority.
    from torch.nn.attention import SDPBackend, sdpa_kernel
    from attn_course.device import sdpa_priority_order
    with sdpa_kernel([SDPBackend.MATH, SDPBackend.FLASH_ATTENTION], set_priority=True):
        assert sdpa_priority_order()[:2] == ["MATH", "FLASH_ATTENTION"]
    assert sdpa_priority_order()[0] == "FLASH_ATTENTION"


def test_the_math_backend_computes_half_types_in_float32():
    # Why bfloat16 on a T4 costs more than the naive version: SDPA's math backend upcasts by default.
    from torch.nn.attention import SDPBackend, sdpa_kernel
    q = torch.randn(1, 2, 8, 16, dtype=torch.bfloat16)
    assert not torch.backends.cuda.fp16_bf16_reduction_math_sdp_allowed()
    with torch.autograd.profiler.profile(use_kineto=False) as prof, sdpa_kernel(SDPBackend.MATH):
        torch.nn.functional.scaled_dot_product_attention(q, q, q, is_causal=True)
    upcasts = [e for e in prof.function_events if e.name == "aten::_to_copy" and e.cpu_parent is not None
               and e.cpu_parent.cpu_parent is not None
               and e.cpu_parent.cpu_parent.name == "aten::_scaled_dot_product_attention_math"]
    assert len(upcasts) >= 3  # q, k and v


def test_compute_dtype_off_the_gpu(monkeypatch):
    from attn_course.device import compute_dtype
    assert compute_dtype("cpu") == torch.float32
    assert compute_dtype("cpu", cpu=torch.bfloat16) == torch.bfloat16  # autocast on the CPU
    _fake_gpu(monkeypatch, (8, 0))
    assert compute_dtype("cpu") == torch.float32 and compute_dtype(torch.device("meta")) == torch.float32


def test_lesson_6_chooses_its_dtype_in_one_place():
    import jupytext
    from conftest import ROOT
    code = "\n".join(c.source for c in jupytext.read(ROOT / "lessons" / "06_costs.md").cells if c.cell_type == "code")
    assert "is_bf16_supported" not in code
    assert code.count("compute_dtype(device") == 2  # section 3's measurement and section 8's autocast


def test_sdpa_backend_table_on_the_cpu(lang, capfd):
    from attn_course.device import sdpa_backend_reasons, sdpa_backend_table, sdpa_backend_used
    q = torch.randn(2, 4, 64, 32)
    assert sdpa_backend_used(q, q, q, is_causal=True) == "FLASH_ATTENTION"  # the CPU's own flash kernel
    assert sdpa_backend_used(q, q, q, is_causal=True, dropout_p=0.5) == "MATH"  # no fused kernel takes dropout
    reasons = sdpa_backend_reasons(q, q, q, is_causal=True, dropout_p=0.5)
    assert reasons["MATH"] is None and "dropout" in reasons["FLASH_ATTENTION"]
    used, rows = sdpa_backend_table(q, q, q, is_causal=True)
    assert used == "FLASH_ATTENTION"
    assert [r[:2] for r in rows] == [["FLASH_ATTENTION ←", "✔"], ["EFFICIENT_ATTENTION", "✘"],
                                     ["CUDNN_ATTENTION", "✘"], ["MATH", "✔"]]
    assert rows[1][3] == rows[2][3] == t("sdpa_gpu_only")
    assert capfd.readouterr().err == ""
