"""Solution cells the same as the published solution or as another learner's: a look for the instructor, never a score.

Two cells are the same when their code is, once names, spacing, comments and docstrings are set aside, and the order
of the cell's top-level statements (its functions, its imports) too: every statement's code with its own names
numbered in the order they first appear (`attention(Q, K, V)` and `attend(q, k, v)` read alike; attributes such as
`torch.softmax` and every constant are kept), sorted. The order of lines inside one function is kept: two learners
who reach one answer independently often share a line, rarely a whole exercise in one order.

Only cells of some size are compared (SMALLEST nodes of code): `return x.transpose(1, 2)` is everybody's answer, and
the class's own share of an exercise is no news. A learner is flagged when at least SHARED such cells of one
notebook are the same as the published solution's (`same_as_solution`) or as one other learner's
(`same_as_learner`, naming up to NAMED others); cells left as released are never compared. Small cells count too
between two learners whose every solution cell they changed (SHARED or more) is the other's, letter for letter,
comments and spacing included: a notebook handed on, which in a lesson of short answers (lesson 1) no cell of
SMALLEST nodes would show.
"""
from __future__ import annotations

import ast
import builtins
from collections import defaultdict
from pathlib import Path

import nbformat
from attn_course.hand_policy import parse

from .scan import Submission, learner_cells

RULES = ("same_as_solution", "same_as_learner")
SMALLEST = 80   # AST nodes in a cell's code: below it (split_heads in two lines), honest answers coincide
SHARED = 2      # cells of one notebook that must be the same before a learner is flagged
NAMED = 3       # others named in a learner's row; the rest counted
_KEEP = set(dir(builtins))


def _numbered(statement: ast.AST) -> str:
    """The statement's code with its own names numbered by first appearance; builtins, attributes, constants kept."""
    names: dict[str, str] = {}

    def name(n: str) -> str:
        return n if n in _KEEP else names.setdefault(n, f"v{len(names)}")

    for node in ast.walk(statement):
        if isinstance(node, ast.Name):
            node.id = name(node.id)
        elif isinstance(node, ast.arg):
            node.arg = name(node.arg)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            node.name = name(node.name)
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(getattr(body[0], "value", None), ast.Constant) \
                    and isinstance(body[0].value.value, str) and len(body) > 1:
                node.body = body[1:]   # a docstring
        elif isinstance(node, ast.alias):
            node.asname = name(node.asname or node.name.split(".")[0])
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            node.names = [name(n) for n in node.names]
    return ast.dump(statement, annotate_fields=False, include_attributes=False)


def normalized(source: str) -> tuple[str, int] | None:
    """(the cell's code as compared, its size in AST nodes), or None when it is no Python. The source's
    `### BEGIN SOLUTION` markers are comments, which the tree leaves out."""
    tree = parse(source)
    if tree is None:
        return None
    size = sum(1 for _ in ast.walk(tree))
    return "\n".join(sorted(_numbered(s) for s in tree.body)), size


def _solution_cells(nb) -> dict[str, str]:
    """grade id -> source of every solution cell."""
    return {c.metadata["nbgrader"]["grade_id"]: c.source for c in nb.cells
            if c.cell_type == "code" and c.metadata.get("nbgrader", {}).get("solution")}


def flags(course: Path, handed_in: list[Submission]) -> list[tuple]:
    """flags.csv rows (student, assignment, notebook, cell, rule, line, text) for the class's submissions, as
    scan.read_submissions read them."""
    class_code = defaultdict(dict)   # (assignment, notebook) -> {student: {grade id: code}}
    verbatim = defaultdict(dict)     # (assignment, notebook) -> {student: ((grade id, source as typed), …)}
    solutions, released = {}, {}     # (assignment, notebook) -> {grade id: code}; the released cells' codes
    for s in handed_in:
        key = (s.assignment, s.name)
        if key not in solutions:
            solutions[key] = {gid: normalized(code) for gid, code in _solution_cells(s.source).items()}
            release = course / "release" / s.assignment / s.name
            released[key] = {normalized(code) for code in
                             (_solution_cells(nbformat.read(release, 4)).values() if release.exists() else ())}
        mine, typed = {}, []
        for _, grade_id, cell in learner_cells(s.notebook, s.source):
            code = normalized(cell.source)
            if grade_id in solutions[key] and code and code not in released[key]:
                typed.append((grade_id, cell.source))
                if code[1] >= SMALLEST:
                    mine[grade_id] = code[0]
        class_code[key][s.student] = mine
        verbatim[key][s.student] = tuple(sorted(typed))
    rows = []
    for (assignment, notebook), students in class_code.items():
        solution = {gid: code[0] for gid, code in solutions[assignment, notebook].items() if code}
        for student, mine in sorted(students.items()):
            same = sorted(g for g, code in mine.items() if solution.get(g) == code)
            if len(same) >= SHARED:
                rows.append((student, assignment, notebook, same[0], "same_as_solution", 0, ", ".join(same)))
            typed = verbatim[assignment, notebook][student]
            others = {other: sorted({g for g, code in mine.items() if theirs.get(g) == code}
                                    | ({g for g, _ in typed} if verbatim[assignment, notebook][other] == typed else set()))
                      for other, theirs in sorted(students.items()) if other != student}
            others = {other: cells for other, cells in others.items() if len(cells) >= SHARED}
            if others:   # one row a learner: the first few others by name, the cells each shares
                named = [f"{other} ({', '.join(cells)})" for other, cells in list(others.items())[:NAMED]]
                more = f" +{len(others) - NAMED}" if len(others) > NAMED else ""
                rows.append((student, assignment, notebook, min(min(c) for c in others.values()),
                             "same_as_learner", 0, "; ".join(named) + more))
    return rows
