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


class AttentionExplorer:
    """Interactive view of attention weights.

    weights: (T, T) softmax weights from any attention function or module.
    d_k: if given, a checkbox undoes or redoes the 1/sqrt(d_k) scaling.
    """

    def __init__(self, weights: torch.Tensor, tokens: list[str], d_k: int | None = None):
        import ipywidgets as W

        self.weights = expect_tensor(weights, "weights").detach().to("cpu", torch.float64)
        self.tokens = list(tokens)
        self.d_k = d_k
        draw_weights(self.weights, self.tokens)  # validate shapes once, loudly, before building controls
        self.tau = W.FloatLogSlider(value=1.0, base=10, min=-1, max=1, step=0.05,
                                    description=t("widget_temperature"), continuous_update=False,
                                    readout_format=".2f")
        self.scaled = W.Checkbox(value=True, description=t("widget_scaled"), disabled=d_k is None)
        self.image = W.Image(format="png")
        self.caption = W.HTML(f"<small>{t('widget_caption')}</small>")
        self.tau.observe(self._update, names="value")
        self.scaled.observe(self._update, names="value")
        self.widget = W.VBox([W.HBox([self.tau, self.scaled]), self.image, self.caption])
        self._update()

    def current(self) -> torch.Tensor:
        unscale = 1.0 if (self.scaled.value or self.d_k is None) else self.d_k ** 0.5
        return temper(self.weights, self.tau.value, unscale)

    def render(self) -> bytes:
        suffix = "" if self.d_k is None else t("fig_scaled_suffix" if self.scaled.value else "fig_unscaled_suffix")
        fig = draw_weights(self.current(), self.tokens, t("fig_weights_title", tau=self.tau.value, scaled=suffix))
        return _to_png(fig)

    def _update(self, *_):
        self.image.value = self.render()

    def _ipython_display_(self):
        from IPython.display import display

        display(self.widget)

