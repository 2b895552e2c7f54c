"""One selected entry -> one plotted Point, its table rows and notes.

Values are taken exactly as authored: nothing is rounded, coerced or
converted; ``null`` stays "not reported". Error bars come only from the
entry's ``uncertainty`` (or the panel's ``interval`` field), never invented.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from ..core.diagnostics import Problem
from .entry import Context, Extracted, describe, display_text, entry_name, ident_of, row_label, statistic_of, unit_text
from .fieldpath import Missing, get_path, parent_path
from .kinds import kind_of
from .model import ChartRow, Point, Whisker
from .observations import observations
from .select import Selected
from .states import status_point
from .uncertainty import authored, from_uncertainty, is_number, read, uncertainty_text


def extract(item: Selected, ctx: Context) -> tuple[Extracted | None, list[Problem]]:
    panel = ctx.panel
    found = {
        key: _field(item, key, path, ctx) for key, path in (("x", panel.x), ("y", panel.y), ("series", panel.series))
    }
    problems = [p for p in found.values() if isinstance(p, Problem)]
    if problems:
        return None, problems
    x, y, series = found["x"], found["y"], found["series"]
    for key, value, path in (("x", x, panel.x), ("series", series, panel.series)):
        if isinstance(value, (list, dict)):
            message = f"{key} ({path}) of {entry_name(item)} is not a single value"
            return None, [ctx.problem(key, message, "chart-select")]
    label = shown_text(display_text(x), panel.names)
    holder = _holder(item.entry, panel.y)
    unit = _unit(item.entry, holder, panel.y)
    common: dict[str, Any] = {
        "label": label,
        "series": item.series if item.series is not None else (
            "" if series is None and panel.series is None else shown_text(display_text(series), panel.names)
        ),
        "source": str(item.entry.get("source_record_id") or ""),
        "ident": ident_of(item.entry, label),
    }
    mode = kind_of(panel.kind).values
    if mode == "state":
        result, problems = status_point(item, y, common, ctx)
    elif mode == "observations" or (mode == "range" and isinstance(y, list)):
        result, problems = observations(item, y, common, unit, ctx)
    else:
        result, problems = _single(item, y, x, common, unit, holder, ctx)
    return (replace(result, x=x) if result else None), problems


def shown_text(raw: str, names: tuple[tuple[str, str], ...]) -> str:
    """What the chart shows for a raw category or series text: the author's name for it, if any."""
    return next((shown for key, shown in names if key == raw), raw)


def _unit(entry: Mapping[str, Any], holder: Mapping[str, Any], y: str) -> Any:
    """An entry's unit describes its ``value`` only: any other field (``conditions.peak_gib``) has none."""
    if y.rpartition(".")[2] != "value":
        return None
    return holder.get("unit") if isinstance(holder.get("unit"), str) else entry.get("unit")


def _single(
    item: Selected, y: Any, x: Any, common: dict[str, Any], unit: Any, holder: Mapping[str, Any], ctx: Context
) -> tuple[Extracted | None, list[Problem]]:
    panel, kind, label = ctx.panel, ctx.panel.kind, common["label"]
    if not (y is None or is_number(y)):
        what = f"a list of {len(y)} values" if isinstance(y, list) else describe(y)
        hint = (
            "only range panels draw a list of raw observations" if isinstance(y, list) else "point y at a numeric field"
        )
        return None, [
            ctx.problem(
                "y", f"{kind} panels plot numbers; y ({panel.y}) of {entry_name(item)} is {what}", "chart-kind", hint
            )
        ]
    entry_label = item.entry.get("label")
    name = entry_label if isinstance(entry_label, str) else label
    whisker, note, problems = _whisker(item, holder, y, name, ctx)
    if problems:
        return None, problems
    point = Point(value=y, x=x if is_number(x) else None, whisker=whisker, **common)
    row = _row(point, y, unit, holder, whisker, item, ctx)
    return Extracted(point, (row,), (note,) if note else (), unit if isinstance(unit, str) else None), []


def _field(item: Selected, key: str, path: str | None, ctx: Context) -> Any:
    if path is None:
        return None
    value = get_path(item.entry, path)
    if isinstance(value, Missing):
        default = "" if key in ctx.panel.given else f" (the default {key})"
        keys = ", ".join(value.available[:12])
        hint = f"{entry_name(item)} has: {keys}" if keys else ""
        return ctx.problem(
            key,
            f"field path {path!r}{default} not found on {entry_name(item)}: no {value.segment!r}",
            "chart-select",
            hint,
        )
    return value


def _holder(entry: Mapping[str, Any], y: str) -> Mapping[str, Any]:
    """The object that holds the y value, whose ``unit`` and ``uncertainty`` describe it."""
    parent = get_path(entry, parent_path(y)) if parent_path(y) else entry
    return parent if isinstance(parent, dict) else entry


def _whisker(
    item: Selected, holder: Mapping[str, Any], y: Any, label: str, ctx: Context
) -> tuple[Whisker | None, str, list[Problem]]:
    mode = kind_of(ctx.panel.kind).values
    if mode == "interval":
        return _interval(item, holder, y, label, ctx)
    uncertainty = holder.get("uncertainty")
    whisker, note = from_uncertainty(uncertainty, label)
    if mode == "range" and y is not None and (whisker is None or whisker.kind != "range"):
        return (
            None,
            "",
            [
                ctx.problem(
                    "y",
                    f"range panels need an observed range: {entry_name(item)} has "
                    f"{'no uncertainty' if uncertainty is None else 'uncertainty ' + authored(uncertainty)}",
                    "chart-kind",
                    "give y a field that lists raw observations, or use kind: bar",
                )
            ],
        )
    return (whisker if y is not None else None), note, []


def _interval(
    item: Selected, holder: Mapping[str, Any], y: Any, label: str, ctx: Context
) -> tuple[Whisker | None, str, list[Problem]]:
    path = ctx.panel.interval
    if path is None:
        whisker, note = from_uncertainty(holder.get("uncertainty"), label)
        if whisker is not None and whisker.kind == "ci":
            return (whisker if y is not None else None), note, []
        return (
            None,
            "",
            [
                ctx.problem(
                    "interval",
                    f"interval panels need a confidence interval: {entry_name(item)} has none",
                    "chart-kind",
                    "set interval: to a field holding [lo, hi], e.g. ci95_points",
                )
            ],
        )
    pair = get_path(item.entry, path)
    if isinstance(pair, Missing):
        return (
            None,
            "",
            [
                ctx.problem(
                    "interval",
                    f"field path {path!r} not found on {entry_name(item)}: no {pair.segment!r}",
                    "chart-select",
                )
            ],
        )
    if pair is None:
        return None, f"{label}: interval not reported", []
    if not (isinstance(pair, list) and len(pair) == 2 and all(is_number(v) for v in pair)):
        return (
            None,
            "",
            [
                ctx.problem(
                    "interval",
                    f"interval ({path}) of {entry_name(item)} is {describe(pair)}, not [lo, hi]",
                    "chart-kind",
                )
            ],
        )
    return Whisker("interval", "interval as reported", low=pair[0], high=pair[1]), "", []


def _interval_name(field: Any) -> str:
    """What a reader calls the interval a panel draws from a field (``ci95_points`` is a 95% CI)."""
    return "95% CI" if "ci95" in str(field) else "interval"


def _row(
    point: Point, y: Any, unit: Any, holder: Mapping[str, Any], whisker: Whisker | None, item: Selected, ctx: Context
) -> ChartRow:
    text, shown = (
        (uncertainty_text(holder.get("uncertainty")), uncertainty_text(holder.get("uncertainty"), read))
        if whisker is None or whisker.kind != "interval"
        else (f"{ctx.panel.interval}: {authored(whisker.low)} to {authored(whisker.high)}",
              f"{_interval_name(ctx.panel.interval)} {read(whisker.low)} to {read(whisker.high)}")
    )
    if not text and "uncertainty" in holder and holder["uncertainty"] is None:
        text = shown = "not reported"  # a null uncertainty is tabulated as what it means
    return ChartRow(
        ctx.panel.title,
        row_label(item, point),
        point.series,
        y,
        unit_text(unit, ctx),
        statistic_of(holder) or statistic_of(item.entry),
        text,
        point.source,
        x=point.label,
        pointer=item.pointer,
        uncertainty_shown=shown,
    )
