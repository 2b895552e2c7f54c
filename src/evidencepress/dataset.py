"""The site's reported results as one table: rows, CSV and JSON (SPEC §7.3, §7.4).

One row per reported result of every page, in page order then export order.
Values are never converted: a number is written as its authored literal, a
condition keeps its JSON value, and ``null`` (not reported) stays ``null`` in
JSON and becomes an empty cell in CSV. URLs are site paths (``/guides/a/``),
so the bytes do not depend on where the site is deployed.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from . import jsontext

FIXED_COLUMNS = (
    "page",
    "source_record_id",
    "label",
    "metric",
    "value",
    "unit",
    "statistic",
    "uncertainty_kind",
    "uncertainty_value",
    "uncertainty_low",
    "uncertainty_high",
    "evidence_url",
)


@dataclass(frozen=True)
class ResultRow:
    """One reported result, flattened: every cell holds the JSON value as authored."""

    page: str  # site path of the page that reports it
    cells: tuple[tuple[str, Any], ...]  # (column, JSON value), in column order

    def get(self, column: str) -> Any:
        return dict(self.cells).get(column)


@dataclass(frozen=True)
class ResultTable:
    columns: tuple[str, ...]
    rows: tuple[ResultRow, ...]


def result_table(pages: Iterable[tuple[str, Mapping[str, Any] | None]], conditions: Sequence[str]) -> ResultTable:
    """The table of every reported result of ``pages`` ((site path, export) pairs)."""
    columns = FIXED_COLUMNS + tuple(f"conditions.{key}" for key in conditions)
    rows = tuple(row for path, export in pages for row in page_rows(path, export, conditions))
    return ResultTable(columns, rows)


def page_rows(path: str, export: Mapping[str, Any] | None, conditions: Sequence[str]) -> tuple[ResultRow, ...]:
    results = export.get("reported_results") if export else None
    if not isinstance(results, list):
        return ()
    return tuple(_row(path, result, conditions) for result in results if isinstance(result, dict))


def _row(path: str, result: Mapping[str, Any], conditions: Sequence[str]) -> ResultRow:
    kind, value, low, high = uncertainty_cells(result.get("uncertainty"))
    found = result.get("conditions")
    own = found if isinstance(found, dict) else {}
    cells: list[tuple[str, Any]] = [
        ("page", path),
        ("source_record_id", result.get("source_record_id")),
        ("label", result.get("label")),
        ("metric", result.get("metric")),
        ("value", result.get("value")),
        ("unit", result.get("unit")),
        ("statistic", result.get("statistic")),
        ("uncertainty_kind", kind),
        ("uncertainty_value", value),
        ("uncertainty_low", low),
        ("uncertainty_high", high),
        ("evidence_url", result.get("evidence_url")),
    ]
    cells += [(f"conditions.{key}", own.get(key)) for key in conditions]
    return ResultRow(path, tuple(cells))


def uncertainty_cells(uncertainty: Any) -> tuple[str | None, Any, Any, Any]:
    """(kind, single value, low, high) of an uncertainty of SPEC §4.1; all None for null."""
    if not isinstance(uncertainty, dict):
        return None, None, None, None
    if "standard_deviation" in uncertainty:
        return "standard_deviation", uncertainty["standard_deviation"], None, None
    if "observed_min" in uncertainty or "observed_max" in uncertainty:
        return "observed_range", None, uncertainty.get("observed_min"), uncertainty.get("observed_max")
    ci = uncertainty.get("ci95")
    if isinstance(ci, list) and len(ci) == 2:
        return "ci95", None, ci[0], ci[1]
    if "spread_ratio" in uncertainty:
        return "spread_ratio", uncertainty["spread_ratio"], None, None
    if uncertainty.get("approximate") is True:
        return "approximate", None, None, None
    return None, None, None, None


def csv_bytes(table: ResultTable) -> bytes:
    """RFC 4180 CSV (CRLF line ends, quotes where needed), UTF-8; null is an empty cell."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\r\n", quoting=csv.QUOTE_MINIMAL)
    writer.writerow(table.columns)
    for row in table.rows:
        writer.writerow(csv_cell(value) for _, value in row.cells)
    return buffer.getvalue().encode("utf-8")


def csv_cell(value: Any) -> str:
    """A JSON value as one CSV cell: text as it is, numbers as authored, lists/objects as JSON."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, (bool, int, float)):
        return jsontext.number_text(value)
    return jsontext.dumps(value, indent=None)


def json_rows(table: ResultTable) -> list[dict[str, Any]]:
    """The rows as JSON objects (column -> value as authored, null kept)."""
    return [dict(row.cells) for row in table.rows]
