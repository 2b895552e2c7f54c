"""The legend rows of a panel, drawn on the figure under its title."""

from __future__ import annotations

from matplotlib.figure import Figure
from matplotlib.legend_handler import HandlerLine2D
from matplotlib.lines import Line2D
from matplotlib.patches import Patch

from .. import style
from ..kinds import Kind, kind_of
from ..model import LegendItem, PanelPlan
from .common import WHISKER_KINDS, Frame


def legend(fig: Figure, frame: Frame, panel: PanelPlan) -> None:
    """The panel's legend rows, left-aligned under its title."""
    top = panel.box.top + len(panel.box.title_lines) * style.PANEL_TITLE_LINE + 3
    for number, row in enumerate(panel.box.legend_rows):
        items = [panel.legend[i] for i in row]
        handles = [_handle(item, kind_of(panel.kind)) for item in items]
        whisker = HandlerLine2D(numpoints=2)
        handler_map = {h: whisker for h, item in zip(handles, items, strict=True) if item.kind in WHISKER_KINDS}
        fig.legend(
            handles,
            [item.label for item in items],
            loc="upper left",
            ncols=len(items),
            frameon=False,
            bbox_to_anchor=(frame.x(style.PAD_X - 2), frame.y(top + number * style.LEGEND_ROW + 1)),
            fontsize=style.SIZE_LEGEND,
            handlelength=1.8,
            handletextpad=0.5,
            columnspacing=1.4,
            borderaxespad=0,
            borderpad=0,
            numpoints=1,
            handler_map=handler_map,
        )


def _series_handle(item: LegendItem, kind: Kind) -> Patch | Line2D:
    if kind.series_swatch == "patch":
        return Patch(facecolor=item.color, edgecolor="none")
    linewidth = 2 if kind.series_swatch == "line" else 0
    return Line2D([], [], color=item.color, marker="o", markersize=6, linewidth=linewidth)


def _handle(item: LegendItem, kind: Kind) -> Patch | Line2D:
    """The legend's sample of an entry, drawn as the panel's kind draws it."""
    if item.kind == "series":
        return _series_handle(item, kind)
    if item.kind in WHISKER_KINDS:
        return Line2D([], [], color=item.color, linewidth=1.2, marker="|", markersize=8, markeredgewidth=1.2)
    if item.kind == "observation" and kind.filled_observations:
        return Line2D([], [], linestyle="none", marker="o", markersize=6, color=style.PALETTE[0])
    if item.kind == "observation":
        return Line2D(
            [], [], linestyle="none", marker="o", markersize=6, markerfacecolor="none", markeredgecolor=style.INK
        )
    if item.kind == "mark":
        return Line2D([], [], linestyle="none", marker="|", markersize=13, markeredgewidth=2.4, color=style.INK)
    if item.kind == "median":
        return Line2D([], [], linestyle="none", marker="|", markersize=13, markeredgewidth=2.2, color=style.INK)
    if item.kind == "reference":
        return Line2D([], [], color=style.REFERENCE, linewidth=1.4, linestyle=style.REFERENCE_DASHES[item.index % len(style.REFERENCE_DASHES)])
    return Line2D([], [], linestyle="none", marker="o", markersize=6, color=style.INK)
