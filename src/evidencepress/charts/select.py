"""Select a panel's entries from the page's export.

``from`` names a section (default ``reported_results``) or a JSON Pointer to
an array; ``where`` filters; ``labels`` / ``ids`` pick and order; ``pointers``
pick single values. Export order is kept unless labels, ids or pointers give
one. A selection that matches nothing is an error, never an empty chart.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..core.diagnostics import Problem, error
from ..core.model import JsonPath, Positions, dotted
from ..core.model import pointer as to_pointer
from .fieldpath import Missing, get_path, matches, resolve_pointer, split_pointer
from .model import PanelSpec, PointerSpec, SelectSpec, States

RULE = "chart-select"


@dataclass(frozen=True)
class Selected:
    """One selected entry and where it stands in the export."""

    entry: Mapping[str, Any]
    pointer: str
    states: States = ()  # status panels: a pointer's own states
    named: bool = True  # False when a pointer's label falls back to its last segment
    series: str | None = None  # a pointer's own series


@dataclass(frozen=True)
class _Where:
    """Diagnostics context: the chart document and the panel's path in it."""

    positions: Positions
    base: JsonPath

    def problem(self, key: tuple[str | int, ...], message: str, hint: str = "") -> Problem:
        path = self.base + ("select",) + key
        return error(self.positions.of_key(path), message, RULE, dotted(path), hint)


def select_entries(panel: PanelSpec, export: Any, positions: Positions) -> tuple[list[Selected], list[Problem]]:
    where = _Where(positions, ("panels", panel.index))
    select = panel.select
    if not isinstance(export, dict):
        return [], [
            where.problem(
                (),
                "the page has no export; a chart plots only values selected from it",
                "add a ```json export fence with the values the chart shows",
            )
        ]
    if select.pointers is not None:
        return _by_pointers(select.pointers, export, where)
    entries, problems = _section(select, export, where)
    if problems:
        return [], problems
    chosen = [item for item in entries if all(matches(get_path(item.entry, p), v) for p, v in select.where)]
    if not chosen:
        return [], [_nothing(select, entries, where)]
    if select.labels is not None:
        return _pick(chosen, "label", select.labels, where)
    if select.ids is not None:
        return _pick(chosen, "id", select.ids, where)
    return chosen, []


def _section(select: SelectSpec, export: dict[str, Any], where: _Where) -> tuple[list[Selected], list[Problem]]:
    source = select.source or "reported_results"
    key: tuple[str, ...] = ("from",) if select.source is not None else ()
    if source.startswith("/"):
        value = resolve_pointer(export, source)
        if isinstance(value, Missing):
            return [], [
                where.problem(
                    key,
                    f"JSON Pointer {source} does not resolve: no {value.segment!r} there",
                    _choices(value.segment, value.available),
                )
            ]
        base = source
    else:
        if source not in export:
            sections = [k for k, v in export.items() if isinstance(v, list)]
            return [], [where.problem(key, f"the export has no section {source!r}", _choices(source, tuple(sections)))]
        value, base = export[source], "/" + source
    if not isinstance(value, list):
        return [], [where.problem(key, f"{source} is not an array of entries", "select.from names an array")]
    if not all(isinstance(item, dict) for item in value):
        return [], [
            where.problem(key, f"the items of {source} are not objects", "use select.pointers to plot single values")
        ]
    return [Selected(item, f"{base}/{index}") for index, item in enumerate(value)], []


def _nothing(select: SelectSpec, entries: list[Selected], where: _Where) -> Problem:
    source = select.source or "reported_results"
    if not entries:
        return where.problem((), f"select matches nothing: {source} is empty")
    for path, expected in select.where:
        if not any(matches(get_path(item.entry, path), expected) for item in entries):
            seen = sorted(
                {repr(v) for item in entries if not isinstance(v := get_path(item.entry, path), (Missing, list, dict))}
            )
            hint = f"values of {path} in {source}: {', '.join(seen[:8])}" if seen else _no_field(path, entries)
            return where.problem(
                ("where", path), f"select matches nothing: no entry of {source} has {path} == {expected!r}", hint
            )
    return where.problem(
        ("where",),
        f"select matches nothing: no entry of {source} meets every where condition",
        "each condition matches some entries, but never all at once",
    )


def _no_field(path: str, entries: list[Selected]) -> str:
    missing = [m for item in entries if isinstance(m := get_path(item.entry, path), Missing)]
    known = tuple(dict.fromkeys(key for m in missing for key in m.available))
    close = difflib.get_close_matches(missing[0].segment, known, n=1) if missing else []
    return f"no entry has {path}" + (f"; did you mean {close[0]!r}?" if close else "")


def _pick(
    chosen: list[Selected], field: str, wanted: tuple[str, ...], where: _Where
) -> tuple[list[Selected], list[Problem]]:
    key = "labels" if field == "label" else "ids"
    known = tuple(str(item.entry.get(field)) for item in chosen if field in item.entry)
    picked: list[Selected] = []
    problems: list[Problem] = []
    for index, name in enumerate(wanted):
        hits = [item for item in chosen if item.entry.get(field) == name]
        if not hits:
            problems.append(
                where.problem((key, index), f"no selected entry has {field} {name!r}", _choices(name, known))
            )
        elif len(hits) > 1:
            problems.append(
                where.problem(
                    (key, index),
                    f"{len(hits)} selected entries have {field} {name!r}",
                    "narrow select.where (e.g. by source_record_id) or use ids",
                )
            )
        else:
            picked.extend(hits)
    return (picked, []) if not problems else ([], problems)


def _by_pointers(
    pointers: tuple[PointerSpec, ...], export: dict[str, Any], where: _Where
) -> tuple[list[Selected], list[Problem]]:
    picked: list[Selected] = []
    problems: list[Problem] = []
    for index, spec in enumerate(pointers):
        value = resolve_pointer(export, spec.pointer)
        if isinstance(value, Missing):
            message = f"JSON Pointer {spec.pointer} does not resolve: no {value.segment!r} there"
            problems.append(where.problem(("pointers", index), message, _choices(value.segment, value.available)))
        elif isinstance(value, (dict, list)):
            problems.append(
                where.problem(
                    ("pointers", index),
                    f"JSON Pointer {spec.pointer} points to an "
                    f"{'object' if isinstance(value, dict) else 'array'}, not a single value",
                )
            )
        else:
            picked.append(Selected(
                _pointed_entry(export, spec, value), spec.pointer, spec.states, spec.label is not None, spec.series
            ))
    return (picked, []) if not problems else ([], problems)


def _pointed_entry(export: dict[str, Any], spec: PointerSpec, value: Any) -> dict[str, Any]:
    """A single pointed value as an entry: its label, and what its parent object says about it."""
    segments = split_pointer(spec.pointer)
    parent = resolve_pointer(export, to_pointer(tuple(segments[:-1])))
    entry: dict[str, Any] = {"label": spec.label or segments[-1].replace("_", " "), "value": value}
    if isinstance(parent, dict) and segments[-1] == "value":  # the parent's unit describes its value only
        if isinstance(parent.get("unit"), str):
            entry["unit"] = parent["unit"]
        for key in ("uncertainty", "statistic", "id"):
            if key in parent:
                entry[key] = parent[key]
    for depth in range(len(segments) - 1, -1, -1):
        ancestor = resolve_pointer(export, to_pointer(tuple(segments[:depth])))
        if isinstance(ancestor, dict) and isinstance(ancestor.get("source_record_id"), str):
            entry["source_record_id"] = ancestor["source_record_id"]
            break
    return entry


def _choices(name: str, known: tuple[str, ...]) -> str:
    close = difflib.get_close_matches(name, known, n=3)
    if close:
        return "did you mean " + " or ".join(repr(c) for c in close) + "?"
    if known:
        shown = ", ".join(repr(k) for k in known[:8]) + (", …" if len(known) > 8 else "")
        return f"available: {shown}"
    return ""
