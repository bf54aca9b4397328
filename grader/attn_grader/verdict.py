"""One hidden test's verdict, from the seed the grader chose and the results the kernel sent."""
from __future__ import annotations

from attn_course import judging
from attn_course.findings import ANSWER_KEYS, GRADIENT_KEYS, SIDE_EFFECT_KEYS
from attn_course.judging import Mismatch, hint_of, texts

from .messages import text
from .references import judge_for

# Hints that say what to do, not what the likely cause is: the by-hand policy's verdicts name the cause themselves.
INSTRUCTIONS = {"hint_by_hand_reach", "hint_by_hand_tamper", "hint_by_hand_threads"}


def localize(mismatch: Mismatch, lang: str) -> str:
    """The mismatch's message in lang. Under it, the likely mistake, the earlier exercise it may come from, and any
    other mistake the judge named."""
    message, hint, also = texts(mismatch, lambda key, **fields: text(key, lang, **fields))
    if hint:
        label = "hidden_todo" if hint[0] in INSTRUCTIONS else "hidden_likely"
        message += "\n" + text(label, lang, hint=hint[1])
    cause = getattr(mismatch, "cause", None)
    if cause:
        message += "\n" + text("hidden_earlier_cause", lang, n=cause[0], name=cause[1])
    for line in also:
        message += "\n" + text("hidden_also", lang, hint=line)
    return message


def defined_names(source: str) -> set:
    """The names a solution cell defines at its top level (functions, classes, assignments)."""
    import ast
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return set()
    found = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            found.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            found.update(t.id for t in targets if isinstance(t, ast.Name))
    return found


def earlier_cause(source: str, failed: dict):
    """(exercise number, name) of the first name this exercise's code uses that an earlier exercise defined and
    failed its hidden tests with (failed: {name: number}), or None."""
    import ast
    try:
        used = {n.id for n in ast.walk(ast.parse(source)) if isinstance(n, ast.Name)}
    except SyntaxError:
        return None
    used -= defined_names(source)
    return next(((failed[name], name) for name in failed if name in used), None)


def carried_from(cause, hint: str | None, earlier: dict) -> int | None:
    """The exercise a failure was carried over from, or None when the failure is the exercise's own.

    cause: earlier_cause's (number, name); earlier: {number: (hint, origin)} of the earlier exercises that failed in
    this notebook, origin being the exercise the failure itself was carried over from (or its own number). A failure
    is carried over when its cause is an earlier failure with the same hint: the same mistake seen again through the
    learner's earlier function. A later exercise's own mistake calls that function too, but shows a hint of its own.
    """
    if not cause or hint is None or cause[0] not in earlier:
        return None
    their_hint, origin = earlier[cause[0]]
    return origin if their_hint == hint else None


def header_key(mismatch: Mismatch) -> str:
    """The line above a hidden failure in a cell whose visible check passed: what differed. Other inputs are the
    cause of an output that differs; a gradient, or a side effect on the source module, is no matter of inputs."""
    if mismatch.key in GRADIENT_KEYS or mismatch.key == "hidden_grad_mismatch":
        return "hidden_failed_after_visible_grad"
    if mismatch.key in SIDE_EFFECT_KEYS:
        return "hidden_failed_after_visible_copy"
    if mismatch.key == "copy_not_trainable":
        return "hidden_failed_after_visible_trainable"
    if mismatch.key in ANSWER_KEYS:
        return "hidden_failed_after_visible_answer"
    return "hidden_failed_after_visible"


def decide(reference_dir, seed: int, test: str, payload, source: str = "") -> Mismatch | None:
    """None when the learner's results are right; the Mismatch that says why not (attn_course.judging.decide, with
    the judge the hidden reference registered for test)."""
    judge = judge_for(reference_dir, test)
    if judge is None:
        return Mismatch("results_unreadable", why=("why_not_decodable", {"key": test}))
    return judging.decide(judge, seed, test, payload, source)
