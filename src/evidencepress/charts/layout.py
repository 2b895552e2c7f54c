"""Where everything goes, in pixels, decided before anything is drawn.

A chart is laid out for a :class:`Canvas`: a figure width and the sizes that
follow from it. Every chart has two: ``WIDE`` (one article column) and
``NARROW`` (a phone, where the SVG is shown near 1:1 so its text keeps its
size). The figure's height follows from line counts (wrapped titles, labels,
legend rows, notes), so the plan knows the SVG's intrinsic size without
importing matplotlib, and drawing never needs ``tight_layout``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from . import style
from .model import LegendItem, PanelBox, PanelPlan, Point, Reference, Slot

VALUE_AXIS_RESERVE = 64  # px: tick labels left of a vertical panel
COLUMN_HEADER = 22
VALUE_LABEL_GAP = 6  # px: least free space between the value labels of neighbouring vertical bars
CATEGORY_PAD_PX = 8 * style.PX_PER_PT + 4  # between the category-label column and a horizontal plot: 8 pt and a margin


@dataclass(frozen=True)
class Canvas:
    """The width a chart is laid out for and the sizes that depend on it (px)."""

    width: int
    label_column_max: int  # widest category-label column of a horizontal panel
    vertical_plot: int  # plot height of a vertical bar panel
    line_plot: int  # plot height of a line panel
    status_cell: int  # widest status cell
    max_vertical_slots: int  # more categories than this: horizontal bars
    max_vertical_bars: int  # more bars than this: horizontal bars
    max_vertical_lines: int  # a category label wrapping to more lines: horizontal bars

    @property
    def content(self) -> int:
        return self.width - 2 * style.PAD_X


WIDE = Canvas(
    width=style.WIDTH_PX,
    label_column_max=250,
    vertical_plot=190,
    line_plot=240,
    status_cell=190,
    max_vertical_slots=6,
    max_vertical_bars=12,
    max_vertical_lines=3,
)
# A 375 px phone shows the figure 325 px wide (style.NARROW_SHOWN_PX): drawn 340 px wide, its
# smallest text (10 pt, 13.3 px) is shown at 12.7 px, never under style.MIN_TEXT_PX.
# Vertical bars only for a few short categories; everything else lies down.
NARROW = Canvas(
    width=style.NARROW_WIDTH_PX,
    label_column_max=124,
    vertical_plot=160,
    line_plot=200,
    status_cell=150,
    max_vertical_slots=3,
    max_vertical_bars=6,
    max_vertical_lines=2,
)
CANVASES = (WIDE, NARROW)


def canvas(width: int) -> Canvas:
    """The canvas a plan of ``width`` px was laid out for."""
    return next(c for c in CANVASES if c.width == width)


@dataclass(frozen=True)
class Group:
    """A category before layout: its label, source block and points."""

    label: str
    source: str
    block: int
    points: tuple[int, ...]


def narrowest_plot(where: Canvas) -> float:
    """The least width of a horizontal panel's plot on ``where``: beside the widest category labels."""
    return where.content - where.label_column_max - CATEGORY_PAD_PX


def vertical_slot_px(slots: int, where: Canvas) -> float:
    """Width available to one category label under a vertical panel."""
    return (where.content - VALUE_AXIS_RESERVE) / max(slots, 1) - 10


def wrap_label(label: str, horizontal: bool, slots: int, where: Canvas) -> tuple[str, ...]:
    width = where.label_column_max if horizontal else vertical_slot_px(slots, where)
    return style.wrap(label, width, style.SIZE_TICK)


def bar_is_horizontal(groups: list[Group], separate: bool, where: Canvas, value_px: list[float] | None = None) -> bool:
    """Vertical bars only for a few short categories whose value labels fit over their bars;
    otherwise labels read better beside the bars."""
    bars = sum(len(g.points) for g in groups)
    if separate or len(groups) > where.max_vertical_slots or bars > where.max_vertical_bars:
        return True
    if any(len(wrap_label(g.label, False, len(groups), where)) > where.max_vertical_lines for g in groups):
        return True
    share = (where.content - VALUE_AXIS_RESERVE) / max(len(groups), 1)
    widths = value_px or []
    return any(widths[i] > share / len(g.points) - VALUE_LABEL_GAP for g in groups for i in g.points if i < len(widths))


STATUS_GAP = 12  # px between two columns of a status grid
STATUS_PAD = 10  # px each side of a status badge's text
STATUS_MIN = 72  # px: narrowest status column


def status_share(columns: int, where: Canvas) -> float:
    """The width one status column may take beside the label column."""
    columns = max(columns, 1)
    return max((where.content - where.label_column_max - 8 - STATUS_GAP * (columns - 1)) / columns, STATUS_MIN)


def grid_fits(points: Sequence[Point], columns: int, where: Canvas) -> bool:
    """Whether a status grid's columns fit beside the labels without breaking words."""
    need: dict[str, float] = {}
    for point in points:
        text = style.badge_text(point.state, point.tone)
        badge = style.text_px(text, style.SIZE_VALUE, style.bold_tone(point.tone)) + 2 * STATUS_PAD
        header = max((style.text_px(w, style.SIZE_TICK, True) for w in point.series.split()), default=0.0) + 4
        need[point.series] = max(need.get(point.series, 0.0), badge, header, STATUS_MIN)
    available = where.content - where.label_column_max - 8 - STATUS_GAP * (columns - 1)
    return sum(need.values()) <= available


def status_lines(text: str, columns: int, where: Canvas, bold: bool = False) -> tuple[str, ...]:
    """The lines of a status badge's text, wrapped to its column."""
    return style.wrap(text, status_share(columns, where) - 2 * STATUS_PAD, style.SIZE_VALUE, bold)


def place_slots(
    groups: list[Group],
    horizontal: bool,
    stacked: bool,
    separate: bool,
    where: Canvas,
    cell_lines: list[int] | None = None,
    prefix: str = "",
    least: list[int] | None = None,
) -> tuple[tuple[Slot, ...], int]:
    """Slots with their wrapped labels and (horizontal) px extent; and the plot height.

    ``stacked``: the points of a slot sit one under the other (bars of series);
    otherwise side by side (status columns, whose text takes ``cell_lines``).
    ``prefix`` names the category field where the labels alone say nothing (``draft tokens: 3``).
    """
    slots: list[Slot] = []
    cursor = 0
    for index, group in enumerate(groups):
        lines = wrap_label(prefix + group.label, horizontal, len(groups), where)
        if separate and (index == 0 or groups[index - 1].block != group.block):
            cursor += style.SOURCE_HEADER
        text_lines = max(len(lines), cell_lines[index] if cell_lines else 0)
        size = _slot_size(text_lines, len(group.points) if stacked else 1) if horizontal else 0
        size = max(size, least[index] if least and horizontal else 0)
        slots.append(Slot(group.label, lines, group.source, group.block, group.points, cursor, size))
        cursor += size
    return tuple(slots), (cursor if horizontal else where.vertical_plot)


def _slot_size(lines: int, stacked_points: int) -> int:
    return max(style.MIN_SLOT, lines * style.TICK_LINE + style.SLOT_PAD, stacked_points * style.BAR_PX + style.SLOT_PAD)


def legend_rows(items: tuple[LegendItem, ...], where: Canvas) -> tuple[tuple[int, ...], ...]:
    """Pack legend entries into rows that fit the figure width (conservative estimate)."""
    rows: list[list[int]] = []
    used = float(where.content)
    for index, item in enumerate(items):
        width = 30 + style.text_px(item.label, style.SIZE_LEGEND) + 20
        if used + width > where.content:
            rows.append([])
            used = 0.0
        rows[-1].append(index)
        used += width
    return tuple(tuple(row) for row in rows)


def axis_below(horizontal: bool, slots: tuple[Slot, ...], axis_title: bool = False) -> int:
    """Height of the band under a plot with a value or category axis: tick labels, axis title."""
    if horizontal:
        return style.AXIS_BAND
    lines = max((len(s.lines) for s in slots), default=1)
    return lines * style.TICK_LINE + 12 + (style.AXIS_LABEL_BAND if axis_title else 0)


def unit_above(plan: PanelPlan, where: Canvas) -> int:
    """Height of the band over a plot: the unit of a vertical value axis."""
    return 0 if plan.horizontal else style.UNIT_BAND


def always_horizontal(groups: list[Group], separate: bool, where: Canvas, value_px: list[float]) -> bool:
    return True


def never_horizontal(groups: list[Group], separate: bool, where: Canvas, value_px: list[float]) -> bool:
    return False


def panel_box(
    top: int, title: str, items: tuple[LegendItem, ...], plot_height: int, above: int, below: int, where: Canvas
) -> PanelBox:
    title_lines = style.wrap(title, where.content, style.SIZE_PANEL_TITLE, bold=True) if title else ()
    rows = legend_rows(items, where)
    head = len(title_lines) * style.PANEL_TITLE_LINE + len(rows) * style.LEGEND_ROW + (6 if title_lines or rows else 0)
    plot_top = top + head + above
    height = head + above + plot_height + below
    return PanelBox(top, height, title_lines, rows, plot_top, plot_height)


def title_lines(title: str, where: Canvas) -> tuple[str, ...]:
    return style.wrap(title, where.content, style.SIZE_TITLE, bold=True)


def note_lines(notes: tuple[str, ...], where: Canvas) -> tuple[str, ...]:
    return tuple(
        line
        for note in notes
        for line in style.wrap(note, where.content, style.SIZE_NOTE, bold=note == style.SEPARATE_SOURCES)
    )


def panels_top(lines: tuple[str, ...]) -> int:
    return style.PAD_TOP + len(lines) * style.TITLE_LINE + 10


def notes_top(boxes: list[PanelBox], first_top: int, has_notes: bool) -> int:
    end = first_top + sum(b.height for b in boxes) + style.PANEL_GAP * (len(boxes) - 1)
    return end + (14 if has_notes else 0)


def figure_height(notes_start: int, lines: tuple[str, ...]) -> int:
    return notes_start + len(lines) * style.NOTE_LINE + style.PAD_BOTTOM


def padded_limits(low: float, high: float, axes_px: float, before_px: float, after_px: float) -> tuple[float, float]:
    """Data limits that leave ``before_px`` / ``after_px`` free around [low, high]."""
    if high == low:  # every value equal (all zero, say): give the axis a span of its own
        high = low + (abs(low) or 1.0)
    span = high - low
    usable = max(axes_px - before_px - after_px, axes_px * 0.3)
    scale = span / usable
    return low - before_px * scale, high + after_px * scale


def extent(
    points: Sequence[Point], include_zero: bool, references: Sequence[Reference] = ()
) -> tuple[float, float]:
    """The smallest and largest drawn value (whiskers, observations and reference lines included)."""
    values: list[float] = [0.0] if include_zero else []
    values += [float(r.value) for r in references]
    for point in points:
        if point.value is not None:
            values.append(float(point.value))
            if point.whisker is not None:
                values += point.whisker.bounds(point.value)
        values += [float(v) for v in point.observations]
        if point.whisker is not None and point.whisker.kind != "sd":
            values += point.whisker.bounds(0)
    return (min(values), max(values)) if values else (0.0, 1.0)
