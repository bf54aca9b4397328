"""`:grading: skip` on a lesson's code cell: what the build refuses to mark.

A cell marked `:grading: skip` only demonstrates (a training run for a plot, a timing table). The grader
does not run it (grader/attn_grader/preprocessors/skip_demo_cells.py), so nothing that runs after it may
depend on it. Read from the cells' code (Python's ast), a mark is refused when:

- a later cell that still runs reads a name the skipped cell binds (`accuracy`, `model`, a function),
  before some cell that runs binds it again;
- the skipped cell changes an object it did not make (`model.eval()`, `attn.c_proj.weight[0] = 0`,
  `nn.init.zeros_(attn.c_proj.bias)`), and a later cell that runs reads it: it would see that object in
  another state;
- it is a cell the grader must run (setup, solution, tests).

Global state the skipped cells touch (torch's random stream, its thread count) is not read here: the
course's checks and probes seed their own generators, and tests/test_grading_marks.py grades the solution
and every planted bug both ways and compares each verdict.
"""
from __future__ import annotations

import ast
import builtins

from attn_grader.cell_names import bound, parse, read_first, walk_module_level

SKIP = "skip"
MARKS = {SKIP}
# Calls on an object that change it in place: torch's trailing underscore, and modules' own.
MUTATING = {"eval", "train", "to", "cuda", "cpu", "double", "float", "half", "load_state_dict", "apply",
            "register_forward_hook", "register_forward_pre_hook", "register_buffer", "zero_grad", "step",
            "backward", "append", "extend", "update", "pop", "clear", "insert", "remove", "setdefault",
            "requires_grad_"}
# What the lessons import as modules: calling into them changes no object of the notebook's.
MODULES = {"torch", "F", "nn", "math", "np", "course", "plt", "random", "copy"}


def changed_outer(cell: ast.Module) -> set[str]:
    """Names of objects the cell may change in place although it did not make them."""
    mine = set().union(*(bound(s) for s in cell.body)) if cell.body else set()
    changed = set()
    for node in (n for stmt in cell.body for n in walk_module_level(stmt)):
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            for target in (node.targets if isinstance(node, ast.Assign) else [node.target]):
                if isinstance(target, (ast.Attribute, ast.Subscript)):
                    changed |= _root(target)
        elif isinstance(node, ast.Delete):
            for target in node.targets:
                changed |= _root(target)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            method, receiver = node.func.attr, _root(node.func.value)
            if receiver & MODULES:
                # torch.nn.init.normal_(w), torch.manual_seed(0): a module's in-place helper changes its
                # first argument; the module's own state (the random stream) is global, not a name.
                if method.endswith("_") and not method.startswith("_") and node.args:
                    changed |= _root(node.args[0])
            elif method in MUTATING or method.endswith("_") and not method.startswith("_"):
                changed |= receiver
    return changed - mine - set(dir(builtins))


def _root(node) -> set[str]:
    """The name an attribute or item chain starts from (`attn` in attn.c_proj.weight[0]); a call's result is
    a new object, so nothing."""
    while isinstance(node, (ast.Attribute, ast.Subscript)):
        node = node.value
    return {node.id} if isinstance(node, ast.Name) else set()


def check(cells: list[tuple[str, str, str | None]]) -> list[str]:
    """cells: (kind, source, mark) for every code cell in order; kind is "setup", "solution", "tests" or "".
    Returns what is wrong with the marks, one sentence each (empty when every mark is safe)."""
    problems, parsed = [], [parse(source) for _, source, _ in cells]
    for i, ((kind, _, mark), tree) in enumerate(zip(cells, parsed)):
        if mark is None:
            continue
        if mark not in MARKS:
            problems.append(f"code cell {i}: unknown :grading: {mark!r}; known: {sorted(MARKS)}")
            continue
        if kind:
            problems.append(f"code cell {i}: a {kind} cell is graded or prepares grading; it cannot be skipped")
            continue
        made = set().union(*(bound(s) for s in tree.body)) if tree.body else set()
        problems += [f"code cell {i}: changes {name!r}, which it did not make; a later cell would see it "
                     "changed only when this cell runs" for name in sorted(changed_outer(tree))
                     if _read_later(name, cells, parsed, i) is not None]
        for name in sorted(made):
            reader = _read_later(name, cells, parsed, i)
            if reader is not None:
                problems.append(f"code cell {i}: binds {name!r}, which code cell {reader} reads; "
                                "it cannot be skipped while grading")
    return problems


def _read_later(name: str, cells, parsed, i: int) -> int | None:
    """The first code cell after i that runs while grading and reads name before binding it again."""
    for j in range(i + 1, len(cells)):
        if cells[j][2] == SKIP:
            continue
        for stmt in parsed[j].body:
            if name in read_first(stmt):
                return j
            if name in bound(stmt):
                return None
    return None


def depends_on(sources: list[str], cell: int) -> set[int]:
    """The code cells whose statements the given cell's outcome can depend on: for each name a statement reads
    before binding it, the last statement before it that binds the name, and so on back (a function's body
    counts as read where it is defined). tests/test_grading_marks.py runs a marked cell for a planted bug only
    when the bug's cell is among these: otherwise the cell runs the same code on the same values as it does
    for the solution."""
    stmts = [(i, stmt) for i, source in enumerate(sources) for stmt in parse(source).body]
    binds, reads = [bound(s) for _, s in stmts], [read_first(s) for _, s in stmts]
    todo = [p for p, (i, _) in enumerate(stmts) if i == cell]
    seen = set(todo)
    while todo:
        p = todo.pop()
        for name in reads[p]:
            q = next((q for q in range(p - 1, -1, -1) if name in binds[q]), None)
            if q is not None and q not in seen:
                seen.add(q)
                todo.append(q)
    return {stmts[p][0] for p in seen}
