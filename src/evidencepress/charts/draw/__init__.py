"""Draw a ChartPlan to SVG bytes with matplotlib's object API.

No pyplot and no global state: one ``Figure`` per chart, every setting inside
``rc_context``, the Agg canvas for text measurement. Text is real SVG text,
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
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from .. import style
from ..kinds import kind_of
from ..model import ChartPlan, PanelPlan
from ..svg import finish
from . import common, textsize
from .legends import legend

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
        fig = figure(plan)
        out = io.StringIO()  # text: matplotlib writes it as it is, not through an encoder per write
        fig.savefig(out, format="svg", metadata={"Date": None, "Creator": None})
    return finish(out.getvalue().encode("utf-8"), plan)


def figure(plan: ChartPlan) -> Figure:
    """The drawn Figure of ``plan`` (call inside ``rc_context(RC)``)."""
    frame = common.Frame(plan.width, plan.height, common.label_column(plan.panels))
    fig = Figure(figsize=(plan.width / style.PX_PER_IN, plan.height / style.PX_PER_IN), facecolor=style.BG)
    FigureCanvasAgg(fig)
    for number, text in enumerate(plan.title_lines):
        fig.text(
            frame.x(style.PAD_X),
            frame.y(style.PAD_TOP + number * style.TITLE_LINE),
            text,
            va="top",
            fontsize=style.SIZE_TITLE,
            fontweight="bold",
            color=style.INK,
        )
    finishers = []
    for panel in plan.panels:
        _panel_title(fig, frame, panel)
        legend(fig, frame, panel)
        later = kind_of(panel.kind).draw(fig, frame, panel)
        if later is not None:
            finishers.append(later)
    common.align_vertical(fig)
    for later in finishers:
        later()
    for number, text in enumerate(plan.note_lines):
        emphasis = "bold" if text == style.SEPARATE_SOURCES else "normal"
        fig.text(
            frame.x(style.PAD_X),
            frame.y(plan.notes_top + number * style.NOTE_LINE),
            text,
            va="top",
            fontsize=style.SIZE_NOTE,
            color=style.INK if emphasis == "bold" else style.MUTED,
            fontweight=emphasis,
        )
    return fig


def _panel_title(fig: Figure, frame: common.Frame, panel: PanelPlan) -> None:
    for number, text in enumerate(panel.box.title_lines):
        fig.text(
            frame.x(style.PAD_X),
            frame.y(panel.box.top + number * style.PANEL_TITLE_LINE),
            text,
            va="top",
            fontsize=style.SIZE_PANEL_TITLE,
            fontweight="bold",
            color=style.INK,
        )
