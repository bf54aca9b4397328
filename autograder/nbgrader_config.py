# nbgrader course for "Attention, head by head". Run nbgrader from this folder
# (the Makefile does), so this file is found and the course root is here.
# The preprocessors come from the grading package (grader/attn_grader), which the
# course's environment installs and learners never do.
import os

from attn_grader.preprocessors import (
    DecideHiddenTests, ForgiveWarnings, GuardedExecute, HideHiddenTests, RecordVerdicts, StripSkipTags,
)
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
# score full marks. No real tag equals this one; StripSkipTags removes the rest.
c.Execute.skip_cells_with_tag = "attn-course-no-cell-is-ever-skipped"
# The hidden tests' verdicts are computed in this process, against these references.
c.DecideHiddenTests.reference_dir = os.path.join(ROOT, "reference")
# ... and the released notebooks, to read only what the learner wrote for a way round the by-hand rule.
c.DecideHiddenTests.source_dir = os.path.join(ROOT, "source")
# Each learner's verdicts (score, status, the classic mistake named) for the class report:
# in the course's folder, which no learner's kernel can see (it sees its own autograded folder only).
c.RecordVerdicts.verdict_dir = os.path.join(ROOT, "verdicts")
c.RecordVerdicts.source_dir = os.path.join(ROOT, "source")

c.Autograde.sanitize_preprocessors = [
    ClearOutput, DeduplicateIds, OverwriteKernelspec, OverwriteCells, StripSkipTags, CheckCellMetadata,
]
c.Autograde.autograde_preprocessors = [
    GuardedExecute, DecideHiddenTests, ForgiveWarnings, IgnorePattern, ClearMetadataPreprocessor, LimitOutput,
    SaveAutoGrades, RecordVerdicts, AssignLatePenalties, CheckCellMetadata,
]
c.GenerateFeedback.preprocessors = [GetGrades, HideHiddenTests, CSSHTMLHeaderPreprocessor]
