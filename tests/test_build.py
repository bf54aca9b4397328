"""The single-source build: fresh, paired, and with nothing hidden in what learners get."""
import io
import json
import re
import tokenize

import nbformat
from attn_course.messages import text as course_text
import pytest

import build
from conftest import ROOT

# One `make test` worker runs these: one fresh build (conftest.py, "Scheduling").
pytestmark = pytest.mark.xdist_group("build")

LESSONS = sorted(p.stem for p in (ROOT / "lessons").glob("[0-9][0-9]_*.md"))
GRADED = [s for s in LESSONS if build.read_lesson(ROOT / "lessons" / f"{s}.md")[1].get("assignment")]
HIRAGANA_KATAKANA = re.compile(r"[\u3040-\u30ff]")
HANGUL = re.compile(r"[\u1100-\u11ff\u3130-\u318f\uac00-\ud7af]")
# Prose may quote the other language on purpose inside this marker.
OTHER_LANGUAGE = re.compile(r"<!-- other-language -->.*?<!-- /other-language -->", re.S)


def _nb(*parts):
    return nbformat.read(ROOT.joinpath(*parts), 4)


def _source_nb(stem, lang):
    meta = build.read_lesson(ROOT / "lessons" / f"{stem}.md")[1]
    return _nb("autograder", "source", f"{meta['assignment']}-{lang}", f"{stem}.ipynb")


@pytest.fixture(scope="module")
def fresh_build(tmp_path_factory):
    out = tmp_path_factory.mktemp("build")
    build.build(out)
    return out


def test_generated_files_are_up_to_date(fresh_build):
    generated = sorted(p.relative_to(fresh_build) for p in fresh_build.rglob("*.ipynb")
                       if "release" not in p.parts)
    assert generated, "the build produced nothing"
    stale = [str(rel) for rel in generated
             if not (ROOT / rel).exists() or (ROOT / rel).read_bytes() != (fresh_build / rel).read_bytes()]
    assert not stale, f"generated files differ from a fresh build; run `make build` and commit: {stale}"
    manifest = json.loads((ROOT / build.MANIFEST).read_text())
    assert sorted(manifest) == sorted([str(r) for r in generated] + [build.EXERCISES])
    # The lessons' declarations (points, by hand) as the checks, the probes and the grader read them.
    assert (ROOT / build.EXERCISES).read_text(encoding="utf-8") == (fresh_build / build.EXERCISES).read_text(
        encoding="utf-8"), "attn_course/exercises.py differs from the lesson sources; run `make build` and commit"


def test_build_rejects_an_unknown_by_hand_family(tmp_path):
    source = (ROOT / "lessons" / "01_attention.md").read_text(encoding="utf-8")
    path = tmp_path / "99_broken.md"
    path.write_text(source.replace(":by_hand: attention\n", ":by_hand: attenshun\n", 1), encoding="utf-8")
    with pytest.raises(build.SourceError, match="unknown :by_hand:"):
        build.read_lesson(path)


@pytest.mark.parametrize("lang", ["ja", "ko"])
def test_learners_are_told_where_the_by_hand_rule_applies(lang):
    # Every by-hand exercise has its note just above its solution cell, in the learner's language;
    # a module with a library path is told which path may call the library.
    # The rule is stated in full above a notebook's first exercise of each kind, and in one line after that.
    from attn_course.exercises import EXERCISES
    for stem, cells in EXERCISES.items():
        nb = _nb("notebooks", lang, f"{stem}.ipynb")
        told = set()
        for tests_id, cell in sorted(cells.items(), key=lambda item: _index(nb, item[0])):
            index = _index(nb, tests_id)
            above = nb.cells[index - 1].source
            kind = "attention" if "attention" in cell["by_hand"] else "concat" if cell["by_hand"] else None
            note = course_text("by_hand_note_again" if kind in told else "by_hand_note", lang)
            assert (note in above) == (kind == "attention"), (stem, tests_id)
            # A cache written in place (:by_hand: concat) is told that torch.cat is refused, not the attention.
            concat = course_text("by_hand_note_concat_again" if kind in told else "by_hand_note_concat", lang)
            assert (concat in above) == (kind == "concat"), (stem, tests_id)
            told.add(kind)
            if cell["library_path"]:
                assert cell["library_path"] in above, (stem, tests_id)
            if "softmax" in cell["by_hand"]:
                assert course_text("by_hand_note_softmax", lang) in above


def _index(nb, tests_id: str) -> int:
    return next(i for i, c in enumerate(nb.cells)
                if c.metadata.get("nbgrader", {}).get("grade_id") == tests_id.removesuffix("_tests"))


def test_build_rejects_a_prose_cell_without_its_twin(tmp_path):
    broken = (ROOT / "lessons" / "01_attention.md").read_text(encoding="utf-8")
    first_ko = broken.index('+++ {"lang": "ko"}')
    end = broken.index("+++", first_ko + 3)
    path = tmp_path / "99_broken.md"
    path.write_text(broken[:first_ko] + broken[end:], encoding="utf-8")
    with pytest.raises(build.SourceError, match="ja cell followed by a ko cell"):
        build.read_lesson(path)


def _strings_out(source: str) -> str:
    """The code with every string literal and comment replaced by a placeholder: ja and ko differ only there."""
    tokens = tokenize.generate_tokens(io.StringIO(source).readline)
    blank = {tokenize.STRING: "S", tokenize.COMMENT: "#"}
    return tokenize.untokenize((tok.type, blank.get(tok.type, tok.string)) for tok in tokens)


@pytest.mark.parametrize("stem", GRADED)
def test_ja_and_ko_have_identical_code_ids_and_points(stem):
    ja, ko = _source_nb(stem, "ja"), _source_nb(stem, "ko")

    def code(nb):
        return [(_strings_out(c.source), c.metadata.get("nbgrader")) for c in nb.cells if c.cell_type == "code"]

    assert code(ja) == code(ko)


@pytest.mark.parametrize("stem", LESSONS)
@pytest.mark.parametrize("lang", ["ja", "ko"])
def test_learners_read_words_not_message_keys(stem, lang):
    for folder in ("notebooks", "solutions"):
        path = ROOT / folder / lang / f"{stem}.ipynb"
        if path.exists():
            code = "\n".join(c.source for c in _nb(folder, lang, f"{stem}.ipynb").cells if c.cell_type == "code")
            assert "course.t(" not in code, path
            # "__LANG__", "__OTHER_LANG__", "__COURSE_PIP__", …: every placeholder is filled in.
            assert not re.search(r"__[A-Z][A-Z_]*__", code), (path, re.findall(r"__[A-Z][A-Z_]*__", code))


# Two English words in a comment: a sentence a learner would read in English. Shapes "(B, H, T, D)", symbols
# and code in a comment ("x[:, perm]", "E // H") are not words to translate; nor are nbgrader's markers.
ENGLISH_WORD = re.compile(r"(?<![\w.])[A-Za-z][a-z]{2,}(?![\w(.\[])")
NOT_PROSE = re.compile(r"BEGIN SOLUTION|END SOLUTION|noqa")
TRANSLATED = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff\uac00-\ud7af]")  # names like Llama sit in ja or ko text
CODE_WORDS = {"sin", "cos", "exp", "log", "max", "min", "sum", "cpu", "cuda", "meta"}


def english_comments(source: str) -> list[str]:
    """Comments and docstrings (a triple-quoted string is one in these cells) that read as English prose."""
    comments = [tok.string for tok in tokenize.generate_tokens(io.StringIO(source).readline)
                if tok.type == tokenize.COMMENT or (tok.type == tokenize.STRING and tok.string[:3] in ('"""', "'''"))]
    return [c for c in comments if not NOT_PROSE.search(c) and not TRANSLATED.search(c)
            and len([w for w in ENGLISH_WORD.findall(c) if w not in CODE_WORDS]) >= 2]


@pytest.mark.parametrize("stem", LESSONS)
@pytest.mark.parametrize("lang", ["ja", "ko"])
def test_learners_read_comments_in_their_language(stem, lang):
    for folder in ("notebooks", "solutions"):
        path = ROOT / folder / lang / f"{stem}.ipynb"
        found = [c for cell in nbformat.read(path, 4).cells if cell.cell_type == "code"
                 for c in english_comments(cell.source)] if path.exists() else []
        assert not found, (path, found)


def test_a_message_call_becomes_its_text():
    assert build.fill_messages('print(course.t("table_loss"))', "ja") == "print('損失')"
    assert build.fill_messages('y = f(x)  # t("table_loss")', "ko") == "y = f(x)  # 손실"
    filled = build.fill_messages('course.t("fig_head", h=2)', "ko")
    assert filled.endswith(".format(h=2)") and eval(filled) == course_text("fig_head", "ko", h=2)


@pytest.mark.parametrize("stem", LESSONS)
@pytest.mark.parametrize("lang", ["ja", "ko"])
def test_prose_is_in_its_own_language(stem, lang):
    nb = _nb("notebooks", lang, f"{stem}.ipynb")
    foreign = HANGUL if lang == "ja" else HIRAGANA_KATAKANA
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            text = OTHER_LANGUAGE.sub("", cell.source)
            assert not foreign.search(text), f"{lang} prose contains the other language: {cell.source[:80]!r}"


@pytest.mark.parametrize("stem", GRADED)
@pytest.mark.parametrize("lang", ["ja", "ko"])
def test_learner_notebook_has_no_solution_and_no_hidden_test(stem, lang):
    source, learner = _source_nb(stem, lang), _nb("notebooks", lang, f"{stem}.ipynb")
    solution_lines, given_lines = set(), set()
    for cell in source.cells:
        if cell.cell_type != "code":
            continue
        inside = "".join(re.findall(r"### BEGIN SOLUTION\n(.*?)### END SOLUTION", cell.source, re.S))
        outside = re.sub(r"### BEGIN SOLUTION\n.*?### END SOLUTION", "", cell.source, flags=re.S)
        solution_lines |= {line.strip() for line in inside.splitlines() if line.strip()}
        given_lines |= {line.strip() for line in outside.splitlines() if line.strip()}
    # A line the learner is also given elsewhere (say `with torch.no_grad():`) gives nothing away.
    solution_lines -= given_lines
    text = "\n".join(c.source for c in learner.cells)
    assert "BEGIN SOLUTION" not in text and "HIDDEN TESTS" not in text
    assert "reference(" not in text and "course.probes" not in text, "the learner notebook mentions a hidden test"
    leaked = [line for line in solution_lines if line in {l.strip() for l in text.splitlines()}]
    assert not leaked, f"solution lines in the learner notebook: {leaked}"
    code = "\n".join(c.source for c in learner.cells if c.cell_type == "code")
    assert code.count("raise NotImplementedError()") == sum(
        c.source.count("### BEGIN SOLUTION") for c in source.cells)


@pytest.mark.parametrize("stem", GRADED)
@pytest.mark.parametrize("lang", ["ja", "ko"])
def test_solution_is_complete_and_has_no_hidden_test(stem, lang):
    cells = _nb("solutions", lang, f"{stem}.ipynb").cells
    text = "\n".join(c.source for c in cells)
    assert "NotImplementedError" not in "\n".join(c.source for c in cells if c.cell_type == "code")
    assert "HIDDEN TESTS" not in text and "course.probes" not in text and "SOLUTION" not in text


@pytest.mark.parametrize("stem", GRADED)
def test_every_exercise_has_visible_and_hidden_tests(stem):
    nb = _source_nb(stem, "ja")
    solutions = [c.metadata["nbgrader"]["grade_id"] for c in nb.cells
                 if c.metadata.get("nbgrader", {}).get("solution")]
    tests = {c.metadata["nbgrader"]["grade_id"]: c.source for c in nb.cells
             if c.metadata.get("nbgrader", {}).get("grade")}
    assert len(solutions) >= 5
    for sid in solutions:
        source = tests[f"{sid}_tests"]
        visible = build.HIDDEN.sub("", source)
        assert re.search(r"course\.checks\.lesson\d\.check_", visible)
        assert "### BEGIN HIDDEN TESTS" in source and re.search(r"course\.probes\.lesson\d\.\w+\(", source)
        # Hidden part first: the probe sends results even when the visible check then fails.
        assert source.startswith("### BEGIN HIDDEN TESTS"), sid


def test_nothing_in_a_learner_file_points_at_the_reference():
    for path in list((ROOT / "notebooks").rglob("*.ipynb")) + list((ROOT / "solutions").rglob("*.ipynb")):
        assert "autograder/reference" not in path.read_text(encoding="utf-8")
    assert not list((ROOT / "attn_course").rglob("reference*")), "the reference must not ship in the helper package"


def test_edited_generated_notebook_is_rescued_before_a_build(tmp_path, monkeypatch):
    monkeypatch.setattr(build, "ROOT", tmp_path)
    target = tmp_path / "notebooks" / "ja" / "01_attention.ipynb"
    target.parent.mkdir(parents=True)
    target.write_text("what the build wrote")
    manifest = {"notebooks/ja/01_attention.ipynb": build.digest(target)}
    target.write_text("what the learner wrote")
    build.rescue_edited(manifest)
    rescued = list((tmp_path / "workspace" / "rescued").rglob("01_attention.ipynb"))
    assert [p.read_text() for p in rescued] == ["what the learner wrote"]
