"""Every sentence a learner can see from Python code, in Japanese and in Korean.

Prose lives in the lesson sources; these modules hold what code prints or raises:
check results, hints, errors, widget labels and figure text. `common` holds what
every lesson shares, `findings` the findings a check and the grader share (attn_course.findings),
`lessonN` what only lesson N uses (its hints, answers, tables
and figure labels; the build writes a lesson's table and figure texts straight into
its notebooks). Terms follow lessons/GLOSSARY.md, which tests/test_language.py enforces.
"""
import re
import string

from . import (common, findings, lesson1, lesson2, lesson3, lesson4, lesson5, lesson6, lesson7, lesson7_text, lesson8,
               lesson8_hints, lesson8_paging, lesson8_text)

LANGUAGES = ("ja", "ko")
MODULES = {"common": common, "findings": findings, "lesson1": lesson1, "lesson2": lesson2, "lesson3": lesson3,
           "lesson4": lesson4, "lesson5": lesson5, "lesson6": lesson6, "lesson7": lesson7, "lesson7_text": lesson7_text,
           "lesson8": lesson8, "lesson8_hints": lesson8_hints, "lesson8_paging": lesson8_paging,
           "lesson8_text": lesson8_text}


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


# Japanese puts a space between ASCII text and Japanese text (「split_heads の形状」, 「`mask` を」); digits keep their
# counters (「2つ」). A field such as {what} holds an identifier in one check and a Japanese word (重み) in another,
# so its template cannot carry the space: fill() adds it where the filled-in value meets Japanese.
JAPANESE = re.compile(r"[\u3040-\u309f\u30a0-\u30fa\u30fc-\u30ff\u4e00-\u9fff]")
ASCII_END = re.compile(r"[A-Za-z_`)\]]$")
ASCII_START = re.compile(r"^[A-Za-z_`(\[]")
_formatter = string.Formatter()


def fill(template: str, lang: str, /, **fields) -> str:
    """template with fields filled in, as str.format does; in Japanese, a space where a field's ASCII text touches
    the template's Japanese."""
    if lang != "ja":
        return template.format(**fields)
    parts = []  # literal text and filled-in fields in turn, each as (text, is_field)
    for literal, name, spec, conversion in _formatter.parse(template):
        parts.append((literal, False))
        if name is not None:
            value = _formatter.convert_field(_formatter.get_field(name, (), fields)[0], conversion)
            parts.append((_formatter.format_field(value, _formatter.vformat(spec, (), fields)), True))
    out = ""
    for i, (piece, is_field) in enumerate(parts):
        if is_field and piece:
            after = next((p for p, _ in parts[i + 1:] if p), "")
            if out and JAPANESE.match(out[-1]) and ASCII_START.match(piece):
                piece = " " + piece
            if after and JAPANESE.match(after[0]) and ASCII_END.search(piece):
                piece += " "
        out += piece
    return out


def t(key: str, /, **fields) -> str:
    """The message `key` in the current language, with `fields` filled in."""
    return fill(MESSAGES[key][_current], _current, **fields)


def text(key: str, lang: str, /, **fields) -> str:
    """The message `key` in `lang`, whatever the current language (the build and the grader use this).
    key and lang are positional-only, so a message may have fields named key or lang."""
    return fill(MESSAGES[key][lang], lang, **fields)


def matches(key: str, message: str) -> bool:
    """Whether message begins with the text of key, in either language and with any fields: the grader reads an
    error the learner's kernel raised in its own language (a course error's text, hints after it)."""
    for lang in LANGUAGES:
        parts = re.split(r"\{[^{}]*\}", MESSAGES[key][lang])
        if re.match("(.*?)".join(map(re.escape, parts)), message, re.S):
            return True
    return False
