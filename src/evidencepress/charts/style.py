"""Shared look of every chart: sizes, colours, wrapping and number display.

Pure constants and text helpers; importing this module does not import
matplotlib, so the planner can lay out a chart without drawing it. All
lengths are CSS pixels (1/96 in); font sizes are points.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from . import metrics

RENDERER_VERSION = "3"

PX_PER_IN = 96
PX_PER_PT = 96 / 72
WIDTH_PX = 720  # 7.5 in: one article column at 1:1
NARROW_WIDTH_PX = 400  # the phone variant: shown ~343 px wide, its 11 pt text stays ~12.5 px
PAD_X = 16
PAD_TOP = 14
PAD_BOTTOM = 12

FONT_FAMILY = "DejaVu Sans"
SIZE_TITLE = 15.0
SIZE_PANEL_TITLE = 12.5
SIZE_TICK = 11.0
SIZE_LEGEND = 11.0
SIZE_VALUE = 10.0
SIZE_NOTE = 11.0
SIZE_SOURCE = 10.0

# Okabe & Ito (2008), ordered for contrast on white; yellow last.
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#000000", "#F0E442")
INK = "#222222"
MUTED = "#666666"
GRID = "#DDDDDD"
NOT_REPORTED = "#767676"

STATES = ("passed", "failed", "not run", "not reported")
STATE_FILL = {"passed": "#D4EFE6", "failed": "#F9DCCB", "not run": "#E8E8E8", "not reported": "#FFFFFF"}
STATE_EDGE = {"passed": "#009E73", "failed": "#D55E00", "not run": "#9A9A9A", "not reported": "#9A9A9A"}
STATE_MARK = {
    "passed": "\u2713 passed",
    "failed": "\u2717 failed",
    "not run": "\u2013 not run",
    "not reported": "not reported",
}
OTHER_STATE_FILL = "#E3F1FA"
OTHER_STATE_EDGE = "#56B4E9"

LEGEND_SD = "\u00b11 SD as reported"
LEGEND_RANGE = "observed range, not a CI"
LEGEND_CI = "95% CI as reported"
LEGEND_MEDIAN = "median (derived)"
LEGEND_OBSERVATION = "raw observation"
LEGEND_NOT_REPORTED = "not reported"
SEPARATE_SOURCES = "Separate sources \u2014 not a ranking"

# Vertical rhythm (px).
TITLE_LINE = 25
PANEL_TITLE_LINE = 21
LEGEND_ROW = 23
TICK_LINE = 18
NOTE_LINE = 19
PANEL_GAP = 24
AXIS_BAND = 46  # value-axis tick labels + axis label under a horizontal panel
UNIT_BAND = 28  # unit label above a vertical panel, clear of the top tick label
UNIT_GAP = 12  # px between the unit label's bottom and the plot top
AXIS_LABEL_BAND = 20  # x-axis label under a line panel
SOURCE_HEADER = 24
BAR_PX = 19
SLOT_PAD = 10
MIN_SLOT = 30

_BREAK_AFTER = re.compile(r"[^_/.\-]*[_/.\-]?")


def text_px(text: str, size_pt: float, bold: bool = False) -> float:
    """The drawn width of one line of ``text`` in px (DejaVu Sans advance widths)."""
    return metrics.text_width(text, size_pt * PX_PER_PT, bold)


def wrap(text: str, width_px: float, size_pt: float, bold: bool = False) -> tuple[str, ...]:
    """Break ``text`` into lines no wider than ``width_px``.

    Lines break at spaces; a word too wide for a line breaks after ``_ / - .``
    (``generation_`` / ``rate``), and only as a last resort between letters.
    """

    def fits(line: str) -> bool:
        return text_px(line, size_pt, bold) <= width_px

    pieces = [(part, index > 0) for word in text.split() for index, part in enumerate(_parts(word, fits))]
    lines: list[str] = []
    current = ""
    for piece, glued in pieces:
        candidate = current + ("" if glued or not current else " ") + piece
        if current and not fits(candidate):
            lines.append(current)
            current = piece
        else:
            current = candidate
    lines.append(current)
    return tuple(lines)


def _parts(word: str, fits: Callable[[str], bool]) -> list[str]:
    if fits(word):
        return [word]
    parts: list[str] = []
    for part in (p for p in _BREAK_AFTER.findall(word) if p):
        while not fits(part) and len(part) > 1:
            cut = 1
            while cut < len(part) - 1 and fits(part[: cut + 1]):
                cut += 1
            parts.append(part[:cut])
            part = part[cut:]
        parts.append(part)
    return parts


def display_number(value: float | int) -> str:
    """A number as printed on a chart: up to 6 significant digits, no exponent."""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, int) or (float(value).is_integer() and abs(value) < 1e15):
        text = f"{int(value):,}" if abs(value) >= 10_000 else str(int(value))
    else:
        text = f"{value:.6g}" if _significant(value) <= 6 else f"{value:.4g}"
        if "e" in text and abs(value) >= 1:
            text = f"{value:,.0f}"
    return text.replace("-", "\u2212")


def series_color(index: int) -> str:
    return PALETTE[index % len(PALETTE)]


def _significant(value: float) -> int:
    """Significant digits of a float as authored (its shortest repr)."""
    mantissa = repr(float(value)).lstrip("-").split("e")[0]
    return len(mantissa.replace(".", "").lstrip("0"))
