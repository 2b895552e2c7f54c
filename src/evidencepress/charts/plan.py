"""Spec + export -> ChartPlan: selection, guards, categories, legend, layout, cache key."""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import importlib.metadata
import re
from dataclasses import dataclass, replace
from typing import Any

from .. import jsontext
from ..diagnostics import Location, Problem, has_errors
from ..model import Positions
from . import checks, guards, layout, limits, style
from .entry import Context, Extracted
from .fieldpath import Missing, resolve_pointer
from .kinds import LegendInput, kind_of
from .model import ChartPlan, ChartRow, ChartSpec, PanelBox, PanelPlan, PanelSpec, Point, Reference
from .select import Selected, select_entries
from .states import unmapped_problem
from .uncertainty import is_number
from .units import value_labels
from .values import extract


@dataclass(frozen=True)
class _Panel:
    """A panel's selected values, before layout (which depends on the canvas)."""

    spec: PanelSpec
    points: tuple[Point, ...]
    unit: str
    x_numeric: bool
    series: tuple[str, ...]
    separate: bool
    rows: tuple[ChartRow, ...]
    notes: tuple[str, ...]
    references: tuple[Reference, ...]


def build_plan(
    spec: ChartSpec, export: Any, positions: Positions, fence_line: int
) -> tuple[ChartPlan | None, list[Problem]]:
    """The wide plan, with its narrow (phone) variant as ``.narrow``."""
    panels: list[_Panel] = []
    problems: list[Problem] = []
    for panel in spec.panels:
        built, found = _panel(panel, export, positions)
        problems += found
        if built is not None:
            panels.append(built)
    if has_errors(problems):
        return None, problems
    wide = _chart(spec, panels, positions, fence_line, layout.WIDE)
    narrow = _chart(spec, panels, positions, fence_line, layout.NARROW)
    return replace(wide, narrow=narrow), problems


def _panel(panel: PanelSpec, export: Any, positions: Positions) -> tuple[_Panel | None, list[Problem]]:
    """A panel's values, or the errors that stop it; warnings ride along with the values."""
    selected, problems = select_entries(panel, export, positions)
    if problems:
        return None, problems
    ctx = Context(panel, positions)
    too_many = limits.too_many_entries(len(selected) * max(len(panel.columns), 1), ctx)
    if too_many is not None:
        return None, [too_many]
    items, extracted, problems = _extract_all(selected, ctx)
    if problems:
        return None, _merge(problems)
    unmapped = [e.point.state for e in extracted if kind_of(panel.kind).values == "state" and not e.point.tone]
    if unmapped:
        return None, [unmapped_problem(ctx, unmapped)]
    references, problems = _references(panel, export, ctx)
    points = [e.point for e in extracted]
    limit = (
        limits.too_many_observations(points, ctx) or limits.long_texts(points, ctx)
        or limits.out_of_range(points, references, ctx)
    )
    if problems or limit is not None:
        return None, problems + ([limit] if limit is not None else [])
    if panel.stacked and any(p.value is not None and p.value < 0 for p in points):
        return None, [ctx.problem("stacked", "stacked bars add parts end to end; a part is negative", "chart-kind",
                                  "draw negative values side by side (remove stacked:)")]
    unit, problems = guards.panel_unit(panel, extracted, positions)
    x_numeric = False
    if panel.kind == "line":
        x_numeric, found = guards.line_x(panel, extracted, [e.x for e in extracted], positions)
        problems += found
    separate = guards.separate_sources(points, export)
    if panel.kind == "line" and separate and panel.series is None:
        points = [replace(p, series=p.source) for p in points]
    series = (
        tuple(dict.fromkeys(p.series for p in points if p.series))
        if panel.series or panel.columns or any(i.series for i in items) or (separate and panel.kind == "line")
        else ()
    )
    problems += guards.series_count(panel, series, positions)
    if problems:
        return None, problems
    warnings = _warnings(panel, items, points, references, positions)
    rows = tuple(row for e in extracted for row in e.rows)
    notes = tuple(note for e in extracted for note in e.notes) + ((style.SEPARATE_SOURCES,) if separate else ())
    return _Panel(panel, tuple(points), unit, x_numeric, series, separate, rows, notes, references), warnings


def _extract_all(
    selected: list[Selected], ctx: Context
) -> tuple[list[Selected], list[Extracted], list[Problem]]:
    """Each selected entry as a point; a status grid gives one point per entry and column."""
    panel = ctx.panel
    columns = [(ctx, "")] if not panel.columns else [
        (Context(replace(panel, y=c.y, states=c.states + panel.states, series=None), ctx.positions), c.title)
        for c in panel.columns
    ]
    items: list[Selected] = []
    extracted: list[Extracted] = []
    problems: list[Problem] = []
    for item in selected:
        for column_ctx, title in columns:
            result, found = extract(item, column_ctx)
            problems += found
            if result is not None:
                if title:
                    result = replace(result, point=replace(result.point, series=title),
                                     rows=tuple(replace(r, series=title) for r in result.rows))
                items.append(item)
                extracted.append(result)
    return items, extracted, problems


def _references(panel: PanelSpec, export: Any, ctx: Context) -> tuple[tuple[Reference, ...], list[Problem]]:
    """Reference lines: literal numbers, or numbers the export holds (a limit, a capacity)."""
    found: list[Reference] = []
    problems: list[Problem] = []
    for spec in panel.references:
        if spec.pointer is None:
            found.append(Reference(spec.value if spec.value is not None else 0, spec.label))
            continue
        value = resolve_pointer(export, spec.pointer) if isinstance(export, dict) else Missing("", ())
        if isinstance(value, Missing) or not is_number(value):
            what = "does not resolve" if isinstance(value, Missing) else f"points to {value!r}, not a number"
            problems.append(ctx.problem("reference", f"reference {spec.pointer} {what}", "chart-select",
                                        "a reference line is a number the export holds"))
        else:
            found.append(Reference(value, spec.label))
    return tuple(found), problems


def _warnings(
    panel: PanelSpec, items: list[Selected], points: list[Point], references: tuple[Reference, ...],
    positions: Positions,
) -> list[Problem]:
    """Charts that draw but read wrong: one value, unlike quantities, limits as bars, hidden points, ids."""
    kinds = [checks.quantity(item, panel.y) for item in items]
    denominators = [checks.denominator(item.entry) for item in items]
    limit = [checks.is_limit(item, p.label) for item, p in zip(items, points)]
    mixed = [] if panel.kind == "bar" and any(limit) and not all(limit) else kinds
    return (
        checks.single_value(panel, points, bool(references), positions)
        + checks.mixed_kinds(panel, points, mixed if panel.kind != "status" else [], denominators, positions)
        + checks.limit_as_bar(panel, points, limit, positions)
        + checks.overlapping(panel, points, positions)
        + list(checks.id_labels(panel, items, points, positions))
    )


def _merge(problems: list[Problem]) -> list[Problem]:
    """One problem per place and rule: the same mistake on many entries is reported once."""
    groups: dict[tuple[Location, str, str], list[Problem]] = {}
    for problem in problems:
        groups.setdefault((problem.location, problem.rule, problem.json_path), []).append(problem)
    merged = []
    for group in groups.values():
        more = len(group) - 1
        extra = f" (and {more} more {'entry' if more == 1 else 'entries'})" if more else ""
        merged.append(replace(group[0], message=group[0].message + extra))
    return merged


def _panel_plan(built: _Panel, where: layout.Canvas, force_horizontal: bool = False) -> PanelPlan:
    panel, points, series, separate = built.spec, built.points, built.series, built.separate
    kind = kind_of(panel.kind)
    grid = not kind.stacked
    if grid and len(series) > 1 and not layout.grid_fits(points, len(series), where):
        # Too many columns for this width (a phone): one row per item and column instead.
        points = tuple(replace(p, label=f"{p.label} \u2014 {p.series}", series="") for p in points)
        series = ()
    groups = _groups(points, separate and kind.name != "line", bool(series) and kind.name != "line")
    horizontal = (kind.name == "bar" and (force_horizontal or panel.stacked)) or kind.horizontal(
        groups, separate, where, _value_px(points, built.unit, built.references)
    )
    if kind.name == "line":
        groups = [] if built.x_numeric else _categories(points)
    columns = _status_columns(panel, series) if grid and (series or not panel.columns) else ()
    cell_lines = (
        [
            max(len(layout.status_lines(style.badge_text(points[i].state, points[i].tone), max(len(columns), 1),
                                        where, style.bold_tone(points[i].tone))) for i in g.points)
            for g in groups
        ]
        if grid
        else None
    )
    least = [kind.slot_px([points[i] for i in g.points]) for g in groups]
    slots, plot_height = layout.place_slots(
        groups, horizontal, kind.stacked and not panel.stacked, separate and kind.name != "line", where, cell_lines,
        _category_prefix(built), least,
    )
    mark_label = panel.mark_label or (f"{_field_name(panel.mark)} as reported" if panel.mark else "")
    legend = kind.legend(LegendInput(points, series, built.references, _series_prefix(built), mark_label))
    box = PanelBox(0, 0, (), (), 0, where.line_plot if kind.name == "line" else plot_height)
    return PanelPlan(
        title=panel.title,
        kind=kind.name,
        horizontal=horizontal,
        unit=built.unit,
        x_label=(panel.x_label or _field_name(panel.x)) if kind.name == "line" else "",
        x_numeric=built.x_numeric,
        points=points,
        slots=slots,
        series=series,
        columns=columns,
        separate_sources=separate,
        references=built.references,
        legend=legend,
        box=box,
        stacked=panel.stacked,
    )


def _value_px(points: tuple[Point, ...], unit: str, references: tuple[Reference, ...]) -> list[float]:
    """Width of each point's value label over a vertical bar ("not reported" for a null)."""
    labels = value_labels(points, unit, references)
    return [
        style.text_px(style.LEGEND_NOT_REPORTED if p.value is None else text, style.SIZE_VALUE)
        for p, text in zip(points, labels)
    ]


_BARE = re.compile(r"^[\u2212+\-]?[0-9][0-9,.]*$|^(true|false)$")


def _field_name(path: str) -> str:
    return path.rpartition(".")[2].replace("_", " ")


def _category_prefix(built: _Panel) -> str:
    """``draft tokens: `` when every category is a bare number or boolean, which says nothing alone."""
    panel = built.spec
    if panel.kind == "line" or panel.x == "label" or not built.points:
        return ""
    if all(_BARE.match(p.label) for p in built.points):
        return _field_name(panel.x) + ": "
    return ""


def _series_prefix(built: _Panel) -> str:
    """``thinking: `` when a series name is a bare number or boolean (``false`` beside ``adaptive``)."""
    panel = built.spec
    if panel.series is None or not any(_BARE.match(name) for name in built.series):
        return ""
    return _field_name(panel.series) + ": "


def _status_columns(panel: PanelSpec, series: tuple[str, ...]) -> tuple[str, ...]:
    """Column headers of a status grid: the series, or the y field when the panel has no title."""
    if series:
        return series
    return () if panel.title or panel.y == "value" else (_field_name(panel.y),)


def _groups(points: tuple[Point, ...], separate: bool, by_series: bool) -> list[layout.Group]:
    """Categories in export order; with series, entries of the same label share a category.

    When sources are kept apart, a change of source starts a new block and a
    category never spans two blocks; nothing is ever sorted.
    """
    groups: list[layout.Group] = []
    block = 0
    for index, point in enumerate(points):
        if separate and index and point.source != points[index - 1].source:
            block += 1
        target = next(
            (
                g
                for g in groups
                if by_series
                and g.label == point.label
                and g.block == block
                and all(points[i].series != point.series for i in g.points)
            ),
            None,
        )
        if target is None:
            groups.append(layout.Group(point.label, point.source if separate else "", block, (index,)))
        else:
            groups[groups.index(target)] = replace(target, points=target.points + (index,))
    return groups


def _categories(points: tuple[Point, ...]) -> list[layout.Group]:
    """The ordered x categories of a line panel, in order of first appearance."""
    order: dict[str, list[int]] = {}
    for index, point in enumerate(points):
        order.setdefault(point.label, []).append(index)
    return [layout.Group(label, "", 0, tuple(indices)) for label, indices in order.items()]


def _chart(
    spec: ChartSpec, panels: list[_Panel], positions: Positions, fence_line: int, where: layout.Canvas
) -> ChartPlan:
    plans = [_panel_plan(built, where) for built in panels]
    if any(p.kind == "bar" and p.horizontal for p in plans):
        # Bar panels of one chart share an orientation: horizontal when any needs it.
        plans = [
            _panel_plan(built, where, force_horizontal=True) if plan.kind == "bar" else plan
            for built, plan in zip(panels, plans)
        ]
    heading = layout.title_lines(spec.title, where)
    top = layout.panels_top(heading)
    placed: list[PanelPlan] = []
    for plan in plans:
        plan = _place(plan, top, where)
        placed.append(plan)
        top += plan.box.height + style.PANEL_GAP
    notes = tuple(dict.fromkeys(note for built in panels for note in built.notes))
    notes_text = layout.note_lines(notes, where)
    notes_top = layout.notes_top([p.box for p in placed], layout.panels_top(heading), bool(notes))
    plotted = tuple(dict.fromkeys(p.ident for plan in placed for p in plan.points))
    chart = ChartPlan(
        id=spec.id,
        kind=spec.kind,
        title=spec.title,
        alt=spec.alt,
        caption=spec.caption,
        line=fence_line,
        location=_id_location(positions, fence_line),
        panels=tuple(placed),
        notes=notes,
        rows=tuple(row for built in panels for row in built.rows),
        plotted=plotted,
        width=where.width,
        height=layout.figure_height(notes_top, notes_text),
        title_lines=heading,
        note_lines=notes_text,
        notes_top=notes_top,
        cache_key="",
    )
    return replace(chart, cache_key=cache_key(chart))


def _place(plan: PanelPlan, top: int, where: layout.Canvas) -> PanelPlan:
    kind = kind_of(plan.kind)
    above = kind.above(plan, where)
    below = kind.below(plan.horizontal, plan.slots)
    box = layout.panel_box(top, plan.title, plan.legend, plan.box.plot_height, above, below, where)
    return replace(plan, box=box)


def _id_location(positions: Positions, fence_line: int) -> Location:
    where = positions.of_key(("id",))
    return where if where.line else Location(positions.file, fence_line, 1)


_NOT_DRAWN = ("alt", "caption", "line", "location", "rows", "cache_key", "narrow")


def cache_key(plan: ChartPlan) -> str:
    """sha256 of everything the drawing depends on: the chart as planned from its
    spec and selected data, the renderer version and the matplotlib version."""
    drawn = {f.name: getattr(plan, f.name) for f in dataclasses.fields(plan) if f.name not in _NOT_DRAWN}
    payload = {"renderer": style.RENDERER_VERSION, "matplotlib": _matplotlib_version(), "chart": drawn}
    text = jsontext.dumps(payload, indent=None, default=_plain, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _plain(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: getattr(value, f.name) for f in dataclasses.fields(value)}
    raise TypeError(f"cannot hash {type(value).__name__}")


@functools.cache
def _matplotlib_version() -> str:
    """Read from the installed metadata: importing matplotlib here would cost a warm build ~0.5 s."""
    try:
        return importlib.metadata.version("matplotlib")
    except importlib.metadata.PackageNotFoundError:  # pragma: no cover - matplotlib is a dependency
        return "unknown"
