# nbgrader course for "Attention, head by head". Run nbgrader from this folder
# (the Makefile does), so this file is found and the course root is here.
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from nbconvert.preprocessors import ClearMetadataPreprocessor  # noqa: E402
from nbgrader.preprocessors import (  # noqa: E402
    AssignLatePenalties, CheckCellMetadata, ClearOutput, DeduplicateIds, GetGrades, IgnorePattern,
    LimitOutput, OverwriteCells, OverwriteKernelspec, SaveAutoGrades,
)
from nbconvert.preprocessors import CSSHTMLHeaderPreprocessor  # noqa: E402

from course_preprocessors import ForgiveWarnings, GuardedExecute, HideHiddenTests, StripSkipTags  # noqa: E402

c = get_config()  # noqa: F821 - provided by traitlets
c.CourseDirectory.root = os.path.dirname(os.path.abspath(__file__))
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
# tools/grade.py sets this to a kernelspec that forks kernels from a warm process.
if os.environ.get("ATTN_KERNEL_NAME"):
    c.Execute.kernel_name = os.environ["ATTN_KERNEL_NAME"]
# ... and, when its kernels have no network, Unix sockets to reach them.
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

c.Autograde.sanitize_preprocessors = [
    ClearOutput, DeduplicateIds, OverwriteKernelspec, OverwriteCells, StripSkipTags, CheckCellMetadata,
]
c.Autograde.autograde_preprocessors = [
    GuardedExecute, ForgiveWarnings, IgnorePattern, ClearMetadataPreprocessor, LimitOutput,
    SaveAutoGrades, AssignLatePenalties, CheckCellMetadata,
]
c.GenerateFeedback.preprocessors = [GetGrades, HideHiddenTests, CSSHTMLHeaderPreprocessor]
