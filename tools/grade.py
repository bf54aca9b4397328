"""Grade every submission in autograder/submitted/<student>/<assignment>/, a whole class at once.

    python tools/grade.py [--course DIR] [--jobs N] [--serial]

For each assignment: release it into the gradebook if needed; then autograde every
learner, N at a time (default: one per core), then write every learner's feedback
the same way, each with a progress bar; then export grades.csv, write flags.csv
(tools/scan.py) and grading-times.json.

nbgrader grades one submission at a time, and most of that time is a new kernel
importing torch. Here every kernel is forked from one process that has already
imported it (autograder/forkserver.py), and learners are graded in parallel
worker processes, each calling nbgrader's own Autograde and GenerateFeedback for
one learner. The gradebook is SQLite; writers wait for each other (timeout in
the URL) instead of failing. `--serial` runs plain `nbgrader autograde` instead,
as the benchmark's baseline.

Feedback: HTML in the assignment's language, with the hidden tests' source
replaced by a note (HideHiddenTests in nbgrader_config.py).
"""
from __future__ import annotations

import argparse
import csv
import json
import multiprocessing
import os
import re
import shutil
import stat
import subprocess
import sys
import tempfile
import time
import traceback
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from build import ROOT, generate_release, nbgrader_env  # noqa: E402
from scan import scan_notebook  # noqa: E402

FORKSERVER = ROOT / "autograder" / "forkserver.py"


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
    """autograder/forkserver.py, running, with a kernelspec that launches kernels through it."""

    def __init__(self, course: Path):
        self.dir = tempfile.mkdtemp(prefix="attn-grade-")
        sock = os.path.join(self.dir, "fork.sock")
        # Kernels (other uids) may pass through to ipc/ but not list or touch the rest.
        os.chmod(self.dir, 0o711)
        ipc = os.path.join(self.dir, "ipc")
        os.mkdir(ipc)
        os.chmod(ipc, 0o1777)
        self.proc = subprocess.Popen([sys.executable, str(FORKSERVER), "serve", sock], cwd=course,
                                     stdout=subprocess.PIPE, env=nbgrader_env(), text=True)
        ready = json.loads(self.proc.stdout.readline() or "{}")
        if not ready.get("ready"):
            raise RuntimeError("the fork server did not start")
        self.isolated = ready["isolated"]
        sys.path.insert(0, str(FORKSERVER.parent))
        import forkserver
        forkserver.install_kernelspec(os.path.join(self.dir, "data"), sock)
        os.environ["JUPYTER_PATH"] = os.pathsep.join(filter(None, [os.path.join(self.dir, "data"),
                                                                   os.environ.get("JUPYTER_PATH")]))
        os.environ["ATTN_KERNEL_NAME"] = forkserver.KERNEL_NAME
        if self.isolated:  # no network in the kernel: reach it over Unix sockets
            os.environ["ATTN_KERNEL_IPC"] = os.path.join(ipc, "k")

    def close(self) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=30)
        shutil.rmtree(self.dir, ignore_errors=True)


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
            Autograde(coursedir=coursedir, config=config).start()
        else:
            GenerateFeedback(coursedir=coursedir, config=config).start()
            localize_feedback(_COURSE / "feedback" / student / assignment, assignment)
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
    # jupyter_client numbers ipc sockets from 1 wherever no file exists yet: two workers
    # sharing one prefix would race for the same names. One prefix per worker.
    if os.environ.get("ATTN_KERNEL_IPC"):
        os.environ["ATTN_KERNEL_IPC"] += f"-w{os.getpid()}"
    import logging
    logging.getLogger("traitlets").setLevel(logging.ERROR)


# --------------------------------------------------------------------------- feedback in the learner's language
# nbgrader's feedback template is English; these are its labels (nbgrader 0.9, formgrader/templates/feedback).
_FEEDBACK_LABELS = [
    ("Score:", "feedback_score", "{}:"),
    ("Test cell", "feedback_test_cell", "{}"), ("Coding free-response", "feedback_free_response", "{}"),
    ("Written response", "feedback_written", "{}"), ("Late submission penalty", "feedback_late", "{}"),
    ("Student's answer", "feedback_answer", "{}"), ("Student's task", "feedback_task", "{}"),
    ("Grade cell:", "feedback_grade_cell", "{}:"), ("Task:", "feedback_task", "{}:"),
    ("Comments:", "feedback_comment", "{}:"), ("Comment", "feedback_comment", "{}"),
    ("(Top)", "feedback_top", "({})"),
]


def localize_feedback(folder: Path, assignment: str) -> None:
    sys.path.insert(0, str(ROOT / "autograder"))
    from course_preprocessors import assignment_language

    from attn_course.messages import MESSAGES
    lang = assignment_language(assignment)
    for page in folder.glob("*.html"):
        html = page.read_text(encoding="utf-8")
        # Only the template's own markup is touched: labels sit between tags, not in notebook text.
        for english, key, form in sorted(_FEEDBACK_LABELS, key=lambda x: -len(x[0])):
            label = form.format(MESSAGES[key][lang])
            html = re.sub(r"(?<=[>\s(])" + re.escape(english) + r"(?=[\s<])", label, html)
        html = html.replace("<html>", f'<html lang="{lang}">', 1)
        page.write_text(html, encoding="utf-8")


# --------------------------------------------------------------------------- what the learners' kernels may not read
# Kernels run as uids of their own (when the grader is root): these close to them.
PRIVATE = ("reference", "source", "release", "submitted", "autograded", "feedback", "gradebook.db")


def close_folders(course: Path) -> dict[Path, int]:
    modes = {}
    for name in PRIVATE:
        path = course / name
        if path.exists():
            modes[path] = stat.S_IMODE(path.stat().st_mode)
            path.chmod(0o700 if path.is_dir() else 0o600)
    return modes


def export_grades(course: Path) -> None:
    """grades.csv, as `nbgrader export` writes it, without starting another Python."""
    from nbgrader.api import Gradebook
    from nbgrader.plugins import CsvExportPlugin
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        CsvExportPlugin(to=str(course / "grades.csv")).export(gb)


def write_flags(course: Path, work: list[tuple[str, str]]) -> int:
    """Scan every submission; write flags.csv; return how many submissions were flagged."""
    rows = []
    for assignment, student in work:
        for notebook in sorted((course / "submitted" / student / assignment).glob("*.ipynb")):
            source = course / "source" / assignment / notebook.name
            if source.exists():
                rows += [(student, assignment, notebook.name, *flag) for flag in scan_notebook(notebook, source)]
    with open(course / "flags.csv", "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(["student_id", "assignment", "notebook", "cell", "rule", "line", "code"])
        writer.writerows(rows)
    return len({(r[0], r[1]) for r in rows})


# --------------------------------------------------------------------------- main
def grade_parallel(course: Path, jobs: int) -> tuple[list[dict], dict]:
    """Autograde every learner, then write every learner's feedback; return results and timings."""
    from nbgrader.converters import Autograde, GenerateFeedback  # noqa: F401 - imported once, shared by the workers
    from tqdm import tqdm
    work = submissions(course)
    timings = {}
    start = time.perf_counter()
    os.environ["ATTN_COURSE_REFERENCE"] = str(course / "reference")
    server = ForkServer(course)
    modes = close_folders(course) if server.isolated else {}
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
        for path, mode in modes.items():
            path.chmod(mode)
    timings["with_feedback_s"] = round(time.perf_counter() - start, 1)
    return graded + [r for r in feedback if not r["ok"]], timings


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--course", type=Path, default=ROOT / "autograder")
    parser.add_argument("--jobs", type=int, default=max(2, os.cpu_count() or 2))
    parser.add_argument("--serial", action="store_true", help="plain nbgrader autograde, one learner at a time")
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
        return
    start = time.perf_counter()
    results, timings = grade_parallel(course, args.jobs)
    failed = [r for r in results if not r["ok"]]
    for r in failed:
        print(f"could not grade {r['job'][1]}/{r['job'][0]}:\n{r['error']}", file=sys.stderr)
    export_grades(course)
    flagged = write_flags(course, work)
    timings["total_s"] = round(time.perf_counter() - start, 1)
    (course / "grading-times.json").write_text(json.dumps(timings) + "\n")
    print(f"graded {len(work) - len({tuple(r['job']) for r in failed})}/{len(work)}; grades: {course / 'grades.csv'}; "
          f"feedback: {course / 'feedback'}; flagged for a look: {flagged} ({course / 'flags.csv'}); times: {timings}")


if __name__ == "__main__":
    main()
