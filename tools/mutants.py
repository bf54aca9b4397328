"""make mutants: mistakes nobody planted, made by a machine, and what the checks and the grader say about them.

Every solution cell of every graded lesson is mutated (tools/mutation/operators.py: axes, tril/triu,
comparisons, -inf fills, calls moved or dropped, arguments swapped, constants changed, …). Each mutant
runs in process on the lesson's solution notebook (tools/mutation/harness.py): its visible check, the
grader's verdict on several grading seeds, whether it is equivalent to the solution, and, when the
check passes, the rest of the notebook. test-artifacts/mutants/<lesson>.md and .json hold the report.

    PYTHONPATH=tools:tests .venv/bin/python tools/mutants.py [--lesson 03_masks] [--seeds 3] [--cell ex2_apply_mask]
                                                            [--id <mutant id>] [--readme]

--readme rewrites the mutant table of docs/measurements.md (between <!-- mutants --> and <!-- /mutants -->) from the
lessons just run and the JSON already in the folder for the others; a lesson with no JSON there keeps the row
the table had.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import sys
import time
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

from classroom import ROOT  # noqa: E402
from lessons import lessons  # noqa: E402
from mutation import report  # noqa: E402
from mutation.harness import Notebook  # noqa: E402
from mutation.operators import mutants  # noqa: E402

OUT = ROOT / "test-artifacts" / "mutants"


def lesson_mutants(nb: Notebook, cells=None) -> list:
    found = []
    for cell in nb.solutions():
        if cells and cell.grade_id not in cells:
            continue
        found += mutants(cell.source, cell.grade_id)
    return found


def record(mutant, verdict, seeds) -> dict:
    return {"id": mutant.id, "cell": mutant.cell, "op": mutant.op, "line": mutant.line, "label": mutant.label,
            "diff": mutant.diff, "visible": verdict.visible, "hidden": verdict.hidden,
            "equivalent": verdict.equivalent, "later": verdict.later, "seeds": len(seeds)}


def run_lesson(lesson, seeds=(0, 1, 2), cells=None, ids=None, later=True, progress=None) -> list:
    """Every mutant of the lesson (or those with the given ids), judged: a list of records (report.categories)."""
    nb = Notebook(lesson, seeds)
    chosen = lesson_mutants(nb, cells)
    if ids is not None:   # ids of several lessons may be given: this lesson's are those its cells make
        chosen = [m for m in chosen if m.id in ids]
    out = []
    for n, mutant in enumerate(chosen):
        out.append(record(mutant, nb.evaluate(mutant, later), seeds))
        if progress:
            progress(n + 1, len(chosen))
    return out


def _progress(stem):
    def show(n, total):
        print(f"\r  {stem}: {n}/{total}", end="" if n < total else "\n", file=sys.stderr, flush=True)
    return show


def update_readme(folder: Path, readme: Path = ROOT / "docs" / "measurements.md") -> None:
    """The table's rows from the lesson JSONs in the folder; a lesson without one keeps its row as it was."""
    text = readme.read_text(encoding="utf-8")
    block = re.compile(r"(<!-- mutants -->\n)(.*?)(<!-- /mutants -->)", re.S)
    match = block.search(text)
    kept = report.parse_readme_table(match.group(2)) if match else {}
    summaries = {}
    for lesson in lessons():
        path = folder / f"{lesson.stem}.json"
        if path.exists():
            records = json.loads(path.read_text(encoding="utf-8"))["mutants"]
            summaries[lesson.stem] = report.counts(records).get("all", {})
        elif lesson.stem in kept:
            summaries[lesson.stem] = kept[lesson.stem]
    readme.write_text(block.sub(lambda m: m.group(1) + report.readme_table(summaries) + m.group(3), text),
                      encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lesson", action="append", help="a lesson stem; every graded lesson if none")
    parser.add_argument("--cell", action="append", help="only this solution cell's mutants (grade id)")
    parser.add_argument("--id", action="append", help="only this mutant (its id in the report)")
    parser.add_argument("--seeds", type=int, default=3, help="grading seeds per mutant (default 3)")
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--readme", action="store_true", help="rewrite docs/measurements.md's mutant table")
    args = parser.parse_args()
    seeds = tuple(range(args.seeds))
    import torch
    torch.set_num_threads(1)   # small tensors: a second thread only waits for the first on a shared machine
    total = time.perf_counter()
    for lesson in lessons():
        if args.lesson and lesson.stem not in args.lesson:
            continue
        start = time.perf_counter()
        records = run_lesson(lesson, seeds, args.cell, args.id, progress=_progress(lesson.stem))
        if not records:
            continue
        meta = {"seeds": list(seeds), "seconds": time.perf_counter() - start, "load": round(os.getloadavg()[0], 1)}
        report.write(args.out, lesson.stem, records, meta)
        c = report.counts(records).get("all", {})
        print(f"{lesson.stem}: " + ", ".join(f"{k} {c.get(k, 0)}" for k in report.COLUMNS)
              + f" ({meta['seconds']:.0f} s)")
    print(f"total {time.perf_counter() - total:.0f} s; reports in {args.out}")
    if args.readme:
        update_readme(args.out)


if __name__ == "__main__":
    main()
