"""Range panels: observed min–max whiskers, raw observations as dots, a derived median."""

from __future__ import annotations

from matplotlib.axes import Axes
from matplotlib.figure import Figure

from .. import style
from ..model import PanelPlan, Point
from .common import Frame, extent, horizontal_axes, not_reported, padded_limits, series_color, stacked


def draw(fig: Figure, frame: Frame, panel: PanelPlan) -> None:
    ax, width = horizontal_axes(fig, frame, panel)
    low, high = extent(panel.points, include_zero=False)
    reported = [p for p in panel.points if p.value is not None or p.observations]
    ax.set_xlim(*padded_limits(low, high, width, 16, 16))
    for index, y in stacked(panel):
        point = panel.points[index]
        if point.value is None and not point.observations:
            not_reported(ax, ax.get_xlim()[0], y, horizontal=True)
        else:
            _point(ax, panel, point, y)
    if not reported:
        ax.set_xticks([])


def _point(ax: Axes, panel: PanelPlan, point: Point, y: float) -> None:
    color = series_color(panel, point)
    if point.whisker is not None:
        low, high = point.whisker.bounds(point.value if point.value is not None else 0)
        ax.plot([low, high], [y, y], color=color, linewidth=2.2, solid_capstyle="butt", zorder=2)
        ax.plot(
            [low, high], [y, y], linestyle="none", marker="|", markersize=10, markeredgewidth=2.2, color=color, zorder=2
        )
    if point.observations:
        ax.plot(
            list(point.observations),
            [y] * len(point.observations),
            linestyle="none",
            marker="o",
            markersize=6.5,
            markerfacecolor="white",
            markeredgecolor=color if panel.series else style.INK,
            markeredgewidth=1.2,
            alpha=0.9,
            zorder=3,
        )
    if point.median is not None:
        ax.plot(
            [point.median],
            [y],
            linestyle="none",
            marker="|",
            markersize=15,
            markeredgewidth=2.4,
            color=style.INK,
            zorder=4,
        )
    if point.value is not None:
        ax.plot([point.value], [y], linestyle="none", marker="o", markersize=7, color=style.INK, zorder=4)
