"""By hand, one policy: what the code of a by-hand exercise may reach, read from the learner's source.

Whether an exercise is by hand, and which families it refuses, is declared on its tests cell in the lesson
source (`:by_hand: attention`, `:by_hand: attention, softmax`, `:by_hand: concat`; `:library_path: use_sdpa=True`
for a module whose other path is meant to call the library) and generated into attn_course/exercises.py.

Two questions are asked of a notebook's code cells, in order:

- refusals(): what the exercise's code reaches, directly and through definitions in any cell, transitively.
  A name the code uses leads to the last cell that bound it, and, for a value of the learner's, to every
  statement that changes it in place or hands it to a call (`box.append(y)`, `box[0] = y`, `start(box)`), so
  a value that other code filled in (a thread, a callback) is reached too. What is reached must be a tensor
  operation of torch (torch, torch.nn, torch.nn.functional, torch.linalg, torch.fft, torch.special …), math,
  numpy, Python's own pure tools, the course's public helpers or the learner's own code, and never one of
  the refused families. A cell the exercise's code does not reach costs nothing.
- tampering(): code anywhere in the learner's cells that could undo the kernel's guards or hide code from
  this reading: writing into a module or a class that is not the learner's own, the interpreter's insides,
  the course's internals, torch's dispatch machinery, code run from text, from a pickle or from a file the
  grader cannot read. The grader cannot see what such code did, so it fails every by-hand exercise.

The grader decides with both (preprocessors.decide_hidden_tests), flags.csv lists them (attn_grader.scan), the
visible check asks them of the kernel's history (attn_course.by_hand), the notebook's note says them (by_hand_note).
"""
from __future__ import annotations

import ast
import builtins
import functools
import hashlib
import importlib.util
import re
import symtable
import sys
import types
from collections import namedtuple

Cell = namedtuple("Cell", "label source course")        # course: the course's own cell, restored when grading
Finding = namedtuple("Finding", "label line code why what")   # why: a message key, reach_… or tamper_…

# ---------------------------------------------------------------------------------------------- the policy
FAMILIES = {"attention": ("attention", "transformer_encoder"), "softmax": ("softmax", "logsumexp"), "concat": ()}
REACH = {"attention": "reach_attention", "softmax": "reach_softmax", "concat": "reach_concat"}   # each family's why
# Named whole: "cat" is also in scatter and truncate; the classes and the loss that do a family's work.
EXACT = {"attention": frozenset({"MultiheadAttention", "Transformer", "TransformerEncoderLayer",
                                 "TransformerDecoderLayer", "TransformerEncoder", "TransformerDecoder"}),
         "softmax": frozenset({"Softmax", "LogSoftmax", "Softmin", "softmin", "cross_entropy", "CrossEntropyLoss",
                               "nll_loss", "gumbel_softmax"}),
         "concat": frozenset({"cat", "concat", "concatenate", "_cat", "stack", "_stack", "hstack", "vstack", "dstack",
                              "column_stack", "row_stack"})}
# Modules whose every public name a by-hand exercise may use (torch's are narrowed below): tensors, and Python's
# own tools that compute in place and run nothing elsewhere.
MODULES = {"torch", "math", "cmath", "numpy", "attn_course", "typing", "__future__", "functools", "itertools",
           "dataclasses", "collections", "enum", "numbers", "warnings", "time", "random", "copy", "string", "operator",
           "re", "statistics", "fractions", "decimal", "heapq", "bisect", "textwrap", "pprint", "abc", "contextlib",
           "types.SimpleNamespace"}
NOT_OPS = {"operator": {"attrgetter", "methodcaller"}, "numpy": {"ctypeslib", "load", "save", "savez", "fromfile",
                                                                 "memmap", "lib", "loadtxt", "genfromtxt"}}
# torch's namespaces of tensor operations; any other module of torch (jit, library, ops, utils, func, distributions,
# backends, nn.attention …) is no tensor operation. Neither are these names of torch's top level.
TORCH_MODULES = ("torch", "torch.nn", "torch.linalg", "torch.fft", "torch.special", "torch.random", "torch.cuda",
                 "torch.autograd", "torch.amp", "torch.types", "torch.return_types", "torch.func",
                 "torch.utils.checkpoint")
TORCH_NOT_OPS = {"compile", "load", "save", "from_file"}
# The course's modules a by-hand exercise may call: errors and checks of its input, messages, the device, data.
COURSE_PUBLIC = ("attn_course.validate", "attn_course.device", "attn_course.data", "attn_course.messages")
BUILTINS_REFUSED = {"open", "exec", "eval", "compile", "__import__", "vars", "globals", "locals", "breakpoint", "input",
                    "help", "memoryview", "exit", "quit", "delattr", "setattr", "__build_class__"}
BY_NAME = {"getattr", "hasattr", "setattr", "delattr"}
# Calls that read a value without changing it: handing a value to them is no change to it.
PURE = {"print", "len", "repr", "str", "format", "isinstance", "type", "id", "hash", "bool", "int", "float", "range",
        "enumerate", "zip", "sorted", "min", "max", "sum", "abs", "round", "list", "tuple", "set", "dict", "getattr",
        "hasattr", "callable", "iter", "any", "all", "reversed", "divmod", "frozenset", "issubclass"}
# Attributes that open the interpreter's insides, whatever object they are read from.
INSIDES = {"f_back", "f_locals", "f_globals", "f_code", "f_builtins", "tb_frame", "tb_next", "gi_frame", "gi_code",
           "cr_frame", "ag_frame", "__closure__", "__globals__", "__code__", "__self__", "__func__", "__dict__",
           "__builtins__", "__subclasses__", "__defaults__", "__kwdefaults__", "__getattribute__"}
# sys.modules itself may be read for a name written out ('google.colab' in sys.modules); see _sys_modules.
MODULE_INSIDES = {"sys": {"_getframe", "setprofile", "settrace", "getprofile", "gettrace", "modules", "meta_path",
                          "path_hooks", "addaudithook", "_current_frames"},
                  "threading": {"setprofile", "settrace", "getprofile", "gettrace", "setprofile_all_threads",
                                "settrace_all_threads"},
                  "gc": {"get_objects", "get_referrers", "get_referents"},
                  "traceback": {"walk_stack"},
                  "inspect": {"currentframe", "stack", "trace", "getouterframes", "getinnerframes", "getframeinfo",
                              "getclosurevars"}}
# What runs code the grader cannot read: from text, from a pickle, from a file, through the kernel's shell.
CODE_MODULES = {"importlib", "runpy", "code", "codeop", "pickle", "marshal", "dill", "shelve", "joblib", "ctypes",
                "zipimport", "cffi"}
CODE_READABLE = {"importlib.import_module", "importlib.reload", "importlib.util.find_spec", "importlib.metadata"}
COURSE_INTERNALS = {"checks", "probes", "by_hand", "hand_policy", "exercises", "score_watch", "course_cells"}
# A visible check called from the learner's own cell (course.checks.lesson2.check_split_heads(split_heads)): it
# returns nothing, and grades are decided in the grader. The checks' other names hold right answers.
COURSE_CHECK = re.compile(r"attn_course\.checks\.(lesson\d+\.)?check_\w+")
TORCH_READABLE = {"_get_sdp_priority_order"}   # torch._C's one name a lesson invites learners to read
MAGICS = re.compile(r"^\s*%%?(run|load|writefile|python\d?|script|macro|store|pycat)\b|^\s*%load_ext\s+(\S+)")


def family_of(name: str, families) -> str | None:
    """The refused family a torch name belongs to, among families, or None."""
    low = name.lower()
    return next((f for f in families if name in EXACT[f] or any(w in low for w in FAMILIES[f])), None)


TENSOR_FAMILY = frozenset(n for n in dir(__import__("torch").Tensor) if family_of(n, tuple(FAMILIES)))   # softmax …


# ---------------------------------------------------------------------------------------------- reading code
def python_of(source: str) -> str:
    """A cell's Python: IPython magics and shell escapes blanked (the magics are read on their own)."""
    return "\n".join("" if line.lstrip().startswith(("%", "!")) else line for line in source.splitlines())


def cell_key(source: str) -> str:
    """What identifies one of the course's own cells in a kernel's history: its text (tools/build.py lists them)."""
    return hashlib.sha1(source.strip().encode()).hexdigest()[:16]


def parse(source: str):
    try:
        return ast.parse(python_of(source))
    except SyntaxError:
        return None


def fold(node) -> str | None:
    """The value of a string written as a constant, or joined from constants ("sc" + "aled", f"{'x'}")."""
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


def root_of(node) -> ast.AST:
    while isinstance(node, (ast.Attribute, ast.Subscript, ast.Call, ast.Starred)):
        node = node.func if isinstance(node, ast.Call) else node.value
    return node


def root_name(node) -> str:
    node = root_of(node)
    return node.id if isinstance(node, ast.Name) else ""


def _chain(node) -> list[str]:
    """["F", "softmax"] for F.softmax; getattr(x, "name") with a written-out name reads as x.name."""
    parts = []
    while True:
        if isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        elif isinstance(node, ast.Call) and getattr(node.func, "id", None) == "getattr" and len(node.args) >= 2 \
                and fold(node.args[1]) is not None:
            parts.append(fold(node.args[1]))
            node = node.args[0]
        else:
            break
    return [node.id] + parts[::-1] if isinstance(node, ast.Name) else []


_SCOPES = {ast.FunctionDef: None, ast.AsyncFunctionDef: None, ast.ClassDef: None, ast.Lambda: "lambda",
           ast.ListComp: "listcomp", ast.SetComp: "setcomp", ast.DictComp: "dictcomp", ast.GeneratorExp: "genexpr"}


def _outside_parts(node) -> list:
    """The parts of a scope that run in the scope around it: decorators, defaults, annotations, bases, a
    comprehension's first iterable."""
    if isinstance(node, ast.ClassDef):
        return [*node.decorator_list, *node.bases, *(k.value for k in node.keywords)]
    if not hasattr(node, "args"):
        return [node.generators[0].iter]
    a = node.args
    notes = [x.annotation for x in a.posonlyargs + a.args + a.kwonlyargs + [a.vararg, a.kwarg] if x and x.annotation]
    return [*getattr(node, "decorator_list", []), *a.defaults, *(d for d in a.kw_defaults if d), *notes,
            *([node.returns] if getattr(node, "returns", None) else [])]


class _Unit:
    """One top-level statement of one cell: the globals it reads and binds, and the values of the learner's it may
    change. Names are scoped by Python's own symbol table of the cell (table): defaults and decorators are read
    outside their function, methods do not see their class's names, a walrus in a comprehension binds around it."""

    def __init__(self, index: int, cell: Cell, stmt, table):
        self.index, self.cell, self.stmt = index, cell, stmt
        self.parents = {child: node for node in ast.walk(stmt) for child in ast.iter_child_nodes(node)}
        self.free, self.binds, queues = [], set(), {}

        def visit(node, scope, skip):
            if id(node) in skip:
                return
            if isinstance(node, ast.Name):
                top = scope is table
                if isinstance(node.ctx, ast.Load) and (top or node.id in scope.get_identifiers()
                                                       and scope.lookup(node.id).is_global()):
                    self.free.append((node, self.parents.get(node)))
                elif isinstance(node.ctx, ast.Store) and top:
                    self.binds.add(node.id)
            inner = scope
            if type(node) in _SCOPES:
                outside = _outside_parts(node)
                for part in outside:
                    visit(part, scope, skip)
                skip = skip | {id(p) for p in outside}
                if id(scope) not in queues:   # the scope's own tables, by line and name, in the order they come
                    queues[id(scope)] = {}
                    for child in scope.get_children():
                        queues[id(scope)].setdefault((child.get_lineno(), child.get_name()), []).append(child)
                inner = queues[id(scope)][(node.lineno, _SCOPES[type(node)] or node.name)].pop(0)
            for child in ast.iter_child_nodes(node):
                visit(child, inner, skip)

        visit(stmt, table, frozenset())
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            self.binds.add(stmt.name)
        self.imports = {}   # name -> dotted path, for every import anywhere in the statement
        for node in ast.walk(stmt):
            if isinstance(node, ast.Import):
                for a in node.names:
                    self.imports[a.asname or a.name.split(".")[0]] = a.name if a.asname else a.name.split(".")[0]
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                self.imports.update({a.asname or a.name: f"{node.module}.{a.name}" for a in node.names})
        if isinstance(stmt, (ast.Import, ast.ImportFrom)):
            self.binds |= set(self.imports)
        self.changes, self.stores = set(), set()   # globals it may change in place or hand to a call; stores into
        for node in ast.walk(stmt):
            if isinstance(node, (ast.Attribute, ast.Subscript)) and isinstance(node.ctx, (ast.Store, ast.Del)):
                self.stores.add(root_name(node))
                self.changes.add(root_name(node))
            elif isinstance(node, ast.Call):
                if isinstance(node.func, ast.Attribute):
                    self.changes.add(root_name(node.func.value))
                if getattr(node.func, "id", None) not in PURE:
                    for arg in [*node.args, *(k.value for k in node.keywords)]:
                        for leaf in ([arg] if not isinstance(arg, (ast.Tuple, ast.List)) else arg.elts):
                            if isinstance(root_of(leaf), ast.Name):
                                self.changes.add(root_name(leaf))
            elif isinstance(node, (ast.Global, ast.Nonlocal)):
                self.changes |= set(node.names)

    @property
    def is_definition(self) -> bool:
        return isinstance(self.stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))


@functools.lru_cache(maxsize=8)   # one notebook's cells, asked about each of its exercises in turn
def _units(cells: tuple) -> list[_Unit]:
    units = []
    for index, cell in enumerate(cells):
        try:
            tree, table = ast.parse(python_of(cell.source)), symtable.symtable(python_of(cell.source), "<cell>", "exec")
        except SyntaxError:   # the cell does not run: it binds nothing
            continue
        units += [_Unit(index, cell, stmt, table) for stmt in tree.body]
    return units


def _finding(unit: _Unit, node, why: str, what: str) -> Finding:
    line = getattr(node, "lineno", getattr(unit.stmt, "lineno", 1))
    lines = unit.cell.source.splitlines()
    return Finding(unit.cell.label, line, lines[line - 1].strip()[:100] if line <= len(lines) else "", why, what)


# ---------------------------------------------------------------------------------------------- what is allowed
def _torch_why(parts: list[str], families) -> str | None:
    import torch
    obj, where = torch, "torch"
    for part in parts:
        if (part.startswith("_") and not part.startswith("__")) or (where == "torch" and part in TORCH_NOT_OPS):
            return "reach_outside"
        obj = getattr(obj, part, None)
        if obj is None:
            return None
        if isinstance(obj, types.ModuleType):
            where = obj.__name__
            # torch.nn.attention is the library's attention (SDPA's masks and backends, FlexAttention): refused
            # where the exercise refuses attention; a concat-only exercise may call SDPA and its mask helpers
            # (causal_lower_right).
            if where.startswith("torch.nn.attention"):
                if "attention" in families:
                    return "reach_outside"
            elif not any(where == m or where.startswith(m + ".") and m != "torch" for m in TORCH_MODULES):
                return "reach_outside"
    return None


def path_why(path: str, families) -> str | None:
    """Why a by-hand exercise's code may not reach the dotted name path (a message key), or None."""
    parts = path.split(".")
    family = family_of(parts[-1], families)
    if COURSE_CHECK.fullmatch(path):   # check_attention is no attention
        return None
    if family:
        return REACH[family]
    if parts[0] == "attn_course":
        if len(parts) > 1 and parts[1] in COURSE_INTERNALS:
            return "reach_course"
        if len(parts) == 2:
            import attn_course
            home = getattr(getattr(attn_course, parts[1], None), "__module__", "") or ""
            return None if home.startswith(COURSE_PUBLIC) or parts[1] in ("t", "__version__") else "reach_course"
        return None if ".".join(parts[:2]).startswith(COURSE_PUBLIC) else "reach_course"
    if parts[0] not in MODULES and ".".join(parts[:2]) not in MODULES:
        return "reach_outside"
    if parts[0] == "torch":
        return _torch_why(parts[1:], families)
    if len(parts) > 1 and parts[1] in NOT_OPS.get(parts[0], ()):
        return "reach_dynamic" if parts[0] == "operator" else "reach_outside"
    return None


# ---------------------------------------------------------------------------------------------- the two questions
def refusals(cells, families, library_path: str | None = None, start: int | None = None, roots=(),
             until: int | None = None) -> list[Finding]:
    """What the by-hand exercise's code reaches that the policy refuses.

    cells: the notebook's code cells, in order (Cell). start: the index of the exercise's solution cell, all of
    whose statements are its code; roots: names it is called by (those the solution cell binds, rebound or not in
    a cell before its tests; in a kernel's history, the learner's objects a check was handed). until: a name is
    read as bound before this cell (the exercise's tests cell). library_path: the keyword of a path meant to call
    the library (`use_sdpa`): code under `if use_sdpa` may call the library's attention."""
    families = tuple(families)
    units = _units(tuple(cells))
    until = len(cells) if until is None else until
    methods = {n.name for u in units if not u.cell.course and isinstance(u.stmt, ast.ClassDef)
               for n in u.stmt.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}

    def binders(name) -> list:
        """Every statement that may have bound name last before `until`: back to the first that surely did."""
        found = [u for u in units if name in u.binds]
        found = [u for u in found if u.index < until] or found
        live = []
        for unit in reversed(found):
            live.append(unit)
            if isinstance(unit.stmt, SURE):
                break
        return live

    def changers(name, definition):
        """The learner's statements that may change a value in place (a function or a class: by storing into it)."""
        return [u for u in units if not u.cell.course and name in (u.stores if definition else u.changes)]

    mine = [u for u in units if u.index == start]
    roots = {*roots, *(n for u in mine for n in u.binds)}   # rebound in a cell before the tests: that is tested
    todo = mine + [u for name in roots for u in binders(name)]
    seen, findings = set(), []
    while todo:
        unit = todo.pop()
        if id(unit) in seen:
            continue
        seen.add(id(unit))
        names, found = _reached(unit, families, library_path, binders, methods)
        # The course's own cells may use anything but the refused families (a demo cell draws with matplotlib).
        findings += [f for f in found if not unit.cell.course or f.why[len("reach_"):] in families]
        for name in names:
            for u in binders(name):
                if not isinstance(u.stmt, (ast.Import, ast.ImportFrom)):
                    todo += [u] + changers(name, u.is_definition)
    return sorted(set(findings), key=lambda f: (f.label, f.line, f.why))


SURE = (ast.Assign, ast.AnnAssign, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Import, ast.ImportFrom)


def _library_path_nodes(stmt, keyword: str | None) -> set:
    """The nodes that run only when `keyword` is true: the body of `if use_sdpa`, the else of `if not use_sdpa`, what
    follows an `if not use_sdpa:` block that always returns, and the matching side of `a if use_sdpa else b`."""
    inside = set()

    def names(test) -> bool:
        return keyword in {getattr(n, "id", getattr(n, "attr", None)) for n in ast.walk(test)}

    def side(test):
        """'body' when the test is true on the library path, 'orelse' when it is false, None when not about it."""
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            return {"body": "orelse", "orelse": "body"}.get(side(test.operand))
        if isinstance(test, ast.BoolOp):   # `and` is true only with the keyword's side true; `or` false likewise
            sides = [side(v) for v in test.values]
            want = "body" if isinstance(test.op, ast.And) else "orelse"
            return want if want in sides else None
        return "body" if names(test) else None

    def mark(nodes):
        inside.update(id(n) for part in nodes for n in ast.walk(part))

    if keyword:
        for node in ast.walk(stmt):
            if isinstance(node, (ast.If, ast.IfExp)) and side(node.test):
                mark(_as_list(getattr(node, side(node.test))))
            for block in (getattr(node, f, None) for f in ("body", "orelse", "finalbody")):
                if not isinstance(block, list):
                    continue
                for i, part in enumerate(block):  # `if not use_sdpa: …; return …` then the library path
                    if isinstance(part, ast.If) and side(part.test) == "orelse" and not part.orelse and \
                            part.body and isinstance(part.body[-1], (ast.Return, ast.Raise)):
                        mark(block[i + 1:])
    return inside


def _as_list(part) -> list:
    return part if isinstance(part, list) else [part]


def _reached(unit: _Unit, families, library_path, binders, methods) -> tuple[set, list]:
    """(the global names a reached statement reads, what in it the policy refuses)."""
    free, parents = unit.free, unit.parents
    free_ids = {id(n) for n, _ in free}
    local = {id(n) for n in ast.walk(unit.stmt) if isinstance(n, ast.Name)} - free_ids   # a parameter, a local
    exempt = _library_path_nodes(unit.stmt, library_path)
    names, found = set(), []

    def judge(node, why, what):
        if why and not (id(node) in exempt and why == "reach_attention"):
            found.append(_finding(unit, node, why, what))

    def path(name_node, module) -> str:
        return ".".join([module] + _chain(_outermost(name_node, parents))[1:])

    for node in ast.walk(unit.stmt):
        if isinstance(node, ast.Import):
            for a in node.names:
                judge(node, path_why(a.name, families), a.name)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for a in node.names:
                judge(node, path_why(f"{node.module}.{a.name}", families), f"{node.module}.{a.name}")
        elif isinstance(node, ast.Attribute):
            root = root_of(node)
            if isinstance(root, ast.Name) and id(root) not in free_ids and root.id in unit.imports:
                if _outermost(node, parents) is node:    # a module imported inside a function
                    dotted = path(root, unit.imports[root.id])
                    judge(node, path_why(dotted, families), dotted)
                continue
            live = binders(root.id) if isinstance(root, ast.Name) and id(root) in free_ids else []
            if live and all(isinstance(b.stmt, (ast.Import, ast.ImportFrom)) for b in live):
                continue   # a module's name: read as its path below
            mine = bool(live) or isinstance(root, ast.Name) and root.id in ("self", "cls")   # a global of theirs
            called = isinstance(parents.get(node), ast.Call) and parents[node].func is node
            if node.attr in INSIDES and not (isinstance(root, ast.Name) and root.id in ("self", "cls")):
                judge(node, "reach_outside", node.attr)
            elif not mine and node.attr not in methods and (family := family_of(node.attr, families)) and \
                    (called or node.attr in TENSOR_FAMILY):     # a tensor's method: x.softmax(-1), sm = x.softmax
                judge(node, REACH[family], f"Tensor.{node.attr}")
        elif isinstance(node, ast.Call) and getattr(node.func, "id", None) in BY_NAME and len(node.args) >= 2 \
                and fold(node.args[1]) is None and id(root_of(node.args[0])) not in local:
            judge(node, "reach_dynamic", f"{node.func.id}(…)")
    for name_node, parent in free:
        name = name_node.id
        live = binders(name)
        for binder in live:
            if isinstance(binder.stmt, (ast.Import, ast.ImportFrom)):
                judge(name_node, path_why(path(name_node, binder.imports[name]), families),
                      path(name_node, binder.imports[name]))
            else:
                names.add(name)
        if not live and hasattr(builtins, name):
            called = isinstance(parent, ast.Call) and parent.func is name_node
            if name in BUILTINS_REFUSED or (name in BY_NAME and not called):
                judge(name_node, "reach_dynamic" if name in BY_NAME else "reach_outside", name)
        elif not live and name not in ("self", "cls"):
            judge(name_node, "reach_outside", name)   # bound by no cell: IPython's Out, a name set through globals()
    return names, found


def _outermost(node, parents):
    """F.softmax for the F in F.softmax(x): the longest chain of attributes (and written-out getattr) above a name."""
    while True:
        parent = parents.get(node)
        if isinstance(parent, ast.Attribute) and parent.value is node:
            node = parent
        elif isinstance(parent, ast.Call) and getattr(parent.func, "id", None) == "getattr" and parent.args \
                and parent.args[0] is node and len(parent.args) >= 2 and fold(parent.args[1]) is not None:
            node = parent
        else:
            return node


def tampering(cells) -> list[Finding]:
    """What, in the learner's cells, could undo the kernel's guards or hide code from the grader's reading."""
    units = _units(tuple(cells))
    imports, aliases = {}, set()
    for unit in units:
        imports.update(unit.imports)
        if isinstance(unit.stmt, ast.Assign) and isinstance(unit.stmt.value, (ast.Attribute, ast.Subscript)):
            aliases |= {t.id for t in unit.stmt.targets if isinstance(t, ast.Name)}   # T = torch.Tensor
    foreign = set(imports) | aliases | {"__builtins__"}
    found = []
    for unit in (u for u in units if not u.cell.course):
        parents = unit.parents
        for node in ast.walk(unit.stmt):
            why = _tamper_why(node, parents, imports, foreign)
            if why:
                found.append(_finding(unit, node, *why))
    for cell in (c for c in cells if not c.course):
        for line, text in enumerate(cell.source.splitlines(), 1):
            magic = MAGICS.match(text)
            extension = magic and magic[2] and (_installed(magic[2]) or _installed(f"IPython.extensions.{magic[2]}"))
            if magic and not extension:   # %load_ext of an installed extension (autoreload) runs nothing unread
                found.append(Finding(cell.label, line, text.strip()[:100], "tamper_code", text.strip().split()[0]))
    return sorted(set(found), key=lambda f: (f.label, f.line, f.why))


def _tamper_why(node, parents, imports, foreign) -> tuple | None:
    if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Delete)):
        targets = node.targets if isinstance(node, (ast.Assign, ast.Delete)) else [node.target]
        hit = next((t for t in targets if isinstance(t, (ast.Attribute, ast.Subscript)) and root_name(t) in foreign),
                   None)
        return ("tamper_patch", ".".join(_chain(hit)) or root_name(hit)) if hit is not None else None
    name = getattr(node.func, "id", None) if isinstance(node, ast.Call) else None
    if name in ("setattr", "delattr", "vars") and node.args and root_name(node.args[0]) in foreign:
        return "tamper_patch", f"{name}({root_name(node.args[0])}, …)"
    if name in ("getattr", "hasattr") and len(node.args) >= 2 and fold(node.args[1]) is None and \
            root_name(node.args[0]) in foreign:   # a module's attribute by a name built at run time: unread
        return "tamper_code", f"{name}({root_name(node.args[0])}, …)"
    if name in ("exec", "eval", "compile", "__import__", "get_ipython"):
        return "tamper_code", name
    if isinstance(node, ast.Attribute) and node.attr in INSIDES and root_name(node) not in ("self", "cls"):
        return "tamper_insides", node.attr
    inner = isinstance(node, ast.Attribute) and isinstance(parents.get(node), ast.Attribute)   # read as a whole
    paths = []
    if isinstance(node, ast.Import):
        paths = [a.name for a in node.names]
    elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
        paths = [f"{node.module}.{a.name}" for a in node.names]
    elif not inner and isinstance(node, (ast.Attribute, ast.Call)) and (chain := _chain(node)) and chain[0] in imports:
        paths = [".".join([imports[chain[0]]] + chain[1:])]
    elif isinstance(node, (ast.Constant, ast.BinOp, ast.JoinedStr, ast.Call)) and (text := fold(node)) and \
            re.fullmatch(r"[\w.]+", text) and text.startswith("attn_course."):
        paths = [text]
    called = isinstance(parents.get(node), ast.Call) and parents[node].func is node
    for path in paths:
        why = _path_tamper(path, isinstance(node, (ast.Import, ast.ImportFrom)), called, parents.get(node))
        if why:
            return why, path
    return None


def _path_tamper(path: str, imported: bool, called: bool, parent) -> str | None:
    parts = path.split(".")
    if parts[0] == "attn_course" and set(parts[1:]) & COURSE_INTERNALS and not COURSE_CHECK.fullmatch(path):
        return "tamper_course"
    if parts[:2] == ["sys", "modules"] and not imported:
        return None if _sys_modules(parent) else "tamper_insides"
    if parts[0] in MODULE_INSIDES and len(parts) > 1 and parts[1] in MODULE_INSIDES[parts[0]]:
        return "tamper_insides"
    if parts[0] in CODE_MODULES and not any(path == r or path.startswith(r + ".") or imported and
                                            r.startswith(path + ".") for r in CODE_READABLE) or \
            parts[:2] == ["torch", "jit"] and "CompilationUnit" in parts:   # TorchScript compiled from text
        return "tamper_code"
    if parts[:2] == ["torch", "ops"]:   # an operator's name, private or not, is reached code (refusals), no tampering
        return "tamper_code" if parts[2:3] in (["load_library"], ["import_module"]) else None
    private = [p for p in parts[1:] if p.startswith("_") and not p.startswith("__")]
    if parts[0] == "torch" and len(parts) > 1 and parts[-1] not in TORCH_READABLE and (
            private and (called or imported) or parts[1] in ("library", "overrides") or "_python_dispatch" in parts):
        return "tamper_torch"
    if imported and not _installed(parts[0]):
        return "tamper_code"   # a module of the learner's own files, which the grader does not read
    return None


def _sys_modules(parent) -> bool:
    """sys.modules read for a name written out: 'google.colab' in sys.modules, sys.modules.get('numpy')."""
    if isinstance(parent, ast.Compare):
        return all(isinstance(op, (ast.In, ast.NotIn)) for op in parent.ops)
    if isinstance(parent, ast.Subscript):
        return fold(parent.slice) is not None
    return isinstance(parent, ast.Call) and bool(parent.args) and all(fold(a) is not None for a in parent.args)


def _installed(name: str) -> bool:
    """Whether a module comes with Python or with the course's environment (not from the notebook's folder)."""
    if name.split(".")[0] in sys.builtin_module_names or name.split(".")[0] in sys.stdlib_module_names:
        return True
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return False
    origin = (spec.origin or (list(spec.submodule_search_locations or [""])[0])) if spec else ""
    homes = (sys.prefix, sys.base_prefix, sys.exec_prefix, _COURSE_HOME)
    return bool(spec) and (origin in ("built-in", "frozen") or origin.startswith(homes)
                           or any(p in origin for p in ("site-packages", "dist-packages")))


_COURSE_HOME = __file__.rsplit("attn_course", 1)[0]
