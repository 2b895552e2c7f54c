"""Where everything goes, in pixels, decided before anything is drawn.

The figure's width is fixed and its height follows from line counts (wrapped
titles, labels, legend rows, notes), so the plan knows the SVG's intrinsic
size without importing matplotlib, and drawing never needs ``tight_layout``.
"""

from __future__ import annotations

from dataclasses import dataclass

from . import style
from .model import LegendItem, PanelBox, Slot

LABEL_COLUMN_MAX = 250  # px: widest category-label column of a horizontal panel
VALUE_AXIS_RESERVE = 64  # px: tick labels left of a vertical panel
MAX_VERTICAL_SLOTS = 6
MAX_VERTICAL_BARS = 12
COLUMN_HEADER = 22
VERTICAL_PLOT = 190  # px: plot height of a vertical bar panel
LINE_PLOT = 240  # px: plot height of a line panel
STATUS_CELL_PX = 190  # widest status cell


@dataclass(frozen=True)
class Group:
    """A category before layout: its label, source block and points."""

    label: str
    source: str
    block: int
    points: tuple[int, ...]


def vertical_slot_px(slots: int) -> float:
    """Width available to one category label under a vertical panel."""
    return (style.CONTENT_PX - VALUE_AXIS_RESERVE) / max(slots, 1) - 10


def wrap_label(label: str, horizontal: bool, slots: int) -> tuple[str, ...]:
    width = LABEL_COLUMN_MAX if horizontal else vertical_slot_px(slots)
    return style.wrap(label, width, style.SIZE_TICK)


def bar_is_horizontal(groups: list[Group], separate: bool) -> bool:
    """Vertical bars only for a few short categories; otherwise labels read better beside bars."""
    bars = sum(len(g.points) for g in groups)
    if separate or len(groups) > MAX_VERTICAL_SLOTS or bars > MAX_VERTICAL_BARS:
        return True
    return any(len(wrap_label(g.label, False, len(groups))) > 3 for g in groups)


def status_lines(state: str, columns: int) -> tuple[str, ...]:
    """The lines of a status cell's text (raw strings wrap to the cell)."""
    cell = min(STATUS_CELL_PX, (style.CONTENT_PX - LABEL_COLUMN_MAX - 12) / max(columns, 1))
    return style.wrap(state, cell - 16, style.SIZE_VALUE)


def place_slots(
    groups: list[Group], horizontal: bool, stacked: bool, separate: bool, cell_lines: list[int] | None = None
) -> tuple[tuple[Slot, ...], int]:
    """Slots with their wrapped labels and (horizontal) px extent; and the plot height.

    ``stacked``: the points of a slot sit one under the other (bars of series);
    otherwise side by side (status columns, whose text takes ``cell_lines``).
    """
    slots: list[Slot] = []
    cursor = 0
    for index, group in enumerate(groups):
        lines = wrap_label(group.label, horizontal, len(groups))
        if separate and (index == 0 or groups[index - 1].block != group.block):
            cursor += style.SOURCE_HEADER
        text_lines = max(len(lines), cell_lines[index] if cell_lines else 0)
        size = _slot_size(text_lines, len(group.points) if stacked else 1) if horizontal else 0
        slots.append(Slot(group.label, lines, group.source, group.block, group.points, cursor, size))
        cursor += size
    return tuple(slots), (cursor if horizontal else VERTICAL_PLOT)


def _slot_size(lines: int, stacked_points: int) -> int:
    return max(style.MIN_SLOT, lines * style.TICK_LINE + style.SLOT_PAD, stacked_points * style.BAR_PX + style.SLOT_PAD)


def legend_rows(items: tuple[LegendItem, ...]) -> tuple[tuple[int, ...], ...]:
    """Pack legend entries into rows that fit the figure width (conservative estimate)."""
    rows: list[list[int]] = []
    used = float(style.CONTENT_PX)
    for index, item in enumerate(items):
        width = 30 + style.text_px(item.label, style.SIZE_LEGEND) + 20
        if used + width > style.CONTENT_PX:
            rows.append([])
            used = 0.0
        rows[-1].append(index)
        used += width
    return tuple(tuple(row) for row in rows)


def below_plot(kind: str, horizontal: bool, slots: tuple[Slot, ...]) -> int:
    """Height of the band under the plot: tick labels and axis label."""
    if kind == "status":
        return 6
    if horizontal:
        return style.AXIS_BAND
    lines = max((len(s.lines) for s in slots), default=1)
    band = lines * style.TICK_LINE + 12
    return band + (style.UNIT_BAND if kind == "line" else 0)


def above_plot(kind: str, horizontal: bool, columns: int) -> int:
    """Height of the band over the plot: the unit of a vertical value axis, status column headers."""
    if kind == "status":
        return COLUMN_HEADER if columns else 0
    return 0 if horizontal else style.UNIT_BAND


def panel_box(
    top: int, title: str, items: tuple[LegendItem, ...], plot_height: int, above: int, below: int
) -> PanelBox:
    title_lines = style.wrap(title, style.CONTENT_PX, style.SIZE_PANEL_TITLE, bold=True) if title else ()
    rows = legend_rows(items)
    head = len(title_lines) * style.PANEL_TITLE_LINE + len(rows) * style.LEGEND_ROW + (6 if title_lines or rows else 0)
    plot_top = top + head + above
    height = head + above + plot_height + below
    return PanelBox(top, height, title_lines, rows, plot_top, plot_height)


def title_lines(title: str) -> tuple[str, ...]:
    return style.wrap(title, style.CONTENT_PX, style.SIZE_TITLE, bold=True)


def note_lines(notes: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(
        line
        for note in notes
        for line in style.wrap(note, style.CONTENT_PX, style.SIZE_NOTE, bold=note == style.SEPARATE_SOURCES)
    )


def panels_top(lines: tuple[str, ...]) -> int:
    return style.PAD_TOP + len(lines) * style.TITLE_LINE + 10


def notes_top(boxes: list[PanelBox], first_top: int, has_notes: bool) -> int:
    end = first_top + sum(b.height for b in boxes) + style.PANEL_GAP * (len(boxes) - 1)
    return end + (14 if has_notes else 0)


def figure_height(notes_start: int, lines: tuple[str, ...]) -> int:
    return notes_start + len(lines) * style.NOTE_LINE + style.PAD_BOTTOM
