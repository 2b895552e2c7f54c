"""Like with like: the key conditions on which a panel's reported results differ (comparability.json).

A panel compares its entries; those that are reported results must agree on
every key condition of their metrics, except the panel's own ``x`` and
``series`` fields, which vary on purpose. Each key they do not all know and
agree on is a ``Difference``; the panel names them in a note under it (in
the SVG, the data table and the SVG's description) and ``--strict`` refuses
the chart.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..core.diagnostics import Problem, Severity
from ..core.export import RESULTS
from ..core.words import key_name
from ..schemas.comparability import Difference, Rules, differences
from .entry import Context
from .kinds import kind_of
from .model import PanelSpec, Point
from .select import Selected

RULE = "chart-comparability"
CONDITIONS = "conditions."
RESULT_POINTER = f"/{RESULTS}/"


def panel_differences(panel: PanelSpec, items: Sequence[Selected], points: Sequence[Point], export: Any,
                      rules: Rules) -> tuple[Difference, ...]:
    """The key conditions the panel's reported results do not all know and agree on (a value
    selected by pointer inside a result, /reported_results/5/conditions/correct, is that result's)."""
    if kind_of(panel.kind).values == "state" or panel.columns:
        return ()  # a status grid shows what happened to each item; it compares no values
    results = export.get(RESULTS) if isinstance(export, Mapping) else None
    entries: dict[int, tuple[str, Mapping[str, Any]]] = {}
    for item, point in zip(items, points, strict=True):
        index = _result_index(item.pointer)
        if index is not None and isinstance(results, list) and index < len(results) \
                and isinstance(results[index], Mapping):
            entries.setdefault(index, (_shown(point), results[index]))
    varying = {field.removeprefix(CONDITIONS) for field in (panel.x, panel.series)
               if field and field.startswith(CONDITIONS)}
    metrics = dict.fromkeys(m if isinstance(m := result.get("metric"), str) else None for _, result in entries.values())
    keys = dict.fromkeys(key for metric in metrics for key in rules.keys_of(metric) if key not in varying)
    return differences(list(entries.values()), keys)


def _result_index(pointer: str) -> int | None:
    """N of a pointer at or inside /reported_results/N."""
    head = pointer[len(RESULT_POINTER):].split("/", 1)[0] if pointer.startswith(RESULT_POINTER) else ""
    return int(head) if head.isascii() and head.isdigit() else None  # "²" is a digit to isdigit, not to int


def _shown(point: Point) -> str:
    return f"{point.label} \u2014 {point.series}" if point.series else point.label


NOT_LIKE = "Not like with like"


def differences_text(found: Sequence[Difference], labels: bool, titles: Mapping[str, str]) -> str:
    """Each differing condition by name and its values (``labels``: with the entries that have each):
    ``KV cache data type: fp8 / not reported``. ``titles``: the schema's name of each key that has one."""
    return " \u00b7 ".join(key_name(d.key, titles) + d.text(labels).removeprefix(d.key) for d in found)


def panel_name(panel: PanelSpec) -> str:
    """How a note names a panel: its title in quotes, else its number."""
    return f"\u201c{panel.title}\u201d" if panel.title else f"panel {panel.index + 1}"


def chart_notes(panels: Sequence[tuple[str, str]], every: int) -> tuple[str, ...]:
    """The notes under a chart of ``every`` panels, from each unlike panel's (``panel_name``,
    differences without labels): panels that differ alike share one note."""
    by_text: dict[str, list[str]] = {}
    for title, text in panels:
        by_text.setdefault(text, []).append(title)
    notes = []
    for text, titles in by_text.items():
        if every == 1:
            where = ""
        elif len(titles) == every:
            where = " in every panel"
        else:
            where = " in " + ", ".join(titles)
        notes.append(f"{NOT_LIKE}{where} \u2014 {text}")
    return tuple(notes)


def differences_problem(ctx: Context, found: Sequence[Difference]) -> Problem:
    """A note (an error with --strict: ``diagnostics.strict``) at the panel."""
    keys = ", ".join(d.key for d in found)
    problem = ctx.problem("select", f"the panel compares results that differ on or do not report {keys}", RULE,
                          "the note under the panel names each difference; to compare like with like, select "
                          "results that agree, or put the condition on x or series")
    return Problem(Severity.NOTE, problem.location, problem.message, RULE, problem.json_path, problem.hint)
