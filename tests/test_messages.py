"""Message keys, checked the way a message extractor would: every key used is defined in both
languages with the same fields, and no defined key goes unused."""
import re
import string

import pytest
from attn_course.messages import MESSAGES as COURSE
from attn_course.messages import MODULES
from attn_grader.messages import MESSAGES as GRADER
from conftest import ROOT

SOURCES = (list((ROOT / "attn_course").rglob("*.py")) + list((ROOT / "grader" / "attn_grader").rglob("*.py"))
           + list((ROOT / "autograder" / "reference").glob("*.py")) + list((ROOT / "lessons").glob("*.md"))
           + list((ROOT / "tools").glob("*.py")))
# Where the messages are defined (not used): messages/common.py, messages/lessonN.py, the grader's messages.py.
MESSAGE_FILES = {p for p in SOURCES if (p.parent.name == "messages" and p.name != "__init__.py")
                 or (p.name == "messages.py" and p.parent.name == "attn_grader")}
# A key appears in code as a call's first argument, or as the key of a bug variant.
USE = re.compile(r"""(?:\b(?:t|text|Mismatch)\(\s*|\(\s*|[{,]\s*)["']([a-z][a-z0-9_]*)["']""")


def _code() -> str:
    return "\n".join(p.read_text(encoding="utf-8") for p in SOURCES if p not in MESSAGE_FILES)


def test_no_key_is_defined_twice():
    assert not (COURSE.keys() & GRADER.keys())
    seen = {}
    for name, module in MODULES.items():
        for key in module.MESSAGES:
            assert key not in seen, (key, seen.get(key), name)
            seen[key] = name


@pytest.mark.parametrize("messages", [COURSE, GRADER], ids=["course", "grader"])
def test_every_message_exists_in_both_languages_with_the_same_fields(messages):
    fields = lambda s: sorted(f for _, f, _, _ in string.Formatter().parse(s) if f)  # noqa: E731
    for key, texts in messages.items():
        # English too where the instructor reads it (ClassReport.language: tests/test_instructor_language.py).
        assert set(texts) in ({"ja", "ko"}, {"ja", "ko", "en"}), key
        assert all(t.strip() for t in texts.values()), key
        assert all(fields(t) == fields(texts["ja"]) for t in texts.values()), key


def test_every_key_used_is_defined():
    defined = COURSE.keys() | GRADER.keys()
    code = _code()
    calls = re.findall(r"""\b(?:t|text|Mismatch)\(\s*["']([a-z][a-z0-9_]*)["']""", code)
    calls += re.findall(r"""course\.t\(\s*["']([a-z][a-z0-9_]*)["']""", code)
    missing = sorted(set(calls) - defined)
    assert not missing, missing


def test_no_key_goes_unused():
    code = _code()
    unused = sorted(k for k in COURSE.keys() | GRADER.keys() if not re.search(rf"""["']{k}["']""", code))
    assert not unused, unused


@pytest.mark.parametrize("lang", ["ja", "ko"])
def test_a_field_may_be_named_key_or_lang(lang):
    """The grader's "results_unreadable" names the missing value in a field called key: text() took it for its
    own first argument and crashed while grading (make mutants, lesson 7)."""
    from attn_course.messages import text as course_text
    from attn_grader.messages import text
    assert "ex7" in text("why_missing_value", lang, key="ex7")
    assert "ex7" in text("why_not_decodable", lang, key="ex7")
    assert course_text("bad_language", lang, lang="xx")


@pytest.mark.parametrize("value, particles", [
    ("D = 4, H = 2", "를가로는와"), ("split_heads", "를가로는와"), ("W_q", "를가로는와"), ("param", "을이으로은과"),
    ("cell", "을이로은과"), ("(2, 3)", "을이으로은과"), ("사과", "를가로는와"), ("열", "을이로은과"), ("17", "을이로은과"),
])
def test_a_korean_particle_fits_the_value_before_it(value, particles):
    """「D = 4, H = 2을(를)」 reads as machine-made: the particle after a field is chosen for the value it holds."""
    from attn_course.messages import fill
    got = fill("{v}을(를)|{v}이(가)|{v}(으)로|{v}은(는)|{v}와(과)", "ko", v=value).replace(value, "").replace("|", "")
    assert got == particles


@pytest.mark.parametrize("messages", [COURSE, GRADER], ids=["course", "grader"])
def test_a_korean_fallback_particle_follows_a_field(messages):
    """fill() resolves 「을(를)」 only right after a field: anywhere else it would reach the learner as written."""
    from attn_course.messages import PARTICLES
    for key, texts in messages.items():
        for both in PARTICLES:
            assert not re.search(r"(?<![}])" + re.escape(both), texts.get("ko", "")), (key, both)
