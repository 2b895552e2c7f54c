"""Status panels: what each item's state is, in the words the chart spec gives it.

Rows are the items, columns the series (or the grid's ``columns``). Each cell
is a compact badge sized to its text: a mark for the tone (✓ positive,
✗ negative, – neutral, dashed outline for missing) and the state's label, so
the chart reads the same without colour.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .. import layout, style
from .. import mpl as d
from ..model import LegendItem, PanelPlan, Point, Slot
from . import Kind, LegendInput

if TYPE_CHECKING:
    from ..draw.surface import Plot, Sheet

CELL_PAD = layout.STATUS_PAD
COLUMN_GAP = layout.STATUS_GAP
MIN_COLUMN = layout.STATUS_MIN


def legend(given: LegendInput) -> tuple[LegendItem, ...]:
    return ()  # each cell says what it is; column headers name the series


def badge_text(point: Point) -> str:
    return style.badge_text(point.state, point.tone)


def column_widths(panel: PanelPlan, where: layout.Canvas) -> list[float]:
    """Each column as wide as its widest badge, within its share of the width beside the labels."""
    columns = panel.columns or ("",)
    widths = []
    for number in range(len(columns)):
        badges = [p for p in panel.points if _column(panel, p) == number]
        widest = max((style.text_px(badge_text(p), style.SIZE_VALUE, bold=_bold(p)) for p in badges), default=0.0)
        widths.append(max(MIN_COLUMN, widest + 2 * CELL_PAD))
    return [min(w, max(_share(panel, where), MIN_COLUMN)) for w in widths]


def header_lines(panel: PanelPlan, where: layout.Canvas) -> list[tuple[str, ...]]:
    """Column headers wrapped to their share of the width (a header may be wider than its badges)."""
    share = _share(panel, where)
    return [style.wrap(name, share, style.SIZE_TICK, bold=True) for name in panel.columns]


def above(plan: PanelPlan, where: layout.Canvas) -> int:
    lines = max((len(h) for h in header_lines(plan, where)), default=0)
    return lines * style.TICK_LINE + 8 if lines else 0


def _share(panel: PanelPlan, where: layout.Canvas) -> float:
    return layout.status_share(len(panel.columns), where)


def _column(panel: PanelPlan, point: Point) -> int:
    return panel.columns.index(point.series) if panel.columns and point.series in panel.columns else 0


def _bold(point: Point) -> bool:
    return style.bold_tone(point.tone)


def draw(sheet: Sheet, panel: PanelPlan) -> None:
    box = panel.box
    columns = panel.columns or ("",)
    left = style.PAD_X + sheet.label_px
    where = layout.canvas(sheet.width)
    heads = header_lines(panel, where)
    widths = [max(w, max((style.text_px(line, style.SIZE_TICK, bold=True) for line in h), default=0) + 4)
              for w, h in zip(column_widths(panel, where), heads + [()] * (len(columns) - len(heads)), strict=False)]
    width = min(sum(widths) + COLUMN_GAP * (len(columns) - 1), sheet.width - style.PAD_X - left)
    plot = d.Plot(sheet, left, box.plot_top, width, box.plot_height)
    plot.set_xlim(0, width)
    plot.set_ylim(box.plot_height, 0)
    plot.guides.spines = ()
    d.categories_on(plot, "y", [s.start + s.size / 2 for s in panel.slots], ["\n".join(s.lines) for s in panel.slots])
    starts = [sum(widths[:i]) + COLUMN_GAP * i for i in range(len(columns))]
    for slot in panel.slots:
        _row_rule(plot, slot, width, sheet.label_px)
        for index in slot.points:
            point = panel.points[index]
            column = _column(panel, point)
            _cell(plot, point, starts[column], widths[column], slot.start + 4, slot.size - 8)
    for number, lines in enumerate(heads):
        sheet.text(left + starts[number] + CELL_PAD, box.plot_top - 6, "\n".join(lines), ha="left", va="bottom",
                   fontsize=style.SIZE_TICK, fontweight="bold", color=style.INK, linespacing=1.25)
    d.source_headers(sheet, panel)


def _row_rule(plot: Plot, slot: Slot, width: float, label_px: float) -> None:
    y = slot.start + slot.size
    plot.line([-label_px, width], [y, y], color=style.GRID, linewidth=0.8, zorder=0)


def _cell(plot: Plot, point: Point, left: float, width: float, top: float, height: float) -> None:
    tone = point.tone or "neutral"
    missing = tone == "missing"
    plot.add(
        d.FancyBboxPatch(
            (left + 1, top),
            width - 2,
            height,
            boxstyle="round,pad=0,rounding_size=4",
            facecolor=style.TONE_FILL[tone],
            edgecolor=style.TONE_EDGE[tone],
            linewidth=1.0,
            linestyle=(0, (3, 2)) if missing else "solid",
            transform=plot.data,
        )
    )
    plot.text(
        left + CELL_PAD,
        top + height / 2,
        "\n".join(style.wrap(badge_text(point), width - 2 * CELL_PAD, style.SIZE_VALUE, bold=_bold(point))),
        ha="left",
        va="center",
        fontsize=style.SIZE_VALUE,
        color=style.NOT_REPORTED if missing else style.INK,
        fontstyle="italic" if missing else "normal",
        fontweight="bold" if _bold(point) else "normal",
    )


KIND = Kind(
    name="status",
    keys=frozenset({"states", "columns"}),
    values="state",
    horizontal=layout.always_horizontal,
    stacked=False,
    legend=legend,
    above=above,
    below=lambda horizontal, slots: 6,
    draw=draw,
    value_axis=False,
)
