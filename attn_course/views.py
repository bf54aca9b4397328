"""The explorer's views: figures kept alive between control changes, so a change costs milliseconds.

Rebuilding a figure for every change (axes, tick labels, colorbar, layout, tight bounding box)
took most of a second. Here each view builds its figure once. Its first PNG draws the parts
that never change (axes, tick labels, colorbar, legend) and keeps those pixels; every later
PNG puts them back and draws only the `changing` artists on top (images through set_data,
texts through set_text, bars through set_width), which is matplotlib's blitting. The pixels
then become a PNG without matplotlib's savefig (see _png).
"""
from __future__ import annotations

import contextlib
import functools
import math
import struct
import zlib

import matplotlib
import matplotlib.artist
import matplotlib.patches
import numpy as np
import torch
from matplotlib.backends.backend_agg import FigureCanvasAgg, RendererAgg, get_hinting_flag
from matplotlib.colors import to_rgb
from matplotlib.figure import Figure
from matplotlib.font_manager import FontProperties, findfont, get_font
from matplotlib.image import AxesImage
from matplotlib.patches import PathPatch
from matplotlib.path import Path
from matplotlib.text import Text

from .messages import t

DPI = 110
PAD = 11          # pixels of white kept around what is drawn, as savefig's pad_inches=0.1 does at 110 dpi
MARGIN = 1.0      # inches of spare room left and right, into which a title longer than the first can grow


@contextlib.contextmanager
def _left_out(artists):
    """Leave `artists` out of a full draw. Not by set_visible alone: an invisible title measures
    as an empty box at the bottom left, and matplotlib then lifts the title far above its axes.
    Animated artists are left out, except images, which Axes.draw keeps: those are hidden."""
    for a in artists:
        a.set_animated(True)
    images = [a for a in artists if isinstance(a, AxesImage) and a.get_visible()]
    for a in images:
        a.set_visible(False)
    try:
        yield
    finally:
        for a in artists:
            a.set_animated(False)
        for a in images:
            a.set_visible(True)


def _png(rgb: np.ndarray) -> bytes:
    """(h, w, 3) uint8 as PNG: every row unfiltered, then zlib at level 3. Pillow spends most of
    its time choosing a filter for each row, which these flat-coloured figures do not need:
    this takes a third of Pillow's time at level 1 (3 ms for the head grid instead of 9 ms),
    for a file of about the same size."""
    h, w, _ = rgb.shape
    rows = np.zeros((h, 1 + 3 * w), dtype=np.uint8)     # each row starts with its filter type, 0: none
    rows[:, 1:] = rgb.reshape(h, 3 * w)

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)  # 8 bits per channel, RGB, no interlace
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows.tobytes(), 3))
            + chunk(b"IEND", b""))


def _encode(rgba: np.ndarray) -> bytes:
    """The drawn part of an RGBA canvas as PNG bytes: the white around it is cut, as savefig's
    bbox_inches="tight" would, so the spare margin never shows."""
    ink = rgba.view(np.uint32)[:, :, 0] != 0xFFFFFFFF
    rows, cols = np.flatnonzero(ink.any(axis=1)), np.flatnonzero(ink.any(axis=0))
    if rows.size:
        rgba = rgba[max(rows[0] - PAD, 0):rows[-1] + PAD + 1, max(cols[0] - PAD, 0):cols[-1] + PAD + 1]
    return _png(rgba[:, :, :3])


class Picture:
    """A figure whose static parts are drawn once; subclasses list what changes in `changing`."""

    def __init__(self, width: float, height: float, margin: float = MARGIN):
        self.fig = Figure(figsize=(width + 2 * margin, height), dpi=DPI)
        FigureCanvasAgg(self.fig)
        self._rect = (margin / (width + 2 * margin), 0, 1 - margin / (width + 2 * margin), 1)
        self.changing: list = []
        self.background = None   # the static pixels; None means draw everything again
        self._laid_out = False

    def lay_out(self) -> None:
        """tight_layout once, with the first titles in place: later titles only change their text."""
        if not self._laid_out:
            self.fig.tight_layout(rect=self._rect)
            self._laid_out = True

    def png(self) -> bytes:
        canvas = self.fig.canvas
        if self.background is None:
            self.lay_out()
            with _left_out(self.changing):
                canvas.draw()
            self.background = canvas.copy_from_bbox(self.fig.bbox)
        else:
            canvas.restore_region(self.background)
        renderer = canvas.get_renderer()
        for artist in self.changing:
            artist.draw(renderer)
        return _encode(np.asarray(canvas.buffer_rgba()))


def _squares(centres: np.ndarray, size: float = 1.0, height: float | None = None) -> Path:
    """One path holding a square (or a size × height rectangle) around each (row, column) in
    `centres`: matplotlib draws one path of many squares far faster than many squares (hatched:
    12 ms against under 1 ms)."""
    corners = np.array([(-0.5, -0.5), (0.5, -0.5), (0.5, 0.5), (-0.5, 0.5), (-0.5, -0.5)])
    corners = corners * np.array([size, size if height is None else height])
    centres = np.reshape(centres, (-1, 2))
    vertices = (centres[:, None, ::-1] + corners[None]).reshape(-1, 2)
    codes = np.tile([Path.MOVETO, Path.LINETO, Path.LINETO, Path.LINETO, Path.CLOSEPOLY], len(centres))
    return Path(vertices, codes)


@functools.lru_cache(maxsize=4096)
def _coverage(text: str, font_path: str, points: float, dpi: float) -> np.ndarray:
    """How much of each pixel `text` covers, (h, w, 1) in [0, 1], rasterised as Agg rasterises text."""
    font = get_font(font_path)
    font.clear()
    font.set_size(points, dpi)
    font.set_text(text, 0.0, flags=get_hinting_flag())
    font.draw_glyphs_to_bitmap(antialiased=matplotlib.rcParams["text.antialiased"])
    return np.asarray(font.get_image())[:, :, None] / 255.0


class CellLabels(matplotlib.artist.Artist):
    """A short text centred on each cell of a heatmap: a number, or × on a masked cell.

    As a Text artist per cell, a 12 × 12 map spent 30 of its 45 ms on them (0.2 ms each for font
    lookup, layout and FreeType). The same few strings recur ("0.00" to "1.00"), so each string is
    rasterised once and then only blended into the canvas. A renderer other than Agg (a PDF of
    draw_weights' figure) gets ordinary Text artists."""

    def __init__(self):
        super().__init__()
        self.labels: list[tuple] = []      # (column, row, text, colour, points)
        self.set_in_layout(False)

    def set_labels(self, labels: list[tuple]) -> None:
        self.labels = labels
        self.stale = True

    def draw(self, renderer):
        if not self.get_visible() or not self.labels:
            return
        if not isinstance(renderer, RendererAgg):
            for x, y, text, colour, points in self.labels:
                label = Text(x, y, text, color=colour, fontsize=points, ha="center", va="center",
                             transform=self.get_transform())
                label.set_figure(self.get_figure())
                label.draw(renderer)
            return
        canvas = np.asarray(renderer.buffer_rgba())
        fonts, colours = {}, {}
        centres = self.get_transform().transform([label[:2] for label in self.labels])
        for (cx, cy), (_, _, text, colour, points) in zip(centres, self.labels):
            if points not in fonts:
                fonts[points] = findfont(FontProperties(size=points))
            if colour not in colours:
                colours[colour] = np.multiply(to_rgb(colour), 255.0)
            cover = _coverage(text, fonts[points], points, renderer.dpi)
            h, w = cover.shape[:2]
            top, left = round(canvas.shape[0] - cy - h / 2), round(cx - w / 2)
            if top < 0 or left < 0:
                continue
            region = canvas[top:top + h, left:left + w, :3]
            cover = cover[:region.shape[0], :region.shape[1]]
            region[...] = region * (1.0 - cover) + colours[colour] * cover + 0.5


def _scale(bound: float | None) -> tuple:
    """Weights (bound None): white to blue from 0 to 1. Scores and differences: red-blue from -bound to bound."""
    return ("Blues", 0.0, 1.0) if bound is None else ("RdBu_r", -bound, bound)


class HeatmapView(Picture):
    """One (T_q, T_k) map, the queries' tokens down the side and the keys' along the bottom (the
    same tokens unless key_tokens is given, as in cross-attention): weights on a white-to-blue
    scale from 0 to 1, or scores and differences on a red-blue scale around 0. Optionally a number
    in every cell, masked cells grey with a ×, and each row's entropy beside the map."""

    def __init__(self, tokens: list[str], *, with_entropy: bool = False, numbers: bool = True,
                 rotate: bool = True, title_size: float | None = None, bound: float | None = None,
                 scale_moves: bool = False, key_tokens: list[str] | None = None):
        key_tokens = tokens if key_tokens is None else key_tokens
        T, T_k = len(tokens), len(key_tokens)
        super().__init__(*((7.6, 3.8) if with_entropy else (5.2, 4.2)))
        if with_entropy:
            ax, ax_h = self.fig.subplots(1, 2, gridspec_kw={"width_ratios": [3, 1.2]})
        else:
            ax = self.fig.subplots()
        self._scale = _scale(bound)
        self.image = ax.imshow(np.zeros((T, T_k)), cmap=self._scale[0], vmin=self._scale[1], vmax=self._scale[2])
        ax.set_xticks(range(T_k), key_tokens, rotation=45 if rotate else 0)
        ax.set_yticks(range(T), tokens)
        ax.set_xlabel(t("fig_key_axis"))
        ax.set_ylabel(t("fig_query_axis"))
        self.colorbar = self.fig.colorbar(self.image, ax=ax, fraction=0.046, pad=0.04)
        # All masked cells are one path of squares, refilled on each change.
        self.masked = ax.add_patch(PathPatch(Path(np.zeros((0, 2))), facecolor="0.85", edgecolor="0.6", hatch="//"))
        self.number_size = 8 if with_entropy else 7
        self.numbers = numbers
        self.cells = ax.add_artist(CellLabels())
        # An explicit fontsize=None would mean 10 pt, not the title's own default of 12.
        self.title = ax.set_title(" ", **({} if title_size is None else {"fontsize": title_size}))
        self.changing = [self.image, self.masked, self.cells, self.title]
        if scale_moves:
            # The stages' scores each have their own scale: then the colorbar is drawn with every
            # change, a few ms, rather than kept among the static pixels, which a new scale would
            # have to draw again in full.
            self.changing.append(self.colorbar.ax)
        self.entropy_bars = []
        if with_entropy:
            log_t = math.log(T_k)   # a row spread evenly over every key
            self.entropy_bars = list(ax_h.barh(range(T), np.zeros(T), color="tab:orange"))
            ax_h.axvline(log_t, color="gray", linestyle="--")
            ax_h.set_yticks(range(T), tokens)
            ax_h.invert_yaxis()
            ax_h.set_xlim(0, max(1.0, log_t * 1.1))
            # The line's label sits just above the axes, where no bar can cover it (a legend inside
            # hid the last row's bar); the title moves up to make room.
            ax_h.set_title(t("fig_entropy_title"), pad=14)
            ax_h.annotate(t("fig_entropy_max", v=log_t), xy=(log_t, 1.0), xycoords=("data", "axes fraction"),
                          xytext=(0, 2), textcoords="offset points", ha="right", va="bottom", fontsize=8,
                          color="0.35")
            ax_h.set_xlabel(t("fig_entropy_axis"))
            self.changing += self.entropy_bars

    def update(self, values: torch.Tensor, row_entropy: torch.Tensor | None, title: str, *,
               hidden: torch.Tensor | None = None, bound: float | None = None) -> None:
        """values: (T_q, T_k), -inf where masked; hidden: (T_q, T_k) bool, the cells to grey out;
        bound: None for weights (blue, 0 to 1), else the red-blue scale runs from -bound to bound."""
        v = values.detach().to("cpu", torch.float64).numpy()
        scale = _scale(bound)
        if scale != self._scale:
            self.image.set_cmap(scale[0])
            self.image.set_clim(scale[1], scale[2])
            self._scale = scale
            if self.colorbar.ax not in self.changing:
                self.background = None
        self.image.set_data(np.where(np.isfinite(v), v, np.nan))
        hide = np.zeros(v.shape, dtype=bool) if hidden is None else hidden.to("cpu").numpy()
        self.masked.set_path(_squares(np.argwhere(hide)))
        if self.numbers:
            # White on the darkest cells, where black would not read.
            dark = np.abs(v) > (0.6 if bound is None else 0.7 * bound)
            self.cells.set_labels([(j, i, "×", "0.35", 11) if hide[i, j] else
                                   (j, i, f"{v[i, j]:.2f}", "white" if dark[i, j] else "black", self.number_size)
                                   for i, j in np.ndindex(v.shape)])
        self.title.set_text(title)
        if row_entropy is not None:
            for bar, h in zip(self.entropy_bars, row_entropy.tolist()):
                bar.set_width(h)


class HeadsView(Picture):
    """Every head of a layer as a small heatmap, the focused one framed in red, and each head's
    mean entropy as a bar.

    The heatmaps are tiles of one image in one axes, not an axes each: twelve axes took a
    fifth of a second to make, and one image is drawn faster than twelve."""

    def __init__(self, n_heads: int, T: int, T_k: int | None = None):
        T_k = T if T_k is None else T_k
        cols = min(n_heads, 6)
        rows = -(-n_heads // cols)
        # The titles here never change, so no spare margin is needed.
        super().__init__(1.6 * cols + 3.2, 1.6 * rows + 0.4, margin=0.0)
        grid = self.fig.add_gridspec(1, cols + 2)
        ax = self.fig.add_subplot(grid[0, :cols])
        # A tile is T rows by T_k columns, with a gap after it.
        self.T, self.T_k, self.cols = T, T_k, cols
        self.step = max(T, T_k) + max(2, max(T, T_k) // 2)
        # The gaps are NaN, which the colormap draws transparent.
        self.tiles = np.full((rows * self.step - self.step + T, cols * self.step - self.step + T_k), np.nan)
        self.image = ax.imshow(self.tiles, cmap="Blues", vmin=0.0, vmax=1.0)
        ax.set_axis_off()
        corners = [self._corner(h) for h in range(n_heads)]
        self.titles = [ax.text(x + T_k / 2, y - 0.3, t("fig_head", h=h), fontsize=8, ha="center", va="bottom")
                       for h, (x, y) in enumerate(corners)]
        # Each tile's black frame is drawn over the image, so it changes with it; one path holds them all.
        outline = _squares(np.array([(y + T / 2, x + T_k / 2) for x, y in corners]), size=T_k, height=T)
        self.frames = ax.add_patch(PathPatch(outline, fill=False, linewidth=matplotlib.rcParams["axes.linewidth"]))
        self.focus = ax.add_patch(matplotlib.patches.Rectangle((0, 0), T_k, T, fill=False, edgecolor="tab:red",
                                                               linewidth=2.5))
        ax = self.fig.add_subplot(grid[0, cols:])
        self.bars = list(ax.barh(range(n_heads), np.zeros(n_heads), color="tab:orange"))
        ax.set_yticks(range(n_heads), [t("fig_head", h=h) for h in range(n_heads)])
        ax.invert_yaxis()
        ax.axvline(math.log(T_k), color="gray", linestyle="--")
        # No head's mean entropy exceeds log T_k.
        ax.set_xlim(0, max(1.0, math.log(T_k)) * 1.05)
        ax.set_title(t("fig_head_entropy_title"), fontsize=9)
        ax.set_xlabel(t("fig_entropy_axis"))
        self.changing = [self.image, self.frames, self.focus, *self.titles, *self.bars]

    def _corner(self, h: int) -> tuple[float, float]:
        """The top-left corner of head h's tile, in the image's data coordinates."""
        return (h % self.cols) * self.step - 0.5, (h // self.cols) * self.step - 0.5

    def update(self, weights: torch.Tensor, focus: int, mean_entropy: torch.Tensor) -> None:
        """weights: (H, T, T_k); mean_entropy: (H,)."""
        w = weights.detach().to("cpu", torch.float64).numpy()
        for h, (title, bar) in enumerate(zip(self.titles, self.bars)):
            x, y = (int(c + 0.5) for c in self._corner(h))
            self.tiles[y:y + self.T, x:x + self.T_k] = w[h]
            title.set_color("tab:red" if h == focus else "black")
            bar.set_width(float(mean_entropy[h]))
            bar.set_facecolor("tab:red" if h == focus else "tab:orange")
        self.image.set_data(self.tiles)
        self.focus.set_xy(self._corner(focus))


class QueryView(Picture):
    """One query's weights over the keys as bars, the largest in red."""

    def __init__(self, tokens: list[str]):
        super().__init__(6.4, 2.6)
        ax = self.fig.subplots()
        T = len(tokens)
        self.bars = list(ax.bar(range(T), np.zeros(T)))
        ax.set_xticks(range(T), tokens)
        ax.set_ylim(0, 1)
        ax.set_xlabel(t("fig_key_axis"))
        ax.set_ylabel(t("fig_weight_axis"))
        self.title = ax.set_title(" ")
        self.changing = [*self.bars, self.title]

    def update(self, row: torch.Tensor, title: str) -> None:
        w = row.detach().to("cpu", torch.float64).numpy()
        top = int(w.argmax())
        for j, bar in enumerate(self.bars):
            bar.set_height(w[j])
            bar.set_facecolor("tab:red" if j == top else "tab:blue")
        self.title.set_text(title)
