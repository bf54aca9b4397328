"""nbgrader export plugins (`nbgrader export --exporter=attn_grader.exports.CanvasExport`), one per file.

CourseGradesExport writes grades.csv (and the per-exercise grades-exercises.csv beside it); CanvasExport and
MoodleExport write the CSV each LMS's gradebook import reads. All three read table.py's rows.
"""
from .canvas import CanvasExport
from .course_grades import CourseGradesExport
from .moodle import MoodleExport

__all__ = ["CanvasExport", "CourseGradesExport", "MoodleExport"]
