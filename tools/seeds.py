"""Does lesson 5's graded result hold for any training seed, not just the notebook's seed 0?

Trains the reference TinyDecoder exactly as the lesson does (600 steps of 64 sequences, AdamW 3e-3)
once per seed, answers the interpretation question the way the notebook does (on its test batch),
and grades that answer as the grader does: the probe records the model, the judge reads its heads
on a batch drawn from a seed it picks.
Usage: python tools/seeds.py [--seeds 20] [--out seeds.json]
"""
import argparse
import json
import os
import secrets
import sys
import time
from pathlib import Path

import torch
from attn_course.data import toy_batch, toy_loss
from attn_course.probes import SEED_ENV, lesson5 as probes
from attn_course.validate import previous_token_weight
from attn_grader.references import load
from attn_grader.verdict import decide, localize

REFERENCE = Path(__file__).resolve().parent.parent / "autograder" / "reference"


def graded(model, head, weight) -> str:
    seed = secrets.randbits(63)
    saved = os.environ.get(SEED_ENV)
    os.environ[SEED_ENV] = str(seed)
    try:
        payload = probes.head_answers.record(model, head, weight)
    finally:  # as the grader does: the seed is this call's, not the process's (tests share the process)
        if saved is None:
            os.environ.pop(SEED_ENV, None)
        else:
            os.environ[SEED_ENV] = saved
    failure = decide(REFERENCE, seed, probes.head_answers.test, payload)
    return "pass" if failure is None else f"fail: {localize(failure, 'ja')}"


def run(seed, ref5):
    torch.manual_seed(seed)
    model = ref5.TinyDecoder()                      # the lesson's sizes are its defaults
    V, T = model.vocab, model.wpe.num_embeddings
    g = torch.Generator().manual_seed(seed)
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-3)
    for _ in range(600):
        ref5.train_step(model, optimizer, *toy_batch(64, T, V, g))
    model.eval()
    test_x, test_y = toy_batch(512, T, V, torch.Generator().manual_seed(1234))
    with torch.no_grad():
        logits, weights = model(test_x)
    right = (logits.argmax(-1) == test_y)[:, 1:].float().mean(dim=(0, 1))
    prev = previous_token_weight(weights[0])
    head, weight = int(prev.argmax()), float(prev.max())
    ablated = [ref5.loss_without_head(model, test_x, test_y, 0, h) for h in range(model.n_head)]
    return dict(seed=seed, loss=toy_loss(logits, test_y).item(), acc_first=float(right[0]),
                acc_prev=float(right[1]), prev_head=head, prev_weight=weight,
                other_head_prev_weight=float(prev.min()), loss_without_head=ablated,
                graded=graded(model, head, weight))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    torch.set_num_threads(1)
    ref5 = load(REFERENCE, "lesson5")
    rows, start = [], time.perf_counter()
    for seed in range(args.seeds):
        rows.append(run(seed, ref5))
        r = rows[-1]
        print(f"seed {seed:2d}: loss {r['loss']:.4f}  acc {r['acc_first']:.3f}/{r['acc_prev']:.3f}  "
              f"prev head {r['prev_head']} ({r['prev_weight']:.3f}, other {r['other_head_prev_weight']:.3f})  "
              f"without head 0/1 {r['loss_without_head'][0]:.3f}/{r['loss_without_head'][1]:.3f}  {r['graded']}",
              flush=True)
    passed = sum(r["graded"] == "pass" for r in rows)
    print(f"{passed}/{len(rows)} seeds graded full marks; {time.perf_counter() - start:.0f} s")
    if args.out:
        Path(args.out).write_text(json.dumps(rows, indent=1))
    sys.exit(0 if passed == len(rows) else 1)


if __name__ == "__main__":
    main()
