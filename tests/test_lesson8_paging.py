"""Lesson 8's exercises 13 and 14: attention read page by page through a block table, and rows of different lengths
decoded from one cache. Visible checks (right code passes, each classic bug gets its own hint, in both languages),
hidden tests (each bug fails and is named, by the same rule), and the references against what they stand for: vLLM's
single-query reference against attention over each sequence's own keys, transformers' padding mask against each row
decoded alone."""
import math

import jupytext
import pytest
import torch
import torch.nn.functional as F

from attn_course.checks import lesson8 as checks
from attn_course.checks.lesson8_lengths import batched_inputs
from attn_course.probes import lesson8 as probes
from attn_course.probes.draws import Draws
from attn_course.validate import CheckFailed
from planted.lesson8 import BUGS
from conftest import ROOT, fails, fails_with, passes, reference


@pytest.fixture(scope="module")
def ref():
    return reference("lesson8_paging")


# --------------------------------------------------------------------------- exercise 13
def _paged(bug=None):
    def paged_decode(q, k_pages, v_pages, block_tables, seq_lens):
        N, H, D = q.shape
        P = k_pages.size(1)
        outs = []
        for i in range(N):
            L = int(seq_lens[0 if bug == "first_row" else i])
            m = torch.full((H, 1), float("-inf"), dtype=q.dtype, device="cpu" if bug == "device" else q.device)
            l = torch.zeros((H, 1), dtype=q.dtype, device=q.device)
            acc = torch.zeros((H, D), dtype=torch.float32 if bug == "dtype" else q.dtype, device=q.device)
            n_pages = L // P if bug == "floor" else (L + P - 1) // P
            if bug == "gather":
                k_all = k_pages[block_tables[i, :n_pages]].reshape(-1, H, D)[:L]
                v_all = v_pages[block_tables[i, :n_pages]].reshape(-1, H, D)[:L]
                w = torch.softmax(torch.einsum("hd,nhd->hn", q[i], k_all) / math.sqrt(D), -1)
                outs.append(torch.einsum("hn,nhd->hd", w, v_all))
                continue
            for j in range(n_pages):
                page = j if bug == "table" else int(block_tables[i, j])
                n = P if bug == "tail" else min(P, L - j * P)
                k, v = k_pages[page, :n], v_pages[page, :n]
                s = torch.einsum("hd,nhd->hn", q[i], k) / math.sqrt(D)
                m_new = torch.maximum(m, s.amax(dim=-1, keepdim=True))
                p = torch.exp(s - m_new)
                scale = torch.ones_like(m) if bug == "rescale" else torch.exp(m - m_new)
                l = l * scale + p.sum(dim=-1, keepdim=True)
                acc = acc * scale + torch.einsum("hn,nhd->hd", p, v)
                if bug != "max":
                    m = m_new
            outs.append(acc if bug == "not_divided" else acc / l)
        return torch.stack(outs)
    return paged_decode


PAGED_BUGS = {"table": "hint_pdec_table", "first_row": "hint_pdec_first_row", "tail": "hint_pdec_tail",
              "floor": "hint_pdec_floor", "rescale": "hint_pdec_rescale", "max": "hint_pdec_max",
              "not_divided": "hint_pdec_not_divided", "gather": "hint_pdec_gathered", "device": "hint_pdec_device",
              "dtype": "hint_pdec_dtype"}


def test_paged_decode_bugs_get_their_hints(lang):
    checks.check_paged_decode(_paged())
    for bug, hint in PAGED_BUGS.items():
        fails_with(checks.check_paged_decode, _paged(bug), hint)


def test_hidden_paged_decode_names_each_bug():
    for seed in (20261207, 3):
        passes(probes.paged_decode, _paged(), seed=seed)
    for bug, hint in PAGED_BUGS.items():
        assert fails(probes.paged_decode, _paged(bug)).hint == hint, bug


def test_vllms_reference_is_attention_over_each_sequences_own_keys(ref):
    """The judge's reference (vLLM's token-by-token walk through the block table) equals SDPA over the keys each
    sequence was given, written into the pool through vLLM's slot_mapping with its default block size, 16."""
    g = torch.Generator().manual_seed(7)
    lens, size, h, d = [37, 16, 1, 50], 16, 3, 8
    used = [-(-n // size) for n in lens]
    order = torch.randperm(sum(used) + 4, generator=g)
    tables = order[torch.randint(0, len(order), (len(lens), max(used)), generator=g)]
    k_pages, v_pages = (torch.randn(len(order), size, h, d, generator=g, dtype=torch.float64) for _ in "kv")
    keys, values, first = [], [], 0
    for i, n in enumerate(lens):
        tables[i, :used[i]] = order[first:first + used[i]]
        first += used[i]
        positions = torch.arange(n)
        slot_mapping = tables[i, positions // size] * size + positions % size
        keys.append(torch.randn(n, h, d, generator=g, dtype=torch.float64))
        values.append(torch.randn(n, h, d, generator=g, dtype=torch.float64))
        k_pages.view(-1, h, d)[slot_mapping], v_pages.view(-1, h, d)[slot_mapping] = keys[i], values[i]
    q = torch.randn(len(lens), h, d, generator=g, dtype=torch.float64)
    want = torch.stack([F.scaled_dot_product_attention(q[i][:, None], keys[i].transpose(0, 1),
                                                       values[i].transpose(0, 1))[:, 0] for i in range(len(lens))])
    got = ref.paged_decode(q, k_pages, v_pages, tables, torch.tensor(lens))
    assert float((got - want).abs().max()) < 1e-12
    assert float((_paged()(q, k_pages, v_pages, tables, torch.tensor(lens)) - want).abs().max()) < 1e-12


def test_the_watch_lets_one_page_of_every_sequence_through(lang):
    """Reading page j of every sequence at once (pages[block_tables[:, j]]) is a paged kernel's way too."""
    def by_page(q, k_pages, v_pages, block_tables, seq_lens):
        N, H, D = q.shape
        P = k_pages.size(1)
        m = torch.full((N, H, 1), float("-inf"), dtype=q.dtype, device=q.device)
        l, acc = torch.zeros_like(m), torch.zeros_like(q)
        lens = seq_lens.to(q.device)
        for j in range(int((seq_lens.max() + P - 1) // P)):
            k, v = k_pages[block_tables[:, j]], v_pages[block_tables[:, j]]            # (N, P, H, D)
            slot = torch.arange(j * P, j * P + P, device=q.device)
            s = torch.einsum("bhd,bnhd->bhn", q, k) / math.sqrt(D)
            s = s.masked_fill(~(slot[None, :] < lens[:, None])[:, None, :], float("-inf"))
            m_new = torch.maximum(m, s.amax(-1, keepdim=True))
            p = torch.exp(s - m_new).nan_to_num(0.0)
            scale = torch.exp(m - m_new).nan_to_num(0.0)
            l = l * scale + p.sum(-1, keepdim=True)
            acc = acc * scale + torch.einsum("bhn,bnhd->bhd", p, v)
            m = torch.where(torch.isinf(m_new), m, m_new)
        return acc / l
    checks.check_paged_decode(by_page)


# --------------------------------------------------------------------------- exercise 14
def _batched(bug=None):
    def decode_batched(q, k_new, v_new, k_cache, v_cache, lengths):
        B, H, _, D = q.shape
        T_max = k_cache.size(2)
        rows = torch.arange(B, device=q.device)
        where = lengths[0].expand(B) if bug == "shared_slot" else lengths
        if bug == "tolist":   # a learner's loop over the lengths read out: the meta device cannot copy them out
            for b, n in enumerate(lengths.tolist()):
                k_cache[b, :, n], v_cache[b, :, n] = k_new[b, :, 0], v_new[b, :, 0]
        elif bug != "unwritten":
            k_cache[rows, :, where] = k_new[:, :, 0]
            v_cache[rows, :, where] = v_new[:, :, 0]
        positions = torch.arange(T_max, device="cpu" if bug == "device" else q.device)
        if bug == "python":
            keep = torch.stack([positions <= int(n) for n in lengths])
        elif bug == "axis":
            keep = positions <= lengths
        else:
            keep = positions < lengths[:, None] if bug == "before_write" else positions <= lengths[:, None]
        if bug == "longest":
            keep = (positions <= lengths.max()).expand(B, T_max)
        scores = q @ k_cache.transpose(-2, -1) / math.sqrt(D)
        if bug != "no_mask":
            scores = scores.masked_fill(~keep[:, None, None, :], float("-inf"))
        if bug == "unwritten":   # the new token joined to the cache, never written into it
            new = q @ k_new.transpose(-2, -1) / math.sqrt(D)
            w = torch.softmax(torch.cat([scores.masked_fill(~(positions < lengths[:, None])[:, None, None, :],
                                                            float("-inf")), new], -1), -1)
            return w[..., :-1] @ v_cache + w[..., -1:] @ v_new
        return torch.softmax(scores, dim=-1) @ v_cache
    return decode_batched


BATCHED_BUGS = {"shared_slot": "hint_batch_shared_slot", "longest": "hint_batch_shared_length",
                "before_write": "hint_batch_before_write", "no_mask": "hint_batch_no_mask",
                "unwritten": "hint_batch_unwritten", "python": "hint_batch_python_lengths",
                "device": "hint_batch_device", "axis": "hint_batch_lengths_axis", "tolist": "hint_batch_python_lengths"}


def test_decode_batched_bugs_get_their_hints(lang):
    checks.check_decode_batched(_batched())
    for bug, hint in BATCHED_BUGS.items():
        fails_with(checks.check_decode_batched, _batched(bug), hint)


def test_hidden_decode_batched_names_each_bug():
    for seed in (20261207, 3):
        passes(probes.decode_batched, _batched(), seed=seed)
    for bug, hint in BATCHED_BUGS.items():
        assert fails(probes.decode_batched, _batched(bug)).hint == hint, bug


def test_transformers_padding_mask_is_each_row_decoded_alone(ref):
    """The judge's reference (transformers' mask from a 2-D attention mask) equals each row's attention over its own
    keys alone, as vLLM's seq_lens reads them, at every step of the check's own draws."""
    lengths, k_cache, v_cache, steps = batched_inputs(Draws(5, "x"), "float64", torch.float64)
    for q, k_new, v_new in steps:
        got = ref.batched_step(q, k_new, v_new, k_cache, v_cache, lengths)
        k_cache, v_cache = checks.write_rows(k_cache, v_cache, k_new, v_new, lengths)
        for b, n in enumerate(lengths.tolist()):
            alone = F.scaled_dot_product_attention(q[b:b + 1], k_cache[b:b + 1, :, :n + 1], v_cache[b:b + 1, :, :n + 1])
            assert float((got[b:b + 1] - alone).abs().max()) < 1e-12
        lengths = lengths + 1


# --------------------------------------------------------------------------- the planted bugs, on both sides
CELLS = {c.metadata.get("id"): c.source for c in jupytext.read(ROOT / "lessons" / "08_deployed.md").cells}
EXERCISES = {"ex13_paged_attention": ("paged_decode", checks.check_paged_decode, probes.paged_decode),
             "ex14_batched_lengths": ("decode_batched", checks.check_decode_batched, probes.decode_batched)}
PLANTED = {"pdec_no_table": "hint_pdec_table", "pdec_tail": "hint_pdec_tail", "pdec_floor": "hint_pdec_floor",
           "pdec_no_rescale": "hint_pdec_rescale", "pdec_max_kept": "hint_pdec_max",
           "batch_shared_slot": "hint_batch_shared_slot", "batch_before_write": "hint_batch_before_write",
           "batch_no_mask": "hint_batch_no_mask"}


def _solution(cell: str, old: str = "", new: str = ""):
    scope = {"torch": torch, "F": F, "math": math}
    exec(CELLS[cell].replace(old, new) if old else CELLS[cell], scope)   # noqa: S102 - the lesson's own solution
    return scope[EXERCISES[cell][0]]


@pytest.mark.parametrize("name", sorted(PLANTED))
def test_planted_bug_gets_one_hint_on_both_sides(name, lang):
    from attn_course.messages import t
    bug = BUGS[name]
    assert bug.old in CELLS[bug.cell], name
    fn = _solution(bug.cell, bug.old, bug.new)
    with pytest.raises(CheckFailed) as info:
        EXERCISES[bug.cell][1](fn)
    assert t(PLANTED[name]) in str(info.value), str(info.value)
    failure = fails(EXERCISES[bug.cell][2], fn)
    assert (failure.hint[0] if isinstance(failure.hint, tuple) else failure.hint) == PLANTED[name], name


@pytest.mark.parametrize("cell", sorted(EXERCISES))
def test_the_lessons_solution_passes_both_sides(cell, lang):
    fn = _solution(cell)
    EXERCISES[cell][1](fn)
    passes(EXERCISES[cell][2], fn)
