"""Flag learner code that tries to game the grader, for the instructor to look at.

The kernel is the learner's: anything checked inside it, the learner's code could
have changed first. So the grader, in its own process, also reads every code cell
the learner wrote (any cell whose source is not in the source notebook) and flags
what an honest answer has no need for: replacing functions of torch, builtins or
the course; reading files or the environment; stopping or forking the process;
custom equality; the library's attention inside an exercise meant to be written
by hand. A flag does not change the score; grade.py writes flags.csv.
"""
from __future__ import annotations

import ast
import re

import nbformat

# Exercises in which calling the library's own attention would skip the exercise.
FROM_SCRATCH = {
    "ex1_attention_scores", "ex3_softmax_last", "ex4_attention", "ex5_attention_module",          # lesson 1
    "ex1_split_heads", "ex2_merge_heads", "ex3_mha_module", "ex5_head_as_single",                 # lesson 2
    "ex1_causal_mask", "ex2_apply_mask", "ex4_padding_keep", "ex5_safe_softmax",                  # lesson 3
    "ex1_split_qkv",                                                                              # lesson 4
}
LIBRARY_ATTENTION = {"scaled_dot_product_attention", "MultiheadAttention", "multi_head_attention_forward"}
SOFTMAX_BY_HAND = {"ex3_softmax_last"}

MODULES = {"torch", "nn", "F", "builtins", "math", "course", "attn_course", "sys", "os", "IPython", "np", "numpy",
           "checks", "torch.testing"}
NAMES = {
    "exec": "dynamic_code", "eval": "dynamic_code", "compile": "dynamic_code", "__import__": "dynamic_code",
    "importlib": "dynamic_code", "globals": "dynamic_code", "getattr": "dynamic_code", "vars": "dynamic_code", "setattr": "monkeypatch",
    "delattr": "monkeypatch", "gc": "dynamic_code", "ctypes": "dynamic_code", "inspect": "dynamic_code",
    "open": "files", "pathlib": "files", "Path": "files", "shutil": "files", "glob": "files", "sqlite3": "files",
    "subprocess": "process", "multiprocessing": "process", "signal": "process", "socket": "process",
    "resource": "process", "threading": "process", "exit": "process", "quit": "process",
    "urllib": "network", "http": "network", "requests": "network", "urlopen": "network", "httpx": "network",
    "get_ipython": "kernel", "showtraceback": "kernel", "excepthook": "kernel", "set_custom_exc": "kernel",
    "environ": "environment", "getenv": "environment", "NBGRADER_EXECUTION": "environment",
    "__eq__": "fake_equality", "__ne__": "fake_equality", "__torch_function__": "fake_equality",
    "__bool__": "fake_equality", "_make_subclass": "fake_equality", "as_subclass": "fake_equality",
    "reference": "grader", "probes": "grader", "Recorder": "grader", "MIME": "grader", "SEED_ENV": "grader",
    "displayhook": "kernel", "display_pub": "kernel",
}
ATTRIBUTES = {"_exit": "process", "fork": "process", "kill": "process", "system": "process", "popen": "process",
              "listdir": "files", "scandir": "files", "walk": "files", "chmod": "files", "remove": "files"}
STRINGS = re.compile(r"reference|autograder|gradebook|nbgrader|submitted|/source/|\.db\b|\.ipynb|attn-course\.results|ATTN_GRADING", re.I)


def _root_name(node: ast.AST) -> str:
    while isinstance(node, (ast.Attribute, ast.Subscript, ast.Call)):
        node = node.func if isinstance(node, ast.Call) else node.value
    return node.id if isinstance(node, ast.Name) else ""


def scan_source(source: str, grade_id: str | None = None) -> list[tuple[str, int, str]]:
    """(rule, line, text) for everything suspicious in one cell."""
    # IPython magics and shell escapes are not Python; a `!` line runs a shell command.
    lines = source.splitlines()
    flags = [("process", i + 1, line.strip()) for i, line in enumerate(lines) if line.lstrip().startswith("!")]
    python = "\n".join("" if line.lstrip().startswith(("%", "!")) else line for line in lines)
    try:
        tree = ast.parse(python)
    except SyntaxError:
        return flags
    for node in ast.walk(tree):
        rule = None
        if isinstance(node, ast.Name) and node.id in NAMES:
            rule = NAMES[node.id]
        elif isinstance(node, ast.Attribute):
            if node.attr in NAMES:
                rule = NAMES[node.attr]
            elif node.attr in ATTRIBUTES and _root_name(node) in ("os", "sys", "subprocess", "signal"):
                rule = ATTRIBUTES[node.attr]
            elif node.attr == "exit" and _root_name(node) in ("sys", "os"):
                rule = "process"
            elif grade_id in FROM_SCRATCH and node.attr in LIBRARY_ATTENTION:
                rule = "library_attention"
            elif grade_id in SOFTMAX_BY_HAND and node.attr in ("softmax", "log_softmax"):
                rule = "library_softmax"
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names = [a.name for a in node.names] + ([node.module] if isinstance(node, ast.ImportFrom) else [])
            hits = [NAMES.get(n.split(".")[0]) for n in names if n] + [
                "library_attention" for n in names if grade_id in FROM_SCRATCH and n in LIBRARY_ATTENTION]
            rule = next((h for h in hits if h), None)
        elif isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Delete)):
            targets = node.targets if isinstance(node, (ast.Assign, ast.Delete)) else [node.target]
            if any(isinstance(t, ast.Attribute) and _root_name(t) in MODULES for t in targets):
                rule = "monkeypatch"
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name in NAMES:
            rule = NAMES[node.name]
        elif isinstance(node, ast.ClassDef):
            if any(_root_name(b) == "torch" or getattr(b, "attr", "") == "Tensor" or getattr(b, "id", "") == "Tensor"
                   for b in node.bases):
                rule = "fake_equality"
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and STRINGS.search(node.value):
            rule = "files"
        if rule:
            line = getattr(node, "lineno", 1)
            flags.append((rule, line, lines[line - 1].strip() if line <= len(lines) else ""))
    return sorted(set(flags), key=lambda f: (f[1], f[0]))


def scan_notebook(submitted: str, source: str) -> list[tuple[str, str, int, str]]:
    """(cell, rule, line, text) for every learner-written cell of a submission.

    Cells whose source is the source notebook's own (demos, set-up, tests) are skipped:
    the course's code may do what a learner's should not.
    """
    ours = {c.source.strip() for c in nbformat.read(source, 4).cells if c.cell_type == "code"}
    flags = []
    for index, cell in enumerate(nbformat.read(submitted, 4).cells):
        if cell.cell_type != "code" or cell.source.strip() in ours:
            continue
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        for rule, line, text in scan_source(cell.source, grade_id):
            flags.append((grade_id or f"cell {index}", rule, line, text))
    return flags
