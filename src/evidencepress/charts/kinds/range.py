"""Range panels: observed min–max whiskers, raw observations as dots, a derived median."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .. import layout, style
from .. import mpl as d
from ..legend import reference_items, series_items, whisker_items
from ..model import LegendItem, PanelPlan, Point
from . import Kind, LegendInput

if TYPE_CHECKING:
    from ..draw.surface import Plot, Sheet


def draw(sheet: Sheet, panel: PanelPlan) -> None:
    plot, width = d.horizontal_plot(sheet, panel)
    low, high = d.extent(panel.points, include_zero=False, references=panel.references)
    reported = [p for p in panel.points if p.value is not None or p.observations]
    plot.set_xlim(*d.padded_limits(low, high, width, 16, 16))
    for index, y in d.stacked(panel):
        point = panel.points[index]
        if point.value is None and not point.observations:
            d.not_reported(plot, plot.xlim[0], y, horizontal=True)
        else:
            _point(plot, panel, point, y)
    d.reference_lines(plot, panel, horizontal=True)
    if not reported:
        plot.guides.value_axis = None


def _point(plot: Plot, panel: PanelPlan, point: Point, y: float) -> None:
    color = d.series_color(panel, point)
    if point.whisker is not None:
        low, high = point.whisker.bounds(point.value if point.value is not None else 0)
        plot.line([low, high], [y, y], color=color, linewidth=2.2, marker="|", markersize=10, markeredgewidth=2.2,
                  zorder=2)
    if point.observations:
        plot.line(list(point.observations), [y] * len(point.observations), linestyle="none", marker="o",
                  markersize=6.5, markerfacecolor="white", markeredgecolor=color if panel.series else style.INK,
                  markeredgewidth=1.2, alpha=0.9, zorder=3)
    if point.median is not None:
        plot.line([point.median], [y], linestyle="none", marker="|", markersize=15, markeredgewidth=2.4,
                  color=style.INK, zorder=4)
    if point.value is not None:
        plot.line([point.value], [y], linestyle="none", marker="o", markersize=7, color=style.INK, zorder=4)


def legend(given: LegendInput) -> tuple[LegendItem, ...]:
    items = series_items(given.series, given.series_prefix)
    if any(p.observations for p in given.points):
        items += [
            LegendItem("observation", style.LEGEND_OBSERVATION, style.INK),
            LegendItem("median", style.LEGEND_MEDIAN, style.INK),
        ]
    if any(p.value is not None for p in given.points):
        items.append(LegendItem("value", "reported value", style.INK))
    items += whisker_items(given.points, coloured=not given.series)
    return tuple(items + reference_items(given.references))


KIND = Kind(
    name="range",
    keys=frozenset({"reference", "unit"}),
    values="range",
    horizontal=layout.always_horizontal,
    stacked=True,
    legend=legend,
    above=layout.unit_above,
    below=layout.axis_below,
    draw=draw,
    hides_equal_observations=True,
)
