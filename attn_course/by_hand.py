"""By hand, in the learner's kernel: the refusal a learner meets at once, as feedback.

The grader decides with one policy (attn_course/hand_policy.py), from the learner's source, where nothing in the
kernel reaches; the visible check asks the same policy about the kernel's history of cells (policy_failure). While
the learner's code runs inside a by-hand exercise's check or probe, a Guard is up:
- a function mode refuses the families' torch functions by their own names, however they were reached (an alias, a
  default argument, torch.ops, aten's raw handle), never by a bare name a tensor operation shares;
- no thread or child process the learner started may be running, and none may start (a new thread is outside the
  function mode), and a lazy result is unpacked while the guard is up (take).
What could switch the function mode off (torch._C, a frame's insides) the policy reads from the source.
"""
from __future__ import annotations

import contextlib
import functools
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
_guards: list = []   # the Guards up now


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


# --------------------------------------------------------------------------- the learner's threads and processes
_STDLIB_DIR = os.path.dirname(os.__file__) + os.sep
_COURSE_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep
_NN_ATTENTION = os.path.join(os.path.dirname(torch.__file__), "nn", "attention") + os.sep
_PACKAGES = (f"{os.sep}site-packages{os.sep}", f"{os.sep}dist-packages{os.sep}")


def _learners(file: str) -> bool:
    """Code the learner wrote (a notebook cell, a file of theirs): not Python's, torch's, a package's, the course's."""
    return not (file.startswith((_STDLIB_DIR, _COURSE_DIR)) or any(p in file for p in _PACKAGES))


_thread_start = threading.Thread.start


@functools.wraps(_thread_start)
def _start(self, *args, **kwargs):
    """Marks a thread the learner's code starts, through any of Python's modules (the first frame outside them is
    theirs), and refuses it while a guard is up: torch's function modes do not reach into a new thread."""
    frame = sys._getframe(1)
    while frame is not None and frame.f_code.co_filename.startswith(_STDLIB_DIR):
        frame = frame.f_back
    self._attn_learners = frame is not None and _learners(frame.f_code.co_filename)
    if self._attn_learners and _guards and not _guards[-1].leaving:
        _guards[-1].refuse("threads", self.name)
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
    with contextlib.suppress(OSError):
        for task in os.listdir("/proc/self/task"):
            with open(f"/proc/self/task/{task}/children") as f:
                children |= set(f.read().split())
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


# --------------------------------------------------------------------------- the guard
# A refusal's kind: (the visible check's message, the grader's, the hint).
KINDS = {"attention": ("by_hand_refused", "hidden_by_hand", "hint_from_scratch"),
         "softmax": ("by_hand_refused", "hidden_by_hand", "hint_softmax_by_hand"),
         "concat": ("concat_refused", "hidden_concat_refused", "hint_concat_by_hand"),
         "threads": ("by_hand_threads", "hidden_by_hand_threads", "hint_by_hand_threads")}


def hint_key(recorded: str) -> str:
    """The hint for a refusal a probe recorded as "kind:what"."""
    return message_key(recorded, 2)


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


def message_key(recorded: str, hidden: int = False) -> str:
    """The message for a refusal recorded as "kind:what": the visible check's, or the grader's (hidden)."""
    return KINDS.get(recorded.split(":", 1)[0], KINDS["attention"])[hidden]


class Refusal(TorchFunctionMode):
    """The function mode: refuses the families' torch functions, whatever name the call came through."""

    def __init__(self, guard: "Guard"):
        super().__init__()
        self.guard = guard

    def __torch_function__(self, func, types, args=(), kwargs=None):
        name = (getattr(func, "__name__", "") or str(func)).rsplit("::", 1)[-1].split(".", 1)[0]   # aten::x.default
        families = () if self.guard.leaving else self.guard.rule.families
        family = hand_policy.family_of(name, families)
        # torch.nn.attention's own code (flex_attention, before torch compiles it, which no refusal survives); read
        # only where attention is refused: a concat-only exercise may call flex_attention, whose compiling reads this
        caller = sys._getframe(1) if not family and "attention" in families else None
        if caller is not None and caller.f_code.co_filename.startswith(_NN_ATTENTION):
            while caller.f_back is not None and caller.f_back.f_code.co_filename.startswith(_NN_ATTENTION):
                caller = caller.f_back   # named by the function the learner's code called
            family, name = "attention", caller.f_code.co_qualname
        if family:
            self.guard.refuse(family, name)
        return func(*args, **(kwargs or {}))


class Guard:
    """Up for one call of the learner's code: see the module docstring."""

    def __init__(self, name: str, rule: Rule, record: Exercise | None = None):
        self.name, self.rule, self.record = name, rule, record
        self.refused: str | None = None     # "kind:what": the first call refused
        self.leaving = False

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

    def __enter__(self):
        running = workers()   # before the guard goes up: a refusal here leaves nothing to take down
        if running:
            self.refuse("threads", ", ".join(running)[:120])
        self._mode = Refusal(self)
        self._mode.__enter__()
        _guards.append(self)
        if self.record is not None:
            self.record.calls += 1
        return self

    def __exit__(self, kind, error, tb):
        self.leaving = True
        _guards.remove(self)
        with contextlib.suppress(Exception):   # popped by the learner's code: the policy reads that from the source
            self._mode.__exit__(None, None, None)
        running = workers() if self.refused is None else []
        if running:
            self.refused = f"threads:{', '.join(running)[:120]}"
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
    return Guard(name, ex.rule, ex)
