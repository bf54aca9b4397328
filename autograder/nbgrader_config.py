# nbgrader course for "Attention, head by head". Run nbgrader from this folder
# (the Makefile does), so this file is found and the course root is here.
# The preprocessors come from the grading package (grader/attn_grader), which the
# course's environment installs and learners never do.
import os

from attn_grader.preprocessors import (
    DecideHiddenTests, ExplainUnattempted, ExplainWidgets, ForgiveWarnings, GuardedExecute, HideHiddenTests, RecordVerdicts,
    SkipDemoCells, StripSkipTags,
)
from attn_grader.exports import CourseGradesExport
from attn_grader.feedback_exporter import FeedbackHTMLExporter
from attn_grader.late_penalty import LatePenalty
from attn_grader.preprocessors.skip_demo_cells import SKIP_TAG
from nbconvert.preprocessors import ClearMetadataPreprocessor, CSSHTMLHeaderPreprocessor
from nbgrader.preprocessors import (
    AssignLatePenalties, CheckCellMetadata, ClearOutput, DeduplicateIds, GetGrades, IgnorePattern,
    LimitOutput, OverwriteCells, OverwriteKernelspec, SaveAutoGrades,
)

ROOT = os.path.dirname(os.path.abspath(__file__))
c = get_config()  # noqa: F821 - provided by traitlets
c.CourseDirectory.root = ROOT
c.CourseDirectory.course_id = "attention-head-by-head"

# What replaces a solution in the release, in the learner's language. tools/build.py
# sets ATTN_COURSE_LANG for each assignment it releases.
_STUBS = {
    "ja": "# ここにコードを書いてください\nraise NotImplementedError()",
    "ko": "# 여기에 코드를 작성하세요\nraise NotImplementedError()",
}
c.ClearSolutions.code_stub = {"python": _STUBS[os.environ.get("ATTN_COURSE_LANG", "ja")]}

# Seconds per cell: a learner's torch import plus the hidden tests stay well inside this.
c.Execute.timeout = int(os.environ.get("ATTN_CELL_TIMEOUT", 180))
# `make autograde` sets this to a kernelspec that forks sandboxed kernels from a warm process.
if os.environ.get("ATTN_KERNEL_NAME"):
    c.Execute.kernel_name = os.environ["ATTN_KERNEL_NAME"]
# ... and, as its kernels have no network, Unix sockets to reach them.
if os.environ.get("ATTN_KERNEL_IPC"):
    c.KernelManager.transport = "ipc"
    c.KernelManager.ip = os.environ["ATTN_KERNEL_IPC"]
# After a flood of output is cut off (GuardedExecute), the kernel may take longer than
# nbclient's 4 s to go quiet; nbgrader would then fail the whole notebook, not the cell.
c.Execute.raise_on_iopub_timeout = False
c.Execute.iopub_timeout = 15
# nbclient skips cells tagged "skip-execution"; OverwriteCells restores a locked
# cell's source but keeps the learner's tags, so a test cell could be skipped and
# score full marks. StripSkipTags removes that tag and this one from every cell; only
# SkipDemoCells then sets this one, on the course's unchanged demonstration cells.
c.Execute.skip_cells_with_tag = SKIP_TAG
# Cells marked `:grading: skip` in the lesson source (a training run for a plot, a timing table) are
# not run while grading: nothing graded depends on them (tools/grading_marks.py, tests/test_grading_marks.py).
# ATTN_DEMO_CELLS=run (python -m attn_grader.grade --run-demo-cells) runs them all the same.
c.SkipDemoCells.enabled = os.environ.get("ATTN_DEMO_CELLS", "skip") != "run"
c.SkipDemoCells.source_dir = os.path.join(ROOT, "source")
# The hidden tests' verdicts are computed in this process, against these references.
c.DecideHiddenTests.reference_dir = os.path.join(ROOT, "reference")
# ... and the released notebooks, to read only what the learner wrote for a way round the by-hand rule.
c.DecideHiddenTests.source_dir = os.path.join(ROOT, "source")
# Each learner's verdicts (score, status, the classic mistake named) for the class report:
# in the course's folder, which no learner's kernel can see (it sees its own autograded folder only).
c.RecordVerdicts.verdict_dir = os.path.join(ROOT, "verdicts")
c.RecordVerdicts.source_dir = os.path.join(ROOT, "source")

# Late work: a submission's timestamp (the exchange's, or a timestamp.txt written beside a notebook copied by
# hand) after its assignment's due date (`nbgrader db assignment add 03-masks-ja --duedate="2026-12-08 23:59
# Asia/Tokyo"`) loses percent_per_day of its score per day started, never below 0. penalty_method "none"
# turns it off; "zero" is nbgrader's own (a late notebook scores 0).
c.AssignLatePenalties.plugin_class = LatePenalty
c.LatePenalty.penalty_method = "per_day"
c.LatePenalty.percent_per_day = 10.0
c.LatePenalty.grace_minutes = 0.0

# The instructor's language for the class report (report/), each learner's page and flags.csv's explanations:
# "ja", "ko" or "en", whatever the learners' languages; "" writes each lesson's report in its learners' language.
# `make autograde REPORT_LANG=ko` (ATTN_REPORT_LANG) chooses for one run (docs/instructors-grades.md).
c.ClassReport.language = ""

# `nbgrader export` writes grades.csv with a row per learner and lesson given, not per assignment in the
# gradebook; `--exporter=attn_grader.exports.CanvasExport` (or MoodleExport) writes an LMS's import file.
c.ExportApp.plugin_class = CourseGradesExport

c.Autograde.sanitize_preprocessors = [
    ClearOutput, DeduplicateIds, OverwriteKernelspec, OverwriteCells, StripSkipTags, CheckCellMetadata,
]
c.Autograde.autograde_preprocessors = [
    SkipDemoCells, GuardedExecute, DecideHiddenTests, ForgiveWarnings, IgnorePattern, ClearMetadataPreprocessor, LimitOutput,
    SaveAutoGrades, RecordVerdicts, AssignLatePenalties, CheckCellMetadata,
]
# Feedback: hidden tests' code hidden; a cell that failed only because an exercise was left undone says so
# in one line (ExplainUnattempted); a widget's output, which only its kernel could draw, says so (ExplainWidgets);
# feedback.py then puts the page in the learner's language, offline.
c.ExplainUnattempted.source_dir = os.path.join(ROOT, "source")
c.GenerateFeedback.preprocessors = [GetGrades, HideHiddenTests, ExplainUnattempted, ExplainWidgets,
                                    CSSHTMLHeaderPreprocessor]
# HTMLExporter without its BeautifulSoup pass over each page (feedback_exporter.py): the same page, faster.
c.GenerateFeedback.exporter_class = FeedbackHTMLExporter
