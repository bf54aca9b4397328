"""One hidden test's verdict, from the seed the grader chose and the results the kernel sent."""
from __future__ import annotations

import logging

from .judge import Mismatch, Results
from .messages import text
from .references import judge_for

log = logging.getLogger(__name__)


def localize(mismatch: Mismatch, lang: str) -> str:
    """The mismatch's message in lang; a field given as (key,) or (key, fields) is a message too."""
    fields = {}
    for name, value in mismatch.fields.items():
        if isinstance(value, tuple) and value and isinstance(value[0], str):
            fields[name] = text(value[0], lang, **(value[1] if len(value) > 1 else {}))
        else:
            fields[name] = value
    message = text(mismatch.key, lang, **fields)
    if mismatch.hint:
        message += "\n" + text("hidden_likely", lang, hint=text(mismatch.hint, lang))
    return message


def decide(reference_dir, seed: int, test: str, payload) -> Mismatch | None:
    """None when the learner's results are right; the Mismatch that says why not, otherwise."""
    judge = judge_for(reference_dir, test)
    if judge is None:
        return Mismatch("results_unreadable", why=("why_not_decodable", {"key": test}))
    values = payload.get("values") if isinstance(payload, dict) else None
    try:
        judge(Results(seed, test, values))
    except Mismatch as mismatch:
        return mismatch
    except Exception:  # noqa: BLE001 - results the reference cannot even use are not right
        log.warning("judge %s could not use the results", test, exc_info=True)
        return Mismatch("results_unreadable", why=("why_not_decodable", {"key": test}))
    return None
