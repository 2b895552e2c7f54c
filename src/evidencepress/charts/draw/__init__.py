"""Draw a ChartPlan to SVG bytes with matplotlib's object API.

No pyplot and no global state: one ``Figure`` per chart, drawn on as a ``Sheet``
(``surface.py``: plots without matplotlib's ``Axes``), every setting inside
``rc_context``. Text is real SVG text,
laid out with the DejaVu Sans bundled with matplotlib (the font the site
ships); ``svg.finish`` turns colours into CSS custom properties and makes ids
unique per chart. The SVG is byte-identical across runs, processes and
machines: fixed hash salt, no date.
"""

from __future__ import annotations

import io
from typing import Any

import matplotlib
from cycler import cycler

from .. import style
from ..kinds import kind_of
from ..model import ChartPlan, PanelPlan
from ..svg import finish
from . import common, textsize
from .guides import draw_guides
from .legends import legend
from .surface import Sheet

textsize.install()  # every SVG renderer of this process shares one cache of text sizes and font heights

RC: dict[Any, Any] = {
    "font.family": [style.FONT_FAMILY],
    "font.size": style.SIZE_TICK,
    "text.parse_math": False,
    "axes.unicode_minus": True,
    "svg.fonttype": "none",
    "svg.hashsalt": "evidencepress",
    "svg.id": None,
    "figure.dpi": 72,
    "savefig.dpi": 72,
    "savefig.facecolor": style.BG,
    "path.simplify": False,
    "lines.solid_capstyle": "butt",
    "legend.frameon": False,
    # Every colour explicit: matplotlib leaves black text unstyled, which no theme could restyle.
    "text.color": style.INK,
    "axes.labelcolor": style.INK,
    "axes.edgecolor": style.MUTED,
    "xtick.color": style.INK,
    "ytick.color": style.INK,
    "legend.labelcolor": style.INK,
    "axes.prop_cycle": cycler(color=[style.INK]),  # e.g. the fill of error bar caps
}


def draw_chart(plan: ChartPlan) -> bytes:
    """The SVG of ``plan``."""
    with matplotlib.rc_context(RC):
        fig = draw_sheet(plan).figure
        out = io.StringIO()  # text: matplotlib writes it as it is, not through an encoder per write
        fig.savefig(out, format="svg", metadata={"Date": None, "Creator": None})
    return finish(out.getvalue().encode("utf-8"), plan)


def draw_sheet(plan: ChartPlan) -> Sheet:
    """``plan`` drawn: its figure and its panels' plots (call inside ``rc_context(RC)``)."""
    sheet = Sheet(plan.width, plan.height, common.label_column(plan.panels))
    for number, text in enumerate(plan.title_lines):
        sheet.text(style.PAD_X, style.PAD_TOP + number * style.TITLE_LINE, text, va="top",
                   fontsize=style.SIZE_TITLE, fontweight="bold", color=style.INK)
    finishers = []
    for panel in plan.panels:
        _panel_title(sheet, panel)
        legend(sheet, panel)
        later = kind_of(panel.kind).draw(sheet, panel)
        if later is not None:
            finishers.append(later)
    common.align_vertical(sheet)
    for later in finishers:
        later()
    for plot in sheet.plots:
        draw_guides(plot)
    for number, text in enumerate(plan.note_lines):
        emphasis = "bold" if text == style.SEPARATE_SOURCES else "normal"
        sheet.text(style.PAD_X, plan.notes_top + number * style.NOTE_LINE, text, va="top", fontsize=style.SIZE_NOTE,
                   color=style.INK if emphasis == "bold" else style.MUTED, fontweight=emphasis)
    return sheet


def _panel_title(sheet: Sheet, panel: PanelPlan) -> None:
    for number, text in enumerate(panel.box.title_lines):
        sheet.text(style.PAD_X, panel.box.top + number * style.PANEL_TITLE_LINE, text, va="top",
                   fontsize=style.SIZE_PANEL_TITLE, fontweight="bold", color=style.INK)
