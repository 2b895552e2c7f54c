"""Legend entries shared by the kinds: series, whiskers from the data, reference lines."""

from __future__ import annotations

from collections.abc import Iterable

from . import style
from .model import LegendItem, Point, Reference


def series_items(series: Iterable[str], prefix: str = "") -> list[LegendItem]:
    return [LegendItem("series", prefix + name, style.series_color(i)) for i, name in enumerate(series)]


def whisker_items(points: Iterable[Point], coloured: bool) -> list[LegendItem]:
    """One entry per kind of whisker the data gives (SD, observed range, CI, interval)."""
    whiskers = dict.fromkeys((p.whisker.kind, p.whisker.legend) for p in points if p.whisker is not None)
    color = style.PALETTE[0] if coloured else style.INK
    return [LegendItem(kind, label, color) for kind, label in whiskers]


def reference_items(references: Iterable[Reference]) -> list[LegendItem]:
    return [
        LegendItem("reference", f"{r.label or 'reference'} ({style.display_number(r.value)})", style.REFERENCE, i)
        for i, r in enumerate(references)
    ]
