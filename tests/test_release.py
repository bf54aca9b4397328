"""Before grading: releasing every assignment of a language in one nbgrader process (a glob) gives the
same release/ files and gradebook entries as one process per assignment, and is used only then; every learner
is in the gradebook before the grading workers start."""
import filecmp
import shutil
import sqlite3

from attn_grader import release
from classroom import course_skeleton

TWO = ["01-attention-ja", "02-multihead-ja"]


def _course(path, assignments):
    course = course_skeleton(path)
    for extra in {p.name for p in (course / "source").iterdir()} - set(assignments):
        shutil.rmtree(course / "source" / extra)
    return course


def _gradebook(course) -> list:
    """What the gradebook holds of each cell, by name (its rows' ids are random)."""
    with sqlite3.connect(course / "gradebook.db") as db:
        cells = db.execute(
            "select a.name, n.name, b.name, g.max_score, g.cell_type from grade_cells g join base_cell b on b.id = g.id"
            " join notebook n on n.id = b.notebook_id join assignment a on a.id = n.assignment_id").fetchall()
        sources = db.execute(
            "select a.name, n.name, s.name, s.cell_type, s.locked, s.source, s.checksum from source_cell s"
            " join notebook n on n.id = s.notebook_id join assignment a on a.id = n.assignment_id").fetchall()
        solutions = db.execute(
            "select a.name, n.name, b.name from solution_cells g join base_cell b on b.id = g.id"
            " join notebook n on n.id = b.notebook_id join assignment a on a.id = n.assignment_id").fetchall()
    return [sorted(cells), sorted(sources), sorted(solutions)]


def test_a_language_released_at_once_is_the_same_as_each_assignment_alone(tmp_path):
    together, alone = _course(tmp_path / "together", TWO), _course(tmp_path / "alone", TWO)
    release.generate_releases(together, TWO)
    for assignment in TWO:
        release.generate_release(alone, assignment, "ja")
    files = sorted(p.relative_to(alone) for p in (alone / "release").rglob("*") if p.is_file())
    assert len(files) == 2
    assert files == sorted(p.relative_to(together) for p in (together / "release").rglob("*") if p.is_file())
    assert all(filecmp.cmp(alone / f, together / f, shallow=False) for f in files)
    held = _gradebook(together)
    assert all(held) and held == _gradebook(alone)


def test_the_glob_is_used_only_for_every_assignment_of_a_language(tmp_path, monkeypatch):
    course = _course(tmp_path / "c", TWO + ["01-attention-ko", "02-multihead-ko"])
    calls = []
    monkeypatch.setattr(release, "generate_release", lambda root, assignment, lang: calls.append((assignment, lang)))
    release.generate_releases(course, TWO + ["01-attention-ko"])
    assert calls == [("*-ja", "ja"), ("01-attention-ko", "ko")]
    calls.clear()
    release.generate_releases(course, ["02-multihead-ja"])
    assert calls == [("02-multihead-ja", "ja")]


def test_every_learner_is_in_the_gradebook_before_the_workers_start(tmp_path):
    """Two workers grading one new learner's two assignments both added the learner: sqlite refused one
    (UNIQUE constraint failed: student.id) and that notebook went ungraded. grade.main enters them first."""
    import inspect

    from attn_grader import grade
    from nbgrader.api import Gradebook
    course = _course(tmp_path / "c", TWO)
    release.generate_releases(course, TWO)
    work = [(a, s) for a in TWO for s in ("ana", "bo")]
    grade.enter_students(course, work)
    grade.enter_students(course, work)  # a learner already there is left as they are
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        assert sorted(s.id for s in gb.students) == ["ana", "bo"]
    main = inspect.getsource(grade.main)
    assert main.index("enter_students(") < main.index("grade_parallel(")
