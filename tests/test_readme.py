"""README.md and docs/: the generated tables match the sources (tools/readme.py: they cannot drift), the README
starts with the two commands and gives an instructor a short quick start, and every link between them resolves."""
import re

import readme
from conftest import ROOT

DOCS = sorted((ROOT / "docs").glob("*.md"))


def test_generated_tables_match_the_sources():
    texts = {path: path.read_text(encoding="utf-8") for path in readme.FILES}
    assert "<!-- generated: lessons -->" in texts[readme.README]
    assert "<!-- generated: grades -->" in texts[readme.INSTRUCTORS]
    assert "<!-- generated: by_hand -->" in texts[readme.INSTRUCTORS]
    for path, text in texts.items():
        assert readme.render(text) == text, f"{path.relative_to(ROOT)} is out of date: run `make readme`"


def test_the_readme_starts_with_the_two_commands():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    first = text[text.index("```sh\n") + 6:]
    first = first[:first.index("```")]
    assert [line.split()[:2] for line in first.splitlines()] == [["make", "lab"], ["make", "test"]]
    assert text.index("```sh\n") < text.index("\n## ")


def test_the_instructor_part_starts_with_a_quick_start_that_lists_every_assignment_id():
    """Issue 42: lesson 8's assignment id had to be guessed from eight steps in 1,276 lines."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    part = text[text.index("## For instructors"):]
    quick = part[part.index("### Quick start"):]
    quick = quick[:quick.index("\n## ")]
    ids = sorted(p.name for p in (ROOT / "autograder" / "source").iterdir() if p.is_dir())
    assert len(ids) == 16 and all(f"`{i}`" in quick for i in ids), [i for i in ids if f"`{i}`" not in quick]
    for command in ("make assignments", "nbgrader db student import", "nbgrader db assignment add", "make autograde",
                    "make export LMS=canvas", "LMS=moodle", "flags.csv"):
        assert command in quick, command
    assert len(quick.splitlines()) < 70  # short: the details are in docs/instructors.md, its steps first
    assert "(docs/instructors.md)" in quick
    steps = (ROOT / "docs" / "instructors.md").read_text(encoding="utf-8")
    assert steps.index("## A term, step by step") < steps.index("\n## ", steps.index("## A term, step by step") + 1)


def _anchors(text: str) -> set:
    """The anchors GitHub gives a Markdown file's headings: lower case, punctuation but - and _ dropped."""
    text = re.sub(r"```.*?```", "", text, flags=re.S)
    return {re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")
            for heading in re.findall(r"^#+ (.+)$", text, flags=re.M)}


def test_every_link_between_the_readme_and_docs_resolves():
    """README links to docs/ for what it no longer holds; a moved section or a renamed heading must not strand a
    link (each file and each #anchor a link names exists)."""
    broken = []
    for page in [ROOT / "README.md", *DOCS]:
        for target in re.findall(r"\]\(([^)\s]+)\)", page.read_text(encoding="utf-8")):
            if re.match(r"[a-z]+:", target):
                continue
            path, _, anchor = target.partition("#")
            file = (page.parent / path).resolve() if path else page
            if not file.exists():
                broken.append((page.name, target))
            elif anchor and file.suffix == ".md" and anchor not in _anchors(file.read_text(encoding="utf-8")):
                broken.append((page.name, target))
    assert not broken, broken
    assert {p.name for p in DOCS} >= {"instructors.md", "authoring.md", "translating.md", "measurements.md"}
    readme_text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert all(f"(docs/{p.name}" in readme_text for p in DOCS), "every page of docs/ is linked from the README"
