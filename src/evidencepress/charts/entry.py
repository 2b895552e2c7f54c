"""A selected entry as the chart stage sees it: its context, name and table row parts."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..core.diagnostics import Problem, error
from ..core.model import JsonPath, Positions, dotted
from . import style
from .model import ChartRow, Number, PanelSpec, Point
from .select import Selected
from .uncertainty import authored, is_number


@dataclass(frozen=True)
class Extracted:
    point: Point
    rows: tuple[ChartRow, ...]
    notes: tuple[str, ...]
    unit: str | None  # the entry's own unit, as authored
    x: Any = None  # the x value, as authored


@dataclass(frozen=True)
class Context:
    panel: PanelSpec
    positions: Positions

    def problem(self, key: str, message: str, rule: str, hint: str = "") -> Problem:
        """A problem at the panel's ``key`` (or the panel itself when the key was not written)."""
        base: JsonPath = ("panels", self.panel.index)
        path = base + (key,)
        where = self.positions.of_key(path) if key in self.panel.given else self.positions.of_value(base)
        return error(where, message, rule, dotted(path), hint)


def plain_row(point: Point, value: Number, unit: str, statistic: str, item: Selected, ctx: Context) -> ChartRow:
    return ChartRow(
        ctx.panel.title, row_label(item, point), point.series, value, unit, statistic, "", point.source, x=point.label,
        pointer=item.pointer,
    )


def row_label(item: Selected, point: Point) -> str:
    label = item.entry.get("label")
    return label if isinstance(label, str) and label else point.label


def unit_text(unit: Any, ctx: Context) -> str:
    return ctx.panel.unit or (unit if isinstance(unit, str) else "")


def statistic_of(entry: Mapping[str, Any]) -> str:
    value = entry.get("statistic")
    return value if isinstance(value, str) else ""


def ident_of(entry: Mapping[str, Any], label: str) -> str:
    for key in ("id", "label"):
        if isinstance(entry.get(key), str) and entry[key]:
            return str(entry[key])
    return label


def display_text(value: Any) -> str:
    if value is None:
        return "not reported"
    if isinstance(value, bool):
        return "true" if value else "false"
    if is_number(value):
        return style.display_number(value)
    return str(value)


def entry_name(item: Selected) -> str:
    label = item.entry.get("label")
    where = item.pointer
    return f"{where} ({label!r})" if isinstance(label, str) else where


def describe(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "an array"
    kind = {bool: "boolean", str: "string", int: "number", float: "number"}.get(type(value), type(value).__name__)
    return f"{kind} {authored(value)}"
