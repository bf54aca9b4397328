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


def lateness_text(seconds_late: float, lang: str) -> str:
    """2 日と 3 時間遅れ / 2일 3시간 늦음: days and hours, or hours and minutes under a day (rounded down, so a
    learner is never told they were later than they were; at least a minute)."""
    from .messages import text
    minutes = max(1, int(seconds_late // 60))
    d, h, m = minutes // 1440, minutes % 1440 // 60, minutes % 60
    if d:
        return text("late_days_hours", lang, d=d, h=h) if h else text("late_days", lang, d=d)
    return text("late_hours_minutes", lang, h=h, m=m) if h else text("late_minutes", lang, m=m)


def rule_text(plugin, lang: str) -> str:
    """The rule the penalty came from, as the course's LatePenalty is configured."""
    from .messages import text
    if not isinstance(plugin, LatePenalty):
        return text("late_rule_other", lang)
    if plugin.penalty_method == "zero":
        return text("late_rule_zero", lang)
    rule = text("late_rule_per_day", lang, percent=f"{plugin.percent_per_day:g}")
    if plugin.grace_minutes:
        rule += ("、" if lang == "ja" else ", ") + text("late_rule_grace", lang, grace=f"{plugin.grace_minutes:g}")
    return rule


def plugin_from(config):
    """The late-submission plugin nbgrader_config.py configures (AssignLatePenalties.plugin_class), with its
    settings, or None when it is not one whose rule this module can say."""
    from nbgrader.preprocessors import AssignLatePenalties
    try:
        return AssignLatePenalties(config=config).plugin_class(config=config)
    except Exception:  # noqa: BLE001 - the line then says how late only, with the rule as "the course's"
        return None
