"""Four pictures learners would rather look at than read: the head split, GPT-2's fused c_attn,
the kinds of mask, and the KV cache. Each returns a matplotlib Figure labelled in the
current language; `course.show(fig)` displays it, and tools/diagrams.py writes them to assets/.

Drawn with rectangles and text on one axis whose units are grid cells, so each picture is a
few obvious lines: a tensor is a grid of cells, coloured by what its cells belong to.
"""
from __future__ import annotations

from matplotlib.figure import Figure
from matplotlib.patches import FancyArrowPatch, Rectangle

from .messages import t

# One colour per head (or per Q/K/V block), from matplotlib's tab10.
COLOURS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b"]


def _canvas(width: float, height: float, size=(9, 3.6)):
    fig = Figure(figsize=size)
    ax = fig.add_axes((0, 0, 1, 1))
    ax.set_xlim(-0.5, width + 0.5)
    ax.set_ylim(-0.5, height + 0.5)
    ax.set_aspect("equal")
    ax.axis("off")
    return fig, ax


def _grid(ax, x, y, cols, rows, colour_of, label=None, alpha=0.85):
    """A rows × cols tensor drawn from (x, y) upwards; colour_of(col, row) gives each cell's colour."""
    for r in range(rows):
        for c in range(cols):
            ax.add_patch(Rectangle((x + c, y + r), 1, 1, facecolor=colour_of(c, r), edgecolor="white",
                                   linewidth=1, alpha=alpha))
    if label:
        ax.text(x + cols / 2, y - 0.35, label, ha="center", va="top", fontsize=10)


def _arrow(ax, start, end, text=None):
    ax.add_patch(FancyArrowPatch(start, end, arrowstyle="-|>", mutation_scale=14, color="#444444"))
    if text:
        ax.text((start[0] + end[0]) / 2, (start[1] + end[1]) / 2 + 0.35, text, ha="center", va="bottom", fontsize=9)


def head_split(n_head: int = 3, head_dim: int = 2, T: int = 4):
    """(B, T, H·D) → view (B, T, H, D) → transpose (B, H, T, D): one batch element shown. split_heads takes a
    projection's output, H·D wide (E only when H·D = E)."""
    E = n_head * head_dim
    fig, ax = _canvas(E + 2 + E + 3 + n_head * (head_dim + 1) + 1, T + 2.2, size=(10, 3.2))
    by_column = lambda c, r: COLOURS[c // head_dim]  # noqa: E731 - a column's head
    _grid(ax, 0, 0.5, E, T, by_column, t("diagram_x_layout"))
    x = E + 2
    _grid(ax, x, 0.5, E, T, by_column, t("diagram_view_layout"))
    for h in range(n_head):
        ax.text(x + h * head_dim + head_dim / 2, T + 0.8, t("fig_head", h=h), ha="center", fontsize=9)
    _arrow(ax, (E + 0.2, 0.5 + T / 2), (x - 0.2, 0.5 + T / 2), "view")
    x2 = x + E + 3
    for h in range(n_head):
        _grid(ax, x2 + h * (head_dim + 1), 0.5, head_dim, T, lambda c, r, h=h: COLOURS[h])
        ax.text(x2 + h * (head_dim + 1) + head_dim / 2, T + 0.8, t("fig_head", h=h), ha="center", fontsize=9)
    ax.text(x2 + n_head * (head_dim + 1) / 2 - 0.5, 0.15, t("diagram_transpose_layout"), ha="center", va="top",
            fontsize=10)
    _arrow(ax, (x + E + 0.2, 0.5 + T / 2), (x2 - 0.2, 0.5 + T / 2), "transpose(1, 2)")
    ax.text(0, T + 1.7, t("diagram_head_split_title"), fontsize=11, weight="bold")
    return fig


def fused_qkv(n_head: int = 3, head_dim: int = 2):
    """c_attn's output, 3E wide: split(E) into Q | K | V first, then each into H heads of D."""
    E = n_head * head_dim
    fig, ax = _canvas(3 * E + 1, 5.2, size=(9, 3.0))
    parts = [t("diagram_q"), t("diagram_k"), t("diagram_v")]
    _grid(ax, 0, 2.6, 3 * E, 1, lambda c, r: COLOURS[c // E], t("diagram_c_attn_output"))
    for p, name in enumerate(parts):
        ax.text(p * E + E / 2, 3.9, name, ha="center", fontsize=10)
        _grid(ax, p * E, 0.3, E, 1, lambda c, r, p=p: COLOURS[p], alpha=0.35)
        for h in range(n_head):
            ax.add_patch(Rectangle((p * E + h * head_dim, 0.3), head_dim, 1, fill=False, edgecolor="#222222",
                                   linewidth=1.5))
            ax.text(p * E + h * head_dim + head_dim / 2, 0.8, str(h), ha="center", va="center", fontsize=8)
    ax.text(0, 0.05, t("diagram_fused_heads_note"), fontsize=9, va="top")
    ax.text(0, 4.8, t("diagram_fused_title"), fontsize=11, weight="bold")
    return fig


def mask_kinds(T: int = 5, lengths=(5, 3)):
    """Causal (keep where key ≤ query), padding (keep the real keys) and both, as keep-masks."""
    fig, ax = _canvas(3 * (T + 2), T + 2.4, size=(9, 3.6))
    keep, hidden = "#2ca02c", "#dddddd"
    causal = lambda c, r: keep if c <= (T - 1 - r) else hidden  # noqa: E731 - row 0 drawn at the top
    padding = lambda c, r: keep if c < lengths[1] else hidden  # noqa: E731
    both = lambda c, r: keep if causal(c, r) == keep and padding(c, r) == keep else hidden  # noqa: E731
    for i, (colour_of, key) in enumerate(((causal, "diagram_mask_causal"), (padding, "diagram_mask_padding"),
                                          (both, "diagram_mask_both"))):
        _grid(ax, i * (T + 2), 0.5, T, T, colour_of, t(key))
    ax.text(0, T + 1.2, t("diagram_mask_legend"), fontsize=9)
    ax.text(0, T + 1.9, t("diagram_mask_title"), fontsize=11, weight="bold")
    return fig


def kv_cache(T_past: int = 4, T_new: int = 1):
    """Decoding one token: its query attends to the cached keys plus its own, bottom-right aligned."""
    T = T_past + T_new
    fig, ax = _canvas(T + 9, 4.6, size=(9, 3.0))
    cached, new = "#9467bd", "#ff7f0e"
    _grid(ax, 0, 2.2, T, 1, lambda c, r: cached if c < T_past else new, t("diagram_cache_keys"))
    _grid(ax, 0, 0.3, T, 1, lambda c, r: cached if c < T_past else new, t("diagram_cache_values"))
    _grid(ax, T + 3, 1.3, 1, 1, lambda c, r: new, t("diagram_cache_query"))
    _arrow(ax, (T + 2.9, 1.8), (T + 0.2, 2.7))
    ax.text(T + 4.5, 1.8, t("diagram_cache_note", past=T_past), fontsize=9, va="center")
    ax.text(0, 4.1, t("diagram_cache_title"), fontsize=11, weight="bold")
    return fig


DIAGRAMS = {"head_split": head_split, "fused_qkv": fused_qkv, "mask_kinds": mask_kinds, "kv_cache": kv_cache}
