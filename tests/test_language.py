"""One glossary per language, used everywhere a learner reads."""
import functools
import re

import jupytext
import pytest

from attn_course.messages import MESSAGES
from attn_grader.messages import MESSAGES as GRADER_MESSAGES
from conftest import ROOT

LESSONS = sorted((ROOT / "lessons").glob("[0-9][0-9]_*.md"))
# A synonym that learners will meet elsewhere, given once at the term's first use: 用語<!-- synonym -->（別名）<!-- /synonym -->
SYNONYM = re.compile(r"<!-- synonym -->(.*?)<!-- /synonym -->", re.S)
OTHER_LANGUAGE = re.compile(r"<!-- other-language -->.*?<!-- /other-language -->", re.S)
HIRAGANA_KATAKANA = re.compile(r"[\u3040-\u30ff]")
HANGUL = re.compile(r"[\u1100-\u11ff\u3130-\u318f\uac00-\ud7af]")
PARAGRAPH_LIMIT = {"ja": 320, "ko": 400}  # characters, as written in the source


def glossary():
    rows = []
    for line in (ROOT / "lessons" / "GLOSSARY.md").read_text(encoding="utf-8").splitlines():
        if not line.startswith("|"):
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 5 and cells[0] not in ("concept", "---"):
            rows.append(cells)
    return rows


@functools.cache
def prose(lang):
    """(lesson file name, cell source) for every prose cell of one language, lessons in order."""
    out = []
    for path in LESSONS:
        nb = jupytext.read(path)
        out += [(path.name, c.source) for c in nb.cells if c.metadata.get("lang") == lang]
    return tuple(out)


def texts(lang):
    """Every learner-visible text of one language: lesson prose and messages."""
    messages = {**MESSAGES, **GRADER_MESSAGES}
    return list(prose(lang)) + [(f"messages[{key}]", m[lang]) for key, m in messages.items()]


def banned_words(lang):
    """{banned variant: (concept, preferred term)} for one language."""
    column = {"ja": 1, "ko": 2}[lang]
    return {v.strip(): (row[0], row[column]) for row in glossary()
            for v in row[column + 2].split(";") if v.strip()}


def preferred_terms(lang):
    column = {"ja": 1, "ko": 2}[lang]
    return [term.strip() for row in glossary() for term in row[column].split(" / ") if term.strip()]


def without_allowed(text, word, lang):
    """text with the allowed uses of a banned word taken out: given as a synonym, or inside a preferred term."""
    text = SYNONYM.sub("", text)
    for term in preferred_terms(lang):
        if word in term:
            text = text.replace(term, "")
    return text


def test_glossary_is_well_formed():
    rows = glossary()
    assert len(rows) >= 25
    assert all(row[1] and row[2] for row in rows)
    concepts = [row[0] for row in rows]
    assert len(concepts) == len(set(concepts)), "a concept has two rows"


@pytest.mark.parametrize("lang", ["ja", "ko"])
def test_no_variant_the_glossary_rules_out(lang):
    banned = banned_words(lang)
    found = [(where, word) for where, text in texts(lang) for word in banned
             if word in without_allowed(text, word, lang)]
    assert not found, found


@pytest.mark.parametrize("lang", ["ja", "ko"])
def test_synonyms_are_given_once_in_parentheses_at_first_use(lang):
    banned = banned_words(lang)
    opening, closing = ("（", "）") if lang == "ja" else ("(", ")")
    seen = {}
    for path in LESSONS:
        cells = [source for name, source in prose(lang) if name == path.name]
        for index, source in enumerate(cells):
            for match in SYNONYM.finditer(source):
                span = match.group(1)
                words = [w for w in banned if w in span]
                where = f"{path.name}: {span!r}"
                assert words, f"{where}: a synonym marker around no variant from the glossary's avoid column"
                assert span.startswith(opening) and span.endswith(closing), \
                    f"{where}: a synonym is given in parentheses, {opening}…{closing}"
                before = source[:match.start()].rstrip("*_")
                for word in words:
                    concept, term = banned[word]
                    assert before.endswith(term), f"{where}: {word} must follow the course's term {term}"
                    assert word not in seen, f"{where}: {word} was already given as a synonym in {seen[word]}"
                    seen[word] = path.name
                    # At the term's first use in this lesson (headings aside).
                    earlier = "\n".join(cells[:index]) + "\n" + source[:match.start()].rstrip("*_")[:-len(term)]
                    earlier = "\n".join(line for line in SYNONYM.sub("", earlier).splitlines()
                                        if not line.lstrip().startswith("#"))
                    assert term not in earlier, f"{where}: give the synonym at the first use of {term} in the lesson"


@pytest.mark.parametrize("lang", ["ja", "ko"])
def test_core_terms_are_used(lang):
    column = {"ja": 1, "ko": 2}[lang]
    text = "\n".join(t for _, t in texts(lang))
    for term in ("attention", "query", "weight (attention weights)", "softmax", "output projection"):
        word = next(row[column] for row in glossary() if row[0] == term)
        assert word in text, (term, word)


@pytest.mark.parametrize("lang", ["ja", "ko"])
def test_prose_and_messages_are_in_their_own_language(lang):
    """The build test checks the generated notebooks; this checks the sources and the messages."""
    foreign = HANGUL if lang == "ja" else HIRAGANA_KATAKANA
    found = [(where, text[:60]) for where, text in texts(lang) if foreign.search(OTHER_LANGUAGE.sub("", text))]
    assert not found, found


def paragraphs(markdown):
    """Prose paragraphs and list items of one cell; headings, tables, code and display maths left out."""
    markdown = re.sub(r"```.*?```", "", markdown, flags=re.S)
    markdown = re.sub(r"\$\$.*?\$\$", "", markdown, flags=re.S)
    for block in re.split(r"\n\s*\n", markdown):
        lines = [line.strip() for line in block.splitlines() if line.strip() and not line.lstrip().startswith("#")]
        if not lines or lines[0].startswith("|"):
            continue
        item = []
        for line in lines:
            if re.match(r"([-*]|\d+\.)\s", line) and item:
                yield " ".join(item)
                item = []
            item.append(line)
        yield " ".join(item)


@pytest.mark.parametrize("lang", ["ja", "ko"])
def test_no_paragraph_is_too_long(lang):
    limit = PARAGRAPH_LIMIT[lang]
    long = [(where, len(p), p[:40]) for where, text in prose(lang) for p in paragraphs(text) if len(p) > limit]
    assert not long, f"split these paragraphs (longer than {limit} characters): {long}"


# An English -er/-or/-ar ending written as katakana: ダ, タ, ラ, ... followed by the long vowel.
ER_ENDINGS = tuple("ダタラザサナマバパヤカガハワ") + ("ファ",)
SMALL_KANA = set("ァィゥェォャュョヮ")


def morae(word):
    return sum(1 for ch in word if ch not in SMALL_KANA)


def test_katakana_long_vowel_follows_the_glossary():
    """Words of three morae or more drop the final ー of -er, -or, -ar (パラメータ, デコーダ); エラー keeps it."""
    found = []
    for where, text in texts("ja"):
        for word in re.findall(r"[\u30a1-\u30faー]+", text):
            base = word[:-1]
            if word.endswith("ー") and base.endswith(ER_ENDINGS) and morae(base) >= 3:
                found.append((where, word))
    assert not found, found


@pytest.mark.parametrize("lang", ["ja", "ko"])
def test_bold_and_italics_render(lang):
    """CommonMark closes ** only where the run is right-flanking: `**$d_k$**가` stays literal in Korean and Japanese.
    JupyterLab takes the maths out before rendering, so inline maths is replaced the same way here."""
    from markdown_it import MarkdownIt

    md = MarkdownIt("commonmark").enable("table")
    found = []
    for where, text in prose(lang):
        text = re.sub(r"\$\$.*?\$\$", "@@0@@", text, flags=re.S)
        text = re.sub(r"\$[^$\n]+\$", "@@1@@", text)
        html = re.sub(r"<code>.*?</code>", "", md.render(text), flags=re.S)
        found += [(where, m.group(0)) for m in re.finditer(r".{0,20}\*\*.{0,20}", html)]
    assert not found, found


def test_paragraph_splitter_sees_paragraphs_and_list_items():
    cell = "# 見出し\n\n一つ目の段落。\n続き。\n\n- 項目 1\n- 項目 2\n\n| a | b |\n|---|---|\n\n```python\nx = 1\n```"
    assert list(paragraphs(cell)) == ["一つ目の段落。 続き。", "- 項目 1", "- 項目 2"]


# Japanese typography (lessons/GLOSSARY.md, "Japanese spacing" and "Nakaguro"), measured on every text a Japanese
# learner reads: prose, messages, widget and figure labels.
JAPANESE = r"[\u3040-\u309f\u30a0-\u30fa\u30fc-\u30ff\u4e00-\u9fff]"  # kana and kanji; not ・, not （）「」
FIELD = re.compile(r"\{[A-Za-z_0-9.\[\]]*(![rsa])?(:[^{}]*)?\}")


def japanese_typography_view(text):
    """text as the spacing rule reads it: maths and code blocks out, a code span's inside and a message's {field}
    replaced (the field's spacing is fill()'s: the template cannot know whether it holds ASCII)."""
    text = re.sub(r"```.*?```", "", text, flags=re.S)
    text = re.sub(r"\$\$.*?\$\$", "", text, flags=re.S)
    text = re.sub(r"\$[^$\n]+\$", "", text)
    text = re.sub(r"`[^`\n]+`", "`x`", text)
    return FIELD.sub("\0", text)


def test_ascii_and_japanese_are_spaced():
    """「split_heads の形状」, 「`mask` を」, 「Q と K」: a space between ASCII text and Japanese; counters stay on
    their digits (「2つ」), ・ and full-width brackets take no space."""
    touching = re.compile(rf"[A-Za-z_`)\]]{JAPANESE}|{JAPANESE}[A-Za-z_`(\[]")
    found = [(where, view[max(0, m.start() - 15):m.end() + 5]) for where, text in texts("ja")
             for view in [japanese_typography_view(text)] for m in touching.finditer(view)]
    assert not found, found


def test_a_field_that_holds_ascii_is_spaced_from_japanese():
    from attn_course.messages import fill, text

    assert fill("{what}の形状", "ja", what="split_heads") == "split_heads の形状"
    assert fill("{what}の形状", "ja", what="重み") == "重みの形状"
    assert fill("{where}の {line} 行目", "ja", where="<cell>", line=3) == "<cell>の 3 行目"
    assert fill("形状は{shape}です", "ja", shape=(2, 3)) == "形状は (2, 3) です"
    assert fill("{n}個、{err:.2f}", "ja", n=3, err=0.5) == "3個、0.50"
    assert fill("{what}의 모양", "ko", what="split_heads") == "split_heads의 모양"
    message = text("wrong_axis", "ja", what="split_heads", want=(2, 4, 3, 8), layout="(B, H, T, D)",
                   got=(2, 3, 4, 8), axis=1, axis_name="H", want_n=4, got_n=3)
    assert message.startswith("split_heads の形状が違います。")


def enumerations_of_terms(text):
    """Runs of two or more glossary terms joined by 、 that name one thing: inside （…）, before の, など or や, or
    three terms or more anywhere. Table rows (a lesson's topics) are lists of phrases and keep 、."""
    terms = sorted({re.sub(r"（.*?）", "", term).strip() for term in preferred_terms("ja")}, key=len, reverse=True)
    term = "(?:" + "|".join(map(re.escape, terms)) + ")"
    # A term that touches katakana or kanji, or follows Japanese and a space, is part of a longer phrase.
    word = r"[\u30a0-\u30fa\u30fc-\u30ff\u4e00-\u9fff]"
    run = re.compile(rf"(?<!{word})(?<!{JAPANESE} ){term}(?:、{term})+(?!{word})")
    for line in text.splitlines():
        if line.lstrip().startswith("|"):
            continue
        for m in run.finditer(line):
            before, after = line[m.start() - 1:m.start()], line[m.end():m.end() + 2]
            if m.group(0).count("、") >= 2 or before == "（" or after[:1] in ("）", "の", "や") or after == "など":
                yield m.group(0)


def test_enumerations_of_terms_use_nakaguro():
    """GLOSSARY.md: ・ between the items of an enumeration (クエリ・キー・バリュー); 、 between clauses."""
    found = [(where, run) for where, text in texts("ja") for run in enumerations_of_terms(text)]
    assert not found, found
