"""Stable result identifiers: what names a reported result across re-orderings and re-wordings.

A result's id is its authored ``id`` when it has one, else its label made a
slug (``Decode at C1 (8k)`` -> ``decode-at-c1-8k``). Together with its
``source_record_id`` it names the result on the whole site: the anchor of its
row on the record page (``/community/<record>/#<id>``), the ``result_id``
column of every CSV and of ``results.json``. Two results of one record with
the same id in one export are an error (``result_id_problems``), at the second
one's key; two articles may cite the same result of a record (its row on the
record page is anchored where it is first listed).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from ..core.diagnostics import Problem, error
from ..core.export import result_id
from ..core.model import JsonPath, Positions, dotted


def anchor_of(record_id: str, entry: Mapping[str, Any]) -> str:
    """The site path of the result's row on its record page (no anchor when it has no id)."""
    found = result_id(entry)
    return f"/community/{record_id}/" + (f"#{found}" if found else "")


@dataclass(frozen=True)
class ResultKey:
    """A reported result's id, its record, and where its id comes from in the Markdown file."""

    index: int  # in reported_results
    record: str
    id: str | None
    path: JsonPath  # of the key ``id``, else of ``label``
    label: str | None = None
    authored: bool = False  # the id is written, not derived from the label


def result_keys(export: Any) -> tuple[ResultKey, ...]:
    """Each reported result's key (a valid export's: every result is an object with a record)."""
    results = export.get("reported_results") if isinstance(export, Mapping) else None
    keys = []
    for index, entry in enumerate(results if isinstance(results, list) else []):
        if not isinstance(entry, Mapping):
            continue
        path: JsonPath = ("reported_results", index, "id" if "id" in entry else "label")
        record = entry.get("source_record_id")
        label = entry.get("label")
        keys.append(ResultKey(index, record if isinstance(record, str) else "", result_id(entry), path,
                              label if isinstance(label, str) else None, "id" in entry))
    return tuple(keys)


def result_id_problems(keys: Iterable[ResultKey], positions: Positions) -> list[Problem]:
    """Results of one export with no id, and results whose id another result of the same record in
    the export has: the second is the error. (Each is placed only when reported: placing every
    result's key made the file's positions be found for every page, a tenth of a cold build.)"""
    seen: dict[tuple[str, str], ResultKey] = {}
    problems: list[Problem] = []
    for key in keys:
        if key.id is None:
            problems.append(error(positions.of_key(key.path), "the result has no id: its label gives no slug",
                                  "result-id", dotted(key.path), 'give it an "id" (lowercase words joined by hyphens)'))
            continue
        first = seen.setdefault((key.record, key.id), key)
        same_label = not key.authored and not first.authored and first.label == key.label
        if first is not key and not same_label:  # a repeated label is reported as such (rule label)
            problems.append(error(positions.of_key(key.path), f"result id {key.id!r} of record {key.record!r} is "
                                  f"also the id of reported_results[{first.index}]", "result-id", dotted(key.path),
                                  'give one of them an "id" of its own, or another label'))
    return problems
