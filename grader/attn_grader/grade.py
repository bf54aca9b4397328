"""Grade every submission in autograder/submitted/<student>/<assignment>/, a whole class at once.

    python -m attn_grader.grade [--course DIR] [--jobs N] [--serial] [--names]    (what `make autograde` runs)
        [--student ID …] [--assignment ID …]     grade only these (a late learner): `make autograde STUDENT=… ASSIGNMENT=…`
        [--run-demo-cells]                       also run the cells marked `:grading: skip`

For each assignment: release it into the gradebook if needed; then autograde every
learner (or only those asked for), N at a time (default: one per core), then write their
feedback the same way, each with a progress bar; then, for the whole class whoever was
graded this time, export grades.csv and grades-exercises.csv (exports/), write flags.csv
(flags.py, scan.py), append this run's gradings to history.csv (history.py), write the class
report (report.py: report/index.html; learners' ids only with --names, in report-names/) and
grading-times.json.

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
import gc
import json
import multiprocessing
import os
import shutil
import subprocess
import sys
import tempfile
import time
import traceback
import warnings
from pathlib import Path

from . import forkserver
from .feedback import localize_feedback
from .flags import forget_not_graded, not_graded, remember_not_graded, write_flags
from .history import record
from .release import generate_releases, nbgrader_env
from .report import report, report_dir


def quiet() -> None:
    """nbgrader's gradebook code makes SQLAlchemy warn (SAWarning: "Object of type <SubmittedNotebook> not in
    session …") on every submission it adds while several processes share the gradebook: nothing about the
    class, and it broke into the progress bar. Set before the workers fork, so they inherit it."""
    from sqlalchemy.exc import SAWarning
    warnings.filterwarnings("ignore", category=SAWarning)


def nbgrader(course: Path, *args: str) -> None:
    subprocess.run([sys.executable, "-m", "nbgrader", *args, "--log-level=WARN"], cwd=course, check=True,
                   env=nbgrader_env())


def submissions(course: Path, students: list[str] | None = None,
                assignments: list[str] | None = None) -> list[tuple[str, str]]:
    """(assignment, student) for every submitted folder, or only those of the students and assignments asked
    for (an assignment may be named with its language, 03-masks-ja, or without, 03-masks: both)."""
    found = sorted((p.name, p.parent.name) for p in (course / "submitted").glob("*/*") if p.is_dir())
    return [(a, s) for a, s in found if (not students or s in students)
            and (not assignments or a in assignments or a.rpartition("-")[0] in assignments)]


def lms_names(course: Path, work: list[tuple[str, str]]) -> dict[tuple[str, str], str]:
    """Give each submitted notebook saved under a download's name (`02_multihead (1).ipynb`) the lesson's name
    (lms_names.py), saying so; return {(assignment, student): why} for those that cannot be graded, each
    without a verdict or a feedback page from an earlier grading: no export keeps an older score for them, and
    nbgrader's release_feedback hands out no page of a notebook that may not be the one graded."""
    from .lms_names import resolve
    refused = {}
    for assignment, student in work:
        renamed, why = resolve(course, assignment, student)
        for old, new in renamed:
            print(f"renamed: {student}/{assignment}: {old!r} is graded as {new}", flush=True)
        if why:
            refused[assignment, student] = why
            (course / "verdicts" / assignment / f"{student}.json").unlink(missing_ok=True)
            shutil.rmtree(course / "feedback" / student / assignment, ignore_errors=True)
    return refused


def needs_release(course: Path, assignment: str) -> bool:
    """Release (and so enter in the gradebook) an assignment that is new or whose source changed."""
    release = course / "release" / assignment
    sources = list((course / "source" / assignment).glob("*.ipynb"))
    if not (course / "gradebook.db").exists() or not release.exists():
        return True
    newest = max(p.stat().st_mtime for p in sources)
    return any(not (release / p.name).exists() or (release / p.name).stat().st_mtime < newest for p in sources)


def enter_students(course: Path, work: list[tuple[str, str]]) -> None:
    """Put every learner in the gradebook before the workers start. Each worker's nbgrader adds its learner if
    missing, so two workers grading one new learner's two assignments could both add them: sqlite refused the
    second (UNIQUE constraint failed: student.id) and that notebook went ungraded (seen in a test run)."""
    from nbgrader.api import Gradebook, MissingEntry
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        for student in sorted({s for _, s in work}):
            try:
                gb.find_student(student)
            except MissingEntry:
                gb.add_student(student)


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
    """Load every hidden reference of the course (and so torch and the probes) here, and what the judges import
    on first use: a worker forked without them imported them again, 5 s each time one was replaced (a fifth of
    the workers' time in a class of the 16 solutions)."""
    from .references import load
    try:
        forkserver.warm_imports()
    except ImportError:  # a course without transformers: its judges say so themselves
        pass
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
            # report and the exports count them as not graded rather than keeping an older verdict.
            verdicts = config.RecordVerdicts.get("verdict_dir")
            if isinstance(verdicts, str) and verdicts:
                (Path(verdicts) / assignment / f"{student}.json").unlink(missing_ok=True)
            forget_not_graded(_COURSE, assignment, student)
            Autograde(coursedir=coursedir, config=config).start()
        else:
            GenerateFeedback(coursedir=coursedir, config=config).start()
            localize_feedback(_COURSE / "feedback" / student / assignment, assignment,
                              _COURSE / "autograded" / student / assignment, _late(config, assignment, student))
        return {"job": job, "ok": True}
    except BaseException:  # noqa: BLE001 - one learner's failure must not stop the class
        return {"job": job, "ok": False, "error": errors.getvalue()[-4000:] or traceback.format_exc(limit=3)}
    finally:
        logging.getLogger("traitlets").removeHandler(handler)


def _late(config, assignment: str, student: str) -> tuple | None:
    """(seconds late, the late-submission plugin) for a late submission, for its feedback's penalty line."""
    from nbgrader.api import Gradebook

    from .late_penalty import plugin_from
    with Gradebook(config.CourseDirectory.db_url) as gb:
        seconds = gb.find_submission(assignment, student).total_seconds_late
    return (seconds, plugin_from(config)) if seconds > 0 else None


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
    """grades.csv and grades-exercises.csv for the whole class, as `nbgrader export` writes them with the
    course's exporter (exports/course_grades.py), without starting another Python."""
    from nbgrader.api import Gradebook

    from .exports import CourseGradesExport
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        plugin = CourseGradesExport(to=str(course / "grades.csv"), course=str(course))
        plugin.export(gb)


def zone_missing(stamp: str) -> bool:
    """Whether a timestamp.txt's time says no time zone ("2026-12-08 23:30:00"): nbgrader reads it as UTC, which
    for a learner in Tokyo or Seoul is nine hours off. The exchange's own ("… UTC") and "… Asia/Tokyo" say one."""
    import dateutil.parser
    parts = stamp.split()
    if len(parts) == 3:
        return False
    try:
        return dateutil.parser.parse(stamp).tzinfo is None
    except (ValueError, OverflowError):
        return False   # nbgrader refuses it itself


def lateness(course: Path, work: list[tuple[str, str]]) -> tuple[list[str], list, list]:
    """What to tell the instructor about due dates: a line per late submission graded now (work, with its
    penalty); every submission of the class, graded now or before, whose assignment has a due date but that has
    no timestamp.txt (copied by hand), and every one whose timestamp.txt names no time zone (read as UTC):
    flags.csv is the whole class's, and a due date may have been set after a submission was graded."""
    from nbgrader.api import Gradebook, MissingEntry
    late, untimed, zoneless = [], [], []
    graded_now = set(work)
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        for assignment, student in submissions(course):
            try:
                submission = gb.find_submission(assignment, student)
            except MissingEntry:
                continue
            if submission.duedate is None:
                continue
            stamp = course / "submitted" / student / assignment / "timestamp.txt"
            if submission.timestamp is None:
                untimed.append((assignment, student))
                continue
            if stamp.exists() and zone_missing(stamp.read_text().strip()):
                zoneless.append((assignment, student))
            if submission.total_seconds_late > 0 and (assignment, student) in graded_now:
                late.append(f"{student}/{assignment}: {submission.total_seconds_late / 86400:.2f} days late, "
                            f"penalty {submission.late_submission_penalty or 0:g} of {submission.score:g} points")
    return late, untimed, zoneless


def write_report(course: Path, names: bool, timings: dict) -> None:
    """The class report (report.py), and with names a second one with the learners' ids (report-names/): the first
    is the one meant for the class, and must not be the one that names them. Grades stand whatever happens
    here, so a failure is only reported."""
    try:
        timings.update(report(course))
        print(f"class report: {report_dir(course, False) / 'index.html'}", flush=True)
        if names:
            report(course, names=True)
            print(f"class report with ids: {report_dir(course, True) / 'index.html'}", flush=True)
    except Exception:  # noqa: BLE001 - the grades are written already
        print(f"could not write the class report:\n{traceback.format_exc(limit=5)}", file=sys.stderr)


# --------------------------------------------------------------------------- main
def grade_parallel(course: Path, jobs: int, work: list[tuple[str, str]]) -> tuple[list[dict], dict, str]:
    """Autograde every learner in work, then write their feedback; return results, timings and
    what the kernels could see (an empty string when each had a sandbox of its own)."""
    from nbgrader.converters import Autograde, GenerateFeedback  # noqa: F401 - imported once, shared by the workers
    from tqdm import tqdm
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
        # The warm-up's objects outlive every worker: frozen, the workers' collections skip them (gc.freeze's
        # documentation, for a process that forks without exec).
        gc.freeze()
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
    parser.add_argument("--names", action="store_true",
                        help="also a class report with learners' ids, in report-names/ (report/ has counts only)")
    parser.add_argument("--student", nargs="+", default=[], help="grade only these learners (ids under submitted/)")
    parser.add_argument("--assignment", nargs="+", default=[],
                        help="grade only these assignments (03-masks-ja, or 03-masks for both languages)")
    parser.add_argument("--run-demo-cells", action="store_true",
                        help="also run the cells marked `:grading: skip` (the same verdicts, slower)")
    args = parser.parse_args()
    quiet()
    if args.run_demo_cells:
        os.environ["ATTN_DEMO_CELLS"] = "run"  # read by nbgrader_config.py, in the workers too
    course = args.course.resolve()
    work = submissions(course, args.student, args.assignment)
    if not work:
        asked = " ".join(args.student + args.assignment)
        sys.exit(f"no submissions under {course / 'submitted'}/<student>/<assignment>/" + (f" for {asked}" if asked else ""))
    refused = lms_names(course, work)
    work = [job for job in work if job not in refused]
    generate_releases(course, [a for a in sorted({a for a, _ in work}) if needs_release(course, a)])
    enter_students(course, work)
    if args.serial:
        for assignment in sorted({a for a, _ in work}):
            if not args.student:
                nbgrader(course, "autograde", assignment, "--force")
            for student in sorted({s for a, s in work if a == assignment}) if args.student else []:
                nbgrader(course, "autograde", assignment, "--force", f"--student={student}")
        record(course, work)
        write_report(course, args.names, {})
        return
    start = time.perf_counter()
    results, timings, isolation = grade_parallel(course, args.jobs, work) if work else ([], {}, "")
    failed = {**refused, **{tuple(r["job"]): r["error"] for r in results if not r["ok"]}}
    for (assignment, student), error in failed.items():
        # A reason of one line (lms_names.py) stays on one line; nbgrader's error keeps its own lines.
        error = error.strip()
        print(f"could not grade {student}/{assignment}:" + ("\n" if "\n" in error else " ") + error, file=sys.stderr)
    remember_not_graded(course, failed)
    # The files below are the whole class's, whoever was graded this time.
    export_grades(course)
    late, untimed, zoneless = lateness(course, work)
    flagged = write_flags(course, submissions(course), isolation, not_graded(course), untimed, zoneless)
    # Before the report, which shows it: this run's gradings join every earlier one (history.py).
    record(course, work + list(refused))
    write_report(course, args.names, timings)
    timings["total_s"] = round(time.perf_counter() - start, 1)
    (course / "grading-times.json").write_text(json.dumps(timings) + "\n")
    asked = len(work) + len(refused)
    print(f"graded {asked - len(failed)}/{asked}; grades: {course / 'grades.csv'}; "
          f"feedback: {course / 'feedback'}; flagged for a look: {flagged} ({course / 'flags.csv'}); times: {timings}")
    for line in late:
        print(f"late: {line}")
    if untimed:
        print(f"no timestamp.txt, so lateness was not judged (flags.csv, rule no_timestamp): "
              f"{', '.join(f'{s}/{a}' for a, s in untimed)}")
    if zoneless:
        print(f"timestamp.txt without a time zone, read as UTC (flags.csv, rule timestamp_no_zone): "
              f"{', '.join(f'{s}/{a}' for a, s in zoneless)}; write the zone, e.g. \"2026-12-09 10:30:00 "
              f"Asia/Tokyo\", and grade them again", file=sys.stderr)
    if failed:
        # The class's other grades stand (a learner whose code kills its kernel is one of these), so
        # this is said loudly rather than failing the whole run.
        print(f"NOT GRADED: {len(failed)} submission(s); their scores in grades.csv are left blank and "
              f"flags.csv says why (rule not_graded): {', '.join(f'{s}/{a}' for a, s in sorted(failed))}",
              file=sys.stderr)


if __name__ == "__main__":
    main()
