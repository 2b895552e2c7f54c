"""The site's reported results as one table: rows, CSV and JSON (SPEC §7.3, §7.4).

One row per reported result of every page, in page order then export order.
Values are never converted: a number is written as its authored literal, a
condition keeps its JSON value, and ``null`` (not reported) stays ``null`` in
JSON and becomes an empty cell in CSV. URLs are site paths (``/guides/a/``),
so the bytes do not depend on where the site is deployed.
"""

from __future__ import annotations

import csv
import functools
import io
import itertools
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..core import jsontext
from ..core.export import RECORD_ID, ReportedResult, reported_results

CHUNK_ROWS = 2000  # rows per chunk of a data file written piece by piece

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
    columns: tuple[str, ...]  # the table's columns (one tuple shared by every row)
    values: tuple[Any, ...]  # in column order

    @property
    def cells(self) -> tuple[tuple[str, Any], ...]:
        """(column, JSON value) pairs, in column order."""
        return tuple(zip(self.columns, self.values, strict=True))

    def get(self, column: str) -> Any:
        return self.values[self.columns.index(column)] if column in self.columns else None

    @property
    def texts(self) -> list[str | None]:
        """Each value as the text of a CSV cell, None for null (not kept: a site of thousands of
        results would hold every cell twice)."""
        return [None if value is None else csv_cell(value) for value in self.values]

    @property
    def csv_cells(self) -> list[str]:
        """Each value as the text of a CSV cell, "" for null."""
        return list(map(csv_cell, self.values))


@dataclass(frozen=True)
class ResultTable:
    columns: tuple[str, ...]
    rows: tuple[ResultRow, ...]  # page after page, each page's in export order
    # Each page's rows as CSV lines (no header), by site path, as the validating worker wrote them
    # (PageFacts.csv): the article's index.csv and the site's results.csv are made of them.
    page_csv: Mapping[str, bytes] = field(default_factory=dict)

    def rows_of(self, page: str) -> tuple[ResultRow, ...]:
        return self._by_page.get(page, ())

    def only(self, pages: set[str]) -> ResultTable:
        """The rows of ``pages``, in the same order."""
        return ResultTable(self.columns, tuple(row for row in self.rows if row.page in pages),
                           {page: text for page, text in self.page_csv.items() if page in pages})

    def csv_lines_of(self, page: str) -> bytes:
        """The page's rows as CSV lines, without the header."""
        found = self.page_csv.get(page)
        return found if found is not None else csv_lines(self.rows_of(page))

    @functools.cached_property
    def _by_page(self) -> dict[str, tuple[ResultRow, ...]]:
        grouped: dict[str, list[ResultRow]] = {}
        for row in self.rows:
            grouped.setdefault(row.page, []).append(row)
        return {page: tuple(rows) for page, rows in grouped.items()}


def table_columns(conditions: Sequence[str]) -> tuple[str, ...]:
    return FIXED_COLUMNS + tuple(f"conditions.{key}" for key in conditions)


def result_table(pages: Iterable[tuple[str, Mapping[str, Any] | None]], conditions: Sequence[str]) -> ResultTable:
    """The table of every reported result of ``pages`` ((site path, export) pairs)."""
    return table_of(((path, row_values(path, export, conditions)) for path, export in pages), conditions)


def table_of(pages: Iterable[tuple[str, tuple[tuple[Any, ...], ...]]], conditions: Sequence[str],
             page_csv: Mapping[str, bytes] | None = None) -> ResultTable:
    """The table of pages' rows as ``row_values`` gives them ((site path, rows) pairs);
    ``page_csv``: their CSV lines by site path, when they were written already."""
    columns = table_columns(conditions)
    rows = tuple(ResultRow(path, columns, values) for path, rows in pages for values in rows)
    return ResultTable(columns, rows, page_csv or {})


def row_values(path: str, export: Mapping[str, Any] | None, conditions: Sequence[str]) -> tuple[tuple[Any, ...], ...]:
    """The values of each row of a page's reported results, in the table's columns."""
    return tuple(_values(path, result, conditions) for result in reported_results(export))


def _values(path: str, result: ReportedResult, conditions: Sequence[str]) -> tuple[Any, ...]:
    """The row's cells: each field as authored (None where the result has none)."""
    kind, value, low, high = uncertainty_cells(result.uncertainty)
    fields = result.data.get
    own = result.conditions
    return (
        path,
        fields(RECORD_ID),
        fields("label"),
        fields("metric"),
        result.value,
        fields("unit"),
        fields("statistic"),
        kind,
        value,
        low,
        high,
        fields("evidence_url"),
        *map(own.get, conditions),
    )


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


def csv_bytes(table: ResultTable, rows: Iterable[ResultRow] | None = None) -> bytes:
    """RFC 4180 CSV (CRLF line ends, quotes where needed), UTF-8; null is an empty cell.
    ``rows`` (default: every row of the table) picks some, e.g. one article's."""
    return b"".join(csv_chunks(table, rows))


def csv_chunks(table: ResultTable, rows: Iterable[ResultRow] | None = None) -> Iterator[bytes]:
    """``csv_bytes`` a page (or a few thousand rows) at a time (a site's CSV need not be held
    whole). The whole table is its pages' CSV lines one after the other, as they were written."""
    yield csv_header(table.columns)
    if rows is None and table.page_csv:
        for page, run in itertools.groupby(table.rows, key=lambda row: row.page):
            found = table.page_csv.get(page)
            yield found if found is not None else csv_lines(run)
        return
    for batch in batches(table.rows if rows is None else rows):
        yield csv_lines(batch)


def page_csv(table: ResultTable, page: str) -> bytes:
    """The page's rows of the table as a CSV file (a header only when it has none)."""
    return csv_header(table.columns) + table.csv_lines_of(page)


def csv_lines(rows: Iterable[ResultRow]) -> bytes:
    """CSV lines of ``rows``, without the header."""
    return b"".join(_csv_lines([row.csv_cells for row in batch]).encode("utf-8") for batch in batches(rows))


@functools.lru_cache(maxsize=4)
def csv_header(columns: tuple[str, ...]) -> bytes:
    """The header line of a table with these columns (one per article CSV: made once)."""
    return _csv_lines([list(columns)]).encode("utf-8")


def batches(rows: Iterable[ResultRow]) -> Iterator[list[ResultRow]]:
    """``rows`` in lists of CHUNK_ROWS (itertools.batched is Python 3.12)."""
    rest = iter(rows)
    while batch := list(itertools.islice(rest, CHUNK_ROWS)):
        yield batch


def _csv_lines(rows: list[list[str]]) -> str:
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\r\n", quoting=csv.QUOTE_MINIMAL).writerows(rows)
    return buffer.getvalue()


def csv_cell(value: Any) -> str:
    """A JSON value as one CSV cell: text as it is, numbers as authored, lists/objects as JSON.
    The commonest kinds are told by their exact type first (a site's table has hundreds of
    thousands of cells)."""
    kind = type(value)
    if kind is str:
        return value  # type: ignore[no-any-return]
    if value is None:
        return ""
    if kind is int:
        return int.__repr__(value)
    if isinstance(value, str):
        return value
    if isinstance(value, (bool, int, float)):
        return jsontext.number_text(value)
    return jsontext.dumps(value, indent=None)


def json_rows(table: ResultTable, rows: Iterable[ResultRow] | None = None) -> list[dict[str, Any]]:
    """The rows (default: every row of the table) as JSON objects (column -> value as authored,
    null kept)."""
    return [dict(zip(table.columns, row.values, strict=True)) for row in (table.rows if rows is None else rows)]
