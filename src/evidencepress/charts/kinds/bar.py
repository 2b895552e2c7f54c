"""Bar panels: one bar per entry, grouped by series, error bars only from the data,
limits and capacities as reference lines."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .. import layout, style
from ..legend import reference_items, series_items, whisker_items
from ..model import LegendItem, PanelPlan, Point
from . import Kind, LegendInput

if TYPE_CHECKING:
    from ..draw.surface import Plot, Sheet

BAR_FILL = 0.78  # share of a vertical slot covered by its bars
LABEL_ROOM = 0.3  # most of a horizontal value axis kept free for value labels past the bars' ends
MAX_BAR_PX = 96  # widest vertical bar


def legend(given: LegendInput) -> tuple[LegendItem, ...]:
    items = series_items(given.series, given.series_prefix) + whisker_items(given.points, coloured=False)
    return tuple(items + reference_items(given.references))


def draw(sheet: Sheet, panel: PanelPlan) -> None:
    if panel.stacked:
        _stacked(sheet, panel)
    elif panel.horizontal:
        _horizontal(sheet, panel)
    else:
        _vertical(sheet, panel)


def _stacked(sheet: Sheet, panel: PanelPlan) -> None:
    """Each category one horizontal bar, its series end to end; a part's label sits inside it when it fits."""
    from ..draw import common as d

    plot, width = d.horizontal_plot(sheet, panel)
    ends = [sum(float(panel.points[i].value or 0) for i in slot.points) for slot in panel.slots]
    high = d.extent(panel.points, include_zero=True, references=panel.references)[1]
    plot.set_xlim(*d.padded_limits(0, max([high, *ends]), width, 0, 24))
    labels = d.value_labels(panel)
    px_per_unit = width / (plot.xlim[1] - plot.xlim[0])
    for slot in panel.slots:
        y = slot.start + slot.size / 2
        start = 0.0
        for index in slot.points:
            point = panel.points[index]
            if point.value is None:
                d.not_reported(plot, start, y, horizontal=True)
                continue
            half = style.BAR_PX * 0.9 / 2
            plot.rect(start, y - half, start + float(point.value), y + half, facecolor=d.series_color(panel, point),
                      edgecolor=style.BG, linewidth=1, zorder=2)
            text = labels[index]
            if text and d.measure(text, style.SIZE_VALUE) + 8 <= float(point.value) * px_per_unit:
                d.value_text(plot, text, (start + float(point.value) / 2, y), (0, 0), ha="center", va="center")
            start += float(point.value)
    plot.across(0, horizontal=True, color=style.MUTED, linewidth=0.8)
    d.reference_lines(plot, panel, horizontal=True)


def _horizontal(sheet: Sheet, panel: PanelPlan) -> None:
    from ..draw import common as d

    plot, width = d.horizontal_plot(sheet, panel)
    labels = d.value_labels(panel)
    low, high = d.extent(panel.points, include_zero=True, references=panel.references)
    # Room for the value labels past the bars' ends, but never more than LABEL_ROOM of the axis: a long
    # label (113,556,639,424 on a phone) would squeeze the bars into a third of it, on an axis stretched
    # far past the largest value; a label that does not fit past its bar sits inside its end instead.
    room = min(max((d.measure(t, style.SIZE_VALUE) for t in labels), default=0) + 10, width * LABEL_ROOM)
    plot.set_xlim(*d.padded_limits(low, high, width, room if low < 0 else 0, room if high > 0 else 0))
    left, right = plot.xlim
    px_per_unit = width / (right - left)
    for index, y in d.stacked(panel):
        point = panel.points[index]
        inside = point.value is not None and _overflows(point, labels[index], left, right, px_per_unit)
        _bar(plot, panel, point, y, labels[index], horizontal=True, inside=inside)
    plot.across(0, horizontal=True, color=style.MUTED, linewidth=0.8)
    d.reference_lines(plot, panel, horizontal=True)


def _vertical(sheet: Sheet, panel: PanelPlan) -> None:
    from ..draw import common as d

    box = panel.box
    low, high = d.extent(panel.points, include_zero=True, references=panel.references)
    left = style.PAD_X + layout.VALUE_AXIS_RESERVE
    width = sheet.width - style.PAD_X - left
    plot = d.Plot(sheet, left, box.plot_top, width, box.plot_height)
    plot.set_ylim(*d.padded_limits(low, high, box.plot_height, 18 if low < 0 else 0, 18 if high > 0 else 0))
    plot.set_xlim(-0.5, len(panel.slots) - 0.5)
    slot_px = width / max(len(panel.slots), 1)
    fill = min(BAR_FILL, MAX_BAR_PX * max(len(s.points) for s in panel.slots) / slot_px)
    labels = d.value_labels(panel)
    for position, slot in enumerate(panel.slots):
        n = len(slot.points)
        thickness = fill / n
        for k, index in enumerate(slot.points):
            point = panel.points[index]
            x = position - fill / 2 + (k + 0.5) * thickness
            text = labels[index]
            # A label may overhang its bar into the gap, never into its neighbour's share.
            fits = d.measure(text, style.SIZE_VALUE) <= slot_px / n - layout.VALUE_LABEL_GAP
            _bar(plot, panel, point, x, text if fits else "", horizontal=False, thickness=thickness)
    d.categories_on(plot, "x", list(range(len(panel.slots))), ["\n".join(s.lines) for s in panel.slots])
    d.value_axis(plot, "y", panel)
    d.fit_left(plot)
    plot.across(0, horizontal=False, color=style.MUTED, linewidth=0.8)
    d.reference_lines(plot, panel, horizontal=False)
    d.unit_label(sheet, panel)


def _overflows(point: Point, label: str, left: float, right: float, px_per_unit: float) -> bool:
    """Would the value label, past the end of its horizontal bar, leave the axis?"""
    from ..draw import common as d

    assert point.value is not None
    low, high = point.whisker.bounds(point.value) if point.whisker is not None else (point.value, point.value)
    need = (d.measure(label, style.SIZE_VALUE) + 6) / px_per_unit
    return (high + need > right) if point.value >= 0 else (low - need < left)


def _bar(
    plot: Plot, panel: PanelPlan, point: Point, at: float, label: str, horizontal: bool,
    thickness: float = style.BAR_PX * 0.8, inside: bool = False,
) -> None:
    from ..draw import common as d

    if point.value is None:
        # At zero on the value axis, in the bar's own slot.
        x, y = (0.0, at) if horizontal else (at, 0.0)
        d.not_reported(plot, x, y, horizontal)
        return
    color = d.series_color(panel, point)
    value = float(point.value)
    if horizontal:
        plot.rect(0, at - thickness / 2, value, at + thickness / 2, facecolor=color, edgecolor="none", zorder=2)
    else:
        plot.rect(at - thickness / 2, 0, at + thickness / 2, value, facecolor=color, edgecolor="none", zorder=2)
    span = d.whisker_span(point)
    if span:
        d.error_bar(plot, at, span, horizontal=horizontal)
    if label and inside:
        # Inside the bar's end when it fits there; else from the bar's start on, never over the category labels.
        negative = point.value < 0
        bar_px = abs(plot.x_pt(value) - plot.x_pt(0))
        at_end = d.measure(label, style.SIZE_VALUE) + 10 <= bar_px
        x, side = (value, -1) if at_end else (0.0, 1)
        side = -side if negative else side
        d.value_text(plot, label, (x, at), (side * 4, 0), ha="left" if side > 0 else "right", va="center")
    elif label:
        _annotate(plot, point, at, label, horizontal)


def _annotate(plot: Plot, point: Point, at: float, label: str, horizontal: bool) -> None:
    from ..draw import common as d

    assert point.value is not None
    low, high = point.whisker.bounds(point.value) if point.whisker is not None else (point.value, point.value)
    negative = point.value < 0
    end = min(point.value, low) if negative else max(point.value, high)
    sign = -1 if negative else 1
    align: dict[str, Any]
    if horizontal:
        xy, offset = (end, at), (sign * 5, 0)
        align = {"ha": "right" if negative else "left", "va": "center"}
    else:
        xy, offset = (at, end), (0, sign * 4)
        align = {"ha": "center", "va": "top" if negative else "bottom"}
    d.value_text(plot, label, xy, offset, **align)


KIND = Kind(
    name="bar",
    keys=frozenset({"reference", "unit", "stacked"}),
    values="number",
    horizontal=layout.bar_is_horizontal,
    stacked=True,
    legend=legend,
    above=layout.unit_above,
    below=layout.axis_below,
    draw=draw,
    shares_orientation=True,
    compares_by_length=True,
    series_swatch="patch",
)
