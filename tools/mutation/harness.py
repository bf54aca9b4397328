"""One lesson's solution notebook, in process: what the visible check, the hidden judge and the later cells
say about each mutant of a solution cell.

The notebook is the grader's source copy (autograder/source/<assignment>-ja/), with its solutions and
hidden tests. Its cells run once, in order, without the grade cells (as tools/hint_sweep.py does); the
namespace just before each solution cell is kept. A mutant starts from that namespace (a copy: tensors
and modules copied too, so a mutant that writes into one cannot change the next mutant's start), runs its
cell, then its grade cell's visible part (the check, with the by-hand guards up as in the notebook) and its
probes, which the grader's own verdict code judges on several grading seeds. A mutant whose results equal
the solution's on every seed is equivalent: not a mistake. A mutant the visible check passes then runs the
rest of the notebook: demo cells, later exercises and their checks, and the later probes on one seed.

The demonstrations' trainings (`train(…)` in a cell marked `:grading: skip`, lesson 7's five models) run
tests/short_demos.py's few steps, in the base run and again after a mutant, as the skip class and the Colab stack
run them: every line of the training runs on the mutant (forward, backward, the optimizer, the accuracy and the
figures after), only fewer times. What that cannot show: a mutant that fails or grows only after many steps, or one
slow enough that 600 steps would pass CELL_SECONDS; no later cell of lesson 7 reads the trained numbers for more
than a table and a figure.
"""
from __future__ import annotations

import contextlib
import copy
import io
import os
import re
import signal
import warnings
from dataclasses import dataclass, field

import nbformat
import torch

import short_demos
from classroom import ROOT
from hint_sweep import notebook_cells, probe_calls

REFERENCE = ROOT / "autograder" / "reference"
HIDDEN_END = "### END HIDDEN TESTS"
CELL_SECONDS = 60   # of CPU time: a mutant that loops (a range changed) is stopped, and that is its verdict


class Timeout(BaseException):
    """Not an Exception: the learner's code under test must not be able to catch it."""


@contextlib.contextmanager
def deadline(seconds: float):
    """Stop the block after this much CPU time (not wall time: a loaded machine must not make a verdict)."""
    def stop(*_):
        raise Timeout
    before = signal.signal(signal.SIGPROF, stop)
    signal.setitimer(signal.ITIMER_PROF, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, before)


def run_code(code: str, ns: dict, seconds: float = CELL_SECONDS) -> tuple[str, BaseException | None]:
    """Run one cell's code; (what it printed, the error it raised or None)."""
    out = io.StringIO()
    try:
        with warnings.catch_warnings(), contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()), \
                deadline(seconds):
            warnings.simplefilter("ignore")
            exec(compile(code, "<cell>", "exec"), ns)
    except (Exception, Timeout) as error:  # noqa: BLE001 - a mutant may break its cell: that is a verdict
        return out.getvalue(), error
    return out.getvalue(), None


# --------------------------------------------------------------------------- naming a message by its key
class Keys:
    """Message texts back to their keys: a visible check shows text, the grader names a key."""

    def __init__(self, lang: str = "ja"):
        from attn_course.messages import MESSAGES
        self.patterns = []
        for key, texts in MESSAGES.items():
            parts = re.split(r"\{[^{}]*\}", texts[lang])
            if sum(len(p) for p in parts) < 8:
                continue   # a template that is mostly fields would match anything
            self.patterns.append((key, re.compile("^" + "(.*?)".join(map(re.escape, parts)) + "$", re.S)))
        # Hints first, and longer templates before shorter ones: the most specific key wins.
        self.patterns.sort(key=lambda kp: (not kp[0].startswith("hint_"), -len(kp[1].pattern)))

    def of(self, text: str) -> str | None:
        return next((key for key, pattern in self.patterns if pattern.match(text)), None)


# --------------------------------------------------------------------------- the notebook
@dataclass
class Cell:
    index: int
    grade_id: str | None
    source: str
    solution: bool
    grade: bool

    @property
    def visible(self) -> str:
        return self.source.split(HIDDEN_END, 1)[1] if HIDDEN_END in self.source else self.source

    @property
    def label(self) -> str:
        if self.grade_id:
            return self.grade_id
        first = next((line for line in self.source.splitlines() if line.strip() and not line.startswith("#")), "")
        return f"cell {self.index}: {first.strip()[:50]}"


@dataclass
class Verdict:
    visible: dict = field(default_factory=dict)    # result: pass | hint | no_hint | crash | cell_error
    hidden: dict = field(default_factory=dict)     # result: pass | fail | unstable, key, hint, message, seeds
    equivalent: bool = False
    later: list = field(default_factory=list)      # [{cell, kind, message, hint}]


def _copied(ns: dict) -> dict:
    """The namespace, with its tensors and modules copied (a mutant may write into them in place)."""
    out = dict(ns)
    for name, value in ns.items():
        if isinstance(value, (torch.Tensor, torch.nn.Module)) and not name.startswith("_"):
            try:
                out[name] = copy.deepcopy(value)
            except Exception:  # noqa: BLE001 - a value that cannot be copied is shared, as before
                pass
    return out


def _same(a, b) -> bool:
    """Two recorded results equal: tensors to float rounding, NaN where NaN, the rest exactly."""
    from attn_course.probes.codec import decode
    a, b = decode(a), decode(b)
    return _equal(a, b)


def _equal(a, b) -> bool:
    if isinstance(a, torch.Tensor) or isinstance(b, torch.Tensor):
        if not (isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor)) or a.shape != b.shape \
                or a.dtype != b.dtype or a.device != b.device:
            return False
        if a.device.type == "meta" or not a.numel():
            return True
        if a.dtype == torch.bool or not a.is_floating_point():
            return bool(torch.equal(a, b))
        tol = 1e-5 if a.dtype in (torch.float32, torch.float16, torch.bfloat16) else 1e-10
        return bool(torch.allclose(a.double(), b.double(), rtol=tol, atol=tol, equal_nan=True))
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(_equal(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_equal(a[k], b[k]) for k in a)
    if isinstance(a, float) and isinstance(b, float):
        return a == b or abs(a - b) <= 1e-9 * max(1.0, abs(b)) or (a != a and b != b)
    return type(a) is type(b) and a == b


class Notebook:
    """A lesson's solution notebook, run once, lazily, up to the cells a mutant needs."""

    def __init__(self, lesson, seeds=(0, 1, 2)):
        self.lesson, self.seeds = lesson, tuple(seeds)
        path = ROOT / "autograder" / "source" / f"{lesson.assignment}-ja" / f"{lesson.stem}.ipynb"
        nb = nbformat.read(path, 4)
        marked = [short_demos.marked(c) for c in nb.cells if c.cell_type == "code"]
        self.cells = [Cell(i, gid, short_demos.shorten(src) if marked[i] else src, sol, grade)
                      for i, (gid, src, sol, grade) in enumerate(notebook_cells(nb))]
        self.keys = Keys("ja")
        self._ns = {"__name__": "__main__"}
        self._done = 0             # cells of the base run so far
        self._before: dict = {}    # solution cell index -> namespace just before it
        self._names: dict = {}     # cell index -> the names bound just before it (a shallow copy: cheap)
        self._payloads: dict = {}  # (grade id, seed) -> the solution's recorded results

    # the base run
    def _advance(self, upto: int) -> None:
        from attn_course import messages
        while self._done <= upto and self._done < len(self.cells):
            cell = self.cells[self._done]
            self._names[cell.index] = dict(self._ns)
            if cell.solution:
                self._before[cell.index] = _copied(self._ns)
            if not cell.grade:
                _, error = run_code(cell.source, self._ns, 3600)
                if error is not None:
                    raise RuntimeError(f"the solution notebook fails at {cell.label}: {error!r}")
            self._done += 1
        messages.set_language("ja")

    def cell(self, grade_id: str) -> Cell:
        return next(c for c in self.cells if c.grade_id == grade_id)

    def solutions(self) -> list[Cell]:
        return [c for c in self.cells if c.solution]

    def start(self, cell: Cell) -> dict:
        self._advance(cell.index)
        return _copied(self._before[cell.index])

    def solution_payload(self, grade: Cell, seed: int, k: int) -> dict | None:
        if (grade.grade_id, seed, k) not in self._payloads:
            self._advance(grade.index)
            ns = _copied(self._ns)
            self._payloads.update({(grade.grade_id, s, i): p for s in self.seeds
                                   for i, (p, _) in enumerate(self._judge(grade, ns, s, ""))})
        return self._payloads.get((grade.grade_id, seed, k))

    # judging
    def _judge(self, grade: Cell, ns: dict, seed: int, source: str) -> list:
        """[(payload, Mismatch or None)] for each probe of the grade cell, on one grading seed."""
        from attn_course.probes import SEED_ENV
        from attn_grader.verdict import decide
        os.environ[SEED_ENV] = str(seed)
        out = []
        for call in probe_calls(grade.source):
            import ast
            try:
                with deadline(CELL_SECONDS), warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
                    warnings.simplefilter("ignore")
                    probe = eval(compile(ast.Expression(call.func), "<probe>", "eval"), ns)
                    args = [eval(compile(ast.Expression(a), "<arg>", "eval"), ns) for a in call.args]
                    payload = probe.record(*args)
            except (Exception, Timeout) as error:  # noqa: BLE001 - a name the mutant never defined
                payload = {"test": "?", "values": {}, "raised": {"kind": type(error).__name__, "message": str(error)}}
                out.append((payload, _unnamed(error)))
                continue
            out.append((payload, decide(REFERENCE, seed, probe.test, payload, source)))
        return out

    def visible(self, grade: Cell, ns: dict) -> dict:
        from attn_course.validate import CourseError
        printed, error = run_code(grade.visible, ns)
        if error is None:
            return {"result": "pass"} if "✔" in printed else {"result": "pass", "note": printed[-200:]}
        if isinstance(error, CourseError):
            keys = [k for k in [self.keys.of(error.message), *(self.keys.of(h) for h in error.hints)] if k]
            # A message that is itself a hint ("the mask must be bool") names the mistake as a hint line would.
            named = bool(error.hints) or any(k.startswith("hint_") for k in keys)
            return {"result": "hint" if named else "no_hint", "message": error.message, "hints": error.hints,
                    "keys": keys, "also": list(getattr(error, "also", []))}
        return {"result": "crash", "message": f"{type(error).__name__}: {error}"[:500], "hints": [], "keys": []}

    def hidden(self, grade: Cell, ns: dict, source: str, seeds=None) -> tuple[dict, bool]:
        """(verdict over the seeds, whether every result equals the solution's)."""
        from attn_grader.verdict import hint_of, localize
        failed, keys, message, equivalent = [], {}, None, True
        for seed in seeds or self.seeds:
            judged = self._judge(grade, ns, seed, source)
            for k, (payload, mismatch) in enumerate(judged):
                want = self.solution_payload(grade, seed, k)
                if "raised" in payload or want is None or not _same(payload.get("values"), want.get("values")):
                    equivalent = False
                if mismatch is not None:
                    failed.append(seed)
                    hint = hint_of(mismatch)[0]
                    keys[hint] = keys.get(hint, 0) + 1
                    message = message or localize(mismatch, "ja")
                    mismatch_key = mismatch.key
                    break
        seeds = tuple(seeds or self.seeds)
        if not failed:
            return {"result": "pass"}, equivalent
        hint = max(keys, key=keys.get)
        return {"result": "fail" if len(set(failed)) == len(seeds) else "unstable", "hint": hint,
                "key": mismatch_key, "hints": {str(k): n for k, n in keys.items()}, "message": message,
                "seeds_failed": len(set(failed))}, False

    # one mutant
    def evaluate(self, mutant, later: bool = True) -> Verdict:
        from attn_course import messages
        cell = next(c for c in self.cells if c.grade_id == mutant.cell)
        grade = self.cell(f"{mutant.cell}_tests")
        ns = self.start(cell)
        torch.manual_seed(0)
        verdict = Verdict()
        _, error = run_code(mutant.code, ns)
        messages.set_language("ja")
        if error is not None:   # the learner's own cell fails before any check: Python's traceback is the message
            verdict.visible = {"result": "cell_error", "message": f"{type(error).__name__}: {error}"[:300],
                               "hints": [], "keys": []}
        else:
            torch.manual_seed(0)
            verdict.visible = self.visible(grade, _copied(ns))
        verdict.hidden, verdict.equivalent = self.hidden(grade, _copied(ns), mutant.code)
        if later and verdict.visible["result"] == "pass":
            verdict.later = self.run_later(grade, ns, names(mutant.code)[1])
        return verdict

    def run_later(self, grade: Cell, ns: dict, changed: set) -> list:
        """Every failure in the notebook after this grade cell that the mutant can cause.

        Only the cells that read a name the mutated cell defines, or a name such a cell defined, run again
        (a demo that trains or times something and never touches the mutant is not run once per mutant);
        everything else they read comes from the solution's own run just before that cell, as it would be in the
        learner's kernel (not from the end of the notebook: a later section may bind the same name, x or a
        module, to another value).
        """
        self._advance(len(self.cells) - 1)
        state = {name: ns[name] for name in changed if name in ns}   # what the mutant and the cells re-run bound
        failures = []
        for cell in self.cells[grade.index + 1:]:
            reads, writes = names(cell.source)
            if not reads & changed:
                continue
            changed |= writes
            ns = _copied(self._names[cell.index])
            ns.update(state)
            torch.manual_seed(0)
            self._rerun(cell, ns, failures)
            state.update({name: ns[name] for name in writes if name in ns})
        return failures

    def _rerun(self, cell: Cell, ns: dict, failures: list) -> None:
        """One later cell again, on the mutant's names: its failures added to failures."""
        if not cell.grade:
            _, error = run_code(cell.source, ns)
            if error is not None:
                failures.append({"cell": cell.label, "kind": "raised",
                                 "message": f"{type(error).__name__}: {error}"[:300]})
            return
        seen = self.visible(cell, _copied(ns))
        if seen["result"] != "pass":
            failures.append({"cell": cell.label, "kind": "visible", "message": seen["message"][:300],
                             "keys": seen["keys"]})
        if probe_calls(cell.source):
            hidden, _ = self.hidden(cell, _copied(ns), "", seeds=self.seeds[:1])
            if hidden["result"] != "pass":
                failures.append({"cell": cell.label, "kind": "hidden", "message": hidden["message"][:300],
                                 "hint": hidden["hint"]})


def names(code: str) -> tuple[set, set]:
    """(names a cell reads from the notebook's namespace, names it binds there): which later cells a changed
    definition can reach.

    Scopes as Python resolves them (symtable): a function's or class's own locals are neither (`B, T, E = x.shape`
    inside forward binds nothing a later cell sees, and a later `forward` reading its own `x` reads no notebook
    `x`); a global a function body reads is read, as the call will read it.
    """
    import symtable
    top = symtable.symtable(code, "<cell>", "exec")
    reads = {s.get_name() for s in top.get_symbols() if s.is_referenced()}
    writes = {s.get_name() for s in top.get_symbols() if s.is_assigned() or s.is_imported()}
    scopes = list(top.get_children())
    while scopes:
        scope = scopes.pop()
        scopes += scope.get_children()
        for s in scope.get_symbols():
            if s.is_global() and s.is_referenced():
                reads.add(s.get_name())
            if s.is_declared_global() and s.is_assigned():
                writes.add(s.get_name())
    return reads, writes


def _unnamed(error: BaseException):
    from attn_course.judging import Mismatch
    return Mismatch("hidden_raised", name="?", error=f"{type(error).__name__}: {error}"[:300])
