"""The legend rows of a panel, drawn on the figure under its title.

Each entry is a sample of the mark (a swatch, a line, a marker, a whisker) and its label, laid
out as matplotlib's ``Legend`` lays out one row of a frameless legend anchored at its top-left
corner: a sample box 1.8 em wide and 0.7 em tall standing on the label's baseline, 0.5 em
before the label, 1.4 em between entries. Only the samples and the labels are drawn.
"""

from __future__ import annotations

from typing import Any

from matplotlib.artist import Artist
from matplotlib.lines import Line2D
from matplotlib.patches import Rectangle
from matplotlib.text import Text
from matplotlib.transforms import IdentityTransform

from .. import style
from ..kinds import Kind, kind_of
from ..model import LegendItem, PanelPlan
from .common import WHISKER_KINDS
from .surface import Sheet
from .textsize import font, line_extent, text_extent

EM = style.SIZE_LEGEND  # points
SAMPLE_WIDTH = 1.8 * EM
SAMPLE_HEIGHT = 0.7 * EM
SAMPLE_GAP = 0.5 * EM  # between a sample and its label
ENTRY_GAP = 1.4 * EM
WHISKER_INSET = 0.3 * EM  # a whisker's ends are inset so that its caps stay in the sample box

DISPLAY = IdentityTransform()


def legend(sheet: Sheet, panel: PanelPlan) -> None:
    """The panel's legend rows, left-aligned under its title."""
    top = panel.box.top + len(panel.box.title_lines) * style.PANEL_TITLE_LINE + 3
    kind = kind_of(panel.kind)
    for number, row in enumerate(panel.box.legend_rows):
        x, row_top = sheet.px.transform((style.PAD_X - 2, top + number * style.LEGEND_ROW + 1))
        items = [panel.legend[i] for i in row]
        baseline = row_top - max(_ascent(item.label) for item in items)
        for item in items:
            sheet.add(_sample(item, kind, x, baseline))
            sheet.add(Text(x + SAMPLE_WIDTH + SAMPLE_GAP, baseline, item.label, fontsize=style.SIZE_LEGEND,
                           color=style.INK, va="baseline", ha="left", transform=DISPLAY))
            x += SAMPLE_WIDTH + SAMPLE_GAP + line_extent(item.label, font(style.SIZE_LEGEND))[0] + ENTRY_GAP


def _ascent(label: str) -> float:
    """How far an entry reaches over its baseline: its sample box, or its label (at least the
    font's ascent, and that of "lp", as matplotlib's text boxes have it)."""
    prop = font(style.SIZE_LEGEND)
    _, height, descent = text_extent("lp", prop, False)
    return max(SAMPLE_HEIGHT, height - descent, line_extent(label, prop)[1])


def _sample(item: LegendItem, kind: Kind, x: float, baseline: float) -> Artist:
    """The entry's sample of its mark, drawn as the panel's kind draws it, in its box at ``x``."""
    if item.kind == "series" and kind.series_swatch == "patch":
        return Rectangle((x, baseline), SAMPLE_WIDTH, SAMPLE_HEIGHT, facecolor=item.color, edgecolor="none",
                         transform=DISPLAY)
    middle = baseline + SAMPLE_HEIGHT / 2
    if item.kind in WHISKER_KINDS:
        xs = [x + WHISKER_INSET, x + SAMPLE_WIDTH - WHISKER_INSET]
        return Line2D(xs, [middle] * 2, transform=DISPLAY, **_look(item, kind))
    xs = [x, x + SAMPLE_WIDTH / 2, x + SAMPLE_WIDTH]  # a marker in the middle of a line through the box
    return Line2D(xs, [middle] * 3, markevery=[1], transform=DISPLAY, **_look(item, kind))


def _look(item: LegendItem, kind: Kind) -> dict[str, Any]:
    """The line and marker of an entry's sample."""
    if item.kind == "series":
        linewidth = 2 if kind.series_swatch == "line" else 0
        return {"color": item.color, "marker": "o", "markersize": 6, "linewidth": linewidth}
    if item.kind in WHISKER_KINDS:
        return {"color": item.color, "linewidth": 1.2, "marker": "|", "markersize": 8, "markeredgewidth": 1.2}
    if item.kind == "observation" and kind.filled_observations:
        return {"linestyle": "none", "marker": "o", "markersize": 6, "color": style.PALETTE[0]}
    if item.kind == "observation":
        return {"linestyle": "none", "marker": "o", "markersize": 6, "markerfacecolor": "none",
                "markeredgecolor": style.INK}
    if item.kind == "mark":
        return {"linestyle": "none", "marker": "|", "markersize": 13, "markeredgewidth": 2.4, "color": style.INK}
    if item.kind == "median":
        return {"linestyle": "none", "marker": "|", "markersize": 13, "markeredgewidth": 2.2, "color": style.INK}
    if item.kind == "reference":
        dashes = style.REFERENCE_DASHES[item.index % len(style.REFERENCE_DASHES)]
        return {"color": style.REFERENCE, "linewidth": 1.4, "linestyle": dashes}
    return {"linestyle": "none", "marker": "o", "markersize": 6, "color": style.INK}
