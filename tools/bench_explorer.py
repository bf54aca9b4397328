"""Time the attention explorer the way a learner meets it: build, then one control change after another.

    python tools/bench_explorer.py [--out FILE.json] [--rounds N] [--lang ja|ko]

A control change is timed from setting the control's value in Python to the explorer's
observer returning (ipywidgets calls it synchronously), so it includes drawing and PNG
encoding but not the trip to the browser; tests/test_browser.py measures that. Run it with
nothing else busy: the load average before and after is recorded with the times.
"""
import argparse
import json
import os
import statistics
import time
from pathlib import Path

import torch

import attn_course as course
from attn_course import fonts, messages

# (name, layers, heads, tokens). The first three are issue 21's; the last is the largest any
# lesson shows: lesson 5's two-layer, four-head decoder on 12 tokens, through from_model.
SHAPES = [("H=2 T=6", 1, 2, 6), ("H=4 T=12", 1, 4, 12), ("H=12 T=12", 1, 12, 12),
          ("lesson 5: L=2 H=4 T=12", 2, 4, 12)]
D = 8


def _tokens(T: int) -> list[str]:
    sentence = course.sentence(messages.get_language())
    return [sentence[i % len(sentence)] for i in range(T)]


def build(kind: str, L: int, H: int, T: int) -> course.AttentionExplorer:
    """`weights`: AttentionExplorer(weights, tokens, d_k), lessons 1, 2, 4 and 6. `qk`: the stage
    switch and both mask toggles (from_qk, lesson 3). `model`: what from_model builds (lesson 5)."""
    g = torch.Generator().manual_seed(0)
    q, k = torch.randn(L, H, T, D, generator=g), torch.randn(L, H, T, D, generator=g)
    if kind == "weights":
        return course.AttentionExplorer(torch.softmax(q @ k.transpose(-2, -1) / D ** 0.5, -1), _tokens(T), d_k=D)
    if kind == "qk":
        return course.AttentionExplorer.from_qk(q, k, _tokens(T), length=T - 2)
    return course.AttentionExplorer(None, _tokens(T), q=q, k=k, causal=True)


def changes(e: course.AttentionExplorer) -> list[tuple[str, object]]:
    """Every control the explorer shows, each moved more than once; the focused query and the
    second head are turned on early, so most changes redraw with all four views on screen."""
    H, L, T = e.n_heads, e.n_layers, len(e.tokens)
    steps = [("query", 2)] + ([("compare", 1)] if H > 1 else [])
    steps += [("tau", 0.3), ("tau", 3.0), ("tau", 1.0)]
    if H > 1:
        steps += [("head", 1), ("head", H - 1), ("compare", 0), ("compare", -1), ("compare", H // 2), ("head", 0)]
    if L > 1:
        steps += [("layer", 1), ("layer", 0)]
    if e.q is None and e.d_k is not None:
        steps += [("scaled", False), ("scaled", True)]
    if e.q is not None:
        steps += [("stage", s) for s in ("stage_scores", "stage_scaled", "stage_masked")]
        steps += [("tau", 0.5), ("stage", "stage_softmax")]
        if e.causal in _shown(e):
            steps += [("causal", False), ("padding", False), ("causal", True), ("padding", True)]
    steps += [("query", T - 1), ("query", -1), ("query", 0), ("tau", 0.2), ("tau", 1.0)]
    return steps


def _shown(e) -> list:
    return [c for row in e.widget.children if hasattr(row, "children") for c in row.children]


def time_explorer(kind: str, L: int, H: int, T: int, rounds: int) -> dict:
    start = time.perf_counter()
    e = build(kind, L, H, T)
    built = time.perf_counter() - start
    per_change, by_control = [], {}
    for _ in range(rounds):
        for name, value in changes(e):
            control = getattr(e, name)
            start = time.perf_counter()
            control.value = value
            seconds = time.perf_counter() - start
            per_change.append(seconds)
            by_control.setdefault(name, []).append(seconds)
    ms = lambda s: round(1000 * s, 1)  # noqa: E731
    return {"build_ms": ms(built), "changes": len(per_change),
            "median_ms": ms(statistics.median(per_change)), "worst_ms": ms(max(per_change)),
            "worst_ms_by_control": {name: ms(max(v)) for name, v in by_control.items()}}


def measure(rounds: int = 2, lang: str = "ja") -> dict:
    """Every shape and kind, one after another in this process; prints a table as it goes."""
    messages.set_language(lang)
    fonts.use_cjk_fonts(lang)
    load_before = os.getloadavg()[0]
    # One throwaway build: the first one pays for loading fonts and matplotlib's caches.
    build("weights", 1, 1, 6)
    results = []
    print(f"{'explorer':34s} {'build':>8s} {'median':>8s} {'worst':>8s}  (ms per control change)")
    for name, L, H, T in SHAPES:
        for kind in (("model",) if name.startswith("lesson") else ("weights", "qk")):
            r = {"shape": name, "kind": kind, **time_explorer(kind, L, H, T, rounds)}
            results.append(r)
            print(f"{name + ' ' + kind:34s} {r['build_ms']:8.0f} {r['median_ms']:8.0f} {r['worst_ms']:8.0f}",
                  flush=True)
    load = {"load_before": load_before, "load_after": os.getloadavg()[0]}
    print(f"load average (1 min): {load['load_before']:.2f} before, {load['load_after']:.2f} after "
          f"(this process alone adds about 1)")
    return {"explorer": results, **load}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", type=Path)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--lang", default="ja")
    args = parser.parse_args()
    result = measure(args.rounds, args.lang)
    if args.out:
        args.out.write_text(json.dumps(result, indent=1, ensure_ascii=False))


if __name__ == "__main__":
    main()
