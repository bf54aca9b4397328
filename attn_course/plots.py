"""Each lesson's own static figures, drawn once and shown as a PNG.

The explorer's live views are in widgets.py; what is here is drawn once per cell run, so it
stays plain matplotlib: a bare Figure (not pyplot, so the inline backend never shows a second
copy) saved to PNG with a tight bounding box.
"""
from __future__ import annotations

import io
import math

import matplotlib.ticker
import torch
from matplotlib.figure import Figure

from .validate import expect_tensor
from .messages import t


def show_table(header: list[str], rows: list[list]) -> None:
    """A small table as Markdown: print() cannot align columns of full-width CJK text."""
    from IPython.display import Markdown, display

    def numeric(cell) -> bool:
        try:
            float(str(cell).replace(",", "").rstrip("×%"))
            return True
        except ValueError:
            return False

    # Numbers right-aligned, so their digits line up; text left-aligned, as it is read.
    align = ["---:" if rows and all(numeric(row[i]) for row in rows) else ":---" for i in range(len(header))]
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join(align) + "|"]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    display(Markdown("\n".join(lines)))


def _to_png(fig) -> bytes:
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=110, bbox_inches="tight")
    return buffer.getvalue()


def show(fig) -> None:
    """Display a Figure made by this module as a PNG (it is not tied to pyplot)."""
    from IPython.display import Image, display

    display(Image(_to_png(fig)))


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
        xs = [i + 0.1 * (j - (len(losses) - 1) / 2) for j in range(len(losses))]   # seeds side by side
        ax.scatter(xs, losses, s=40, zorder=3)
        mean = sum(losses) / len(losses)
        ax.hlines(mean, i - 0.2, i + 0.2, color="black")
        ax.annotate(f"{mean:.3g}", (i + 0.2, mean), xytext=(4, 0), textcoords="offset points", fontsize=8, va="center")
        labels.append(t("fig_compare_label", h=n_head, d=embed_dim // n_head))
    ax.set_xticks(range(len(labels)), labels)
    ax.set_xlim(-0.6, len(labels) - 0.4)
    _plain_log_axis(ax)
    flat = [v for losses in results.values() for v in losses if v > 0]
    if flat:   # label every decade the points span (0.001, 0.01, 0.1), not just one
        lo = math.floor(math.log10(min(flat)))
        top = max(math.ceil(math.log10(max(flat))), lo + 1)
        ax.set_ylim(10.0 ** lo, 10.0 ** top)
        ax.set_yticks([10.0 ** k for k in range(lo, top + 1)])
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
