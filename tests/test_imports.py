"""The import graph of the course's code: no circle, and no lesson's module imports another lesson's.

Read from the source with `ast` (top-level and function-level imports alike), so a lazy import that hides a
circle from Python's import machinery is still an edge here. A hidden reference reaches another reference
module with `sibling(__file__, "name")`: that call is an edge too. What two lessons share sits below both,
in a module named by what it means.

One edge is left out: a function-level `import attn_course`. The package itself is the facade a notebook imports
(it imports every layer), so nothing may import it at load time; hand_policy looks a public name up in it at call
time, when it is loaded whole.
"""
import ast
import re

from conftest import ROOT

PACKAGES = {  # module prefix -> its folder
    "attn_course": ROOT / "attn_course",
    "attn_grader": ROOT / "grader" / "attn_grader",
    "attn_reference": ROOT / "autograder" / "reference",   # the name references.load gives them
}
FACADE = "attn_course"
LESSON_LAYERS = ("attn_course.checks.", "attn_course.probes.", "attn_reference.")


def _modules() -> dict:
    """module name -> (path, is_package)"""
    found = {}
    for prefix, folder in PACKAGES.items():
        for path in folder.rglob("*.py"):
            parts = list(path.relative_to(folder).with_suffix("").parts)
            package = parts[-1] == "__init__"
            if package:
                parts.pop()
            found[".".join([prefix, *parts])] = (path, package)
    return found


def _edges(name: str, path, package: bool, modules: dict) -> set:
    here = name if package else name.rpartition(".")[0]
    out = set()

    def add(target):
        if target in modules and target != name:
            out.add(target)

    tree = ast.parse(path.read_text(), str(path))
    lazy = {id(n) for f in ast.walk(tree) if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))
            for n in ast.walk(f)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if not (alias.name == FACADE and id(node) in lazy):
                    add(alias.name)
        elif isinstance(node, ast.ImportFrom):
            base = here
            for _ in range(node.level - 1):
                base = base.rpartition(".")[0]
            source = ".".join(p for p in (base if node.level else "", node.module or "") if p)
            for alias in node.names:
                if f"{source}.{alias.name}" in modules:   # `from . import lesson4`: the submodule
                    add(f"{source}.{alias.name}")
                else:                                     # `from .engine import run`: the module itself
                    add(source)
        elif (isinstance(node, ast.Call) and getattr(node.func, "id", None) == "sibling" and len(node.args) == 2
              and isinstance(node.args[1], ast.Constant)):
            add(f"attn_reference.{node.args[1].value}")
    return out


def graph() -> dict:
    modules = _modules()
    return {name: _edges(name, path, package, modules) for name, (path, package) in modules.items()}


def circles(edges: dict) -> list:
    """Every strongly connected component of more than one module (or a module importing itself), as a list."""
    index, low, stack, on_stack, found, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1 or v in edges.get(v, ()):
                found.append(sorted(component))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


def lesson_of(module: str):
    """N for a module of lesson N's checks, probes or reference (lessonN.py, lessonN_*.py); None otherwise."""
    if not module.startswith(LESSON_LAYERS):
        return None
    match = re.fullmatch(r"lesson(\d+)(_\w+)?", module.rpartition(".")[2])
    return int(match.group(1)) if match else None


def cross_lesson(edges: dict) -> list:
    return sorted((a, b) for a, targets in edges.items() for b in targets
                  if lesson_of(a) is not None and lesson_of(b) is not None and lesson_of(a) != lesson_of(b))


def test_the_graph_is_read():
    edges = graph()
    assert "attn_course.checks.engine" in edges["attn_course.checks.lesson2"]
    assert "attn_grader.judge" in edges["attn_reference.lesson1"]
    assert lesson_of("attn_course.checks.lesson8_sink") == 8 and lesson_of("attn_course.checks.engine") is None


def test_no_import_circle():
    found = circles(graph())
    assert not found, "import circles:\n" + "\n".join(" <-> ".join(c) for c in found)


def test_no_lesson_imports_another_lessons_module():
    found = cross_lesson(graph())
    assert not found, "cross-lesson imports:\n" + "\n".join(f"{a} -> {b}" for a, b in found)
