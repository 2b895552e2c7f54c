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
from ..legend import series_items
from ..model import LegendItem, PanelPlan, Point, Slot
from . import Kind, LegendInput

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from ..draw.common import Frame

CELL_PAD = 10  # px each side of a badge's text
COLUMN_GAP = 12  # px between two columns of badges
MIN_COLUMN = 72


def legend(given: LegendInput) -> tuple[LegendItem, ...]:
    return ()  # each cell says what it is; column headers name the series


def badge_text(point: Point) -> str:
    mark = style.TONE_MARK.get(point.tone, "")
    return f"{mark} {point.state}" if mark else point.state


def column_widths(panel: PanelPlan, available: float) -> list[float]:
    """Each column as wide as its widest badge (or header), within the available width."""
    columns = panel.columns or ("",)
    widths = []
    for number, name in enumerate(columns):
        texts = [
            line
            for p in panel.points
            if (columns.index(p.series) if panel.columns and p.series in columns else 0) == number
            for line in badge_text(p).split("\n")
        ]
        widest = max([d.measure(t, style.SIZE_VALUE) for t in texts] + [d.measure(name, style.SIZE_TICK, True)])
        widths.append(max(MIN_COLUMN, widest + 2 * CELL_PAD))
    share = (available - COLUMN_GAP * (len(columns) - 1)) / len(columns)
    return [min(w, max(share, MIN_COLUMN)) for w in widths]


def draw(fig: Figure, frame: Frame, panel: PanelPlan) -> None:
    box = panel.box
    columns = panel.columns or ("",)
    left = style.PAD_X + frame.label_px
    widths = column_widths(panel, frame.width - style.PAD_X - left)
    width = sum(widths) + COLUMN_GAP * (len(columns) - 1)
    ax = d.add_axes(fig, frame, left, box.plot_top, width, box.plot_height)
    ax.set_xlim(0, width)
    ax.set_ylim(box.plot_height, 0)
    ax.spines["bottom"].set_visible(False)
    ax.spines["left"].set_visible(False)
    ax.set_xticks([])
    ax.set_facecolor("none")
    d.categories_on(ax, "y", [s.start + s.size / 2 for s in panel.slots], ["\n".join(s.lines) for s in panel.slots])
    starts = [sum(widths[:i]) + COLUMN_GAP * i for i in range(len(columns))]
    for slot in panel.slots:
        _row_rule(ax, slot, width)
        for index in slot.points:
            point = panel.points[index]
            column = columns.index(point.series) if panel.columns and point.series in columns else 0
            _cell(ax, point, starts[column], widths[column], slot.start + 4, slot.size - 8)
    for number, name in enumerate(panel.columns):
        fig.text(
            frame.x(left + starts[number] + widths[number] / 2),
            frame.y(box.plot_top - 5),
            name,
            ha="center",
            va="bottom",
            fontsize=style.SIZE_TICK,
            fontweight="bold",
            color=style.INK,
        )
    d.source_headers(fig, frame, panel)


def _row_rule(ax: Axes, slot: Slot, width: float) -> None:
    y = slot.start + slot.size
    ax.plot([-4000, width], [y, y], color=style.GRID, linewidth=0.8, clip_on=False, zorder=0)


def _cell(ax: Axes, point: Point, left: float, width: float, top: float, height: float) -> None:
    tone = point.tone or "neutral"
    missing = tone == "missing"
    ax.add_patch(
        d.FancyBboxPatch(
            (left + 1, top),
            width - 2,
            height,
            boxstyle="round,pad=0,rounding_size=4",
            facecolor=style.TONE_FILL[tone],
            edgecolor=style.TONE_EDGE[tone],
            linewidth=1.0,
            linestyle=(0, (3, 2)) if missing else "solid",
        )
    )
    ax.text(
        left + CELL_PAD,
        top + height / 2,
        "\n".join(style.wrap(badge_text(point), width - 2 * CELL_PAD, style.SIZE_VALUE)),
        ha="left",
        va="center",
        fontsize=style.SIZE_VALUE,
        color=style.NOT_REPORTED if missing else style.INK,
        fontstyle="italic" if missing else "normal",
        fontweight="bold" if tone in ("positive", "negative") else "normal",
        linespacing=1.2,
    )


KIND = Kind(
    name="status",
    keys=frozenset({"states", "columns"}),
    values="state",
    horizontal=layout.always_horizontal,
    stacked=False,
    legend=legend,
    above=lambda horizontal, columns: layout.COLUMN_HEADER if columns else 0,
    below=lambda horizontal, slots: 6,
    draw=draw,
    unit=False,
)
