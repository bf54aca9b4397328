"""Can one ALiBi layer pick the previous token? Lesson 7's own model and training, rerun over seeds.

Runs the lesson's code cells that define sinusoidal_positions, apply_rope, alibi_bias and the
section-6 model (PositionalDecoder, train, accuracy_by_position), read from lessons/07_positions.md, so what is
measured is exactly what the notebook trains: E = 32, two heads, 600 steps of 64 sequences of
length 12, AdamW 3e-3, one thread. For each seed it trains one-layer ALiBi models with the standard
slopes for H = 2 (1/16, 1/256) and with the slopes ×16 (1, 1/16), and, with --two-layer, the
lesson's two-layer ALiBi model, then prints the accuracy of both questions at the seen positions
(1-11) and the unseen ones (12-23), and, for one-layer models, how much weight each head puts on
the token itself (distance 0) and on the previous token (distance 1) at positions 2-23, with the
share of the content term q·k/√D in it: its score for the token itself minus its score for the
previous one.

    python tools/alibi_one_layer.py [--seeds 5] [--scales 1 16] [--two-layer] [--out FILE.json]
"""
import argparse
import json
import math
import statistics
import time
from pathlib import Path

import jupytext
import torch
import torch.nn as nn
import torch.nn.functional as F

import attn_course as course

LESSON = Path(__file__).resolve().parent.parent / "lessons" / "07_positions.md"
NEEDED = ("def sinusoidal_positions(", "def apply_rope(", "def alibi_bias(", "def train(")


def lesson_namespace() -> dict:
    """The lesson's own definitions, executed as the notebook runs them (on the CPU, no progress bars)."""
    ns = {"math": math, "torch": torch, "nn": nn, "F": F, "course": course, "device": torch.device("cpu"),
          "tqdm": lambda it, **_: it, "trange": lambda n, **_: range(n)}
    cells = [c.source for c in jupytext.read(LESSON).cells if c.cell_type == "code"]
    for marker in NEEDED:
        source = [s for s in cells if marker in s]
        assert len(source) == 1, f"{marker} in {len(source)} cells of {LESSON.name}"
        exec(compile(source[0], f"{LESSON.name}:{marker}", "exec"), ns)
    return ns


def near_weights(ns, model) -> dict:
    """Per head, at positions 2-23 of the test batch: the mean weight on distance 0 and on distance 1,
    and the mean content score (q·k/√D) of distance 0 minus distance 1. Recomputed from the one
    layer's own c_attn and alibi_bias, as PositionalAttention.forward computes them."""
    attn, x = model.blocks[0].attn, ns["test_x"]
    with torch.no_grad():
        h = model.blocks[0].ln_1(model.wte(x))
        B, T, E = h.shape
        H, D = attn.n_head, E // attn.n_head
        q, k, _ = (z.view(B, T, H, D).transpose(1, 2) for z in attn.c_attn(h).split(E, dim=2))
        content = q @ k.transpose(-2, -1) / math.sqrt(D)
        keep = torch.ones(T, T, dtype=torch.bool).tril()
        scores = content + attn.alibi_scale * ns["alibi_bias"](H, T)
        w = torch.softmax(scores.masked_fill(~keep, float("-inf")), dim=-1)
    i = torch.arange(2, T)
    return {f"head{hd}": {"self": float(w[:, hd, i, i].mean()), "previous": float(w[:, hd, i, i - 1].mean()),
                          "content_self_minus_previous": float((content[:, hd, i, i] - content[:, hd, i, i - 1]).mean())}
            for hd in range(H)}


def summary(acc, T_train) -> dict:
    seen, unseen = slice(1, T_train), slice(T_train, 2 * T_train)
    return {"prev_seen": float(acc[seen, 1].mean()), "prev_unseen": float(acc[unseen, 1].mean()),
            "first_seen": float(acc[seen, 0].mean()), "first_unseen": float(acc[unseen, 0].mean())}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--scales", type=float, nargs="+", default=[1.0, 16.0])
    parser.add_argument("--two-layer", action="store_true", help="also the lesson's two-layer ALiBi model")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    ns = lesson_namespace()
    T_train = ns["T_train"]
    settings = [(1, s) for s in args.scales] + ([(2, 1.0)] if args.two_layer else [])
    rows, start = [], time.perf_counter()
    for n_layer, scale in settings:
        slopes = [float(-scale * ns["alibi_bias"](2, 2)[h, 1, 0]) for h in range(2)]
        for seed in range(args.seeds):
            t0 = time.perf_counter()
            model = ns["train"]("alibi", n_layer=n_layer, alibi_scale=scale, seed=seed)
            row = {"n_layer": n_layer, "alibi_scale": scale, "slopes": slopes, "seed": seed,
                   **summary(ns["accuracy_by_position"](model), T_train),
                   "weights": near_weights(ns, model) if n_layer == 1 else None,
                   "seconds": round(time.perf_counter() - t0, 2)}
            rows.append(row)
            print(f"layers {n_layer}  slopes {slopes[0]:g}, {slopes[1]:g}  seed {seed}: "
                  f"previous {row['prev_seen']:.3f} seen / {row['prev_unseen']:.3f} unseen, "
                  f"first {row['first_seen']:.3f} / {row['first_unseen']:.3f}  ({row['seconds']:.1f} s)", flush=True)
        mine = [r for r in rows if r["n_layer"] == n_layer and r["alibi_scale"] == scale]
        for key in ("prev_seen", "prev_unseen", "first_seen", "first_unseen"):
            values = [r[key] for r in mine]
            print(f"    {key:13s} mean {statistics.mean(values):.3f}  min {min(values):.3f}  max {max(values):.3f}")
        if n_layer == 1:
            for head, slope in zip(("head0", "head1"), slopes):
                for key in ("self", "previous", "content_self_minus_previous"):
                    values = [r["weights"][head][key] for r in mine]
                    print(f"    {head} (slope {slope:g}) {key:28s} mean {statistics.mean(values):+.3f}  "
                          f"min {min(values):+.3f}  max {max(values):+.3f}")
    print(f"{len(rows)} models in {time.perf_counter() - start:.0f} s (each on one thread, as the lesson trains)")
    if args.out:
        args.out.write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
