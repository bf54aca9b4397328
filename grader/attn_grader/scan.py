"""What the grader reads from the learner's source: their cells, the by-hand policy's findings, and flags.

The by-hand policy (attn_course.hand_policy) decides scores; DecideHiddenTests asks it. flags.csv lists its
findings for the instructor, and a few things no honest answer needs but that change no score: reading
files or the environment, the network, stopping or forking the process, custom equality. A flag is a look.

Opening or saving a file is not one: learners save figures and notes, and the kernel writes only its own copy of
its folder (sandbox.py). A path naming the course's grading files is (STRINGS), and so is listing or removing files.
"""
from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

import nbformat
from attn_course import by_hand, hand_policy

TESTS_SUFFIX = "_tests"
NAMES = {
    "glob": "files", "sqlite3": "files",
    "subprocess": "process", "multiprocessing": "process", "signal": "process", "socket": "process",
    "resource": "process", "threading": "process", "_thread": "process", "exit": "process", "quit": "process",
    "urllib": "network", "http": "network", "requests": "network", "urlopen": "network", "httpx": "network",
    "environ": "environment", "getenv": "environment", "NBGRADER_EXECUTION": "environment",
    "__eq__": "fake_equality", "__ne__": "fake_equality", "__torch_function__": "fake_equality",
    "__bool__": "fake_equality", "_make_subclass": "fake_equality", "as_subclass": "fake_equality",
    "showtraceback": "kernel", "excepthook": "kernel", "set_custom_exc": "kernel", "displayhook": "kernel",
}
ATTRIBUTES = {"_exit": "process", "fork": "process", "kill": "process", "system": "process", "popen": "process",
              "listdir": "files", "scandir": "files", "walk": "files", "chmod": "files", "remove": "files"}
STRINGS = re.compile(r"reference|autograder|gradebook|nbgrader|submitted|/source/|\.db\b|\.ipynb|attn-course\.results|"
                     r"ATTN_GRADING", re.I)


def learner_cells(submitted, source) -> list[tuple[str, str | None, object]]:
    """(label, grade id, cell) for every code cell the learner wrote: a solution cell, or a cell of their own.

    The source's locked cells (set-up, demos, tests) are restored by nbgrader before anything runs,
    so what a learner typed into one never runs; a cell whose text is the course's own is the course's."""
    hidden = re.compile(r"### BEGIN HIDDEN TESTS.*?### END HIDDEN TESTS\n?", re.S)
    ours, locked = set(), set()
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
        mine.append((grade_id or f"cell {index + 1}", grade_id, cell))
    return mine


def policy_cells(submitted, source) -> list[hand_policy.Cell]:
    """The submission's code cells for the by-hand policy, each labelled by its grade id or its place."""
    mine = {id(cell) for _, _, cell in learner_cells(submitted, source)}
    return [hand_policy.Cell(c.metadata.get("nbgrader", {}).get("grade_id") or f"cell {i + 1}", c.source,
                             id(c) not in mine)
            for i, c in enumerate(submitted.cells) if c.cell_type == "code"]


def exercise_refusals(cells: list, stem: str) -> dict:
    """{solution cell id: the policy's findings} for every by-hand exercise of the notebook that has any."""
    labels = [c.label for c in cells]
    found = {}
    for cell_id, rule in by_hand.RULES.get(stem, {}).items():
        if cell_id in labels:
            until = labels.index(cell_id + TESTS_SUFFIX) if cell_id + TESTS_SUFFIX in labels else None
            findings = hand_policy.refusals(cells, rule.families, rule.keyword, start=labels.index(cell_id),
                                            until=until)
            if findings:
                found[cell_id] = findings
    return found


@dataclass(frozen=True)
class Submission:
    """One notebook handed in, read once for everything flags.csv says of it (scan_notebook, similarity.py)."""
    assignment: str
    student: str
    name: str           # the notebook's file name, as released
    notebook: object    # as handed in
    source: object      # as the course wrote it (autograder/source)


def read_submissions(course: Path, work: list[tuple[str, str]]) -> list[Submission]:
    """Every notebook of the submissions in work that is one of the course's, each read once (and each lesson's
    source once); a notebook nbformat cannot read is left out: it could not be graded either (flags.csv says so)."""
    sources, found = {}, []
    for assignment, student in work:
        for path in sorted((course / "submitted" / student / assignment).glob("*.ipynb")):
            source = course / "source" / assignment / path.name
            if not source.exists():
                continue
            try:
                if source not in sources:
                    sources[source] = nbformat.read(source, 4)
                found.append(Submission(assignment, student, path.name, nbformat.read(path, 4), sources[source]))
            except Exception:  # noqa: BLE001 - a file nbformat cannot read: nothing to scan
                continue
    return found


def scan_notebook(nb, source_nb, stem: str) -> list[tuple[str, str, int, str]]:
    """(cell, rule, line, text) for every flag of a submitted notebook (its source: as the course wrote the lesson
    `stem`): the by-hand policy's findings, then the rest."""
    cells = policy_cells(nb, source_nb)
    flags = [(f.label, f.why, f.line, f.code) for f in hand_policy.tampering(cells)]
    for cell_id, findings in exercise_refusals(cells, stem).items():
        flags += [(f.label, f.why, f.line, f.code) for f in findings]
    for label, _, cell in learner_cells(nb, source_nb):
        flags += [(label, rule, line, text) for rule, line, text in scan_source(cell.source)]
    return sorted(set(flags), key=lambda f: (f[0], f[2], f[1]))


def scan_source(source: str) -> list[tuple[str, int, str]]:
    """(rule, line, text) for what no honest answer needs in one cell, beyond the by-hand policy."""
    lines = source.splitlines()
    flags = [("process", i + 1, line.strip()) for i, line in enumerate(lines) if line.lstrip().startswith("!")]
    tree = hand_policy.parse(source)
    if tree is None:
        return flags
    for node in ast.walk(tree):
        rule = _rule(node)
        if rule:
            line = getattr(node, "lineno", 1)
            flags.append((rule, line, lines[line - 1].strip() if line <= len(lines) else ""))
    return sorted(set(flags), key=lambda f: (f[1], f[0]))


def _rule(node) -> str | None:
    if isinstance(node, ast.Name):
        return NAMES.get(node.id)
    if isinstance(node, ast.Attribute):
        root = hand_policy.root_name(node)
        if node.attr in ATTRIBUTES and root in ("os", "sys", "subprocess", "signal"):
            return ATTRIBUTES[node.attr]
        return "process" if node.attr == "exit" and root in ("sys", "os") else NAMES.get(node.attr)
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        names = [a.name for a in node.names] + ([node.module] if isinstance(node, ast.ImportFrom) else [])
        return next((NAMES[n.split(".")[0]] for n in names if n and n.split(".")[0] in NAMES), None)
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return NAMES.get(node.name)
    if isinstance(node, ast.ClassDef) and any(hand_policy.root_name(b) == "torch" or "Tensor" in ast.unparse(b)
                                              for b in node.bases):
        return "fake_equality"
    if isinstance(node, ast.Constant) and isinstance(node.value, str) and STRINGS.search(node.value):
        return "files"
    return None
