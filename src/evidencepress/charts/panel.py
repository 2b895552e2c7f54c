"""A panel's values, selected and checked: spec + export -> BuiltPanel (before any layout).

Selection, extraction (a status grid gives one point per entry and column),
the error guards (units, states, limits, line x, series) and the warnings of
``checks``. Layout, which depends on the canvas, is ``plan.py``'s.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from ..core.diagnostics import Location, Problem
from ..core.model import Positions
from ..schemas.comparability import NO_RULES, Difference, Rules
from ..schemas.units import Units
from . import checks, guards, limits, style
from .comparison import differences_problem, panel_differences
from .entry import Context, Extracted
from .fieldpath import Missing, resolve_pointer
from .kinds import kind_of
from .model import ChartRow, PanelSpec, Point, Reference
from .select import Selected, select_entries
from .states import unmapped_problem
from .uncertainty import is_number
from .units import rounded_label
from .values import extract


@dataclass(frozen=True)
class BuiltPanel:
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
    differences: tuple[Difference, ...] = ()  # the key conditions its results do not all know and share


def build_panel(panel: PanelSpec, export: Any, positions: Positions, rules: Rules = NO_RULES,
                units: Units | None = None) -> tuple[BuiltPanel | None, list[Problem]]:
    """A panel's values, or the errors that stop it; warnings ride along with the values.
    ``rules``: which results may be compared (a panel that compares others says how they differ);
    ``units``: the unit vocabulary (None: the package's)."""
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
    items, extracted = _by_value(panel, items, extracted)
    kind = kind_of(panel.kind)
    unmapped = [e.point.state for e in extracted if kind.values == "state" and not e.point.tone]
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
    unit, problems = guards.panel_unit(panel, extracted, positions, units)
    x_numeric = False
    if kind.x_axis:
        x_numeric, found = guards.line_x(panel, extracted, [e.x for e in extracted], positions)
        problems += found
    separate = guards.separate_sources(points, export)
    by_source = separate and kind.x_axis  # an x axis has no blocks: sources kept apart are series
    if by_source and panel.series is None:
        points = [replace(p, series=p.source) for p in points]
    series = (
        tuple(dict.fromkeys(p.series for p in points if p.series))
        if panel.series or panel.columns or any(i.series for i in items) or by_source
        else ()
    )
    problems += guards.series_count(panel, series, positions)
    if problems:
        return None, problems
    warnings = _warnings(panel, items, points, references, positions)
    warnings += checks.title_unit(panel, unit, positions, units) if kind.value_axis else []
    rows = tuple(row for e in extracted for row in e.rows)
    notes = tuple(note for e in extracted for note in e.notes) + ((style.SEPARATE_SOURCES,) if separate else ())
    notes += _rounded_note(panel, points) + _unlabelled_note(panel, points)
    differ = panel_differences(panel, items, points, export, rules)
    if differ:
        warnings.append(differences_problem(ctx, differ))
    return (BuiltPanel(panel, tuple(points), unit, x_numeric, series, separate, rows, notes, references, differ),
            warnings)


def _rounded_note(panel: PanelSpec, points: list[Point]) -> tuple[str, ...]:
    """Value labels that ``digits:`` rounded say so under the chart."""
    labelled = kind_of(panel.kind).labelled
    if panel.digits is None or not any(rounded_label(number, panel.digits).startswith("\u2248")
                                       for point in points for number in labelled(point).numbers()):
        return ()
    places = "1 decimal place" if panel.digits == 1 else f"{panel.digits} decimal places"
    return (f"\u2248 rounded for display to {places}; the table lists each value as reported",)


def _unlabelled_note(panel: PanelSpec, points: list[Point]) -> tuple[str, ...]:
    """A panel that labels a summary of its observations, and not each one, says so under the chart."""
    labelled = kind_of(panel.kind).labelled
    if not any(set(point.observations) - set(labelled(point).numbers()) for point in points):
        return ()
    return (style.UNLABELLED_OBSERVATIONS,)


def _by_value(panel: PanelSpec, items: list[Selected], extracted: list[Extracted]
              ) -> tuple[list[Selected], list[Extracted]]:
    """Categories that are numbers (input tokens 61 / 26,253 / 104,805) in ascending order, not the
    export's (which read as a false dip), unless the selection orders them (labels, ids, pointers); a
    numeric x axis places them anyway, and sources kept apart stay in blocks, each ordered."""
    select = panel.select
    if kind_of(panel.kind).x_axis or panel.x == "label" or select.labels or select.ids or select.pointers:
        return items, extracted
    if not extracted or not all(isinstance(e.x, (int, float)) and not isinstance(e.x, bool) for e in extracted):
        return items, extracted
    sources = {source: number for number, source in enumerate(dict.fromkeys(e.point.source for e in extracted))}
    order = sorted(range(len(extracted)), key=lambda i: (sources[extracted[i].point.source], extracted[i].x))
    return [items[i] for i in order], [extracted[i] for i in order]


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
    limit = [checks.is_limit(item, p.label) for item, p in zip(items, points, strict=False)]
    # A limit drawn as a bar is warned of once, as such, not also as a different quantity.
    mixed = [] if kind_of(panel.kind).compares_by_length and any(limit) and not all(limit) else kinds
    return (
        checks.single_value(panel, points, bool(references), positions)
        + checks.mixed_kinds(panel, points, mixed, denominators, positions)
        + checks.limit_as_bar(panel, points, limit, positions)
        + checks.overlapping(panel, points, positions)
        + list(checks.id_labels(panel, items, points, positions))
        + checks.unlabelled(panel, points, positions)
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
