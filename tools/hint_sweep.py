"""How often does the grader name each planted bug's mistake right, over many grading seeds?

`make autograde` draws a new seed per grading run, and the hidden inputs come from it. A hint that
depends on the inputs (two mistakes that happen to give the same number) is then named right on most
seeds and wrong on a few: the class report's tests see it once in a while, an instructor sees a
wrong count. This script judges every planted bug (tools/planted/) on --seeds seeds and compares the hint
with the one its entry names; the solution itself must pass every grade cell on every seed.

In process and fast: each lesson's solution notebook runs once; for a bug, only the solution cells
from the edited one on run again, over a copy of that namespace. Objects a later demo cell built from
an earlier solution stay the right ones, so a bug seen only through such an object shows as "passed"
here (the real grader, which runs the whole notebook, is exact). Usage:

    PYTHONPATH=tools .venv/bin/python tools/hint_sweep.py [--seeds 40] [--lesson 07_positions] [--out f.json]
"""
from __future__ import annotations

import argparse
import ast
import contextlib
import json
import os
import time
from collections import Counter
from pathlib import Path

import matplotlib
import nbformat

matplotlib.use("Agg")

from classroom import ROOT, submission  # noqa: E402
from lessons import lessons  # noqa: E402

HIDDEN_BEGIN, HIDDEN_END = "### BEGIN HIDDEN TESTS", "### END HIDDEN TESTS"
# What the in-process sweep cannot see: lesson 5's interpretation answer after a step that never trains reads the
# model the lesson's training cell trained, which the sweep does not run again, so it judges the solution's model
# there. tests/test_grading.py grades it in a real run (0, hint_prev_untrained): no drawn size is in that verdict,
# the learner's own model is.
SWEEP_CANNOT_SEE = {"05_heads": {"zero_grad_after_backward": {"ex4_head_answers"}}}


def notebook_cells(nb):
    """(grade_id or None, source, is_solution, is_grade) for each code cell."""
    for cell in nb.cells:
        if cell.cell_type == "code":
            meta = cell.metadata.get("nbgrader", {})
            yield meta.get("grade_id"), cell.source, bool(meta.get("solution")), bool(meta.get("grade"))


def probe_calls(source: str) -> list[ast.Call]:
    """The probe calls in a grade cell's hidden part."""
    if HIDDEN_BEGIN not in source:
        return []
    hidden = source.split(HIDDEN_BEGIN, 1)[1].split(HIDDEN_END, 1)[0]
    return [node.value for node in ast.parse(hidden).body
            if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call)]


def _run(source: str, ns: dict) -> None:
    try:
        with open(os.devnull, "w") as quiet, contextlib.redirect_stdout(quiet), contextlib.redirect_stderr(quiet):
            exec(compile(source, "<cell>", "exec"), ns)
    except Exception:  # noqa: BLE001 - a bug may break a cell; the grader runs on after it too
        pass


def judge_cell(grade_source: str, ns: dict, solution: str, seed: int):
    """The hint key the grader gives this grade cell on this seed ("passed" when its hidden tests pass)."""
    from attn_course.probes import SEED_ENV
    from attn_grader.verdict import decide, hint_of
    os.environ[SEED_ENV] = str(seed)
    for call in probe_calls(grade_source):
        probe = eval(compile(ast.Expression(call.func), "<probe>", "eval"), ns)
        args = [eval(compile(ast.Expression(a), "<arg>", "eval"), ns) for a in call.args]
        failure = decide(ROOT / "autograder" / "reference", seed, probe.test, probe.record(*args), solution)
        if failure is not None:
            return hint_of(failure)[0] or "unknown"
    return "passed"


def seen_hints(stem: str, planted: dict) -> dict:
    """The hint each planted bug must get per exercise (tools/planted/), less what the sweep cannot see."""
    from planted import named
    hidden = SWEEP_CANNOT_SEE.get(stem, {})
    return {bug: {cell: key for cell, key in cells.items() if cell not in hidden.get(bug, ())}
            for bug, cells in named(planted).items()}


def sweep(stem: str, assignment: str, bugs: dict, named: dict, seeds, others: bool = False) -> dict:
    """seeds: how many (0, 1, …), or the grading seeds themselves. others: True, or a function (bug, grade cell id)
    -> whether to judge that later cell too (one the bug's cell cannot reach scores as the solution does)."""
    seeds = range(seeds) if isinstance(seeds, int) else list(seeds)
    solved = list(notebook_cells(submission(assignment, stem, "ja")))
    base = {"__name__": "__main__"}
    for grade_id, source, _solution, grade in solved:
        if not grade:
            _run(source, base)
    # The release has no hidden tests: they are read from the source notebook, as the grader reads them.
    source = nbformat.read(ROOT / "autograder" / "source" / f"{assignment}-ja" / f"{stem}.ipynb", 4)
    grade_cells = {gid: src for gid, src, _s, grade in notebook_cells(source) if grade}
    solutions = {gid: src for gid, src, solution, _g in solved if solution}
    out = {}
    for grade_id, grade_source in grade_cells.items():   # the right answer passes on every seed
        if probe_calls(grade_source):
            exercise = grade_id.removesuffix("_tests")
            got = Counter(judge_cell(grade_source, base, solutions.get(exercise, ""), seed) for seed in seeds)
            out[f"solution / {exercise}"] = {"want": "passed", "got": dict(got)}
    for name, bug in bugs.items():
        cells = list(notebook_cells(submission(assignment, stem, "ja", (bug.cell, bug.old, bug.new))))
        ns, edited = dict(base), False
        solutions = {gid: src for gid, src, solution, _g in cells if solution}
        for grade_id, source, solution, _grade in cells:
            edited = edited or grade_id == bug.cell
            if edited and solution:
                _run(source, ns)
        wants = {exercise: want or "unknown" for exercise, want in named.get(name, {}).items()}
        if others:   # every later exercise the bug does not fail keeps its points on every seed
            ids = [gid for gid, *_ in cells if gid]
            later = ids[ids.index(bug.cell):]
            wants.update({g.removesuffix("_tests"): "passed" for g in later
                          if g in grade_cells and probe_calls(grade_cells[g]) and g.removesuffix("_tests") not in wants
                          and (others is True or others(name, g))})
        for exercise, want in wants.items():
            got = Counter(judge_cell(grade_cells[f"{exercise}_tests"], ns, solutions.get(exercise, ""), seed)
                          for seed in seeds)
            out[f"{name} / {exercise}"] = {"want": want, "got": dict(got)}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=40)
    parser.add_argument("--lesson", action="append", help="a lesson stem; every graded lesson if none")
    parser.add_argument("--out", type=Path)
    parser.add_argument("--others", action="store_true",
                        help="also judge every later grade cell a bug should leave passing (slower)")
    args = parser.parse_args()
    from planted import bugs
    results, wrong = {}, 0
    for lesson in lessons():
        if args.lesson and lesson.stem not in args.lesson:
            continue
        start = time.perf_counter()
        planted = bugs(lesson.number)
        results[lesson.stem] = sweep(lesson.stem, lesson.assignment, planted, seen_hints(lesson.stem, planted),
                                     args.seeds, args.others)
        for key, r in results[lesson.stem].items():
            misses = sum(n for hint, n in r["got"].items() if hint != r["want"])
            wrong += misses
            if misses:
                print(f"  {lesson.stem} {key}: want {r['want']}, got {r['got']}")
        print(f"{lesson.stem}: {len(results[lesson.stem])} cells x {args.seeds} seeds "
              f"in {time.perf_counter() - start:.0f} s")
    print(f"hints named wrong: {wrong}; not judged, as the sweep cannot see them: {SWEEP_CANNOT_SEE}")
    if args.out:
        args.out.write_text(json.dumps(results, indent=1, ensure_ascii=False))


if __name__ == "__main__":
    main()
