"""The charts stage: chart fences -> plans -> deterministic SVG.

``plan_chart`` parses and validates one chart fence against the page's
export and returns a :class:`ChartPlan` (pure; matplotlib is not imported).
``render_charts`` draws plans to SVG bytes, in parallel, through a
content-addressed cache; a warm cache never imports matplotlib.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..core.diagnostics import Location, Problem, error
from ..core.model import Document, Fence
from ..schemas.load import SchemaSet
from .drawing import iter_charts, render_charts
from .model import ChartPlan, ChartRow, LegendItem, PanelPlan, Point, Slot, Whisker
from .plan import build_plan
from .spec import parse_spec
from .style import RENDERER_VERSION
from .svg import inline as inline_svg
from .table import ChartTable, chart_table, label_cell

__all__ = [
    "RENDERER_VERSION",
    "ChartPlan",
    "ChartRow",
    "ChartTable",
    "LegendItem",
    "PanelPlan",
    "Point",
    "Slot",
    "Whisker",
    "chart_id_problems",
    "chart_table",
    "inline_svg",
    "iter_charts",
    "label_cell",
    "plan_chart",
    "render_charts",
]


def plan_chart(
    fence: Fence, export: Document | None, file: str, schemas: SchemaSet
) -> tuple[ChartPlan | None, list[Problem]]:
    """Parse + validate the chart fence (with the site's chart schema), select its values from
    ``export`` and apply every guard.

    Returns the plan (None when there is any error) and the problems found (warnings too).
    """
    spec, doc, problems = parse_spec(fence, file, schemas)
    if spec is None or doc is None:
        return None, problems
    return build_plan(spec, export.value if export is not None else None, doc.positions, fence.line,
                      schemas.comparability, schemas.units, schemas.condition_titles)


RESERVED_ID = "index"  # <id>.csv and <id>.json would be the page's own index.csv and index.json


def chart_id_problems(plans: Sequence[ChartPlan]) -> list[Problem]:
    """An error for each chart whose id repeats an earlier chart's id in the same page, or whose
    files would be the page's own (the id ``index``)."""
    first: dict[str, Location] = {}
    problems: list[Problem] = []
    for plan in plans:
        if plan.id == RESERVED_ID:
            problems.append(error(plan.location, f"chart id {plan.id!r} is taken by the page's own files",
                                  "chart-id", "id", "the chart's data would be written to the page's "
                                  "index.csv and index.json; choose another id"))
        elif plan.id in first:
            seen = first[plan.id]
            message = f"chart id {plan.id!r} is already used on line {seen.line}; ids are unique in a page"
            problems.append(error(plan.location, message, "chart-id", "id", f"the chart is written to {plan.id}.svg"))
        else:
            first[plan.id] = plan.location
    return problems
