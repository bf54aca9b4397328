"""The attention explorer: one widget that every lesson reuses.

Pictures are drawn by matplotlib into PNG bytes and shown in an ipywidgets Image,
so there is no JavaScript of our own and no CDN, and the same code runs on
ipywidgets 7.7 (Colab) and 8.x. Only APIs both versions share are used.
"""
from __future__ import annotations

import io

import torch
from matplotlib.figure import Figure

from .checks import InputError, expect_tensor
from .messages import t


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


def _to_png(fig) -> bytes:
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=110, bbox_inches="tight")
    return buffer.getvalue()


def draw_weights(weights: torch.Tensor, tokens: list[str], title: str | None = None):
    """A heatmap of (T, T) weights with the tokens on both axes, and each row's entropy beside it."""
    w = expect_tensor(weights, "weights").detach().to("cpu", torch.float64)
    if w.dim() != 2 or w.size(0) != w.size(1) or w.size(0) != len(tokens):
        raise InputError(t("tokens_mismatch", n=len(tokens), t=w.size(-1)))
    T = len(tokens)
    # A bare Figure, not pyplot: the inline backend must not show a second copy of every frame.
    fig = Figure(figsize=(7.6, 3.8))
    ax, ax_h = fig.subplots(1, 2, gridspec_kw={"width_ratios": [3, 1.2]})
    image = ax.imshow(w.numpy(), cmap="Blues", vmin=0.0, vmax=1.0)
    ax.set_xticks(range(T), tokens)
    ax.set_yticks(range(T), tokens)
    ax.set_xlabel(t("fig_key_axis"))
    ax.set_ylabel(t("fig_query_axis"))
    if T <= 10:
        for i in range(T):
            for j in range(T):
                value = float(w[i, j])
                ax.text(j, i, f"{value:.2f}", ha="center", va="center", fontsize=8,
                        color="white" if value > 0.6 else "black")
    if title:
        ax.set_title(title)
    fig.colorbar(image, ax=ax, fraction=0.046, pad=0.04)
    h = entropy(w).numpy()
    ax_h.barh(range(T), h, color="tab:orange")
    ax_h.axvline(float(torch.log(torch.tensor(float(T)))), color="gray", linestyle="--",
                 label=t("fig_entropy_max", v=float(torch.log(torch.tensor(float(T))))))
    ax_h.set_yticks(range(T), tokens)
    ax_h.invert_yaxis()
    ax_h.set_xlim(0, max(1.0, float(torch.log(torch.tensor(float(T)))) * 1.1))
    ax_h.set_title(t("fig_entropy_title"))
    ax_h.set_xlabel(t("fig_entropy_axis"))
    ax_h.legend(loc="lower right", fontsize=7)
    fig.tight_layout()
    return fig


def draw_heads(weights: torch.Tensor, focus: int | None = None):
    """Every head of (H, T, T) weights as a small heatmap, and each head's mean entropy as a bar."""
    w = expect_tensor(weights, "weights").detach().to("cpu", torch.float64)
    H, T = w.size(0), w.size(-1)
    cols = min(H, 6)
    rows = -(-H // cols)
    fig = Figure(figsize=(1.6 * cols + 3.2, 1.6 * rows + 0.4))
    grid = fig.add_gridspec(rows, cols + 2)
    for h in range(H):
        ax = fig.add_subplot(grid[h // cols, h % cols])
        ax.imshow(w[h].numpy(), cmap="Blues", vmin=0.0, vmax=1.0)
        ax.set_xticks([])
        ax.set_yticks([])
        ax.set_title(t("fig_head", h=h), fontsize=8, color="tab:red" if h == focus else "black")
        if h == focus:
            for side in ax.spines.values():
                side.set_edgecolor("tab:red")
                side.set_linewidth(2.5)
    ax = fig.add_subplot(grid[:, cols:])
    mean_entropy = entropy(w).mean(dim=-1).numpy()
    colors = ["tab:red" if h == focus else "tab:orange" for h in range(H)]
    ax.barh(range(H), mean_entropy, color=colors)
    ax.set_yticks(range(H), [t("fig_head", h=h) for h in range(H)])
    ax.invert_yaxis()
    ax.axvline(float(torch.log(torch.tensor(float(T)))), color="gray", linestyle="--")
    ax.set_title(t("fig_head_entropy_title"), fontsize=9)
    ax.set_xlabel(t("fig_entropy_axis"))
    fig.tight_layout()
    return fig


class AttentionExplorer:
    """Interactive view of attention weights, for any attention function or module.

    weights: (T, T) for one head, or (H, T, T) for several heads (a leading batch axis
        of size 1 is dropped). With several heads the explorer adds a head selector,
        a grid of every head and a chart of each head's mean entropy.
    d_k: if given, a checkbox undoes or redoes the 1/sqrt(d_k) scaling.
    """

    def __init__(self, weights: torch.Tensor, tokens: list[str], d_k: int | None = None):
        import ipywidgets as W

        w = expect_tensor(weights, "weights").detach().to("cpu", torch.float64)
        while w.dim() > 3 and w.size(0) == 1:
            w = w[0]
        if w.dim() == 2:
            w = w.unsqueeze(0)
        if w.dim() != 3:
            raise InputError(t("wrong_rank", name="weights", want=3, got=w.dim(), layout="(H, T, T)",
                               shape=tuple(weights.shape)))
        self.weights = w  # (H, T, T)
        self.tokens = list(tokens)
        self.d_k = d_k
        draw_weights(self.weights[0], self.tokens)  # validate shapes once, loudly, before building controls
        self.tau = W.FloatLogSlider(value=1.0, base=10, min=-1, max=1, step=0.05,
                                    description=t("widget_temperature"), continuous_update=False,
                                    readout_format=".2f")
        self.scaled = W.Checkbox(value=True, description=t("widget_scaled"), disabled=d_k is None)
        self.head = W.Dropdown(options=[(t("fig_head", h=h), h) for h in range(self.n_heads)], value=0,
                               description=t("widget_head"))
        self.image = W.Image(format="png")
        self.grid = W.Image(format="png")
        self.caption = W.HTML(f"<small>{t('widget_caption')}</small>")
        for control in (self.tau, self.scaled, self.head):
            control.observe(self._update, names="value")
        controls = [self.tau, self.scaled] + ([self.head] if self.n_heads > 1 else [])
        views = [self.grid, self.image] if self.n_heads > 1 else [self.image]
        self.widget = W.VBox([W.HBox(controls), *views, self.caption])
        self._update()

    @property
    def n_heads(self) -> int:
        return self.weights.size(0)

    def current(self) -> torch.Tensor:
        """The (H, T, T) weights at the chosen temperature and scaling."""
        unscale = 1.0 if (self.scaled.value or self.d_k is None) else self.d_k ** 0.5
        return temper(self.weights, self.tau.value, unscale)

    def render(self) -> bytes:
        suffix = "" if self.d_k is None else t("fig_scaled_suffix" if self.scaled.value else "fig_unscaled_suffix")
        title = t("fig_weights_title", tau=self.tau.value, scaled=suffix)
        if self.n_heads > 1:
            title = f"{t('fig_head', h=self.head.value)}: {title}"
        return _to_png(draw_weights(self.current()[self.head.value], self.tokens, title))

    def render_grid(self) -> bytes:
        return _to_png(draw_heads(self.current(), self.head.value))

    def _update(self, *_):
        self.image.value = self.render()
        if self.n_heads > 1:
            self.grid.value = self.render_grid()

    def _ipython_display_(self):
        from IPython.display import display

        display(self.widget)
