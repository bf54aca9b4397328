"""By hand means by hand, in the learner's kernel: the refusal a learner meets at once, as feedback.

What a by-hand exercise's code may use is one policy (attn_course/hand_policy.py); the grader decides with
it from the learner's source, where nothing in the kernel reaches. Here, while the learner's code runs inside
a by-hand exercise's check or probe, guards are up so that a learner sees a refusal at once:
- a TorchFunctionMode sees every torch function by its own name, however it was reached (an alias, a default
  argument, `torch.ops.aten.…`, nn.MultiheadAttention's `multi_head_attention_forward`, cross_entropy);
- a profile hook sees every Python and builtin call: into the course's checks and probes (they hold right
  answers), into transformers and torch's attention code, and the calls that take these guards down, each
  known by identity, never by a bare name a tensor operation shares (torch.stack is not inspect.stack);
- SDPA's backends are switched off, for a thread started inside the code;
- no thread or child process the learner started may be running, and a lazy result is unpacked while the
  guards are up (take).
Calls below Python (TorchScript, a raw aten handle) are not seen here: the visible check asks the policy about
the kernel's own history of cells (policy_failure), as the grader does, and says what it would refuse.
"""
from __future__ import annotations

import contextlib
import functools
import gc
import inspect
import os
import sys
import threading
import traceback
import types
from dataclasses import dataclass

import torch
from torch.overrides import TorchFunctionMode

from . import hand_policy
from .exercises import EXERCISES
from .hand_policy import family_of
from .messages import t
from .validate import CheckFailed

REFUSED_KIND = "LibraryAttentionRefused"  # what a probe records as the learner code's error kind


# --------------------------------------------------------------------------- what the lessons declare
@dataclass(frozen=True)
class Rule:
    families: tuple            # ("attention",), ("attention", "softmax") or ("concat",)
    library_path: tuple | None  # ("use_sdpa", True): a call with this keyword is the library's path

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


def _rules(kind: str) -> dict:
    """kind: "probes" or "checks" -> {"lesson1.attention_scores": Rule, …} for every by-hand exercise."""
    found = {}
    for cell in (c for cells in EXERCISES.values() for c in cells.values() if c["by_hand"]):
        path = None
        if cell["library_path"]:
            key, value = (p.strip() for p in cell["library_path"].split("=", 1))
            path = (key, {"True": True, "False": False}.get(value, value))
        found.update(dict.fromkeys(cell[kind], Rule(tuple(cell["by_hand"]), path)))
    return found


PROBE_RULES, CHECK_RULES = _rules("probes"), _rules("checks")
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


def _learners(file: str) -> bool:
    """Code the learner wrote (a notebook cell, a file of theirs), not Python's, torch's, a package's or the course's."""
    return not (file.startswith((_STDLIB_DIR, _COURSE_DIR)) or any(p in file for p in _PACKAGES))


# The course's modules a by-hand exercise may call: errors and checks of its input, messages, the device.
_COURSE_ALLOWED = {os.path.join(_COURSE_DIR, f) for f in ("__init__.py", "validate.py", "by_hand.py", "exercises.py",
                                                          "device.py", "data.py", "fonts.py", "score_watch.py")}
_COURSE_ALLOWED_DIRS = (os.path.join(_COURSE_DIR, "messages") + os.sep,)
# torch's Python functions that take the guards down, by name in torch's own files; builtins, by identity.
_GUARD_CALLS = frozenset({"_set_torch_function_mode", "enable_math_sdp", "enable_flash_sdp", "enable_mem_efficient_sdp",
                          "enable_cudnn_sdp", "sdpa_kernel", "_pop_mode", "_pop_mode_temporarily",
                          "_disable_current_modes", "_disable_current_modes_on_stack"})
_GUARD_BUILTINS = {id(f) for f in (sys.setprofile, sys.settrace, *(getattr(torch._C, n, None) for n in (
    "_pop_torch_function_stack", "_push_on_torch_function_stack", "_set_torch_function_mode", "_set_sdp_use_math",
    "_set_sdp_use_flash", "_set_sdp_use_mem_efficient", "_set_sdp_use_cudnn", "_set_sdp_use_overrideable",
    "_set_sdp_priority_order"))) if f is not None}
# What reaches a guard's own state (a frame, the profiler, the garbage collector's lists), by identity.
_INTROSPECTION_BUILTINS = {id(f) for f in (sys.getprofile, sys.gettrace, sys._getframe, sys._current_frames,
                                           gc.get_objects, gc.get_referrers, gc.get_referents)}
_INTROSPECTION_CODES = {f.__code__ for f in (inspect.currentframe, inspect.stack, inspect.trace, inspect.getouterframes,
                                             inspect.getinnerframes, traceback.walk_stack, threading.getprofile,
                                             threading.setprofile, threading.settrace)}
# Bound now, before any learner code runs: a name the learner rebinds later does not reach these. The function
# mode's place on torch's stack is read with torch's private accessors: popping it is the case they catch.
_setprofile, _getprofile = sys.setprofile, sys.getprofile
_thread_setprofile, _thread_getprofile = threading.setprofile, threading.getprofile
_stack_len, _stack_at = torch._C._len_torch_function_stack, torch._C._get_function_stack_at
_tf_enabled = torch._C._is_torch_function_enabled
_SDP = [(torch.backends.cuda.flash_sdp_enabled, torch.backends.cuda.enable_flash_sdp),
        (torch.backends.cuda.mem_efficient_sdp_enabled, torch.backends.cuda.enable_mem_efficient_sdp),
        (torch.backends.cuda.math_sdp_enabled, torch.backends.cuda.enable_math_sdp),
        (torch.backends.cuda.cudnn_sdp_enabled, torch.backends.cuda.enable_cudnn_sdp)]


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
    keyword = rule.library_path[0] if rule.library_path else None
    found = hand_policy.refusals(cells, rule.families, keyword, roots=roots) if cells else []
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


def _base(name: str) -> str:
    """aten::scaled_dot_product_attention.default -> scaled_dot_product_attention."""
    return name.rsplit("::", 1)[-1].split(".", 1)[0]


class Refusal(TorchFunctionMode):
    """The function mode: refuses the families' torch functions, whatever name the call came through."""

    def __init__(self, guard: "Guard"):
        super().__init__()
        self.guard = guard

    def __torch_function__(self, func, types, args=(), kwargs=None):
        name = _base(getattr(func, "__name__", "") or str(func))
        family = family_of(name, self.guard.rule.families)
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
        self._leaving, self._codes = False, {}

    def refuse(self, kind: str, what: str):
        if self.refused is None:
            self.refused = f"{kind}:{what}"
        raise self._failure()

    def _failure(self) -> CheckFailed:
        """The check's failure for the first refusal; its `raised` is what a probe sends the grader."""
        kind, what = self.refused.split(":", 1)
        refused = {"concat": "concat_refused", "threads": "by_hand_threads"}.get(kind, "by_hand_refused")
        key, fields = hint_for(self.refused, self.rule, self.name)
        failure = CheckFailed(t(refused, name=self.name, what=what), t(key, **fields))
        failure.raised = {"kind": REFUSED_KIND, "message": self.refused, "dot_T": False}
        return failure

    def _classify(self, code) -> tuple | None:
        """(kind, what, home) for a Python function the learner's code may not call, or None.
        home: the places whose code may call it (the package itself), or None when nothing may."""
        file, qualname = code.co_filename, code.co_qualname
        if not code.co_flags & inspect.CO_NEWLOCALS:
            return None  # a module or class body, run by an import: importing is not calling
        if file.startswith(_COURSE_DIR):
            if file in _COURSE_ALLOWED or file.startswith(_COURSE_ALLOWED_DIRS) or code in self.entries:
                return None
            module = os.path.relpath(file, _COURSE_DIR)[:-3].replace(os.sep, ".")
            return "course", f"attn_course.{module}.{qualname}", (_COURSE_DIR,)
        if f"{os.sep}transformers{os.sep}" in file:
            return "attention", f"transformers.{qualname}", (f"{os.sep}transformers{os.sep}",)
        if file.startswith(_TORCH_DIR):
            if code.co_name in _GUARD_CALLS:  # torch uses its own machinery (through contextlib); the learner may not
                return "guard", qualname, (_TORCH_DIR, contextlib.__file__)
            family = family_of(code.co_name, self.rule.families)
            if family:
                return family, qualname, None
            forward = qualname.endswith(".forward") and "Transformer" in qualname  # a mask helper is no attention
            if "MultiheadAttention" in qualname or forward or f"nn{os.sep}attention{os.sep}" in file:
                return "attention", qualname, None
        return None

    def _profile(self, frame, event, arg):
        if self._leaving:
            return
        if event == "call":
            code = frame.f_code
            if code not in self._codes:
                self._codes[code] = self._classify(code)
            verdict = self._codes[code]
            caller = frame.f_back.f_code.co_filename if frame.f_back is not None else ""
            if verdict is not None:
                kind, what, home = verdict
                # A package may call itself: the course's helper handed to the learner, transformers inside transformers.
                if home is None or not any(h in caller for h in home):
                    self.refuse(kind, what)
            elif code in _INTROSPECTION_CODES and _learners(caller):
                self.refuse("guard", f"{os.path.basename(code.co_filename)[:-3]}.{code.co_name}")
            elif code.co_qualname in ("OpOverload.__call__", "OpOverloadPacket.__call__"):
                name = _base(getattr(frame.f_locals.get("self"), "_name", "") or "")
                family = family_of(name, self.rule.families)
                if family:
                    self.refuse(family, name)
        elif event == "c_call":
            name, caller = getattr(arg, "__name__", "") or "", frame.f_code.co_filename
            if id(arg) in _GUARD_BUILTINS and not caller.startswith(_TORCH_DIR) or \
                    id(arg) in _INTROSPECTION_BUILTINS and _learners(caller):
                self.refuse("guard", name)
            family = family_of(name, self.rule.families)
            if family:
                self.refuse(family, name)

    # up and down
    def __enter__(self):
        running = workers()   # before any guard goes up: a refusal here leaves nothing to take down
        if running:
            self.refuse("threads", ", ".join(running)[:120])
        self._sdp = "attention" in self.rule.families   # an exercise that refuses only torch.cat may call SDPA
        self._saved_sdp = [enabled() for enabled, _ in _SDP]
        for _, switch in _SDP if self._sdp else ():
            switch(False)
        self._mode = Refusal(self)
        self._depth = _stack_len()
        self._mode.__enter__()
        self._profile_before, self._thread_profile_before = _getprofile(), _thread_getprofile()
        _thread_setprofile(self._profile)
        _setprofile(self._profile)
        if self.record is not None:
            self.record.calls += 1
        return self

    def __exit__(self, kind, error, tb):
        self._leaving = True
        up = _getprofile() == self._profile
        _setprofile(self._profile_before)
        _thread_setprofile(self._thread_profile_before)
        mode_up = _stack_len() == self._depth + 1 and _stack_at(self._depth) is self._mode and _tf_enabled()
        if mode_up:
            self._mode.__exit__(None, None, None)
        sdp_down = not self._sdp or not any(enabled() for enabled, _ in _SDP)
        for (_, switch), saved in zip(_SDP, self._saved_sdp):
            switch(saved)
        running = workers() if self.refused is None else []
        if running:
            self.refused = f"threads:{', '.join(running)[:120]}"
        broken = next((what for what, ok in (("sys.setprofile", up), ("TorchFunctionMode", mode_up),
                                             ("sdp_kernel", sdp_down)) if not ok), None)
        if self.refused is None and broken:
            self.refused = f"guard:{broken}"
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
