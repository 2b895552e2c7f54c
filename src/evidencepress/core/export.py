"""Typed access to an export: its reported results, their conditions, its facts.

An export is kept as the parse stage loaded it (plain JSON values whose numbers
keep their authored literals, SPEC §4.1), because it is published as written.
What later stages read of it they read here, through small views whose
properties name the schema's fields, rather than by walking dicts. The views
hold the export's own values: nothing is converted, rounded or defaulted.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from .jsontext import AuthoredFloat, AuthoredInt
from .model import JsonPath, PathPart

RESULTS = "reported_results"  # the export's list of reported results
EMPTY_EXPORT: Mapping[str, Any] = {"facts": [], RESULTS: [], "conditions": {}}
RECORD_ID = "source_record_id"
_RECORD_SLUG = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")  # a source_record_id that names a record page
_SCALARS = frozenset({str, int, float, bool, type(None), AuthoredFloat, AuthoredInt})


@dataclass(frozen=True)
class ReportedResult:
    """One entry of ``reported_results`` (``data``: the entry itself, as authored). Each property
    is the field of SPEC §4.1 of that name: its authored value, never converted; a text field
    that is missing, null or not text (which the schema refuses on a validated page) is None."""

    data: Mapping[str, Any]

    @property
    def record_id(self) -> str | None:
        return _text(self.data, RECORD_ID)

    @property
    def label(self) -> str | None:
        return _text(self.data, "label")

    @property
    def metric(self) -> str | None:
        return _text(self.data, "metric")

    @property
    def unit(self) -> str | None:
        return _text(self.data, "unit")

    @property
    def statistic(self) -> str | None:
        return _text(self.data, "statistic")

    @property
    def evidence_url(self) -> str | None:
        return _text(self.data, "evidence_url")

    @property
    def value(self) -> Any:
        """The number as authored (AuthoredFloat, AuthoredInt), or None: not reported."""
        return self.data.get("value")

    @property
    def uncertainty(self) -> Any:
        """The uncertainty object of SPEC §4.1, or None."""
        return self.data.get("uncertainty")

    @property
    def conditions(self) -> Mapping[str, Any]:
        """The result's conditions by key; a key the result does not carry is absent, a condition
        the source does not report is None."""
        found = self.data.get("conditions")
        return found if isinstance(found, dict) else {}


def _text(data: Mapping[str, Any], key: str) -> str | None:
    found = data.get(key)
    return found if isinstance(found, str) else None


def reported_results(export: Mapping[str, Any] | None) -> tuple[ReportedResult, ...]:
    """The export's reported results, in order (none for a page without an export)."""
    found = export.get(RESULTS) if export is not None else None
    return tuple(ReportedResult(entry) for entry in found if isinstance(entry, dict)) if isinstance(found, list) else ()


def record_ids(export: Mapping[str, Any] | None) -> frozenset[str]:
    """Every source_record_id (a slug) named anywhere in the export: the records it cites."""
    found = (entry.get(RECORD_ID) for _, entry in objects(export))
    return frozenset(value for value in found if isinstance(value, str) and _RECORD_SLUG.fullmatch(value))


def objects(value: Any, path: JsonPath = ()) -> Iterator[tuple[JsonPath, dict[str, Any]]]:
    """Every JSON object in ``value`` (itself included) with its path, parents before their
    members, in document order. Iterative: an export holds tens of thousands of objects."""
    stack: list[tuple[JsonPath, Any]] = [(path, value)] if isinstance(value, (dict, list)) else []
    while stack:
        where, item = stack.pop()
        if isinstance(item, dict):
            yield where, item
        if set(map(type, item.values() if isinstance(item, dict) else item)) <= _SCALARS:
            continue  # most objects (a result's conditions) hold scalars only: nothing to walk into
        members: Iterable[tuple[PathPart, Any]] = item.items() if isinstance(item, dict) else enumerate(item)
        inner = [(where + (key,), member) for key, member in members if isinstance(member, (dict, list))]
        inner.reverse()
        stack += inner


_NOT_WORD = re.compile(r"[^\w]+", re.UNICODE)


def result_id(entry: Mapping[str, Any]) -> str | None:
    """A reported result's stable id: its ``id``, else its label as a slug (``Decode at C1 (8k)`` ->
    ``decode-at-c1-8k``); None when it has neither."""
    authored = entry.get("id")
    if isinstance(authored, str) and authored:
        return authored
    label = entry.get("label")
    if not isinstance(label, str):
        return None
    slug = _NOT_WORD.sub("-", label.lower().replace("_", "-")).strip("-")
    return slug or None
