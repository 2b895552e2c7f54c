"""Display text of a record's results, shared by its HTML and its index.md.

Values are shown as authored (``22.50`` stays ``22.50``); ``null`` reads
"not reported"; a condition a result does not carry at all reads "—".
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from ..charts.uncertainty import read, uncertainty_text
from ..checks.page import Page
from ..core.export import ReportedResult, result_id
from ..core.model import SourceRef
from ..core.numbers import number_for_reading
from ..core.words import key_name
from ..site.dataset import csv_cell
from ..site.records import ABSENT, Citation, Mention, split_conditions
from .sourcelist import short_id
from .verification import Badge, any_checked

NOT_REPORTED = "not reported"
NOT_RECORDED = "—"


LONG_TEXT = 28  # characters; a longer cell wraps inside a wider column, a shorter one stays on one line


@dataclass(frozen=True)
class Cell:
    text: str
    state: str  # "value", "null" (not reported) or "absent" (not part of this result's conditions)
    css: str  # classes of the table cell: its state, and ``wrap`` for long text

    def __str__(self) -> str:
        return self.text


def _cell(text: str, state: str) -> Cell:
    return Cell(text, state, f"cell-{state}" + (" wrap" if len(text) > LONG_TEXT else ""))


_ABSENT_CELL = _cell(NOT_RECORDED, "absent")
_NULL_CELL = _cell(NOT_REPORTED, "null")


@dataclass(frozen=True)
class ResultView:
    label: str
    value: str
    unit: str
    statistic: str
    uncertainty: str
    conditions: tuple[Cell, ...]  # one per varying condition of the citation
    evidence_url: str
    badge: Badge | None = None  # its state against the cited document
    anchor: str = ""  # its row's id on the record page (its result id; "" where another row has it)


@dataclass(frozen=True)
class TableView:
    """One table of a citation: its results of one metric."""

    metric: str
    shared: tuple[tuple[str, Cell], ...]  # (human name, value): shared within this table, not record-wide
    varying: tuple[str, ...]  # human names of the conditions that vary within this table: its extra columns
    results: tuple[ResultView, ...]

    @property
    def heading(self) -> str:
        """The metric in words (``Decode rate``); the id itself is shown beside it."""
        return key_name(self.metric) if self.metric else "Results"


@dataclass(frozen=True)
class CitationView:
    page: Page
    tables: tuple[TableView, ...]  # one per metric, in the order the metrics are first seen
    mentions: tuple[Mention, ...]
    sources: tuple[SourceRef, ...]
    checked: bool = False  # some result's line was checked against its document: the tables show a column

    @property
    def results(self) -> tuple[ResultView, ...]:
        return tuple(row for table in self.tables for row in table.results)

    @property
    def source_groups(self) -> tuple[SourceGroup, ...]:
        """The source documents by publisher and revision, in the order first cited: a revision that
        eight documents share is written once (shortened, the full value on demand)."""
        groups: dict[tuple[str, str], list[SourceRef]] = {}
        for source in self.sources:
            groups.setdefault((source.publisher, source.revision), []).append(source)
        return tuple(SourceGroup(publisher, revision, short_id(revision), tuple(documents))
                     for (publisher, revision), documents in groups.items())


@dataclass(frozen=True)
class SourceGroup:
    publisher: str
    revision: str
    short_revision: str  # the first characters of a long hex commit, else the revision as written
    documents: tuple[SourceRef, ...]


def record_shared(results: tuple[ReportedResult, ...], core: tuple[str, ...] = ()) -> tuple[tuple[str, Any], ...]:
    """The conditions every result of a record has with one value (null included), as authored."""
    shared, _ = split_conditions(results, core)
    return shared


def shared_view(shared: tuple[tuple[str, Any], ...],
                titles: Mapping[str, str] | None = None) -> tuple[tuple[str, Cell], ...]:
    return tuple((key_name(key, titles), cell(value)) for key, value in shared)


def cell(value: Any) -> Cell:
    if value is ABSENT:
        return _ABSENT_CELL
    if value is None:
        return _NULL_CELL
    return _cell(reading_text(value), "value")


def reading_text(value: Any) -> str:
    """A value as read: text as it is, a number by its literal through ``core.numbers`` (separators,
    a true minus, the authored digits), an object as ``key: value`` pairs, a list joined by commas."""
    if value is None:
        return NOT_REPORTED
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        if isinstance(value, Mapping):
            return "; ".join(f"{key}: {reading_text(item)}" for key, item in value.items())
        if isinstance(value, list):
            return ", ".join(map(reading_text, value))
        return csv_cell(value)
    return number_for_reading(value)


def text(value: Any) -> str:
    """A result field as text; a missing or null field is empty (it is optional or a string)."""
    return csv_cell(value)


def citation_view(citation: Citation, badges: Mapping[str, Badge] | None = None,
                  record_keys: frozenset[str] = frozenset(), core: tuple[str, ...] = (),
                  titles: Mapping[str, str] | None = None) -> CitationView:
    """``badges``: the citing page's verification badges, by JSON pointer; ``record_keys``: the
    conditions shared by every result of the record (shown once above every table, so left out of
    each); ``core``: the condition keys listed first; ``titles``: human names of condition keys."""
    cells: dict[str, Cell] = {}  # by text: a record's thousands of rows repeat few condition values
    found = badges or {}

    def condition_cell(value: Any) -> Cell:
        if type(value) is not str:
            return cell(value)
        found = cells.get(value)
        if found is None:
            found = cells[value] = cell(value)
        return found

    groups: dict[str, list[tuple[ReportedResult, int | None]]] = {}
    for result, index in zip(citation.results, _indexes(citation), strict=True):
        groups.setdefault(text(result.metric), []).append((result, index))
    tables = []
    for metric, members in groups.items():
        shared, varying = split_conditions([result for result, _ in members], core)
        rows = tuple(
            ResultView(
                label=text(result.label),
                value=cell(result.value).text,
                unit=text(result.unit),
                statistic=text(result.statistic),
                uncertainty=(uncertainty_text(result.uncertainty, read)
                             or (NOT_REPORTED if result.uncertainty is None else "")),
                conditions=tuple(condition_cell(result.conditions.get(key, ABSENT)) for key in varying),
                evidence_url=text(result.evidence_url),
                badge=found.get(f"/reported_results/{index}") if index is not None else None,
                anchor=result_id(result.data) or "",
            )
            for result, index in members
        )
        own = tuple((key, value) for key, value in shared if key not in record_keys)
        tables.append(TableView(metric, shared_view(own, titles),
                                tuple(key_name(key, titles) for key in varying), rows))
    return CitationView(citation.page, tuple(tables), citation.mentions, citation.sources,
                        any_checked(row.badge for table in tables for row in table.results))


_PAGE_IDS = re.compile(r"main|site-search-input|from-\d+")  # the record page's own element ids


def anchored(views: tuple[CitationView, ...]) -> tuple[CitationView, ...]:
    """The views with each result id anchoring only its first row on the page (ids are unique in HTML;
    two articles may cite the same result)."""
    seen: set[str] = set()

    def first(row: ResultView) -> ResultView:
        if not row.anchor:
            return row  # (a record's thousands of rows without an id were each made again)
        if row.anchor in seen or _PAGE_IDS.fullmatch(row.anchor):
            return replace(row, anchor="")
        seen.add(row.anchor)
        return row

    return tuple(replace(view, tables=tuple(replace(table, results=tuple(map(first, table.results)))
                                            for table in view.tables)) for view in views)


def _indexes(citation: Citation) -> tuple[int | None, ...]:
    """Each of the citation's results' index in its page's reported_results (None: not known)."""
    if len(citation.indexes) == len(citation.results):
        return citation.indexes
    return (None,) * len(citation.results)
