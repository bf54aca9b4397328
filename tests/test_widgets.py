"""The explorer: CJK labels with no missing glyph, controls that change the picture, ipywidgets 8 and 7.7."""
import math
import subprocess
import sys
import warnings

import pytest
import torch

import attn_course as course
from attn_course import messages
from attn_course.messages import MESSAGES
from conftest import ROOT, pip


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
        pip(sys.executable, "install", "-q", "--no-deps", "--target", str(target),
            "ipywidgets==7.7.1", "ipython-genutils==0.2.0")
    code = """
import ipywidgets, torch, attn_course as course
assert ipywidgets.__version__ == "7.7.1", ipywidgets.__version__
course.setup("ko")
x = course.sentence_embeddings()
e = course.AttentionExplorer(torch.softmax(x @ x.T, -1), course.sentence("ko"), d_k=8)
a = bytes(e.image.value); e.tau.value = 0.3; b = bytes(e.image.value); e.scaled.value = False; c = bytes(e.image.value)
assert len({a, b, c}) == 3
q = torch.randn(2, 3, 6, 4)
s = course.AttentionExplorer.from_qk(q, q.flip(-1), course.sentence("ko"))
frames = set()
for stage in course.widgets.STAGES:
    s.stage.value = stage; frames.add(bytes(s.image.value))
s.layer.value = 1; frames.add(bytes(s.image.value))
s.query.value = 3; s.compare.value = 2
assert len(frames) == 5 and s.bars.value and s.diff.value and s.diff.layout.display != "none"
assert "image/png" in s._repr_mimebundle_()
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


def test_every_control_of_the_explorer_changes_what_is_drawn(lang):
    g = torch.Generator().manual_seed(3)
    tokens = course.sentence(lang)
    q, k = torch.randn(2, 3, len(tokens), 4, generator=g), torch.randn(2, 3, len(tokens), 4, generator=g)
    e = course.AttentionExplorer.from_qk(q, k, tokens, length=4)
    seen = {bytes(e.image.value)}
    for stage in ("stage_scores", "stage_scaled", "stage_masked"):
        e.stage.value = stage
        seen.add(bytes(e.image.value))
    e.stage.value = "stage_softmax"
    for control, value in ((e.layer, 1), (e.head, 2), (e.tau, 0.3), (e.causal, False), (e.padding, False)):
        control.value = value
        seen.add(bytes(e.image.value))
    assert len(seen) == 9, "every stage, layer, head, temperature and mask must draw a different picture"
    # The focused query and the second head appear only when chosen.
    assert e.bars.layout.display == "none" and e.diff.layout.display == "none"
    e.query.value = 2
    e.compare.value = 0
    assert e.bars.layout.display != "none" and e.diff.layout.display != "none"
    bars, diff = bytes(e.bars.value), bytes(e.diff.value)
    e.query.value = 4
    e.compare.value = 1
    assert bytes(e.bars.value) != bars and bytes(e.diff.value) != diff
    labels = {c.description for row in e.widget.children if hasattr(row, "children") for c in row.children}
    assert {messages.t(k) for k in ("widget_layer", "widget_head", "widget_query", "widget_compare",
                                    "widget_temperature")} <= labels


def test_difference_of_two_heads_and_query_entropy_are_right(lang):
    w = torch.zeros(2, 4, 4)
    w[0] = torch.eye(4)
    w[1, :, 0] = 1.0
    e = course.AttentionExplorer(w, ["a", "b", "c", "d"])
    assert torch.allclose(e.current()[0] - e.current()[1], w[0].double() - w[1].double())
    uniform = torch.full((1, 4, 4), 0.25)
    assert abs(float(course.entropy(uniform[0, 2])) - math.log(4)) < 1e-12


def test_saved_notebook_keeps_a_static_picture(lang):
    import base64
    e = course.AttentionExplorer(sample_weights(), course.sentence(lang))
    bundle = e._repr_mimebundle_()
    assert base64.b64decode(bundle["image/png"]).startswith(b"\x89PNG")
    assert bundle["application/vnd.jupyter.widget-view+json"]["model_id"] == e.widget.model_id
    assert bundle["text/plain"] == messages.t("explorer_plain", l=1, h=1, t=len(course.sentence(lang)))


def test_explorer_reads_q_and_k_out_of_a_trained_model(lang):
    from conftest import reference
    ref5 = reference("lesson5")
    torch.manual_seed(0)
    model = ref5.TinyDecoder(n_head=4, n_layer=2).eval()
    idx = torch.randint(0, 16, (3, 12))
    e = course.AttentionExplorer.from_model(model, idx, list(messages.t("toy_vocab"))[:12])
    assert (e.n_layers, e.n_heads) == (2, 4)
    with torch.no_grad():
        want = model(idx)[1]
    for layer in range(2):
        e.layer.value = layer
        assert torch.allclose(e.current(), want[layer][0].double(), atol=1e-6)
    with pytest.raises(course.InputError):
        course.AttentionExplorer.from_model(torch.nn.Linear(2, 2), idx, ["x"] * 12)


def test_loss_and_cost_pictures_render_without_a_missing_glyph(lang, caplog):
    # Log axes label their ticks with mathtext by default, and mathtext's minus sign (U+2212) is
    # missing from NanumGothic; matplotlib reports that through logging, not warnings.
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        course.widgets._to_png(course.widgets.draw_losses({"a": [3.0, 0.5, 0.01, 0.002]}))
        course.widgets._to_png(course.widgets.draw_comparison({1: [0.05, 0.01, 0.04], 2: [0.002, 0.0025, 0.003]}, 32))
        course.widgets._to_png(course.widgets.draw_costs([128, 256, 512], {course.t("label_naive"): [1e-3, 4e-3, 3e-2], "SDPA": [5e-4, 1e-3, 4e-3]},
                                                         {course.t("label_naive"): [2e6, 7e6, 2.6e7], "SDPA": [6e5, 1.2e6, 2.5e6]}))
    reports = [str(w.message) for w in caught] + [r.getMessage() for r in caplog.records]
    assert not [r for r in reports if "glyph" in r.lower()], reports[:3]


def test_a_control_redraws_only_the_views_it_changes(lang):
    # Issue 21: a change answers fast because views it does not affect are left as they are.
    g = torch.Generator().manual_seed(5)
    tokens = course.sentence(lang)
    q, k = torch.randn(3, len(tokens), 4, generator=g), torch.randn(3, len(tokens), 4, generator=g)
    e = course.AttentionExplorer.from_qk(q, k, tokens)
    e.query.value, e.compare.value = 1, 2
    views = (e.grid, e.image, e.bars, e.diff)

    def changed(control, value):
        before = [bytes(v.value) for v in views]
        control.value = value
        return [bytes(v.value) != b for v, b in zip(views, before)]

    assert changed(e.query, 3) == [False, False, True, False]
    assert changed(e.compare, 1) == [False, False, False, True]
    assert changed(e.stage, "stage_scores") == [False, True, False, False]
    assert changed(e.tau, 0.4) == [True, False, True, True]   # the scores do not depend on τ
    assert changed(e.head, 2) == [True, True, True, True]


def test_only_recent_explorers_keep_their_figures(lang):
    from attn_course import widgets
    first = course.AttentionExplorer(sample_weights(), course.sentence(lang))
    assert first._views
    for _ in range(widgets.KEEP_FIGURES):
        course.AttentionExplorer(sample_weights(), course.sentence(lang))
    assert not first._views, "the oldest explorer's figures should have been let go"
    before = bytes(first.image.value)
    first.tau.value = 0.3
    assert first._views and bytes(first.image.value) != before


def test_cross_attention_maps_are_rectangular(lang):
    # Queries from one sentence, keys from another (lesson 7): T_q × T_k maps, the keys along the bottom.
    torch.manual_seed(0)
    queries, keys = course.sentence("ja")[:4], course.sentence("ko")
    q, k = torch.randn(2, len(queries), 4), torch.randn(2, len(keys), 4)
    e = course.AttentionExplorer.from_qk(q, k, queries, causal=True, key_tokens=keys)
    assert e.current().shape == (2, len(queries), len(keys))
    # Causal and rectangular means aligned bottom-right: the last query sees every key.
    assert e.keep()[-1].all() and e.keep()[0].sum() == len(keys) - len(queries) + 1
    before = bytes(e.image.value)
    e.head.value, e.query.value, e.compare.value = 1, 2, 0
    assert bytes(e.image.value) != before and e.bars.value and e.diff.value
    weights = torch.softmax(torch.randn(2, len(queries), len(keys)), -1)
    assert course.AttentionExplorer(weights, queries, key_tokens=keys).current().shape == weights.shape
    with pytest.raises(course.InputError):
        course.AttentionExplorer(weights, queries)
