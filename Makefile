# Two commands matter (see README): `make lab` and `make test`. Both create the
# environment in .venv on first use, with nothing but Python 3.11+ and make.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
# nbgrader runs `alembic` from PATH; the venv must come first.
export PATH := $(abspath $(BIN)):$(PATH)
# Each learner's kernel, and each pytest worker, uses one thread: the machine has two cores.
export OMP_NUM_THREADS ?= 1

.PHONY: handout lab test test-lesson browser-deps readme build assignments autograde export export-lms override formgrader \
	classroom workspace bench bench-grading hint-sweep mutants clean-venv

# The steps themselves live in tools/course.py, which Windows learners run without make.
$(STAMP): requirements.txt pyproject.toml grader/pyproject.toml
	$(PYTHON) tools/course.py setup

## make lab: set everything up and open the course in JupyterLab on 127.0.0.1
lab: $(STAMP)
	$(PYTHON) tools/course.py lab

## make test: set everything up and run every test
# Two pytest workers, one per core. Tests that share a JupyterLab server, the Colab-stack
# environment or a graded class stay on one worker, so each is built once; the longest go first
# (tests/conftest.py, "Scheduling"). --durations: the slowest tests, for docs/measurements.md's table.
test: $(STAMP) browser-deps
	$(BIN)/python -m pytest -q -n 2 --dist loadgroup --no-loadscope-reorder --durations=30 tests

## make test-lesson LESSON=04_gpt2: one lesson's inner loop: its tests, its graded class only, one grade on 20 seeds
test-lesson: $(STAMP)
	ATTN_TEST_LESSONS=$(LESSON) $(BIN)/python -m pytest -q -p no:xdist \
		tests/test_lesson$(shell echo $(LESSON) | sed -E 's/^0*([0-9]+)_.*/\1/').py tests/test_grading.py \
		tests/test_report.py tests/test_one_grade.py

# The browser tests need Debian's chromium (Playwright must not download a browser of its own)
# and a CJK font, so screenshots show the lessons' text. Only root can install them; without
# them, and not as root, the browser tests are skipped and say why.
DEBS := chromium fonts-noto-cjk
browser-deps:
	@if [ ! -x /usr/bin/chromium ] || ! fc-list 2>/dev/null | grep -q "Noto Sans CJK"; then \
		if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
			apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q $(DEBS); \
		else \
			echo "browser tests: $(DEBS) missing and not root, so they will be skipped"; \
		fi; \
	fi

## make workspace: copy the learner notebooks into workspace/ (git-ignored); never overwrites a file
workspace:
	@$(PYTHON) tools/course.py workspace

## make build: regenerate autograder/source, notebooks/ and solutions/ from lessons/
build: $(STAMP)
	$(BIN)/python tools/build.py

## make readme: regenerate README's lesson table and docs/instructors.md's grade tables (lessons/, tools/planted/)
readme: $(STAMP)
	PYTHONPATH=tools:tests $(BIN)/python tools/readme.py

## make assignments: release every assignment in autograder/ (gradebook and release/ for nbgrader);
## make assignments ASSIGNMENT=03-masks-ja releases that one (03-masks: both languages)
assignments: $(STAMP)
	$(BIN)/python tools/build.py --assignments $(ASSIGNMENT)

## make autograde: grade autograder/submitted/<student>/<assignment>/ in parallel: grades.csv, feedback/, flags.csv;
## STUDENT=… and/or ASSIGNMENT=… grade only those (a late learner); the class's files are redrawn all the same;
## REPORT_LANG=ko (or ja, en): the class report and flags.csv's notes in the instructor's language
REPORT_ENV = $(if $(REPORT_LANG),ATTN_REPORT_LANG=$(REPORT_LANG))
autograde: $(STAMP)
	$(REPORT_ENV) $(BIN)/python -m attn_grader.grade --course autograder $(if $(STUDENT),--student $(STUDENT)) \
		$(if $(ASSIGNMENT),--assignment $(ASSIGNMENT))

## make export LMS=canvas (or moodle, or grades): nbgrader export with the course's exporter, into autograder/;
## ASSIGNMENT=02-multihead (both languages) or 02-multihead-ja, several in quotes: only those (nbgrader's --assignment),
## into a file of their own (canvas-grades-02-multihead.csv), so the whole class's file is not replaced by a part;
## REPORT_LANG as for make autograde (a Moodle export rewrites flags.csv's notes)
LMS ?= grades
empty :=
space := $(empty) $(empty)
EXPORT_TO = $(if $(filter grades,$(LMS)),grades,$(LMS)-grades)$(if $(strip $(ASSIGNMENT)),-$(subst $(space),+,$(strip $(ASSIGNMENT)))).csv
EXPORTERS := grades=CourseGradesExport canvas=CanvasExport moodle=MoodleExport
# An LMS the course has no exporter for stops here, before any set-up.
export-lms:
	@$(if $(filter $(LMS)=%,$(EXPORTERS)),:,echo "make export: LMS=$(LMS) is not one of: $(foreach e,$(EXPORTERS),$(firstword $(subst =, ,$(e)))) (README, For instructors)" >&2; exit 2)
export: export-lms $(STAMP)
	cd autograder && $(REPORT_ENV) $(abspath $(BIN))/python -m nbgrader export --log-level=WARN \
		--exporter=attn_grader.exports.$(patsubst $(LMS)=%,%,$(filter $(LMS)=%,$(EXPORTERS))) \
		--to=$(EXPORT_TO) \
		$(foreach a,$(ASSIGNMENT),--assignment=$(a))

## make override STUDENT=aiko ASSIGNMENT=03-masks SCORE=12 REASON="…": the grade that counts for one learner and lesson,
## with its reason, in grades.csv, the LMS files and the class report, through regrades and resubmissions;
## REMOVE=1 (with a REASON) takes it away; make override LIST=1 shows those in force (docs/instructors-grades.md)
override: $(STAMP)
	$(REPORT_ENV) $(BIN)/python -m attn_grader.override_command --course autograder $(if $(filter 1 yes true,$(LIST)),--list,\
		--student "$(STUDENT)" --assignment "$(ASSIGNMENT)" $(if $(filter 1 yes true,$(REMOVE)),--remove,--score "$(SCORE)") \
		--reason "$(REASON)")

## make formgrader: nbgrader's formgrader for this course (autograder/) on 127.0.0.1: manual grades and comments
formgrader: $(STAMP)
	$(PYTHON) tools/course.py formgrader

## make classroom LESSON=03-masks STUDENTS=40: generated submissions of a lesson in autograder/submitted/, to try grading
classroom: $(STAMP)
	PYTHONPATH=tools $(BIN)/python tools/classroom.py --lesson $(LESSON) --students $(or $(STUDENTS),40)

## make bench: time every solution notebook, the explorer in Python and in the browser; STRICT=1 fails over budget
# Speed is measured here, on a quiet machine, and never asserted by a test (a busy CI machine is no bug).
bench: $(STAMP) browser-deps
	$(BIN)/python tools/bench.py --out bench.json $(if $(filter 1 yes true,$(STRICT)),--strict)

## make bench-grading: plain serial nbgrader against make autograde on 40 generated submissions; lessons 5 and 7
## graded with their demonstration cells skipped and run (PART=demo for those only)
bench-grading: $(STAMP)
	PYTHONPATH=tools:tests $(BIN)/python tools/bench_grading.py --out bench-grading.json $(if $(PART),--part $(PART))

## make hint-sweep: does the grader name each planted bug's mistake right on every grading seed?
hint-sweep: $(STAMP)
	PYTHONPATH=tools $(BIN)/python tools/hint_sweep.py --seeds 40 --out hint-sweep.json

clean-venv:
	rm -rf $(VENV)

## make mutants: generated mistakes for every solution cell; what the checks and the grader say (test-artifacts/mutants/)
# LESSON=03_masks for one lesson; SEEDS=3 grading seeds per mutant. --readme rewrites docs/measurements.md's mutant table
# (a lesson not run keeps its row).
LESSON ?=
SEEDS ?= 3
mutants: $(STAMP)
	PYTHONPATH=tools:tests $(BIN)/python tools/mutants.py --seeds $(SEEDS) $(if $(LESSON),--lesson $(LESSON)) \
		--readme

## make handout PACKAGE=https://…/attn_course-0.1.0-py3-none-any.whl: a private term's handout (handout/): the learner
## notebooks installing the course's package from PACKAGE (default: the wheel beside them), and that wheel
handout: $(STAMP)
	$(BIN)/python tools/handout.py $(if $(PACKAGE),--package "$(PACKAGE)")
