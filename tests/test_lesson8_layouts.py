"""Lesson 8, exercises 10 to 12: a paged cache, packed sequences, what a cache costs (tests/test_lesson8.py has the
rest; one file would be over 600 lines). Visible checks name each bug in both languages, hidden tests name it in the
grader, and the references agree with vLLM's slot mapping and transformers' StaticCache.
"""
import pytest
import torch

import attn_course as course
from attn_course.checks import lesson8 as checks
from attn_course.probes import lesson8 as probes
from conftest import fails, fails_with, judged, passes, reference


@pytest.fixture(scope="module")
def ref():
    return reference("lesson8")


# --------------------------------------------------------------------------- exercise 10
def _paged(bug=None):
    def paged_write(pages, block_table, start, k_new):
        P = pages.size(1)
        positions = torch.arange(k_new.size(0)) + (0 if bug == "from_zero" else start)
        logical, slot = (positions % P, positions // P) if bug == "divmod" else (positions // P, positions % P)
        if bug == "rebound":   # the name bound to a new tensor: the pages handed in stay as they were
            pages = k_new
            return
        pages[logical if bug == "no_table" else block_table[logical], slot] = k_new

    def paged_gather(pages, block_table, length):
        P = pages.size(1)
        n = length // P if bug == "floor" else (length + P - 1) // P
        used = pages[:n] if bug == "no_table" else pages[block_table[:n]]
        if bug == "layout":
            used = used.transpose(1, 2).reshape(used.shape)
        out = used.reshape(n * P, *pages.shape[2:])
        return out if bug == "uncut" else out[:length]
    return paged_write, paged_gather


PAGED_BUGS = {"divmod": "hint_paged_divmod", "no_table": "hint_paged_table", "from_zero": "hint_paged_start",
              "layout": "hint_paged_layout", "uncut": "hint_paged_length", "floor": "hint_paged_floor",
              "rebound": "hint_paged_not_written"}


def test_paged_cache_bugs_get_their_hints(lang):
    checks.check_paged_cache(*_paged())
    for bug, hint in PAGED_BUGS.items():
        fails_with(lambda fns: checks.check_paged_cache(*fns), _paged(bug), hint)


def test_hidden_paged_cache_names_each_bug(ref):
    for seed in (20261123, 1, 2):
        passes(probes.paged_cache, *_paged(), seed=seed)
    for bug, hint in PAGED_BUGS.items():
        assert fails(probes.paged_cache, *_paged(bug)).hint == hint, bug


def test_paged_reference_is_vllms_slot_mapping(ref):
    torch.manual_seed(0)
    pages, table = torch.zeros(6, 3, 2, 4, dtype=torch.float64), torch.tensor([4, 1, 5])
    new = torch.randn(8, 2, 4, dtype=torch.float64)
    ref.paged_write(pages, table, 0, new[:5])
    ref.paged_write(pages, table, 5, new[5:])
    assert torch.equal(ref.paged_gather(pages, table, 8), new)
    assert torch.equal(checks.paged_gather_ref(pages, table, 8), new)
    assert not pages[[0, 2, 3]].any()   # pages outside the table are never written


# --------------------------------------------------------------------------- exercise 11
def _packed(bug=None):
    def doc_of(cu):
        return torch.searchsorted(cu, torch.arange(int(cu[-1])), right=bug != "boundary") - 1

    def packed_positions(cu_seqlens):
        n = int(cu_seqlens[-1])
        return torch.arange(n) if bug == "positions" else torch.arange(n) - cu_seqlens[doc_of(cu_seqlens)]

    def document_mod(cu_seqlens):
        doc = doc_of(cu_seqlens)

        def mod(b, h, q_idx, kv_idx):
            if bug == "not_causal":
                return doc[q_idx] == doc[kv_idx]
            return q_idx >= kv_idx if bug == "no_docs" else (doc[q_idx] == doc[kv_idx]) & (q_idx >= kv_idx)
        return mod
    return packed_positions, document_mod


PACKED_BUGS = {"positions": "hint_packed_positions", "boundary": "hint_packed_boundary",
               "not_causal": "hint_packed_not_causal", "no_docs": "hint_packed_no_docs"}


def test_packed_bugs_get_their_hints(lang):
    checks.check_packed(*_packed())
    for bug, hint in PACKED_BUGS.items():
        fails_with(lambda fns: checks.check_packed(*fns), _packed(bug), hint)


def test_float_positions_are_told_their_dtype(lang):
    positions, document_mod = _packed()
    with pytest.raises(course.CheckFailed if hasattr(course, "CheckFailed") else Exception) as info:
        checks.check_packed(lambda cu: positions(cu).float(), document_mod)
    assert "torch.float32" in str(info.value) and "torch.long" in str(info.value)


def test_hidden_packed_names_each_bug():
    for seed in (20261123, 1, 2, 3):
        passes(probes.packed, *_packed(), seed=seed)
    for bug, hint in PACKED_BUGS.items():
        assert fails(probes.packed, *_packed(bug)).hint == hint, bug


def test_hidden_packed_catches_a_mask_without_causality_on_every_seed():
    """Seeds whose documents were all one token long drew no later key: a document mask without the causal part
    passed there (`make hint-sweep`, 1 seed in 120). One document is two tokens at least now."""
    from attn_course.probes import Draws
    single = []
    for seed in range(600):
        draws = Draws(seed, "lesson8.packed")
        n_docs = 3 + int(torch.randint(0, 3, (1,), generator=draws.gen("docs")))
        lengths = torch.randint(1, 7, (n_docs,), generator=draws.gen("lengths"))
        lengths[int(torch.randint(0, n_docs, (1,), generator=draws.gen("single")))] = 1
        if int(lengths.max()) == 1:
            single.append(seed)
    assert single
    for seed in single[:6]:
        failure = judged(probes.packed, *_packed("not_causal"), seed=seed)
        assert failure is not None and failure.hint == "hint_packed_not_causal", seed


# --------------------------------------------------------------------------- exercise 12
def _bytes(bug=None):
    def cache_bytes(config, T, batch=1, dtype=torch.bfloat16):
        return checks.cache_bytes_ref(config, T, batch, dtype, {"latent_twice": "hint_bytes_latent_twice",
                                                               "window_ignored": "hint_bytes_window_ignored",
                                                               "window_all": "hint_bytes_window_all",
                                                               "kv_once": "hint_bytes_kv_once"}.get(bug)) * (
            8 if bug == "bits" else 1)
    return cache_bytes


BYTES_BUGS = {"latent_twice": "hint_bytes_latent_twice", "window_ignored": "hint_bytes_window_ignored",
              "window_all": "hint_bytes_window_all", "bits": "hint_kv_bits", "kv_once": "hint_bytes_kv_once"}


def test_cache_bytes_bugs_get_their_hints(lang):
    checks.check_cache_bytes(_bytes())
    for bug, hint in BYTES_BUGS.items():
        fails_with(checks.check_cache_bytes, _bytes(bug), hint)


def test_hidden_cache_bytes_is_judged_against_static_cache():
    for seed in (20261123, 1, 2):
        passes(probes.cache_bytes, _bytes(), seed=seed)
    for bug, hint in BYTES_BUGS.items():
        assert fails(probes.cache_bytes, _bytes(bug)).hint == hint, bug


def test_the_formula_is_what_static_cache_allocates(ref):
    from attn_course.probes import Draws
    cases = [case for seed in range(4) for case in probes.bytes_cases(Draws(seed, "lesson8.cache_bytes"))]
    for config, n, batch, dtype in cases:
        assert ref.static_cache_bytes(config, n, batch, dtype) == ref.cache_bytes(config, n, batch, dtype), config


def test_published_sizes_in_the_lesson():
    """The table the lesson states: bfloat16, one sequence of 128K tokens."""
    gib = 2 ** 30
    models = {"llama": ({"n_layer": 32, "n_kv_head": 8, "head_dim": 128}, 16.0),
              "mistral": ({"n_layer": 32, "n_kv_head": 8, "head_dim": 128, "window": 4096}, 0.5),
              "deepseek": ({"n_layer": 61, "latent_dim": 576}, 8.58),
              "gpt-oss": ({"n_layer": 24, "n_kv_head": 8, "head_dim": 64, "window": 128, "window_layers": 12}, 3.00)}
    for name, (config, want) in models.items():
        assert round(checks.cache_bytes_ref(config, 131072) / gib, 2) == want, name
    from transformers import DeepseekV3Config
    v3 = DeepseekV3Config()   # transformers' defaults are DeepSeek-V3's published configuration
    assert (v3.num_hidden_layers, v3.kv_lora_rank, v3.qk_rope_head_dim) == (61, 512, 64)
