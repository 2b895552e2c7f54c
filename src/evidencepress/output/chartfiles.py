"""Each chart's downloads beside its page: ``<id>.csv`` and ``<id>.json``, and the figure's links.

``<id>.csv`` holds the plotted values as the chart's data table lists them (one
row per value, in the table's order): its label, the value's authored literal,
unit, statistic and uncertainty, then the id and evidence URL of the export
entry that holds the value, and where it stands. ``<id>.json`` describes the
chart (title, alt text, caption, units, statistics, what its whiskers mean,
the conditions every plotted value shares, the sources they cite with revision
and SHA-256) and lists the same values, with each value's verification state
when the page has states. A value that is not reported is an empty cell in the
CSV and ``null`` in the JSON, as in the site's other CSV and JSON files (the
page's table writes "not reported").
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..charts import ChartPlan, ChartRow, label_cell
from ..charts.fieldpath import resolve_pointer, split_pointer
from ..checks.page import Page
from ..checks.sources import ResultState
from ..core import jsontext
from ..core.export import ReportedResult, result_id
from ..core.model import pointer as to_pointer
from ..core.urls import absolute
from ..site.dataset import csv_cell, csv_text
from ..site.records import split_conditions
from .verification import of_entry

NOT_REPORTED = "not reported"
CSV_COLUMNS = ("label", "value", "unit", "statistic", "uncertainty", "result_id", "evidence_url",
               "series", "panel", "state", "source_record_id", "pointer", "verification")
_PROVENANCE = ("evidence_url", "url", "source_document_sha256", "source_record_id")  # keys of a cited entry


@dataclass(frozen=True)
class Download:
    """One link of a figure's download row."""

    format: str  # SVG, CSV, JSON: the link's text
    href: str  # the file, relative to the page
    label: str  # the link's accessible name
    download: bool = False  # saved rather than opened


@dataclass(frozen=True)
class PlottedValue:
    """One row of a chart's table with the export entry that holds its value."""

    row: ChartRow
    entry: Mapping[str, Any] = field(default_factory=dict)  # {} when the value stands in no object
    state: ResultState | None = None  # the entry's verification state

    @property
    def result_id(self) -> str | None:
        return result_id(self.entry)

    @property
    def evidence_url(self) -> str | None:
        found = self.entry.get("evidence_url", self.entry.get("url"))
        return found if isinstance(found, str) else None


def downloads(chart: ChartPlan) -> tuple[Download, ...]:
    csv, json = chart.data_files()
    return (Download("SVG", f"{chart.id}.svg", f"Download the chart “{chart.title}” as SVG"),
            Download("CSV", csv, f"Download the values of “{chart.title}” as CSV", download=True),
            Download("JSON", json, f"Download the values and description of “{chart.title}” as JSON"))


def chart_files(page: Page, states: Sequence[ResultState], base_url: str, core: Sequence[str]) -> dict[str, bytes]:
    """``<id>.csv`` and ``<id>.json`` of each chart of the page, by file name (``states``: the
    page's verification states; ``core``: the core condition keys, listed first)."""
    by_pointer = {state.pointer: state for state in states}
    files: dict[str, bytes] = {}
    for chart in page.charts:
        values = plotted_values(chart, page.export, by_pointer)
        csv, json = chart.data_files()
        files[csv] = chart_csv(values)
        files[json] = chart_json(chart, values, page, base_url, core, verified=bool(states))
    return files


def plotted_values(chart: ChartPlan, export: Any, states: Mapping[str, ResultState]) -> tuple[PlottedValue, ...]:
    return tuple(PlottedValue(row, entry_at(export, row.pointer), of_entry(row.pointer, states)) for row in chart.rows)


def entry_at(export: Any, pointer: str) -> Mapping[str, Any]:
    """The export entry that holds the value at ``pointer``: the nearest object at or above it that
    cites a source (a chart may plot /reported_results/3/value), else the nearest object."""
    segments = split_pointer(pointer)
    nearest: Mapping[str, Any] | None = None
    for depth in range(len(segments), 0, -1):
        found = resolve_pointer(export, to_pointer(tuple(segments[:depth])))
        if isinstance(found, dict):
            if any(key in found for key in _PROVENANCE):
                return found
            nearest = found if nearest is None else nearest
    return nearest if nearest is not None else {}


def chart_csv(values: Iterable[PlottedValue]) -> bytes:
    """The header and one row per plotted value, every cell as text (numbers as authored)."""
    rows = [list(CSV_COLUMNS)]
    rows += [[csv_cell(cell) for cell in _cells(value)] for value in values]
    return csv_text(rows)


def _cells(value: PlottedValue) -> tuple[Any, ...]:
    """The value's cells in CSV_COLUMNS order: authored values, "" for none."""
    row = value.row
    # a null uncertainty, which the page's table reads "not reported", is null here like every null
    uncertainty = None if row.uncertainty == NOT_REPORTED else row.uncertainty
    return (label_cell(row), row.value, row.unit, row.statistic, uncertainty, value.result_id or "",
            value.evidence_url or "", row.series, row.panel, row.state, row.source_record_id, row.pointer,
            value.state.state if value.state is not None else "")


def chart_json(chart: ChartPlan, values: Sequence[PlottedValue], page: Page, base_url: str, core: Sequence[str],
               verified: bool) -> bytes:
    """The chart described, its files and its values (``verified``: each with its state)."""
    entries = list({id(value.entry): value.entry for value in values if value.entry}.values())
    shared, _ = split_conditions([ReportedResult(entry) for entry in entries], core)
    cited = {entry.get("source_document_sha256") for entry in entries}
    svg, (csv, _) = f"{chart.id}.svg", chart.data_files()
    document = {
        "id": chart.id,
        "kind": chart.kind,
        "title": chart.title,
        "alt": chart.alt,
        "caption": chart.caption or None,
        "page_url": absolute(base_url, page.url),
        "svg_url": absolute(base_url, page.url + svg),
        "csv_url": absolute(base_url, page.url + csv),
        "units": _distinct(value.row.unit for value in values),
        "statistics": _distinct(value.row.statistic for value in values),
        "uncertainty_basis": _distinct(point.whisker.legend for panel in chart.panels for point in panel.points
                                       if point.whisker is not None),
        "conditions": dict(shared),
        "sources": [{"publisher": s.publisher, "url": s.url, "revision": s.revision, "sha256": s.sha256,
                     "pinned": s.pinned} for s in page.front.sources if s.sha256 in cited],
        "notes": list(chart.notes),
        "values": [_value_json(value, verified) for value in values],
    }
    return (jsontext.dumps(document) + "\n").encode("utf-8")


def _value_json(value: PlottedValue, verified: bool) -> dict[str, Any]:
    """CSV_COLUMNS as JSON: the value as authored (null: not reported), "" as null; the state in full."""
    cells = dict(zip(CSV_COLUMNS[:-1], _cells(value)[:-1], strict=True))
    found: dict[str, Any] = {key: (None if cell == "" else cell) for key, cell in cells.items()}
    found["value"] = value.row.value
    if verified:
        state = value.state
        found["verification"] = None if state is None else {
            "state": state.state, "line": state.line, "excerpt": state.excerpt, "found_line": state.found}
    return found


def _distinct(texts: Iterable[str]) -> list[str]:
    """The non-empty texts, each once, in order."""
    return [text for text in dict.fromkeys(texts) if text]
