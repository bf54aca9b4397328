"""Every sentence a learner can see from Python code, in Japanese and in Korean.

Prose lives in the lesson sources; these modules hold what code prints or raises:
check results, hints, errors, widget labels and figure text. `common` holds what
every lesson shares, `findings` the findings a check and the grader share (attn_course.findings),
`lessonN` what only lesson N uses (its hints, answers, tables
and figure labels; the build writes a lesson's table and figure texts straight into
its notebooks). Terms follow lessons/GLOSSARY.md, which tests/test_language.py enforces.
"""
import re

from . import (common, findings, lesson1, lesson2, lesson3, lesson4, lesson5, lesson6, lesson7, lesson7_text, lesson8,
               lesson8_hints, lesson8_text)

LANGUAGES = ("ja", "ko")
MODULES = {"common": common, "findings": findings, "lesson1": lesson1, "lesson2": lesson2, "lesson3": lesson3,
           "lesson4": lesson4, "lesson5": lesson5, "lesson6": lesson6, "lesson7": lesson7, "lesson7_text": lesson7_text,
           "lesson8": lesson8, "lesson8_hints": lesson8_hints, "lesson8_text": lesson8_text}


def _merge(modules) -> dict:
    merged = {}
    for name, module in modules.items():
        twice = merged.keys() & module.MESSAGES.keys()
        if twice:
            raise KeyError(f"messages defined twice (again in {name}): {sorted(twice)}")
        merged.update(module.MESSAGES)
    return merged


MESSAGES = _merge(MODULES)
_current = "ja"


def set_language(lang: str) -> None:
    global _current
    if lang not in LANGUAGES:
        # Neither language is known yet, so say it in both.
        raise ValueError(" / ".join(MESSAGES["bad_language"][x].format(lang=lang) for x in LANGUAGES))
    _current = lang


def get_language() -> str:
    return _current


def t(key: str, /, **fields) -> str:
    """The message `key` in the current language, with `fields` filled in."""
    return MESSAGES[key][_current].format(**fields)


def text(key: str, lang: str, /, **fields) -> str:
    """The message `key` in `lang`, whatever the current language (the build and the grader use this).
    key and lang are positional-only, so a message may have fields named key or lang."""
    return MESSAGES[key][lang].format(**fields)


def matches(key: str, message: str) -> bool:
    """Whether message begins with the text of key, in either language and with any fields: the grader reads an
    error the learner's kernel raised in its own language (a course error's text, hints after it)."""
    for lang in LANGUAGES:
        parts = re.split(r"\{[^{}]*\}", MESSAGES[key][lang])
        if re.match("(.*?)".join(map(re.escape, parts)), message, re.S):
            return True
    return False
