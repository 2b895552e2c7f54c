"""Dot panels (a strip plot): every raw observation of an entry as a dot.

For per-run values: equal values are stacked one above the other (a dot plot
in Wilkinson's sense) so that no observation hides another, and a count is
printed beside a stack of three or more. The site derives no statistic: a
summary is drawn only when the export reports it (``mark``, e.g. the source's
mean), and a whisker only from a reported interval (``interval``).
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

from .. import layout, style
from .. import mpl as d
from ..legend import reference_items, series_items
from ..model import LegendItem, PanelPlan, Point
from . import Kind, LegendInput

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from ..draw.common import Frame

DOT_PT = 6.5  # marker size (pt)
STACK_PX = 9  # vertical step between equal values
MAX_STACK = 4  # taller stacks print their count instead of growing


def legend(given: LegendInput) -> tuple[LegendItem, ...]:
    items = series_items(given.series, given.series_prefix)
    items.append(LegendItem("observation", style.LEGEND_OBSERVATION, style.INK))
    if any(p.value is not None for p in given.points):
        items.append(LegendItem("mark", given.mark_label or "reported summary", style.INK))
    whiskers = dict.fromkeys(p.whisker.legend for p in given.points if p.whisker is not None and p.whisker.kind == "interval")
    items += [LegendItem("interval", label, style.INK) for label in whiskers]
    return tuple(items + reference_items(given.references))



def draw(fig: Figure, frame: Frame, panel: PanelPlan) -> None:
    ax, width = d.horizontal_axes(fig, frame, panel)
    low, high = d.extent(panel.points, include_zero=False, references=panel.references)
    ax.set_xlim(*d.padded_limits(low, high, width, 18, 30))
    for index, y in d.stacked(panel):
        point = panel.points[index]
        if not point.observations:
            d.not_reported(ax, ax.get_xlim()[0], y, horizontal=True)
            continue
        _whisker(ax, point, y)
        _dots(ax, panel, point, y)
        if point.value is not None:
            ax.plot([point.value], [y], linestyle="none", marker="|", markersize=18, markeredgewidth=2.4,
                    color=style.INK, zorder=5)
    d.reference_lines(ax, panel, horizontal=True)


def _whisker(ax: Axes, point: Point, y: float) -> None:
    if point.whisker is None or point.whisker.kind != "interval":
        return
    low, high = point.whisker.bounds(0)
    ax.plot([low, high], [y + 7, y + 7], color=style.INK, linewidth=1.2, zorder=2)
    ax.plot([low, high], [y + 7, y + 7], linestyle="none", marker="|", markersize=7, markeredgewidth=1.2,
            color=style.INK, zorder=2)


def _dots(ax: Axes, panel: PanelPlan, point: Point, y: float) -> None:
    """Equal values stack upwards from the row's line; a stack taller than MAX_STACK shows ×count."""
    color = d.series_color(panel, point)
    counts = Counter(float(v) for v in point.observations)
    for value, count in sorted(counts.items()):
        shown = min(count, MAX_STACK)
        ys = [y - k * STACK_PX for k in range(shown)]
        ax.plot([value] * shown, ys, linestyle="none", marker="o", markersize=DOT_PT, markerfacecolor=color,
                markeredgecolor=style.BG, markeredgewidth=0.8, zorder=3)
        if count >= 3:
            d.value_text(ax, f"\u00d7{count}", (value, ys[-1]), (0, 6), ha="center", va="bottom")


def slot_px(points: list[Point]) -> int:
    """Room for the tallest stack of equal values, its count and a reported interval."""
    tallest = max((max(Counter(p.observations).values(), default=1) for p in points), default=1)
    return min(tallest, MAX_STACK) * STACK_PX + 26 + (10 if any(p.whisker for p in points) else 0)


KIND = Kind(
    name="dot",
    keys=frozenset({"reference", "interval", "mark", "mark_label", "unit"}),
    values="observations",
    horizontal=layout.always_horizontal,
    stacked=True,
    legend=legend,
    above=layout.unit_above,
    below=lambda horizontal, slots: layout.axis_below(horizontal, slots),
    draw=draw,
    slot_px=slot_px,
)
