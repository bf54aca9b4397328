"""Serial nbgrader against `make autograde` (attn_grader.grade) on the same class of generated submissions;
then lessons 5 and 7 graded with their `:grading: skip` cells skipped and run.

    python tools/bench_grading.py [--students 40] [--out bench-grading.json] [--part serial|demo|all]

Both runs grade identical copies of one class: each student submits one
assignment (lessons 1 to 4 in turn, ja and ko alternating), some right, some with
a classic bug, some untouched. The baseline is plain `nbgrader autograde` per
assignment (its kernels are plain, unsandboxed ones; the hidden tests are still decided
outside them by the course's preprocessors); ours is `python -m attn_grader.grade`, which
forks sandboxed kernels, grades learners in parallel, and also writes every learner's feedback and
exports grades.csv. Both start after the assignments are released into the gradebook.
Two ratios: serial autograde against our autograde phase (fork server start included),
and against the whole of `make autograde` (feedback, export, flags and the class report included);
and the class report's own time within that run.
The two gradebooks must agree cell by cell, or the ratio means nothing.

Lessons 5 and 7 (--part demo): a class of --students learners of each (tools/classroom.py: ja and ko,
right, with a classic bug, untouched), graded by `make autograde` as it is (the marked demonstration
cells skipped) and with --run-demo-cells; both gradebooks must agree cell by cell here too.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from attn_grader.release import generate_release
import classroom
from classroom import course_skeleton, submission, submit
from nbgrader.api import Gradebook

ROOT = Path(__file__).resolve().parent.parent
LESSONS = [("01-attention", "01_attention"), ("02-multihead", "02_multihead"),
           ("03-masks", "03_masks"), ("04-gpt2", "04_gpt2")]
# A bug per lesson, so not every submission takes the same path through the tests.
BUGS = {
    "01_attention": ("ex1_attention_scores", " / math.sqrt(d_k)", ""),
    "02_multihead": ("ex3_mha_module", "return self.W_o(y), weights", "return y, weights"),
    "03_masks": ("ex1_causal_mask", ".tril()", ".triu()"),
    "04_gpt2": ("ex1_split_qkv", "for z in (q, k, v)", "for z in (k, q, v)"),
}


def make_class(course: Path, students: int) -> None:
    course_skeleton(course)
    for i in range(students):
        assignment, stem = LESSONS[i % 4]
        lang = "ja" if (i // 4) % 2 == 0 else "ko"
        kind = i % 5
        nb = (submission(assignment, stem, lang, untouched=True) if kind == 4
              else submission(assignment, stem, lang, BUGS[stem]) if kind == 3
              else submission(assignment, stem, lang))
        submit(course, f"student{i:02d}", f"{assignment}-{lang}", stem, nb)


def scores(course: Path) -> dict:
    out = {}
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        for assignment in gb.assignments:
            for sub in assignment.submissions:
                for nb in sub.notebooks:
                    out[f"{sub.student_id}/{assignment.name}"] = {g.name: g.score for g in nb.grades}
    return out


def run(course: Path, *args: str) -> float:
    # The release into the gradebook is the same for both runs and not part of grading.
    for assignment in sorted({p.name for p in (course / "submitted").glob("*/*")}):
        generate_release(course, assignment, assignment.rsplit("-", 1)[1])
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "attn_grader.grade", "--course", str(course), *args], check=True)
    return time.perf_counter() - start


def bench_demo_cells(lesson: str, students: int) -> dict:
    """One lesson's class graded twice: the marked cells skipped (as `make autograde` does) and run."""
    with tempfile.TemporaryDirectory() as tmp:
        times = {}
        for name, flags in (("skipped", ()), ("run", ("--run-demo-cells",))):
            course = Path(tmp) / name
            course_skeleton(course)
            classroom.make_class(course, lesson, students)
            times[name] = round(run(course, *flags), 1)
            times[f"{name}_autograde_phase_s"] = json.loads((course / "grading-times.json").read_text())["autograde_s"]
        same = scores(Path(tmp) / "skipped") == scores(Path(tmp) / "run")
    return {"lesson": lesson, "students": students, "make_autograde_skipped_s": times["skipped"],
            "make_autograde_run_demo_cells_s": times["run"], "autograde_phase_skipped_s": times["skipped_autograde_phase_s"],
            "autograde_phase_run_s": times["run_autograde_phase_s"], "same_grades": same,
            "load_average": os.getloadavg()}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--students", type=int, default=40)
    parser.add_argument("--out", type=Path, default=ROOT / "bench-grading.json")
    parser.add_argument("--part", choices=("serial", "demo", "all"), default="all")
    args = parser.parse_args()
    results = {}
    if args.part in ("demo", "all"):
        results["demo_cells"] = [bench_demo_cells(lesson, args.students) for lesson in ("05-heads", "07-positions")]
        print(json.dumps(results["demo_cells"], indent=1))
    if args.part == "demo":
        args.out.write_text(json.dumps(results, indent=1) + "\n")
        if not all(r["same_grades"] for r in results["demo_cells"]):
            sys.exit("skipping the demonstration cells changed some grade")
        return
    with tempfile.TemporaryDirectory() as tmp:
        serial, parallel = Path(tmp) / "serial", Path(tmp) / "parallel"
        make_class(serial, args.students)
        make_class(parallel, args.students)
        t_serial = run(serial, "--serial")
        t_parallel = run(parallel)
        phases = json.loads((parallel / "grading-times.json").read_text())
        a, b = scores(serial), scores(parallel)
        same = a == b
        for key in sorted(set(a) | set(b)):
            if a.get(key) != b.get(key):
                print(f"differ: {key}: serial {a.get(key)} / parallel {b.get(key)}", file=sys.stderr)
        result = {"students": args.students, "cores": os.cpu_count(),
                  "serial_nbgrader_autograde_s": round(t_serial, 1),
                  "make_autograde_autograde_phase_s": phases["autograde_s"],
                  "ratio_autograde": round(t_serial / phases["autograde_s"], 2),
                  "make_autograde_whole_s": round(t_parallel, 1),
                  "ratio_whole_with_feedback_and_export": round(t_serial / t_parallel, 2),
                  # The class report, timed within the same run: its share of the whole must stay under 10%.
                  "make_autograde_report_s": phases.get("report_s"),
                  "report_share_of_whole": round(phases.get("report_s", 0) / t_parallel, 3),
                  "same_grades": same, "load_average": os.getloadavg()}
    print(json.dumps(result, indent=1))
    args.out.write_text(json.dumps({**result, **results}, indent=1) + "\n")
    if not same or not all(r["same_grades"] for r in results.get("demo_cells", [])):
        sys.exit("the two runs disagree on some grade")


if __name__ == "__main__":
    main()
