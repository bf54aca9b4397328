"""The attention explorer: one widget that every lesson reuses.

Pictures are drawn by matplotlib into PNG bytes and shown in an ipywidgets Image,
so there is no JavaScript of our own and no CDN, and the same code runs on
ipywidgets 7.7 (Colab) and 8.x. Only APIs both versions share are used.
"""
from __future__ import annotations

import base64
import io

import matplotlib.patches
import matplotlib.ticker
import torch
from matplotlib.figure import Figure

from .validate import InputError, expect_tensor
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


def draw_weights(weights: torch.Tensor, tokens: list[str], title: str | None = None,
                 key_tokens: list[str] | None = None):
    """A heatmap of (T_q, T_k) weights, the queries' tokens down the side and the keys' (key_tokens,
    the same tokens when None) along the top, and each row's entropy beside it."""
    w = expect_tensor(weights, "weights").detach().to("cpu", torch.float64)
    key_tokens = tokens if key_tokens is None else key_tokens
    if w.dim() != 2 or tuple(w.shape) != (len(tokens), len(key_tokens)):
        raise InputError(t("tokens_mismatch_qk", n_q=len(tokens), n_k=len(key_tokens), shape=tuple(w.shape)))
    T, T_k = len(tokens), len(key_tokens)
    # A bare Figure, not pyplot: the inline backend must not show a second copy of every frame.
    fig = Figure(figsize=(7.6, 3.8))
    ax, ax_h = fig.subplots(1, 2, gridspec_kw={"width_ratios": [3, 1.2]})
    image = ax.imshow(w.numpy(), cmap="Blues", vmin=0.0, vmax=1.0)
    ax.set_xticks(range(T_k), key_tokens)
    ax.set_yticks(range(T), tokens)
    ax.set_xlabel(t("fig_key_axis"))
    ax.set_ylabel(t("fig_query_axis"))
    if max(T, T_k) <= 10:
        for i in range(T):
            for j in range(T_k):
                value = float(w[i, j])
                ax.text(j, i, f"{value:.2f}", ha="center", va="center", fontsize=8,
                        color="white" if value > 0.6 else "black")
    if title:
        ax.set_title(title)
    fig.colorbar(image, ax=ax, fraction=0.046, pad=0.04)
    h = entropy(w).numpy()
    ax_h.barh(range(T), h, color="tab:orange")
    ax_h.axvline(float(torch.log(torch.tensor(float(T_k)))), color="gray", linestyle="--",
                 label=t("fig_entropy_max", v=float(torch.log(torch.tensor(float(T_k))))))
    ax_h.set_yticks(range(T), tokens)
    ax_h.invert_yaxis()
    ax_h.set_xlim(0, max(1.0, float(torch.log(torch.tensor(float(T_k)))) * 1.1))
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


STAGES = ("stage_scores", "stage_scaled", "stage_masked", "stage_softmax")


def mask_stages(q: torch.Tensor, k: torch.Tensor, keep: torch.Tensor | None) -> dict:
    """The four stages of one head, (T, T) each: QKᵀ, ÷√D, +mask (-inf where not kept), softmax."""
    raw = q.double() @ k.double().transpose(-2, -1)
    scaled = raw / q.size(-1) ** 0.5
    masked = scaled if keep is None else scaled.masked_fill(~keep, float("-inf"))
    weights = torch.softmax(masked, dim=-1).nan_to_num(0.0)
    return dict(zip(STAGES, (raw, scaled, masked, weights)))


def draw_stage(values: torch.Tensor, tokens: list[str], keep: torch.Tensor | None, title: str,
               probabilities: bool, key_tokens: list[str] | None = None):
    """One stage as a heatmap; masked cells are grey with a cross, never left blank."""
    v = values.detach().to("cpu", torch.float64)
    key_tokens = tokens if key_tokens is None else key_tokens
    T, T_k = len(tokens), len(key_tokens)
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
            for j in range(T_k):
                if hidden[i, j]:
                    ax.add_patch(matplotlib.patches.Rectangle((j - 0.5, i - 0.5), 1, 1, facecolor="0.85",
                                                              edgecolor="0.6", hatch="//"))
                    ax.text(j, i, "×", ha="center", va="center", color="0.35", fontsize=11)
    for i in range(T):
        for j in range(T_k):
            if keep is None or bool(keep[i, j]):
                ax.text(j, i, f"{float(v[i, j]):.2f}", ha="center", va="center", fontsize=7)
    ax.set_xticks(range(T_k), key_tokens, rotation=45)
    ax.set_yticks(range(T), tokens)
    ax.set_xlabel(t("fig_key_axis"))
    ax.set_ylabel(t("fig_query_axis"))
    ax.set_title(title)
    fig.colorbar(image, ax=ax, fraction=0.046, pad=0.04)
    fig.tight_layout()
    return fig


def draw_query(row: torch.Tensor, tokens: list[str], query: int, title: str | None = None):
    """One query's weights over the keys as bars, with the row's entropy in the title."""
    w = row.detach().to("cpu", torch.float64)
    fig = Figure(figsize=(6.4, 2.6))
    ax = fig.subplots()
    colors = ["tab:red" if j == int(w.argmax()) else "tab:blue" for j in range(len(tokens))]
    ax.bar(range(len(tokens)), w.numpy(), color=colors)
    ax.set_xticks(range(len(tokens)), tokens)
    ax.set_ylim(0, 1)
    ax.set_xlabel(t("fig_key_axis"))
    ax.set_ylabel(t("fig_weight_axis"))
    h = float(entropy(w))
    ax.set_title(title or t("fig_query_title", token=tokens[query], h=h, max=float(torch.log(torch.tensor(len(tokens) * 1.0)))))
    fig.tight_layout()
    return fig


def draw_difference(a: torch.Tensor, b: torch.Tensor, tokens: list[str], title: str,
                    key_tokens: list[str] | None = None):
    """a − b for two (T_q, T_k) weight maps: red where the first head looks more, blue where the second does."""
    diff = (a - b).detach().to("cpu", torch.float64)
    key_tokens = tokens if key_tokens is None else key_tokens
    T, T_k = len(tokens), len(key_tokens)
    fig = Figure(figsize=(5.2, 4.2))
    ax = fig.subplots()
    image = ax.imshow(diff.numpy(), cmap="RdBu_r", vmin=-1.0, vmax=1.0)
    ax.set_xticks(range(T_k), key_tokens, rotation=45)
    ax.set_yticks(range(T), tokens)
    ax.set_xlabel(t("fig_key_axis"))
    ax.set_ylabel(t("fig_query_axis"))
    ax.set_title(title, fontsize=9)
    fig.colorbar(image, ax=ax, fraction=0.046, pad=0.04)
    fig.tight_layout()
    return fig


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


class AttentionExplorer:
    """The course's one attention viewer, for any attention function or module.

        AttentionExplorer(weights, tokens, d_k=None)   weights: (T, T), (H, T, T), (L, H, T, T), or a list
                                                       of (H, T, T) per layer; d_k adds a "÷√d_k" checkbox
        AttentionExplorer.from_qk(q, k, tokens, causal=True, length=None, key_tokens=None)
                                                       q, k: (T, D), (H, T, D) or (L, H, T, D); adds the
                                                       stage switch and the causal and padding toggles
        key_tokens (either form): the keys' tokens when they are not the queries' (cross-attention):
        the maps are then T_q × T_k, and `length` counts the keys that are not padding
        AttentionExplorer.from_model(model, idx, tokens)
                                                       captures q and k of every attention layer in `model`

    Controls: layer, head, stage, temperature, one query in focus, a second head to subtract.
    Views: a grid of the layer's heads with each head's entropy, the focused head, the focused
    query's weights as bars, and the difference of two heads. Pictures are PNGs in Image widgets;
    the notebook also stores a static PNG, so a saved notebook shows the picture without a kernel.
    """

    def __init__(self, weights: torch.Tensor | None, tokens: list[str], d_k: int | None = None, *,
                 q: torch.Tensor | None = None, k: torch.Tensor | None = None, causal: bool = False,
                 length: int | None = None, toggles: bool = False, key_tokens: list[str] | None = None):
        import ipywidgets as W

        self.tokens = list(tokens)
        self.key_tokens = self.tokens if key_tokens is None else list(key_tokens)
        T, T_k = len(self.tokens), len(self.key_tokens)
        if q is not None:
            self.q, self.k = _stack_heads(q, "q", "D"), _stack_heads(k, "k", "D")
            if self.q.shape[:2] != self.k.shape[:2] or self.q.size(-1) != self.k.size(-1) or \
                    (self.q.size(2), self.k.size(2)) != (T, T_k):
                raise InputError(t("tokens_mismatch_qk", n_q=T, n_k=T_k,
                                   shape=(self.q.size(2), self.k.size(2))))
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

        self.layer = dropdown([(t("fig_layer", l=l), l) for l in range(self.n_layers)], t("widget_layer"))
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
        """Which keys each query may see, (T_q, T_k) bool, or None when no mask is applied."""
        if self.q is None:
            return None
        T, T_k = len(self.tokens), len(self.key_tokens)
        keep = torch.ones(T, T_k, dtype=torch.bool)
        if self.causal.value:
            # Aligned bottom-right, as a KV cache needs (lesson 6); for T_q = T_k, the usual tril().
            keep &= torch.ones(T, T_k, dtype=torch.bool).tril(diagonal=T_k - T)
        if self.padding.value:
            keep &= (torch.arange(T_k) < self.length)[None, :]
        return keep

    def current(self) -> torch.Tensor:
        """The chosen layer's (H, T, T) weights at the chosen temperature (softmax stage)."""
        layer = self.layer.value
        if self.q is None:
            unscale = 1.0 if (self.scaled.value or self.d_k is None) else self.d_k ** 0.5
            return temper(self.weights[layer], self.tau.value, unscale)
        stages = mask_stages(self.q[layer], self.k[layer], self.keep())
        return torch.softmax(stages["stage_masked"] / self.tau.value, dim=-1).nan_to_num(0.0)

    def _title(self, text: str) -> str:
        where = []
        if self.n_layers > 1:
            where.append(t("fig_layer", l=self.layer.value))
        if self.n_heads > 1:
            where.append(t("fig_head", h=self.head.value))
        return " · ".join(where + [text])

    def render(self) -> bytes:
        head, weights = self.head.value, self.current()
        if self.q is not None and self.stage.value != "stage_softmax":
            values = mask_stages(self.q[self.layer.value][head], self.k[self.layer.value][head], self.keep())
            # Before the mask stage nothing is hidden yet, so no cell is crossed out.
            keep = self.keep() if self.stage.value == "stage_masked" else None
            title = self._title(t("fig_stage_title", stage=t(self.stage.value)))
            return _to_png(draw_stage(values[self.stage.value], self.tokens, keep, title, False, self.key_tokens))
        if self.q is not None:
            title = self._title(t("fig_weights_title", tau=self.tau.value, scaled=""))
            return _to_png(draw_stage(weights[head], self.tokens, self.keep(), title, True, self.key_tokens))
        suffix = "" if self.d_k is None else t("fig_scaled_suffix" if self.scaled.value else "fig_unscaled_suffix")
        title = self._title(t("fig_weights_title", tau=self.tau.value, scaled=suffix))
        return _to_png(draw_weights(weights[head], self.tokens, title, self.key_tokens))

    def render_grid(self) -> bytes:
        return _to_png(draw_heads(self.current(), self.head.value))

    def render_query(self) -> bytes:
        query = self.query.value
        row = self.current()[self.head.value, query]
        title = t("fig_query_title", token=self.tokens[query], h=float(entropy(row)),
                  max=float(torch.log(torch.tensor(len(self.key_tokens) * 1.0))))
        return _to_png(draw_query(row, self.key_tokens, query, title))

    def render_difference(self) -> bytes:
        a, b = self.head.value, self.compare.value
        weights = self.current()
        return _to_png(draw_difference(weights[a], weights[b], self.tokens,
                                       t("fig_diff_title", a=a, b=b), self.key_tokens))

    def _update(self, *_):
        self.image.value = self.render()
        if self.n_heads > 1:
            self.grid.value = self.render_grid()
        # Views that have nothing to show are hidden, not left as empty boxes.
        for view, active, draw in ((self.bars, self.query.value >= 0, self.render_query),
                                   (self.diff, self.compare.value >= 0, self.render_difference)):
            view.layout.display = "" if active else "none"
            if active:
                view.value = draw()

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


def _plain_log_axis(ax, which: str = "y") -> None:
    """A log axis labelled 0.01, 0.1, 1: matplotlib's 10⁻² labels are mathtext, whose minus
    sign (U+2212) NanumGothic lacks."""
    for name in which:
        axis = getattr(ax, f"{name}axis")
        getattr(ax, f"set_{name}scale")("log")
        axis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _pos: f"{v:g}"))
        axis.set_minor_formatter(matplotlib.ticker.NullFormatter())


def draw_losses(curves: dict):
    """Training loss per step, one line per label, on a log scale (the interesting part is near 0)."""
    fig = Figure(figsize=(6.4, 3.0))
    ax = fig.subplots()
    for label, losses in curves.items():
        ax.plot(range(1, len(losses) + 1), losses, label=label)
    _plain_log_axis(ax)
    ax.set_xlabel(t("fig_step_axis"))
    ax.set_ylabel(t("fig_loss_axis"))
    ax.set_title(t("fig_loss_title"))
    ax.legend()
    fig.tight_layout()
    return fig


def draw_comparison(results: dict, embed_dim: int):
    """Final test loss per seed for each head count, {n_head: [loss per seed]}, on a log scale."""
    fig = Figure(figsize=(5.6, 3.2))
    ax = fig.subplots()
    labels = []
    for i, (n_head, losses) in enumerate(sorted(results.items())):
        ax.scatter([i] * len(losses), losses, s=40, zorder=3)
        ax.hlines(sum(losses) / len(losses), i - 0.2, i + 0.2, color="black")
        labels.append(t("fig_compare_label", h=n_head, d=embed_dim // n_head))
    ax.set_xticks(range(len(labels)), labels)
    ax.set_xlim(-0.6, len(labels) - 0.4)
    _plain_log_axis(ax)
    ax.set_ylabel(t("fig_final_loss_axis"))
    wide = max(results)
    ax.set_title(t("fig_compare_title", w=embed_dim, d=embed_dim // wide, h=wide), fontsize=9)
    fig.tight_layout()
    return fig


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


def draw_costs(lengths: list, times: dict, memory: dict):
    """Time and peak memory against sequence length on log-log axes, {label: [value per length]},
    with a slope-2 guide through the last point of the first series: O(T²) is a line of slope 2."""
    fig = Figure(figsize=(9.0, 3.4))
    axes = fig.subplots(1, 2)
    for ax, series, title, unit, scale in ((axes[0], times, "fig_cost_time_title", "fig_seconds_axis", 1.0),
                                          (axes[1], memory, "fig_cost_memory_title", "fig_mib_axis", 2.0**-20)):
        for label, values in series.items():
            ax.plot(lengths, [max(v * scale, 1e-6) for v in values], marker="o", label=label)
        last = max(next(iter(series.values()))[-1] * scale, 1e-6)
        ax.plot(lengths, [last * (n / lengths[-1]) ** 2 for n in lengths], color="gray", linestyle=":",
                label=t("fig_slope", k=2))
        _plain_log_axis(ax, "xy")
        ax.set_xticks(lengths)
        ax.set_xlabel(t("fig_seq_len_axis"))
        ax.set_ylabel(t(unit))
        ax.set_title(t(title))
        ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


def show(fig) -> None:
    """Display a Figure made by this module as a PNG (it is not tied to pyplot)."""
    from IPython.display import Image, display

    display(Image(_to_png(fig)))
