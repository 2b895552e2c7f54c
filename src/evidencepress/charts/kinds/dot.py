"""Dot panels (a strip plot): every raw observation of an entry as a dot.

For per-run values: equal values are stacked one above the other (a dot plot
in Wilkinson's sense) so that no observation hides another, and a count is
printed beside a stack of three or more. The site derives no statistic: a
summary is drawn only when the export reports it (``mark``, e.g. the source's
mean), and a whisker only from a reported interval (``interval``).

Each row's labels lie on a line of their own under it, clear of its dots: the
reported summary under its tick, and the ends of its interval (else its lowest
and highest observation) flush outside them. A row keeps room over its line
for its stacks and under it for that line (``room``), so no two labels meet.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING, NamedTuple

from .. import layout, style
from .. import mpl as d
from ..legend import reference_items, series_items
from ..model import LegendItem, PanelPlan, Point, Reference
from ..units import PointTexts, point_texts
from . import Kind, Labelled, LegendInput, SlotInput

if TYPE_CHECKING:
    from ..draw.surface import Plot, Sheet

DOT_PT = 6.5  # marker size (pt)
STACK_PX = 9  # vertical step between equal values
MAX_STACK = 4  # taller stacks print their count instead of growing
COUNT_FROM = 3  # equal values from this many on print their count over their stack
COUNT_PT = 6  # between the top dot of a stack and its count
MARK_PT = 18  # the reported summary's tick: its height
WHISKER_PX = 7  # a reported interval runs this far under the row's line
CAP_PT = 7  # the interval's caps: their height
HANG_PT = DOT_PT / 2  # an end's label reaches this far under its dot or cap
LABEL_GAP_PT = 5  # between two labels of a row
LANE_GAP_PX = 2  # between the lowest mark of a row and its labels
ROW_PAD_PX = 3  # over a row's top mark and under its labels
EDGE_PX = (18, 30)  # the least room left and right of the data


def legend(given: LegendInput) -> tuple[LegendItem, ...]:
    items = series_items(given.series, given.series_prefix)
    items.append(LegendItem("observation", style.LEGEND_OBSERVATION, style.INK))
    if any(p.value is not None for p in given.points):
        items.append(LegendItem("mark", given.mark_label or "reported summary", style.INK))
    whiskers = dict.fromkeys(p.whisker.legend for p in given.points if p.whisker is not None and p.whisker.kind == "interval")
    items += [LegendItem("interval", label, style.INK) for label in whiskers]
    return tuple(items + reference_items(given.references))


def labelled(point: Point) -> Labelled:
    """The reported summary, and the ends of the reported interval, else the lowest and highest
    observation (a single value alone when they are one)."""
    whisker = point.whisker
    if whisker is not None and whisker.low is not None and whisker.high is not None:
        ends = (whisker.low, whisker.high)
    elif point.observations:
        ends = (min(point.observations), max(point.observations))
    else:
        return Labelled(point.value)
    if ends[0] == ends[1]:
        return Labelled(point.value if point.value is not None else ends[0])
    return Labelled(point.value, ends)


def padding(points: Sequence[Point], digits: int | None) -> tuple[float, float]:
    """px left and right of the data: the labels of a row reach past its lowest and highest marks."""
    texts = point_texts(points, digits, labelled)
    reach = LABEL_GAP_PT * style.PX_PER_PT + 2
    before = max([EDGE_PX[0]] + [_px(t.low) + reach for t in texts] + [_px(t.value) / 2 + reach for t in texts])
    after = max([EDGE_PX[1]] + [_px(t.high) + reach for t in texts] + [_px(t.value) / 2 + reach for t in texts])
    return before, after


def _px(text: str) -> float:
    return style.text_px(text, style.SIZE_VALUE)


def stack_gap(points: Sequence[Point], references: Sequence[Reference], digits: int | None,
              where: layout.Canvas) -> float:
    """How near two values may be and still sit side by side on a row, in data units, on the
    narrowest plot the panel can have on ``where``: the planner keeps room for the stacks this gap
    makes, at least as tall as those the drawing makes on its wider plot (``_gap``)."""
    low, high = layout.extent(points, include_zero=False, references=references)
    plot = layout.narrowest_plot(where)
    return _gap(layout.padded_limits(low, high, plot, *padding(points, digits)), plot)


def _gap(limits: tuple[float, float], plot_px: float) -> float:
    """A dot's width, and a little air, in the data units of a plot ``plot_px`` wide showing ``limits``."""
    return (DOT_PT + 0.5) * style.PX_PER_PT * (limits[1] - limits[0]) / plot_px


def _stack(point: Point, gap: float) -> int:
    """How many dots high the row's tallest stack is (at most MAX_STACK)."""
    return min(max(levels(sorted(float(v) for v in point.observations), gap)) + 1, MAX_STACK)


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


def _counts(point: Point) -> list[tuple[float, int]]:
    """Each value that at least COUNT_FROM observations share, with their count (in value order)."""
    return [(value, count) for value, count in sorted(Counter(float(v) for v in point.observations).items())
            if count >= COUNT_FROM]


def _lane_top(point: Point) -> float:
    """px from a row's line to the top of its labels: under its dots, its tick and its interval."""
    lowest = [DOT_PT / 2 * style.PX_PER_PT]
    if point.value is not None:
        lowest.append(MARK_PT / 2 * style.PX_PER_PT)
    if point.whisker is not None:
        lowest.append(WHISKER_PX + CAP_PT / 2 * style.PX_PER_PT)
    return max(lowest) + LANE_GAP_PX


def room(point: Point, gap: float) -> tuple[float, float]:
    """px over and under a row's line: its stacks (and their counts) over it, its labels under it."""
    if not point.observations:
        return style.MIN_SLOT / 2, style.MIN_SLOT / 2  # a "not reported" marker
    over_top_dot = COUNT_PT * style.PX_PER_PT + style.VALUE_LABEL_PX if _counts(point) else DOT_PT / 2 * style.PX_PER_PT
    top = (_stack(point, gap) - 1) * STACK_PX + over_top_dot
    tick = MARK_PT / 2 * style.PX_PER_PT if point.value is not None else 0.0
    return max(top, tick) + ROW_PAD_PX, _lane_top(point) + style.VALUE_LABEL_PX + ROW_PAD_PX


def slot_px(slot: SlotInput) -> int:
    gap = stack_gap(slot.panel, slot.references, slot.digits, slot.where)
    return round(sum(sum(room(point, gap)) for point in slot.points))


def draw(sheet: Sheet, panel: PanelPlan) -> None:
    plot, width = d.horizontal_plot(sheet, panel)
    planned = stack_gap(panel.points, panel.references, panel.digits, layout.canvas(sheet.width))
    low, high = d.extent(panel.points, include_zero=False, references=panel.references)
    plot.set_xlim(*d.padded_limits(low, high, width, *padding(panel.points, panel.digits)))
    gap = _gap(plot.xlim, width)
    texts = point_texts(panel.points, panel.digits, labelled)
    rows = d.rows(panel, lambda point: room(point, planned))
    d.categories_at(plot, panel, rows)
    for index, y in rows:
        point = panel.points[index]
        if not point.observations:
            d.not_reported(plot, plot.xlim[0], y, horizontal=True)
            continue
        _whisker(plot, point, y)
        _dots(plot, panel, point, y, gap, _stack(point, planned))
        if point.value is not None:
            plot.line([point.value], [y], linestyle="none", marker="|", markersize=MARK_PT, markeredgewidth=2.4,
                      color=style.INK, zorder=5)
        _labels(plot, point, texts[index], y + _lane_top(point))
    d.reference_lines(plot, panel, horizontal=True)


def _whisker(plot: Plot, point: Point, y: float) -> None:
    if point.whisker is None or point.whisker.kind != "interval":
        return
    low, high = point.whisker.bounds(0)
    plot.line([low, high], [y + WHISKER_PX, y + WHISKER_PX], color=style.INK, linewidth=1.2, marker="|",
              markersize=CAP_PT, markeredgewidth=1.2, zorder=2)


def _dots(plot: Plot, panel: PanelPlan, point: Point, y: float, gap: float, room: int) -> None:
    """Dots that would touch stack upwards from the row's line, at most ``room`` high (the planned
    stack); past MAX_STACK levels a ×count shows the rest."""
    color = d.series_color(panel, point)
    values = sorted(float(v) for v in point.observations)
    for value, level in zip(values, levels(values, gap), strict=True):
        shown = min(level, room - 1)
        plot.line([value], [y - shown * STACK_PX], linestyle="none", marker="o", markersize=DOT_PT,
                  markerfacecolor=color, markeredgecolor=style.BG, markeredgewidth=0.8, zorder=3 + shown)
    for value, count in _counts(point):
        top = y - (min(count, MAX_STACK) - 1) * STACK_PX
        d.value_text(plot, f"\u00d7{count}", (value, top), (0, COUNT_PT), ha="center", va="bottom")


class _Label(NamedTuple):
    text: str
    x: float  # the number it shows, where its mark is
    start: float  # where its left edge would be, in pt


def _labels(plot: Plot, point: Point, texts: PointTexts, y: float) -> None:
    """The row's labels on their line (``y`` px, their top), in order: the low end flush left of its
    dot or cap, the summary under its tick, the high end flush right, each moved as little as keeps
    them apart and within the plot; where all do not fit, the summary alone."""
    numbers = labelled(point)
    low = high = summary = None
    if numbers.ends is not None:
        first, last = (float(end) for end in numbers.ends)
        low = _Label(texts.low, first, plot.x_pt(first) + HANG_PT - d.label_width(texts.low)) if texts.low else None
        high = _Label(texts.high, last, plot.x_pt(last) - HANG_PT) if texts.high else None
    if numbers.value is not None and texts.value:
        value = float(numbers.value)
        summary = _Label(texts.value, value, plot.x_pt(value) - d.label_width(texts.value) / 2)
    left, _, right, _ = plot.bounds_pt()
    for line in ([label for label in (low, summary, high) if label], [summary] if summary else []):
        starts = spread([(label.start, d.label_width(label.text)) for label in line], left, right, LABEL_GAP_PT)
        if starts is not None:
            for label, start in zip(line, starts, strict=True):
                d.value_text(plot, label.text, (label.x, y), (start - plot.x_pt(label.x), 0), ha="left", va="top")
            return


def spread(wanted: Sequence[tuple[float, float]], left: float, right: float, gap: float) -> list[float] | None:
    """The starts of labels on one line, in order, from their (wanted start, width): each as near its
    wanted start as keeps them ``gap`` apart and within [left, right]; None when they do not fit."""
    starts: list[float] = []
    floor = left
    for start, width in wanted:
        starts.append(max(start, floor))
        floor = starts[-1] + width + gap
    ceiling = right
    for index in reversed(range(len(starts))):
        starts[index] = min(starts[index], ceiling - wanted[index][1])
        ceiling = starts[index] - gap
    return starts if not starts or starts[0] >= left else None


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
    labelled=labelled,
    filled_observations=True,
)
