"""Flag learner code that tries to game the grader, for the instructor to look at.

The kernel is the learner's: anything checked inside it, the learner's code could
have changed first. So the grader, in its own process, also reads every code cell
the learner wrote (any cell whose source is not in the source notebook) and flags
what an honest answer has no need for: replacing functions of torch, builtins or
the course; reading files or the environment; stopping or forking the process;
custom equality; the course's checks and probes (they hold right answers); what
would take down the by-hand guards (attn_course/by_hand.py); and the library's
attention where an exercise is by hand, or bound to a name of the learner's own
(an import, an alias, a default argument) and called through it anywhere.

Names are read however they are written: an import, an attribute, a string given to
importlib, getattr or sys.modules, joined from pieces at run time if the pieces are
written in the code. Which exercises are by hand comes from the lesson sources'
declarations (attn_course/exercises.py). A flag does not change the score; grade.py
writes flags.csv.
"""
from __future__ import annotations

import ast
import re
from pathlib import Path

import nbformat
from attn_course import by_hand
from attn_course.exercises import EXERCISES

from .astnames import fold, named, parse, python_of, root_name
from .escapes import escapes, learner_cells

TESTS_SUFFIX = "_tests"
# Read from torch (by_hand.LIBRARY), plus the classes and the loss that call it (cross_entropy is a log_softmax).
LIBRARY = {"attention": set(by_hand.LIBRARY["attention"]) | {"MultiheadAttention", "TransformerEncoderLayer",
                                                              "TransformerDecoderLayer", "Transformer"},
           "softmax": set(by_hand.LIBRARY["softmax"]) | {"Softmax", "LogSoftmax", "cross_entropy",
                                                              "CrossEntropyLoss"},
           "concat": set(by_hand.LIBRARY["concat"])}
COURSE_INTERNALS = {"checks", "probes", "by_hand", "exercises", "engine", "Recorder", "reference", "MIME", "SEED_ENV",
                    "score_watch", "ScoreWatch"}
GUARD = set(by_hand._GUARD_CALLS) | {"DisableTorchFunction", "DisableTorchFunctionSubclass", "TorchFunctionMode",
                                    "TorchDispatchMode", "_disabled_torch_function_impl", "overrides", "_python_dispatch"}

MODULES = {"torch", "nn", "F", "builtins", "math", "course", "attn_course", "sys", "os", "IPython", "np", "numpy",
           "checks", "torch.testing"}
NAMES = {
    "exec": "dynamic_code", "eval": "dynamic_code", "compile": "dynamic_code", "__import__": "dynamic_code",
    "importlib": "dynamic_code", "globals": "dynamic_code", "getattr": "dynamic_code", "vars": "dynamic_code",
    "setattr": "monkeypatch", "delattr": "monkeypatch", "gc": "dynamic_code", "ctypes": "dynamic_code",
    "inspect": "dynamic_code",
    "open": "files", "pathlib": "files", "Path": "files", "shutil": "files", "glob": "files", "sqlite3": "files",
    "subprocess": "process", "multiprocessing": "process", "signal": "process", "socket": "process",
    "resource": "process", "threading": "process", "_thread": "process", "exit": "process", "quit": "process",
    "urllib": "network", "http": "network", "requests": "network", "urlopen": "network", "httpx": "network",
    "get_ipython": "kernel", "showtraceback": "kernel", "excepthook": "kernel", "set_custom_exc": "kernel",
    "environ": "environment", "getenv": "environment", "NBGRADER_EXECUTION": "environment",
    "__eq__": "fake_equality", "__ne__": "fake_equality", "__torch_function__": "fake_equality",
    "__bool__": "fake_equality", "_make_subclass": "fake_equality", "as_subclass": "fake_equality",
    "displayhook": "kernel", "display_pub": "kernel",
}
ATTRIBUTES = {"_exit": "process", "fork": "process", "kill": "process", "system": "process", "popen": "process",
              "listdir": "files", "scandir": "files", "walk": "files", "chmod": "files", "remove": "files"}
STRINGS = re.compile(r"reference|autograder|gradebook|nbgrader|submitted|/source/|\.db\b|\.ipynb|attn-course\.results|"
                     r"ATTN_GRADING", re.I)
DYNAMIC_CALLS = {"getattr", "setattr", "delattr", "__import__", "import_module", "hasattr"}


def by_hand_cells(stem: str) -> dict:
    """Solution cell id -> (families, library-path keyword or None) for a lesson's by-hand exercises."""
    cells = {}
    for tests_id, cell in EXERCISES.get(stem, {}).items():
        if cell["by_hand"]:
            path = cell["library_path"].split("=", 1)[0] if cell["library_path"] else None
            cells[tests_id.removesuffix(TESTS_SUFFIX)] = (tuple(cell["by_hand"]), path)
    return cells


def library_aliases(tree: ast.AST, family: str = "attention") -> set:
    """Names a learner binds to the library's attention (or to another family's functions, e.g. torch.cat):
    `from … import scaled_dot_product_attention as sdpa`, `sdpa = F.scaled_dot_product_attention`, a default
    argument `f=F.scaled_dot_product_attention`."""
    names, bound = LIBRARY[family], set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            bound |= {a.asname or a.name for a in node.names if a.name in names}
        elif isinstance(node, ast.Assign) and named(node.value) & names:
            bound |= {t.id for t in node.targets if isinstance(t, ast.Name)}
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            args = node.args.args[len(node.args.args) - len(node.args.defaults):] + node.args.kwonlyargs
            defaults = node.args.defaults + [d for d in node.args.kw_defaults if d is not None]
            bound |= {a.arg for a, d in zip(args, defaults) if named(d) & names}
    return bound


def _library_path_nodes(tree: ast.AST, keyword: str | None) -> set:
    """Nodes under an `if` that tests the library path's keyword (`if use_sdpa:`): that path may call the library."""
    inside = set()
    if keyword:
        for node in ast.walk(tree):
            if isinstance(node, ast.If) and keyword in {n.id for n in ast.walk(node.test) if isinstance(n, ast.Name)}:
                inside |= {id(n) for part in node.body + node.orelse for n in ast.walk(part)}
    return inside


def scan_source(source: str, rule: tuple | None = None, aliases: set = frozenset(),
                concat_aliases: set = frozenset()) -> list[tuple[str, int, str]]:
    """(rule, line, text) for everything suspicious in one cell.

    rule: (families, library-path keyword) when the cell is a by-hand exercise's; aliases: names the
    learner bound to the library's attention anywhere in the notebook; concat_aliases: names bound to torch.cat
    and its kin, flagged only where they are called in a cell that may not join (`:by_hand: concat`)."""
    # IPython magics and shell escapes are not Python; a `!` line runs a shell command.
    lines = source.splitlines()
    flags = [("process", i + 1, line.strip()) for i, line in enumerate(lines) if line.lstrip().startswith("!")]
    tree = parse(source)
    if tree is None:
        return flags
    refused = set().union(*(LIBRARY[f] for f in rule[0])) if rule else set()
    library_path = _library_path_nodes(tree, rule[1] if rule else None)
    # `model.eval()`, `model.compile()`: a module's own methods, called with nothing; Python's eval and compile
    # take the code they run as an argument. A learner who changed a lesson's demo cell was flagged for `deep.eval()`.
    module_methods = {id(n.func) for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
                      and n.func.attr in ("eval", "compile") and not n.args and not n.keywords}
    for node in ast.walk(tree):
        found = []
        spelled = named(node) if isinstance(node, (ast.Name, ast.Attribute, ast.alias, ast.ImportFrom, ast.Constant,
                                                    ast.BinOp, ast.JoinedStr, ast.Call)) else set()
        if spelled & refused and id(node) not in library_path:
            found.append("library_concat" if spelled & refused & LIBRARY["concat"] else
                         "library_softmax" if spelled & refused - LIBRARY["attention"] else "library_attention")
        if isinstance(node, (ast.Import, ast.ImportFrom)) and any(named(a) & LIBRARY["attention"] for a in node.names):
            found.append("library_attention")      # bound to a name of the learner's own, in any cell
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in aliases:
            found.append("library_attention")      # called through such a name
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in concat_aliases \
                and rule and "concat" in rule[0]:
            found.append("library_concat")         # `from torch import cat as join` in a cell of the learner's own
        if spelled & COURSE_INTERNALS:
            found.append("course_internals")
        if spelled & GUARD:
            found.append("by_hand_guard")
        if isinstance(node, ast.Call) and root_name(node.func) in DYNAMIC_CALLS | {"importlib"} | {"modules"}:
            built = {w for a in node.args for w in named(a)}
            if built & (COURSE_INTERNALS | GUARD | LIBRARY["attention"]):
                found.append("course_internals" if built & COURSE_INTERNALS else
                             "by_hand_guard" if built & GUARD else "library_attention")
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) and node.value.attr == "modules":
            if named(node.slice) & (COURSE_INTERNALS | {"attn_course"}):
                found.append("course_internals")
        found.append(None if id(node) in module_methods else _classic(node))
        for rule_name in filter(None, found):
            line = getattr(node, "lineno", 1)
            flags.append((rule_name, line, lines[line - 1].strip() if line <= len(lines) else ""))
    return sorted(set(flags), key=lambda f: (f[1], f[0]))


def _classic(node) -> str | None:
    """The rules kept from the first scan: names, attributes, assignments into modules, fake equality, paths."""
    if isinstance(node, ast.Name) and node.id in NAMES:
        return NAMES[node.id]
    if isinstance(node, ast.Attribute):
        if node.attr in NAMES:
            return NAMES[node.attr]
        if node.attr in ATTRIBUTES and root_name(node) in ("os", "sys", "subprocess", "signal"):
            return ATTRIBUTES[node.attr]
        if node.attr == "exit" and root_name(node) in ("sys", "os"):
            return "process"
        return None
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        names = [a.name for a in node.names] + ([node.module] if isinstance(node, ast.ImportFrom) else [])
        return next((NAMES[n.split(".")[0]] for n in names if n and n.split(".")[0] in NAMES), None)
    if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Delete)):
        targets = node.targets if isinstance(node, (ast.Assign, ast.Delete)) else [node.target]
        return "monkeypatch" if any(isinstance(t, ast.Attribute) and root_name(t) in MODULES for t in targets) else None
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name in NAMES:
        return NAMES[node.name]
    if isinstance(node, ast.ClassDef):
        if any(root_name(b) == "torch" or getattr(b, "attr", "") == "Tensor" or getattr(b, "id", "") == "Tensor"
               for b in node.bases):
            return "fake_equality"
        return None
    if isinstance(node, ast.Constant) and isinstance(node.value, str) and STRINGS.search(node.value):
        return "files"
    return None


def scan_notebook(submitted, source) -> list[tuple[str, str, int, str]]:
    """(cell, rule, line, text) for every learner-written cell of a submission.

    Cells whose source is the source notebook's own (demos, set-up, tests) are skipped:
    the course's code may do what a learner's should not. Names bound to the library's
    attention are collected from every learner-written cell first: a cell of the learner's
    own may import it, and an exercise's cell call it. What would get round the by-hand
    rule (escapes.py) is flagged as `by_hand_escape`; the grader also scores it.
    """
    rules = by_hand_cells(Path(source).stem)
    mine = learner_cells(nbformat.read(submitted, 4), nbformat.read(source, 4))
    aliases, concat_aliases = set(), set()
    for _, _, cell in mine:
        tree = parse(cell.source)
        if tree is not None:
            aliases |= library_aliases(tree)
            concat_aliases |= library_aliases(tree, "concat")
    flags = []
    for label, grade_id, cell in mine:
        for rule, line, text in scan_source(cell.source, rules.get(grade_id), aliases, concat_aliases):
            flags.append((label, rule, line, text))
        flags += [(label, "by_hand_escape", line, text) for line, text, _ in escapes(cell.source)]
    return flags
