"""Interval panels: estimates with their reported interval and a reference line."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .. import layout, style
from .. import mpl as d
from ..legend import reference_items, series_items, whisker_items
from ..model import LegendItem, PanelPlan
from . import Kind, LegendInput

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from ..draw.common import Frame


def draw(fig: Figure, frame: Frame, panel: PanelPlan) -> None:
    ax, width = d.horizontal_axes(fig, frame, panel)
    low, high = d.extent(panel.points, include_zero=False, references=panel.references)
    labels = d.value_labels(panel)
    room = max((d.measure(t, style.SIZE_VALUE) for t in labels), default=0) + 12
    ax.set_xlim(*d.padded_limits(low, high, width, 16, room))
    d.reference_lines(ax, panel, horizontal=True)
    for index, y in d.stacked(panel):
        point = panel.points[index]
        if point.value is None:
            d.not_reported(ax, ax.get_xlim()[0], y, horizontal=True)
            continue
        color = d.series_color(panel, point)
        offsets = d.whisker_offsets(point)
        if offsets:
            ax.errorbar(
                [point.value],
                [y],
                xerr=[offsets[0], offsets[1]],
                fmt="none",
                ecolor=color,
                elinewidth=2,
                capsize=4,
                capthick=2,
                zorder=2,
            )
        ax.plot([point.value], [y], linestyle="none", marker="o", markersize=7, color=style.INK, zorder=3)
        end = point.whisker.bounds(point.value)[1] if point.whisker is not None else point.value
        ax.annotate(
            labels[index],
            (end, y),
            xytext=(6, 0),
            textcoords="offset points",
            va="center",
            ha="left",
            fontsize=style.SIZE_VALUE,
            color=style.INK,
            annotation_clip=False,
            gid=d.HALO,
        )


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
