"""Community source records: every source_record_id of any export, with what cites it.

Part of the site stage. A record gathers, per citing article, the reported
results that name it (exactly as authored, in export order) and the other
export entries that name it. For display, the conditions of one article's
results are split into those every result shares and those that vary.
"""

from __future__ import annotations

import datetime as dt
import functools
import itertools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..checks.page import Page
from ..checks.recordprose import RecordProse, record_url
from ..checks.semantic import normalise_url
from ..core import jsontext
from ..core.export import ReportedResult, objects, reported_results
from ..core.model import SourceRef, pointer
from ..core.words import in_words

FACETS = ("system", "model", "engine")  # conditions offered as search filters and shown on cards
ABSENT = object()  # a condition key a result does not carry (not considered), unlike null (not reported)


@dataclass(frozen=True)
class Mention:
    """An export entry outside reported_results that names the record."""

    pointer: str  # JSON Pointer into the article's export
    label: str


@dataclass(frozen=True)
class Citation:
    """What one article reports of one record."""

    page: Page
    results: tuple[ReportedResult, ...]  # as authored, export order
    shared: tuple[tuple[str, Any], ...]  # conditions with one value (null included) in every result
    varying: tuple[str, ...]  # conditions whose value differs between results, or that some lack
    mentions: tuple[Mention, ...]
    sources: tuple[SourceRef, ...]  # the article's sources that these results point into
    indexes: tuple[int, ...] = ()  # each result's index in the page's reported_results


@dataclass(frozen=True)
class CitedRecord:
    """What one page reports of one record (a Citation without the page), found with the page."""

    record_id: str
    results: tuple[ReportedResult, ...]
    shared: tuple[tuple[str, Any], ...]
    varying: tuple[str, ...]
    mentions: tuple[Mention, ...]
    sources: tuple[SourceRef, ...]
    indexes: tuple[int, ...] = ()  # each result's index in the page's reported_results
    # what a record's derived title and summary take from these results, found with the page (a
    # record of a large site is cited by thousands of pages: 0.2 s of each rebuild at 5,000 articles)
    facets: tuple[tuple[str, tuple[str, ...]], ...] = ()  # as ``facets`` finds them
    metrics: tuple[str, ...] = ()  # the distinct metric texts, in order of first result


@dataclass(frozen=True)
class Record:
    id: str
    title: str  # from content/community/<id>.md, else derived from its results (never the bare id)
    summary: str  # from content/community/<id>.md, else derived from its results
    prose: RecordProse | None
    citations: tuple[Citation, ...]  # in article URL order

    @property
    def url(self) -> str:
        return record_url(self.id)

    @functools.cached_property  # a record cited by thousands of articles has tens of thousands of results
    def results(self) -> tuple[ReportedResult, ...]:
        return tuple(result for citation in self.citations for result in citation.results)

    @functools.cached_property
    def facets(self) -> tuple[tuple[str, tuple[str, ...]], ...]:
        return facets(self.results)

    @property
    def checked(self) -> dt.date:
        return max(c.page.front.checked for c in self.citations)

    @property
    def lastmod(self) -> dt.date:
        return max(c.page.front.updated or c.page.front.checked for c in self.citations)


def facets(results: Iterable[ReportedResult]) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """The distinct reported values of each FACETS condition (null, i.e. not reported, left out)."""
    found: dict[str, dict[str, None]] = {name: {} for name in FACETS}
    for result in results:
        conditions = result.conditions
        for name in FACETS:
            value = conditions.get(name)
            if isinstance(value, str) and value.strip():
                found[name][value] = None
    return tuple((name, tuple(sorted(values))) for name, values in found.items() if values)


def results_of(page: Page) -> tuple[ReportedResult, ...]:
    """The page's reported results that are objects (the schema guarantees it; be safe anyway)."""
    return reported_results(page.export)


def cited_records(page: Page, core: Sequence[str] = ()) -> tuple[CitedRecord, ...]:
    """Each record the page's export names, by id: the reported results that name it (exactly as
    authored, in export order), their shared and varying conditions (``core`` keys first) and the
    other export entries that name it."""
    results: dict[str, list[ReportedResult]] = {}
    indexes: dict[str, list[int]] = {}
    for index, result in enumerate(results_of(page)):
        if result.record_id is not None:
            results.setdefault(result.record_id, []).append(result)
            indexes.setdefault(result.record_id, []).append(index)
    mentions = _mentions(page.export)
    found = []
    for rid in sorted(results.keys() | mentions.keys()):
        cited = tuple(results.get(rid, ()))
        shared, varying = split_conditions(cited, core)
        metrics = tuple(dict.fromkeys(metric for metric in (result.metric for result in cited)
                                      if isinstance(metric, str)))
        found.append(CitedRecord(rid, cited, shared, varying, tuple(mentions.get(rid, ())), _sources(page, cited),
                                 tuple(indexes.get(rid, ())), facets(cited), metrics))
    return tuple(found)


def build_records(pages: Sequence[tuple[Page, tuple[CitedRecord, ...]]],
                  prose: Sequence[RecordProse]) -> tuple[Record, ...]:
    """Every record of any export, sorted by id, from each page's ``cited_records``."""
    by_id = {entry.record_id: entry for entry in prose}
    cited: dict[str, list[CitedRecord]] = {}
    citations: dict[str, list[Citation]] = {}
    for page, page_records in sorted(pages, key=lambda item: item[0].url):
        for found in page_records:
            cited.setdefault(found.record_id, []).append(found)
            citations.setdefault(found.record_id, []).append(
                Citation(page, found.results, found.shared, found.varying, found.mentions, found.sources,
                         found.indexes))
    records: list[Record] = []
    for rid in sorted({rid for page, _ in pages for rid in page.record_ids}):  # slugs only
        text = by_id.get(rid)
        title = text.title if text else derived_title(cited.get(rid, ()))
        summary = text.summary if text and text.summary else derived_summary(cited.get(rid, ()))
        records.append(Record(rid, title, summary, text, tuple(citations.get(rid, ()))))
    return tuple(records)


def derived_title(cited: Sequence[CitedRecord]) -> str:
    """A record's heading from its results: the models, engines and systems its results name,
    then who published the sources (``Qwen3.8-27B with vLLM on 1 x DGX Spark, from yuanlin2004``)."""
    found: dict[str, dict[str, None]] = {}
    for each in cited:
        for name, values in each.facets:
            found.setdefault(name, {}).update(dict.fromkeys(values))
    parts = [_few(tuple(sorted(found.get("model", ()))), "models") or "Reported results"]
    if found.get("engine"):
        parts.append("with " + _few(tuple(_short(value, 3) for value in sorted(found["engine"])), "engines"))
    if found.get("system"):
        parts.append("on " + _few(tuple(_short(value, 5) for value in sorted(found["system"])), "systems"))
    publishers = _publishers(cited)
    return " ".join(parts) + (f", from {_few(publishers, 'publishers')}" if publishers else "")


def derived_summary(cited: Sequence[CitedRecord]) -> str:
    """One sentence on what a record measured: how many results of which metrics, from whose sources."""
    count = sum(len(each.results) for each in cited)
    metrics = tuple(dict.fromkeys(in_words(metric) for metric in dict.fromkeys(
        metric for each in cited for metric in each.metrics)))
    noun = "result" if count == 1 else "results"
    text = f"{count} reported {noun}"
    if metrics:
        text += " of " + ", ".join(metrics)
    publishers = _publishers(cited)
    if publishers:
        text += f" from documents published by {', '.join(publishers)}"
    articles = len(cited)
    return text + f", cited by {articles} article{'' if articles == 1 else 's'}."


def _publishers(cited: Sequence[CitedRecord]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(s.publisher for c in cited for s in c.sources if s.publisher))


def _short(text: str, words: int) -> str:
    """The head of a long condition text: up to its first comma or semicolon, at most ``words`` words."""
    head = text.replace(";", ",").split(",")[0].split()[:words]
    while len(head) > 1 and head[-1].lower() in _DANGLING:
        head.pop()
    return " ".join(head) or text


_DANGLING = frozenset({"+", "with", "plus", "and", "on", "for", "of", "the", "a", "in", "at", "to"})


def _few(values: Sequence[str], plural: str) -> str:
    """One or two values by name, more by their count."""
    values = tuple(dict.fromkeys(values))
    if len(values) <= 2:
        return " and ".join(values)
    return f"{len(values)} {plural}"


def split_conditions(results: Sequence[ReportedResult],
                     core: Sequence[str] = ()) -> tuple[tuple[tuple[str, Any], ...], tuple[str, ...]]:
    """(conditions every result has with the same value, keys that vary): ``core`` keys first,
    in their order, then the others in the order they are first seen."""
    conditions = [result.conditions for result in results]
    seen = dict.fromkeys(itertools.chain.from_iterable(conditions))
    keys = [key for key in core if key in seen] + [key for key in seen if key not in core]
    absent = itertools.repeat(ABSENT)
    # each key's values, one per result (a record cited by many results has hundreds of thousands)
    columns = zip(*(tuple(map(found.get, keys, absent)) for found in conditions), strict=False)
    shared: list[tuple[str, Any]] = []
    varying: list[str] = []
    for key, values in zip(keys, columns, strict=False):
        if _all_same(values):
            shared.append((key, values[0]))
        else:
            varying.append(key)
    return tuple(shared), tuple(varying)


def _all_same(values: tuple[Any, ...]) -> bool:
    """Every value present and equal as authored. Values all of one type of ``_EQUAL_AS_WRITTEN``
    (most conditions: strings) are compared at once."""
    first = values[0]
    if first is ABSENT:
        return False
    kinds = set(map(type, values))
    if len(kinds) == 1 and type(first) in _EQUAL_AS_WRITTEN:
        return values.count(first) == len(values)
    return all(_same(first, value) for value in values[1:])


def _same(a: Any, b: Any) -> bool:
    """Equal as authored: 22.5 and 22.50 differ, as do 1 and 1.0, or true and 1."""
    if a is b:
        return True
    kind = type(a)
    if kind is type(b) and kind in _EQUAL_AS_WRITTEN:
        return bool(a == b)
    if a is ABSENT or b is ABSENT:
        return False
    return _as_written(a) == _as_written(b)


_EQUAL_AS_WRITTEN = frozenset({str, int, bool})  # exactly these types: equal values, equal JSON text


def _as_written(value: Any) -> str:
    """A value's JSON text, or (for a string) a text no other kind of value starts with."""
    if isinstance(value, str):
        return '"' + value
    if value is None or isinstance(value, (bool, int, float)):
        return "null" if value is None else jsontext.number_text(value)
    return jsontext.dumps(value, indent=None)


def _mentions(export: Any) -> dict[str, list[Mention]]:
    """Objects outside reported_results that name a source record, by record id."""
    found: dict[str, list[Mention]] = {}
    if not isinstance(export, Mapping):
        return found
    for section, value in export.items():
        if section == "reported_results":
            continue
        for path, entry in objects(value, (section,)):
            record_id = entry.get("source_record_id")
            if isinstance(record_id, str):
                label = entry.get("label") or entry.get("name") or entry.get("id") or path[-1]
                found.setdefault(record_id, []).append(Mention(pointer(path), str(label)))
    return found


def _sources(page: Page, results: Sequence[ReportedResult]) -> tuple[SourceRef, ...]:
    cited = {normalise_url(r.evidence_url or "") for r in results}
    return tuple(s for s in page.front.sources if normalise_url(s.url) in cited)
