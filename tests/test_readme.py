"""README's lesson and grade tables are generated from the sources (tools/readme.py): they cannot drift."""
import readme
from conftest import ROOT


def test_readme_tables_match_the_sources():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "<!-- generated: lessons -->" in text and "<!-- generated: grades -->" in text
    assert readme.render(text) == text, "README.md is out of date: run `make readme`"


def test_the_instructor_part_starts_with_a_quick_start_that_lists_every_assignment_id():
    """Issue 42: lesson 8's assignment id had to be guessed from eight steps in 1,276 lines."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    part = text[text.index("## For instructors"):]
    quick = part[part.index("### Quick start"):part.index("### A term, step by step")]
    assert part.index("### Quick start") < part.index("### A term, step by step")
    ids = sorted(p.name for p in (ROOT / "autograder" / "source").iterdir() if p.is_dir())
    assert len(ids) == 16 and all(f"`{i}`" in quick for i in ids), [i for i in ids if f"`{i}`" not in quick]
    for command in ("make assignments", "nbgrader db student import", "nbgrader db assignment add", "make autograde",
                    "make export LMS=canvas", "LMS=moodle", "flags.csv"):
        assert command in quick, command
    assert len(quick.splitlines()) < 70  # short: the details stay in the steps below
