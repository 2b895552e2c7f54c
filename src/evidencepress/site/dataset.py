"""The site's reported results as one table: rows, CSV and JSON (SPEC §7.3, §7.4).

One row per reported result of every page, in page order then export order.
Values are never converted: a number is written as its authored literal, a
condition keeps its JSON value, and ``null`` (not reported) stays ``null`` in
JSON and becomes an empty cell in CSV. A core condition a result does not carry
at all (not considered, SPEC §4.2) is ``NOT_CONSIDERED`` in a row, the cell
``not considered`` in CSV and a key left out of its JSON row. URLs are site paths (``/guides/a/``),
so the bytes do not depend on where the site is deployed. ``comparison_key`` is a hash of the result's metric and the conditions
``schema/comparability.json`` names for it, empty when any of them is unknown.
The last column, ``verification``, is the result's state against its cited document (SPEC §11):
it depends on the vault, not on the page, so the rows a worker makes of a page
(cached with it) leave it empty and ``with_states`` fills it in.
"""

from __future__ import annotations

import csv
import enum
import functools
import hashlib
import itertools
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..core import jsontext
from ..core.export import RECORD_ID, ReportedResult, reported_results, result_id
from ..schemas.comparability import Rules, comparison_key
from ..schemas.load import SchemaSet

CHUNK_ROWS = 2000  # rows per chunk of a data file written piece by piece

FIXED_COLUMNS = (
    "page",
    "source_record_id",
    "result_id",
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
    "comparison_key",
)
VERIFICATION = "verification"
NOT_CONSIDERED_CELL = "not considered"  # a CSV's cell for a condition a result does not carry; "" is null


class Absent(enum.Enum):
    """A condition key the result does not carry: not considered, unlike null (not reported)."""

    NOT_CONSIDERED = NOT_CONSIDERED_CELL


NOT_CONSIDERED = Absent.NOT_CONSIDERED


@dataclass(frozen=True)
class TableSpec:
    """What a results table's columns depend on: the core conditions (a column each) and the
    comparability rules (the ``comparison_key`` column)."""

    conditions: tuple[str, ...]
    rules: Rules

    @functools.cached_property
    def digest(self) -> str:
        """sha256 of the conditions and rules (tuples of text: their repr is the same in every process)."""
        return hashlib.sha256(repr((self.conditions, self.rules)).encode("utf-8", "surrogatepass")).hexdigest()


def table_spec(schemas: SchemaSet) -> TableSpec:
    return TableSpec(schemas.core_conditions, schemas.comparability)


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
        """Each value as the text of a CSV cell, None for null and not considered (not kept: a site of
        thousands of results would hold every cell twice)."""
        return [None if value is None or value is NOT_CONSIDERED else csv_cell(value) for value in self.values]

    @property
    def csv_cells(self) -> list[str]:
        """Each value as the text of a CSV cell, "" for null, ``not considered`` for a condition the
        result does not carry."""
        return list(map(csv_cell, self.values))


@dataclass(frozen=True)
class ResultTable:
    columns: tuple[str, ...]
    # Each page's rows (values in the columns but the last) by site path, page after page, each
    # page's in export order: the ResultRows are made when asked for (``rows``), since a build whose
    # data files are linked needs none of a site's hundred thousand.
    pages: tuple[tuple[str, tuple[tuple[Any, ...], ...]], ...]
    # Each page's rows as CSV lines (no header), by site path, as the validating worker wrote them
    # (PageFacts.csv: ``verification`` left empty) and where each line ends: the article's index.csv
    # and the site's results.csv are made of them, with the states written in (``with_states``).
    page_csv: Mapping[str, bytes] = field(default_factory=dict)
    csv_ends: Mapping[str, tuple[int, ...]] = field(default_factory=dict)
    states: Mapping[str, Sequence[str | None]] = field(default_factory=dict)  # each page's, one per row

    @functools.cached_property
    def rows(self) -> tuple[ResultRow, ...]:
        """Every row, page after page, with its state."""
        return tuple(ResultRow(path, self.columns, values + (state,)) for path, rows in self.pages
                     for values, state in zip(rows, _padded(self.states.get(path), len(rows)), strict=True))

    @property
    def count(self) -> int:
        return sum(len(rows) for _, rows in self.pages)

    def rows_of(self, page: str) -> tuple[ResultRow, ...]:
        found = self._by_page.get(page, ())
        return tuple(ResultRow(page, self.columns, values + (state,))
                     for values, state in zip(found, _padded(self.states.get(page), len(found)), strict=True))

    def only(self, pages: set[str]) -> ResultTable:
        """The rows of ``pages``, in the same order."""
        return ResultTable(self.columns, tuple(item for item in self.pages if item[0] in pages),
                           {page: text for page, text in self.page_csv.items() if page in pages},
                           self.csv_ends, self.states)

    def csv_lines_of(self, page: str, verified: bool = True) -> bytes:
        """The page's rows as CSV lines, without the header (``verified``: with their states; else
        without the ``verification`` column)."""
        found = self.page_csv.get(page)
        ends = self.csv_ends.get(page)
        if found is None or ends is None:
            return csv_lines(self.rows_of(page) if verified else map(_unverified, self.rows_of(page)))
        return with_states(found, ends, self.states.get(page)) if verified else without_states(found, ends)

    @functools.cached_property
    def _by_page(self) -> dict[str, tuple[tuple[Any, ...], ...]]:
        grouped: dict[str, tuple[tuple[Any, ...], ...]] = {}
        for page, rows in self.pages:
            grouped[page] = grouped.get(page, ()) + rows
        return grouped


def _unverified(row: ResultRow) -> ResultRow:
    return ResultRow(row.page, row.columns[:-1], row.values[:-1])


def table_columns(spec: TableSpec) -> tuple[str, ...]:
    return FIXED_COLUMNS + tuple(f"conditions.{key}" for key in spec.conditions) + (VERIFICATION,)


def result_table(pages: Iterable[tuple[str, Mapping[str, Any] | None]], spec: TableSpec) -> ResultTable:
    """The table of every reported result of ``pages`` ((site path, export) pairs), not verified."""
    return table_of(((path, row_values(path, export, spec)) for path, export in pages), spec)


def table_of(pages: Iterable[tuple[str, tuple[tuple[Any, ...], ...]]], spec: TableSpec,
             page_csv: Mapping[str, tuple[bytes, tuple[int, ...]]] | None = None,
             states: Mapping[str, Sequence[str | None]] | None = None) -> ResultTable:
    """The table of pages' rows as ``row_values`` gives them ((site path, rows) pairs);
    ``page_csv``: their ``unverified_csv`` by site path, when it was written already;
    ``states``: each page's verification states, one per row (none: null)."""
    columns = table_columns(spec)
    known = {path: padded for path, found in (states or {}).items()
             if (padded := tuple(found))}
    written = page_csv or {}
    return ResultTable(columns, tuple(pages), {path: text for path, (text, _) in written.items()},
                       {path: ends for path, (_, ends) in written.items()}, known)


def _padded(states: Sequence[str | None] | None, count: int) -> Sequence[str | None]:
    return tuple(states) if states is not None and len(states) == count else (None,) * count


def row_values(path: str, export: Mapping[str, Any] | None, spec: TableSpec) -> tuple[tuple[Any, ...], ...]:
    """The values of each row of a page's reported results, in the table's columns but the last
    (``verification``: not known from the page)."""
    return tuple(_values(path, result, spec) for result in reported_results(export))


def unverified_csv(path: str, rows: tuple[tuple[Any, ...], ...], spec: TableSpec) -> tuple[bytes, tuple[int, ...]]:
    """The page's rows as CSV lines with an empty ``verification`` cell, and where each line's end
    (its CRLF) stands: ``with_states`` writes the states there."""
    columns = table_columns(spec)
    texts = _csv_line_texts([ResultRow(path, columns, values + (None,)).csv_cells for values in rows])
    lines = [text.encode("utf-8") for text in texts]
    ends = tuple(itertools.accumulate(len(line) for line in lines))
    return b"".join(lines), tuple(end - 2 for end in ends)


def with_states(csv: bytes, ends: Sequence[int], states: Sequence[str | None] | None) -> bytes:
    """``unverified_csv``'s lines with each row's state in its last cell: the bytes the CSV writer
    gives the rows with their states (a state is a plain word: never quoted)."""
    if not states or len(states) != len(ends) or not any(states):
        return csv
    parts, start = [], 0
    for end, state in zip(ends, states, strict=True):
        parts += [csv[start:end], (state or "").encode()]
        start = end
    parts.append(csv[start:])
    return b"".join(parts)


def _values(path: str, result: ReportedResult, spec: TableSpec) -> tuple[Any, ...]:
    """The row's cells: each field as authored (None where the result has none; NOT_CONSIDERED for a
    condition key it does not carry)."""
    kind, value, low, high = uncertainty_cells(result.uncertainty)
    fields = result.data.get
    own = result.conditions
    return (
        path,
        fields(RECORD_ID),
        result_id(result.data),
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
        comparison_key(result.data, spec.rules),
        *(own.get(key, NOT_CONSIDERED) for key in spec.conditions),
    )


UNCERTAINTY_KINDS = ("standard_deviation", "observed_range", "ci95", "spread_ratio", "approximate")  # as below


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


def without_states(csv: bytes, ends: Sequence[int]) -> bytes:
    """``unverified_csv``'s lines without their (empty) last cell and its separator."""
    parts, start = [], 0
    for end in ends:
        parts.append(csv[start:end - 1])
        start = end
    parts.append(csv[start:])
    return b"".join(parts)


def csv_bytes(table: ResultTable, rows: Iterable[ResultRow] | None = None) -> bytes:
    """RFC 4180 CSV (CRLF line ends, quotes where needed), UTF-8; null is an empty cell, a condition
    a result does not carry is ``not considered``.
    ``rows`` (default: every row of the table) picks some, e.g. one article's."""
    return b"".join(csv_chunks(table, rows))


def csv_chunks(table: ResultTable, rows: Iterable[ResultRow] | None = None, verified: bool = True) -> Iterator[bytes]:
    """``csv_bytes`` a page (or a few thousand rows) at a time (a site's CSV need not be held
    whole). The whole table is its pages' CSV lines one after the other, as they were written
    (``verified``: with their states; exports/ leaves the column out: they come from the vault)."""
    yield csv_header(table.columns if verified else table.columns[:-1])
    if rows is None and table.page_csv:
        for page, _ in itertools.groupby(table.rows, key=lambda row: row.page):
            yield table.csv_lines_of(page, verified)
        return
    chosen = table.rows if rows is None else rows
    for batch in batches(chosen if verified else map(_unverified, chosen)):
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


def csv_text(rows: list[list[str]]) -> bytes:
    """RFC 4180 lines (CRLF, quotes where needed) of rows of cell texts, UTF-8: the dialect of every
    CSV of the site."""
    return _csv_lines(rows).encode("utf-8")


def _csv_lines(rows: list[list[str]]) -> str:
    return "".join(_csv_line_texts(rows))


def _csv_line_texts(rows: list[list[str]]) -> list[str]:
    """Each row's CSV line (its CRLF included), from one writer (a writer and a buffer for each
    row: 259 µs for a page of 20 results, 204 µs so)."""
    lines = _Lines()
    csv.writer(lines, lineterminator="\r\n", quoting=csv.QUOTE_MINIMAL).writerows(
        [[inert_cell(cell) for cell in row] for row in rows])
    return lines


class _Lines(list[str]):
    """Where a CSV writer puts its lines: it writes each row with one call (``writerow`` returns
    what that call returns), so each item is one row's line."""

    def write(self, line: str) -> None:
        self.append(line)


FORMULA_STARTS = "=+-@\t\r"  # what makes a spreadsheet read a cell as a formula (OWASP, CSV injection)
_NUMBER = re.compile(r"-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?")


def inert_cell(cell: str) -> str:
    """A text cell a spreadsheet would evaluate, with a leading apostrophe (OWASP's advice); a number
    (-0.5) is left as it is. The JSON files keep every literal."""
    if cell and cell[0] in FORMULA_STARTS and not _NUMBER.fullmatch(cell):
        return "'" + cell
    return cell


def csv_cell(value: Any) -> str:
    """A JSON value as one CSV cell: text as it is, numbers as authored, lists/objects as JSON.
    The commonest kinds are told by their exact type first (a site's table has hundreds of
    thousands of cells)."""
    kind = type(value)
    if kind is str:
        return value  # type: ignore[no-any-return]
    if value is None:
        return ""
    if value is NOT_CONSIDERED:
        return NOT_CONSIDERED_CELL
    if kind is int:
        return int.__repr__(value)
    if isinstance(value, str):
        return value
    if isinstance(value, (bool, int, float)):
        return jsontext.number_text(value)
    return jsontext.dumps(value, indent=None)


def json_rows(table: ResultTable, rows: Iterable[ResultRow] | None = None) -> list[dict[str, Any]]:
    """The rows (default: every row of the table) as JSON objects (column -> value as authored,
    null kept; a condition the result does not carry left out)."""
    return [{column: value for column, value in zip(table.columns, row.values, strict=True)
             if value is not NOT_CONSIDERED} for row in (table.rows if rows is None else rows)]
