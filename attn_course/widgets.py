"""The attention explorer: one widget that every lesson reuses.

Pictures are drawn by matplotlib into PNG bytes and shown in an ipywidgets Image,
so there is no JavaScript of our own and no CDN, and the same code runs on
ipywidgets 7.7 (Colab) and 8.x. Only APIs both versions share are used.

A learner moves a control and expects the picture to follow at once, so each view keeps its
figure for the explorer's lifetime (views.py): a control change redraws only the views whose
inputs it changed, and in those only what moved.
"""
from __future__ import annotations

import base64
import math
import weakref
from collections import OrderedDict

import torch

from .validate import InputError, expect_tensor
from .messages import t
# Lessons and tests reach the lessons' static figures as course.widgets.draw_losses and the like,
# from before they moved to plots.py.
from .plots import _to_png, draw_comparison, draw_costs, draw_fused_weight, draw_losses, show, show_table  # noqa: F401
from .views import HeadsView, HeatmapView, QueryView


def temper(weights: torch.Tensor, tau: float = 1.0, unscale: float = 1.0) -> torch.Tensor:
    """softmax(s / tau) recovered from softmax(s): the weights raised to 1/tau, renormalised.

    `unscale` multiplies the log-weights first, e.g. sqrt(d_k) undoes the 1/sqrt(d_k) scaling.
    Zero weights (masked positions) stay zero.
    """
    logw = weights.double().clamp_min(0).log() * (unscale / tau)
    return torch.softmax(logw, dim=-1)


def entropy(weights: torch.Tensor) -> torch.Tensor:
    """Entropy of each row in nats; 0 for a one-hot row, log T for a uniform one."""
    w = weights.double()
    return -(w * w.clamp_min(1e-300).log()).sum(dim=-1)


def draw_weights(weights: torch.Tensor, tokens: list[str], title: str | None = None,
                 key_tokens: list[str] | None = None):
    """A heatmap of (T_q, T_k) weights, the queries' tokens down the side and the keys' (the same
    tokens unless key_tokens is given) along the bottom, and each row's entropy beside it."""
    w = expect_tensor(weights, "weights").detach().to("cpu", torch.float64)
    key_tokens = tokens if key_tokens is None else key_tokens
    if w.dim() != 2 or tuple(w.shape) != (len(tokens), len(key_tokens)):
        raise InputError(t("tokens_mismatch_qk", n_q=len(tokens), n_k=len(key_tokens), shape=tuple(w.shape)))
    view = HeatmapView(tokens, with_entropy=True, numbers=max(w.shape) <= 10, rotate=False, key_tokens=key_tokens)
    view.update(w, entropy(w), title or "")
    view.lay_out()
    return view.fig


STAGES = ("stage_scores", "stage_scaled", "stage_masked", "stage_softmax")


def mask_stages(q: torch.Tensor, k: torch.Tensor, keep: torch.Tensor | None) -> dict:
    """The four stages of one head, (T_q, T_k) each: QKᵀ, ÷√D, +mask (-inf where not kept), softmax."""
    raw = q.double() @ k.double().transpose(-2, -1)
    scaled = raw / q.size(-1) ** 0.5
    masked = scaled if keep is None else scaled.masked_fill(~keep, float("-inf"))
    weights = torch.softmax(masked, dim=-1).nan_to_num(0.0)
    return dict(zip(STAGES, (raw, scaled, masked, weights)))


def _stack_heads(x, name: str, last: str) -> torch.Tensor:
    """(T, ·), (H, T, ·), (L, H, T, ·) or a list of (H, T, ·) per layer → (L, H, T, ·) float64 on the CPU.

    A leading batch axis of size 1 is dropped, so a module's (1, H, T, T) output can be passed as it is.
    """
    if isinstance(x, (list, tuple)):
        x = torch.stack([expect_tensor(z, name).detach().to("cpu", torch.float64).squeeze(0) if z.dim() == 4
                         else expect_tensor(z, name).detach().to("cpu", torch.float64) for z in x])
    w = expect_tensor(x, name).detach().to("cpu", torch.float64)
    if w.dim() == 4 and w.size(0) == 1:
        w = w[0].unsqueeze(0)
    while w.dim() < 4:
        w = w.unsqueeze(0)
    if w.dim() != 4:
        raise InputError(t("wrong_rank", name=name, want=4, got=w.dim(), layout=f"(L, H, T, {last})",
                           shape=tuple(x.shape)))
    return w


# An explorer's figures hold 15 to 20 MB of pixels, and ipywidgets keeps every explorer alive for
# the kernel's lifetime (its controls refer to it), so a cell run again and again would pile them
# up. Only the explorers used most recently keep their figures; an older one remakes them if touched.
KEEP_FIGURES = 6
_recent: OrderedDict = OrderedDict()


def _touched(explorer: "AttentionExplorer") -> None:
    _recent[id(explorer)] = weakref.ref(explorer)
    _recent.move_to_end(id(explorer))
    while len(_recent) > KEEP_FIGURES:
        old = _recent.popitem(last=False)[1]()
        if old is not None:
            old._views.clear()


class AttentionExplorer:
    """The course's one attention viewer, for any attention function or module.

        AttentionExplorer(weights, tokens, d_k=None)   weights: (T, T), (H, T, T), (L, H, T, T), or a list
                                                       of (H, T, T) per layer; d_k adds a "÷√d_k" checkbox
        AttentionExplorer.from_qk(q, k, tokens, causal=True, length=None, key_tokens=None)
                                                       q, k: (T, D), (H, T, D) or (L, H, T, D); adds the
                                                       stage switch and the causal and padding toggles
        key_tokens (either form): the keys' tokens when they are not the queries' (cross-attention):
        the maps are then T_q × T_k, and `length` counts the keys that are not padding
        layer_names, layer_label (either form): what the layer drop-down calls each stacked map, and itself, when
        the maps are not a model's layers
        AttentionExplorer.from_model(model, idx, tokens)
                                                       captures q and k of every attention layer in `model`

    Controls: layer, head, stage, temperature, one query in focus, a second head to subtract.
    Views: a grid of the layer's heads with each head's entropy, the focused head, the focused
    query's weights as bars, and the difference of two heads. Pictures are PNGs in Image widgets;
    the notebook also stores a static PNG, so a saved notebook shows the picture without a kernel.
    """

    def __init__(self, weights: torch.Tensor | None, tokens: list[str], d_k: int | None = None, *,
                 q: torch.Tensor | None = None, k: torch.Tensor | None = None, causal: bool = False,
                 length: int | None = None, toggles: bool = False, key_tokens: list[str] | None = None,
                 layer_names: list[str] | None = None, layer_label: str | None = None):
        import ipywidgets as W

        self.tokens = list(tokens)
        self.key_tokens = self.tokens if key_tokens is None else list(key_tokens)
        T, T_k = len(self.tokens), len(self.key_tokens)
        if q is not None:
            self.q, self.k = _stack_heads(q, "q", "D"), _stack_heads(k, "k", "D")
            if self.q.shape[:2] != self.k.shape[:2] or self.q.size(-1) != self.k.size(-1) or \
                    (self.q.size(2), self.k.size(2)) != (T, T_k):
                raise InputError(t("tokens_mismatch_qk", n_q=T, n_k=T_k, shape=(self.q.size(2), self.k.size(2))))
            self.d_k = self.q.size(-1)
            self.weights = None
            shape = self.q.shape
        else:
            self.q = self.k = None
            self.weights = _stack_heads(weights, "weights", "T")
            self.d_k = d_k
            shape = self.weights.shape
            if (shape[-2], shape[-1]) != (T, T_k):
                raise InputError(t("tokens_mismatch_qk", n_q=T, n_k=T_k, shape=tuple(shape[-2:])))
        self.n_layers, self.n_heads = shape[0], shape[1]
        self.length = T_k if length is None else length
        has_stages = self.q is not None

        def dropdown(options, label):
            return W.Dropdown(options=options, value=options[0][1], description=label)

        # Stacked maps that are not a model's layers (lesson 8: without and with a sink) carry names of their own.
        if layer_names is not None and len(layer_names) != self.n_layers:
            raise InputError(t("explorer_layer_names", n=self.n_layers, got=len(layer_names)))
        self.layer_names = layer_names or [t("fig_layer", l=l) for l in range(self.n_layers)]
        self.layer = dropdown([(name, l) for l, name in enumerate(self.layer_names)], layer_label or t("widget_layer"))
        self.head = dropdown([(t("fig_head", h=h), h) for h in range(self.n_heads)], t("widget_head"))
        self.stage = W.ToggleButtons(options=[(t(s), s) for s in STAGES], value="stage_softmax",
                                     description=t("widget_stage"))
        self.tau = W.FloatLogSlider(value=1.0, base=10, min=-1, max=1, step=0.05,
                                    description=t("widget_temperature"), continuous_update=False,
                                    readout_format=".2f")
        self.scaled = W.Checkbox(value=True, description=t("widget_scaled"))
        self.causal = W.Checkbox(value=causal, description=t("widget_causal"))
        self.padding = W.Checkbox(value=self.length < T_k, description=t("widget_padding"))
        none = t("widget_none")
        self.query = dropdown([(none, -1)] + [(f"{i}: {tok}", i) for i, tok in enumerate(self.tokens)],
                              t("widget_query"))
        self.compare = dropdown([(none, -1)] + [(t("fig_head", h=h), h) for h in range(self.n_heads)],
                                t("widget_compare"))
        self.grid, self.image, self.bars, self.diff = (W.Image(format="png") for _ in range(4))
        self.caption = W.HTML(f"<small>{t('widget_caption')}</small>")
        # Each view's figure is made the first time the view is shown, and kept; `_drawn` holds
        # what each Image widget shows now, as the control values it was drawn from.
        self._views: dict = {}
        self._drawn: dict = {}

        # Only the controls that mean something for this input are shown.
        shown = [self.tau, self.query]
        shown += [self.layer] if self.n_layers > 1 else []
        shown += [self.head, self.compare] if self.n_heads > 1 else []
        shown += [self.scaled] if (not has_stages and d_k is not None) else []
        # A padding toggle that could hide nothing (no key is padding) is not offered.
        shown += ([self.causal] + ([self.padding] if self.length < T_k else [])) if toggles else []
        for control in shown + ([self.stage] if has_stages else []):
            control.observe(self._update, names="value")
        rows = [W.HBox(shown[i:i + 3]) for i in range(0, len(shown), 3)]
        views = ([self.grid] if self.n_heads > 1 else []) + [self.image, self.bars] + \
                ([self.diff] if self.n_heads > 1 else [])
        self.widget = W.VBox(([self.stage] if has_stages else []) + rows + views + [self.caption])
        self._update()
        self._prepare_hidden_views()

    # --- constructors ---------------------------------------------------------------------
    @classmethod
    def from_qk(cls, q: torch.Tensor, k: torch.Tensor, tokens: list[str], causal: bool = True,
                length: int | None = None, key_tokens: list[str] | None = None) -> "AttentionExplorer":
        return cls(None, tokens, q=q, k=k, causal=causal, length=length, toggles=True, key_tokens=key_tokens)

    @classmethod
    def from_model(cls, model: torch.nn.Module, idx: torch.Tensor, tokens: list[str]) -> "AttentionExplorer":
        """Run `model(idx)` once and keep each attention layer's q and k (batch element 0).

        An attention layer is a submodule with a fused `c_attn` and `n_head` (lessons 4 and 5);
        every such layer in the model is causal, so the mask is fixed and not offered as a toggle.
        """
        captured = []

        def keep_qk(module):
            def hook(_linear, _inputs, out):
                B, T, three_e = out.shape
                q, k, _ = out.detach()[0].split(three_e // 3, dim=-1)           # (T, E) each
                H = module.n_head
                captured.append(tuple(z.view(T, H, -1).transpose(0, 1) for z in (q, k)))  # (H, T, D)
            return hook

        layers = [m for m in model.modules() if hasattr(m, "c_attn") and hasattr(m, "n_head")]
        if not layers:
            raise InputError(t("explorer_no_attention"))
        handles = [m.c_attn.register_forward_hook(keep_qk(m)) for m in layers]
        try:
            with torch.no_grad():
                model(idx[:1])
        finally:
            for h in handles:
                h.remove()
        q = torch.stack([c[0] for c in captured])
        k = torch.stack([c[1] for c in captured])
        return cls(None, tokens, q=q, k=k, causal=True)

    # --- what is drawn ----------------------------------------------------------------------
    def keep(self) -> torch.Tensor | None:
        """Which keys each query may see, (T_q, T_k) bool, or None when no mask is applied.

        The causal mask is aligned bottom-right: the last query sees every key, as with a KV
        cache; when T_q = T_k that is the usual lower triangle."""
        if self.q is None:
            return None
        T, T_k = len(self.tokens), len(self.key_tokens)
        keep = torch.ones(T, T_k, dtype=torch.bool)
        if self.causal.value:
            keep &= torch.ones(T, T_k, dtype=torch.bool).tril(diagonal=T_k - T)
        if self.padding.value:
            keep &= (torch.arange(T_k) < self.length)[None, :]
        return keep

    def current(self) -> torch.Tensor:
        """The chosen layer's (H, T_q, T_k) weights at the chosen temperature (softmax stage)."""
        layer = self.layer.value
        if self.q is None:
            unscale = 1.0 if (self.scaled.value or self.d_k is None) else self.d_k ** 0.5
            return temper(self.weights[layer], self.tau.value, unscale)
        stages = mask_stages(self.q[layer], self.k[layer], self.keep())
        return torch.softmax(stages["stage_masked"] / self.tau.value, dim=-1).nan_to_num(0.0)

    def _title(self, text: str) -> str:
        where = []
        if self.n_layers > 1:
            where.append(self.layer_names[self.layer.value])
        if self.n_heads > 1:
            where.append(t("fig_head", h=self.head.value))
        return " · ".join(where + [text])

    def _keys(self) -> dict:
        """What each view shows, as the control values it is drawn from: a view is drawn again
        only when its key changes, so a query or a second head redraws one small view, not four."""
        weights = (self.layer.value, self.tau.value, self.scaled.value, self.causal.value, self.padding.value)
        head, stage = self.head.value, self.stage.value
        # Before the softmax the stages do not depend on the temperature.
        tau = self.tau.value if stage == "stage_softmax" else None
        return {"grid": weights + (head,),
                "image": (self.layer.value, head, stage, tau) + weights[2:],
                "bars": weights + (head, self.query.value),
                "diff": weights + (head, self.compare.value)}

    def _view(self, name: str):
        """Each view's figure, made the first time it is drawn and kept for the explorer's life."""
        if name not in self._views:
            T, keys = len(self.tokens), self.key_tokens
            if name == "grid":
                view = HeadsView(self.n_heads, T, len(keys))
            elif name == "bars":
                view = QueryView(keys)
            elif name == "diff":
                view = HeatmapView(self.tokens, numbers=False, title_size=9, bound=1.0, key_tokens=keys)
            elif self.q is not None:   # the stages: a number in every cell, each stage on its own scale
                view = HeatmapView(self.tokens, scale_moves=True, key_tokens=keys)
            else:                      # weights alone: each row's entropy beside them
                view = HeatmapView(self.tokens, with_entropy=True, numbers=max(T, len(keys)) <= 10, rotate=False,
                                   key_tokens=keys)
            self._views[name] = view
        return self._views[name]

    def _draw(self, name: str, weights: torch.Tensor, query: int, other: int) -> bytes:
        """One view's PNG from the (H, T_q, T_k) weights of the chosen layer and temperature."""
        view, head = self._view(name), self.head.value
        if name == "grid":
            view.update(weights, head, entropy(weights).mean(dim=-1))
        elif name == "bars":
            row = weights[head, query]
            view.update(row, t("fig_query_title", token=self.tokens[query], h=float(entropy(row)),
                                max=math.log(len(self.key_tokens))))
        elif name == "diff":
            a, b = head, other
            view.update(weights[a] - weights[b], None, t("fig_diff_title", a=a, b=b), bound=1.0)
        elif self.q is None:
            suffix = "" if self.d_k is None else t("fig_scaled_suffix" if self.scaled.value else "fig_unscaled_suffix")
            view.update(weights[head], entropy(weights[head]),
                        self._title(t("fig_weights_title", tau=self.tau.value, scaled=suffix)))
        elif self.stage.value == "stage_softmax":
            view.update(weights[head], None, self._title(t("fig_weights_title", tau=self.tau.value, scaled="")),
                        hidden=~self.keep())
        else:
            layer, keep = self.layer.value, self.keep()
            values = mask_stages(self.q[layer, head], self.k[layer, head], keep)[self.stage.value]
            finite = values[torch.isfinite(values)]
            # Before the mask stage nothing is hidden yet, so no cell is crossed out.
            hidden = ~keep if self.stage.value == "stage_masked" else None
            view.update(values, None, self._title(t("fig_stage_title", stage=t(self.stage.value))), hidden=hidden,
                        bound=float(finite.abs().max()) if finite.numel() else 1.0)
        return view.png()

    def _update(self, *_):
        _touched(self)
        active = {"grid": self.n_heads > 1, "image": True, "bars": self.query.value >= 0,
                  "diff": self.compare.value >= 0}
        weights = None
        for name, key in self._keys().items():
            widget = getattr(self, name)
            # Views that have nothing to show are hidden, not left as empty boxes.
            if name in ("bars", "diff"):
                widget.layout.display = "" if active[name] else "none"
            if not active[name] or self._drawn.get(name) == key:
                continue
            weights = self.current() if weights is None else weights
            widget.value = self._draw(name, weights, self.query.value, self.compare.value)
            self._drawn[name] = key

    def _prepare_hidden_views(self) -> None:
        """Make and draw the views not shown at first (a query's bars, two heads' difference), so
        that choosing a query or a second head for the first time answers as fast as any change:
        a view's first drawing (figure, layout, static parts) takes 60 to 100 ms, later ones 5 to 15."""
        weights = self.current()
        self._draw("bars", weights, 0, -1)
        if self.n_heads > 1:
            self._draw("diff", weights, -1, (self.head.value + 1) % self.n_heads)

    def _repr_mimebundle_(self, include=None, exclude=None):
        # The widget for a live kernel, and a PNG of the same picture for everything else:
        # GitHub, nbviewer, or the notebook reopened later without its widget state.
        picture = bytes(self.grid.value if self.n_heads > 1 else self.image.value)
        return {
            "text/plain": t("explorer_plain", l=self.n_layers, h=self.n_heads, t=len(self.tokens)),
            "image/png": base64.b64encode(picture).decode("ascii"),
            "application/vnd.jupyter.widget-view+json": {
                "version_major": 2, "version_minor": 0, "model_id": self.widget.model_id},
        }
