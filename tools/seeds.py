"""Does lesson 5's graded result hold for any training seed, not just the notebook's seed 0?

Trains the reference TinyDecoder exactly as the lesson does (600 steps of 64 sequences, AdamW 3e-3)
once per seed, answers the interpretation question the way the notebook does (on its test batch),
and grades that answer with the hidden test, which draws its own batch from a secret seed.
Usage: python tools/seeds.py [--seeds 20] [--out seeds.json]
"""
import argparse
import json
import os
import sys
import time
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parent.parent
os.environ.setdefault("ATTN_COURSE_REFERENCE", str(ROOT / "autograder" / "reference"))

from attn_course import checks  # noqa: E402


def run(seed, ref5):
    torch.manual_seed(seed)
    model = ref5.TinyDecoder()                      # the lesson's sizes are its defaults
    V, T = model.vocab, model.wpe.num_embeddings
    g = torch.Generator().manual_seed(seed)
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-3)
    for _ in range(600):
        ref5.train_step(model, optimizer, *checks.toy_batch(64, T, V, g))
    model.eval()
    test_x, test_y = checks.toy_batch(512, T, V, torch.Generator().manual_seed(1234))
    with torch.no_grad():
        logits, weights = model(test_x)
    right = (logits.argmax(-1) == test_y)[:, 1:].float().mean(dim=(0, 1))
    prev = checks.previous_token_weight(weights[0])
    head, weight = int(prev.argmax()), float(prev.max())
    ablated = [ref5.loss_without_head(model, test_x, test_y, 0, h) for h in range(model.n_head)]
    try:
        ref5.test_head_answers(model, head, weight)
        graded = "pass"
    except checks.CheckFailed as e:
        graded = f"fail: {e}"
    return dict(seed=seed, loss=checks.toy_loss(logits, test_y).item(), acc_first=float(right[0]),
                acc_prev=float(right[1]), prev_head=head, prev_weight=weight,
                other_head_prev_weight=float(prev.min()), loss_without_head=ablated, graded=graded)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    torch.set_num_threads(1)
    ref5 = checks.reference("lesson5")
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
