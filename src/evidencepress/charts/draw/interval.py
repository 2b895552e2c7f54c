"""Interval panels: estimates with their reported interval and a reference line."""

from __future__ import annotations

from matplotlib.figure import Figure

from .. import style
from ..model import PanelPlan
from .common import (
    HALO,
    Frame,
    extent,
    horizontal_axes,
    measure,
    not_reported,
    padded_limits,
    series_color,
    stacked,
    whisker_offsets,
)


def draw(fig: Figure, frame: Frame, panel: PanelPlan) -> None:
    ax, width = horizontal_axes(fig, frame, panel)
    low, high = extent(panel.points, include_zero=False)
    if panel.reference is not None:
        low, high = min(low, float(panel.reference)), max(high, float(panel.reference))
    labels = ["" if p.value is None else style.display_number(p.value) for p in panel.points]
    room = max((measure(t, style.SIZE_VALUE) for t in labels), default=0) + 12
    ax.set_xlim(*padded_limits(low, high, width, 16, room))
    if panel.reference is not None:
        ax.axvline(float(panel.reference), color=style.MUTED, linewidth=1.2, linestyle=(0, (4, 3)), zorder=1)
    for index, y in stacked(panel):
        point = panel.points[index]
        if point.value is None:
            not_reported(ax, ax.get_xlim()[0], y, horizontal=True)
            continue
        color = series_color(panel, point)
        offsets = whisker_offsets(point)
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
            path_effects=HALO,
        )
