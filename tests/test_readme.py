"""README's lesson and grade tables are generated from the sources (tools/readme.py): they cannot drift."""
import readme
from conftest import ROOT


def test_readme_tables_match_the_sources():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "<!-- generated: lessons -->" in text and "<!-- generated: grades -->" in text
    assert readme.render(text) == text, "README.md is out of date: run `make readme`"
