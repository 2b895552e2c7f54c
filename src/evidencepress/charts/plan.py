"""Spec + export -> ChartPlan: each panel built (``panel.py``), then laid out for the wide and
the narrow canvas: categories, legend, layout, cache key."""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import importlib.metadata
import re
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from ..core import jsontext
from ..core.diagnostics import Location, Problem, has_errors
from ..core.model import Positions
from ..schemas.comparability import NO_RULES, Rules
from ..schemas.units import Units
from . import layout, style
from .comparison import NOT_LIKE, chart_notes, differences_text, panel_name
from .kinds import LegendInput, SlotInput, kind_of
from .model import ChartPlan, ChartSpec, Names, PanelBox, PanelPlan, PanelSpec, Point, Reference
from .panel import BuiltPanel, build_panel
from .units import value_labels


def build_plan(
    spec: ChartSpec, export: Any, positions: Positions, fence_line: int, rules: Rules = NO_RULES,
    units: Units | None = None, titles: Names = (),
) -> tuple[ChartPlan | None, list[Problem]]:
    """The wide plan, with its narrow (phone) variant as ``.narrow``; ``titles``: the name of each
    condition key the schema titles, for the notes of unlike panels."""
    panels: list[BuiltPanel] = []
    problems: list[Problem] = []
    for panel in spec.panels:
        built, found = build_panel(panel, export, positions, rules, units)
        problems += found
        if built is not None:
            panels.append(built)
    if has_errors(problems):
        return None, problems
    wide = _chart(spec, panels, positions, fence_line, layout.WIDE, dict(titles))
    narrow = _chart(spec, panels, positions, fence_line, layout.NARROW, dict(titles))
    return replace(wide, narrow=narrow), problems


def _panel_plan(built: BuiltPanel, where: layout.Canvas, force_horizontal: bool = False) -> PanelPlan:
    panel, points, series, separate = built.spec, built.points, built.series, built.separate
    kind = kind_of(panel.kind)
    grid = not kind.stacked
    if grid and len(series) > 1 and not layout.grid_fits(points, len(series), where):
        # Too many columns for this width (a phone): one row per item and column instead.
        points = tuple(replace(p, label=f"{p.label} \u2014 {p.series}", series="") for p in points)
        series = ()
    blocks = separate and not kind.x_axis  # sources kept apart start blocks of slots (on an x axis: series)
    groups = ([] if built.x_numeric else _categories(points)) if kind.x_axis else _groups(points, blocks, bool(series))
    # Stacked parts lie end to end along a horizontal value axis (spec.py refuses ``stacked`` where not read).
    horizontal = force_horizontal or panel.stacked or kind.horizontal(
        groups, separate, where, _value_px(points, built.unit, built.references, panel.digits)
    )
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
    least = [kind.slot_px(SlotInput(tuple(points[i] for i in g.points), points, built.references, panel.digits, where))
             for g in groups]
    slots, plot_height = layout.place_slots(
        groups, horizontal, kind.stacked and not panel.stacked, blocks, where, cell_lines,
        _category_prefix(built), least,
    )
    mark_label = panel.mark_label or (f"{_field_name(panel.mark)} as reported" if panel.mark else "")
    legend = kind.legend(LegendInput(points, series, built.references, _series_prefix(built), mark_label))
    box = PanelBox(0, 0, (), (), 0, where.line_plot if kind.x_axis else plot_height)
    return PanelPlan(
        title=panel.title,
        kind=kind.name,
        horizontal=horizontal,
        unit=built.unit,
        x_label=(panel.x_label or _field_name(panel.x)) if kind.x_axis else "",
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
        digits=panel.digits,
    )


def _value_px(points: tuple[Point, ...], unit: str, references: tuple[Reference, ...],
              digits: int | None = None) -> list[float]:
    """Width of each point's value label over a vertical bar ("not reported" for a null)."""
    labels = value_labels(points, unit, references, digits)
    return [
        style.text_px(style.LEGEND_NOT_REPORTED if p.value is None else text, style.SIZE_VALUE)
        for p, text in zip(points, labels, strict=False)
    ]


_BARE = re.compile(r"^[\u2212+\-]?[0-9][0-9,.]*$|^(true|false)$")


def _field_name(path: str) -> str:
    return path.rpartition(".")[2].replace("_", " ")


def _category_prefix(built: BuiltPanel) -> str:
    """``draft tokens: `` when every category is a bare number or boolean, which says nothing alone
    (x on an axis has its axis title instead)."""
    panel = built.spec
    if kind_of(panel.kind).x_axis or panel.x == "label" or not built.points:
        return ""
    if all(_BARE.match(p.label) for p in built.points):
        return _field_name(panel.x) + ": "
    return ""


def _series_prefix(built: BuiltPanel) -> str:
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
    """Categories in the order of the points (export order, numbers ascending: panel._by_value); with
    series, entries of the same label share a category.

    When sources are kept apart, a change of source starts a new block and a
    category never spans two blocks; nothing is sorted here.
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
    spec: ChartSpec, panels: list[BuiltPanel], positions: Positions, fence_line: int, where: layout.Canvas,
    titles: Mapping[str, str],
) -> ChartPlan:
    plans = _oriented([_panel_plan(built, where) for built in panels], panels, where)
    heading = layout.title_lines(spec.title, where)
    top = layout.panels_top(heading)
    placed: list[PanelPlan] = []
    for plan in plans:
        plan = _place(plan, top, where)
        placed.append(plan)
        top += plan.box.height + style.PANEL_GAP
    unlike = chart_notes([(panel_name(b.spec), differences_text(b.differences, False, titles))
                          for b in panels if b.differences], len(panels))
    notes = tuple(dict.fromkeys(note for built in panels for note in built.notes)) + unlike
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
        unlike=unlike,
        differences=tuple((b.spec.title, f"{NOT_LIKE} \u2014 {differences_text(b.differences, True, titles)}")
                          for b in panels if b.differences),
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


def with_text(plan: ChartPlan, alt: str, caption: str) -> ChartPlan:
    """The plan (and its narrow variant) with another alt text and caption — inline values resolved —
    and its drawing's key again (the alt text is the SVG's description)."""
    narrow = with_text(plan.narrow, alt, caption) if plan.narrow is not None else None
    changed = replace(plan, alt=alt, caption=caption, narrow=narrow)
    return replace(changed, cache_key=cache_key(changed))


def _oriented(plans: list[PanelPlan], panels: list[BuiltPanel], where: layout.Canvas) -> list[PanelPlan]:
    """Panels of a kind that shares its orientation (bars) turn horizontal together when any one must."""
    sharing = [kind_of(plan.kind).shares_orientation for plan in plans]
    if not any(share and plan.horizontal for share, plan in zip(sharing, plans, strict=True)):
        return plans
    return [
        _panel_plan(built, where, force_horizontal=True) if share else plan
        for built, plan, share in zip(panels, plans, sharing, strict=False)
    ]


def _place(plan: PanelPlan, top: int, where: layout.Canvas) -> PanelPlan:
    kind = kind_of(plan.kind)
    above = kind.above(plan, where)
    below = kind.below(plan.horizontal, plan.slots)
    box = layout.panel_box(top, plan.title, plan.legend, plan.box.plot_height, above, below, where)
    return replace(plan, box=box)


def _id_location(positions: Positions, fence_line: int) -> Location:
    where = positions.of_key(("id",))
    return where if where.line else Location(positions.file, fence_line, 1)


_NOT_DRAWN = ("caption", "line", "location", "rows", "cache_key", "narrow")


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
