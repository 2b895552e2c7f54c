"""Draw a ChartPlan to SVG bytes with matplotlib's object API.

No pyplot and no global state: one ``Figure`` per chart, every setting inside
``rc_context``, the Agg canvas for text measurement. The SVG is byte-identical
across runs, processes and machines: fixed hash salt, no date, glyphs as
paths from the DejaVu Sans bundled with matplotlib.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from typing import Any

import matplotlib
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from .. import style
from ..model import ChartPlan, PanelPlan
from . import bar, common, interval, line, rangeplot, status

RC: dict[Any, Any] = {
    "font.family": [style.FONT_FAMILY],
    "font.size": style.SIZE_TICK,
    "text.parse_math": False,
    "axes.unicode_minus": True,
    "svg.fonttype": "path",
    "svg.hashsalt": "evidencepress",
    "svg.id": None,
    "figure.dpi": 72,
    "savefig.dpi": 72,
    "savefig.facecolor": "white",
    "path.simplify": False,
    "lines.solid_capstyle": "butt",
    "legend.frameon": False,
}

# A kind may return a finisher: work that needs the axes' final position (after alignment).
_KINDS: dict[str, Callable[[Figure, common.Frame, PanelPlan], Callable[[], None] | None]] = {
    "bar": bar.draw,
    "line": line.draw,
    "range": rangeplot.draw,
    "interval": interval.draw,
    "status": status.draw,
}


def draw_chart(plan: ChartPlan) -> bytes:
    """The SVG of ``plan``."""
    with matplotlib.rc_context(RC):
        fig = figure(plan)
        out = io.BytesIO()
        fig.savefig(out, format="svg", metadata={"Date": None, "Creator": None})
    return out.getvalue()


def figure(plan: ChartPlan) -> Figure:
    """The drawn Figure of ``plan`` (call inside ``rc_context(RC)``)."""
    frame = common.Frame(plan.width, plan.height, common.label_column(plan.panels))
    fig = Figure(figsize=(plan.width / style.PX_PER_IN, plan.height / style.PX_PER_IN), facecolor="white")
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
        common.legend(fig, frame, panel)
        finish = _KINDS[panel.kind](fig, frame, panel)
        if finish is not None:
            finishers.append(finish)
    common.align_vertical(fig)
    for finish in finishers:
        finish()
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
