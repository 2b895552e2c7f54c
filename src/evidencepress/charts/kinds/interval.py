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

LABEL_ROOM = 0.3  # most of the value axis kept free for value labels right of the whiskers


def draw(fig: Figure, frame: Frame, panel: PanelPlan) -> None:
    ax, width = d.horizontal_axes(fig, frame, panel)
    low, high = d.extent(panel.points, include_zero=False, references=panel.references)
    labels = d.value_labels(panel)
    # Room for the labels right of the whiskers, at most LABEL_ROOM of the axis (a long label on a phone
    # would stretch the axis far past the data); a label that does not fit there goes left of its whisker.
    room = min(max((d.measure(t, style.SIZE_VALUE) for t in labels), default=0) + 12, width * LABEL_ROOM)
    ax.set_xlim(*d.padded_limits(low, high, width, 16, room))
    left, right = ax.get_xlim()
    px_per_unit = width / (right - left)
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
        start, end = point.whisker.bounds(point.value) if point.whisker is not None else (point.value, point.value)
        need = (d.measure(labels[index], style.SIZE_VALUE) + 8) / px_per_unit
        before = end + need > right and start - need >= left
        ax.annotate(
            labels[index],
            (start, y) if before else (end, y),
            xytext=(-6 if before else 6, 0),
            textcoords="offset points",
            va="center",
            ha="right" if before else "left",
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
