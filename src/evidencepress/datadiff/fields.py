"""Field-level comparison of JSON values as authored.

Two values are the same when their JSON text is (``22.5`` and ``22.50`` are
not: the published literal changed). A numeric ``value`` that changed gets
its relative change, computed from the numbers; the report shows the
literals.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ..core import jsontext
from .changes import ABSENT, FieldChange

ENTRY_KEYS = ("id", "label", "name")  # what identifies an entry of a list, in this order


def canonical(value: Any) -> str:
    """JSON text that is equal exactly when the published values are (key order aside)."""
    if value is ABSENT:
        return "\x00absent"
    return jsontext.dumps(value, indent=None, sort_keys=True)


def same(old: Any, new: Any) -> bool:
    return canonical(old) == canonical(new)


def field_change(name: str, old: Any, new: Any) -> FieldChange:
    """``name: old -> new``, with the relative change when ``name`` is a numeric value."""
    if name.rsplit(".", 1)[-1] != "value":
        return FieldChange(name, old, new)
    percent, note = relative_change(old, new)
    return FieldChange(name, old, new, percent, note)


def relative_change(old: Any, new: Any) -> tuple[float | None, str]:
    if not (_is_number(old) and _is_number(new)):
        return None, ""
    try:
        before, after = float(old), float(new)
    except OverflowError:
        return None, "too large for a percentage"
    if before == after:
        return 0.0, "same number, written differently"
    if before == 0:
        return None, "old value is 0: no percentage"
    percent = (after - before) / abs(before) * 100
    if not math.isfinite(percent):
        return None, "too large for a percentage"
    return percent, percent_text(percent)


def percent_text(percent: float) -> str:
    """``+5.9 %``; a change that rounds to zero reads ``+<0.1 %``."""
    text = f"{percent:+.1f}"
    if text in ("+0.0", "-0.0"):
        text = "+<0.1" if percent > 0 else "-<0.1"
    return f"{text} %"


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def object_changes(old: Mapping[str, Any], new: Mapping[str, Any], prefix: str = "",
                   first: Sequence[str] = ()) -> list[FieldChange]:
    """Every leaf that differs between two JSON objects, by dotted path; objects are compared key by key,
    lists of identifiable entries entry by entry, other lists item by item."""
    changes: list[FieldChange] = []
    for key in ordered_keys(old, new, first):
        _value_changes(f"{prefix}{key}", old.get(key, ABSENT), new.get(key, ABSENT), changes)
    return changes


def ordered_keys(old: Mapping[str, Any], new: Mapping[str, Any], first: Sequence[str] = ()) -> list[str]:
    """``first``, then the new object's keys, then keys only the old one has."""
    keys = [key for key in first if key in old or key in new]
    keys += [key for key in new if key not in keys]
    keys += [key for key in old if key not in keys]
    return keys


def _value_changes(path: str, old: Any, new: Any, changes: list[FieldChange]) -> None:
    if same(old, new):
        return
    if isinstance(old, dict) and isinstance(new, dict):
        changes.extend(object_changes(old, new, f"{path}."))
    elif isinstance(old, list) and isinstance(new, list):
        for segment, before, after in _list_pairs(old, new):
            _value_changes(f"{path}{segment}", before, after, changes)
    else:
        changes.append(field_change(path, old, new))


def _list_pairs(old: list[Any], new: list[Any]) -> Iterable[tuple[str, Any, Any]]:
    """(path segment, old item, new item): matched by id/label/name when every entry has a unique one."""
    for key in ENTRY_KEYS:
        old_ids, new_ids = _identities(old, key), _identities(new, key)
        if old_ids is not None and new_ids is not None:
            for ident in list(new_ids) + [i for i in old_ids if i not in new_ids]:
                yield f"[{jsontext.dumps(ident)}]", old_ids.get(ident, ABSENT), new_ids.get(ident, ABSENT)
            return
    for index in range(max(len(old), len(new))):
        yield f"[{index}]", old[index] if index < len(old) else ABSENT, new[index] if index < len(new) else ABSENT


def _identities(items: list[Any], key: str) -> dict[str, Any] | None:
    found: dict[str, Any] = {}
    for item in items:
        ident = item.get(key) if isinstance(item, dict) else None
        if not isinstance(ident, str) or not ident or ident in found:
            return None
        found[ident] = item
    return found
