"""What changed between two published documents of one article: fields, results, sources.

The values are kept as authored (``jsontext`` numbers keep their literal); a field that is not
there at all is :data:`ABSENT`, which is not the same as ``null`` (a condition the source does not
report). ``diff`` (review/) and the history of the published data (site/history.py) both use them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final, Literal, Self

Status = Literal["added", "removed", "changed"]


class _Absent:
    """The marker of a field that one side does not have (printed ``(absent)``)."""

    _instance: _Absent | None = None

    def __new__(cls) -> Self:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance  # type: ignore[return-value]

    def __repr__(self) -> str:
        return "(absent)"


ABSENT: Final = _Absent()


@dataclass(frozen=True)
class FieldChange:
    """One field whose value differs: ``conditions.kv_dtype: null -> "fp8"``."""

    field: str  # dotted path inside the entry: value, unit, conditions.kv_dtype, facts[2].value
    old: Any  # JSON value as authored, or ABSENT
    new: Any
    percent: float | None = None  # relative change of a numeric value, when one can be given
    note: str = ""  # how the change reads: "+5.9 %", "old value is 0: no percentage"


@dataclass(frozen=True)
class ResultChange:
    """A reported result added, removed or changed, matched by (source_record_id, result id)."""

    status: Status
    source_record_id: str
    label: str
    result: Mapping[str, Any]  # the new entry (the old one when removed)
    changes: tuple[FieldChange, ...] = ()


@dataclass(frozen=True)
class SourceChange:
    """A source of the front matter, matched by URL (or by URL with its revision, when it moved)."""

    status: Status
    url: str  # the new URL (the old one when removed)
    publisher: str
    revision: str
    changes: tuple[FieldChange, ...] = ()
