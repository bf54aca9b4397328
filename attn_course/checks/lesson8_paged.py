"""Lesson 8's visible checks for a cache's memory: a paged cache, pages and a block table (exercise 10), attention
read page by page through the block table (exercise 13), and what a cache costs in bytes (exercise 12)."""
from __future__ import annotations

import math
import re

import torch

from ..score_watch import CopyWatch
from ..sizes import avoided
from ..validate import dtype_bytes
from .engine import close
from .lesson8_common import length_error


# --------------------------------------------------------------------------- exercise 10: a paged cache
RESHAPE_ROWS = re.compile(r"shape '\[(\d+)((?:, \d+)*)\]' is invalid for input of size (\d+)")


def paged_error(kind: str, message: str, call: str = "") -> str | None:
    """A slot index past the page's end in paged_write: p // P and p % P swapped (the slot is p % P < P).
    In paged_gather, a reshape to n · P rows of pages that hold fewer rows (n past the table: the page count rounded
    wrong) or more (the pages not cut to block_table[:n])."""
    if call.startswith("paged_write") and "out of bounds" in message:
        return "hint_paged_divmod"
    if "tensors used as indices must be long" in message or "slice indices must be integers" in message:
        return "hint_paged_int_division"   # p / P or a page count with /: a float where an index is meant
    if length_error(kind, message):
        return length_error(kind, message)
    if call.startswith("paged_write") and ("inconsistent with step sign" in message
                                           or "cannot be broadcast to indexing result" in message):
        return "hint_paged_positions"   # not one position per new token: arange(start, start + T_new)
    found = RESHAPE_ROWS.search(message) if call.startswith("paged_gather") else None
    if found:
        rest = math.prod(int(x) for x in found.group(2).split(", ")[1:]) if found.group(2) else 1
        rows = int(found.group(3)) / rest
        return "hint_paged_pages_count" if rows < int(found.group(1)) else "hint_paged_table_slice"
    return None


def paged_write_ref(pages, block_table, start: int, new, swap=False, no_table=False, from_zero=False,
                    unwritten=False):
    """pages (n_pages, P, H, D); new (T_new, H, D) at positions start …: page block_table[p // P], slot p % P.
    unwritten: pages left as they were (the name bound to a new tensor, pages = …, instead of written into)."""
    if unwritten:
        return
    size = pages.size(1)
    positions = torch.arange(new.size(0)) + (0 if from_zero else start)
    logical, slot = (positions % size, positions // size) if swap else (positions // size, positions % size)
    physical = logical if no_table else block_table[logical]
    pages[physical, slot] = new


def paged_gather_ref(pages, block_table, length: int, no_table=False, uncut=False, transposed=False):
    size = pages.size(1)
    n = -(-length // size)                                            # pages in use
    used = pages[:n] if no_table else pages[block_table[:n]]          # (n, P, H, D)
    if transposed:   # heads and slots mixed up: (n, H, P, D) read as if it were (n, P, H, D)
        used = used.transpose(1, 2).reshape(used.shape)
    out = used.reshape(n * size, *pages.shape[2:])
    return out if uncut else out[:length]


PAGED_WRITE_BUGS = {"hint_paged_divmod": dict(swap=True), "hint_paged_table": dict(no_table=True),
                    "hint_paged_start": dict(from_zero=True), "hint_paged_not_written": dict(unwritten=True)}
PAGED_GATHER_BUGS = {"hint_paged_table": dict(no_table=True), "hint_paged_layout": dict(transposed=True)}


def paged_written(writes, n_pages, size, heads, d, chunks, table, **bug):
    """The pages after writing these chunks; None when the mistake cannot even write them (a slot past the page)."""
    pages = torch.zeros(n_pages, size, heads, d, dtype=torch.float64)
    try:
        for lo, hi in chunks:
            paged_write_ref(pages, table, lo, writes[lo:hi], **bug)
    except IndexError:
        return None
    return pages


def paged_length_hint(got, length: int, size: int) -> str | None:
    """Gathered too many tokens (the last page's unused slots), or too few: length // P pages, which leaves out the
    last, partly filled page (the pages in use are ⌈length / P⌉)."""
    if not (isinstance(got, torch.Tensor) and got.dim() == 3):
        return None
    if got.size(0) > length:
        return "hint_paged_length"
    if got.size(0) < length:
        return "hint_paged_floor" if got.size(0) == length // size * size else "hint_paged_pages_count"
    return None


# --------------------------------------------------------------------------- exercise 13: attention over pages
def _page_keys(pages, row, n_pages: int, length: int, keep_tail: bool):
    """One sequence's keys (length, H, D), read through its row of the block table (row: physical page numbers)."""
    size = pages.size(1)
    flat = pages[row[:n_pages]].reshape(n_pages * size, *pages.shape[2:])
    return flat if keep_tail else flat[:length]


def _online(q, ks, vs, rescale=True, update_max=True, divide=True, per_page=False):
    """q (H, D) against pages of keys and values ks, vs [(n, H, D)]: the online softmax over them, page by page,
    with one of its steps written wrong (the defaults are right)."""
    d = q.size(-1)
    m = q.new_full((q.size(0), 1), float("-inf"))
    l, acc = q.new_zeros(q.size(0), 1), torch.zeros_like(q)
    for k, v in zip(ks, vs):
        s = torch.einsum("hd,nhd->hn", q, k) / math.sqrt(d)
        if per_page:   # a softmax of each page on its own, the pages' outputs added
            acc = acc + torch.einsum("hn,nhd->hd", torch.softmax(s, -1), v)
            continue
        m_new = torch.maximum(m, s.amax(-1, keepdim=True))
        p = torch.exp(s - m_new)
        c, one = torch.exp(m - m_new), torch.ones_like(m)   # rescale "l" or "acc": only that one rescaled
        l = l * (c if rescale in (True, "l") else one) + p.sum(-1, keepdim=True)
        acc = acc * (c if rescale in (True, "acc") else one) + torch.einsum("hn,nhd->hd", p, v)
        m = m_new if update_max else m
    return acc / l if divide and not per_page else acc


def paged_decode_run(q, k_pages, v_pages, block_tables, seq_lens, table=None, first=False, tail=False, floor=False,
                     scale=1.0, **steps):
    """Each sequence's one query against its own keys, read through its row of the block table, page by page: (N, H,
    D). The defaults are right; each flag is a classic mistake (paged_decode_variants). first: the first sequence's
    row and length for every sequence (True), or only its row ("row") or its length ("length")."""
    size = k_pages.size(1)
    lengths = [int(n) for n in seq_lens]
    outs = []
    for i in range(q.size(0)):
        row = torch.arange(block_tables.size(1)) if table == "logical" else \
            block_tables[0 if first in (True, "row") else i]
        length = lengths[0 if first in (True, "length") else i]
        n = length // size if floor else -(-length // size)
        ks, vs = (_page_keys(p, row, n, length, tail) for p in (k_pages, v_pages))
        outs.append(_online(q[i] * scale, [ks[j:j + size] for j in range(0, ks.size(0), size)],
                            [vs[j:j + size] for j in range(0, vs.size(0), size)], **steps))
    return torch.stack(outs)


def paged_decode_variants(*args) -> dict:
    """The right answer (None) and the classic mistakes, each (N, H, D): the table not used (logical page numbers as
    physical ones), the first sequence's row or length for all, the last page not cut at the length (its unused
    slots read) or left out (length // P pages), the online softmax's rescaling (of both, of acc or of ℓ) or its
    running max forgotten, acc not divided by l, each page's own softmax added up, scores not scaled."""
    d = args[0].size(-1)
    return {None: paged_decode_run(*args), "hint_pdec_table": paged_decode_run(*args, table="logical"),
            "hint_pdec_first_row": paged_decode_run(*args, first=True),
            ("hint_pdec_first_row", "row"): paged_decode_run(*args, first="row"),
            ("hint_pdec_first_row", "length"): paged_decode_run(*args, first="length"),
            "hint_pdec_tail": paged_decode_run(*args, tail=True),
            "hint_pdec_floor": paged_decode_run(*args, floor=True),
            "hint_pdec_rescale": paged_decode_run(*args, rescale=False),
            "hint_pdec_rescale_acc": paged_decode_run(*args, rescale="l"),
            "hint_pdec_rescale_sum": paged_decode_run(*args, rescale="acc"),
            "hint_pdec_max": paged_decode_run(*args, update_max=False),
            "hint_pdec_not_divided": paged_decode_run(*args, divide=False),
            "hint_pdec_page_softmax": paged_decode_run(*args, per_page=True),
            "hint_no_scale": paged_decode_run(*args, scale=math.sqrt(d))}


def paged_decode_inputs(draws, case, dtype):
    """q (N, H, D), one query per sequence; k_pages, v_pages (N_pages, P, H, D); block_tables (N, max pages), each
    row's unused entries other sequences' pages (as a server's table holds whatever was there); seq_lens (N,). The
    first sequence spans more than two pages, its last one partly filled; the others any length."""
    size, h, d, n = draws.sizes(f"{case}.sizes", 4, low=3, high=8, avoid=avoided(8))
    first = 2 * size + int(draws.randint(f"{case}.first", 1, size, (1,)))
    lens = torch.cat([torch.tensor([first]), draws.randint(f"{case}.lens", 1, 3 * size + 1, (n - 1,))])
    used = [-(-int(m) // size) for m in lens]
    n_pages = sum(used) + 2
    order = torch.randperm(n_pages, generator=draws.gen(f"{case}.order"))
    tables = order[torch.randint(0, n_pages, (n, max(used)), generator=draws.gen(f"{case}.filler"))]
    start = 0
    for i, m in enumerate(used):
        tables[i, :m] = order[start:start + m]
        start += m
    q = draws.randn(f"{case}.q", n, h, d, dtype=dtype)
    k_pages, v_pages = (draws.randn(f"{case}.{x}", n_pages, size, h, d, dtype=dtype) for x in ("k", "v"))
    return q, k_pages, v_pages, tables, lens


def paged_decode_bug(args, got):
    """The classic mistake (a key of paged_decode_variants) whose output equals got on the inputs args, NaN as 0
    (a sequence left with no page), or None: the check's and the grader's judge's one rule."""
    if not isinstance(got, torch.Tensor) or got.dim() != 3:
        return None
    q, k_pages, v_pages, tables, lens = (a.detach().double() if isinstance(a, torch.Tensor) and a.is_floating_point()
                                         else a for a in args)
    got = torch.nan_to_num(got.detach().double())
    with torch.no_grad():
        variants = paged_decode_variants(q, k_pages, v_pages, tables, lens)
    found = next((key for key, want in variants.items()
                  if key and want.shape == got.shape and close(got, torch.nan_to_num(want), 1e-9)), None)
    return found[0] if isinstance(found, tuple) else found


def paged_decode_error(kind: str, message: str, call: str = "") -> str | None:
    """Running tensors made on the CPU that met the meta device's (no device=q.device); a page number or a length
    used as a float (/ for //); a page past the table (the page count rounded up from a length that fills its
    pages, or a row read past its sequence)."""
    if "meta" in call and ("meta" in message or "device" in message):
        return "hint_pdec_device"
    if "tensors used as indices must be long" in message or "slice indices must be integers" in message \
            or "'float' object cannot be interpreted as an integer" in message:
        return "hint_paged_int_division"
    if "out of bounds" in message:
        return "hint_pdec_past_table"
    return None


# The watch's case, fixed: 3 sequences of 5, 2 and 4 pages of P = 3, one query of 5 heads 7 wide each. One page of
# each sequence at once is 3 · P · H · D numbers; a sequence's pages gathered are more.
WATCH_LENS, WATCH_SIZE, WATCH_H, WATCH_D = (14, 5, 11), 3, 5, 7


def watch_inputs(draws, dtype=torch.float64, device="cpu"):
    """The check's and the probe's case for the watch and the meta device: q, k_pages, v_pages, block_tables,
    seq_lens (block_tables and seq_lens stay on the CPU, as the host holds them)."""
    used = [-(-n // WATCH_SIZE) for n in WATCH_LENS]
    order = torch.randperm(sum(used) + 2, generator=draws.gen("watch.table"))
    tables = torch.zeros(len(used), max(used), dtype=torch.long)
    start = 0
    for i, n in enumerate(used):
        tables[i, :n] = order[start:start + n]
        start += n
    q = draws.randn("watch.q", len(used), WATCH_H, WATCH_D, dtype=dtype).to(device)
    k_pages, v_pages = (draws.randn(f"watch.{x}", len(order), WATCH_SIZE, WATCH_H, WATCH_D, dtype=dtype).to(device)
                        for x in "kv")
    return q, k_pages, v_pages, tables, torch.tensor(WATCH_LENS)


def watched_decode(call, fn, draws):
    """(the shape of the pages gathered into one tensor, or None; what the meta device's float16 call returned):
    call(name, fn, *args) is the check's run or the probe's rec.call."""
    q, k_pages, v_pages, tables, lens = watch_inputs(draws)
    with CopyWatch(len(WATCH_LENS) * WATCH_SIZE * WATCH_H * WATCH_D, k_pages, v_pages) as watch:
        call("paged_decode", fn, q, k_pages, v_pages, tables, lens)
    meta = call("paged_decode (meta, float16)", fn, *watch_inputs(draws, torch.float16, "meta"))
    return watch.largest, meta


def watch_finding(largest, meta):
    """(message key, fields, hint key) for what watched_decode saw, or None."""
    if largest is not None:
        return "pdec_gathered", {"shape": largest}, "hint_pdec_gathered"
    if getattr(meta, "device", None) is None or getattr(meta, "dtype", None) is None:   # a tensor, or one sent as
        return None                                                                     # NoValues to the grader
    if meta.device.type != "meta" or meta.dtype != torch.float16:
        return "pdec_meta", {"device": meta.device.type, "dtype": str(meta.dtype).replace("torch.", "")}, (
            "hint_pdec_device" if meta.device.type != "meta" else "hint_pdec_dtype")
    return None


# --------------------------------------------------------------------------- exercise 12: what a cache costs
def cache_bytes_ref(config: dict, T: int, batch: int = 1, dtype=torch.bfloat16, bug: str | None = None) -> int:
    """Bytes of a KV cache for the config's layers: 2 · B · T_l · G · D per layer (T_l = min(T, W) on a window
    layer), or B · T · latent_dim per layer for MLA's latent cache."""
    n_layer, size = config["n_layer"], 2 if bug == "hint_bytes_dtype_size" else dtype_bytes(dtype)
    batch = 1 if bug == "hint_bytes_no_batch" else batch
    if "latent_dim" in config:
        factor = 2 if bug == "hint_bytes_latent_twice" else 1
        return factor * n_layer * batch * T * config["latent_dim"] * size
    per_token = (1 if bug == "hint_bytes_kv_once" else 2) * batch * config["n_kv_head"] * config["head_dim"] * size
    window = config.get("window")
    if window is None or bug == "hint_bytes_window_ignored":
        return n_layer * T * per_token
    window_layers = n_layer if bug == "hint_bytes_window_all" else config.get("window_layers", n_layer)
    held = window if bug == "hint_bytes_window_uncapped" else min(T, window)
    return (window_layers * held + (n_layer - window_layers) * T) * per_token


BYTES_BUGS = ("hint_bytes_latent_twice", "hint_bytes_window_ignored", "hint_bytes_window_all", "hint_bytes_kv_once",
              "hint_bytes_window_uncapped", "hint_bytes_dtype_size", "hint_bytes_no_batch")


def bytes_error(kind: str, message: str, call: str = "") -> str | None:
    """A key some configs lack (MLA's have no n_kv_head; window is optional), the dict or a key's name used as a
    number, or a missing window used as one."""
    if kind == "KeyError":
        return "hint_bytes_key"
    if kind == "TypeError" and ("'dict'" in message or "'str'" in message):
        return "hint_bytes_config"
    if kind == "TypeError" and "NoneType" in message:
        return "hint_bytes_no_window"
    return None


def bytes_hint(cases, gots, wrong: int) -> str | None:
    """The cause of cache_bytes' answers (gots, one per case; cases[wrong] the first wrong one), as the check and
    the grader name it: the one mistake of BYTES_BUGS that gives every answer of the cases the same formula counts
    (MLA's latent, or keys and values: a mistake sits in one of the two; one case alone fits several, a forgotten
    batch of 2 halves the bytes as K without V does, 2 bytes are right for float16), or bits for bytes."""
    latent = "latent_dim" in cases[wrong][0]
    same = [(case, got) for case, got in zip(cases, gots) if ("latent_dim" in case[0]) == latent]
    found = [bug for bug in BYTES_BUGS if all(isinstance(got, int) and got == cache_bytes_ref(*case, bug=bug)
                                              for case, got in same)]
    if len(found) == 1:
        return found[0]
    return "hint_kv_bits" if not found and gots[wrong] == cache_bytes_ref(*cases[wrong]) * 8 else None
