"""The explorer: CJK labels with no missing glyph, controls that change the picture, ipywidgets 8 and 7.7."""
import subprocess
import sys
import warnings

import pytest
import torch

import attn_course as course
from attn_course import messages
from attn_course.messages import MESSAGES
from conftest import ROOT


@pytest.fixture(params=["ja", "ko"])
def lang(request):
    course.setup(request.param)
    yield request.param
    messages.set_language("ja")


def sample_weights():
    x = course.sentence_embeddings(dtype=torch.float64)
    return torch.softmax(x @ x.T / x.size(-1) ** 0.5, dim=-1)


def test_every_label_renders_without_a_missing_glyph(lang):
    from matplotlib.figure import Figure

    # Both sentences and every message in both languages, in one figure, with the notebook's fonts.
    texts = course.sentence("ja") + course.sentence("ko")
    texts += [m[code] for m in MESSAGES.values() for code in ("ja", "ko")]
    fig = Figure(figsize=(8, 40))
    ax = fig.add_subplot()
    for i, text in enumerate(texts):
        ax.text(0, i, text.replace("$", ""))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fig.savefig(__import__("io").BytesIO(), format="png")
    missing = [str(w.message) for w in caught if "missing" in str(w.message)]
    assert not missing, missing[:5]


def test_controls_change_the_picture(lang):
    explorer = course.AttentionExplorer(sample_weights(), course.sentence(lang), d_k=8)
    frames = [bytes(explorer.image.value)]
    explorer.tau.value = 0.2
    frames.append(bytes(explorer.image.value))
    explorer.scaled.value = False
    frames.append(bytes(explorer.image.value))
    assert all(f.startswith(b"\x89PNG") for f in frames)
    assert len(set(frames)) == 3
    assert explorer.tau.description == messages.t("widget_temperature")


def test_temperature_is_softmax_of_scaled_scores():
    x = course.sentence_embeddings(dtype=torch.float64)
    scores = x @ x.T / 8 ** 0.5
    w = torch.softmax(scores, -1)
    assert torch.allclose(course.temper(w, 0.5), torch.softmax(scores / 0.5, -1))
    assert torch.allclose(course.temper(w, 1.0, unscale=8 ** 0.5), torch.softmax(x @ x.T, -1))
    assert torch.allclose(course.entropy(torch.full((3, 4), 0.25)), torch.full((3,), 4.0, dtype=torch.float64).log())
    assert torch.allclose(course.entropy(torch.eye(3)), torch.zeros(3, dtype=torch.float64))


def test_explorer_follows_weights_from_any_device():
    # The explorer copies to the CPU itself, so CUDA weights need no .cpu() from the learner.
    w = sample_weights().to(course.device.pick_device())
    course.AttentionExplorer(w, course.sentence("ja"))


def test_explorer_works_on_ipywidgets_7_7(tmp_path_factory):
    """Colab ships ipywidgets 7.7.1: put it in front of 8.x in a subprocess and drive the controls."""
    target = ROOT / ".venv" / "ipywidgets-7.7.1"
    if not (target / "ipywidgets").exists():
        subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(target),
                        "ipywidgets==7.7.1", "ipython-genutils==0.2.0"], check=True)
    code = """
import ipywidgets, torch, attn_course as course
assert ipywidgets.__version__ == "7.7.1", ipywidgets.__version__
course.setup("ko")
x = course.sentence_embeddings()
e = course.AttentionExplorer(torch.softmax(x @ x.T, -1), course.sentence("ko"), d_k=8)
a = bytes(e.image.value); e.tau.value = 0.3; b = bytes(e.image.value); e.scaled.value = False; c = bytes(e.image.value)
assert len({a, b, c}) == 3
print("ok")
"""
    env = {"PYTHONPATH": str(target), "PATH": "/usr/bin:/bin"}
    out = subprocess.run([sys.executable, "-W", "ignore::DeprecationWarning", "-c", code], env=env,
                         capture_output=True, text=True)
    assert out.returncode == 0 and out.stdout.strip().endswith("ok"), out.stderr[-2000:]


def test_several_heads_grid_focus_and_entropy(lang):
    w = torch.softmax(torch.randn(1, 4, 6, 6, generator=torch.Generator().manual_seed(0)) * 3, dim=-1)
    explorer = course.AttentionExplorer(w, course.sentence(lang), d_k=4)
    assert explorer.n_heads == 4
    focus, grid = bytes(explorer.image.value), bytes(explorer.grid.value)
    explorer.head.value = 2
    assert bytes(explorer.image.value) != focus and bytes(explorer.grid.value) != grid
    focus2, grid2 = bytes(explorer.image.value), bytes(explorer.grid.value)
    explorer.tau.value = 0.3
    assert bytes(explorer.image.value) != focus2 and bytes(explorer.grid.value) != grid2
    assert [label for label, _ in explorer.head.options] == [messages.t("fig_head", h=h) for h in range(4)]
    assert explorer.grid in explorer.widget.children
