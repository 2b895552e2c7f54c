"""Dot panels (a strip plot): every raw observation of an entry as a dot.

For per-run values: equal values are stacked one above the other (a dot plot
in Wilkinson's sense) so that no observation hides another, and a count is
printed beside a stack of three or more. The site derives no statistic: a
summary is drawn only when the export reports it (``mark``, e.g. the source's
mean), and a whisker only from a reported interval (``interval``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING

from .. import layout, style
from .. import mpl as d
from ..legend import reference_items, series_items
from ..model import LegendItem, PanelPlan, Point
from . import Kind, LegendInput

if TYPE_CHECKING:
    from ..draw.surface import Plot, Sheet

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



def draw(sheet: Sheet, panel: PanelPlan) -> None:
    plot, width = d.horizontal_plot(sheet, panel)
    low, high = d.extent(panel.points, include_zero=False, references=panel.references)
    plot.set_xlim(*d.padded_limits(low, high, width, 18, 30))
    for index, y in d.stacked(panel):
        point = panel.points[index]
        if not point.observations:
            d.not_reported(plot, plot.xlim[0], y, horizontal=True)
            continue
        _whisker(plot, point, y)
        _dots(plot, panel, point, y)
        if point.value is not None:
            plot.line([point.value], [y], linestyle="none", marker="|", markersize=18, markeredgewidth=2.4,
                      color=style.INK, zorder=5)
    d.reference_lines(plot, panel, horizontal=True)


def _whisker(plot: Plot, point: Point, y: float) -> None:
    if point.whisker is None or point.whisker.kind != "interval":
        return
    low, high = point.whisker.bounds(0)
    plot.line([low, high], [y + 7, y + 7], color=style.INK, linewidth=1.2, marker="|", markersize=7,
              markeredgewidth=1.2, zorder=2)


def levels(values: Sequence[float], gap: float) -> list[int]:
    """The stack level of each value (in order): the lowest level where no dot sits within ``gap``.

    Equal values and values closer than a dot's width stack upwards (a beeswarm along one axis);
    the order of ``values`` decides ties, so the result is deterministic."""
    placed: list[list[float]] = []
    result = []
    for value in values:
        level = next((k for k, row in enumerate(placed) if all(abs(value - other) >= gap for other in row)), len(placed))
        if level == len(placed):
            placed.append([])
        placed[level].append(value)
        result.append(level)
    return result


def _dots(plot: Plot, panel: PanelPlan, point: Point, y: float) -> None:
    """Dots that would touch stack upwards from the row's line; past MAX_STACK levels a ×count shows the rest."""
    color = d.series_color(panel, point)
    values = sorted(float(v) for v in point.observations)
    xs = [plot.x_pt(v) for v in values]
    for value, level in zip(values, levels(xs, DOT_PT + 0.5), strict=True):
        shown = min(level, MAX_STACK - 1)
        plot.line([value], [y - shown * STACK_PX], linestyle="none", marker="o", markersize=DOT_PT,
                  markerfacecolor=color, markeredgecolor=style.BG, markeredgewidth=0.8, zorder=3 + shown)
    for value, count in sorted(Counter(values).items()):
        if count >= 3:
            top = y - (min(count, MAX_STACK) - 1) * STACK_PX
            d.value_text(plot, f"\u00d7{count}", (value, top), (0, 6), ha="center", va="bottom")


def slot_px(points: list[Point]) -> int:
    """Room for the tallest stack, its count and a reported interval (dots within 1/45 of the
    panel's span are taken to touch, as they will on an axis of about 300 px or more)."""
    values = [float(v) for p in points for v in p.observations]
    gap = (max(values) - min(values)) / 45 if values else 0.0
    tallest = max((max(levels(sorted(float(v) for v in p.observations), gap), default=0) + 1 for p in points), default=1)
    return min(tallest, MAX_STACK) * STACK_PX + 26 + (10 if any(p.whisker for p in points) else 0)


KIND = Kind(
    name="dot",
    keys=frozenset({"reference", "interval", "mark", "mark_label", "unit"}),
    values="observations",
    horizontal=layout.always_horizontal,
    stacked=True,
    legend=legend,
    above=layout.unit_above,
    below=layout.axis_below,
    draw=draw,
    slot_px=slot_px,
    filled_observations=True,
)
