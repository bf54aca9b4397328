"""Decide every grade cell's hidden tests in the grader's process, after the learner's kernel has stopped."""
import re
from pathlib import Path

import nbformat
from attn_course.by_hand import RULES
from attn_course.hand_policy import tampering
from attn_course.judging import Mismatch
from attn_course.probes import MIME
from nbgrader.preprocessors import NbGraderPreprocessor
from traitlets import Unicode

from ..messages import assignment_language, text
from ..scan import exercise_refusals, policy_cells
from ..verdict import carried_from, decide, defined_names, earlier_cause, header_key, hint_of, localize

HIDDEN = re.compile(r"### BEGIN HIDDEN TESTS(.*?)### END HIDDEN TESTS", re.S)
PROBE_CALL = re.compile(r"course\.probes\.(lesson\d+)\.(\w+)\(")
PROBE_ARGS = re.compile(r"course\.probes\.lesson\d+\.\w+\(([^)]*)\)")
TESTS_SUFFIX = "_tests"
REFUSALS = {"hidden_by_hand", "hidden_concat_refused", "hidden_by_hand_threads"}   # the kernel's guard refused
EXERCISE_NUMBER = re.compile(r"ex(\d+)_")  # a grade cell "exN_name_tests" checks the solution cell "exN_name"


def where(label: str) -> tuple:
    """A policy finding's cell, as the learner's language names it: an exercise's cell, or the Nth code cell."""
    number = EXERCISE_NUMBER.match(label)
    if number:
        return ("policy_exercise_cell", {"n": int(number[1])})
    return ("policy_cell", {"n": label.split()[-1]})


def tested_names(source: str) -> list[str]:
    """What a grade cell's hidden part tests, as the learner named it: the function or class handed to its
    probes ("GPT2SelfAttention", "attend_rope_with_cache"), or its answer variables (answer_*), each once, in
    order, as the visible check names them. Later arguments are what the lesson gave (a model, a class)."""
    names = []
    for part in HIDDEN.findall(source):
        for args in PROBE_ARGS.findall(part):
            args = [a.strip() for a in args.split(",") if a.strip()]
            answers = [a for a in args if a.startswith("answer_")]
            names += answers or args[:1]
    return list(dict.fromkeys(names))


def expected_tests(source: str) -> list[str]:
    """The probes a grade cell's hidden part calls, in order ("lesson1.attention_scores", …)."""
    return [f"{lesson}.{name}" for part in HIDDEN.findall(source) for lesson, name in PROBE_CALL.findall(part)]


class DecideHiddenTests(NbGraderPreprocessor):
    """For each grade cell with hidden tests: read the results its probes sent, judge them
    against the reference on inputs drawn from the seed GuardedExecute gave the kernel,
    and write the verdict into the cell, where nbgrader's SaveAutoGrades reads it:

    - right: a line on stdout that the hidden tests passed;
    - wrong, unreadable, missing, or more results than the cell's probes send: an error
      output with the reason in the assignment's language, so the cell scores 0. It comes
      last, after the visible check's "passed" line, and says that the visible check passed:
      printed above that line, a failure read as a contradiction.

    A cell that already failed (its visible check, say) keeps its outputs and its score,
    but is judged all the same: every verdict, with the classic mistake it matches (the
    visible checks' hint key), goes to resources["attn_grading"]["verdicts"], which
    RecordVerdicts keeps on the grader's side for the class report.

    Results bundles and execute_result outputs are removed from grade cells: the one
    carries tensors nobody needs to keep, the other is what nbgrader reads as partial
    credit, and no grade cell of this course makes one honestly.
    """

    reference_dir = Unicode("", help="autograder/reference: the hidden reference modules").tag(config=True)
    source_dir = Unicode("", help="autograder/source: the notebooks as released, to tell the learner's cells").tag(
        config=True)

    def preprocess(self, nb, resources):
        grading = resources.setdefault("attn_grading", {})
        self._seed = grading.get("seed")
        self._verdicts = grading.setdefault("verdicts", {})
        self._lang = assignment_language(resources.get("nbgrader", {}).get("assignment", ""))
        # The learner's own code per exercise: some mistakes are named from it (a `.T`).
        self._solutions = {c.metadata["nbgrader"].get("grade_id"): c.source for c in nb.cells
                           if c.cell_type == "code" and c.metadata.get("nbgrader", {}).get("solution")}
        self._failed = {}  # name -> exercise number: what earlier exercises that failed defined
        self._failures = {}  # exercise number -> (hint, the exercise it was carried over from, or its own number)
        info = resources.get("nbgrader", {})
        self._by_hand = RULES.get(info.get("notebook", ""), {})
        self._tampering, self._refused, self._told = [], {}, None
        if self._by_hand:
            cells = policy_cells(nb, self._released(nb, info))
            self._tampering = tampering(cells)
            self._refused = exercise_refusals(cells, info.get("notebook", ""))
        return super().preprocess(nb, resources)

    def _released(self, nb, info):
        """The notebook as released, to tell the learner's cells from the course's; without it, the solution
        cells are the learner's."""
        path = Path(self.source_dir) / info.get("assignment", "") / f"{info.get('notebook', '')}.ipynb"
        if self.source_dir and path.is_file():
            return nbformat.read(path, 4)
        return nbformat.v4.new_notebook(cells=[c for c in nb.cells if not c.metadata.get("nbgrader", {}).get("solution")])

    def _policy(self, exercise: str, number) -> Mismatch | None:
        """The by-hand policy's verdict on an exercise (attn_course.hand_policy): what could undo the guards
        fails every by-hand exercise, said in full once per notebook; what the exercise's code reaches, its own."""
        if self._tampering:
            if self._told is not None:
                return Mismatch("hidden_by_hand_tamper_again", hint="hint_by_hand_tamper", n=self._told)
            self._told = int(number[1]) if number else "?"
            f = self._tampering[0]
            return Mismatch("hidden_by_hand_tamper", hint="hint_by_hand_tamper", where=where(f.label), line=f.line,
                            code=f.code, why=(f.why,))
        if exercise in self._refused:
            f = self._refused[exercise][0]
            return Mismatch("hidden_by_hand_policy", hint="hint_by_hand_reach", where=where(f.label), line=f.line,
                            code=f.code, what=f.what, why=(f.why,))
        return None

    def preprocess_cell(self, cell, resources, index):
        meta = cell.metadata.get("nbgrader", {})
        if cell.cell_type != "code" or not meta.get("grade") or meta.get("solution"):
            return cell, resources
        bundles = [o.data[MIME] for o in cell.outputs if o.output_type == "display_data" and MIME in o.get("data", {})]
        cell.outputs = [o for o in cell.outputs
                        if o.output_type != "execute_result" and not (o.output_type == "display_data"
                                                                      and MIME in o.get("data", {}))]
        tests = expected_tests(cell.source)
        if not tests:
            return cell, resources  # nothing hidden here
        grade_id = meta.get("grade_id", "")
        source = self._solutions.get(grade_id.removesuffix(TESTS_SUFFIX), "")
        number = EXERCISE_NUMBER.match(grade_id)
        exercise = grade_id.removesuffix(TESTS_SUFFIX)
        policy = self._policy(exercise, number) if exercise in self._by_hand else None
        verdict = self._verdict(tests, bundles, source)
        # The kernel's own refusal, where it met one, is what the learner's check said: the same words here. Code
        # that could undo the kernel's guards makes that refusal worth nothing, and the policy's word stands.
        refused = verdict is not None and verdict.key in REFUSALS
        failure = verdict if refused and not self._tampering else policy or verdict
        hint, hint_fields = hint_of(failure)
        carried = None
        if failure is not None:
            # A later exercise calls the learner's earlier functions: say so when one of those failed too
            # (not on the by-hand policy's verdict, which names the line itself).
            if failure is not policy:
                failure.cause = earlier_cause(source, self._failed)
            carried = carried_from(failure.cause, hint, self._failures)
            if number:
                self._failed.update(dict.fromkeys(defined_names(source), int(number[1])))
                self._failures[int(number[1])] = (hint, carried or int(number[1]))
        self._verdicts[grade_id] = {"tests": tests, "passed": failure is None,
                                    "mismatch": failure.key if failure else None,
                                    "hint": hint, "hint_fields": hint_fields,
                                    "cause": list(failure.cause) if failure is not None and failure.cause else None,
                                    "carried_from": carried}
        if any(o.output_type == "error" for o in cell.outputs):
            return cell, resources  # the cell failed already: its outputs and its score stay as they are
        if failure is None:
            names = ", ".join(tested_names(cell.source))
            cell.outputs.append(nbformat.v4.new_output("stream", name="stdout",
                                                       text=text("hidden_passed", self._lang, name=names) + "\n"))
        else:
            message = localize(failure, self._lang)
            # The visible check printed its "passed" line; a by-hand refusal is no matter of other inputs.
            if any(o.output_type == "stream" for o in cell.outputs) and not failure.key.startswith("hidden_by_hand"):
                message = text(header_key(failure), self._lang) + "\n" + message
            cell.outputs.append(nbformat.v4.new_output("error", ename="HiddenTestFailed", evalue=message,
                                                       traceback=[f"HiddenTestFailed: {message}"]))
        return cell, resources

    def _verdict(self, tests: list[str], bundles: list, source: str) -> Mismatch | None:
        if self._seed is None:  # executed by something other than GuardedExecute: nothing to judge by
            return Mismatch("results_unreadable", why=("why_no_results",))
        if len(bundles) != len(tests):
            why = ("why_no_results",) if not bundles else \
                ("why_extra_results", {"got": len(bundles), "want": len(tests)})
            return Mismatch("results_unreadable", why=why)
        for test, payload in zip(tests, bundles):
            if not isinstance(payload, dict) or payload.get("test") != test:
                return Mismatch("results_unreadable", why=("why_not_decodable", {"key": test}))
            failure = decide(Path(self.reference_dir), self._seed, test, payload, source)
            if failure is not None:
                return failure
        return None
