"""The same code gets the same grade whoever submits it (issue 40): every planted bug of the lessons whose checks and
probes draw sizes the notebook binds nowhere (attn_course.sizes.SIZE_RULE), judged under 20 learners' grading seeds,
fails the same grade cells with the same named mistake on every seed, and keeps every later cell's points.

In process, as `make hint-sweep` judges (tools/hint_sweep.py): the solution notebook runs once, and each bug's
solution cells from the edited one on run again. Before the rule, a notebook of lesson 4 scored 5/15 under five
learner ids and 7/15 under a sixth: a wrong answer lost points only where a drawn size differed from the demo's.
"""
import hashlib

import pytest
from attn_course.sizes import SIZE_RULE
from conftest import class_bugs, class_lessons

LESSONS = {stem: lesson for stem, lesson in class_lessons().items() if lesson.number in SIZE_RULE}
# The grader draws a 63-bit seed per notebook it executes (GuardedExecute): 20 such seeds, one per learner id.
SEEDS = [int.from_bytes(hashlib.sha256(f"learner-{i:02d}".encode()).digest()[:8], "little") >> 1 for i in range(20)]


def _reached(stem):
    """Whether a later grade cell can depend on the bug's cell (tests/bug_packs.py reads it from the code): one
    that cannot runs as in the solution, whose every cell the sweep judges on every seed too. What the sweep cannot
    see is not judged here either."""
    import bug_packs
    from hint_sweep import SWEEP_CANNOT_SEE
    index = {gid: i for i, (gid, _, _) in enumerate(bug_packs.code_cells(stem)) if gid}
    hidden = SWEEP_CANNOT_SEE.get(stem, {})
    return lambda bug, grade_id: grade_id.removesuffix("_tests") not in hidden.get(bug, ()) and \
        bug_packs.bug_cells(stem)[bug] in bug_packs.reaches(stem)[index[grade_id]]


@pytest.mark.parametrize("stem", sorted(LESSONS))
def test_every_planted_bug_gets_one_grade_whoever_submits_it(stem):
    from hint_sweep import SWEEP_CANNOT_SEE, seen_hints, sweep   # here: it sets matplotlib's backend
    bugs = class_bugs()[stem]
    results = sweep(stem, LESSONS[stem].assignment, bugs, seen_hints(stem, bugs), SEEDS, others=_reached(stem))
    differ = {key: r for key, r in results.items() if r["got"] != {r["want"]: len(SEEDS)}}
    assert not differ, differ
    # Every planted bug was judged: each cell it fails, and the solution's every cell.
    for name, bug in bugs.items():
        for cell in bug.fails:
            if cell.removesuffix("_tests") not in SWEEP_CANNOT_SEE.get(stem, {}).get(name, ()):
                assert f"{name} / {cell.removesuffix('_tests')}" in results, (name, cell)
