"""The chart fence: YAML -> literal-number check -> schema -> typed ChartSpec.

A chart spec holds no data numbers. Numbers written where values are plotted
(``y: 42``, a list of numbers, numbers in ``labels``) are reported before the
schema runs, so the editor learns *why* they are refused.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ..content.yamlmap import load_yaml
from ..core.diagnostics import Location, Problem, error
from ..core.model import Document, Fence, JsonPath, Positions, dotted
from ..schemas.load import SchemaSet
from .kinds import KIND_KEYS, registry
from .model import ChartSpec, ColumnSpec, PanelSpec, PointerSpec, ReferenceSpec, SelectSpec, States, StateSpec
from .schema import chart_kinds, chart_schema_problems, json_value, non_finite

_FIELD_KEYS = ("x", "y", "series", "interval")
_LITERAL_HINT = "select entries with select.where / labels / ids / pointers and name their fields with x / y"


def parse_spec(
    fence: Fence, file: str, schemas: SchemaSet
) -> tuple[ChartSpec | None, Document | None, list[Problem]]:
    """The typed spec of a chart fence, its document (for positions) and the problems found."""
    doc, problems = load_yaml(fence.content, file, fence.content_line, fence.indent)
    if doc is None or problems:
        return None, doc, problems
    fence_at = Location(file, fence.line, 1)
    if not isinstance(doc.value, dict):
        message = "a chart fence holds a YAML mapping (id, kind, title, alt, panels)"
        return None, doc, [error(fence_at, message, "chart-schema")]
    value = json_value(doc.value)
    refused = list(_literals(value, (), doc.positions)) + list(non_finite(value, doc.positions))
    skip = frozenset(path for path, _ in refused)
    problems = [p for _, p in refused] + chart_schema_problems(schemas, value, doc.positions, skip)
    if problems:
        return None, doc, problems
    spec = _build(value)
    problems = list(_unknown_kinds(spec, doc.positions, schemas)) or list(_combinations(spec, doc.positions))
    return (None if problems else spec), doc, problems


# --- numbers are never chart data -------------------------------------------


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _literals(value: Any, path: JsonPath, positions: Positions) -> Iterator[tuple[JsonPath, Problem]]:
    if isinstance(value, dict):
        for key, item in value.items():
            child = path + (key,)
            if key == "reference" and _is_panel(path):
                continue  # the one place a chart may hold a number
            if _is_panel(path) and key in _FIELD_KEYS and _is_number(item):
                yield child, _literal_problem(child, positions, f"{key}: {item} is a number")
            else:
                yield from _literals(item, child, positions)
    elif isinstance(value, list):
        numbers = [item for item in value if _is_number(item)]
        if numbers:
            shown = ", ".join(str(n) for n in numbers[:4]) + (", …" if len(numbers) > 4 else "")
            yield path, _literal_problem(path, positions, f"a list of numbers ({shown})")
            return
        for index, item in enumerate(value):
            yield from _literals(item, path + (index,), positions)


def _is_panel(path: JsonPath) -> bool:
    return len(path) == 2 and path[0] == "panels" and isinstance(path[1], int)


def _literal_problem(path: JsonPath, positions: Positions, what: str) -> Problem:
    key = path[-1] if path else ""
    message = f"{what} written in the chart; plotted values come only from the page's export"
    hint = _LITERAL_HINT
    if key in ("labels", "ids"):
        hint = f"{key} are the entries' text; quote them (\"1\") if the export's {key} look like numbers"
    elif key in _FIELD_KEYS:
        hint = f"{key} is a field path of the selected entries, e.g. {'value' if key == 'y' else 'label'}"
    return error(positions.of_key(path), message, "chart-literal", dotted(path), hint)


# --- typed spec -----------------------------------------------------------


def _build(value: dict[str, Any]) -> ChartSpec:
    kind = value["kind"]
    names = tuple((value.get("names") or {}).items())
    panels = tuple(_panel(index, item, kind, names) for index, item in enumerate(value["panels"]))
    return ChartSpec(
        id=value["id"],
        kind=kind,
        title=value["title"],
        alt=value["alt"],
        caption=value.get("caption", ""),
        panels=panels,
    )


def _panel(index: int, item: dict[str, Any], chart_kind: str, names: tuple[tuple[str, str], ...]) -> PanelSpec:
    return PanelSpec(
        index=index,
        title=item.get("title", ""),
        kind=item.get("kind", chart_kind),
        select=_select(item["select"] or {}),
        x=item.get("x", "label"),
        y=item.get("y", "value"),
        series=item.get("series"),
        interval=item.get("interval"),
        references=_references(item.get("reference")),
        unit=item.get("unit"),
        states=states_of(item.get("states")),
        names=tuple(dict(names, **(item.get("names") or {})).items()),
        x_label=item.get("x_label"),
        columns=tuple(
            ColumnSpec(c["y"], c["title"], states_of(c.get("states"))) for c in item.get("columns") or ()
        ),
        mark=item.get("mark"),
        mark_label=item.get("mark_label"),
        stacked=bool(item.get("stacked", False)),
        given=frozenset(item),
        digits=item.get("digits"),
    )


def states_of(value: dict[str, Any] | None) -> States:
    """Typed states: a named state (``passed``) or ``{label, tone}``."""
    named = {"passed": "positive", "failed": "negative", "not run": "neutral", "not reported": "missing"}
    states: list[tuple[str, StateSpec]] = []
    for raw, state in (value or {}).items():
        if isinstance(state, str):
            states.append((raw, StateSpec(state, named[state])))
        else:
            states.append((raw, StateSpec(state["label"], state["tone"])))
    return tuple(states)


def _references(value: Any) -> tuple[ReferenceSpec, ...]:
    if value is None:
        return ()
    items = value if isinstance(value, list) else [value]
    return tuple(
        ReferenceSpec(i, item, None, "") if not isinstance(item, dict) else ReferenceSpec(i, None, item["pointer"], item["label"])
        for i, item in enumerate(items)
    )


def _select(item: dict[str, Any]) -> SelectSpec:
    pointers = item.get("pointers")
    return SelectSpec(
        source=item.get("from"),
        where=tuple((str(k), v) for k, v in (item.get("where") or {}).items()),
        labels=tuple(item["labels"]) if "labels" in item else None,
        ids=tuple(item["ids"]) if "ids" in item else None,
        pointers=tuple(_pointer(p) for p in pointers) if pointers is not None else None,
    )


def _pointer(item: str | dict[str, Any]) -> PointerSpec:
    if isinstance(item, str):
        return PointerSpec(item, None)
    return PointerSpec(item["pointer"], item.get("label"), states_of(item.get("states")), item.get("series"))


# --- keys that do not go together ------------------------------------------


def _combinations(spec: ChartSpec, positions: Positions) -> Iterator[Problem]:
    for panel in spec.panels:
        base: JsonPath = ("panels", panel.index)
        select = panel.select
        if select.pointers is not None:
            others = [
                k
                for k, v in (
                    ("from", select.source is not None),
                    ("where", select.where),
                    ("labels", select.labels),
                    ("ids", select.ids),
                )
                if v
            ]
            for key in others:
                yield _bad(
                    positions,
                    base + ("select", key),
                    f"{key} cannot be combined with select.pointers",
                    "chart-select",
                    "pointers pick single values by themselves; remove one of the two",
                )
            for key in ("x", "y", "series", "interval", "columns"):
                if key in panel.given:
                    yield _bad(
                        positions,
                        base + (key,),
                        f"{key} does not apply to select.pointers",
                        "chart-select",
                        "the label comes from the pointer (or its label:), the value is the pointed value",
                    )
        if select.labels is not None and select.ids is not None:
            yield _bad(positions, base + ("select", "ids"), "use either labels or ids, not both", "chart-select")
        yield from _kind_keys(panel, base, positions)


def _unknown_kinds(spec: ChartSpec, positions: Positions, schemas: SchemaSet) -> Iterator[Problem]:
    """A kind the site's schema allows but no registered kind draws."""
    known = registry()
    written: list[tuple[JsonPath, str]] = [(("kind",), spec.kind)]
    written += [(("panels", p.index, "kind"), p.kind) for p in spec.panels if "kind" in p.given]
    for path, kind in written:
        if kind not in known:
            drawable = ", ".join(k for k in chart_kinds(schemas) if k in known)
            yield _bad(positions, path, f"no chart kind {kind!r} is registered", "chart-kind", f"use one of {drawable}")


def _kind_keys(panel: PanelSpec, base: JsonPath, positions: Positions) -> Iterator[Problem]:
    """Keys that only some kinds read (``reference``, ``states`` …) are refused elsewhere."""
    accepted = registry()[panel.kind].keys
    for key in sorted(panel.given & KIND_KEYS - accepted):
        owners = ", ".join(name for name, kind in registry().items() if key in kind.keys)
        yield _bad(positions, base + (key,), f"{key} applies to {owners} panels, not {panel.kind}", "chart-kind")
    if panel.columns and {"y", "series"} & panel.given:
        key = "y" if "y" in panel.given else "series"
        yield _bad(positions, base + (key,), f"{key} does not combine with columns", "chart-kind",
                   "each column names its own y")


def _bad(positions: Positions, path: JsonPath, message: str, rule: str, hint: str = "") -> Problem:
    return error(positions.of_key(path), message, rule, dotted(path), hint)
