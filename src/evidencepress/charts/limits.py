"""Documented limits of a chart, checked where the schema cannot see (SPEC §10 "Limits").

The schema bounds what the author writes (12 panels, 60 labels, ids or
pointers per panel, 200 characters per label). These bound what a panel
selects from the export and what can be drawn faithfully: past them the build
reports an error at the panel instead of drawing for minutes.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from ..core.diagnostics import Problem
from .entry import Context
from .model import Point, Reference

MAX_ENTRIES = 60  # entries (bars, points, rows) per panel
MAX_OBSERVATIONS = 1000  # raw observations per panel (range and dot panels)
MAX_LABEL = 200  # characters of any text shown for a category, series or state
MAX_MAGNITUDE = 1e15  # beyond this a float no longer holds every integer digit an axis would show


def too_many_entries(count: int, ctx: Context) -> Problem | None:
    if count <= MAX_ENTRIES:
        return None
    message = f"the panel selects {count:,} entries; a panel shows at most {MAX_ENTRIES}"
    return ctx.problem("select", message, "chart-limit", "narrow select.where, or split the values over several panels or charts")


def too_many_observations(points: Iterable[Point], ctx: Context) -> Problem | None:
    count = sum(len(p.observations) for p in points)
    if count <= MAX_OBSERVATIONS:
        return None
    message = f"the panel holds {count:,} raw observations; a panel draws at most {MAX_OBSERVATIONS:,}"
    return ctx.problem("y", message, "chart-limit", "plot a summary the source reports instead of every observation")


def long_texts(points: Iterable[Point], ctx: Context) -> Problem | None:
    for point in points:
        for what, text in (("label", point.label), ("series", point.series), ("state", point.state)):
            if len(text) > MAX_LABEL:
                message = f"a {what} of {len(text):,} characters ({text[:40]!r}…); chart text holds at most {MAX_LABEL}"
                return ctx.problem("x" if what == "label" else what, message, "chart-limit",
                                   "give it a short name with names: {long text: short name}, or plot another field")
    return None


def out_of_range(points: Iterable[Point], references: Iterable[Reference], ctx: Context) -> Problem | None:
    """A value, whisker end, observation, x or reference that cannot be drawn faithfully."""
    for point in points:
        numbers = [point.value, point.x, *point.observations]
        if point.whisker is not None:
            numbers += [point.whisker.sd, point.whisker.low, point.whisker.high]
        bad = next((n for n in numbers if n is not None and not _drawable(n)), None)
        if bad is None and point.whisker is not None and point.value is not None:
            bad = next((n for n in point.whisker.bounds(point.value) if not _drawable(n)), None)
        if bad is not None:
            return _problem(ctx, f"{point.label!r} has {_text(bad)}", "y")
    for reference in references:
        if not _drawable(reference.value):
            return _problem(ctx, f"the reference {reference.label or ''} is {_text(reference.value)}".replace("  ", " "), "reference")
    return None


def _drawable(value: float) -> bool:
    try:
        return math.isfinite(float(value)) and abs(float(value)) <= MAX_MAGNITUDE
    except OverflowError:  # an integer beyond any float
        return False


def _text(value: float) -> str:
    text = str(getattr(value, "literal", value))
    return text if len(text) <= 30 else text[:27] + "…"


def _problem(ctx: Context, what: str, key: str) -> Problem:
    message = f"{what}, beyond ±1e15: a chart cannot draw it faithfully"
    return ctx.problem(key, message, "chart-limit", "check the export; such a value belongs in a table, not on an axis")
