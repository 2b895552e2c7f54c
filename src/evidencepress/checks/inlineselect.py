"""Select exactly one value of an export for an inline reference, with its unit, evidence and conditions."""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..content.inlinerefs import Ref
from ..core import jsontext
from ..core.export import RESULTS
from ..core.model import JsonPath, pointer
from ..core.numbers import for_reading, number_for_reading
from ..core.words import in_words
from .resultids import anchor_of

_KINDS = {str: "a string", bool: "a boolean", type(None): "null", dict: "an object", list: "a list"}


@dataclass(frozen=True)
class Selected:
    """One value of the export and what the reader needs to trust it."""

    ref: str  # the reference as written
    pointer: str  # JSON Pointer of the value in the export
    value: Any
    unit: str  # "" when no unit applies (a condition, a count without unit)
    evidence_url: str  # "" when the entry gives none
    about: str  # what the value is: ``label (record), field. statistic.``
    row: str = ""  # site path of the result's row on its record page; "" for a value outside a result
    conditions: tuple[tuple[str, str], ...] = ()  # its entry's reported conditions, as authored
    not_reported: tuple[str, ...] = ()  # its entry's conditions that are null

    @property
    def title(self) -> str:
        """What the value is and its conditions, in one sentence each."""
        parts = [self.about.rstrip(".")]
        if self.conditions:
            parts.append("Conditions: " + "; ".join(f"{k}: {v}" for k, v in self.conditions))
        if self.not_reported:
            parts.append("Not reported: " + ", ".join(self.not_reported))
        return ". ".join(parts) + "."

    @property
    def is_number(self) -> bool:
        return isinstance(self.value, (int, float)) and not isinstance(self.value, bool)

    @property
    def kind(self) -> str:
        return "a number" if self.is_number else _KINDS.get(type(self.value), "a value")

    @property
    def bare(self) -> str:
        """The value as authored (thousands separators added), without unit; null reads "not reported"."""
        if self.value is None:
            return "not reported"
        if isinstance(self.value, str):
            return self.value
        text = jsontext.number_text(self.value)
        return for_reading(text) if self.is_number else text

    @property
    def display(self) -> str:
        return f"{self.bare} {self.unit}" if self.unit and self.value is not None else self.bare


@dataclass(frozen=True)
class SelectionError:
    message: str
    hint: str


def select(export: Mapping[str, Any], ref: Ref) -> Selected | SelectionError:
    path = _pointer_path(export, ref.pointer) if ref.pointer else _result_path(export, ref)
    if isinstance(path, SelectionError):
        return path
    value = _at(export, path)
    if isinstance(value, (dict, list)):
        inner = next(iter(value), None) if isinstance(value, dict) else 0
        example = (f"{ref.pointer}/{inner}" if ref.pointer else
                   f"#{ref.field}.{inner}" if ref.field != "value" else "#value")
        return SelectionError(f"selects {_KINDS[type(value)]}, not one value",
                              f"name one value inside it, e.g. {example}")
    entry_path = path[:2] if len(path) > 1 and isinstance(path[1], int) else path[:1]
    entry = _at(export, entry_path)
    entry = entry if isinstance(entry, Mapping) else {}
    reported, missing = _conditions(entry)
    return Selected(ref.text, pointer(path), value, _unit(export, path), _evidence(export, path),
                    _about(entry, path[len(entry_path):], path), _row(entry, entry_path), reported, missing)


def _row(entry: Mapping[str, Any], entry_path: JsonPath) -> str:
    record = entry.get("source_record_id")
    return anchor_of(record, entry) if entry_path[:1] == (RESULTS,) and isinstance(record, str) else ""


def _result_path(export: Mapping[str, Any], ref: Ref) -> JsonPath | SelectionError:
    results = export.get(RESULTS)
    results = results if isinstance(results, list) else []
    found = _matching(results, ref.record, ref.label)
    if not found and ref.record and not any(_record(r) == ref.record for r in results):
        whole = _matching(results, "", f"{ref.record}/{ref.label}")  # a label that contains "/"
        if len(whole) == 1:
            found = whole
        else:
            known = sorted({_record(r) for r in results if _record(r)})
            return SelectionError(f"no reported result has source_record_id {ref.record!r}", _suggest(
                ref.record, known, "records of this export: "))
    if not found:
        labels = [str(r.get("label")) for r in results
                  if isinstance(r, Mapping) and (not ref.record or _record(r) == ref.record)]
        where = f" in record {ref.record!r}" if ref.record else ""
        return SelectionError(f"no reported result is labelled {ref.label!r}{where}", _suggest(ref.label, labels,
                                                                                                 "labels: "))
    if len(found) > 1:
        records = ", ".join(sorted({_record(results[i]) for i in found}))
        return SelectionError(f"{len(found)} reported results are labelled {ref.label!r} (records {records})",
                              f"name the record: {_record(results[found[0]])}/{ref.label}")
    return _field(results[found[0]], ref.field, (RESULTS, found[0]))


def _matching(results: list[Any], record: str, label: str) -> list[int]:
    return [index for index, result in enumerate(results)
            if isinstance(result, Mapping) and result.get("label") == label
            and (not record or _record(result) == record)]


def _record(result: Any) -> str:
    return str(result.get("source_record_id", "")) if isinstance(result, Mapping) else ""


def _field(entry: Any, field: str, base: JsonPath) -> JsonPath | SelectionError:
    """The path of a dotted field (``uncertainty.standard_deviation``; ``input_tokens.0`` for a list item)."""
    path, current = base, entry
    for segment in field.split("."):
        if isinstance(current, Mapping) and segment in current:
            path, current = path + (segment,), current[segment]
        elif isinstance(current, list) and segment.isdigit() and int(segment) < len(current):
            path, current = path + (int(segment),), current[int(segment)]
        else:
            above = field[: field.index(segment)] if segment in field else ""
            known = [above + str(k) for k in current] if isinstance(current, Mapping) else []
            return SelectionError(f"the result has no field {field!r}", _suggest(above + segment, known,
                                                                                 "its fields here: "))
    return path


def _pointer_path(export: Mapping[str, Any], text: str) -> JsonPath | SelectionError:
    """A JSON Pointer; in an array an entry's ``id`` may stand for its index."""
    path: JsonPath = ()
    current: Any = export
    for raw in text.split("/")[1:]:
        segment = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(current, Mapping) and segment in current:
            path, current = path + (segment,), current[segment]
        elif isinstance(current, list) and segment.isdigit() and int(segment) < len(current):
            path, current = path + (int(segment),), current[int(segment)]
        elif isinstance(current, list) and (ids := [i for i, e in enumerate(current)
                                                   if isinstance(e, Mapping) and e.get("id") == segment]):
            path, current = path + (ids[0],), current[ids[0]]
        elif isinstance(current, list) and segment.isdigit():
            return SelectionError(f"{pointer(path)} has {len(current)} entries, so no entry {segment}",
                                  "entries are counted from 0")
        else:
            place = pointer(path) or "the export"
            return SelectionError(f"{place} has no {segment!r}", _suggest(segment, _names(current), "it has: "))
    return path


def _names(container: Any) -> list[str]:
    """The keys of an object, or the ids of an array's entries."""
    if isinstance(container, Mapping):
        return [str(key) for key in container]
    if isinstance(container, list):
        return [str(e["id"]) for e in container if isinstance(e, Mapping) and isinstance(e.get("id"), str)]
    return []


def _suggest(wrong: str, known: list[str], listing: str) -> str:
    close = difflib.get_close_matches(wrong, known, n=1, cutoff=0.6)
    if close:
        return f"did you mean {close[0]!r}?"
    if not known:
        return "check the reference against the export"
    shown = ", ".join(repr(k) for k in known[:6]) + (", ..." if len(known) > 6 else "")
    return listing + shown


def _at(document: Any, path: JsonPath) -> Any:
    for part in path:
        document = document[part]
    return document


def _unit(export: Mapping[str, Any], path: JsonPath) -> str:
    """The entry's unit applies to its value and to its uncertainty's deviation and bounds, not to other fields."""
    keys = [part for part in path if isinstance(part, str)]
    in_uncertainty = "uncertainty" in keys and keys[keys.index("uncertainty") + 1:][:1] != ["spread_ratio"]
    if not keys or not (keys[-1] == "value" or in_uncertainty):
        return ""
    cut = path.index("uncertainty") if "uncertainty" in path else len(path) - 1
    owner = _at(export, path[:cut])
    unit = owner.get("unit") if isinstance(owner, Mapping) else None
    return unit if isinstance(unit, str) else ""


def _evidence(export: Mapping[str, Any], path: JsonPath) -> str:
    """The nearest evidence_url (a fact's url) around the value."""
    for depth in range(len(path), -1, -1):
        owner = _at(export, path[:depth])
        if isinstance(owner, Mapping):
            for key in ("evidence_url", "url"):
                if isinstance(owner.get(key), str) and owner[key].startswith(("http://", "https://")):
                    return str(owner[key])
    return ""


def _about(entry: Mapping[str, Any], inner: JsonPath, path: JsonPath) -> str:
    """``label (record), field. statistic.``"""
    name = next((str(entry[k]) for k in ("label", "name", "id", "kind") if isinstance(entry.get(k), str)),
                pointer(path[:2]))
    record = entry.get("source_record_id") or entry.get("record_id")
    parts = [name + (f" ({record})" if isinstance(record, str) else "")]
    field = _field_words(inner)
    if field and inner != ("value",):
        parts[0] += f", {field}"
    if isinstance(entry.get("statistic"), str):
        parts.append(entry["statistic"])
    return ". ".join(part.rstrip(".") for part in parts) + "."


def _field_words(inner: JsonPath) -> str:
    """The field a value is within its entry, in words: ``conditions.per_prompt_decode_rates.0`` ->
    ``per prompt decode rates, item 1`` (the word "conditions" adds nothing to a condition's name)."""
    keys = [in_words(str(part)) for part in inner if isinstance(part, str)][1 if inner[:1] == ("conditions",) else 0:]
    items = [f"item {part + 1}" for part in inner if isinstance(part, int)]
    return ", ".join([" ".join(keys)] * bool(keys) + items)


def _conditions(entry: Mapping[str, Any]) -> tuple[tuple[tuple[str, str], ...], tuple[str, ...]]:
    """The entry's reported conditions (key, value as authored) and the keys it leaves null."""
    conditions = entry.get("conditions")
    if not isinstance(conditions, Mapping):
        return (), ()
    reported = tuple((str(k), condition_text(v)) for k, v in conditions.items() if v is not None)
    return reported, tuple(str(k) for k, v in conditions.items() if v is None)


def condition_text(value: Any) -> str:
    """A condition's value as read: text as it is, a number by its literal (separators added), else JSON."""
    if isinstance(value, str):
        return value
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return number_for_reading(value)
    return jsontext.dumps(value, indent=None)
