"""Reading names out of learner code, however they are written: the scan's and the escape policy's shared tools."""
from __future__ import annotations

import ast
import re


def python_of(source: str) -> str:
    """A cell's Python: IPython magics and shell escapes blanked (their own rules read them)."""
    return "\n".join("" if line.lstrip().startswith(("%", "!")) else line for line in source.splitlines())


def parse(source: str) -> ast.AST | None:
    try:
        return ast.parse(python_of(source))
    except SyntaxError:
        return None


def root_name(node: ast.AST) -> str:
    """The name an attribute chain or call starts from: torch for torch._C._nn.x(...)."""
    while isinstance(node, (ast.Attribute, ast.Subscript, ast.Call)):
        node = node.func if isinstance(node, ast.Call) else node.value
    return node.id if isinstance(node, ast.Name) else ""


def dotted(node: ast.AST) -> str:
    """torch.jit.script for that attribute chain (calls and subscripts in it are skipped)."""
    parts = []
    while isinstance(node, (ast.Attribute, ast.Subscript, ast.Call)):
        if isinstance(node, ast.Attribute):
            parts.append(node.attr)
        node = node.func if isinstance(node, ast.Call) else node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
    return ".".join(reversed(parts))


def fold(node) -> str | None:
    """The value of a string written as a constant, or joined from constants ("sc" + "aled", f"{'x'}", "".join)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = fold(node.left), fold(node.right)
        return left + right if left is not None and right is not None else None
    if isinstance(node, ast.JoinedStr):
        parts = [fold(v.value if isinstance(v, ast.FormattedValue) else v) for v in node.values]
        return "".join(parts) if all(p is not None for p in parts) else None
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "join" \
            and len(node.args) == 1 and isinstance(node.args[0], (ast.List, ast.Tuple)):
        sep, parts = fold(node.func.value), [fold(e) for e in node.args[0].elts]
        return sep.join(parts) if sep is not None and all(p is not None for p in parts) else None
    return None


def words(text: str) -> set:
    return set(re.split(r"[^\w]+", text))


def path_words(text: str) -> set:
    """The names in a string that spells a name or a dotted path ("attn_course.checks"); prose spells none."""
    return words(text) if re.fullmatch(r"[\w.]+", text.strip()) else set()


def named(node) -> set:
    """Every name a node spells: identifiers, attributes, import paths, and strings it builds from constants."""
    if isinstance(node, ast.Name):
        return {node.id}
    if isinstance(node, ast.Attribute):
        return {node.attr}
    if isinstance(node, ast.alias):
        return words(node.name) | ({node.asname} if node.asname else set())
    if isinstance(node, ast.ImportFrom):
        return words(node.module or "")
    folded = fold(node) if isinstance(node, (ast.Constant, ast.BinOp, ast.JoinedStr, ast.Call)) else None
    return path_words(folded) if folded else set()
