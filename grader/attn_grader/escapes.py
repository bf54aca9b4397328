"""What would get round the by-hand rule, read from the learner's source in the grader's process.

The by-hand guards (attn_course/by_hand.py) run in the learner's kernel, where code that ran
first can take them apart: rewrite the course's modules, reach a guard's own state through a
frame or a closure, or run the library in a thread, a TorchScript function or a module it
wrote to a file. No honest answer in this course needs any of that. So the grader reads every
learner-written cell (escapes()) and, when one holds such code, scores every by-hand exercise
of the notebook 0 (DecideHiddenTests), whatever the kernel reported; the scan flags the lines.

The policy is a list of ways in, each with the reason shown to the learner:
- code built or run from text: exec, eval, compile, __import__, importlib, runpy, a name given
  to getattr/setattr/delattr/hasattr/attrgetter that is not written out, getattr itself passed
  as a value, `get_ipython()`, IPython's %run/%%writefile, shell lines;
- the interpreter's insides: frames, closures, globals and code objects (f_back, __closure__,
  __globals__, __self__, …), sys._getframe/modules/setprofile, gc's object lists, ctypes, inspect;
- other threads and processes: threading, _thread, concurrent, multiprocessing, subprocess, os.fork;
- torch's insides: torch._C and any private name of torch, torch.ops, torch.jit, torch.library,
  torch.compile, torch.overrides, torch.fx, torch.export, sdpa_kernel and the SDPA backend switches;
- files and serialized code: open, pathlib, shutil, tempfile, pickle, marshal, torch.load;
- the course's own internals (its checks, probes, guards) and any module's attributes rewritten.
The learner's own objects are theirs: `self._cache` or `getattr(self, name)` are fine.
"""
from __future__ import annotations

import ast
import re

from .astnames import dotted, fold, parse, root_name

WHY_CODE, WHY_INSIDES, WHY_THREADS, WHY_TORCH, WHY_FILES, WHY_COURSE, WHY_PATCH = (
    "escape_code", "escape_insides", "escape_threads", "escape_torch", "escape_files", "escape_course", "escape_patch")
MODULES = {  # an import of (or a name from) these
    "importlib": WHY_CODE, "runpy": WHY_CODE, "code": WHY_CODE, "codeop": WHY_CODE, "imp": WHY_CODE,
    "ctypes": WHY_INSIDES, "inspect": WHY_INSIDES, "types": WHY_INSIDES, "builtins": WHY_INSIDES,
    "threading": WHY_THREADS, "_thread": WHY_THREADS, "concurrent": WHY_THREADS, "multiprocessing": WHY_THREADS,
    "subprocess": WHY_THREADS, "asyncio": WHY_THREADS,
    "pathlib": WHY_FILES, "shutil": WHY_FILES, "tempfile": WHY_FILES, "pickle": WHY_FILES, "marshal": WHY_FILES,
    "dill": WHY_FILES, "shelve": WHY_FILES, "zipimport": WHY_FILES,
}
NAMES = {"exec": WHY_CODE, "eval": WHY_CODE, "compile": WHY_CODE, "__import__": WHY_CODE, "get_ipython": WHY_CODE,
         "breakpoint": WHY_CODE, "vars": WHY_INSIDES, "globals": WHY_INSIDES, "locals": WHY_INSIDES,
         "open": WHY_FILES, "__builtins__": WHY_INSIDES}
HARMLESS_TYPES = {"SimpleNamespace"}  # from types import SimpleNamespace holds no way in
BY_NAME = {"getattr", "setattr", "delattr", "hasattr", "attrgetter", "methodcaller"}
# Attributes that open the interpreter's insides, whatever object they are read from.
INSIDES = {"f_back", "f_locals", "f_globals", "f_code", "f_builtins", "tb_frame", "tb_next", "gi_frame", "gi_code",
           "cr_frame", "ag_frame", "get_objects", "get_referrers", "get_referents"}
# sys's own (model.modules() is not sys.modules).
SYS = {"_getframe", "setprofile", "settrace", "getprofile", "gettrace", "meta_path", "path_hooks", "path_importer_cache",
       "modules", "addaudithook", "exc_info", "exception", "last_traceback"}
SAFE_DUNDERS = {"__init__", "__name__", "__class__", "__doc__", "__len__", "__call__", "__repr__", "__str__",
                "__getitem__", "__setitem__", "__iter__", "__next__", "__enter__", "__exit__", "__qualname__",
                "__module__", "__version__", "__eq__", "__hash__", "__contains__"}
TORCH = {"jit", "library", "compile", "overrides", "fx", "export", "ops", "load", "hub", "sdpa_kernel", "sdp_kernel",
         "enable_math_sdp", "enable_flash_sdp", "enable_mem_efficient_sdp", "enable_cudnn_sdp", "cpp_extension",
         "_dynamo", "_inductor"}
COURSE = {"checks", "probes", "by_hand", "exercises", "engine", "Recorder", "Guard", "Refusal", "cases", "codec",
          "draws", "score_watch", "ScoreWatch"}
OWN = {"self", "cls"}   # the learner's own objects
MAGICS = re.compile(r"^\s*(!|%%?(run|writefile|load|script|bash|sh|system|sx|env|store|capture|pycat|macro|alias)\b)")
OS_PROCESS = {"fork", "forkpty", "system", "popen", "spawnl", "spawnv", "spawnve", "execv", "execve", "execl",
              "posix_spawn", "kill", "_exit"}


def _module_why(path: str) -> str | None:
    parts = path.split(".")
    if parts[0] in MODULES:
        return MODULES[parts[0]]
    if parts[0] == "torch" and any(p in TORCH or (p.startswith("_") and not p.startswith("__")) for p in parts[1:]):
        return WHY_TORCH
    if parts[0] == "attn_course" and any(p in COURSE for p in parts[1:]):
        return WHY_COURSE
    if parts[0] == "gc" and len(parts) > 1 and parts[1] in INSIDES:
        return WHY_INSIDES
    return None


def _attribute_why(node: ast.Attribute, imported: set) -> str | None:
    name, root = node.attr, root_name(node)
    if root in OWN:
        return None
    if name in INSIDES or (root == "sys" and name in SYS):
        return WHY_INSIDES
    if name.startswith("_") and name not in SAFE_DUNDERS:
        return WHY_INSIDES   # the insides of an object that is not the learner's own
    path = dotted(node)
    if root in ("torch", "F", "nn") or (root in imported and path.split(".")[0] == root):
        why = _module_why(("torch." + path) if root in ("F", "nn") else path)
        if why:
            return why
    if root in ("course", "attn_course") and name in COURSE:
        return WHY_COURSE
    if root == "os" and name in OS_PROCESS:
        return WHY_THREADS
    return None


def _by_name_why(node: ast.Call) -> str | None:
    """getattr(x, "name") and kin: the name must be written out, be no way in itself, and setattr/delattr
    may change only the learner's own objects. getattr(self, name) reads the learner's own object."""
    func = getattr(node.func, "id", None) or getattr(node.func, "attr", "")
    if func in ("attrgetter", "methodcaller"):
        name_node = node.args[0] if node.args else None
    else:
        obj = node.args[0] if node.args else None
        if isinstance(obj, ast.Name) and obj.id in OWN:
            return None
        if func in ("setattr", "delattr"):
            return WHY_PATCH
        name_node = node.args[1] if len(node.args) > 1 else None
    name = fold(name_node) if name_node is not None else None
    if name is None:
        return WHY_CODE
    if name in INSIDES or name in SYS or name in TORCH or name in COURSE or (name.startswith("_")
                                                                             and name not in SAFE_DUNDERS):
        return WHY_INSIDES
    return None


def escapes(source: str) -> list[tuple[int, str, str]]:
    """(line, text, reason key) for every way round the by-hand rule in one learner-written cell."""
    lines = source.splitlines()
    found = [(i + 1, line.strip(), WHY_CODE) for i, line in enumerate(lines) if MAGICS.match(line)]
    tree = parse(source)
    if tree is None:
        return found
    imported = {a.asname or a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom))
                for a in n.names}
    for node in ast.walk(tree):
        why = None
        if isinstance(node, ast.Import):
            why = next((w for a in node.names if (w := _module_why(a.name))), None)
        elif isinstance(node, ast.ImportFrom) and node.module == "types":
            why = None if {a.name for a in node.names} <= HARMLESS_TYPES else WHY_INSIDES
        elif isinstance(node, ast.ImportFrom):
            why = _module_why(node.module or "") or next(
                (w for a in node.names if (w := _module_why(f"{node.module}.{a.name}"))), None)
        elif isinstance(node, ast.Name):
            why = NAMES.get(node.id) or (WHY_CODE if node.id in BY_NAME and not _called(node, tree) else None)
        elif isinstance(node, ast.Attribute):
            why = _attribute_why(node, imported)
        elif isinstance(node, ast.Call) and (getattr(node.func, "id", None) in BY_NAME
                                             or getattr(node.func, "attr", None) in ("attrgetter", "methodcaller")):
            why = _by_name_why(node)
        elif isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Delete)):
            targets = node.targets if isinstance(node, (ast.Assign, ast.Delete)) else [node.target]
            if any(isinstance(t, ast.Attribute) and root_name(t) not in OWN
                   and (root_name(t) in imported or root_name(t) in ("torch", "nn", "F", "course", "sys", "math"))
                   for t in targets):
                why = WHY_PATCH
        if why:
            line = getattr(node, "lineno", 1)
            found.append((line, lines[line - 1].strip() if line <= len(lines) else "", why))
    return sorted(set(found))


def _called(name: ast.Name, tree: ast.AST) -> bool:
    """Whether a name is the function of a call (getattr(...)) rather than a value passed on (reduce(getattr, …))."""
    return any(isinstance(n, ast.Call) and n.func is name for n in ast.walk(tree))


def learner_cells(submitted, source) -> list[tuple[str, str | None, object]]:
    """(label, grade id, cell) for every code cell the learner wrote: a solution cell, or a cell of their own.

    The source's locked cells (set-up, demos, tests) are restored by nbgrader before anything runs,
    so what a learner typed into one never runs; a cell whose text is the course's own is the course's."""
    hidden = re.compile(r"### BEGIN HIDDEN TESTS.*?### END HIDDEN TESTS\n?", re.S)
    ours = set()
    locked = set()
    for cell in source.cells:
        if cell.cell_type == "code":
            ours |= {cell.source.strip(), hidden.sub("", cell.source).strip()}
            meta = cell.metadata.get("nbgrader", {})
            if meta.get("locked") or meta.get("grade") and not meta.get("solution"):
                locked.add(meta.get("grade_id"))
    mine = []
    for index, cell in enumerate(submitted.cells):
        if cell.cell_type != "code" or cell.source.strip() in ours:
            continue
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        if grade_id in locked:
            continue
        mine.append((grade_id or f"cell {index}", grade_id, cell))
    return mine


def notebook_escapes(submitted, source) -> list[tuple[str, int, str, str]]:
    """(cell label, line, text, reason key) for every learner-written cell of a notebook."""
    return [(label, line, text, why) for label, _, cell in learner_cells(submitted, source)
            for line, text, why in escapes(cell.source)]
