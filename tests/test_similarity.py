"""Similarity hints in flags.csv (issue 42): a solution cell the same as the published solution's or as another
learner's, once names, spacing, comments and the order of a cell's functions are set aside; never a score."""
import ast
import shutil

import nbformat
from attn_grader.scan import read_submissions
from attn_grader.similarity import SHARED, SMALLEST, flags, normalized
from conftest import ROOT

ASSIGNMENT, NOTEBOOK = "02-multihead-ja", "02_multihead.ipynb"


def _rewritten(source: str) -> str:
    """The same code as another learner would retype it: every name of its own renamed, other spacing, comments,
    the cell's top-level statements in the other order."""
    tree = ast.parse(source)
    own = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    own |= {a.arg for a in ast.walk(tree) if isinstance(a, ast.arg)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id in own:
            node.id = node.id + "_mine"
        elif isinstance(node, ast.arg) and node.arg in own:
            node.arg = node.arg + "_mine"
    tree.body.reverse()
    lines = ast.unparse(tree).splitlines()
    return "\n\n".join(f"# {i}\n{line}  " for i, line in enumerate(lines) if line.strip() or True)


def _class(tmp_path, cells_of):
    """A course folder: the source notebook, and one submission per learner, its solution cells made by cells_of."""
    course = tmp_path / "course"
    (course / "source" / ASSIGNMENT).mkdir(parents=True)
    shutil.copy(ROOT / "autograder" / "source" / ASSIGNMENT / NOTEBOOK, course / "source" / ASSIGNMENT / NOTEBOOK)
    source = nbformat.read(course / "source" / ASSIGNMENT / NOTEBOOK, 4)
    for student, make in cells_of.items():
        nb = nbformat.read(course / "source" / ASSIGNMENT / NOTEBOOK, 4)
        for cell in nb.cells:
            if cell.metadata.get("nbgrader", {}).get("solution"):
                cell.source = make(cell.metadata["nbgrader"]["grade_id"], cell.source)
        folder = course / "submitted" / student / ASSIGNMENT
        folder.mkdir(parents=True)
        nbformat.write(nb, folder / NOTEBOOK)
    return course, source


def _solution(source: str) -> str:
    return "\n".join(line for line in source.splitlines() if "### " not in line)


def test_the_same_code_retyped_is_flagged_and_an_own_answer_is_not(tmp_path):
    stub = "# YOUR CODE HERE\nraise NotImplementedError()"
    course, _ = _class(tmp_path, {
        "aiko": lambda gid, src: _solution(src),                 # the published solution, pasted
        "bora": lambda gid, src: _rewritten(_solution(src)),     # the same, renamed, re-spaced, reordered
        "chen": lambda gid, src: stub,                           # nothing done
        # one cell of the solution's, the others her own: one shared cell is no flag
        "dana": lambda gid, src: _solution(src) if gid == "ex3_mha_module" else stub,
    })
    work = [(ASSIGNMENT, s) for s in ("aiko", "bora", "chen", "dana")]
    found = {(r[0], r[4]): r[6] for r in flags(course, read_submissions(course, work))}
    big = {"ex3_mha_module", "ex5_head_as_single", "ex6_to_torch_mha"}   # SMALLEST or more nodes of code
    assert set(found) == {("aiko", "same_as_solution"), ("bora", "same_as_solution"),
                          ("aiko", "same_as_learner"), ("bora", "same_as_learner")}, found
    assert set(found["aiko", "same_as_solution"].split(", ")) == big
    assert found["aiko", "same_as_learner"] == f"bora ({', '.join(sorted(big))})"
    assert found["bora", "same_as_learner"].startswith("aiko (")


def test_small_cells_and_different_code_are_not_compared():
    assert normalized("def f(x):\n    return x.transpose(1, 2)")[1] < SMALLEST and SHARED >= 2
    one = normalized("def f(a, b):\n    c = a @ b\n    return c.softmax(-1)")[0]
    assert one == normalized("def g(x, y):  # mine\n    z = x @ y\n\n    return z.softmax(-1)")[0]
    assert one != normalized("def f(a, b):\n    c = b @ a\n    return c.softmax(-1)")[0]   # another product
    assert one != normalized("def f(a, b):\n    c = a @ b\n    return c.softmax(-2)")[0]   # another constant


def test_flags_csv_reads_each_submitted_notebook_once(tmp_path, monkeypatch):
    """The by-hand scan and the similarity hints share one reading of every notebook handed in (scan.Submission)."""
    from collections import Counter

    from attn_grader.flags import write_flags
    course, _ = _class(tmp_path, {s: (lambda gid, src: _solution(src)) for s in ("aiko", "bora")})
    reads, read = Counter(), nbformat.read
    monkeypatch.setattr(nbformat, "read", lambda path, *a, **k: reads.update([str(path)]) or read(path, *a, **k))
    assert write_flags(course, [(ASSIGNMENT, "aiko"), (ASSIGNMENT, "bora")]) == 2   # both flagged, as above
    handed_in = {str(course / "submitted" / s / ASSIGNMENT / NOTEBOOK) for s in ("aiko", "bora")}
    assert {p: n for p, n in reads.items() if "submitted" in p} == dict.fromkeys(handed_in, 1)
    assert reads[str(course / "source" / ASSIGNMENT / NOTEBOOK)] == 1


def test_a_notebook_handed_on_is_flagged_however_short_its_answers(tmp_path):
    """Lesson 1's answers are short (no cell reaches SMALLEST nodes): two learners whose changed solution cells are
    the same letter for letter are flagged all the same; one who typed the same answers in her own way is not."""
    mine = {"ex1_split_heads": "def split_heads(x, n_head):  # mine\n    B, T, E = x.shape\n"
                               "    return x.view(B, T, n_head, E // n_head).transpose(1, 2)\n",
            "ex2_merge_heads": "def merge_heads(x):\n    B, H, T, D = x.shape\n"
                               "    return x.transpose(1, 2).reshape(B, T, H * D)  # back\n"}
    retyped = {gid: src.replace("  # mine", "").replace("  # back", "") for gid, src in mine.items()}
    release = ROOT / "notebooks" / "ja" / NOTEBOOK   # what learners get, as nbgrader releases it
    left = {c.metadata["nbgrader"]["grade_id"]: c.source for c in nbformat.read(release, 4).cells
            if c.metadata.get("nbgrader", {}).get("solution")}   # the other exercises, left as released
    course, _ = _class(tmp_path, {
        "eun": lambda gid, src: mine.get(gid, left[gid]),
        "fumi": lambda gid, src: mine.get(gid, left[gid]),
        "gyu": lambda gid, src: retyped.get(gid, left[gid]),
    })
    (course / "release" / ASSIGNMENT).mkdir(parents=True)
    shutil.copy(release, course / "release" / ASSIGNMENT / NOTEBOOK)
    assert all(normalized(code)[1] < SMALLEST for code in mine.values())
    work = [(ASSIGNMENT, s) for s in ("eun", "fumi", "gyu")]
    found = {(r[0], r[4]): r[6] for r in flags(course, read_submissions(course, work))}
    assert found == {("eun", "same_as_learner"): "fumi (ex1_split_heads, ex2_merge_heads)",
                     ("fumi", "same_as_learner"): "eun (ex1_split_heads, ex2_merge_heads)"}, found
