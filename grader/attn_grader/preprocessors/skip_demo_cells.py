"""Cells that only demonstrate, marked `:grading: skip` in the lesson source, are not run while grading."""
from pathlib import Path

import nbformat
from nbgrader.preprocessors import NbGraderPreprocessor
from traitlets import Bool, Unicode

from ..messages import assignment_language, text

# nbclient skips a cell with this tag (Execute.skip_cells_with_tag in nbgrader_config.py). StripSkipTags
# removes it from every submitted cell first, so only this preprocessor ever sets it.
SKIP_TAG = "attn-course-skipped-while-grading"


def _code(source: str) -> list[str]:
    return [line.rstrip() for line in source.strip().splitlines()]


def marked_sources(source_notebook: Path) -> list[list[str]]:
    """The code of every cell the lesson source marks `:grading: skip` (carried into metadata by the build)."""
    if not source_notebook.exists():
        return []
    cells = nbformat.read(source_notebook, 4).cells
    return [_code(c.source) for c in cells
            if c.cell_type == "code" and c.metadata.get("attn_course", {}).get("grading") == "skip"]


class SkipDemoCells(NbGraderPreprocessor):
    """Tag the submitted cells that are the course's own demonstration cells, unchanged, so the kernel skips
    them, and give each a one-line note in the learner's language instead of an output.

    Which cells: those marked in the course's source notebook (autograder/source), never what a submission's
    metadata says, and only when the learner's cell still holds exactly the course's code: a cell the learner
    changed is run as they wrote it. A graded or solution cell is never skipped. The build refuses a mark on
    any cell that a later cell, graded or not, depends on (tools/grading_marks.py).
    """

    enabled = Bool(True, help="skip the marked cells; False runs every cell (the same verdicts, slower)").tag(config=True)
    source_dir = Unicode("", help="autograder/source: the notebooks whose metadata marks the cells").tag(config=True)

    def preprocess(self, nb, resources):
        info = resources.get("nbgrader", {})
        self._skip = []
        if self.enabled and self.source_dir and info.get("assignment") and info.get("notebook"):
            self._skip = marked_sources(Path(self.source_dir) / info["assignment"] / f"{info['notebook']}.ipynb")
        self._note = text("demo_skipped", assignment_language(info.get("assignment", "")))
        return super().preprocess(nb, resources)

    def preprocess_cell(self, cell, resources, index):
        meta = cell.metadata.get("nbgrader", {})
        if cell.cell_type != "code" or any(meta.get(k) for k in ("grade", "solution", "locked")) \
                or _code(cell.source) not in self._skip:
            return cell, resources
        cell.metadata.setdefault("tags", []).append(SKIP_TAG)
        cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text=self._note + "\n")]
        return cell, resources
