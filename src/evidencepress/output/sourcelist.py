"""Render stage: the article's "Original sources and conditions", each document once with its use.

A source document is listed once (the front matter may name one twice); beside its URL stand the
revision and the SHA-256 shortened, the full values a disclosure away, and what the article takes
from the document: the results that cite it (by its SHA-256), their metrics and records, the
conditions every one of those results shares, and the other entries (facts, observations) citing it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..core.export import ReportedResult, objects, reported_results
from ..core.model import SourceRef
from ..core.numbers import number_for_reading
from ..core.words import in_words, key_name
from ..site.dataset import csv_cell
from ..site.index import COMMUNITY_URL
from ..site.records import split_conditions

SHORT = 12  # hex characters of a revision or a digest shown in full in the list


@dataclass(frozen=True)
class SourceView:
    source: SourceRef
    short_revision: str  # the revision's first 12 characters when it is a long hex commit, else as written
    short_sha256: str
    results: str  # "3 results", "" when none cites the document
    metrics: tuple[str, ...]  # the metrics in words ("prefill rate")
    records: tuple[tuple[str, str], ...]  # each citing record's title (its id without one) and its page's site path
    # (human name, value) of each condition with one value in every result citing the document
    shared: tuple[tuple[str, str], ...]
    shared_heading: str  # what the shared conditions are of: "its result", "all its results"
    other_entries: str  # "2 other entries (facts, observations)", "" when none


def source_views(sources: Sequence[SourceRef], export: Mapping[str, Any], record_titles: Mapping[str, str],
                 condition_titles: Mapping[str, str] | None = None) -> tuple[SourceView, ...]:
    """Each distinct document once; conditions named by ``condition_titles`` (the schema's), else in words."""
    seen: set[tuple[str, str, str]] = set()
    views: list[SourceView] = []
    for source in sources:
        key = (source.url, source.revision, source.sha256)
        if key not in seen:
            seen.add(key)
            views.append(_view(source, export, record_titles, condition_titles or {}))
    return tuple(views)


def _view(source: SourceRef, export: Mapping[str, Any], record_titles: Mapping[str, str],
          condition_titles: Mapping[str, str]) -> SourceView:
    results = [r for r in reported_results(export) if r.data.get("source_document_sha256") == source.sha256]
    entries = sum(1 for path, entry in objects(export) if entry.get("source_document_sha256") == source.sha256
                  and not (len(path) == 2 and path[0] == "reported_results"))
    return SourceView(
        source=source,
        short_revision=short_id(source.revision),
        short_sha256=short_id(source.sha256),
        results=_count(len(results), "result"),
        metrics=tuple(in_words(metric) for metric in _distinct(r.metric for r in results)),
        records=tuple((record_titles.get(record, record), f"{COMMUNITY_URL}{record}/")
                      for record in _distinct(r.record_id for r in results)),
        shared=_shared(results, condition_titles),
        shared_heading="Conditions of its result" if len(results) == 1 else "Conditions shared by all its results",
        other_entries=_count(entries, "other entry", "other entries"),
    )


def short_id(text: str) -> str:
    """A long hex revision or digest cut to its first ``SHORT`` characters; any other text as written."""
    return text[:SHORT] if len(text) > SHORT and all(c in "0123456789abcdefABCDEF" for c in text) else text


def _count(number: int, one: str, many: str = "") -> str:
    if number == 0:
        return ""
    return f"{number_for_reading(number)} {one if number == 1 else many or one + 's'}"


def _distinct(values: Any) -> tuple[str, ...]:
    return tuple(dict.fromkeys(v for v in values if isinstance(v, str)))


def _shared(results: Sequence[ReportedResult], titles: Mapping[str, str]) -> tuple[tuple[str, str], ...]:
    """The conditions every result carries with one value, by name (as authored; null reads "not reported")."""
    shared, _ = split_conditions(results)
    return tuple((key_name(key, titles), _shown(value)) for key, value in shared)


def _shown(value: Any) -> str:
    if value is None:
        return "not reported"
    if isinstance(value, (int, float)):
        return number_for_reading(value)
    return csv_cell(value)
