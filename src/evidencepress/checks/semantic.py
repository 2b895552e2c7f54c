"""Checks of SPEC §4.3 that JSON Schema cannot express.

Each check is a small function from (export, positions, front matter, ...) to
problems; ``check_export`` runs them all. The export is assumed to have passed
its schema where a check depends on shape, and every check tolerates a
malformed export anyway (a traceback is always a bug).
"""

from __future__ import annotations

import re
import urllib.parse
from collections.abc import Mapping
from typing import Any

from ..core.diagnostics import Problem, error, warning
from ..core.export import objects
from ..core.model import FrontMatter, JsonPath, Positions, SourceRef, dotted
from ..core.typos import misspelling_of
from ..schemas.units import suggested_unit

_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


def normalise_url(url: str) -> str:
    """Compare URLs without fragment, percent-decoded (``+`` and ``%2B`` are the same URL)."""
    return urllib.parse.unquote(url.split("#", 1)[0])


def check_export(
    export: Mapping[str, Any],
    positions: Positions,
    front: FrontMatter,
    units: Mapping[str, Any],
    recommended: tuple[str, ...],
    known_conditions: tuple[str, ...] = (),
) -> list[Problem]:
    problems: list[Problem] = []
    problems += _evidence_urls(export, positions, front.sources)
    results = export.get("reported_results")
    if isinstance(results, list):
        problems += _results(results, positions, front, units, recommended, known_conditions)
    page_conditions = export.get("conditions")
    if isinstance(page_conditions, dict):
        problems += _misspelled_conditions(page_conditions, ("conditions",), positions, known_conditions)
    return problems


def _evidence_urls(export: Mapping[str, Any], positions: Positions, sources: tuple[SourceRef, ...]) -> list[Problem]:
    by_url: dict[str, SourceRef] = {}
    for source in sources:
        by_url.setdefault(normalise_url(source.url), source)
    problems: list[Problem] = []
    for path, obj in objects(export):
        is_fact = len(path) == 2 and path[0] == "facts"
        for key in ("evidence_url", "url") if is_fact else ("evidence_url",):
            url = obj.get(key)
            if not isinstance(url, str):
                continue
            found = by_url.get(normalise_url(url))
            if found is None:
                problems.append(error(positions.of_key(path + (key,)), f"{url} is not in a document listed in `sources`",
                                      "evidence-url", dotted(path + (key,)),
                                      "add the document to the front matter's sources, or correct the URL"))
                continue
            sha = obj.get("source_document_sha256")
            if isinstance(sha, str) and sha != found.sha256:
                where = positions.of_key(path + ("source_document_sha256",))
                problems.append(error(where, f"SHA-256 {sha[:12]}… differs from the source's {found.sha256[:12]}…",
                                      "sha256", dotted(path + ("source_document_sha256",)),
                                      f"the source {found.url} is listed with sha256 {found.sha256}"))
    return problems


def _results(
    results: list[Any],
    positions: Positions,
    front: FrontMatter,
    units: Mapping[str, Any],
    recommended: tuple[str, ...],
    known_conditions: tuple[str, ...],
) -> list[Problem]:
    problems: list[Problem] = []
    seen: dict[tuple[str, str], int] = {}
    for index, result in enumerate(results):
        if not isinstance(result, dict):
            continue
        path: JsonPath = ("reported_results", index)
        problems += _reproduced(result, path, positions)
        problems += _unit(result, path, positions, units)
        problems += _repeated_label(result, path, positions, seen, index)
        conditions = result.get("conditions")
        if isinstance(conditions, dict):
            slips = _slips(conditions, known_conditions)
            problems += _misspelled_conditions(conditions, path + ("conditions",), positions, known_conditions)
            problems += _recommended(conditions, path + ("conditions",), positions,  # a slip is reported once
                                     tuple(key for key in recommended if key not in slips.values()))
            problems += _checked_before(conditions, path + ("conditions",), positions, front)
    return problems


def _repeated_label(result: Mapping[str, Any], path: JsonPath, positions: Positions,
                    seen: dict[tuple[str, str], int], index: int) -> list[Problem]:
    record, label = result.get("source_record_id"), result.get("label")
    if not isinstance(record, str) or not isinstance(label, str):
        return []  # a malformed entry: its schema error says so
    first = seen.setdefault((record, label), index)
    if first == index:
        return []
    message = f"label {label!r} repeats reported_results[{first}] of record {record!r}"
    return [error(positions.of_key(path + ("label",)), message, "label", dotted(path + ("label",)),
                  "labels are unique within a source_record_id; say what differs")]


def _reproduced(result: Mapping[str, Any], path: JsonPath, positions: Positions) -> list[Problem]:
    if result.get("evidence_state") == "source_reported" and result.get("site_reproduced") is True:
        where = positions.of_key(path + ("site_reproduced",))
        return [error(where, "site_reproduced must be false when evidence_state is source_reported", "reproduced",
                      dotted(path + ("site_reproduced",)),
                      "a value the site reproduced needs another evidence_state")]
    return []


def _unit(result: Mapping[str, Any], path: JsonPath, positions: Positions, units: Mapping[str, Any]) -> list[Problem]:
    unit = result.get("unit")
    if isinstance(unit, str) and unit and unit not in units:
        where = positions.of_key(path + ("unit",))
        close = suggested_unit(unit, units)
        hint = (f"did you mean {close!r}? " if close is not None else "") + \
            "use a unit of schema/units.json, or add this one there"
        return [warning(where, f"unit {unit!r} is not in the unit vocabulary", "unit", dotted(path + ("unit",)),
                        hint)]
    return []


def _slips(conditions: Mapping[str, Any], known: tuple[str, ...]) -> dict[str, str]:
    """Unknown condition keys that are one slip from a known key the conditions lack: key -> meant key."""
    slips: dict[str, str] = {}
    for key in conditions:
        meant = None if key in known else misspelling_of(key, known)
        if meant is not None and meant not in conditions:
            slips[key] = meant
    return slips


def _misspelled_conditions(conditions: Mapping[str, Any], path: JsonPath, positions: Positions,
                           known: tuple[str, ...]) -> list[Problem]:
    problems: list[Problem] = []
    for key, meant in _slips(conditions, known).items():
        if key.lower() == meant.lower():
            message, hint = f"condition key {key!r} differs only in case from {meant!r}", " (keys are case-sensitive)"
        else:
            message, hint = f"unknown condition key {key!r}: did you mean {meant!r}?", ""
        problems.append(warning(positions.of_key(path + (key,)), message, "condition-key", dotted(path + (key,)),
                                f"rename the key to {meant!r}{hint}"))
    return problems


def _recommended(conditions: Mapping[str, Any], path: JsonPath, positions: Positions,
                 recommended: tuple[str, ...]) -> list[Problem]:
    missing = [key for key in recommended if key not in conditions]
    if not missing:
        return []
    names = ", ".join(missing)
    return [warning(positions.of_key(path), f"recommended condition{'s' if len(missing) > 1 else ''} absent: {names}",
                    "recommended", dotted(path), "write null for a condition the source does not report")]


def _checked_before(conditions: Mapping[str, Any], path: JsonPath, positions: Positions,
                    front: FrontMatter) -> list[Problem]:
    date = conditions.get("experiment_date")
    if not isinstance(date, str):
        return []
    latest = max(_DATE.findall(date), default="")
    if latest and latest > front.checked.isoformat():
        where = positions.of_key(path + ("experiment_date",))
        return [warning(where, f"experiment_date {latest} is after the checked date {front.checked.isoformat()}",
                        "checked", dotted(path + ("experiment_date",)),
                        "update `checked` in the front matter after checking the source again")]
    return []
