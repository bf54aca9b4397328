"""One glossary per language, used everywhere a learner reads."""
import re

import jupytext
import pytest

from attn_course.messages import MESSAGES
from attn_grader.messages import MESSAGES as GRADER_MESSAGES
from conftest import ROOT


def glossary():
    rows = []
    for line in (ROOT / "lessons" / "GLOSSARY.md").read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 5 and cells[0] not in ("concept", "---"):
            rows.append(cells)
    return rows


def texts(lang):
    """Every learner-visible text of one language: lesson prose and messages."""
    out = []
    for path in sorted((ROOT / "lessons").glob("[0-9][0-9]_*.md")):
        nb = jupytext.read(path)
        out += [(path.name, c.source) for c in nb.cells if c.metadata.get("lang") == lang]
    out += [(f"messages[{key}]", m[lang]) for key, m in {**MESSAGES, **GRADER_MESSAGES}.items()]
    return out


def test_glossary_is_well_formed():
    rows = glossary()
    assert len(rows) >= 25
    assert all(row[1] and row[2] for row in rows)


@pytest.mark.parametrize("lang,column", [("ja", 3), ("ko", 4)])
def test_no_variant_the_glossary_rules_out(lang, column):
    banned = {v.strip(): row[0] for row in glossary() for v in row[column].split(";") if v.strip()}
    found = [(where, word) for where, text in texts(lang) for word in banned if word in text]
    assert not found, found


@pytest.mark.parametrize("lang,column", [("ja", 1), ("ko", 2)])
def test_core_terms_are_used(lang, column):
    text = "\n".join(t for _, t in texts(lang))
    for term in ("attention", "query", "weight (attention weights)", "softmax", "output projection"):
        word = next(row[column] for row in glossary() if row[0] == term)
        assert word in text, (term, word)
