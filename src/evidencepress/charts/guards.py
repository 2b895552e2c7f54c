"""The guards of SPEC §6 that look at a whole panel.

One unit per panel (never converted); sources kept apart unless the export
allows ranking across them; a line needs x values it can place; at most as
many series as the colour-blind-safe palette has colours.
"""

from __future__ import annotations

from typing import Any

from ..core.diagnostics import Problem, error
from ..core.model import JsonPath, Positions, dotted
from ..schemas.units import Units
from . import style
from .entry import Extracted
from .kinds import kind_of
from .model import PanelSpec, Point
from .uncertainty import is_number
from .units import same_unit, unit_key


def panel_unit(panel: PanelSpec, extracted: list[Extracted], positions: Positions,
               units: Units | None = None) -> tuple[str, list[Problem]]:
    """The panel's display unit, or the problems that make it ambiguous (``units``: the vocabulary
    that says which spellings are one unit)."""
    if not kind_of(panel.kind).value_axis:
        return "", []
    base: JsonPath = ("panels", panel.index)
    by_unit: dict[str, list[str]] = {}
    for item in extracted:
        if item.unit is not None:
            by_unit.setdefault(unit_key(item.unit, units), []).append(item.point.label)
    authored = {unit_key(item.unit, units): item.unit for item in reversed(extracted) if item.unit is not None}
    if len(by_unit) > 1:
        parts = [f"{authored[key]!r} ({_some(labels)})" for key, labels in by_unit.items()]
        message = (
            "the selected entries mix units: "
            + " and ".join(parts)
            + "; one unit per panel, values are never converted"
        )
        hint = "narrow select.where (e.g. by metric or unit) or give each unit its own panel"
        return "", [_at(positions, base + ("select",), message, hint)]
    if panel.unit is not None:
        wrong = [item for item in extracted if item.unit is not None and not same_unit(item.unit, panel.unit, units)]
        if wrong:
            labels = _some([w.point.label for w in wrong])
            message = f"unit {panel.unit!r} disagrees with the selected entries' unit {wrong[0].unit!r} ({labels})"
            return "", [
                _at(positions, base + ("unit",), message, "remove unit: or make it agree; values are never converted")
            ]
        return panel.unit, []
    bare = [item.point.label for item in extracted if item.unit is None]
    if bare and panel.y.rpartition(".")[2] != "value":
        message = (f"y ({panel.y}) is not the entries' value: their unit describes the value, not this field; "
                   "the panel needs unit:")
        return "", [error(positions.of_key(base + ("y",)), message, "chart-unit", dotted(base + ("y",)),
                          "add the field's own unit, e.g. unit: GiB")]
    if bare:
        message = f"the selected entries carry no unit ({_some(bare)}); the panel needs unit:"
        return "", [
            error(
                positions.of_value(base),
                message,
                "chart-unit",
                dotted(base),
                "add e.g. unit: score points to the panel",
            )
        ]
    return extracted[0].unit or "", []


def separate_sources(points: list[Point], export: Any) -> bool:
    """True when the panel mixes source records and the export does not allow ranking across them."""
    sources = {p.source for p in points}
    conditions = export.get("conditions") if isinstance(export, dict) else None
    allowed = isinstance(conditions, dict) and conditions.get("cross_source_ranking_allowed") is True
    return len(sources) > 1 and not allowed


def line_x(
    panel: PanelSpec, extracted: list[Extracted], raw_x: list[Any], positions: Positions
) -> tuple[bool, list[Problem]]:
    """Whether a line panel's x is numeric (else ordered categories), or why it cannot be placed."""
    base: JsonPath = ("panels", panel.index)
    path = base + ("x",) if "x" in panel.given else base
    where = positions.of_key(path) if path != base else positions.of_value(base)
    missing = [e.point.label for e, x in zip(extracted, raw_x, strict=False) if x is None]
    if missing:
        message = f"x ({panel.x}) is not reported for {_some(missing)}; a line cannot place a point without x"
        return False, [error(where, message, "chart-kind", dotted(path), "narrow the selection or use a bar panel")]
    numeric = [is_number(x) for x in raw_x]
    if any(numeric) and not all(numeric):
        message = f"x ({panel.x}) mixes numbers and text; a line needs numeric x or ordered categories"
        return False, [error(where, message, "chart-kind", dotted(path))]
    return all(numeric), []


def series_count(panel: PanelSpec, series: tuple[str, ...], positions: Positions) -> list[Problem]:
    if len(series) <= len(style.PALETTE):
        return []
    base: JsonPath = ("panels", panel.index)
    path = base + ("series",)
    message = f"{len(series)} series; a panel shows at most {len(style.PALETTE)} (colour-blind-safe palette)"
    return [error(positions.of_key(path), message, "chart-kind", dotted(path), "split the selection into panels")]


def _at(positions: Positions, path: JsonPath, message: str, hint: str) -> Problem:
    return error(positions.of_key(path), message, "chart-unit", dotted(path), hint)


def _some(labels: list[str]) -> str:
    shown = ", ".join(repr(label) for label in labels[:3])
    return shown + (f" and {len(labels) - 3} more" if len(labels) > 3 else "")
