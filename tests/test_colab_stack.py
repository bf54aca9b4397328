"""Every solution notebook on Colab's stack, started the way a Colab learner starts it.

A second environment holds what Colab brings (torch, ipywidgets 7.7.1, matplotlib 3.10.0,
ipykernel) and not the course. Each notebook then runs on a fresh kernel from its first
cell, the bootstrap cell, which pip-installs the course from GitHub exactly as on Colab.
This machine cannot reach GitHub, so git is told, through a git config of this test's own,
to fetch that URL from this checkout instead: pip, git and the cell itself run unchanged.
The checkout's committed HEAD is what gets installed, as a clone of the repository would be.

The demonstrations of lessons 5 and 7 (cells marked `:grading: skip`) train for a few steps here, not 600: every
line runs on Colab's versions all the same; the full trainings run in JupyterLab (tests/short_demos.py).

Python is 3.11 here, not Colab's 3.12: the only torch this machine can install without
downloading a multi-gigabyte CUDA build is a CPU wheel for 3.11.
"""
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import build
import short_demos
from conftest import ROOT, pip

# One `make test` worker runs these: they share one Colab environment (conftest.py, "Scheduling").
pytestmark = pytest.mark.xdist_group("colab")

COLAB = ROOT / ".venv" / "colab"  # removed with the main environment by `make clean-venv`
PINS = ["torch==2.13.0", "ipywidgets==7.7.1", "matplotlib==3.10.0", "ipykernel==6.29.5", "nbclient==0.11.0",
        "nbformat==5.10.4", "tqdm==4.67.1"]
SOLUTIONS = sorted((ROOT / "solutions").glob("*/0[1-9]_*.ipynb"))
GITHUB_URL = f"https://github.com/{build.GITHUB_REPO}"

RUN = r"""
import json, sys, nbformat
from nbclient import NotebookClient
nb = nbformat.read(sys.argv[1], 4)
NotebookClient(nb, timeout=1800, kernel_name="python3", allow_errors=True,
               resources={"metadata": {"path": sys.argv[2]}}).execute()
outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs]
print(json.dumps({
    "errors": [f"{o.ename}: {o.evalue}" for o in outputs if o.output_type == "error"],
    "stderr": [o.text for o in outputs if o.output_type == "stream" and o.name == "stderr"],
    "widgets": sum("application/vnd.jupyter.widget-view+json" in o.get("data", {}) for o in outputs),
    "first_cell": nb.cells[[c.cell_type for c in nb.cells].index("code")].source,
}))
"""


@pytest.fixture(scope="module")
def colab(tmp_path_factory):
    python = COLAB / "bin" / "python"
    stamp = COLAB / "pins.txt"
    if not (python.exists() and stamp.exists() and stamp.read_text() == "\n".join(PINS)):
        shutil.rmtree(COLAB, ignore_errors=True)
        subprocess.run([getattr(sys, "_base_executable", sys.executable), "-m", "venv", str(COLAB)], check=True)
        pip(python, "install", "-q", "--upgrade", "pip")
        pip(python, "install", "-q", *PINS)
        stamp.write_text("\n".join(PINS))
    home = tmp_path_factory.mktemp("colab-home")
    gitconfig = home / "gitconfig"
    gitconfig.write_text(f'[url "file://{ROOT}"]\n\tinsteadOf = {GITHUB_URL}\n[protocol "file"]\n\tallow = always\n'
                         f'[safe]\n\tdirectory = *\n')
    env = {"PATH": f"{COLAB / 'bin'}:/usr/bin:/bin", "HOME": str(home), "GIT_CONFIG_GLOBAL": str(gitconfig),
           "GIT_CONFIG_NOSYSTEM": "1", "OMP_NUM_THREADS": os.environ.get("OMP_NUM_THREADS", "1"),
           "MPLCONFIGDIR": str(home / "mpl"), "PIP_DISABLE_PIP_VERSION_CHECK": "1", "LANG": "C.UTF-8"}
    script = home / "run.py"
    script.write_text(RUN)
    # A course left by an earlier run may be an older commit's: the first notebook tested installs this one.
    pip(python, "uninstall", "-y", "-q", "attn-course", env=env)
    return python, env, script, home


def _installed(python: Path, env: dict) -> dict:
    out = subprocess.run([str(python), "-m", "pip", "list", "--format=json"], env=env, check=True,
                         capture_output=True, text=True).stdout
    return {p["name"].lower(): p["version"] for p in json.loads(out)}


def _bootstrap(path: Path) -> str:
    """The install lines of a notebook's first code cell (up to its first blank line)."""
    nb = json.loads(path.read_text(encoding="utf-8"))
    first = "".join(next(c for c in nb["cells"] if c["cell_type"] == "code")["source"])
    return first.split("\n\n")[0]


# Each language's lesson 1 starts from a runtime without the course, and its first cell installs it from GitHub
# (a clone and a wheel build: 7 s of CPU). Every other notebook's install lines are those same lines (asserted
# below), so the others run with the course that install left, as a Colab learner's next notebook would.
FROM_SCRATCH = {p for p in SOLUTIONS if p.name.startswith("01_")}


def test_every_bootstrap_cell_is_the_one_tried_from_scratch():
    for path in SOLUTIONS:
        scratch = next(p for p in FROM_SCRATCH if p.parent == path.parent)
        assert "pip" in _bootstrap(path) and GITHUB_URL in _bootstrap(path), path
        assert _bootstrap(path) == _bootstrap(scratch), path


def _short(path: Path, home: Path) -> Path:
    """The notebook with its demonstrations' trainings shortened, outside Colab's working folder."""
    nb = json.loads(path.read_text(encoding="utf-8"))
    for cell in nb["cells"]:
        if cell["cell_type"] == "code" and short_demos.marked(cell):
            cell["source"] = short_demos.shorten("".join(cell["source"]))
    short = home / "notebooks" / path.parent.name / path.name
    short.parent.mkdir(parents=True, exist_ok=True)
    short.write_text(json.dumps(nb, ensure_ascii=False), encoding="utf-8")
    return short


def test_only_the_demonstrations_train_briefly(tmp_path):
    """Lessons 5 and 7 still train in their demonstrations, briefly; no other cell changes (lesson 5's graded
    answers read the model its unmarked cell trains for 600 steps)."""
    for path in SOLUTIONS:
        nb = json.loads(path.read_text(encoding="utf-8"))
        short = json.loads(_short(path, tmp_path).read_text(encoding="utf-8"))
        changed = [c for c, s in zip(nb["cells"], short["cells"]) if "".join(c["source"]) != "".join(s["source"])]
        assert all(short_demos.marked(c) for c in changed), path
        calls = [call for c in short["cells"] if short_demos.marked(c) for call in short_demos.calls(c["source"])]
        assert all(f"steps={short_demos.STEPS}" in call for call in calls), (path, calls)
        assert len(calls) == {"05_heads": 2, "07_positions": 1}.get(path.stem, 0), (path, calls)


@pytest.mark.parametrize("path", SOLUTIONS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_solution_runs_on_colab_stack_from_its_bootstrap_cell(colab, path):
    python, env, script, home = colab
    if path in FROM_SCRATCH:
        # A fresh Colab runtime has no course: the notebook's own first cell must install it. (Another notebook
        # tested first finds no course either, after the fixture's uninstall, and its first cell installs it.)
        pip(python, "uninstall", "-y", "-q", "attn-course", env=env)
        assert "attn-course" not in _installed(python, env)
    work = home / "content"  # Colab's working folder: nothing of the course is importable from here
    work.mkdir(exist_ok=True)
    # This timeout and the cell timeout in RUN only guard against a hang, far above a run on a busy machine.
    done = subprocess.run([str(python), str(script), str(_short(path, home)), str(work)], env=env,
                          capture_output=True, text=True, timeout=3600)
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert "pip" in result["first_cell"] and GITHUB_URL in result["first_cell"]
    assert result["errors"] == [], result["errors"]
    assert result["stderr"] == [], result["stderr"][:3]
    assert result["widgets"] >= 1
    versions = _installed(python, env)
    assert "attn-course" in versions, "the bootstrap cell did not install the course"
    # Installing the course must not replace what Colab brings.
    assert versions["ipywidgets"] == "7.7.1" and versions["matplotlib"] == "3.10.0"
    assert versions["torch"].startswith("2.13.0")
