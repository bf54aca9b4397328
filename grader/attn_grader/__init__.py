"""Grading for "Attention, head by head". Instructors and the test suite install it; learners never do.

One concern per module:
- preprocessors/: the nbgrader preprocessors of autograder/nbgrader_config.py, one per file;
- judge: the public API the hidden references (autograder/reference/lessonN.py) use;
- references, verdict: loading the references and deciding one hidden test, in this process;
- forkserver, sandbox: learners' kernels, forked from a warm process, each in a private root;
- grade: `python -m attn_grader.grade`, what `make autograde` runs for a whole class;
- feedback: feedback pages in the assignment's language; scan: flags.csv for the instructor;
- messages: what the grader writes, in Japanese and Korean.
"""
