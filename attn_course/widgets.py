"""The attention explorer: one widget that every lesson reuses.

Pictures are drawn by matplotlib into PNG bytes and shown in an ipywidgets Image,
so there is no JavaScript of our own and no CDN, and the same code runs on
ipywidgets 7.7 (Colab) and 8.x. Only APIs both versions share are used.
"""
from __future__ import annotations

import io

import matplotlib.patches
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


def show_table(header: list[str], rows: list[list]) -> None:
    """A small table as Markdown: print() cannot align columns of full-width CJK text."""
    from IPython.display import Markdown, display

    lines = ["| " + " | ".join(header) + " |", "|" + "---:|" * len(header)]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    display(Markdown("\n".join(lines)))


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


STAGES = ("stage_scores", "stage_scaled", "stage_masked", "stage_softmax")


def mask_stages(q: torch.Tensor, k: torch.Tensor, keep: torch.Tensor | None) -> dict:
    """The four stages of one head, (T, T) each: QKᵀ, ÷√D, +mask (-inf where not kept), softmax."""
    raw = q.double() @ k.double().transpose(-2, -1)
    scaled = raw / q.size(-1) ** 0.5
    masked = scaled if keep is None else scaled.masked_fill(~keep, float("-inf"))
    weights = torch.softmax(masked, dim=-1).nan_to_num(0.0)
    return dict(zip(STAGES, (raw, scaled, masked, weights)))


def draw_stage(values: torch.Tensor, tokens: list[str], keep: torch.Tensor | None, title: str,
               probabilities: bool):
    """One stage as a heatmap; masked cells are grey with a cross, never left blank."""
    v = values.detach().to("cpu", torch.float64)
    T = len(tokens)
    fig = Figure(figsize=(5.2, 4.2))
    ax = fig.subplots()
    shown = v.masked_fill(~torch.isfinite(v), float("nan"))
    finite = shown[torch.isfinite(shown)]
    if probabilities:
        vmin, vmax, cmap = 0.0, 1.0, "Blues"
    else:
        bound = float(finite.abs().max()) if finite.numel() else 1.0
        vmin, vmax, cmap = -bound, bound, "RdBu_r"
    image = ax.imshow(shown.numpy(), cmap=cmap, vmin=vmin, vmax=vmax)
    if keep is not None:
        hidden = (~keep.to("cpu")).numpy()
        for i in range(T):
            for j in range(T):
                if hidden[i, j]:
                    ax.add_patch(matplotlib.patches.Rectangle((j - 0.5, i - 0.5), 1, 1, facecolor="0.85",
                                                              edgecolor="0.6", hatch="//"))
                    ax.text(j, i, "×", ha="center", va="center", color="0.35", fontsize=11)
    for i in range(T):
        for j in range(T):
            if keep is None or bool(keep[i, j]):
                ax.text(j, i, f"{float(v[i, j]):.2f}", ha="center", va="center", fontsize=7)
    ax.set_xticks(range(T), tokens, rotation=45)
    ax.set_yticks(range(T), tokens)
    ax.set_xlabel(t("fig_key_axis"))
    ax.set_ylabel(t("fig_query_axis"))
    ax.set_title(title)
    fig.colorbar(image, ax=ax, fraction=0.046, pad=0.04)
    fig.tight_layout()
    return fig


class StageExplorer:
    """One head, step by step: QKᵀ → ÷√D → +mask → softmax, with causal and padding toggles.

    q, k: (T, D) for one head. tokens: T labels. length: how many tokens are real;
    the rest are padding, hidden as keys when the padding toggle is on.
    """

    def __init__(self, q: torch.Tensor, k: torch.Tensor, tokens: list[str], length: int | None = None):
        import ipywidgets as W

        self.q = expect_tensor(q, "q").detach().to("cpu", torch.float64)
        self.k = expect_tensor(k, "k").detach().to("cpu", torch.float64)
        self.tokens = list(tokens)
        if self.q.dim() != 2 or self.q.shape != self.k.shape or self.q.size(0) != len(self.tokens):
            raise InputError(t("tokens_mismatch", n=len(self.tokens), t=self.q.size(0)))
        self.length = len(self.tokens) if length is None else length
        self.stage = W.ToggleButtons(options=[(t(s), s) for s in STAGES], value="stage_softmax",
                                     description=t("widget_stage"))
        self.causal = W.Checkbox(value=True, description=t("widget_causal"))
        self.padding = W.Checkbox(value=self.length < len(self.tokens), description=t("widget_padding"))
        self.image = W.Image(format="png")
        for control in (self.stage, self.causal, self.padding):
            control.observe(self._update, names="value")
        self.widget = W.VBox([self.stage, W.HBox([self.causal, self.padding]), self.image])
        self._update()

    def keep(self) -> torch.Tensor | None:
        T = len(self.tokens)
        keep = torch.ones(T, T, dtype=torch.bool)
        if self.causal.value:
            keep &= torch.ones(T, T, dtype=torch.bool).tril()
        if self.padding.value:
            keep &= (torch.arange(T) < self.length)[None, :]
        return keep

    def render(self) -> bytes:
        keep = self.keep()
        values = mask_stages(self.q, self.k, keep)[self.stage.value]
        # Before the mask stage nothing is hidden yet, so no cell is crossed out.
        shown_keep = keep if self.stage.value in ("stage_masked", "stage_softmax") else None
        title = t("fig_stage_title", stage=t(self.stage.value))
        return _to_png(draw_stage(values, self.tokens, shown_keep, title, self.stage.value == "stage_softmax"))

    def _update(self, *_):
        self.image.value = self.render()

    def _ipython_display_(self):
        from IPython.display import display

        display(self.widget)


def draw_fused_weight(weight: torch.Tensor, n_head: int):
    """GPT-2's fused c_attn weight, (3E, E) as nn.Linear stores it, cut into Q | K | V and into heads."""
    w = expect_tensor(weight, "weight").detach().to("cpu", torch.float64)
    three_e, E = w.shape
    D = E // n_head
    fig = Figure(figsize=(4.6, 7.0))
    ax = fig.subplots()
    bound = float(w.abs().max())
    image = ax.imshow(w.numpy(), cmap="RdBu_r", vmin=-bound, vmax=bound, aspect="auto", interpolation="nearest")
    for block in range(1, 3):
        ax.axhline(block * E - 0.5, color="black", linewidth=2)
    for row in range(D, three_e, D):
        if row % E:
            ax.axhline(row - 0.5, color="0.3", linewidth=0.6, linestyle="--")
    ax.set_yticks([E * b + E / 2 - 0.5 for b in range(3)], ["Q", "K", "V"])
    for b in range(3):
        for h in range(n_head):
            ax.text(E - 0.5 + E * 0.02, b * E + h * D + D / 2 - 0.5, t("fig_head", h=h), fontsize=6, va="center")
    ax.set_xlabel(t("fig_in_features"))
    ax.set_ylabel(t("fig_out_features"))
    ax.set_title(t("fig_fused_title", rows=three_e, cols=E), fontsize=9)
    fig.colorbar(image, ax=ax, fraction=0.046, pad=0.12)
    fig.tight_layout()
    return fig


def show(fig) -> None:
    """Display a Figure made by this module as a PNG (it is not tied to pyplot)."""
    from IPython.display import Image, display

    display(Image(_to_png(fig)))
