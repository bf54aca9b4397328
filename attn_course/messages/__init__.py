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


# Korean chooses a particle by whether the word before it ends in a final consonant (받침): 「D를」 but 「W_q을」 is
# wrong; a template cannot know which a field will hold, so it writes both (「{names}을(를)」) and fill() picks one
# from the filled-in value: a Hangul syllable by its 받침, a digit as it is read (일, 삼, 육, 칠, 팔, 영 end in one),
# a Latin word by its last letter as Korean readers say it (m, n, l, ng end in one; "mask" is 마스크, no 받침).
PARTICLES = {"을(를)": ("을", "를"), "이(가)": ("이", "가"), "은(는)": ("은", "는"), "와(과)": ("과", "와"),
             "(으)로": ("으로", "로"), "(이)라는": ("이라는", "라는")}
_DIGIT_BATCHIM = {"0": True, "1": True, "3": True, "6": True, "7": True, "8": True}
_RIEUL = set("178lL")   # 받침 ㄹ takes 로, not 으로


def _final_consonant(word: str) -> tuple[bool, bool]:
    """(whether word, read in Korean, ends in a 받침, whether that 받침 is ㄹ)."""
    core = re.sub(r"[^0-9A-Za-z\uac00-\ud7a3]+$", "", word)
    if not core:
        return False, False
    last = core[-1]
    if "\uac00" <= last <= "\ud7a3":
        jong = (ord(last) - 0xAC00) % 28
        return jong != 0, jong == 8
    if last.isdigit():
        return _DIGIT_BATCHIM.get(last, False), last in _RIEUL
    if core.lower().endswith("ng"):
        return True, False
    return last.lower() in "lmn", last in _RIEUL


def _particle(value: str, literal: str) -> str:
    for both, (after_consonant, after_vowel) in PARTICLES.items():
        if literal.startswith(both):
            batchim, rieul = _final_consonant(value)
            chosen = after_vowel if both == "(으)로" and rieul else (after_consonant if batchim else after_vowel)
            return chosen + literal[len(both):]
    return literal


def fill(template: str, lang: str, /, **fields) -> str:
    """template with fields filled in, as str.format does; in Japanese, a space where a field's ASCII text touches
    the template's Japanese; in Korean, the particle after a field chosen for its value (PARTICLES)."""
    if lang not in ("ja", "ko"):
        return template.format(**fields)
    parts = []  # literal text and filled-in fields in turn, each as (text, is_field)
    for literal, name, spec, conversion in _formatter.parse(template):
        if lang == "ko" and parts and parts[-1][1]:
            literal = _particle(parts[-1][0], literal)
        parts.append((literal, False))
        if name is not None:
            value = _formatter.convert_field(_formatter.get_field(name, (), fields)[0], conversion)
            parts.append((_formatter.format_field(value, _formatter.vformat(spec, (), fields)), True))
    if lang == "ko":
        return "".join(piece for piece, _ in parts)
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
