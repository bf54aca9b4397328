# nbgrader course for "Attention, head by head". Run nbgrader from this folder
# (the Makefile does), so this file is found and the course root is here.
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from nbconvert.preprocessors import ClearMetadataPreprocessor  # noqa: E402
from nbgrader.preprocessors import (  # noqa: E402
    AssignLatePenalties, CheckCellMetadata, ClearOutput, DeduplicateIds, Execute, IgnorePattern,
    LimitOutput, OverwriteCells, OverwriteKernelspec, SaveAutoGrades,
)

from course_preprocessors import ForgiveWarnings, StripSkipTags  # noqa: E402

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

# A learner's torch import plus the hidden tests stay well inside this.
c.Execute.timeout = 180
# nbclient skips cells tagged "skip-execution"; OverwriteCells restores a locked
# cell's source but keeps the learner's tags, so a test cell could be skipped and
# score full marks. No real tag equals this one; StripSkipTags removes the rest.
c.Execute.skip_cells_with_tag = "attn-course-no-cell-is-ever-skipped"

c.Autograde.sanitize_preprocessors = [
    ClearOutput, DeduplicateIds, OverwriteKernelspec, OverwriteCells, StripSkipTags, CheckCellMetadata,
]
c.Autograde.autograde_preprocessors = [
    Execute, ForgiveWarnings, IgnorePattern, ClearMetadataPreprocessor, LimitOutput,
    SaveAutoGrades, AssignLatePenalties, CheckCellMetadata,
]
