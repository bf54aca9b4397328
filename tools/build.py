"""Build every notebook from the bilingual lesson sources in lessons/.

    python tools/build.py              # write into the repository
    python tools/build.py --out DIR    # write into DIR instead (tests compare it with the repository)
    python tools/build.py --assignments [ID …]  # release every assignment (or those named) into autograder/

For each lesson lessons/NN_name.md (MyST, read by jupytext), and each language:
  autograder/source/NN-name-LANG/NN_name.ipynb   nbgrader source: solutions and hidden tests
  notebooks/LANG/NN_name.ipynb                   learner release, made by nbgrader generate_assignment
  solutions/LANG/NN_name.ipynb                   complete notebook, hidden tests removed
lessons/00_home.md becomes notebooks/LANG/00_home.ipynb.

Source conventions (docs/authoring.md has the details):
  +++ {"lang": "ja"} / +++ {"lang": "ko"}  a prose cell, always a ja cell followed by its ko twin
  ```{code-cell} with :kind: setup | solution | tests, :id: and, for tests, :points:
  "__LANG__", "__OTHER_LANG__" and "__COURSE_PIP__" in code are filled in per notebook, and so is every
  course.t(<key>, ...) call and every comment written `# t(<key>)`: learners read the words, not a message key.

A generated notebook that a person has edited since the last build is moved to
workspace/rescued/ before it is replaced, so no build ever loses a learner's work.
"""
from __future__ import annotations

import argparse
import ast
import hashlib
import json
import re
import shutil
import tempfile
import time
from pathlib import Path

import jupytext
import nbformat
from attn_course.hand_policy import cell_key
from attn_course.messages import MESSAGES, text
from attn_grader.release import generate_releases
from grading_marks import check as check_grading_marks

ROOT = Path(__file__).resolve().parent.parent
LANGS = ("ja", "ko")
OTHER_LANG = {"ja": "ko", "ko": "ja"}  # a cell that shows both languages side by side
# Where Colab installs the helper package from. A fork changes this one line.
GITHUB_REPO = "attention-head-by-head/attention-course"
COURSE_PIP = f"attn-course @ git+https://github.com/{GITHUB_REPO}"
# Filled into prose: where the course's notebooks open in Colab, and what `git clone` takes.
COLAB = f"https://colab.research.google.com/github/{GITHUB_REPO}/blob/main"
REPO_URL = f"https://github.com/{GITHUB_REPO}.git"
MANIFEST = "tools/build-manifest.json"
KINDS = {"setup", "solution", "tests"}
EXERCISES = "attn_course/exercises.py"          # generated: each graded cell's points and by-hand rule
BY_HAND_FAMILIES = {"attention", "softmax", "concat"}   # what attn_course/by_hand.py can refuse
PROBE_CALL = re.compile(r"course\.probes\.(lesson\d+\.\w+)\(")
CHECK_CALL = re.compile(r"course\.checks\.(lesson\d+\.check_\w+)\(")
HIDDEN = re.compile(r"^[ \t]*### BEGIN HIDDEN TESTS\n.*?^[ \t]*### END HIDDEN TESTS\n?", re.S | re.M)
SOLUTION_MARKER = re.compile(r"^[ \t]*### (BEGIN|END) SOLUTION\n?", re.M)


class SourceError(Exception):
    pass


def read_lesson(path: Path):
    nb = jupytext.read(path)
    meta = nb.metadata.get("course", {})
    cells = nb.cells
    # Prose comes in ja/ko pairs, so a translator always sees both and nothing drifts.
    i = 0
    while i < len(cells):
        cell = cells[i]
        if cell.cell_type == "markdown":
            pair = cells[i:i + 2]
            langs = [c.metadata.get("lang") for c in pair if c.cell_type == "markdown"]
            if langs != ["ja", "ko"]:
                raise SourceError(f"{path.name}: prose cell {i} must be a ja cell followed by a ko cell, got {langs}: "
                                  f"{cell.source[:60]!r}")
            i += 2
            continue
        kind = cell.metadata.get("kind")
        if kind is not None and kind not in KINDS:
            raise SourceError(f"{path.name}: code cell {i} has unknown kind {kind!r}")
        if kind in ("solution", "tests") and "id" not in cell.metadata:
            raise SourceError(f"{path.name}: code cell {i} ({kind}) needs an :id:")
        if kind == "solution" and "### BEGIN SOLUTION" not in cell.source:
            raise SourceError(f"{path.name}: solution cell {cell.metadata['id']} has no ### BEGIN SOLUTION")
        if kind == "tests":
            if "points" not in cell.metadata:
                raise SourceError(f"{path.name}: tests cell {cell.metadata['id']} needs :points:")
            visible = HIDDEN.sub("", cell.source).strip()
            if not visible or "### BEGIN HIDDEN TESTS" not in cell.source:
                raise SourceError(f"{path.name}: tests cell {cell.metadata['id']} needs visible and hidden tests")
            # The probe runs first, so the grader gets every learner's results (and can name the
            # mistake) even when the visible check then fails the cell.
            if not cell.source.lstrip().startswith("### BEGIN HIDDEN TESTS"):
                raise SourceError(f"{path.name}: tests cell {cell.metadata['id']} must start with its hidden tests")
            by_hand_rule(path.name, cell)
        i += 1
    # `:grading: skip` only where nothing that still runs while grading depends on the cell (tools/grading_marks.py).
    code = [(c.metadata.get("kind", ""), c.source, c.metadata.get("grading")) for c in cells if c.cell_type == "code"]
    problems = check_grading_marks(code)
    if problems:
        raise SourceError(f"{path.name}: " + "; ".join(problems))
    return nb, meta


def by_hand_rule(name: str, cell) -> tuple[list, str | None]:
    """A tests cell's `:by_hand: attention[, softmax]` and `:library_path: keyword=value`, checked."""
    families = [f.strip() for f in str(cell.metadata.get("by_hand", "")).split(",") if f.strip()]
    unknown = set(families) - BY_HAND_FAMILIES
    if unknown:
        raise SourceError(f"{name}: tests cell {cell.metadata['id']}: unknown :by_hand: {sorted(unknown)}; "
                          f"known: {sorted(BY_HAND_FAMILIES)}")
    path = cell.metadata.get("library_path")
    if path is not None and (not families or not re.fullmatch(r"\w+=\S+", str(path))):
        raise SourceError(f"{name}: tests cell {cell.metadata['id']}: :library_path: needs :by_hand: and the form "
                          "keyword=value")
    return families, (str(path) if path is not None else None)


def exercises_module(lessons: list, course_cells: set = frozenset()) -> str:
    """attn_course/exercises.py: what every graded cell declares, for the checks, probes, scan and README."""
    table, seen = {}, {}
    for path, nb in lessons:
        cells = {}
        for cell in nb.cells:
            if cell.metadata.get("kind") != "tests":
                continue
            families, library_path = by_hand_rule(path.name, cell)
            entry = {"points": int(cell.metadata["points"]), "by_hand": families, "library_path": library_path,
                     "probes": PROBE_CALL.findall(cell.source), "checks": CHECK_CALL.findall(cell.source)}
            # A probe or check shared by several lessons (lesson 4's module in lessons 5-7) has one rule.
            for name in entry["probes"] + entry["checks"]:
                rule = (families, library_path)
                if seen.setdefault(name, rule) != rule:
                    raise SourceError(f"{path.name}: {name} is declared {rule} here and {seen[name]} elsewhere")
            cells[cell.metadata["id"]] = entry
        if cells:
            table[path.stem] = cells
    lines = ['"""Generated by tools/build.py from lessons/*.md: each graded cell\'s :points:, :by_hand:,',
             ':library_path:, and the probes and checks it calls; and the sizes each notebook binds at its top',
             'level (NOTEBOOK_SIZES). Do not edit; run `make build`."""', "",
             "EXERCISES = {"]
    for stem, cells in table.items():
        lines.append(f"    {stem!r}: {{")
        lines += [f"        {cid!r}: {entry!r}," for cid, entry in cells.items()]
        lines.append("    },")
    # The course's own code cells (as released and as graded), known by their text: in a learner's kernel the
    # by-hand policy reads them as the course's, as the grader does from the released notebook.
    keys = sorted(course_cells)
    lines += ["}", "", "COURSE_CELLS = frozenset({"] + [f"    {' '.join(repr(k) + ',' for k in keys[i:i + 6])}"
                                                       for i in range(0, len(keys), 6)] + ["})", ""]
    lines += ["# name -> the whole numbers a plain code cell binds to it at top level (`B, T, H, D = 2, 5, 3, 4`,",
              "# `for E, H in [(12, 3), ...]`): attn_course.sizes draws the checks' and probes' sizes outside them.",
              "NOTEBOOK_SIZES = {"]
    for path, nb in lessons:
        sizes = notebook_sizes(nb)
        if sizes:
            lines.append(f"    {path.stem!r}: {sizes!r},")
    return "\n".join(lines + ["}", ""])


def notebook_sizes(nb) -> dict:
    """name -> sorted whole numbers the notebook's plain code cells bind to it at top level: a demo's
    `D = 4` is a global the learner's function can read instead of computing its own size."""
    found: dict = {}
    latest: dict = {}   # each name's last whole number, in the cells' order: `E_ = H * D` is 12 after `H, D = 3, 4`

    def number(node):
        if isinstance(node, ast.Constant) and type(node.value) is int:
            return node.value
        if isinstance(node, ast.Name):
            return latest.get(node.id)
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult, ast.FloorDiv)):
            a, b = number(node.left), number(node.right)
            if a is None or b is None or (isinstance(node.op, ast.FloorDiv) and b == 0):
                return None
            return {ast.Add: a + b, ast.Sub: a - b, ast.Mult: a * b}.get(type(node.op)) if \
                not isinstance(node.op, ast.FloorDiv) else a // b
        return None

    def bind(target, value) -> None:
        if isinstance(target, ast.Name) and number(value) is not None:
            latest[target.id] = number(value)
            found.setdefault(target.id, set()).add(latest[target.id])
        elif isinstance(target, (ast.Tuple, ast.List)) and isinstance(value, (ast.Tuple, ast.List)) \
                and len(target.elts) == len(value.elts):
            for t_, v_ in zip(target.elts, value.elts):
                bind(t_, v_)
    for cell in nb.cells:
        if cell.cell_type != "code" or cell.metadata.get("kind") in ("solution", "tests"):
            continue
        try:
            tree = ast.parse(re.sub(r"(?m)^\s*[%!].*$", "", cell.source))
        except SyntaxError:
            continue
        for stmt in tree.body:
            if isinstance(stmt, ast.Assign):
                for target in stmt.targets:
                    bind(target, stmt.value)
            elif isinstance(stmt, ast.For) and isinstance(stmt.iter, (ast.List, ast.Tuple)):
                for item in stmt.iter.elts:
                    bind(stmt.target, item)
    return {name: sorted(values) for name, values in sorted(found.items())}


def by_hand_note(cell, lang: str, again: bool = False):
    """The prose line above a by-hand exercise: where the rule applies, in the learner's language. again: an
    earlier exercise of the notebook had the same rule in full (a learner found the paragraph, five times word
    for word in lesson 3, heavy to read), so this one says it is the same rule, in one line."""
    families, library_path = by_hand_rule("", cell)
    if "attention" in families:
        key = "by_hand_note_again" if again else "by_hand_note"
    else:
        key = "by_hand_note_concat_again" if again else "by_hand_note_concat"
    parts = [MESSAGES[key][lang]]
    if "softmax" in families:
        parts.append(MESSAGES["by_hand_note_softmax"][lang])
    if library_path:
        parts.append(text("by_hand_note_library_path", lang, path=library_path))
    return ("" if lang == "ja" else " ").join(parts)   # Japanese sentences follow one another without a space


MESSAGE_CALL = re.compile(r"""course\.t\(\s*(["'])(\w+)\1\s*(\)|,\s*)""")
COMMENT_CALL = re.compile(r"""#\s*t\(\s*(["'])(\w+)\1\s*\)""")


def fill_messages(source: str, lang: str) -> str:
    """course.t(<key>) becomes the text itself; course.t(<key>, n=3) becomes "text {n}".format(n=3);
    a comment `# t(<key>)` becomes the comment in the notebook's language."""
    def literal(match):
        text = MESSAGES[match.group(2)][lang]
        return repr(text) if match.group(3) == ")" else f"{text!r}.format("
    source = COMMENT_CALL.sub(lambda match: "# " + MESSAGES[match.group(2)][lang], source)
    return MESSAGE_CALL.sub(literal, source)


def nbgrader_meta(cell) -> dict | None:
    kind, cid = cell.metadata.get("kind"), cell.metadata.get("id")
    base = {"schema_version": 3}
    if kind == "solution":
        return {**base, "grade": False, "grade_id": cid, "locked": False, "solution": True}
    if kind == "tests":
        return {**base, "grade": True, "grade_id": cid, "locked": True, "points": cell.metadata["points"],
                "solution": False}
    if kind == "setup":
        # Locked, so autograding restores it: every later cell relies on what it imports.
        return {**base, "grade": False, "grade_id": "setup", "locked": True, "solution": False}
    return None


def language_notebook(nb, lang: str, stem: str):
    """The nbgrader source notebook for one language."""
    out = nbformat.v4.new_notebook()
    out.metadata = {
        "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
        "language_info": {"name": "python"},
        "course": {"lang": lang},
    }
    tests = {c.metadata.get("id"): c for c in nb.cells if c.metadata.get("kind") == "tests"}
    told = set()   # the rules already stated in full in this notebook
    for index, cell in enumerate(nb.cells):
        rule = tests.get(f"{cell.metadata.get('id')}_tests") if cell.metadata.get("kind") == "solution" else None
        if rule is not None and rule.metadata.get("by_hand"):
            kind = "attention" if "attention" in rule.metadata["by_hand"] else "concat"
            note = nbformat.v4.new_markdown_cell(by_hand_note(rule, lang, again=kind in told))
            told.add(kind)
            note.id = f"{stem}-{index:03d}-by-hand"
            out.cells.append(note)
        if cell.cell_type == "markdown":
            if cell.metadata["lang"] == lang:
                new = nbformat.v4.new_markdown_cell(cell.source.replace("__COLAB__", COLAB).replace("__REPO__", REPO_URL))
            else:
                continue
        else:
            source = cell.source.replace("__OTHER_LANG__", OTHER_LANG[lang]).replace("__LANG__", lang)
            source = fill_messages(source.replace("__COURSE_PIP__", COURSE_PIP), lang)
            if "course.t(" in source:
                raise SourceError(f"{stem}: code cell {index} calls course.t with a key the build cannot read; "
                                  "write each key as a string literal in the call")
            new = nbformat.v4.new_code_cell(source)
            if cell.metadata.get("grading"):  # read by the grader from autograder/source (SkipDemoCells)
                new.metadata["attn_course"] = {"grading": cell.metadata["grading"]}
            meta = nbgrader_meta(cell)
            if meta:
                new.metadata["nbgrader"] = meta
                if meta["locked"]:
                    new.metadata.update({"deletable": False, "editable": False})
        # Stable ids keep rebuilds byte-identical.
        new.id = f"{stem}-{index:03d}"
        out.cells.append(new)
    return out


def solution_notebook(source_nb):
    nb = nbformat.from_dict(json.loads(json.dumps(source_nb)))
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.source = SOLUTION_MARKER.sub("", HIDDEN.sub("", cell.source)).rstrip("\n")
            cell.metadata.pop("nbgrader", None)
            cell.metadata.pop("editable", None)
            cell.metadata.pop("deletable", None)
    return nb


def write_nb(nb, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.validate(nb)
    path.write_text(nbformat.writes(nb) + "\n", encoding="utf-8")


def build(out: Path) -> list[Path]:
    """Write every generated file under `out`; return their paths."""
    course_root = out / "autograder"
    if out != ROOT:
        course_root.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / "autograder" / "nbgrader_config.py", course_root / "nbgrader_config.py")
    written, read, released, course_cells = [], [], [], set()
    for path in sorted((ROOT / "lessons").glob("[0-9][0-9]_*.md")):
        nb, meta = read_lesson(path)
        read.append((path, nb))
        stem = path.stem
        for lang in LANGS:
            lang_nb = language_notebook(nb, lang, stem)
            course_cells |= own_cells(lang_nb)
            if not meta.get("assignment"):
                target = out / "notebooks" / lang / f"{stem}.ipynb"
                write_nb(lang_nb, target)
                written.append(target)
                continue
            assignment = f"{meta['assignment']}-{lang}"
            source = course_root / "source" / assignment / f"{stem}.ipynb"
            write_nb(lang_nb, source)
            released.append((assignment, stem, lang))
            solution = out / "solutions" / lang / f"{stem}.ipynb"
            write_nb(solution_notebook(lang_nb), solution)
            written += [source, solution]
    # The learner's notebook is nbgrader's release of the source, stubs in the learner's language.
    generate_releases(course_root, [assignment for assignment, _, _ in released])
    for assignment, stem, lang in released:
        release = course_root / "release" / assignment / f"{stem}.ipynb"
        learner = out / "notebooks" / lang / f"{stem}.ipynb"
        learner.parent.mkdir(parents=True, exist_ok=True)
        learner.write_text(release.read_text(encoding="utf-8"), encoding="utf-8")
        course_cells |= own_cells(nbformat.read(learner, 4))
        written.append(learner)
    exercises = out / EXERCISES
    exercises.parent.mkdir(parents=True, exist_ok=True)
    exercises.write_text(exercises_module(read, course_cells), encoding="utf-8")
    return written + [exercises]


def own_cells(nb) -> set:
    """The keys (hand_policy.cell_key) of a notebook's code cells that are the course's, not a solution."""
    return {cell_key(c.source) for c in nb.cells if c.cell_type == "code"
            and not c.metadata.get("nbgrader", {}).get("solution") and c.source.strip()}


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def rescue_edited(manifest: dict) -> None:
    """Move aside any generated notebook whose bytes differ from what the last build wrote."""
    for rel, sha in manifest.items():
        path = ROOT / rel
        if path.exists() and digest(path) != sha:
            target = ROOT / "workspace" / "rescued" / time.strftime("%Y%m%d-%H%M%S") / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, target)
            print(f"edited by hand, kept a copy: {rel} -> {target.relative_to(ROOT)}")


def release_assignments(names: list[str]) -> None:
    """nbgrader generate_assignment for each assignment named (all when none is), as `make assignments` does."""
    sources = sorted(p.name for p in (ROOT / "autograder" / "source").iterdir() if p.is_dir())
    chosen = [a for a in sources if not names or a in names or a.rsplit("-", 1)[0] in names]
    unknown = [n for n in names if not any(a == n or a.rsplit("-", 1)[0] == n for a in sources)]
    if unknown:
        raise SystemExit(f"no assignment {', '.join(unknown)}; there are: {', '.join(sources)}")
    generate_releases(ROOT / "autograder", chosen)
    for assignment in chosen:
        print(f"released {assignment}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, help="write here instead of the repository")
    parser.add_argument("--assignments", nargs="*", metavar="ASSIGNMENT",
                        help="run generate_assignment in autograder/ (fills its gradebook and release/): every "
                             "assignment, or those named (03-masks-ja; 03-masks for both languages)")
    args = parser.parse_args()
    if args.assignments is not None:
        release_assignments(args.assignments)
        return
    if args.out:
        out = args.out.resolve()
        build(out)
        return
    manifest_path = ROOT / MANIFEST
    manifest = json.loads(manifest_path.read_text()) if manifest_path.exists() else {}
    rescue_edited(manifest)
    with tempfile.TemporaryDirectory() as tmp:
        # Build aside, then copy in: a failed build leaves the repository as it was.
        files = build(Path(tmp))
        new_manifest = {}
        for path in files:
            rel = path.relative_to(tmp)
            (ROOT / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(path, ROOT / rel)
            new_manifest[str(rel)] = digest(path)
    manifest_path.write_text(json.dumps(dict(sorted(new_manifest.items())), indent=1) + "\n")
    print(f"built {len(files)} notebooks")


if __name__ == "__main__":
    main()
