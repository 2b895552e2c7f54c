"""Range panels: observed min–max whiskers, raw observations as dots, a derived median.

Each row is labelled as an editor would: the reported value (or the median the site derives) over
its mark, and the two ends of the range beside the whisker's caps, where nothing else of the row
lies. A row keeps room over its line for its label (``room``), so no two labels meet.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .. import layout, style
from .. import mpl as d
from ..legend import reference_items, series_items, whisker_items
from ..model import LegendItem, PanelPlan, Point
from ..units import PointTexts, point_texts
from . import Kind, Labelled, LegendInput, SlotInput

if TYPE_CHECKING:
    from ..draw.surface import Plot, Sheet

CAP_PT = 10  # the whisker's caps: their height
MEDIAN_PT = 15  # the derived median's tick: its height
VALUE_PT = 7  # the reported value's dot
OBSERVATION_PT = 6.5  # an observation's ring
END_PAD_PT = 6  # between a whisker's cap and its end's label
LABEL_GAP_PX = 2  # between a mark and the label over it
ROW_PAD_PX = 3  # over a row's label and under its line
EDGE_PX = 16  # the least room left and right of the data


def labelled(point: Point) -> Labelled:
    """The value (else the median of the observations) and, where they differ, the range's ends."""
    summary = point.value if point.value is not None else point.median
    whisker = point.whisker
    if whisker is None or whisker.low is None or whisker.high is None or whisker.low == whisker.high:
        return Labelled(summary)
    return Labelled(summary, (whisker.low, whisker.high))


def _half(point: Point) -> float:
    """Half the height of the row's tallest mark, in px."""
    marks = [VALUE_PT if point.value is not None else 0, MEDIAN_PT if point.median is not None else 0,
             CAP_PT if point.whisker is not None else 0, OBSERVATION_PT if point.observations else 0]
    return max(marks) / 2 * style.PX_PER_PT


def room(point: Point) -> tuple[float, float]:
    """px over and under a row's line: its value label over its tallest mark; under, that mark or
    half the height of the labels beside the caps."""
    if point.value is None and not point.observations:
        return style.MIN_SLOT / 2, style.MIN_SLOT / 2  # a "not reported" marker
    half = _half(point)
    return (half + LABEL_GAP_PX + style.VALUE_LABEL_PX + ROW_PAD_PX,
            max(half, style.VALUE_LABEL_PX / 2) + ROW_PAD_PX)


def slot_px(slot: SlotInput) -> int:
    return round(sum(sum(room(point)) for point in slot.points))


def draw(sheet: Sheet, panel: PanelPlan) -> None:
    plot, width = d.horizontal_plot(sheet, panel)
    low, high = d.extent(panel.points, include_zero=False, references=panel.references)
    texts = point_texts(panel.points, panel.digits, labelled)
    pad = END_PAD_PT * style.PX_PER_PT + 2
    before = max([EDGE_PX] + [d.measure(t.low, style.SIZE_VALUE) + pad for t in texts if t.low])
    after = max([EDGE_PX] + [d.measure(t.high, style.SIZE_VALUE) + pad for t in texts if t.high])
    plot.set_xlim(*d.padded_limits(low, high, width, before, after))
    rows = d.rows(panel, room)
    d.categories_at(plot, panel, rows)
    for index, y in rows:
        point = panel.points[index]
        if point.value is None and not point.observations:
            d.not_reported(plot, plot.xlim[0], y, horizontal=True)
        else:
            _point(plot, panel, point, y)
            _labels(plot, point, texts[index], y)
    d.reference_lines(plot, panel, horizontal=True)
    if not any(p.value is not None or p.observations for p in panel.points):
        plot.guides.value_axis = None


def _point(plot: Plot, panel: PanelPlan, point: Point, y: float) -> None:
    color = d.series_color(panel, point)
    if point.whisker is not None:
        low, high = point.whisker.bounds(point.value if point.value is not None else 0)
        plot.line([low, high], [y, y], color=color, linewidth=2.2, marker="|", markersize=CAP_PT, markeredgewidth=2.2,
                  zorder=2)
    if point.observations:
        plot.line(list(point.observations), [y] * len(point.observations), linestyle="none", marker="o",
                  markersize=OBSERVATION_PT, markerfacecolor="white",
                  markeredgecolor=color if panel.series else style.INK, markeredgewidth=1.2, alpha=0.9, zorder=3)
    if point.median is not None:
        plot.line([point.median], [y], linestyle="none", marker="|", markersize=MEDIAN_PT, markeredgewidth=2.4,
                  color=style.INK, zorder=4)
    if point.value is not None:
        plot.line([point.value], [y], linestyle="none", marker="o", markersize=VALUE_PT, color=style.INK, zorder=4)


def _labels(plot: Plot, point: Point, texts: PointTexts, y: float) -> None:
    """The value over its mark, the range's ends beside its caps."""
    numbers = labelled(point)
    if texts.value and numbers.value is not None:
        d.label_over(plot, texts.value, float(numbers.value), y - _half(point) - LABEL_GAP_PX)
    if numbers.ends is not None:
        low, high = numbers.ends
        if texts.low:
            d.label_beside(plot, texts.low, float(low), y, -1, END_PAD_PT)
        if texts.high:
            d.label_beside(plot, texts.high, float(high), y, 1, END_PAD_PT)


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
    slot_px=slot_px,
    labelled=labelled,
    hides_equal_observations=True,
)
