"""The course's nbgrader preprocessors, one per file, registered in autograder/nbgrader_config.py."""
from .decide_hidden_tests import DecideHiddenTests
from .explain_unattempted import ExplainUnattempted
from .explain_widgets import ExplainWidgets
from .forgive_warnings import ForgiveWarnings
from .guarded_execute import GuardedExecute
from .hide_hidden_tests import HideHiddenTests
from .record_verdicts import RecordVerdicts
from .skip_demo_cells import SkipDemoCells
from .strip_skip_tags import StripSkipTags

__all__ = ["DecideHiddenTests", "ExplainUnattempted", "ExplainWidgets", "ForgiveWarnings", "GuardedExecute", "HideHiddenTests", "RecordVerdicts", "SkipDemoCells",
           "StripSkipTags"]
