"""Grade every submission in autograder/submitted/<student>/<assignment>/, a whole class at once.

    python -m attn_grader.grade [--course DIR] [--jobs N] [--serial] [--names]    (what `make autograde` runs)

For each assignment: release it into the gradebook if needed; then autograde every
learner, N at a time (default: one per core), then write every learner's feedback
the same way, each with a progress bar; then export grades.csv, write flags.csv
(tools/scan.py), the class report (report.py: report/index.html; learners' ids only
with --names) and grading-times.json.

nbgrader grades one submission at a time, and most of that time is a new kernel
importing torch. Here every kernel is forked from one process that has already
imported it (forkserver.py), and learners are graded in parallel
worker processes, each calling nbgrader's own Autograde and GenerateFeedback for
one learner. The gradebook is SQLite; writers wait for each other (timeout in
the URL) instead of failing. `--serial` runs plain `nbgrader autograde` instead,
as the benchmark's baseline.

Hidden tests are decided in these worker processes, by nbgrader's own pipeline
(DecideHiddenTests), after each learner's kernel has stopped. Each kernel is forked
from the warm process into a sandbox of its own (sandbox.py).

Feedback: HTML in the assignment's language, with the hidden tests' source
replaced by a note (HideHiddenTests in nbgrader_config.py).
"""
from __future__ import annotations

import argparse
import csv
import json
import multiprocessing
import os
import shutil
import subprocess
import sys
import tempfile
import time
import traceback
from pathlib import Path

from . import forkserver
from .feedback import localize_feedback
from .release import generate_release, nbgrader_env
from .report import report
from .scan import scan_notebook


def nbgrader(course: Path, *args: str) -> None:
    subprocess.run([sys.executable, "-m", "nbgrader", *args, "--log-level=WARN"], cwd=course, check=True,
                   env=nbgrader_env())


def submissions(course: Path) -> list[tuple[str, str]]:
    """(assignment, student) for every submitted folder."""
    return sorted((p.name, p.parent.name) for p in (course / "submitted").glob("*/*") if p.is_dir())


def needs_release(course: Path, assignment: str) -> bool:
    """Release (and so enter in the gradebook) an assignment that is new or whose source changed."""
    release = course / "release" / assignment
    sources = list((course / "source" / assignment).glob("*.ipynb"))
    if not (course / "gradebook.db").exists() or not release.exists():
        return True
    newest = max(p.stat().st_mtime for p in sources)
    return any(not (release / p.name).exists() or (release / p.name).stat().st_mtime < newest for p in sources)


# --------------------------------------------------------------------------- the fork server
class ForkServer:
    """forkserver.py, running, with a kernelspec that launches kernels through it."""

    def __init__(self, course: Path):
        self.dir = tempfile.mkdtemp(prefix="attn-grade-")
        sock = os.path.join(self.dir, "fork.sock")
        # Kernels (other uids when the grader is root) may pass through to ipc/ but not list the rest.
        os.chmod(self.dir, 0o711)
        self.ipc = os.path.join(self.dir, "ipc")
        os.mkdir(self.ipc)
        os.chmod(self.ipc, 0o711)
        self.proc = subprocess.Popen([sys.executable, "-m", "attn_grader.forkserver", "serve", sock], cwd=course,
                                     stdout=subprocess.PIPE, env=forkserver.kernel_env(nbgrader_env()), text=True)
        # While the server imports torch on one core, this process does the same on the other: the
        # grading workers are forked from it, and each would otherwise import the references, torch
        # and transformers again (and again whenever a worker is replaced).
        _warm_up(course)
        ready = json.loads(self.proc.stdout.readline() or "{}")
        if not ready.get("ready"):
            raise RuntimeError("the fork server did not start")
        self.isolated, self.why, self.root = ready["isolated"], ready.get("why", ""), ready.get("root", False)
        forkserver.install_kernelspec(os.path.join(self.dir, "data"), sock)
        os.environ["JUPYTER_PATH"] = os.pathsep.join(filter(None, [os.path.join(self.dir, "data"),
                                                                   os.environ.get("JUPYTER_PATH")]))
        os.environ["ATTN_KERNEL_NAME"] = forkserver.KERNEL_NAME
        if self.isolated:  # no network in the kernel: reach it over Unix sockets
            os.environ["ATTN_KERNEL_IPC_DIR"] = self.ipc

    def close(self) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=30)
        shutil.rmtree(self.dir, ignore_errors=True)


def _warm_up(course: Path) -> None:
    """Load every hidden reference of the course (and so torch, transformers and the probes) here."""
    from .references import load
    config = _load_config(course)
    folder = config.DecideHiddenTests.get("reference_dir")
    if not isinstance(folder, str) or not os.path.isdir(folder):
        return
    for path in sorted(Path(folder).glob("lesson*.py")):
        try:
            load(Path(folder), path.stem)
        except Exception:  # noqa: BLE001 - a broken reference fails its own cells later, with its error
            pass


# --------------------------------------------------------------------------- one learner, in a worker
_COURSE: Path | None = None


def _load_config(course: Path):
    from traitlets.config.loader import PyFileConfigLoader
    return PyFileConfigLoader("nbgrader_config.py", path=str(course)).load_config()


def _run_for_one(job: tuple[str, str], step: str) -> dict:
    """Run nbgrader's Autograde, or GenerateFeedback, for one learner's assignment. Never raises."""
    import io
    import logging

    from nbgrader.converters import Autograde, GenerateFeedback
    from nbgrader.coursedir import CourseDirectory
    assignment, student = job
    os.chdir(_COURSE)
    config = _load_config(_COURSE)
    # Several workers write one SQLite gradebook: wait for the lock rather than fail.
    config.CourseDirectory.db_url = f"sqlite:///{_COURSE / 'gradebook.db'}?timeout=120"
    config.CourseDirectory.assignment_id = assignment
    config.CourseDirectory.student_id = student
    config.Autograde.force = config.GenerateFeedback.force = True
    errors = io.StringIO()
    handler = logging.StreamHandler(errors)
    handler.setLevel(logging.ERROR)
    logging.getLogger("traitlets").addHandler(handler)
    try:
        coursedir = CourseDirectory(config=config)
        if step == "autograde":
            # A learner graded again starts without a verdict: if this grading fails, the class
            # report counts them as not graded rather than keeping an older verdict.
            verdicts = config.RecordVerdicts.get("verdict_dir")
            if isinstance(verdicts, str) and verdicts:
                (Path(verdicts) / assignment / f"{student}.json").unlink(missing_ok=True)
            Autograde(coursedir=coursedir, config=config).start()
        else:
            GenerateFeedback(coursedir=coursedir, config=config).start()
            localize_feedback(_COURSE / "feedback" / student / assignment, assignment,
                              _COURSE / "autograded" / student / assignment)
        return {"job": job, "ok": True}
    except BaseException:  # noqa: BLE001 - one learner's failure must not stop the class
        return {"job": job, "ok": False, "error": errors.getvalue()[-4000:] or traceback.format_exc(limit=3)}
    finally:
        logging.getLogger("traitlets").removeHandler(handler)


def autograde_one(job: tuple[str, str]) -> dict:
    return _run_for_one(job, "autograde")


def feedback_one(job: tuple[str, str]) -> dict:
    return _run_for_one(job, "feedback")


def _worker_init(course: Path) -> None:
    global _COURSE
    _COURSE = course
    # One folder of sockets per worker: jupyter_client numbers ipc sockets from 1 wherever no
    # file exists yet, and a kernel's sandbox shows it only its own worker's folder.
    if os.environ.get("ATTN_KERNEL_IPC_DIR"):
        folder = os.path.join(os.environ["ATTN_KERNEL_IPC_DIR"], f"w{os.getpid()}")
        os.mkdir(folder)
        os.chmod(folder, 0o1777)  # the kernel's own uid creates its sockets here
        os.environ["ATTN_KERNEL_IPC"] = os.path.join(folder, "k")
    import logging
    logging.getLogger("traitlets").setLevel(logging.ERROR)


def export_grades(course: Path) -> None:
    """grades.csv, as `nbgrader export` writes it, without starting another Python."""
    from nbgrader.api import Gradebook
    from nbgrader.plugins import CsvExportPlugin
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        CsvExportPlugin(to=str(course / "grades.csv")).export(gb)


def blank_failed(course: Path, failed: set[tuple[str, str]]) -> None:
    """nbgrader keeps a submission whose grading failed, with every cell at 0: in grades.csv that
    reads as a learner who scored 0. Blank its scores, so no one mistakes it for a grade."""
    path = course / "grades.csv"
    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    if not rows:
        return
    for row in rows:
        if (row.get("assignment"), row.get("student_id")) in failed:
            row["raw_score"] = row["score"] = ""
    with open(path, "w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)


def write_flags(course: Path, work: list[tuple[str, str]], isolation: str = "",
                failed: dict | None = None) -> int:
    """Scan every submission; write flags.csv; return how many submissions were flagged.

    A class graded without sandboxes gets one row that says so, first; a submission that could
    not be graded gets a row of its own with the end of the error.
    """
    rows = [("*", "*", "*", "-", "no_isolation", 0, isolation)] if isolation else []
    for (assignment, student), error in sorted((failed or {}).items()):
        rows.append((student, assignment, "*", "-", "not_graded", 0, " ".join(error.split())[-300:]))
    for assignment, student in work:
        for notebook in sorted((course / "submitted" / student / assignment).glob("*.ipynb")):
            source = course / "source" / assignment / notebook.name
            if source.exists():
                rows += [(student, assignment, notebook.name, *flag) for flag in scan_notebook(notebook, source)]
    with open(course / "flags.csv", "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(["student_id", "assignment", "notebook", "cell", "rule", "line", "code"])
        writer.writerows(rows)
    return len({(r[0], r[1]) for r in rows if r[0] != "*"})


def write_report(course: Path, names: bool, timings: dict) -> None:
    """The class report (report.py). Grades stand whatever happens here, so a failure is only reported."""
    try:
        timings.update(report(course, names=names))
        print(f"class report: {course / 'report' / 'index.html'}", flush=True)
    except Exception:  # noqa: BLE001 - the grades are written already
        print(f"could not write the class report:\n{traceback.format_exc(limit=5)}", file=sys.stderr)


# --------------------------------------------------------------------------- main
def grade_parallel(course: Path, jobs: int) -> tuple[list[dict], dict, str]:
    """Autograde every learner, then write every learner's feedback; return results, timings and
    what the kernels could see (an empty string when each had a sandbox of its own)."""
    from nbgrader.converters import Autograde, GenerateFeedback  # noqa: F401 - imported once, shared by the workers
    from tqdm import tqdm
    work = submissions(course)
    timings = {}
    start = time.perf_counter()
    server = ForkServer(course)
    if server.isolated:
        isolation = ""
        how = "root: a uid of its own" if server.root else "user namespaces"
        print(f"kernels: a sandbox each ({how}; its own folder only; no network)", flush=True)
    else:
        isolation = f"kernels NOT isolated: {server.why}; a learner's code can read other learners' work"
        print(f"WARNING: {isolation}", file=sys.stderr, flush=True)
    try:
        context = multiprocessing.get_context("fork")
        with context.Pool(jobs, initializer=_worker_init, initargs=(course,), maxtasksperchild=8) as pool:
            graded = list(tqdm(pool.imap_unordered(autograde_one, work), total=len(work), unit="nb", ascii=True,
                               desc="autograde"))
            timings["autograde_s"] = round(time.perf_counter() - start, 1)
            done = [r["job"] for r in graded if r["ok"]]
            feedback = list(tqdm(pool.imap_unordered(feedback_one, done), total=len(done), unit="nb", ascii=True,
                                 desc="feedback"))
    finally:
        server.close()
    timings["with_feedback_s"] = round(time.perf_counter() - start, 1)
    return graded + [r for r in feedback if not r["ok"]], timings, isolation


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--course", type=Path, default=Path.cwd() / "autograder")
    parser.add_argument("--jobs", type=int, default=max(2, os.cpu_count() or 2))
    parser.add_argument("--serial", action="store_true", help="plain nbgrader autograde, one learner at a time")
    parser.add_argument("--names", action="store_true", help="the class report lists learners' ids (default: counts)")
    args = parser.parse_args()
    course = args.course.resolve()
    work = submissions(course)
    if not work:
        sys.exit(f"no submissions under {course / 'submitted'}/<student>/<assignment>/")
    for assignment in sorted({a for a, _ in work}):
        if needs_release(course, assignment):
            generate_release(course, assignment, assignment.rsplit("-", 1)[1])
    if args.serial:
        for assignment in sorted({a for a, _ in work}):
            nbgrader(course, "autograde", assignment, "--force")
        write_report(course, args.names, {})
        return
    start = time.perf_counter()
    results, timings, isolation = grade_parallel(course, args.jobs)
    failed = {tuple(r["job"]): r["error"] for r in results if not r["ok"]}
    for (assignment, student), error in failed.items():
        print(f"could not grade {student}/{assignment}:\n{error}", file=sys.stderr)
    export_grades(course)
    blank_failed(course, set(failed))
    flagged = write_flags(course, work, isolation, failed)
    write_report(course, args.names, timings)
    timings["total_s"] = round(time.perf_counter() - start, 1)
    (course / "grading-times.json").write_text(json.dumps(timings) + "\n")
    print(f"graded {len(work) - len(failed)}/{len(work)}; grades: {course / 'grades.csv'}; "
          f"feedback: {course / 'feedback'}; flagged for a look: {flagged} ({course / 'flags.csv'}); times: {timings}")
    if failed:
        # The class's other grades stand (a learner whose code kills its kernel is one of these), so
        # this is said loudly rather than failing the whole run.
        print(f"NOT GRADED: {len(failed)} submission(s); their scores in grades.csv are left blank and "
              f"flags.csv says why (rule not_graded): {', '.join(f'{s}/{a}' for a, s in sorted(failed))}",
              file=sys.stderr)


if __name__ == "__main__":
    main()
