"""Raw observations: a ``y`` that yields a list of numbers, drawn as dots.

Range panels derive their median and observed range; dot panels derive nothing
(a summary and an interval only as the export reports them)."""

from __future__ import annotations

import decimal
from collections.abc import Sequence
from typing import Any

from ..core import jsontext
from ..core.diagnostics import Problem
from . import style
from .entry import Context, Extracted, describe, entry_name, plain_row, unit_text
from .fieldpath import Missing, get_path
from .kinds import kind_of
from .model import Number, Point, Whisker
from .select import Selected
from .uncertainty import is_number


def observations(
    item: Selected, values: list[Any], common: dict[str, Any], unit: Any, ctx: Context
) -> tuple[Extracted | None, list[Problem]]:
    bad = [v for v in values if not (v is None or is_number(v))]
    if bad:
        return None, [
            ctx.problem(
                "y",
                f"raw observations ({ctx.panel.y}) of {entry_name(item)} include {describe(bad[0])}",
                "chart-kind",
                "observations must be numbers (or null when not reported)",
            )
        ]
    numbers = tuple(v for v in values if v is not None)
    if kind_of(ctx.panel.kind).values == "observations":  # as reported: nothing derived
        return _dot(item, values, numbers, common, unit, ctx)
    median = exact_median(numbers) if numbers else None
    whisker = Whisker("range", style.LEGEND_RANGE, low=min(numbers), high=max(numbers)) if numbers else None
    point = Point(value=None, observations=numbers, median=median, whisker=whisker, **common)
    shown_unit = unit_text(unit, ctx)
    rows = [
        plain_row(point, v, shown_unit, f"raw observation {i} of {len(values)}", item, ctx)
        for i, v in enumerate(values, 1)
    ]
    if median is not None:
        rows.append(plain_row(point, median, shown_unit, "median of the raw observations (derived)", item, ctx))
    missing = len(values) - len(numbers)
    notes = (f"{point.label}: {missing} of {len(values)} observations not reported",) if missing else ()
    return Extracted(point, tuple(rows), notes, unit if isinstance(unit, str) else None), []


def exact_median(numbers: Sequence[Number]) -> Number:
    """The median of authored numbers: the middle one itself, or the mean of the middle two worked
    out from their literals (0.1 and 0.2 give 0.15, where floats give 0.15000000000000002)."""
    ordered = sorted(numbers)
    middle = len(ordered) // 2
    if len(ordered) % 2:
        return ordered[middle]
    pair = [decimal.Decimal(jsontext.number_text(number)) for number in ordered[middle - 1:middle + 1]]
    return float((pair[0] + pair[1]) / 2)


def _dot(
    item: Selected, values: list[Any], numbers: tuple[Any, ...], common: dict[str, Any], unit: Any, ctx: Context
) -> tuple[Extracted | None, list[Problem]]:
    """Dot panels derive nothing: the summary (``mark``) and interval come from the export or not at all."""
    panel = ctx.panel
    mark = get_path(item.entry, panel.mark) if panel.mark else None
    if isinstance(mark, Missing) or not (mark is None or is_number(mark)):
        what = f"no {mark.segment!r}" if isinstance(mark, Missing) else describe(mark)
        return None, [ctx.problem("mark", f"mark ({panel.mark}) of {entry_name(item)}: {what}", "chart-select",
                                  "mark names a number the source reports for these observations")]
    whisker = None
    if panel.interval:
        pair = get_path(item.entry, panel.interval)
        if not (isinstance(pair, list) and len(pair) == 2 and all(is_number(v) for v in pair)):
            return None, [ctx.problem("interval", f"interval ({panel.interval}) of {entry_name(item)} is not [lo, hi]",
                                      "chart-kind")]
        whisker = Whisker("interval", "interval as reported", low=pair[0], high=pair[1])
    point = Point(value=mark, observations=numbers, whisker=whisker, **common)
    shown_unit = unit_text(unit, ctx)
    rows = [plain_row(point, v, shown_unit, f"observation {i} of {len(values)}", item, ctx)
            for i, v in enumerate(values, 1)]
    if mark is not None:
        rows.append(plain_row(point, mark, shown_unit, f"{panel.mark_label or panel.mark} (as reported)", item, ctx))
    missing = len(values) - len(numbers)
    notes = (f"{point.label}: {missing} of {len(values)} observations not reported",) if missing else ()
    return Extracted(point, tuple(rows), notes, unit if isinstance(unit, str) else None), []
