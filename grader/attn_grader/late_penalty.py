"""The course's late-submission policy, as an nbgrader late-submission plugin (AssignLatePenalties.plugin_class)."""
from __future__ import annotations

import math

from nbgrader.plugins import LateSubmissionPlugin
from traitlets import Enum, Float


class LatePenalty(LateSubmissionPlugin):
    """nbgrader's own methods ("none": no penalty, "zero": a late notebook scores 0), and "per_day": a share
    of the notebook's score for each day or part of a day after the due date, up to the whole score.

    nbgrader calls this for each notebook of a submission whose timestamp (the exchange's, or the
    timestamp.txt beside a notebook copied by hand) is after the assignment's due date (`nbgrader db
    assignment add ID --duedate=…`); the penalty is stored in the gradebook and subtracted in every export.
    """

    penalty_method = Enum(("none", "zero", "per_day"), default_value="per_day",
                          help="none, zero (nbgrader's), or per_day: percent_per_day of the score per day started "
                               "after the due date").tag(config=True)
    percent_per_day = Float(10.0, min=0.0, max=100.0, help="per_day: the share of the score taken per day late, "
                                                           "in percent").tag(config=True)
    grace_minutes = Float(0.0, min=0.0, help="per_day: minutes after the due date that do not count").tag(config=True)

    def late_submission_penalty(self, student_id: str, score: float, total_seconds_late: float) -> float | None:
        if self.penalty_method != "per_day":
            return super().late_submission_penalty(student_id, score, total_seconds_late)
        late = total_seconds_late - 60 * self.grace_minutes
        if late <= 0:
            return None
        days = math.ceil(late / 86400)
        return min(score, round(score * self.percent_per_day / 100 * days, 2))
