"""Visible checks, one module per lesson: course.checks.lesson1.check_attention_scores(fn), ….

They exist to teach: each runs the learner's code on small inputs, and when a result
is wrong it names the likely mistake in the learner's language. They are not the
grade: hidden tests are judged by the grader, outside the learner's kernel.

Notebooks saved before the checks were split by lesson call course.checks.check_…
directly; those names are kept below.
"""
from ..validate import (  # noqa: F401 - names older notebooks reach through course.checks
    CheckFailed, CourseError, InputError, dtype_bytes, expect_qkv, expect_size, expect_tokens,
    expect_torch_compatible, previous_token_weight, resolve_head_dim, resolve_kv_groups,
)
from .. import by_hand
from . import engine, lesson1, lesson2, lesson3, lesson4, lesson5, lesson6, lesson7, lesson8

LESSONS = {1: lesson1, 2: lesson2, 3: lesson3, 4: lesson4, 5: lesson5, 6: lesson6, 7: lesson7, 8: lesson8}

# A by-hand exercise's check runs with its rule in force (the lesson source declares it: attn_course/exercises.py).
for _number, _lesson in LESSONS.items():
    for _name in [n for n in dir(_lesson) if n.startswith("check_")]:
        setattr(_lesson, _name, by_hand.guarded(by_hand.CHECK_RULES.get(f"lesson{_number}.{_name}"),
                                                getattr(_lesson, _name)))
    globals().update({name: getattr(_lesson, name) for name in dir(_lesson) if name.startswith("check_")})
del _number, _lesson, _name
