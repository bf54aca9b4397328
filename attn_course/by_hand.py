"""By hand, in the learner's kernel: the refusal a learner meets at once, as feedback.

The grader decides with one policy (attn_course/hand_policy.py), from the learner's source, where nothing in the
kernel reaches; the visible check asks the same policy about the kernel's history of cells (policy_failure). While
the learner's code runs inside a by-hand exercise's check or probe, a Guard is up:
- a function mode sees every torch function by its own name, however it was reached (an alias, a default argument,
  torch.ops, aten's raw handle);
- a profile hook, in the kernel's thread and in any thread started under it, sees builtins by their own name (with
  torch functions disabled), torch's Python code of the families (multi_head_attention_forward, the attention
  classes), transformers, the course's checks and probes (they hold right answers), and, called from the learner's
  code, what the policy counts as the interpreter's insides and torch's switches of its function modes: each by
  identity or by where its code lives, never by a bare name a tensor operation shares (torch.stack is not
  inspect.stack);
- no thread or child process the learner started may be running, and a lazy result is unpacked while the guard
  is up (take).
"""
from __future__ import annotations

import contextlib
import functools
import importlib
import inspect
import os
import sys
import threading
import types
from typing import NamedTuple

import torch
from torch.overrides import TorchFunctionMode

from . import hand_policy
from .exercises import EXERCISES
from .hand_policy import family_of
from .messages import t
from .validate import CheckFailed

REFUSED_KIND = "LibraryAttentionRefused"  # what a probe records as the learner code's error kind


# --------------------------------------------------------------------------- what the lessons declare
class Rule(NamedTuple):
    families: tuple             # ("attention",), ("attention", "softmax") or ("concat",)
    library_path: tuple | None  # ("use_sdpa", True): a call with this keyword is the library's path

    @property
    def keyword(self) -> str | None:
        return self.library_path[0] if self.library_path else None

    def exempts(self, fn, args: tuple, kwargs: dict) -> bool:
        """Whether fn(*args, **kwargs) takes the library's path (the keyword may come by position too)."""
        if self.library_path is None:
            return False
        keyword, value = self.library_path
        if keyword in kwargs:
            return kwargs[keyword] is value
        # Read without running the learner's code (a `forward` property would run unguarded here).
        target = inspect.getattr_static(type(fn), "forward", None) if isinstance(fn, torch.nn.Module) else fn
        if not isinstance(target, types.FunctionType):
            return False
        try:
            bound = inspect.signature(target).bind(*((fn,) if target is not fn else ()), *args, **kwargs)
        except (TypeError, ValueError):
            return False
        return keyword in bound.arguments and bound.arguments[keyword] is value


def _rule(cell: dict) -> Rule:
    """A tests cell's declaration (`:by_hand: attention`, `:library_path: use_sdpa=True`) as a Rule."""
    key, _, value = (p.strip() for p in (cell["library_path"] or "").partition("="))
    return Rule(tuple(cell["by_hand"]), (key, {"True": True, "False": False}.get(value, value)) if key else None)


# {lesson stem: {solution cell id: Rule}}, and {probe or check name: Rule}, for every by-hand exercise.
RULES = {stem: {tests.removesuffix("_tests"): _rule(c) for tests, c in cells.items() if c["by_hand"]}
         for stem, cells in EXERCISES.items()}
PROBE_RULES, CHECK_RULES = ({name: _rule(c) for cells in EXERCISES.values() for c in cells.values() if c["by_hand"]
                             for name in c[kind]} for kind in ("probes", "checks"))
_current: list = []  # the Exercise whose check or probe is running, innermost last


class Exercise:
    """with Exercise(rule): the calls of the learner's code that run() makes from here on are by hand
    (rule None: none are). Counts them, and whether every guard held, for the probe's record."""

    def __init__(self, rule: Rule | None):
        self.rule, self.calls, self.intact = rule, 0, True

    def __enter__(self):
        _current.append(self)
        return self

    def __exit__(self, *exc):
        _current.remove(self)
        return False


def current() -> Exercise | None:
    return _current[-1] if _current and _current[-1].rule else None


def guarded(rule: Rule | None, fn):
    """fn (a visible check) with its exercise's rule in force while it runs, then the policy's word on the
    learner's code it was handed."""
    if rule is None:
        return fn

    @functools.wraps(fn)
    def check(*args, **kwargs):
        with Exercise(rule):
            result = fn(*args, **kwargs)
        roots = _root_names(args)
        failure = policy_failure(", ".join(roots) or fn.__name__, rule, roots)
        if failure is not None:
            raise failure
        return result
    return check


# --------------------------------------------------------------------------- whose code
_TORCH_DIR = os.path.dirname(torch.__file__) + os.sep
_STDLIB_DIR = os.path.dirname(os.__file__) + os.sep
_COURSE_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep
_PACKAGES = (f"{os.sep}site-packages{os.sep}", f"{os.sep}dist-packages{os.sep}")
# The course's code a by-hand exercise may call: the policy's public modules, and the guards' own (a function mode's
# handler and lesson 6's score watch run while the learner's code does).
_COURSE_ALLOWED = (*hand_policy.COURSE_PUBLIC, "attn_course.by_hand", "attn_course.score_watch")


def _learners(file: str) -> bool:
    """Code the learner wrote (a notebook cell, a file of theirs): not Python's, torch's, a package's, the course's."""
    return not (file.startswith((_STDLIB_DIR, _COURSE_DIR)) or any(p in file for p in _PACKAGES))


def _insides() -> tuple[set, set]:
    """What the policy counts as the interpreter's insides (hand_policy.MODULE_INSIDES), and torch's private builtins
    that pop, push or switch off its function modes (the guard's own), as the kernel meets them: builtins by
    identity, Python functions by their code. Bound now, before any learner code runs."""
    found = [getattr(importlib.import_module(module), name, None)
             for module, names in hand_policy.MODULE_INSIDES.items() for name in names]
    found += [f for n, f in vars(torch._C).items() if "torch_function" in n and n.startswith(("_pop", "_push", "_set"))]
    return ({id(f) for f in found if callable(f) and not isinstance(f, types.FunctionType)},
            {f.__code__ for f in found if isinstance(f, types.FunctionType)})


_INSIDE_BUILTINS, _INSIDE_CODES = _insides()
_setprofile, _getprofile = sys.setprofile, sys.getprofile
_thread_setprofile, _thread_getprofile = threading.setprofile, threading.getprofile

# --------------------------------------------------------------------------- the learner's threads and processes
def _started_by_learner() -> bool:
    """Whether the code starting a thread is the learner's: the first frame outside Python's own modules
    (threading, concurrent.futures, multiprocessing …) is in a cell or a file of theirs."""
    frame = sys._getframe(2)
    while frame is not None and frame.f_code.co_filename.startswith(_STDLIB_DIR):
        frame = frame.f_back
    return frame is not None and _learners(frame.f_code.co_filename)


_thread_start = threading.Thread.start


@functools.wraps(_thread_start)
def _start(self, *args, **kwargs):
    self._attn_learners = _started_by_learner()
    return _thread_start(self, *args, **kwargs)


threading.Thread.start = _start


def workers() -> list[str]:
    """The learner's threads and child processes running now: a thread their code started (through any module),
    one started below the threading module, any living child process but torch.compile's workers; not the
    kernel's own threads, nor a library's (tqdm's monitor)."""
    if not in_kernel():
        return []
    known = {t.ident: t for t in threading.enumerate()}
    found = [t.name for t in known.values() if getattr(t, "_attn_learners", False) and t.is_alive()]
    found += [str(ident) for ident in sys._current_frames() if ident not in known and ident not in _THREADS_BEFORE]
    try:
        for pid in sorted(_children() - _CHILDREN_BEFORE):
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                command = f.read()
            with open(f"/proc/{pid}/stat", "rb") as f:
                state = f.read().rsplit(b")", 1)[-1].split()[0]
            if state != b"Z" and b"torch/_inductor" not in command and b"compile_worker" not in command:
                found.append(f"pid {pid}")   # a fork, a multiprocessing child, `python -c` … started by the learner
    except OSError:   # not Linux (a Windows laptop): the grader, on Linux, reads the source all the same
        pass
    return found


def in_kernel() -> bool:
    """Whether this is a notebook's kernel, where the learner's cells run: elsewhere (a test run, a script) threads
    and processes are the caller's own business."""
    shell = sys.modules["IPython"].get_ipython() if "IPython" in sys.modules else None
    return shell is not None and hasattr(shell, "kernel")


def _children() -> set:
    """This process's child processes (Linux); empty where /proc says nothing."""
    children = set()
    try:
        for task in os.listdir("/proc/self/task"):
            with open(f"/proc/self/task/{task}/children") as f:
                children |= set(f.read().split())
    except OSError:
        pass
    return children


# The kernel's own children (a hosted notebook's helpers) are there before the course is imported: not the learner's.
_CHILDREN_BEFORE, _THREADS_BEFORE = _children(), set(sys._current_frames())


def take(result):
    """What the learner's code returned, taken while the guards are up: an iterable of the learner's own class is
    unpacked now, so nothing it computes when a probe unpacks it runs outside the guards."""
    code = getattr(getattr(type(result), "__iter__", None), "__code__", None)
    return tuple(result) if code is not None and _learners(code.co_filename) else result


# --------------------------------------------------------------------------- what the grader will refuse
def history() -> list:
    """The cells this kernel ran, oldest first, as the policy reads a notebook ("In [n]" each); the course's own
    cells known by their text (exercises.COURSE_CELLS). Empty outside IPython."""
    try:
        from IPython import get_ipython
        inputs = list(get_ipython().history_manager.input_hist_raw)
    except (ImportError, AttributeError):
        return []
    from .exercises import COURSE_CELLS
    return [hand_policy.Cell(f"In [{n}]", text, hand_policy.cell_key(text) in COURSE_CELLS)
            for n, text in enumerate(inputs) if n and text.strip()]


def policy_failure(name: str, rule: Rule, roots: list[str]) -> CheckFailed | None:
    """The by-hand policy's refusal of the learner's objects named roots, read from this kernel's history."""
    cells = history()
    found = hand_policy.tampering(cells) if cells else []
    if found:
        f = found[0]
        return CheckFailed(t("by_hand_tamper", where=_where(f.label), line=f.line, code=f.code, why=t(f.why)),
                           t("hint_by_hand_tamper"))
    found = hand_policy.refusals(cells, rule.families, rule.keyword, roots=roots) if cells else []
    if not found:
        return None
    f = found[0]
    return CheckFailed(t("by_hand_policy", name=name, where=_where(f.label), line=f.line, code=f.code, what=f.what,
                         why=t(f.why)), t("hint_by_hand_reach"))


def _where(label: str) -> str:
    return t("policy_history_cell", n=label[4:-1]) if label.startswith("In [") else label


def _root_names(values) -> list[str]:
    """The names the learner gave the functions and classes a check was handed (for a module, its class's)."""
    names = []
    for value in values:
        value = type(value) if isinstance(value, torch.nn.Module) else value
        name, code = getattr(value, "__name__", None), getattr(value, "__code__", None)
        if isinstance(name, str) and name.isidentifier() and (code is None or _learners(code.co_filename)):
            names.append(name)
    return names


# --------------------------------------------------------------------------- the guards
HINTS = {"attention": "hint_from_scratch", "softmax": "hint_softmax_by_hand", "concat": "hint_concat_by_hand",
         "course": "hint_course_not_answer", "guard": "hint_by_hand_guard", "threads": "hint_by_hand_threads"}


def hint_key(recorded: str) -> str:
    """The hint for a refusal a probe recorded as "kind:what"."""
    return HINTS.get(recorded.split(":", 1)[0], "hint_from_scratch")


def hint_for(recorded: str, rule: Rule | None, name: str) -> tuple[str, dict]:
    """The hint (key, fields) for a refusal recorded as "kind:what" in an exercise under rule: where the text lets
    one path call the library (`:library_path: use_sdpa=True`), the hint says which, so a learner who called it
    on the other path is not told the library is banned from both."""
    if recorded.split(":", 1)[0] == "attention" and rule is not None and rule.library_path:
        key, value = rule.library_path
        return "hint_from_scratch_path", {"name": name, "path": f"{key}={value}"}
    return hint_key(recorded), {"name": name}


def refused_what(recorded: str) -> str:
    return recorded.split(":", 1)[-1]


def message_key(recorded: str, hidden: bool = False) -> str:
    """The message for a refusal recorded as "kind:what": the visible check's, or the grader's (hidden)."""
    keys = {"concat": ("concat_refused", "hidden_concat_refused"),
            "threads": ("by_hand_threads", "hidden_by_hand_threads")}
    return keys.get(recorded.split(":", 1)[0], ("by_hand_refused", "hidden_by_hand"))[hidden]


class Refusal(TorchFunctionMode):
    """The function mode: refuses the families' torch functions, whatever name the call came through."""

    def __init__(self, guard: "Guard"):
        super().__init__()
        self.guard = guard

    def __torch_function__(self, func, types, args=(), kwargs=None):
        name = (getattr(func, "__name__", "") or str(func)).rsplit("::", 1)[-1].split(".", 1)[0]   # aten::x.default
        family = None if self.guard.leaving else family_of(name, self.guard.rule.families)
        if family:
            self.guard.refuse(family, name)
        return func(*args, **(kwargs or {}))


def _entries(values) -> set:
    """The code of callables the course itself hands to the learner's code (a rotation, say): those may run."""
    codes = set()
    for value in values:
        code = getattr(getattr(value, "__func__", value), "__code__", None)
        if code is None and isinstance(value, torch.nn.Module):
            code = getattr(type(value).forward, "__code__", None)
        if code is not None and code.co_filename.startswith(_COURSE_DIR):
            codes.add(code)
    return codes


class Guard:
    """Up for one call of the learner's code: see the module docstring."""

    def __init__(self, name: str, rule: Rule, record: Exercise | None = None, handed=()):
        self.name, self.rule, self.record = name, rule, record
        self.entries = _entries(handed)
        self.refused: str | None = None     # "kind:what": the first call refused
        self.leaving, self._codes = False, {}

    def refuse(self, kind: str, what: str):
        if self.refused is None:
            self.refused = f"{kind}:{what}"
        raise self._failure()

    def _failure(self) -> CheckFailed:
        """The check's failure for the first refusal; its `raised` is what a probe sends the grader."""
        key, fields = hint_for(self.refused, self.rule, self.name)
        failure = CheckFailed(t(message_key(self.refused), name=self.name, what=refused_what(self.refused)),
                              t(key, **fields))
        failure.raised = {"kind": REFUSED_KIND, "message": self.refused, "dot_T": False}
        return failure

    def _classify(self, code) -> tuple | None:
        """(kind, what, home) for a Python function the learner's code may not call, or None.
        home: the places whose code may call it (the package itself), or None when nothing may."""
        file, qualname = code.co_filename, code.co_qualname
        if not code.co_flags & inspect.CO_NEWLOCALS:
            return None  # a module or class body, run by an import: importing is not calling
        if file.startswith(_COURSE_DIR):
            module = "attn_course." + os.path.relpath(file, _COURSE_DIR)[:-3].replace(os.sep, ".")
            return None if module.startswith(_COURSE_ALLOWED) or code in self.entries else \
                ("course", f"{module}.{qualname}", (_COURSE_DIR,))
        attention = "attention" in self.rule.families   # a concat-only exercise may call the library's attention
        if attention and f"{os.sep}transformers{os.sep}" in file:
            return "attention", f"transformers.{qualname}", (f"{os.sep}transformers{os.sep}",)
        if file.startswith(_TORCH_DIR):
            family = family_of(code.co_name, self.rule.families)
            if family:
                return family, qualname, None
            forward = qualname.endswith(".forward") and "Transformer" in qualname  # a mask helper is no attention
            if attention and ("MultiheadAttention" in qualname or forward or f"nn{os.sep}attention{os.sep}" in file):
                return "attention", qualname, None
        return None

    def _profile(self, frame, event, arg):
        if self.leaving:
            return
        caller = frame.f_back.f_code.co_filename if event == "call" and frame.f_back is not None else \
            frame.f_code.co_filename
        if event == "call":
            code = frame.f_code
            if code not in self._codes:
                self._codes[code] = self._classify(code)
            verdict = self._codes[code]
            if verdict is not None:
                kind, what, home = verdict
                # A package may call itself: the course's helper handed to the learner, transformers within.
                if home is None or not any(h in caller for h in home):
                    self.refuse(kind, what)
            elif code in _INSIDE_CODES and _learners(caller):
                self.refuse("guard", f"{os.path.basename(code.co_filename)[:-3]}.{code.co_name}")
        elif event == "c_call":
            name = getattr(arg, "__name__", "") or ""
            family = family_of(name, self.rule.families)
            if family:
                self.refuse(family, name)
            if _learners(caller) and (id(arg) in _INSIDE_BUILTINS):
                self.refuse("guard", name)

    # up and down
    def __enter__(self):
        running = workers()   # before any guard goes up: a refusal here leaves nothing to take down
        if running:
            self.refuse("threads", ", ".join(running)[:120])
        self._mode = Refusal(self)
        self._mode.__enter__()
        self._before = _getprofile(), _thread_getprofile()
        _thread_setprofile(self._profile)
        _setprofile(self._profile)
        if self.record is not None:
            self.record.calls += 1
        return self

    def __exit__(self, kind, error, tb):
        self.leaving = True
        up = _getprofile() == self._profile
        _setprofile(self._before[0])
        _thread_setprofile(self._before[1])
        with contextlib.suppress(Exception):   # popped by the learner's code: the policy reads that from the source
            self._mode.__exit__(None, None, None)
        running = workers() if self.refused is None else []
        if running:
            self.refused = f"threads:{', '.join(running)[:120]}"
        if self.refused is None and not up:
            self.refused = "guard:sys.setprofile"
        if self.refused is None:
            return False
        if self.record is not None:
            self.record.intact = False
        raise self._failure() from None


def guard_for(name: str, args: tuple, kwargs: dict):
    """The guard for the call args[0](*args[1:], **kwargs) of the learner's code, by the running exercise's rule."""
    ex = current()
    if ex is None or ex.rule.exempts(args[0], args[1:], kwargs):
        return contextlib.nullcontext()
    return Guard(name, ex.rule, ex, handed=(*args, *kwargs.values()))
