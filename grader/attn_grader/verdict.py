"""One hidden test's verdict, from the seed the grader chose and the results the kernel sent."""
from __future__ import annotations

import logging

from attn_course import by_hand
from attn_course.checks.engine import error_gloss, mentions_dot_T, raised_hint
from attn_course.findings import ANSWER_KEYS, GRADIENT_KEYS, SIDE_EFFECT_KEYS, global_finding, global_read_finding

from .judge import Mismatch, Results
from .messages import text
from .references import judge_for

log = logging.getLogger(__name__)
# Hints that say what to do, not what the likely cause is: the by-hand policy's verdicts name the cause themselves.
INSTRUCTIONS = {"hint_by_hand_reach", "hint_by_hand_tamper", "hint_by_hand_threads"}


def hint_of(mismatch: Mismatch | None) -> tuple[str | None, dict]:
    """The likely mistake's message key and its fields (None when no classic mistake matched)."""
    if mismatch is None:
        return None, {}
    hint = mismatch.hint
    if hint is None and mismatch.key.startswith("hint_"):  # the verdict's message is the hint itself
        return mismatch.key, {k: v for k, v in mismatch.fields.items() if not isinstance(v, tuple)}
    if isinstance(hint, tuple):
        return hint[0], dict(hint[1]) if len(hint) > 1 else {}
    return hint, {}


def localize(mismatch: Mismatch, lang: str) -> str:
    """The mismatch's message in lang; a field given as (key,) or (key, fields) is a message too. Under it,
    the likely mistake, the earlier exercise it may come from, and any other mistake the judge named."""
    def texts(given: dict) -> dict:
        return {name: text(value[0], lang, **(value[1] if len(value) > 1 else {}))
                if isinstance(value, tuple) and value and isinstance(value[0], str) else value
                for name, value in given.items()}

    message = text(mismatch.key, lang, **texts(mismatch.fields))
    key, hint_fields = hint_of(mismatch)
    if key and key != mismatch.key:   # a message that is the hint itself is not said again as its likely cause
        label = "hidden_todo" if key in INSTRUCTIONS else "hidden_likely"
        message += "\n" + text(label, lang, hint=text(key, lang, **texts(hint_fields)))
    cause = getattr(mismatch, "cause", None)
    if cause:
        message += "\n" + text("hidden_earlier_cause", lang, n=cause[0], name=cause[1])
    for also in getattr(mismatch, "also", ()):
        also_key, also_fields = (also[0], dict(also[1]) if len(also) > 1 else {}) if isinstance(also, tuple) \
            else (also, {})
        if also_key == mismatch.key:
            continue
        message += "\n" + text("hidden_also", lang, hint=text(also_key, lang, **also_fields))
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


def _raised(judge, raised: dict, source: str, test: str = "") -> Mismatch:
    """The learner's code raised inside the probe: the cell fails, and the mistake is named by
    the rules the visible checks use for an error (attn_course.checks.engine.error_hint)."""
    kind, message = str(raised.get("kind", "")), str(raised.get("message", ""))
    on_error = getattr(judge, "on_error", None)
    call = str(raised.get("call", "?"))[:80]
    if kind == by_hand.REFUSED_KIND:  # the library's attention (or the course's checks) in a by-hand exercise
        key = {"concat": "hidden_concat_refused", "threads": "hidden_by_hand_threads"}.get(message.split(":", 1)[0],
                                                                                         "hidden_by_hand")
        return Mismatch(key, hint=by_hand.hint_for(message, by_hand.PROBE_RULES.get(test), call), name=call,
                        what=by_hand.refused_what(message)[:120])
    hint = raised_hint(on_error, kind, message, call, raised.get("dot_T") is True or mentions_dot_T(source))
    error = (f"{kind}: {message}" if message else kind)[:300]
    gloss = error_gloss(error)   # the English error glossed in the learner's language, as the check shows it
    return Mismatch("hidden_raised", hint=hint, name=call, error=gloss or error)


def _partial(judge, seed: int, test: str, payload: dict) -> Mismatch | None:
    """A judge registered with partial=True, on the results recorded before the learner's code raised: the
    mismatch it finds there (not one about a missing result), else None."""
    values = payload.get("values")
    if not getattr(judge, "partial", False) or not isinstance(values, dict) or not values:
        return None
    try:
        judge(Results(seed, test, values))
    except Mismatch as mismatch:
        return None if mismatch.key == "results_unreadable" else mismatch
    except Exception:  # noqa: BLE001 - partial results the reference cannot use: the error speaks
        return None
    return None


def _by_hand_kept(payload) -> bool:
    """A by-hand exercise's results must say the guards were up for every call of the learner's code
    and none was refused: a probe the learner's code replaced or skipped sends no such record. Which
    exercises are by hand, the grader reads from its own copy of the lesson declarations."""
    kept = payload.get("by_hand") if isinstance(payload, dict) else None
    return isinstance(kept, dict) and kept.get("intact") is True and type(kept.get("calls")) is int \
        and kept["calls"] >= 1


def header_key(mismatch: Mismatch) -> str:
    """The line above a hidden failure in a cell whose visible check passed: what differed. Other inputs are the
    cause of an output that differs; a gradient, or a side effect on the source module, is no matter of inputs."""
    if mismatch.key in GRADIENT_KEYS or mismatch.key == "hidden_grad_mismatch":
        return "hidden_failed_after_visible_grad"
    if mismatch.key in SIDE_EFFECT_KEYS:
        return "hidden_failed_after_visible_copy"
    if mismatch.key in ANSWER_KEYS:
        return "hidden_failed_after_visible_answer"
    return "hidden_failed_after_visible"


def _global_hint(mismatch: Mismatch | None, payload) -> Mismatch | None:
    """The learner's code read a size the notebook binds (the probe says which): that is the likely cause, named
    first as the visible check names it (attn_course.checks.invariants.reads_globals); any other hint follows."""
    reads = payload.get("globals_read") if isinstance(payload, dict) else None
    if mismatch is None:   # right results from a global of a fitting value: failed, as the visible check fails it
        finding = global_read_finding(payload.get("globals_read_own") if isinstance(payload, dict) else None)
        return Mismatch(finding[0], hint=finding[2], **finding[1]) if finding else None
    finding = global_finding(reads)
    if finding:
        if mismatch.hint is not None:
            mismatch.also.insert(0, mismatch.hint)
        mismatch.hint = finding
    return mismatch


def decide(reference_dir, seed: int, test: str, payload, source: str = "") -> Mismatch | None:
    return _global_hint(_decide(reference_dir, seed, test, payload, source), payload)


def _decide(reference_dir, seed: int, test: str, payload, source: str = "") -> Mismatch | None:
    """None when the learner's results are right; the Mismatch that says why not, otherwise.

    source: the learner's own code for this exercise (its solution cell), which names some
    mistakes the results alone cannot (a `.T` that made the call fail).
    """
    judge = judge_for(reference_dir, test)
    if judge is None:
        return Mismatch("results_unreadable", why=("why_not_decodable", {"key": test}))
    if isinstance(payload, dict) and isinstance(payload.get("raised"), dict):
        return _partial(judge, seed, test, payload) or _raised(judge, payload["raised"], source, test)
    if test in by_hand.PROBE_RULES and not _by_hand_kept(payload):
        return Mismatch("hidden_by_hand_unproven", hint=("hint_from_scratch", {"name": test.split(".", 1)[1]}),
                        name=test.split(".", 1)[1])
    values = payload.get("values") if isinstance(payload, dict) else None
    try:
        judge(Results(seed, test, values))
    except Mismatch as mismatch:
        return mismatch
    except Exception:  # noqa: BLE001 - results the reference cannot even use are not right
        log.warning("judge %s could not use the results", test, exc_info=True)
        return Mismatch("results_unreadable", why=("why_not_decodable", {"key": test}))
    return None
