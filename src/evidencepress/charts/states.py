"""Status values: ``true`` passed, ``false`` failed, ``null`` not reported, text as written or mapped."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..diagnostics import Problem
from .entry import Context, Extracted, describe, entry_name, row_label, statistic_of
from .model import ChartRow, Point
from .select import Selected


def status_point(
    item: Selected, y: Any, common: dict[str, Any], ctx: Context
) -> tuple[Extracted | None, list[Problem]]:
    if not (y is None or isinstance(y, (bool, str))):
        return None, [
            ctx.problem(
                "y",
                f"status panels show states; y ({ctx.panel.y}) of {entry_name(item)} is {describe(y)}",
                "chart-kind",
                "y must be true, false, null or text; use a bar panel for numbers",
            )
        ]
    state = state_of(y, dict(ctx.panel.states))
    point = Point(value=None, state=state, **common)
    row = ChartRow(
        ctx.panel.title,
        row_label(item, point),
        point.series,
        y,
        "",
        statistic_of(item.entry),
        "",
        point.source,
        state,
        point.label,
    )
    return Extracted(point, (row,), (), None), []


def state_of(value: bool | str | None, states: Mapping[str, str]) -> str:
    if value is True:
        return "passed"
    if value is False:
        return "failed"
    if value is None:
        return "not reported"
    return states.get(value, value)
