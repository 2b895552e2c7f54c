"""Status values: a value means only what the chart spec says it means.

``true``, ``false`` and every text value must be mapped to a state the chart
names (``states:`` of the panel, of a grid column or of a pointer); ``null``
always reads "not reported". An unmapped value is an error listing every
value to map, so a raw code (``NOT_RUN_BY_GATE``) never reaches a reader.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..core.diagnostics import Problem
from ..core.model import JsonPath
from .entry import Context, Extracted, describe, entry_name, row_label, statistic_of
from .model import ChartRow, Point, States, StateSpec
from .select import Selected

NOT_REPORTED = StateSpec("not reported", "missing")


def raw_text(value: bool | str) -> str:
    """The text a states map uses as key for a raw value: ``true``, ``false`` or the string."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return value


def status_point(
    item: Selected, y: Any, common: dict[str, Any], ctx: Context
) -> tuple[Extracted | None, list[Problem]]:
    """The point of a status entry; its ``tone`` is "" when the value has no state (see ``unmapped``)."""
    if not (y is None or isinstance(y, (bool, str))):
        return None, [
            ctx.problem(
                "y",
                f"status panels show states; y ({ctx.panel.y}) of {entry_name(item)} is {describe(y)}",
                "chart-kind",
                "y must be true, false, null or text; use a bar panel for numbers",
            )
        ]
    state = NOT_REPORTED if y is None else state_of(raw_text(y), (item.states, ctx.panel.states))
    label, tone = (state.label, state.tone) if state is not None else (raw_text(y) if y is not None else "", "")
    point = Point(value=None, state=label, tone=tone, **common)
    row = ChartRow(
        ctx.panel.title, row_label(item, point), point.series, None, "", statistic_of(item.entry), "",
        point.source, label, point.label, item.pointer,
    )
    return Extracted(point, (row,), (), None), []


def state_of(raw: str, maps: Iterable[States]) -> StateSpec | None:
    """The state of a raw value: the first map that names it (a pointer's, then the column's or panel's)."""
    for states in maps:
        for key, state in states:
            if key == raw:
                return state
    return None


def unmapped_problem(ctx: Context, raws: list[str]) -> Problem:
    """One error for every raw value of a panel that no states map names."""
    values = list(dict.fromkeys(raws))
    shown = ", ".join(v if v in ("true", "false") else repr(v) for v in values)
    example = ", ".join(f"{v if v in ('true', 'false') else _yaml_key(v)}: …" for v in values[:3])
    message = (
        f"status value{'s' if len(values) > 1 else ''} {shown} "
        f"{'have' if len(values) > 1 else 'has'} no state: a status value means only what the chart says"
    )
    hint = (
        f"map {'each' if len(values) > 1 else 'it'} under states: (e.g. states: {{{example}}}) to passed, failed, "
        "not run, not reported or {label, tone}"
    )
    key: JsonPath = ("states",) if "states" in ctx.panel.given else ("y",)
    return ctx.problem(str(key[0]), message, "chart-state", hint)


def _yaml_key(text: str) -> str:
    plain = text.replace("_", "").replace("-", "").replace(" ", "").isalnum() and text.lower() not in (
        "true", "false", "null", "yes", "no", "on", "off", "~")
    return text if plain else f'"{text}"'
