"""Line panels: one line per series (and per source), points joined in x order."""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from typing import TYPE_CHECKING

from .. import layout, style
from .. import mpl as d
from ..legend import reference_items, series_items, whisker_items
from ..model import LegendItem, PanelPlan, Point
from . import Kind, LegendInput

if TYPE_CHECKING:
    from ..draw.surface import Plot, Sheet

LOG_RATIO = 8  # numeric x spanning this factor or more is drawn on a log-2 axis
MAX_LABELLED = 10  # a single line with at most this many points has its values printed


def draw(sheet: Sheet, panel: PanelPlan) -> Callable[[], None] | None:
    """Draw the panel; returns the value labels to place once the plot has its final position."""
    box = panel.box
    plot = d.Plot(sheet, style.PAD_X + 60, box.plot_top, sheet.width - 2 * style.PAD_X - 60, box.plot_height)
    xs = {id(p): _x(panel, p) for p in panel.points}
    labelled = len(_lines(panel)) == 1 and len(panel.points) <= MAX_LABELLED
    low, high = d.extent(panel.points, include_zero=all(v >= 0 for v in d.extent(panel.points, False)),
                         references=panel.references)
    plot.set_ylim(*d.padded_limits(low, high, box.plot_height, 24 if _has_null(panel) else 4, 24 if labelled else 10))
    d.value_axis(plot, "y", panel)
    d.fit_left(plot)
    _x_axis(plot, panel, xs, _use_log(panel), labelled)
    for line in _lines(panel):
        ordered = sorted(line, key=lambda p: xs[id(p)])
        values = [math.nan if p.value is None else p.value for p in ordered]
        plot.line([xs[id(p)] for p in ordered], values, color=d.series_color(panel, ordered[0]), linewidth=2,
                  marker="o", markersize=5.5, zorder=3)
        for point in ordered:
            span = d.whisker_span(point)
            if span:
                d.error_bar(plot, xs[id(point)], span, horizontal=False, zorder=4)
    d.reference_lines(plot, panel, horizontal=False)
    for point in panel.points:
        if point.value is None:
            d.not_reported(plot, xs[id(point)], plot.ylim[0], horizontal=False)
    d.unit_label(sheet, panel)
    return (lambda: _value_labels(plot, panel, xs)) if labelled else None


Box = tuple[float, float, float, float]  # x0, y0, x1, y1 in display units (pt at 72 dpi)
# (dx, dy) offset in pt, horizontal and vertical alignment; above the point first.
_PLACES: tuple[tuple[float, float, str, str], ...] = (
    (0, 6, "center", "bottom"),
    (-4, 5, "right", "bottom"),
    (4, 5, "left", "bottom"),
    (0, -7, "center", "top"),
    (-4, -6, "right", "top"),
    (4, -6, "left", "top"),
    (-8, 0, "right", "center"),
    (8, 0, "left", "center"),
)


def _value_labels(plot: Plot, panel: PanelPlan, xs: dict[int, float]) -> None:
    """Print each value next to its point, where it crosses no line, marker or other label.

    Candidate places are tried in a fixed order (above first), so the result is deterministic.
    """
    segments: list[tuple[tuple[float, float], tuple[float, float]]] = []
    for line in _lines(panel):
        ordered = sorted(line, key=lambda p: xs[id(p)])
        for a, b in itertools.pairwise(ordered):
            if a.value is not None and b.value is not None:  # a null breaks the line
                (ax0, ay0), (ax1, ay1) = plot.to_pt(xs[id(a)], a.value), plot.to_pt(xs[id(b)], b.value)
                segments.append(((ax0, ay0), (ax1, ay1)))
    markers: list[Box] = []
    for point in panel.points:
        if point.value is not None:
            cx, cy = plot.to_pt(xs[id(point)], point.value)
            markers.append((cx - 3.5, cy - 3.5, cx + 3.5, cy + 3.5))
    x0, y0, x1, y1 = plot.bounds_pt()
    bounds: Box = (x0 + 3, y0, x1 + 2, y1 + 22)  # clear of the y axis
    placed: list[Box] = []
    for point, text in zip(panel.points, d.value_labels(panel), strict=False):
        if point.value is None or not text:
            continue
        width = d.measure(text, style.SIZE_VALUE) / style.PX_PER_PT
        height = style.SIZE_VALUE * 1.15
        low, high = point.whisker.bounds(point.value) if point.whisker is not None else (point.value, point.value)
        x = xs[id(point)]
        cx = plot.to_pt(x, point.value)[0]
        y_of = {"bottom": plot.to_pt(x, high)[1], "top": plot.to_pt(x, low)[1], "center": plot.to_pt(x, point.value)[1]}
        best: tuple[float, int, Box] | None = None
        for order, (dx, dy, ha, va) in enumerate(_PLACES):
            x0 = cx + dx - {"center": width / 2, "right": width, "left": 0.0}[ha]
            y0 = y_of[va] + dy - {"bottom": 0.0, "top": height, "center": height / 2}[va]
            box: Box = (x0, y0, x0 + width, y0 + height)
            cost = _overlap(box, segments, markers, placed, bounds)
            if best is None or (cost, order) < (best[0], best[1]):
                best = (cost, order, box)
            if cost == 0:
                break
        assert best is not None
        dx, dy, ha, va = _PLACES[best[1]]
        placed.append(best[2])
        anchor = {"bottom": high, "top": low, "center": point.value}[va]
        d.value_text(plot, text, (xs[id(point)], anchor), (dx, dy), ha=ha, va=va)


def _overlap(
    box: Box,
    segments: list[tuple[tuple[float, float], tuple[float, float]]],
    markers: list[Box],
    placed: list[Box],
    bounds: Box,
) -> float:
    """How badly a label box collides: lines crossed, markers and labels covered, or leaving the plot.

    Lines are tested against the ink of the digits (the box less its descent and side bearings):
    a line that only grazes the box passes behind the label's white halo.
    """
    x0, y0, x1, y1 = box
    cost = 0.0
    ink: Box = (x0 + 1, y0 + 1.5, x1 - 1, y1 - 1.5)
    for a, b in segments:
        if _crosses(ink, a, b):
            cost += 1
    cost += sum(2 for m in markers + placed if m[0] < x1 and x0 < m[2] and m[1] < y1 and y0 < m[3])
    bx0, by0, bx1, by1 = bounds
    if x0 < bx0 or x1 > bx1 or y0 < by0 or y1 > by1:
        cost += 3
    return cost


def _crosses(box: Box, a: tuple[float, float], b: tuple[float, float]) -> bool:
    """Whether the segment a-b passes through the box (Liang-Barsky clipping)."""
    x0, y0, x1, y1 = box
    dx, dy = b[0] - a[0], b[1] - a[1]
    enter, leave = 0.0, 1.0
    for p, q in ((-dx, a[0] - x0), (dx, x1 - a[0]), (-dy, a[1] - y0), (dy, y1 - a[1])):
        if p == 0:
            if q < 0:
                return False
        elif p < 0:
            enter = max(enter, q / p)
        else:
            leave = min(leave, q / p)
    return enter <= leave


def _x(panel: PanelPlan, point: Point) -> float:
    if panel.x_numeric and point.x is not None:
        return float(point.x)
    return float(next(i for i, slot in enumerate(panel.slots) if slot.label == point.label))


def _use_log(panel: PanelPlan) -> bool:
    xs = [float(p.x) for p in panel.points if p.x is not None]
    return panel.x_numeric and bool(xs) and min(xs) > 0 and max(xs) / min(xs) >= LOG_RATIO


def _lines(panel: PanelPlan) -> list[list[Point]]:
    """Points grouped by (series, source) in order of appearance: sources are never joined."""
    lines: dict[tuple[str, str], list[Point]] = {}
    for point in panel.points:
        lines.setdefault((point.series, point.source), []).append(point)
    return list(lines.values())


def _has_null(panel: PanelPlan) -> bool:
    return any(p.value is None for p in panel.points)


def _label_px(panel: PanelPlan, xs: dict[int, float], x: float) -> float:
    """The widest value label printed at ``x``."""
    texts = [style.display_number(p.value) for p in panel.points if p.value is not None and xs[id(p)] == x]
    return max((d.measure(t, style.SIZE_VALUE) for t in texts), default=0.0)


def _x_axis(plot: Plot, panel: PanelPlan, xs: dict[int, float], log: bool, labelled: bool) -> None:
    plot.guides.x_title = panel.x_label + (" (log scale)" if log else "")
    if not panel.x_numeric:
        plot.set_xlim(-0.5, len(panel.slots) - 0.5)
        d.categories_on(plot, "x", list(range(len(panel.slots))), ["\n".join(s.lines) for s in panel.slots])
        return
    values = sorted(set(xs.values()))
    # 5% of the axis each side; more where the last tick label would overhang the figure, or
    # where a value label centred over the first or last point would cross the axis.
    axes_px = plot.width
    last = d.measure(style.display_number(_authored(values[-1], panel)), style.SIZE_TICK)
    before, after = 0.05 * axes_px, max(0.05 * axes_px, last / 2 - style.PAD_X + 6)
    if labelled:
        before = max(before, _label_px(panel, xs, values[0]) / 2 + 12)
        after = max(after, _label_px(panel, xs, values[-1]) / 2 + 4)
    if log:
        low, high = d.padded_limits(math.log2(values[0]), math.log2(values[-1]), axes_px, before, after)
        plot.set_xlim(2**low, 2**high, log=True)
    else:
        plot.set_xlim(*d.padded_limits(values[0], values[-1], axes_px, before, after))
    plot.guides.x_ticks = tuple((v, style.display_number(_authored(v, panel))) for v in _spaced(plot, values))


def _spaced(plot: Plot, values: list[float]) -> list[float]:
    """The x values whose tick labels do not overlap, keeping the first and the last."""
    kept: list[float] = []
    right_edge = -math.inf
    for value in values:
        px = plot.x_pt(value)
        half = d.measure(style.display_number(value), style.SIZE_TICK) / 2 * (72 / 96)
        if px - half >= right_edge + 6:
            kept.append(value)
            right_edge = px + half
    return kept


def _authored(value: float, panel: PanelPlan) -> float | int:
    """The x as the export wrote it (an integer stays an integer)."""
    return next((p.x for p in panel.points if p.x is not None and float(p.x) == value), value)


def legend(given: LegendInput) -> tuple[LegendItem, ...]:
    items = series_items(given.series, given.series_prefix) + whisker_items(given.points, coloured=False)
    return tuple(items + reference_items(given.references))


KIND = Kind(
    name="line",
    keys=frozenset({"reference", "unit", "x_label"}),
    values="number",
    horizontal=layout.never_horizontal,
    stacked=True,
    legend=legend,
    above=layout.unit_above,
    below=lambda horizontal, slots: layout.axis_below(horizontal, slots, axis_title=True),
    draw=draw,
    x_axis=True,
    series_swatch="line",
)
