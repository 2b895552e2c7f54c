"""What a plot shows around its marks: spines, value ticks with their gridlines, category and x
tick labels, an axis title. Drawn once the plot's box and limits are final (``draw_guides``).

They sit where matplotlib's ``Axis`` put them: tick marks 3 pt long outside the plot, a tick
label 3.5 pt past its mark, category labels 8 pt (left) or 6 pt (under) from the plot, an axis
title 6 pt under the lowest tick label. All of an axis' gridlines are one path and its tick
marks one marker line; each label is one text.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from matplotlib.lines import Line2D
from matplotlib.markers import TICKDOWN, TICKLEFT, MarkerStyle
from matplotlib.text import Text
from matplotlib.ticker import MaxNLocator
from matplotlib.transforms import IdentityTransform

from .. import style
from .surface import Axis, Plot, Side
from .textsize import font, measure, text_height

TICK_PT = 3.0  # length of a tick mark
TICK_PAD = 3.5  # between a tick mark and its label (matplotlib's default)
CATEGORY_PAD: dict[Axis, float] = {"x": 6.0, "y": 8.0}  # category labels have no tick mark
TITLE_PAD = 6.0  # between the lowest tick label and the axis title
RULE_PT = 0.8  # spines, gridlines and tick marks
NBINS: dict[Axis, int] = {"x": 6, "y": 5}  # most intervals between round ticks
VIEW_RTOL = 1e-10  # a tick this share of the span beyond an end is still drawn (as matplotlib does)
TICK_MARK: dict[Axis, MarkerStyle] = {"x": MarkerStyle(TICKDOWN), "y": MarkerStyle(TICKLEFT)}  # outwards from the plot
BELOW = 0.5  # the zorder of guides: under every mark
SPINE_ZORDER = 2.5  # over bars, under error bars

DISPLAY = IdentityTransform()  # guides are placed in display points once the plot is final


def tick_text(value: float, ticks: Sequence[float], scale: float = 1, multiple: str = "") -> str:
    """A tick position (not a data value): as few decimals as tell every tick exactly
    (``1.5`` beside ``3``), thousands separators, a true minus sign; in a multiple of the unit
    (``scale``), which a tick other than 0 names (``40 billion``)."""
    if scale != 1:
        value, ticks = value / scale, [t / scale for t in ticks]
    decimals = next((d for d in range(10) if all(abs(round(t, d) - t) < 1e-9 * max(1.0, abs(t)) for t in ticks)), 9)
    text = f"{value:,.{decimals}f}"
    if text.lstrip("-").strip("0.,") == "":
        return "0"
    return text.replace("-", "\u2212") + (f" {multiple}" if multiple else "")


def round_ticks(low: float, high: float, nbins: int, scale: float = 1) -> list[float]:
    """Round ticks over [low, high] in the axis' display unit (whole billions, not 10**8 steps),
    one beyond each end included."""
    ticks = MaxNLocator(nbins=nbins).tick_values(low / scale, high / scale)
    return [float(tick) * scale for tick in ticks]


def fitting_ticks(low: float, high: float, axis_px: float, scale: float, multiple: str = "") -> list[float]:
    """Round ticks for a horizontal value axis ``axis_px`` wide: fewer when their labels
    would not fit side by side (a narrow figure with long numbers), down to three that do not
    touch, else two."""
    for nbins in range(NBINS["x"], 1, -1):
        ticks = round_ticks(low, high, nbins, scale)
        inside = [t for t in ticks if low <= t <= high]
        widths = [measure(tick_text(t, inside, scale, multiple), style.SIZE_TICK) for t in inside]
        if len(inside) * (max(widths, default=0.0) + 14) <= axis_px:
            break
        if len(inside) <= 3 and _apart(inside, widths, (high - low) / axis_px):
            break
    return ticks


def _apart(ticks: Sequence[float], widths: Sequence[float], per_px: float) -> bool:
    """Do the labels of neighbouring ticks (``widths`` px, centred on them) stay 8 px apart?"""
    return all((b - a) / per_px >= (wa + wb) / 2 + 8
               for a, b, wa, wb in zip(ticks, ticks[1:], widths, widths[1:], strict=False))


def value_ticks(plot: Plot) -> list[tuple[float, str]]:
    """(position, label) of each tick the plot's value axis shows. A label has the decimals of
    every chosen tick, those beyond the view too (``0.50`` beside ``0.75``)."""
    guides = plot.guides
    if guides.value_axis is None:
        return []
    low, high = sorted(plot.xlim if guides.value_axis == "x" else plot.ylim)
    if guides.value_axis == "x" and guides.fit_px:
        chosen = fitting_ticks(low, high, guides.fit_px, guides.scale, guides.multiple)
    else:
        chosen = round_ticks(low, high, NBINS[guides.value_axis], guides.scale)
    margin = (high - low) * VIEW_RTOL
    ticks = [(tick, tick_text(tick, chosen, guides.scale, guides.multiple)) for tick in chosen
             if low - margin <= tick <= high + margin]
    return [(tick, text) for tick, text in ticks if guides.value_axis == "y" or _within_figure(plot, tick, text)]


def _within_figure(plot: Plot, tick: float, text: str) -> bool:
    """Does the label of an x tick, centred under it, stay within the figure's width?"""
    half = measure(text, style.SIZE_TICK) / style.PX_PER_PT / 2
    return plot.x_pt(tick) - half >= 0 and plot.x_pt(tick) + half <= plot.sheet.width / style.PX_PER_PT


def draw_guides(plot: Plot) -> None:
    """Spines, ticks, labels and the axis title of a plot whose box and limits are final."""
    guides = plot.guides
    left, bottom, right, _ = plot.bounds_pt()
    under = [bottom]  # the bottoms of what lies under the plot: the axis title goes below them all
    if guides.value_axis is not None:
        under += _value_axis(plot, guides.value_axis)
    if guides.categories and guides.category_axis is not None:
        under += _labels(plot, guides.category_axis, guides.categories, CATEGORY_PAD[guides.category_axis])
    if guides.x_ticks:
        under += _marks(plot, "x", [x for x, _ in guides.x_ticks])
        under += _labels(plot, "x", guides.x_ticks, TICK_PT + TICK_PAD)
    _spines(plot)
    if guides.x_title:
        _text(plot, (left + right) / 2, min(under) - TITLE_PAD, guides.x_title, "center", "top")


def _value_axis(plot: Plot, which: Axis) -> list[float]:
    """Gridlines, tick marks and labels of the value axis; the bottoms of those under the plot."""
    ticks = value_ticks(plot)
    positions = [position for position, _ in ticks]
    left, bottom, right, top = plot.bounds_pt()
    xs: list[float] = []
    ys: list[float] = []
    for position in positions:
        if which == "x":
            xs += [plot.x_pt(position)] * 2 + [math.nan]
            ys += [bottom, top, math.nan]
        else:
            xs += [left, right, math.nan]
            ys += [plot.y_pt(position)] * 2 + [math.nan]
    if positions:
        plot.sheet.add(Line2D(xs[:-1], ys[:-1], color=style.GRID, linewidth=RULE_PT, transform=DISPLAY, zorder=BELOW))
    return _marks(plot, which, positions) + _labels(plot, which, ticks, TICK_PT + TICK_PAD)


def _marks(plot: Plot, which: Axis, positions: Sequence[float]) -> list[float]:
    """Tick marks outside the plot at each position; the bottom of those under it."""
    if not positions:
        return []
    left, bottom, _, _ = plot.bounds_pt()
    if which == "x":
        xs, ys = [plot.x_pt(p) for p in positions], [bottom] * len(positions)
    else:
        xs, ys = [left] * len(positions), [plot.y_pt(p) for p in positions]
    plot.sheet.add(Line2D(xs, ys, linestyle="none", marker=TICK_MARK[which],
                          markersize=TICK_PT, markeredgewidth=RULE_PT, color=style.INK, transform=DISPLAY,
                          zorder=BELOW))
    return [bottom - TICK_PT] if which == "x" else []


def _labels(plot: Plot, which: Axis, ticks: Sequence[tuple[float, str]], pad: float) -> list[float]:
    """A label ``pad`` points from the plot for each (position, text): left of it ("y") or
    under it ("x"); the bottoms of those under it."""
    left, bottom, _, _ = plot.bounds_pt()
    bottoms = []
    for position, text in ticks:
        if which == "y":
            _text(plot, left - pad, plot.y_pt(position), text, "right", "center_baseline")
        else:
            _text(plot, plot.x_pt(position), bottom - pad, text, "center", "top")
            bottoms.append(bottom - pad - text_height(text, font(style.SIZE_TICK)))
    return bottoms


def _text(plot: Plot, x: float, y: float, text: str, ha: str, va: str) -> None:
    plot.sheet.add(Text(x, y, text, ha=ha, va=va, fontsize=style.SIZE_TICK, color=style.INK, transform=DISPLAY,
                        zorder=BELOW))


def _spines(plot: Plot) -> None:
    left, bottom, right, top = plot.bounds_pt()
    ends: dict[Side, tuple[list[float], list[float]]] = {"left": ([left, left], [bottom, top]),
                                                         "bottom": ([left, right], [bottom, bottom])}
    for side in plot.guides.spines:
        xs, ys = ends[side]
        plot.sheet.add(Line2D(xs, ys, color=style.MUTED, linewidth=RULE_PT, solid_capstyle="projecting",
                              solid_joinstyle="miter", transform=DISPLAY, zorder=SPINE_ZORDER))
