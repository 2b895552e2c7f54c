"""Interval panels: estimates with their reported interval and a reference line."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .. import layout, style
from .. import mpl as d
from ..legend import reference_items, series_items, whisker_items
from ..model import LegendItem, PanelPlan
from . import Kind, LegendInput

if TYPE_CHECKING:
    from ..draw.surface import Sheet

LABEL_ROOM = 0.3  # most of the value axis kept free for value labels right of the whiskers


def draw(sheet: Sheet, panel: PanelPlan) -> None:
    plot, width = d.horizontal_plot(sheet, panel)
    low, high = d.extent(panel.points, include_zero=False, references=panel.references)
    labels = d.value_labels(panel)
    # Room for the labels right of the whiskers, at most LABEL_ROOM of the axis (a long label on a phone
    # would stretch the axis far past the data); a label that does not fit there goes left of its whisker.
    room = min(max((d.measure(t, style.SIZE_VALUE) for t in labels), default=0) + 12, width * LABEL_ROOM)
    plot.set_xlim(*d.padded_limits(low, high, width, 16, room))
    left, right = plot.xlim
    px_per_unit = width / (right - left)
    d.reference_lines(plot, panel, horizontal=True)
    for index, y in d.stacked(panel):
        point = panel.points[index]
        if point.value is None:
            d.not_reported(plot, left, y, horizontal=True)
            continue
        span = d.whisker_span(point)
        if span:
            d.error_bar(plot, y, span, horizontal=True, zorder=2, color=d.series_color(panel, point), width=2, cap=4)
        plot.line([point.value], [y], linestyle="none", marker="o", markersize=7, color=style.INK, zorder=3)
        if not labels[index]:
            continue
        start, end = point.whisker.bounds(point.value) if point.whisker is not None else (point.value, point.value)
        need = (d.measure(labels[index], style.SIZE_VALUE) + 8) / px_per_unit
        before = end + need > right and start - need >= left
        d.value_text(plot, labels[index], (start, y) if before else (end, y), (-6 if before else 6, 0), va="center",
                     ha="right" if before else "left")


def legend(given: LegendInput) -> tuple[LegendItem, ...]:
    items = series_items(given.series, given.series_prefix)
    items.append(LegendItem("value", "estimate as reported", style.INK))
    items += whisker_items(given.points, coloured=not given.series)
    return tuple(items + reference_items(given.references))


KIND = Kind(
    name="interval",
    keys=frozenset({"reference", "interval", "unit"}),
    values="interval",
    horizontal=layout.always_horizontal,
    stacked=True,
    legend=legend,
    above=layout.unit_above,
    below=layout.axis_below,
    draw=draw,
)
