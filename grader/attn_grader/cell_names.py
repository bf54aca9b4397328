"""Which notebook names a cell binds and reads, from its code (Python's ast and symtable).

Used by the build, to refuse a `:grading: skip` mark that something later depends on (tools/grading_marks.py),
and by the feedback, to tell a demonstration cell that failed only because an exercise it uses was left
undone (preprocessors/explain_unattempted.py).
"""
from __future__ import annotations

import ast
import symtable


def parse(source: str) -> ast.Module:
    # IPython magics and shell escapes are not Python; the lessons use none in cells that could be marked.
    return ast.parse("\n".join(line for line in source.splitlines() if not line.lstrip().startswith(("%", "!"))))


def targets(node) -> set[str]:
    if isinstance(node, ast.Name):
        return {node.id}
    if isinstance(node, (ast.Tuple, ast.List)):
        return set().union(*(targets(e) for e in node.elts)) if node.elts else set()
    if isinstance(node, ast.Starred):
        return targets(node.value)
    return set()


def bound(stmt) -> set[str]:
    """Names a top-level statement binds in the notebook's namespace (not inside functions or classes)."""
    names = set()
    for node in walk_module_level(stmt):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names |= {(a.asname or a.name).split(".")[0] for a in node.names}
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                names |= targets(target)
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
            names |= targets(node.target)
        elif isinstance(node, (ast.For, ast.AsyncFor)):
            names |= targets(node.target)
        elif isinstance(node, (ast.With, ast.AsyncWith)):
            for item in node.items:
                if item.optional_vars is not None:
                    names |= targets(item.optional_vars)
        elif isinstance(node, ast.NamedExpr):
            names |= targets(node.target)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            names.add(node.name)
    return names


def walk_module_level(stmt):
    """The statement and everything under it except the bodies of functions, lambdas and classes."""
    stack = [stmt]
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)) and node is not stmt:
            continue
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            # A definition's decorators and defaults run now; its body runs later.
            stack += [*node.decorator_list, *getattr(getattr(node, "args", None), "defaults", []),
                      *getattr(node, "bases", [])]
            continue
        stack += list(ast.iter_child_nodes(node))


def loaded(stmt) -> set[str]:
    """Every notebook name the statement reads, in function and class bodies too (they may run later, from
    any cell); a function's own locals and parameters are not the notebook's (Python's symtable says which)."""
    return _reads(symtable.symtable(ast.unparse(stmt), "<cell>", "exec"), top=True)


def read_first(stmt) -> set[str]:
    """The names a statement reads before it binds them: a loop's or a with-block's body reads its own target
    after binding it (`for H_, T_ in …: use(H_)` reads no earlier H_)."""
    if isinstance(stmt, (ast.For, ast.AsyncFor)):
        head, body, mine = [stmt.iter], stmt.body + stmt.orelse, targets(stmt.target)
    elif isinstance(stmt, (ast.With, ast.AsyncWith)):
        head, body = [item.context_expr for item in stmt.items], stmt.body
        mine = set().union(*(targets(i.optional_vars) for i in stmt.items if i.optional_vars is not None))
    else:
        return loaded(stmt)
    reads = set().union(*(loaded(ast.Expr(e)) for e in head))
    return reads | (set().union(*(loaded(s) for s in body)) - mine)


def _reads(table, top: bool) -> set[str]:
    names = {s.get_name() for s in table.get_symbols() if s.is_referenced() and (top or s.is_global())}
    for child in table.get_children():
        names |= _reads(child, top=False)
    return names
