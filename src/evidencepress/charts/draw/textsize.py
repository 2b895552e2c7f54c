"""One text measure for every SVG a process draws, and the sizes the drawing places text by.

matplotlib measures each text of a figure with the renderer that draws it, and
keeps what it measured for that renderer only; an SVG renderer lives for one
``savefig``, so every chart measured its tick numbers, category labels and
titles again, and looked up the font and read its height tables for every text
it laid out (together 17 % of a drawing in the bench corpus). For SVG with text
as text (``svg.fonttype: none``) both depend on the text and the font
properties alone:

- a text's extent: ``RendererSVG`` asks the same ``TextToPath`` code that
  ``measure`` uses, which reads the bundled font without hinting;
- a font's ascent, descent and line gap: ``Text._get_layout`` reads them from
  the font's OS/2 (else hhea) table, scaled by the figure's dpi / 72, which is 1
  while an SVG is drawn (``savefig.dpi`` is 72 in ``RC``). It asks a renderer
  that has ``_get_font_height_metrics`` (matplotlib's PDF and PostScript
  renderers do) instead; this module gives one to ``RendererSVG``.

``install`` makes every SVG renderer of this process share one cache of each;
the drawings keep the same bytes (a test draws every kind both ways, and the
chart manifest checks every chart of the example site). Fonts are found with
matplotlib's public ``findfont`` and ``get_font``; ``_get_font_height_metrics``
is matplotlib's own private name, so both caches are installed only on the
matplotlib versions whose layout was checked against them (``VERIFIED``, as
``Text._get_layout`` still asks for the hook): on any other, matplotlib
measures as it always does, slower, in the bytes it gives.

The drawing places text by the same numbers: ``measure`` (a width in px, for
layout) and ``line_extent`` and ``text_height`` (the box ``Text._get_layout``
gives a line or a text: what an axis title goes under, what a legend row's
baseline hangs from).
"""

from __future__ import annotations

import functools
from typing import Literal

import matplotlib
from matplotlib.backends.backend_svg import RendererSVG
from matplotlib.font_manager import FontProperties, findfont, get_font
from matplotlib.text import Text
from matplotlib.textpath import text_to_path

from .. import style

Extent = tuple[float, float, float]  # width, height, descent in points
Heights = tuple[float, float, float]  # ascent, descent, line gap in points
MathMode = bool | Literal["TeX"]
HEIGHTS_HOOK = "_get_font_height_metrics"  # what ``Text._get_layout`` asks a renderer for, when it has it
SVG_DPI = 72  # the figure's dpi while an SVG is drawn
VERIFIED = ("3.11",)  # matplotlib versions (major.minor) whose drawings are the same bytes with the shared measures

_MATPLOTLIB_MEASURE = RendererSVG.get_text_width_height_descent


@functools.lru_cache(maxsize=8192)
def text_extent(text: str, prop: FontProperties, ismath: MathMode) -> Extent:
    """What ``RendererSVG.get_text_width_height_descent`` returns: ``prop`` must not change
    afterwards (it is part of the key)."""
    width, height, descent = text_to_path.get_text_width_height_descent(text, prop, ismath)
    return width, height, descent


def _shared_measure(renderer: RendererSVG, s: str, prop: FontProperties, ismath: MathMode) -> Extent:
    return text_extent(s, prop.copy(), ismath)  # a copy: a FontProperties' hash follows its settable state


@functools.lru_cache(maxsize=256)
def font_heights(prop: FontProperties) -> Heights:
    """The ascent, descent and line gap of the font ``prop`` selects, as ``Text._get_layout``
    reads them at 72 dpi (``prop`` must not change afterwards: it is part of the key)."""
    font = get_font(findfont(prop))  # the first font of the family list: whose tables Text._get_layout reads
    os2, hhea, head = font.get_sfnt_table("OS/2"), font.get_sfnt_table("hhea"), font.get_sfnt_table("head")
    if os2 is not None:
        gap, ascent, descent = os2["sTypoLineGap"], os2["sTypoAscender"], os2["sTypoDescender"]
    elif hhea is not None:
        gap, ascent, descent = hhea["lineGap"], hhea["ascent"], hhea["descent"]
    else:
        raise ValueError(f"{font.fname!r}: no OS/2 or hhea table")  # the bundled DejaVu Sans has both
    if head is None:
        raise ValueError(f"{font.fname!r}: no head table")
    scale = 1 / head["unitsPerEm"] * prop.get_size_in_points() * SVG_DPI / 72  # matplotlib's operations in its order: the same floats
    return ascent * scale, -descent * scale, gap * scale


def _shared_heights(renderer: RendererSVG, prop: FontProperties) -> Heights:
    return font_heights(prop.copy())


@functools.lru_cache(maxsize=64)
def font(size: float, bold: bool = False) -> FontProperties:
    """The bundled font at ``size`` pt, as a chart's text of that size and weight has it (shared:
    never change it)."""
    return FontProperties(family=style.FONT_FAMILY, size=size, weight="bold" if bold else "normal")


@functools.lru_cache(maxsize=4096)
def measure(text: str, size: float, bold: bool = False) -> float:
    """Width in px of ``text`` (widest line) as drawn in the bundled font."""
    widest = max(text_extent(line, font(size, bold), False)[0] for line in text.split("\n"))
    return float(widest) * style.PX_PER_PT


def line_extent(line: str, prop: FontProperties) -> Extent:
    """(width, ascent, descent) in points of one line as ``Text`` lays it out: at least as tall
    as the font's ascent and descent."""
    ascent, descent, _ = font_heights(prop)
    width, height, below = text_extent(line, prop, False) if line else (0.0, 0.0, 0.0)
    return width, max(height - below, ascent), max(below, descent)


def text_height(text: str, prop: FontProperties) -> float:
    """The height in points of the box ``Text`` lays ``text`` out in (lines apart by the font's line gap)."""
    lines = text.split("\n")
    gap = font_heights(prop)[2] if len(lines) > 1 else 0.0
    return sum(ascent + descent + gap for _, ascent, descent in (line_extent(line, prop) for line in lines))


def applies(version: str = matplotlib.__version__) -> bool:
    """The shared measures give matplotlib's bytes with this matplotlib: a verified version whose
    text layout asks a renderer for its font heights by the name the hook has."""
    layout = getattr(Text, "_get_layout", None)  # looked up, not assumed: if it goes, so does the hook
    asked: tuple[str, ...] = getattr(getattr(layout, "__code__", None), "co_names", ())
    return ".".join(version.split(".")[:2]) in VERIFIED and HEIGHTS_HOOK in asked


def install(version: str = matplotlib.__version__) -> bool:
    """Every SVG renderer of this process measures text through ``text_extent`` and
    ``font_heights``, where that gives matplotlib's bytes (``applies``); whether it does."""
    if not applies(version):
        uninstall()
        return False
    RendererSVG.get_text_width_height_descent = _shared_measure  # type: ignore[method-assign]
    setattr(RendererSVG, HEIGHTS_HOOK, _shared_heights)
    return True


def uninstall() -> None:
    """matplotlib's own measures again (the tests compare the two)."""
    RendererSVG.get_text_width_height_descent = _MATPLOTLIB_MEASURE  # type: ignore[method-assign]
    if HEIGHTS_HOOK in vars(RendererSVG):
        delattr(RendererSVG, HEIGHTS_HOOK)
