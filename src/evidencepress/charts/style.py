"""Shared look of every chart: sizes, colours, wrapping and number display.

Pure constants and text helpers; importing this module does not import
matplotlib, so the planner can lay out a chart without drawing it. All
lengths are CSS pixels (1/96 in); font sizes are points.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from ..core import numbers
from . import metrics

RENDERER_VERSION = "9"

PX_PER_IN = 96
PX_PER_PT = 96 / 72
WIDTH_PX = 720  # 7.5 in: one article column at 1:1
NARROW_WIDTH_PX = 340  # the phone variant, drawn near the width it is shown at (NARROW_SHOWN_PX)
NARROW_SHOWN_PX = 325  # its width on a 375 px phone: the page's and the figure's padding taken off (style.css)
MIN_TEXT_PX = 12.0  # the least size of any chart text as a phone shows it (font size x shown / drawn width)
PAD_X = 16
PAD_TOP = 14
PAD_BOTTOM = 12

FONT_FAMILY = "DejaVu Sans"
SIZE_TITLE = 15.0
SIZE_PANEL_TITLE = 12.5
SIZE_TICK = 11.0
SIZE_LEGEND = 11.0
SIZE_VALUE = 10.0
VALUE_LABEL_PX = SIZE_VALUE * PX_PER_PT  # a value label's box: DejaVu Sans' ascent and descent make one em
SIZE_NOTE = 11.0
SIZE_SOURCE = 10.0

# Every colour has a role; the SVG names it as a CSS custom property (``var(--ep-ink, #222222)``)
# so that the page's light and dark themes restyle a chart. Light values are drawn; each is
# unique, so the SVG post-processor can tell the roles apart. (light, dark)
COLORS: dict[str, tuple[str, str]] = {
    "bg": ("#FFFFFF", "#181C21"),
    "ink": ("#222222", "#E3E7EC"),
    "muted": ("#666666", "#A3ADB9"),
    "grid": ("#DDDDDD", "#343B44"),
    "na": ("#767676", "#8F99A5"),
    "ref": ("#444444", "#C4CBD3"),
    # Okabe & Ito (2008) hues, darkened where they fell below 3:1 on white (WCAG 1.4.11, graphics):
    # orange, sky blue and yellow gave way to a darker orange, ochre and indigo, vermillion to wine,
    # so that every pair stays apart under deutan, protan and tritan vision. Lighter on dark.
    "s1": ("#0072B2", "#4FA6E3"),
    "s2": ("#B86E00", "#E8A820"),
    "s3": ("#009E73", "#2FBF93"),
    "s4": ("#882255", "#D0588F"),
    "s5": ("#CC79A7", "#E3A6C8"),
    "s6": ("#8C6D31", "#C9A35A"),
    "s7": ("#000000", "#F2F2F2"),
    "s8": ("#393B79", "#9966FF"),
    "positive": ("#00875F", "#45C79F"),
    "positive-fill": ("#DDF2EA", "#17372D"),
    "negative": ("#C0530A", "#F39A62"),
    "negative-fill": ("#FBE4D6", "#43271A"),
    "neutral": ("#8A8A8A", "#97A1AC"),
    "neutral-fill": ("#EFEFEF", "#272D35"),
}
BG, INK, MUTED, GRID, NOT_REPORTED, REFERENCE = (COLORS[k][0] for k in ("bg", "ink", "muted", "grid", "na", "ref"))
PALETTE = tuple(COLORS[f"s{i}"][0] for i in range(1, 9))
REFERENCE_COLORS = (REFERENCE,)
REFERENCE_DASHES = ((0, (5, 3)), (0, (1.5, 2)), (0, (7, 2, 1.5, 2)), (0, (3, 1.5)), (0, (9, 3)), (0, (1, 1)))

TONES = ("positive", "negative", "neutral", "missing")
TONE_FILL = {"positive": COLORS["positive-fill"][0], "negative": COLORS["negative-fill"][0],
             "neutral": COLORS["neutral-fill"][0], "missing": BG}
TONE_EDGE = {"positive": COLORS["positive"][0], "negative": COLORS["negative"][0],
             "neutral": COLORS["neutral"][0], "missing": COLORS["neutral"][0]}
def badge_text(state: str, tone: str) -> str:
    """A status cell's text: the tone's mark, then the state as the chart names it."""
    mark = TONE_MARK.get(tone, "")
    return f"{mark} {state}" if mark else state


def bold_tone(tone: str) -> bool:
    return tone in ("positive", "negative")


TONE_MARK = {"positive": "\u2713", "negative": "\u2717", "neutral": "\u2013", "missing": ""}

LEGEND_SD = "\u00b11 SD as reported"
LEGEND_RANGE = "observed range, not a CI"
LEGEND_CI = "95% CI as reported"
LEGEND_MEDIAN = "median (derived)"
LEGEND_OBSERVATION = "raw observation"
LEGEND_NOT_REPORTED = "not reported"
SEPARATE_SOURCES = "Separate sources \u2014 not a ranking"
UNLABELLED_OBSERVATIONS = "Not every observation is labelled; the table lists each one"

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


def display_number(value: float) -> str:
    """A number as printed on a chart: the one reading form of every surface (core.numbers)."""
    return numbers.number_for_reading(value)


def group_digits(literal: str) -> str:
    """``17235.9`` -> ``17,235.9``; ``-1200`` -> ``−1,200`` (core.numbers.for_reading)."""
    return numbers.for_reading(literal)


def significant_digits(literal: str) -> int:
    """Significant digits of a number's literal: ``0.00828`` -> 3, ``-0.6065200909780136`` -> 16."""
    mantissa = literal.lstrip("-+").lower().split("e")[0]
    return len(mantissa.replace(".", "").lstrip("0")) or 1


def series_color(index: int) -> str:
    return PALETTE[index % len(PALETTE)]
