"""Planted bugs that can share one graded submission (issue 28: the graded class was 214 notebooks).

Two bugs of a lesson share a submission when each cell whose outcome is asserted (a grade cell, or a
`:grading: skip` cell that tests/test_grading_marks.py runs) can depend on at most one of them. Then every such
cell runs as it would for that bug alone, and the submission's grade is each bug's own, side by side: a cell
fails when the bug it depends on fails it, and passes otherwise. Both bugs must edit different cells, and no cell
may be expected to fail for both (which one failed it would not show).

"Depends on" is read from the code: tools/grading_marks.depends_on follows the names a cell reads back to the
statements that bind them, and here also to the statements that may change the object in place on the way
(`train(model)`, `model.eval()`, `cache[0] = …`), since a later cell reads the changed object under the same
name. Global state (torch's random stream) is not a name: the checks and probes seed their own generators.
"""
from __future__ import annotations

import ast
from functools import cache

import nbformat
from attn_grader.cell_names import bound, parse, read_first, walk_module_level
from classroom import MARKERS
from conftest import ROOT, class_bugs, class_lessons
from grading_marks import MUTATING

# Read once: each call of conftest's parses every lesson source.
class_bugs, class_lessons = cache(class_bugs), cache(class_lessons)


def _changed(stmt, functions: set[str], methods: set[str]) -> set[str]:
    """Names whose objects a top-level statement may change without binding them: an argument of a function the
    notebook defines (`train_step(model, opt)`), the receiver of an in-place method (torch's trailing
    underscore, a module's own, or any method of a class the notebook defines), the root of an item or attribute
    assigned. Library calls other than in-place ones change no argument. Wide on purpose: a name wrongly taken
    as changed only makes two bugs share a submission less often."""
    names = set()
    for node in walk_module_level(stmt):
        if isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Name) and func.id in functions:
                for arg in [*node.args, *(k.value for k in node.keywords)]:
                    names |= _root(arg.value if isinstance(arg, ast.Starred) else arg)
            if isinstance(func, ast.Attribute) and (func.attr in MUTATING | methods or func.attr.endswith("_")):
                names |= _root(func.value)
        elif isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Delete)):
            for target in getattr(node, "targets", None) or [node.target]:
                if isinstance(target, (ast.Attribute, ast.Subscript)):
                    names |= _root(target)
    return names


def _root(node) -> set[str]:
    while isinstance(node, (ast.Attribute, ast.Subscript)):
        node = node.value
    return {node.id} if isinstance(node, ast.Name) else set()


@cache
def code_cells(stem: str) -> tuple:
    """The ja source's code cells: (grade_id or None, source without solution markers, marked to skip)."""
    assignment = class_lessons()[stem].assignment
    nb = nbformat.read(ROOT / "autograder" / "source" / f"{assignment}-ja" / f"{stem}.ipynb", 4)
    return tuple((c.metadata.get("nbgrader", {}).get("grade_id"), MARKERS.sub("", c.source),
                  c.metadata.get("attn_course", {}).get("grading") == "skip")
                 for c in nb.cells if c.cell_type == "code")


@cache
def reaches(stem: str) -> dict[int, frozenset[int]]:
    """code cell -> the code cells its outcome can depend on, itself included."""
    stmts = [(i, s) for i, (_, source, _) in enumerate(code_cells(stem)) for s in parse(source).body]
    binds = [bound(s) for _, s in stmts]
    functions = {s.name for _, s in stmts if isinstance(s, ast.FunctionDef)}
    methods = {f.name for _, s in stmts if isinstance(s, ast.ClassDef) for f in s.body
               if isinstance(f, ast.FunctionDef) and not f.name.startswith("__")}
    changes = [_changed(s, functions, methods) - b for (_, s), b in zip(stmts, binds)]
    reads = [read_first(s) | c for (_, s), c in zip(stmts, changes)]  # changing an object reads it first
    out = {}
    for cell in range(len(code_cells(stem))):
        todo = [p for p, (i, _) in enumerate(stmts) if i == cell]
        seen = set(todo)
        while todo:
            p = todo.pop()
            for name in reads[p]:
                for q in range(p - 1, -1, -1):  # every change since the last binding, and that binding
                    if name in changes[q] or name in binds[q]:
                        if q not in seen:
                            seen.add(q)
                            todo.append(q)
                        if name in binds[q]:
                            break
        out[cell] = frozenset({cell} | {stmts[p][0] for p in seen})
    return out


@cache
def bug_cells(stem: str) -> dict[str, int]:
    """planted bug -> the code cell it edits (its index among the lesson's code cells)."""
    cells = code_cells(stem)
    return {name: next(i for i, (gid, _, _) in enumerate(cells) if gid == bug.cell)
            for name, bug in class_bugs()[stem].items()}


@cache
def packs(stem: str) -> tuple[tuple[str, ...], ...]:
    """The lesson's planted bugs in groups that share a submission, each group in BUGS' order."""
    cells, bugs, at = code_cells(stem), class_bugs()[stem], bug_cells(stem)
    watched = [i for i, (gid, _, skip) in enumerate(cells) if skip or gid in class_lessons()[stem].points]
    groups: list[list[str]] = []
    for name, bug in bugs.items():
        for group in groups:
            if all(at[o] != at[name] and not set(bugs[o].fails) & set(bug.fails) and
                   not any({at[o], at[name]} <= reaches(stem)[w] for w in watched) for o in group):
                group.append(name)
                break
        else:
            groups.append([name])
    return tuple(map(tuple, groups))


def student(stem: str, bug: str) -> str:
    """The student id of the submission that carries the bug: the bug's name, or the first of its pack's with
    how many more it carries (a file name made of thirteen bug names would be too long)."""
    pack = next(p for p in packs(stem) if bug in p)
    return f"{pack[0]}+{len(pack) - 1}-ja" if len(pack) > 1 else f"{pack[0]}-ja"


def students(stem: str) -> dict[str, tuple[str, ...]]:
    """student id -> the planted bugs its submission carries."""
    return {student(stem, pack[0]): pack for pack in packs(stem)}


def edits(stem: str, pack) -> list[tuple[str, str, str]]:
    """What tools/classroom.submission plants for the pack: (cell, old, new) per bug."""
    bugs = class_bugs()[stem]
    return [(bugs[name].cell, bugs[name].old, bugs[name].new) for name in pack]


def expected(stem: str, pack) -> dict[str, float]:
    """The submission's score per grade cell: 0 where a bug of the pack is caught, full marks elsewhere."""
    fails = {cell for name in pack for cell in class_bugs()[stem][name].fails}
    return {k: 0.0 if k in fails else float(v) for k, v in class_lessons()[stem].points.items()}


if __name__ == "__main__":  # how far packing goes: python tests/bug_packs.py (PYTHONPATH=tools:tests)
    for stem, bugs in class_bugs().items():
        print(stem, len(bugs), "bugs ->", len(packs(stem)), "submissions")
