"""Remove the tags that change how a cell executes, in every cell of a submission."""
from nbgrader.preprocessors import NbGraderPreprocessor

from .skip_demo_cells import SKIP_TAG

# nbclient's own, and the one the course's SkipDemoCells sets: a learner who sets that would skip a cell.
EXECUTION_TAGS = {"skip-execution", "raises-exception", SKIP_TAG}


class StripSkipTags(NbGraderPreprocessor):
    """nbgrader restores a locked cell's source from the gradebook but keeps the tags the
    learner set. A grade cell tagged skip-execution would never run, print no error and
    score full marks.
    """

    def preprocess_cell(self, cell, resources, index):
        tags = cell.get("metadata", {}).get("tags")
        if tags:
            cell.metadata.tags = [tag for tag in tags if tag not in EXECUTION_TAGS]
        return cell, resources
