"""Drawing helpers shared by every kind: pixel frame, text measure, axes, legend.

Everything is placed in CSS pixels from the figure's top-left corner (the
plan's layout) and converted to figure fractions here.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from matplotlib.axes import Axes
from matplotlib.axis import Tick, XAxis, YAxis
from matplotlib.figure import Figure
from matplotlib.font_manager import FontProperties
from matplotlib.lines import Line2D
from matplotlib.patches import FancyBboxPatch, Rectangle
from matplotlib.textpath import text_to_path
from matplotlib.ticker import Formatter, MaxNLocator, NullLocator

from .. import style
from ..model import PanelPlan, Point, Reference
from ..units import axis_scale
from ..units import value_labels as units_value_labels

__all__ = ["FancyBboxPatch", "NullLocator", "Rectangle"]  # re-exported for the kinds (through ``charts.mpl``)

WHISKER_KINDS = ("sd", "range", "ci", "interval")
# Artists whose gid starts with "ep-" become a class in the SVG (see ``svg.py``): value labels get a halo
# in the background colour (CSS paint-order), so they stay legible over gridlines in either theme.
HALO = "ep-halo"
VERTICAL = "vertical value axis"
VIEW_MARGIN = 1e-3  # share of an axis' span beyond its ends within which a tick location is still built  # label of the axes whose left edges are aligned


@dataclass(frozen=True)
class Frame:
    """Pixel geometry of the figure."""

    width: int
    height: int
    label_px: float = 0.0  # category-label column shared by the chart's horizontal panels

    def x(self, px: float) -> float:
        return px / self.width

    def y(self, px: float) -> float:
        return 1 - px / self.height

    def rect(self, left: float, top: float, width: float, height: float) -> tuple[float, float, float, float]:
        return left / self.width, 1 - (top + height) / self.height, width / self.width, height / self.height


@functools.lru_cache(maxsize=4096)
def measure(text: str, size: float, bold: bool = False) -> float:
    """Width in px of ``text`` (widest line) as drawn in the bundled font."""
    prop = FontProperties(family=style.FONT_FAMILY, size=size, weight="bold" if bold else "normal")
    widest = max(text_to_path.get_text_width_height_descent(line, prop, ismath=False)[0] for line in text.split("\n"))
    return float(widest) * style.PX_PER_PT


def label_column(panels: Sequence[PanelPlan]) -> float:
    """Width of the category-label column shared by horizontal panels."""
    lines = ["\n".join(s.lines) for panel in panels if panel.horizontal for s in panel.slots]
    widest = max((measure(text, style.SIZE_TICK) for text in lines), default=0.0)
    return widest + 8 * style.PX_PER_PT + 4  # the tick label pad (8 pt) and a margin


class _NoMinorPrototype:
    """``minorTicks`` of an axis that builds no minor tick until one is shown.

    matplotlib makes the first tick of each list when an axis is cleared (to set its clip path)
    and copies it into every further tick; no chart shows minor ticks (their locator is a
    ``NullLocator``), so that tick was built, cleared and never drawn, on every axis."""

    def __get__(self, axis: XAxis | YAxis, owner: type) -> list[Tick]:
        axis.minorTicks = []
        return axis.minorTicks


class _LeanAxis:
    """An axis mixin: its minor tick list is empty until a minor tick is asked for."""

    minorTicks = _NoMinorPrototype()

    def get_minor_ticks(self, numticks: int | None = None) -> list[Tick]:
        axis: Any = self
        if numticks is None:
            numticks = len(axis.get_minorticklocs())
        if numticks and not axis.minorTicks:  # the prototype matplotlib would have made, clipped as it clips it
            axis.minorTicks = [axis._get_tick(major=False)]
            axis.minorTicks[0].set_clip_path(axis.axes.patch)
        ticks: list[Tick] = super().get_minor_ticks(numticks)  # type: ignore[misc]
        return ticks


class _LeanXAxis(_LeanAxis, XAxis):
    pass


class _LeanYAxis(_LeanAxis, YAxis):
    pass


class LeanAxes(Axes):
    """``Axes`` whose axes build no minor tick the chart does not show (same drawing)."""

    def _init_axis(self) -> None:
        self.xaxis = _LeanXAxis(self, clear=False)
        self.spines.bottom.register_axis(self.xaxis)
        self.spines.top.register_axis(self.xaxis)
        self.yaxis = _LeanYAxis(self, clear=False)
        self.spines.left.register_axis(self.yaxis)
        self.spines.right.register_axis(self.yaxis)


def add_axes(fig: Figure, frame: Frame, left: float, top: float, width: float, height: float) -> Axes:
    ax = fig.add_axes(frame.rect(left, top, width, height), axes_class=LeanAxes)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    for side in ("left", "bottom"):
        ax.spines[side].set_color(style.MUTED)
        ax.spines[side].set_linewidth(0.8)
    ax.tick_params(colors=style.INK, labelsize=style.SIZE_TICK, length=3, width=0.8)
    ax.set_facecolor(style.BG)
    return ax


def large_scale(panel: PanelPlan) -> tuple[float, str]:
    """(divisor, axis title) of the value axis: ``(1e9, "GB")`` for bytes up to 113,556,639,424;
    ``(1, unit)`` when the values read well as they are. Only ticks are divided; value labels keep
    the authored digits and then carry their unit."""
    low, high = extent(panel.points, include_zero=True, references=panel.references)
    return axis_scale(panel.unit, max(abs(low), abs(high)))


def axis_unit(panel: PanelPlan) -> str:
    """The value axis title: the unit, or the prefixed unit its ticks are in."""
    return large_scale(panel)[1]


def value_labels(panel: PanelPlan) -> list[str]:
    """The text printed by each point (see ``units.value_labels``)."""
    return units_value_labels(panel.points, panel.unit, panel.references, panel.digits)


def value_text(ax: Axes, text: str, xy: tuple[float, float], offset: tuple[float, float], **align: Any) -> None:
    """A value label next to its mark, with the background halo."""
    ax.annotate(text, xy, xytext=offset, textcoords="offset points", fontsize=style.SIZE_VALUE, color=style.INK,
                annotation_clip=False, gid=HALO, **align)


def reference_lines(ax: Axes, panel: PanelPlan, horizontal: bool) -> None:
    """Each reference as a dashed line across the plot (its legend entry names it)."""
    for index, reference in enumerate(panel.references):
        dashes = style.REFERENCE_DASHES[index % len(style.REFERENCE_DASHES)]
        line = ax.axvline if horizontal else ax.axhline
        line(float(reference.value), color=style.REFERENCE, linewidth=1.4, linestyle=dashes, zorder=4)


class TickFormatter(Formatter):
    """Plain tick labels, alike along one axis: thousands separators on every label as soon as
    one needs them (``8,000`` beside ``16,000``), divided by the axis' scale (``large_scale``)."""

    ticks: Sequence[float] = ()

    def __init__(self, scale: float = 1) -> None:
        self.scale = scale

    def set_locs(self, locs: Sequence[float]) -> None:
        # The decimals of every tick the locator chose, those beyond the view too (``ScaledLocator``).
        locator = getattr(self.axis, "major", None) and self.axis.get_major_locator()  # type: ignore[union-attr]
        chosen = locator.chosen if isinstance(locator, ScaledLocator) and locator.shown == list(locs) else locs
        self.ticks = list(chosen)

    def __call__(self, x: float, pos: int | None = None) -> str:
        return tick_text(x, self.ticks or [x], self.scale)


def tick_text(value: float, ticks: Sequence[float], scale: float = 1) -> str:
    """A tick position (not a data value): as few decimals as tell every tick exactly
    (``1.5`` beside ``3``), thousands separators, a true minus sign."""
    if scale != 1:
        value, ticks = value / scale, [t / scale for t in ticks]
    decimals = next((d for d in range(10) if all(abs(round(t, d) - t) < 1e-9 * max(1.0, abs(t)) for t in ticks)), 9)
    text = f"{value:,.{decimals}f}"
    if text.lstrip("-").strip("0.,") == "":
        text = "0"
    return text.replace("-", "\u2212")


class ScaledLocator(MaxNLocator):
    """``MaxNLocator`` that picks round ticks in the axis' display unit (whole GiB, not 10**7 KiB)."""

    def __init__(self, nbins: int, scale: float = 1) -> None:
        super().__init__(nbins=nbins)
        self.scale = scale
        self.chosen: list[float] = []  # the last ticks chosen, those beyond the view included
        self.shown: list[float] = []  # of those, the ones matplotlib may draw (what the locator returns)

    def tick_values(self, vmin: float, vmax: float) -> Any:
        return [tick * self.scale for tick in super().tick_values(vmin / self.scale, vmax / self.scale)]

    def __call__(self) -> Any:
        """The chosen ticks within the view (with a margin): matplotlib builds a tick for every
        location a locator returns and draws only those in the view, so a round tick beyond
        each end was built, positioned and labelled for nothing. The tick labels keep the
        decimals of every chosen tick (``TickFormatter``), so the drawing is the same."""
        self.chosen = list(super().__call__())
        if self.axis is None:
            self.shown = self.chosen
            return self.shown
        low, high = sorted(self.axis.get_view_interval())
        margin = (high - low) * VIEW_MARGIN  # wider than matplotlib's own test of what is in view
        self.shown = [tick for tick in self.chosen if low - margin <= tick <= high + margin]
        return self.shown


class FittingLocator(ScaledLocator):
    """A locator that takes fewer ticks when the labels of a horizontal value axis would
    not fit its width (a narrow figure with long numbers)."""

    def __init__(self, nbins: int, axis_px: float, scale: float) -> None:
        super().__init__(nbins, scale)
        self.most = nbins
        self.axis_px = axis_px

    def tick_values(self, vmin: float, vmax: float) -> Any:
        for nbins in range(self.most, 1, -1):
            self.set_params(nbins=nbins)
            ticks = super().tick_values(vmin, vmax)
            shown = [t for t in ticks if min(vmin, vmax) <= t <= max(vmin, vmax)]
            widest = max((measure(tick_text(t, shown, self.scale), style.SIZE_TICK) for t in shown), default=0.0)
            if len(shown) <= 3 or len(shown) * (widest + 14) <= self.axis_px:
                break
        self.set_params(nbins=self.most)
        return ticks


def value_axis(ax: Axes, which: Literal["x", "y"], panel: PanelPlan, axis_px: float = 0.0) -> None:
    """Gridlines and plain number labels on the value axis ("x" or "y").

    A horizontal value axis (``x``) of ``axis_px`` px takes only as many ticks as fit.
    """
    axis = ax.xaxis if which == "x" else ax.yaxis
    scale = large_scale(panel)[0]
    if which == "x" and axis_px:
        axis.set_major_locator(FittingLocator(6, axis_px, scale))
    else:
        axis.set_major_locator(ScaledLocator(6 if which == "x" else 5, scale))
    axis.set_major_formatter(TickFormatter(scale))
    ax.grid(True, axis=which, color=style.GRID, linewidth=0.8)
    ax.set_axisbelow(True)


def unit_label(fig: Figure, frame: Frame, panel: PanelPlan) -> None:
    """The unit of a vertical value axis, over its top tick label."""
    fig.text(
        frame.x(style.PAD_X),
        frame.y(panel.box.plot_top - style.UNIT_GAP),
        axis_unit(panel),
        fontsize=style.SIZE_TICK,
        color=style.INK,
        va="bottom",
    )


def categories_on(ax: Axes, which: str, positions: Sequence[float], labels: Sequence[str]) -> None:
    """Category tick labels (pre-wrapped lines), without tick marks, on "x" or "y"."""
    # The look first: the ticks the labels need are then built with it, not built and restyled.
    if which == "y":
        ax.tick_params(axis="y", length=0, pad=8)
        ax.set_yticks(list(positions), list(labels))
        ax.spines["left"].set_visible(False)
    else:
        ax.tick_params(axis="x", length=0, pad=6)
        ax.set_xticks(list(positions), list(labels))


def padded_limits(low: float, high: float, axes_px: float, before_px: float, after_px: float) -> tuple[float, float]:
    """Data limits that leave ``before_px`` / ``after_px`` free around [low, high]."""
    if high == low:  # every value equal (all zero, say): give the axis a span of its own
        high = low + (abs(low) or 1.0)
    span = high - low
    usable = max(axes_px - before_px - after_px, axes_px * 0.3)
    scale = span / usable
    return low - before_px * scale, high + after_px * scale


def extent(
    points: Sequence[Point], include_zero: bool, references: Sequence[Reference] = ()
) -> tuple[float, float]:
    """The smallest and largest drawn value (whiskers, observations and reference lines included)."""
    values: list[float] = [0.0] if include_zero else []
    values += [float(r.value) for r in references]
    for point in points:
        if point.value is not None:
            values.append(float(point.value))
            if point.whisker is not None:
                values += point.whisker.bounds(point.value)
        values += [float(v) for v in point.observations]
        if point.whisker is not None and point.whisker.kind != "sd":
            values += point.whisker.bounds(0)
    return (min(values), max(values)) if values else (0.0, 1.0)


def series_color(panel: PanelPlan, point: Point) -> str:
    if point.series and point.series in panel.series:
        return style.series_color(panel.series.index(point.series))
    return style.PALETTE[0]


def whisker_offsets(point: Point) -> tuple[list[float], list[float]] | None:
    """Errorbar offsets (below, above) of a point's whisker, or None."""
    if point.whisker is None or point.value is None:
        return None
    low, high = point.whisker.bounds(point.value)
    return [max(point.value - low, 0.0)], [max(high - point.value, 0.0)]


def error_bar(ax: Axes, at: float, value: float, offsets: tuple[list[float], list[float]], *,
              horizontal: bool, zorder: int = 3) -> None:
    """The reported SD or observed range of one bar or point, in the one style all kinds share."""
    spread = [offsets[0], offsets[1]]
    look: dict[str, Any] = {"fmt": "none", "ecolor": style.INK, "elinewidth": 1.2, "capsize": 3.5, "capthick": 1.2,
                            "zorder": zorder}
    if horizontal:
        ax.errorbar([value], [at], xerr=spread, **look)
    else:
        ax.errorbar([at], [value], yerr=spread, **look)


def not_reported(ax: Axes, x: float, y: float, horizontal: bool) -> None:
    """A labelled marker where a value is null: never a zero-length bar."""
    ax.plot(
        [x],
        [y],
        marker="D",
        markersize=6,
        markerfacecolor=style.BG,
        markeredgecolor=style.NOT_REPORTED,
        markeredgewidth=1.2,
        linestyle="none",
        zorder=4,
        clip_on=False,
    )
    align: dict[str, Any] = {"ha": "left", "va": "center"} if horizontal else {"ha": "center", "va": "bottom"}
    offset = (7, 0) if horizontal else (0, 7)
    ax.annotate(
        style.LEGEND_NOT_REPORTED,
        (x, y),
        xytext=offset,
        textcoords="offset points",
        fontsize=style.SIZE_VALUE,
        color=style.NOT_REPORTED,
        fontstyle="italic",
        annotation_clip=False,
        **align,
    )


def source_headers(fig: Figure, frame: Frame, panel: PanelPlan) -> None:
    """Label each block of a panel whose sources are kept apart, with a rule between blocks."""
    if not panel.separate_sources:
        return
    top = panel.box.plot_top
    for index, slot in enumerate(panel.slots):
        if index and panel.slots[index - 1].block == slot.block:
            continue
        y = top + slot.start - style.SOURCE_HEADER
        if index:
            fig.add_artist(
                Line2D(
                    [frame.x(style.PAD_X), frame.x(frame.width - style.PAD_X)],
                    [frame.y(y + 1)] * 2,
                    color=style.MUTED,
                    linewidth=0.8,
                    linestyle=(0, (4, 3)),
                )
            )
        fig.text(
            frame.x(style.PAD_X),
            frame.y(y + 5),
            f"source: {slot.source or 'not reported'}",
            va="top",
            fontsize=style.SIZE_SOURCE,
            color=style.MUTED,
            fontstyle="italic",
        )


def fit_left(ax: Axes, frame: Frame, top: float, height: float) -> float:
    """Move a vertical panel's axes so its value tick labels just fit; returns the axes' left px."""
    low, high = sorted(ax.get_ylim())
    ticks = [v for v in ax.yaxis.get_major_locator()() if low <= v <= high]
    formatter = ax.yaxis.get_major_formatter()
    scale = formatter.scale if isinstance(formatter, TickFormatter) else 1
    widest = max((measure(tick_text(v, ticks, scale), style.SIZE_TICK) for v in ticks), default=0.0)
    left = style.PAD_X + widest + 10
    ax.set_position(frame.rect(left, top, frame.width - style.PAD_X - left, height))
    ax.set_label(VERTICAL)
    return left


def align_vertical(fig: Figure) -> None:
    """Give every vertical panel of the chart the same left edge (the widest tick labels)."""
    axes = [ax for ax in fig.axes if ax.get_label() == VERTICAL]
    if len(axes) < 2:
        return
    left = max(ax.get_position().x0 for ax in axes)
    for ax in axes:
        box = ax.get_position()
        ax.set_position((left, box.y0, box.x1 - left, box.height))


def stacked(panel: PanelPlan) -> list[tuple[int, float]]:
    """(point index, y px) of every point of a horizontal panel, series one under the other."""
    rows: list[tuple[int, float]] = []
    for slot in panel.slots:
        n = len(slot.points)
        for k, index in enumerate(slot.points):
            rows.append((index, slot.start + slot.size / 2 - n * style.BAR_PX / 2 + (k + 0.5) * style.BAR_PX))
    return rows


def horizontal_axes(fig: Figure, frame: Frame, panel: PanelPlan) -> tuple[Axes, float]:
    """Axes of a horizontal panel: category labels on the left, value axis below; and its width."""
    box = panel.box
    left = style.PAD_X + frame.label_px
    width = frame.width - style.PAD_X - left
    ax = add_axes(fig, frame, left, box.plot_top, width, box.plot_height)
    ax.set_ylim(box.plot_height, 0)
    categories_on(ax, "y", [s.start + s.size / 2 for s in panel.slots], ["\n".join(s.lines) for s in panel.slots])
    value_axis(ax, "x", panel, width)
    ax.set_xlabel(axis_unit(panel), fontsize=style.SIZE_TICK, color=style.INK, labelpad=6)
    source_headers(fig, frame, panel)
    return ax, width
