"""Status panels: a grid of passed / failed / not run / not reported per item.

Each state is written in its cell as well as coloured, so the chart reads the
same without colour.
"""

from __future__ import annotations

from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

from .. import layout, style
from ..model import PanelPlan, Point
from .common import Frame, add_axes, categories_on, source_headers


def draw(fig: Figure, frame: Frame, panel: PanelPlan) -> None:
    box = panel.box
    columns = panel.columns or ("",)
    left = style.PAD_X + frame.label_px
    where = layout.canvas(frame.width)
    width = min(frame.width - style.PAD_X - left, where.status_cell * len(columns))
    ax = add_axes(fig, frame, left, box.plot_top, width, box.plot_height)
    ax.set_xlim(0, len(columns))
    ax.set_ylim(box.plot_height, 0)
    ax.spines["bottom"].set_visible(False)
    ax.set_xticks([])
    categories_on(ax, "y", [s.start + s.size / 2 for s in panel.slots], ["\n".join(s.lines) for s in panel.slots])
    for slot in panel.slots:
        for index in slot.points:
            point = panel.points[index]
            column = columns.index(point.series) if panel.series else 0
            _cell(ax, point, column, slot.start + 3, slot.size - 6, len(panel.columns), where)
    for number, name in enumerate(panel.columns):
        x = left + (number + 0.5) * width / len(columns)
        fig.text(
            frame.x(x),
            frame.y(box.plot_top - 4),
            name,
            ha="center",
            va="bottom",
            fontsize=style.SIZE_TICK,
            fontweight="bold",
            color=style.INK,
        )
    source_headers(fig, frame, panel)


def _cell(ax: Axes, point: Point, column: int, top: float, height: float, columns: int, where: layout.Canvas) -> None:
    known = point.state in style.STATES
    fill = style.STATE_FILL[point.state] if known else style.OTHER_STATE_FILL
    edge = style.STATE_EDGE[point.state] if known else style.OTHER_STATE_EDGE
    dashed = point.state == "not reported"
    ax.add_patch(
        Rectangle(
            (column + 0.04, top),
            0.92,
            height,
            facecolor=fill,
            edgecolor=edge,
            linewidth=1.2,
            linestyle=(0, (3, 2)) if dashed else "solid",
        )
    )
    text = style.STATE_MARK[point.state] if known else "\n".join(layout.status_lines(point.state, columns, where))
    ax.text(
        column + 0.5,
        top + height / 2,
        text,
        ha="center",
        va="center",
        fontsize=style.SIZE_VALUE,
        color=style.NOT_REPORTED if dashed else style.INK,
        fontstyle="italic" if dashed else "normal",
        fontweight="bold" if point.state in ("passed", "failed") else "normal",
    )
