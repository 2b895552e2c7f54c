"""Drawing helpers shared by every kind: plots and their axes, labels, error bars, markers.

Everything is placed in CSS px from the figure's top-left corner (the plan's layout) or in a
plot's data coordinates (``surface.Plot``); kinds reach these through ``charts.mpl``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Literal

from matplotlib.patches import FancyBboxPatch

from .. import style
from ..layout import CATEGORY_PAD_PX, extent, padded_limits
from ..model import PanelPlan, Point
from ..units import axis_scale
from ..units import value_labels as units_value_labels
from .guides import value_ticks
from .surface import Plot, Sheet
from .textsize import measure

__all__ = ["FancyBboxPatch", "Plot", "extent", "measure", "padded_limits"]  # for the kinds (through ``charts.mpl``)

WHISKER_KINDS = ("sd", "range", "ci", "interval")
# Artists whose gid starts with "ep-" become a class in the SVG (see ``svg.py``): value labels get a halo
# in the background colour (CSS paint-order), so they stay legible over gridlines in either theme.
HALO = "ep-halo"


def label_column(panels: Sequence[PanelPlan]) -> float:
    """Width of the category-label column shared by horizontal panels."""
    lines = ["\n".join(s.lines) for panel in panels if panel.horizontal for s in panel.slots]
    widest = max((measure(text, style.SIZE_TICK) for text in lines), default=0.0)
    return widest + CATEGORY_PAD_PX


def large_scale(panel: PanelPlan) -> tuple[float, str]:
    """(divisor, multiple) of the value axis' ticks: ``(1e9, "billion")`` for bytes up to
    113,556,639,424; ``(1, "")`` when the values read well as they are (``units.axis_scale``). Only
    ticks are divided, and each says its multiple; value labels keep the authored digits."""
    low, high = extent(panel.points, include_zero=True, references=panel.references)
    return axis_scale(panel.unit, max(abs(low), abs(high)))


def axis_unit(panel: PanelPlan) -> str:
    """The value axis title: the entries' unit, whatever multiple the ticks read in."""
    return panel.unit


def value_labels(panel: PanelPlan) -> list[str]:
    """The text printed by each point (see ``units.value_labels``)."""
    return units_value_labels(panel.points, panel.unit, panel.references, panel.digits)


def value_text(plot: Plot, text: str, xy: tuple[float, float], offset: tuple[float, float], **align: Any) -> None:
    """A value label next to its mark, with the background halo."""
    plot.text(*xy, text, offset, fontsize=style.SIZE_VALUE, color=style.INK, gid=HALO, **align)


def label_width(text: str) -> float:
    """The width of a value label in points."""
    return measure(text, style.SIZE_VALUE) / style.PX_PER_PT


def label_over(plot: Plot, text: str, x: float, y: float) -> None:
    """A value label centred over (x, y px), moved sideways as little as keeps it within the plot."""
    left, _, right, _ = plot.bounds_pt()
    half = label_width(text) / 2
    centre = plot.x_pt(x)
    shift = max(left + half - centre, 0.0) + min(right - half - centre, 0.0)
    value_text(plot, text, (x, y), (shift, 0), ha="center", va="bottom")


def label_beside(plot: Plot, text: str, x: float, y: float, side: Literal[-1, 1], pad: float) -> None:
    """A value label ``pad`` points left (``side`` −1) or right (1) of (x, y px), where it fits within
    the plot (a panel leaves room for it: see the kinds' padding)."""
    left, _, right, _ = plot.bounds_pt()
    at = plot.x_pt(x) + side * pad
    if (at - label_width(text) >= left) if side < 0 else (at + label_width(text) <= right):
        value_text(plot, text, (x, y), (side * pad, 0), ha="right" if side < 0 else "left", va="center")


def reference_lines(plot: Plot, panel: PanelPlan, horizontal: bool) -> None:
    """Each reference as a dashed line across the plot (its legend entry names it)."""
    for index, reference in enumerate(panel.references):
        dashes = style.REFERENCE_DASHES[index % len(style.REFERENCE_DASHES)]
        plot.across(float(reference.value), horizontal, color=style.REFERENCE, linewidth=1.4, linestyle=dashes,
                    zorder=4)


def value_axis(plot: Plot, which: Literal["x", "y"], panel: PanelPlan, axis_px: float = 0.0) -> None:
    """Gridlines and plain number labels on the value axis ("x" or "y").

    A horizontal value axis (``x``) of ``axis_px`` px takes only as many ticks as fit.
    """
    plot.guides.value_axis = which
    plot.guides.scale, plot.guides.multiple = large_scale(panel)
    plot.guides.fit_px = axis_px if which == "x" else 0.0


def unit_label(sheet: Sheet, panel: PanelPlan) -> None:
    """The unit of a vertical value axis, over its top tick label."""
    sheet.text(style.PAD_X, panel.box.plot_top - style.UNIT_GAP, axis_unit(panel), fontsize=style.SIZE_TICK,
               color=style.INK, va="bottom")


def categories_on(plot: Plot, which: Literal["x", "y"], positions: Sequence[float], labels: Sequence[str]) -> None:
    """Category labels (pre-wrapped lines), without tick marks, on "x" or "y"."""
    plot.guides.category_axis = which
    plot.guides.categories = tuple(zip(positions, labels, strict=True))
    if which == "y":
        plot.guides.spines = tuple(side for side in plot.guides.spines if side != "left")


def series_color(panel: PanelPlan, point: Point) -> str:
    if point.series and point.series in panel.series:
        return style.series_color(panel.series.index(point.series))
    return style.PALETTE[0]


def whisker_span(point: Point) -> tuple[float, float] | None:
    """The ends of a point's whisker (never short of its value), or None."""
    if point.whisker is None or point.value is None:
        return None
    low, high = point.whisker.bounds(point.value)
    return min(low, float(point.value)), max(high, float(point.value))


def error_bar(plot: Plot, at: float, span: tuple[float, float], *, horizontal: bool, zorder: float = 3,
              color: str = style.INK, width: float = 1.2, cap: float = 3.5) -> None:
    """A whisker from ``span[0]`` to ``span[1]`` at ``at``, with a cap ``cap`` points each side of
    each end: the reported SD or observed range of one bar or point, in the style all kinds share."""
    ends = list(span)
    xs, ys = (ends, [at, at]) if horizontal else ([at, at], ends)
    plot.line(xs, ys, color=color, linewidth=width, marker="|" if horizontal else "_", markersize=2 * cap,
              markeredgewidth=width, zorder=zorder)


def not_reported(plot: Plot, x: float, y: float, horizontal: bool) -> None:
    """A labelled marker where a value is null: never a zero-length bar."""
    plot.line([x], [y], marker="D", markersize=6, markerfacecolor=style.BG, markeredgecolor=style.NOT_REPORTED,
              markeredgewidth=1.2, linestyle="none", zorder=4)
    align: dict[str, Any] = {"ha": "left", "va": "center"} if horizontal else {"ha": "center", "va": "bottom"}
    offset = (7, 0) if horizontal else (0, 7)
    plot.text(x, y, style.LEGEND_NOT_REPORTED, offset, fontsize=style.SIZE_VALUE, color=style.NOT_REPORTED,
              fontstyle="italic", **align)


def source_headers(sheet: Sheet, panel: PanelPlan) -> None:
    """Label each block of a panel whose sources are kept apart, with a rule between blocks."""
    if not panel.separate_sources:
        return
    top = panel.box.plot_top
    for index, slot in enumerate(panel.slots):
        if index and panel.slots[index - 1].block == slot.block:
            continue
        y = top + slot.start - style.SOURCE_HEADER
        if index:
            sheet.line([style.PAD_X, sheet.width - style.PAD_X], [y + 1] * 2, color=style.MUTED, linewidth=0.8,
                       linestyle=(0, (4, 3)))
        sheet.text(style.PAD_X, y + 5, f"source: {slot.source or 'not reported'}", va="top",
                   fontsize=style.SIZE_SOURCE, color=style.MUTED, fontstyle="italic")


def fit_left(plot: Plot) -> float:
    """Move a vertical panel's plot so its value tick labels just fit; returns its left px."""
    widest = max((measure(label, style.SIZE_TICK) for _, label in value_ticks(plot)), default=0.0)
    left = style.PAD_X + widest + 10
    plot.move(left, plot.sheet.width - style.PAD_X - left)
    plot.aligned = True
    return left


def align_vertical(sheet: Sheet) -> None:
    """Give every vertical panel of the chart the same left edge (the widest tick labels)."""
    plots = [plot for plot in sheet.plots if plot.aligned]
    if len(plots) < 2:
        return
    left = max(plot.left for plot in plots)
    for plot in plots:
        plot.move(left, plot.left + plot.width - left)


def rows(panel: PanelPlan, room: Callable[[Point], tuple[float, float]]) -> list[tuple[int, float]]:
    """(point index, y px) of every point of a horizontal panel whose rows take ``room`` (px over and
    under their line): one under the other, the rows of a slot in the middle of it."""
    found: list[tuple[int, float]] = []
    for slot in panel.slots:
        rooms = [room(panel.points[index]) for index in slot.points]
        top = slot.start + (slot.size - sum(above + below for above, below in rooms)) / 2
        for index, (above, below) in zip(slot.points, rooms, strict=True):
            found.append((index, top + above))
            top += above + below
    return found


def categories_at(plot: Plot, panel: PanelPlan, rows: Sequence[tuple[int, float]]) -> None:
    """Each category label beside the middle of its rows' lines (``rows``), not of its slot."""
    line = dict(rows)
    positions = [sum(line[index] for index in slot.points) / len(slot.points) for slot in panel.slots]
    categories_on(plot, "y", positions, ["\n".join(s.lines) for s in panel.slots])


def stacked(panel: PanelPlan) -> list[tuple[int, float]]:
    """(point index, y px) of every point of a horizontal panel, series one under the other."""
    rows: list[tuple[int, float]] = []
    for slot in panel.slots:
        n = len(slot.points)
        for k, index in enumerate(slot.points):
            rows.append((index, slot.start + slot.size / 2 - n * style.BAR_PX / 2 + (k + 0.5) * style.BAR_PX))
    return rows


def horizontal_plot(sheet: Sheet, panel: PanelPlan) -> tuple[Plot, float]:
    """The plot of a horizontal panel: category labels on the left, value axis below (y in px
    from the plot's top); and its width."""
    box = panel.box
    left = style.PAD_X + sheet.label_px
    width = sheet.width - style.PAD_X - left
    plot = Plot(sheet, left, box.plot_top, width, box.plot_height)
    plot.set_ylim(box.plot_height, 0)
    categories_on(plot, "y", [s.start + s.size / 2 for s in panel.slots], ["\n".join(s.lines) for s in panel.slots])
    value_axis(plot, "x", panel, width)
    plot.guides.x_title = axis_unit(panel)
    source_headers(sheet, panel)
    return plot, width
