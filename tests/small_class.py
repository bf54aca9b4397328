"""A small class in a gradebook made with nbgrader's own API (no kernel runs), for the override and history tests:
a regrade and a resubmission are made the way nbgrader makes them (the gradebook's auto scores and timestamp
replaced, the learner's verdict written again, the submitted notebook changed)."""
import datetime
import json

from nbgrader.api import Gradebook

CELLS = {"ex1_causal_mask_tests": 2.0, "ex2_apply_mask_tests": 3.0}   # 5 points
DUE = datetime.datetime(2026, 12, 8, 14, 59)
# student -> (e-mail, {assignment: (scores, penalty)}); eri's submission could not be graded (no verdict)
CLASS = {"aiko": ("aiko@example.jp", {"03-masks-ja": ((2.0, 1.0), 0.0)}),
         "bora": ("bora@example.kr", {"03-masks-ko": ((2.0, 3.0), 2.0)}),     # late
         "eri": ("eri@example.jp", {"03-masks-ja": ((0.0, 0.0), 0.0)})}
NOT_GRADED = {("eri", "03-masks-ja")}


def grade(course, student, assignment, scores, penalty=0.0, notebook_text="{}"):
    """What a grading run leaves: the gradebook's scores, the learner's verdict and their submitted notebook."""
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        late = datetime.timedelta(days=1) if penalty else datetime.timedelta(hours=-1)
        gb.update_or_create_submission(assignment, student, timestamp=DUE + late)
        notebook = gb.find_submission_notebook("03_nb", assignment, student)
        for g, score in zip(sorted(notebook.grades, key=lambda g: g.name), scores):
            g.auto_score = score
        notebook.late_submission_penalty = penalty
        gb.db.commit()
    folder = course / "submitted" / student / assignment
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "03_nb.ipynb").write_text(notebook_text, encoding="utf-8")
    if (student, assignment) not in NOT_GRADED:
        verdicts = course / "verdicts" / assignment
        verdicts.mkdir(parents=True, exist_ok=True)
        cells = {cell: {"points": p, "score": s, "status": "pass" if s == p else "unknown_mistake", "hint": None}
                 for (cell, p), s in zip(CELLS.items(), scores)}
        (verdicts / f"{student}.json").write_text(json.dumps(
            {"student": student, "assignment": assignment, "notebooks": {"03_nb": {"cells": cells}}}), "utf-8")


def make_course(tmp_path):
    with Gradebook(f"sqlite:///{tmp_path / 'gradebook.db'}") as gb:
        for name in ("03-masks-ja", "03-masks-ko"):
            gb.add_assignment(name, duedate=DUE)
            gb.add_notebook("03_nb", name)
            for cell, points in CELLS.items():
                gb.add_grade_cell(cell, "03_nb", name, max_score=points, cell_type="code")
        for student, (email, _) in CLASS.items():
            gb.add_student(student, email=email, lms_user_id=student.upper())
    for student, (_, handed_in) in CLASS.items():
        for assignment, (scores, penalty) in handed_in.items():
            grade(tmp_path, student, assignment, scores, penalty)
    return tmp_path


TITLES = {"ja": ("マスク", "因果マスク", "マスクをかける"), "ko": ("마스크", "인과 마스크", "마스크 적용")}


def write_sources(course):
    """The released notebooks the class report takes the lesson's and the exercises' titles from."""
    for lang, (title, *exercises) in TITLES.items():
        folder = course / "source" / f"03-masks-{lang}"
        folder.mkdir(parents=True)
        cells = [{"cell_type": "markdown", "metadata": {}, "source": f"# {title}"}]
        for (cell, points), heading in zip(CELLS.items(), exercises):
            cells += [{"cell_type": "markdown", "metadata": {}, "source": f"## {heading}"},
                      {"cell_type": "code", "source": "", "outputs": [], "execution_count": None,
                       "metadata": {"nbgrader": {"solution": True, "grade_id": cell.removesuffix("_tests")}}},
                      {"cell_type": "code", "source": "", "outputs": [], "execution_count": None,
                       "metadata": {"nbgrader": {"grade": True, "grade_id": cell, "points": points}}}]
        (folder / "03_nb.ipynb").write_text(json.dumps({"cells": cells, "metadata": {}, "nbformat": 4,
                                                        "nbformat_minor": 5}), encoding="utf-8")
