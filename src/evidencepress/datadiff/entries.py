"""The published data of two versions of one article, compared: page fields, reported results,
sources and the rest of the export (SPEC §8). Pure: JSON values in, frozen changes out."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..core.export import result_id
from .changes import ABSENT, FieldChange, ResultChange, SourceChange, Status
from .fields import field_change, object_changes, ordered_keys, same

# Envelope members compared as page fields (URLs are left out: they depend on where a site is deployed;
# ``schema`` too: it is the site's own /schema/export.schema.json under its base URL).
PAGE_FIELDS = ("title", "summary", "checked", "updated", "tags")
RESULT_FIRST = ("value", "unit", "statistic", "uncertainty", "conditions")
def entries_of(document: Mapping[str, Any], key: str) -> list[dict[str, Any]]:
    found = document.get(key)
    return [entry for entry in found if isinstance(entry, dict)] if isinstance(found, list) else []


def page_fields(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[FieldChange]:
    return [field_change(key, old.get(key, ABSENT), new.get(key, ABSENT))
            for key in PAGE_FIELDS if not same(old.get(key, ABSENT), new.get(key, ABSENT))]


def other_changes(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[FieldChange]:
    """Facts, the top-level conditions and the optional sections, leaf by leaf."""
    rest_old = {key: value for key, value in old.items() if key != "reported_results"}
    rest_new = {key: value for key, value in new.items() if key != "reported_results"}
    return object_changes(rest_old, rest_new)


def compare_results(old: Sequence[dict[str, Any]], new: Sequence[dict[str, Any]]) -> tuple[ResultChange, ...]:
    """Matched by (source_record_id, result id: the authored id, else the label as a slug), so that a
    re-ordered export matches, and a result with an id matches when its label is re-worded: changed and
    added in the new order, then removed."""
    before, after = _by_key(old), _by_key(new)
    changes: list[ResultChange] = []
    for key, entry in after.items():
        if key not in before:
            changes.append(ResultChange("added", key[0], label_of(entry), entry))
            continue
        fields = tuple(object_changes(before[key], entry, first=RESULT_FIRST))
        if fields:
            changes.append(ResultChange("changed", key[0], label_of(entry), entry, fields))
    changes += [ResultChange("removed", key[0], label_of(entry), entry) for key, entry in before.items()
                if key not in after]
    return tuple(changes)


def label_of(entry: Mapping[str, Any]) -> str:
    """What a report calls the entry: its label (a fact's older ``name``)."""
    return str(entry.get("label", entry.get("name", "")))


def _by_key(results: Sequence[dict[str, Any]]) -> dict[tuple[str, str], dict[str, Any]]:
    return dict(zip(result_keys(results), results, strict=True))


def result_keys(results: Sequence[dict[str, Any]]) -> list[tuple[str, str]]:
    """Each entry's (source_record_id, result id), in order."""
    keys: list[tuple[str, str]] = []
    seen_keys: set[tuple[str, str]] = set()
    for entry in results:
        record, label = str(entry.get("source_record_id", "")), result_id(entry) or label_of(entry)
        key, seen = (record, label), 1
        while key in seen_keys:  # a repeated id (possible only in a hand-made folder): keep both apart
            seen += 1
            key = (record, f"{label} ({seen})")
        seen_keys.add(key)
        keys.append(key)
    return keys


def compare_sources(old: Sequence[dict[str, Any]], new: Sequence[dict[str, Any]]) -> tuple[SourceChange, ...]:
    """Matched by URL; a source whose pinned URL moved with its revision is one source changed."""
    before = {str(source.get("url")): source for source in old}
    after = {str(source.get("url")): source for source in new}
    moved = _moved(
        {url: source for url, source in before.items() if url not in after},
        {url: source for url, source in after.items() if url not in before},
    )
    changes: list[SourceChange] = []
    for url, source in after.items():
        previous = before.get(url) or moved.get(url)
        if previous is None:
            changes.append(_source("added", source))
            continue
        fields = [field_change(key, previous.get(key, ABSENT), source.get(key, ABSENT))
                  for key in ordered_keys(previous, source, ("revision", "sha256", "url", "publisher"))
                  if not same(previous.get(key, ABSENT), source.get(key, ABSENT))]
        if fields:
            changes.append(_source("changed", source, tuple(fields)))
    paired = {str(source.get("url")) for source in moved.values()}
    changes += [_source("removed", source) for url, source in before.items() if url not in after and url not in paired]
    return tuple(changes)


def _moved(gone: Mapping[str, dict[str, Any]], came: Mapping[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """new URL -> old source, for sources whose URL differs only by their revision."""
    old_by_pattern: dict[str, dict[str, Any]] = {}
    for url, source in gone.items():
        old_by_pattern.setdefault(_without_revision(url, source), source)
    moved: dict[str, dict[str, Any]] = {}
    for url, source in came.items():
        previous = old_by_pattern.pop(_without_revision(url, source), None)
        if previous is not None:
            moved[url] = previous
    return moved


def _without_revision(url: str, source: Mapping[str, Any]) -> str:
    revision = source.get("revision")
    if isinstance(revision, str) and len(revision) >= 7 and revision in url:
        return url.replace(revision, "\x00")
    return "\x01" + url  # matches nothing but itself


def _source(status: Status, source: Mapping[str, Any], fields: tuple[FieldChange, ...] = ()) -> SourceChange:
    return SourceChange(status, str(source.get("url", "")), str(source.get("publisher", "")),
                        str(source.get("revision", "")), fields)
