"""By hand means by hand: while a by-hand exercise's code runs, the library does the work for it nowhere.

Whether an exercise is by hand is said once, on its tests cell in the lesson source
(`:by_hand: attention` or `:by_hand: attention, softmax`, and `:library_path: use_sdpa=True`
for a module whose other path is meant to call the library). The build writes those
declarations into attn_course/exercises.py; the visible checks, the probes, the grader's
scan and the README all read them from there.

While the learner's code runs inside a by-hand exercise's check or probe, three guards
are up, each covering what the others cannot see:

- a TorchFunctionMode sees every torch function by its own name, however it was reached:
  `F.scaled_dot_product_attention` under any alias or captured default argument,
  `torch.ops.aten.…`, `torch._C._nn.…`, nn.MultiheadAttention (as
  `multi_head_attention_forward` or the fused `_native_multi_head_attention`), `flex_attention`;
- SDPA's backends are all switched off, process-wide, so a thread of the learner's or a
  function mode the learner disabled still meets a refusal;
- a profile hook sees every Python and builtin call: into the course's own checks, probes,
  widgets and Hugging Face helpers (which hold right answers), into transformers, into
  torch's attention code, and the calls that would take these guards down.

The families refused are read from torch when this module is imported, not written here:
every function whose name says attention (or softmax), in every namespace torch offers.
`:by_hand: concat` (a cache written in place, never joined) refuses torch.cat and its kin
(concat, stack, hstack, …) by their whole names, and leaves SDPA on.
A refused call raises; it is also recorded, so a learner who catches the error still fails.
When the learner's code returns, each guard must still be in force.

This runs in the learner's kernel, so code written to rewrite this module before a check
runs is not stopped here; the grader's scan (attn_grader/scan.py) flags it for the instructor.
"""
from __future__ import annotations

import contextlib
import functools
import inspect
import os
import sys
import threading
import traceback
import types
import warnings
from dataclasses import dataclass

import torch
from torch.overrides import TorchFunctionMode

from .exercises import EXERCISES
from .messages import t
from .validate import CheckFailed

REFUSED_KIND = "LibraryAttentionRefused"  # what a probe records as the learner code's error kind
FAMILIES = {"attention": ("attention", "transformer_encoder"), "softmax": ("softmax", "logsumexp"), "concat": ()}
# A family named by whole names, not by a word inside them: "cat" is also in scatter and truncate.
EXACT = {"concat": frozenset({"cat", "concat", "concatenate", "_cat", "stack", "_stack", "hstack", "vstack", "dstack",
                              "column_stack", "row_stack"})}


# --------------------------------------------------------------------------- what the lessons declare
@dataclass(frozen=True)
class Rule:
    families: tuple            # ("attention",) or ("attention", "softmax")
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


def _parse(value) -> object:
    return {"True": True, "False": False}.get(value, value)


def _rules(kind: str) -> dict:
    """kind: "probes" or "checks" -> {"lesson1.attention_scores": Rule, …} for every by-hand exercise."""
    found = {}
    for cells in EXERCISES.values():
        for cell in cells.values():
            if not cell["by_hand"]:
                continue
            path = cell["library_path"]
            if path:
                key, value = path.split("=", 1)
                path = (key.strip(), _parse(value.strip()))
            for name in cell[kind]:
                found[name] = Rule(tuple(cell["by_hand"]), path)
    return found


PROBE_RULES, CHECK_RULES = _rules("probes"), _rules("checks")
_current: list = []  # the Exercise whose check or probe is running, innermost last


class Exercise:
    """with Exercise(rule): the calls of the learner's code that run() makes from here on are by hand
    (rule None: none are). Counts them, and whether every guard held, for the probe's record."""

    def __init__(self, rule: Rule | None):
        self.rule = rule
        self.calls = 0
        self.intact = True

    def __enter__(self):
        _current.append(self)
        return self

    def __exit__(self, *exc):
        _current.remove(self)
        return False


def current() -> Exercise | None:
    return _current[-1] if _current and _current[-1].rule else None


def guarded(rule: Rule | None, fn):
    """fn (a visible check) with its exercise's rule in force while it runs."""
    if rule is None:
        return fn

    @functools.wraps(fn)
    def check(*args, **kwargs):
        with Exercise(rule):
            return fn(*args, **kwargs)
    return check


# --------------------------------------------------------------------------- what the library offers
def _library_names(words: tuple) -> frozenset:
    """Every callable name in torch's namespaces that contains one of words."""
    import torch.nn.functional as F
    spaces = [torch, F, torch.Tensor, torch._C._nn, torch._C._VariableFunctions, torch.special, torch.ops.aten]
    try:
        import torch.nn.attention.flex_attention as flex
        spaces.append(flex)
    except ImportError:
        pass
    names = set()
    for space in spaces:
        names.update(n for n in dir(space) if any(w in n.lower() for w in words) and callable(getattr(space, n, None)))
    return frozenset(names)


def _op_handles(names) -> set:
    """The ids of aten's own C handles for these ops: torch.ops.aten.X.default._op, called directly, has no name."""
    handles = set()
    for name in names:
        packet = getattr(torch.ops.aten, name, None)
        if packet is None or not hasattr(packet, "overloads"):
            continue
        for overload in packet.overloads():
            handles.add(id(getattr(getattr(packet, overload), "_op", None)))
    return handles


def _kernels(names) -> list:
    """(op overload, dispatch key) for every kernel aten registers for these ops: the guard replaces each with
    a refusal while it is up, so TorchScript, another thread and C++ callers (F.cross_entropy's log_softmax)
    meet it too, below every Python-level hook."""
    kernels = []
    for name in sorted(names):
        packet = getattr(torch.ops.aten, name, None)
        if packet is None or not hasattr(packet, "overloads"):
            continue
        for overload in packet.overloads():
            qualified = getattr(packet, overload).name()
            op = name if overload == "default" else f"{name}.{overload}"
            kernels += [(op, key) for key in _KEYS if torch._C._dispatch_has_kernel_for_dispatch_key(qualified, key)]
    return kernels


_KEYS = ("CompositeImplicitAutograd", "CompositeExplicitAutograd", "CPU", "CUDA")
LIBRARY = {family: _library_names(words) | EXACT.get(family, frozenset()) for family, words in FAMILIES.items()}
_KERNELS = {family: _kernels(names) for family, names in LIBRARY.items()}
_HANDLES = {family: _op_handles(names) for family, names in LIBRARY.items()}
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
# Calls that would take the guards down: refused while they are up.
_GUARD_CALLS = frozenset({
    "setprofile", "settrace", "_pop_torch_function_stack", "_push_on_torch_function_stack", "_set_torch_function_mode",
    "_set_sdp_use_math", "_set_sdp_use_flash", "_set_sdp_use_mem_efficient", "_set_sdp_use_cudnn",
    "_set_sdp_use_overrideable", "_set_sdp_priority_order", "enable_math_sdp", "enable_flash_sdp",
    "enable_mem_efficient_sdp", "enable_cudnn_sdp", "sdpa_kernel", "_pop_mode", "_pop_mode_temporarily",
    "_disable_current_modes", "_disable_current_modes_on_stack",
})
# Calls that would reach a guard's own state (through the profiler, a frame, the garbage collector): refused
# when the learner's code makes them.
_INTROSPECTION = frozenset({"getprofile", "gettrace", "_getframe", "get_objects", "get_referrers", "get_referents",
                            "currentframe", "stack", "trace", "getouterframes", "getinnerframes", "walk_stack"})
_INTROSPECTION_FILES = {inspect.__file__, traceback.__file__}
# Bound now, before any learner code runs: a name the learner rebinds later does not reach these.
_setprofile, _getprofile = sys.setprofile, sys.getprofile
_thread_setprofile, _thread_getprofile = threading.setprofile, threading.getprofile
_stack_len, _stack_at = torch._C._len_torch_function_stack, torch._C._get_function_stack_at
_tf_enabled = torch._C._is_torch_function_enabled
_SDP = [(torch.backends.cuda.flash_sdp_enabled, torch._C._set_sdp_use_flash),
        (torch.backends.cuda.mem_efficient_sdp_enabled, torch._C._set_sdp_use_mem_efficient),
        (torch.backends.cuda.math_sdp_enabled, torch._C._set_sdp_use_math),
        (torch.backends.cuda.cudnn_sdp_enabled, torch._C._set_sdp_use_cudnn)]


def _base(name: str) -> str:
    """aten::scaled_dot_product_attention.default -> scaled_dot_product_attention."""
    return name.rsplit("::", 1)[-1].split(".", 1)[0]


# --------------------------------------------------------------------------- the guards
# What a refusal names, by what was called: the probe records "kind:what", and the grader reads the kind.
HINTS = {"attention": "hint_from_scratch", "softmax": "hint_softmax_by_hand", "concat": "hint_concat_by_hand",
         "course": "hint_course_not_answer", "guard": "hint_by_hand_guard"}


def hint_key(recorded: str) -> str:
    """The hint for a refusal a probe recorded as "kind:what"."""
    return HINTS.get(recorded.split(":", 1)[0], "hint_from_scratch")


def hint_for(recorded: str, rule: Rule | None, name: str) -> tuple[str, dict]:
    """The hint (key, fields) for a refusal recorded as "kind:what" in an exercise under rule: where the text lets
    one path call the library (`:library_path: use_sdpa=True`), the hint says which, so a learner who called it
    on the other path is not told the library is banned from both."""
    kind = recorded.split(":", 1)[0]
    if kind == "attention" and rule is not None and rule.library_path:
        key, value = rule.library_path
        return "hint_from_scratch_path", {"name": name, "path": f"{key}={value}"}
    return hint_key(recorded), {"name": name}


def refused_what(recorded: str) -> str:
    return recorded.split(":", 1)[-1]


class Refusal(TorchFunctionMode):
    """The function mode: refuses the families' torch functions, whatever name the call came through."""

    def __init__(self, guard: "Guard"):
        super().__init__()
        self.guard = guard

    def __torch_function__(self, func, types, args=(), kwargs=None):
        name = _base(getattr(func, "__name__", "") or str(func))
        family = self.guard.family(name)
        if family:
            self.guard.refuse(family, name)
        return func(*args, **(kwargs or {}))


def _entries(values) -> set:
    """The code of callables the course itself hands to the learner's code (a rotation, say): those may run."""
    codes = set()
    for value in values:
        func = getattr(value, "__func__", value)
        code = getattr(func, "__code__", None)
        if code is None and isinstance(value, torch.nn.Module):
            code = getattr(type(value).forward, "__code__", None)
        if code is not None and code.co_filename.startswith(_COURSE_DIR):
            codes.add(code)
    return codes


class Guard:
    """Up for one call of the learner's code: see the module docstring."""

    def __init__(self, name: str, rule: Rule, record: Exercise | None = None, handed=()):
        self.name, self.rule, self.record = name, rule, record
        self.names = {f: LIBRARY[f] for f in rule.families}
        self.handles = {h: f for f in rule.families for h in _HANDLES[f]}
        self.entries = _entries(handed)
        self.refused: str | None = None     # "kind:what": the first call refused
        self.broken: str | None = None      # a guard found down when the code returned
        self._leaving = False
        self._codes: dict = {}

    # what is refused
    def family(self, name: str) -> str | None:
        low = name.lower()
        return next((f for f, names in self.names.items()
                     if name in names or any(w in low for w in FAMILIES[f])), None)

    def refuse(self, kind: str, what: str):
        if self.refused is None:
            self.refused = f"{kind}:{what}"
        raise self._failure()

    def _failure(self) -> CheckFailed:
        """The check's failure for the first refusal; its `raised` is what a probe sends the grader."""
        kind, what = self.refused.split(":", 1)
        refused = "concat_refused" if kind == "concat" else "by_hand_refused"
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
            family = self.family(code.co_name)
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
            if verdict is not None:
                kind, what, home = verdict
                # A package may call itself: the course's helper handed to the learner, transformers inside transformers.
                caller = frame.f_back.f_code.co_filename if frame.f_back is not None else ""
                if home is None or not any(h in caller for h in home):
                    self.refuse(kind, what)
            elif code.co_name in _INTROSPECTION and code.co_filename in _INTROSPECTION_FILES:
                if frame.f_back is not None and _learners(frame.f_back.f_code.co_filename):
                    self.refuse("guard", f"{os.path.basename(code.co_filename)[:-3]}.{code.co_name}")
            elif code.co_qualname in ("OpOverload.__call__", "OpOverloadPacket.__call__"):
                op = frame.f_locals.get("self")
                name = _base(getattr(op, "_name", "") or "")
                family = self.family(name)
                if family:
                    self.refuse(family, name)
        elif event == "c_call":
            name = getattr(arg, "__name__", "") or ""
            caller = frame.f_code.co_filename
            if name in _GUARD_CALLS and not caller.startswith(_TORCH_DIR) or \
                    name in _INTROSPECTION and _learners(caller):
                self.refuse("guard", name)
            family = self.family(name) if name else self.handles.get(id(arg))
            if family:
                self.refuse(family, name or "torch.ops")

    # up and down
    def _refusing_kernel(self, family: str, op: str):
        def kernel(*_args, **_kwargs):
            self.refuse(family, op)
        return kernel

    def __enter__(self):
        with warnings.catch_warnings():  # "Overriding a previously registered kernel": that is the point
            warnings.simplefilter("ignore")
            self._library = torch.library.Library("aten", "IMPL")
            for family in self.rule.families:
                for op, key in _KERNELS[family]:
                    self._library.impl(op, self._refusing_kernel(family, op.split(".")[0]), key)
        self._sdp = "attention" in self.rule.families   # an exercise that refuses only torch.cat may call SDPA
        self._saved_sdp = [enabled() for enabled, _ in _SDP]
        for _, switch in _SDP if self._sdp else ():
            switch(False)
        self._mode = Refusal(self)
        self._depth = _stack_len()
        self._mode.__enter__()
        self._profile_before = _getprofile()
        self._thread_profile_before = _thread_getprofile()
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
        self._library._destroy()  # aten's own kernels are back
        if self.refused is None:
            self.broken = next((what for what, ok in (("sys.setprofile", up), ("TorchFunctionMode", mode_up),
                                                      ("sdp_kernel", sdp_down)) if not ok), None)
            if self.broken:
                self.refused = f"guard:{self.broken}"
        if self.refused is None:
            return False
        if self.record is not None:
            self.record.intact = False
        raise self._failure() from None


class _Open:
    """No rule in force: the learner's code runs as it is."""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def guard_for(name: str, args: tuple, kwargs: dict):
    """The guard for the call args[0](*args[1:], **kwargs) of the learner's code, by the running exercise's rule."""
    ex = current()
    if ex is None or ex.rule.exempts(args[0], args[1:], kwargs):
        return _Open()
    return Guard(name, ex.rule, ex, handed=(*args, *kwargs.values()))
